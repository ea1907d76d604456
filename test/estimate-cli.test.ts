import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, rowsim } from './helpers/cli.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'rowsim-estcli-'));
const TITLES = join(ROOT, 'sim-configs', 'estimate-titles.yaml');

describe('rowsim estimate', () => {
  it('writes estimate.json with the contract keys; identical for any --workers; the recommendation meets the target in rowsim run', () => {
    const dir = tmp();
    const args = ['estimate', TITLES, '--sample-rows', '8000', '--seeds', '4'];
    const a = rowsim([...args, '--workers', '1', '--out', join(dir, 'a')]);
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    const b = rowsim([...args, '--workers', '2', '--out', join(dir, 'b')]);
    expect(b.code).toBe(0);
    const ja = readFileSync(join(dir, 'a', 'estimate.json'), 'utf8');
    expect(readFileSync(join(dir, 'b', 'estimate.json'), 'utf8')).toBe(ja);

    const est = JSON.parse(ja);
    expect(est).toMatchObject({ table: 'titles', format: 'ase-dol', limits: { exp_row_size_min: 21, exp_row_size_max: 331 } });
    const c0 = est.candidates[0];
    for (const key of ['exp_row_size', 'forwarded_rows_pct', 'pages', 'table_scan_page_reads']) expect(c0).toHaveProperty(key);
    expect(c0.spread.forwarded_rows_pct).toHaveLength(2);
    const rec = est.recommendations.forwarding_target;
    expect(rec).toMatchObject({ target_pct: 1, met: true });
    expect(typeof rec.why).toBe('string');
    expect(typeof est.recommendations.min_scan_reads.exp_row_size).toBe('number');
    expect(est.commands).toEqual([`sp_chgattribute 'titles', 'exp_row_size', ${rec.exp_row_size}`]);
    expect(est.compare.map((r: { name: string }) => r.name)).toEqual(
      expect.arrayContaining(['forwarding target', 'fewest scan reads', 'server default', 'pack fully', 'max']),
    );
    for (const c of est.charts) expect(existsSync(join(dir, 'a', c))).toBe(true);
    expect(a.stdout).toContain(`sp_chgattribute 'titles', 'exp_row_size', ${rec.exp_row_size}`);
    expect(a.stdout).toMatch(/until `reorg rebuild titles`/);

    // The full 100,000-row workload at the recommended value, through rowsim run.
    const cfg = readFileSync(TITLES, 'utf8').replace('exp_row_size: 0 ', `exp_row_size: ${rec.exp_row_size} `);
    expect(cfg).toContain(`exp_row_size: ${rec.exp_row_size} `);
    writeFileSync(join(dir, 'titles.yaml'), cfg);
    const run = rowsim(['run', join(dir, 'titles.yaml'), '--out', join(dir, 'run'), '--quiet']);
    expect(run.code).toBe(0);
    const final = JSON.parse(readFileSync(join(dir, 'run', 'results.json'), 'utf8')).storage[0].final;
    expect(final.rows).toBe(100000);
    expect((100 * final.forwarded_rows) / final.rows).toBeLessThanOrEqual(1);
    // …and one byte less does not (the recommendation is the smallest).
    const below = est.candidates.find((c: { exp_row_size: number }) => c.exp_row_size === rec.exp_row_size - 1);
    if (below) expect(below.forwarded_rows_pct).toBeGreaterThan(1);
  });

  it('a 1,000,000,000-row table is estimated from a sample and says how large it was', () => {
    const dir = tmp();
    const r = rowsim(['estimate', TITLES, '--rows', '1e9', '--json', '--out', join(dir, 'big')]);
    expect(r.code).toBe(0);
    const est = JSON.parse(r.stdout);
    expect(est.sample).toMatchObject({ table_rows: 1e9, sampled: true, rows_per_seed: 20000, seeds: 5 });
    const rec = est.candidates.find((c: { exp_row_size: number }) => c.exp_row_size === est.recommendations.forwarding_target.exp_row_size);
    expect(rec.pages).toBeGreaterThan(1e8);
    expect(rec.interval.pages[0]).toBeLessThan(rec.pages);
    expect(rec.interval.pages[1]).toBeGreaterThan(rec.pages);
  });

  it('bad measured input exits 2 with file, line and column, and writes nothing', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'lengths.csv'), 'insert,now\n40,120\n40,x\n');
    const text = readFileSync(TITLES, 'utf8').replace(/workload:[\s\S]*?estimate:\n/, 'estimate:\n  measured: { csv: lengths.csv }\n');
    writeFileSync(join(dir, 't.yaml'), text);
    const r = rowsim(['estimate', join(dir, 't.yaml'), '--out', join(dir, 'out')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, 'lengths.csv')}:3:4: expected a whole data length in bytes now, found "x"`);
    expect(existsSync(join(dir, 'out'))).toBe(false);
    const t = rowsim(['estimate', TITLES, '--target', '0']);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/--target/);
  });
});
