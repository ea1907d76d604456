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

  it('one command from ddlgen and optdiag output, no config: calibrated, in MB as well as pages, with the what-if', () => {
    const dir = tmp();
    const ex = (f: string) => join(ROOT, 'sim-configs', 'estimate', f);
    const r = rowsim([
      'estimate',
      '--ddl',
      ex('titles.ddlgen.sql'),
      '--optdiag',
      ex('titles.optdiag.txt'),
      '--sample-rows',
      '4000',
      '--seeds',
      '3',
      '--out',
      join(dir, 'o'),
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^recommended exp_row_size \d+: /m);
    expect(r.stdout).toMatch(
      /calibration \(fitted\): optdiag Forwarded row count 526,600 of 5,000,000 rows: 10\.53% of rows; .*the measurement is inside it/,
    );
    expect(r.stdout).toMatch(/pages of 2 KB/);
    expect(r.stdout).toMatch(/current \(config\) +150 .* MB +— /);
    expect(r.stdout).toMatch(/^apply:\n  sp_chgattribute 'titles', 'exp_row_size', \d+$/m);
    expect(r.stdout).toMatch(/^maintenance what-if \(28 days; assumed: every_days 7, growth_per_day 1%/m);
    const est = JSON.parse(readFileSync(join(dir, 'o', 'estimate.json'), 'utf8'));
    expect(est).toMatchObject({
      name: 'titles',
      verdict: { status: 'recommended', exit_status: 0 },
      page_size_bytes: 2048,
      calibration: { kind: 'fit', reproduced: true },
    });
    expect(est.evidence.forwarded).toMatchObject({ value: 526600, from: 'optdiag Forwarded row count', line: 16 });
    expect(est.candidates[0].size_bytes).toBe(est.candidates[0].pages * 2048);
    expect(existsSync(join(dir, 'o', 'charts', 'estimate-maintenance.png'))).toBe(true);
  });

  it('exit status 3 with the reason as the headline and no apply: line; --force prints the command, still 3', () => {
    const dir = tmp();
    const cfg = join(ROOT, 'sim-configs', 'estimate-titles-unexplained.yaml');
    const args = ['estimate', cfg, '--sample-rows', '4000', '--seeds', '3'];
    const r = rowsim([...args, '--out', join(dir, 'a')]);
    expect(r.code).toBe(3);
    expect(r.stdout.split('\n')[2]).toMatch(/^NOT APPLICABLE: the evidence cannot be reproduced: /);
    expect(r.stdout).not.toMatch(/^apply/m);
    expect(r.stdout).toMatch(/^no apply: command \(evidence not reproduced; --force prints/m);
    expect(r.stdout).not.toContain('sp_chgattribute');
    const f = rowsim([...args, '--force', '--out', join(dir, 'b')]);
    expect(f.code).toBe(3);
    expect(f.stdout).toMatch(/^apply \(--force: the estimate does not recommend it\):\n  sp_chgattribute 'titles', 'exp_row_size', \d+/m);
    const q = rowsim([...args, '--quiet', '--out', join(dir, 'c')]);
    expect(q.code).toBe(3);
    expect(q.stdout).toBe('');
    expect(q.stderr).toMatch(/^rowsim estimate: the evidence cannot be reproduced/);
    expect(JSON.parse(readFileSync(join(dir, 'c', 'estimate.json'), 'utf8')).verdict).toMatchObject({
      status: 'evidence_not_reproduced',
      exit_status: 3,
    });
  });

  it('a target no setting meets exits 3 too', () => {
    const dir = tmp();
    const r = rowsim([
      'estimate',
      join(ROOT, 'sim-configs', 'estimate-titles-optdiag.yaml'),
      '--target',
      '0.01',
      '--sample-rows',
      '4000',
      '--seeds',
      '3',
      '--out',
      join(dir, 'o'),
    ]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/NOT APPLICABLE: no exp_row_size meets 0\.01%: the best is \d+ with/);
  });

  describe('figures that cannot all be true: exit 2 before any simulation, both places named, nothing written', () => {
    const ex = (f: string) => join(ROOT, 'sim-configs', 'estimate', f);
    const refused = (args: string[], dir: string) => {
      const r = rowsim(['estimate', ...args, '--out', join(dir, 'out')]);
      expect(r.stdout).toBe('');
      expect(r.code).toBe(2);
      expect(existsSync(join(dir, 'out'))).toBe(false);
      return r.stderr;
    };

    it('1 data page for 100,000 rows', () => {
      const dir = tmp();
      const od = join(dir, 'titles.optdiag.txt');
      writeFileSync(
        od,
        readFileSync(ex('titles.optdiag.txt'), 'utf8')
          .replace('503750', '1')
          .replace('5000000.0000000000000000', '100000')
          .replace('526600.0000000000000000', '10'),
      );
      const err = refused(['--ddl', ex('titles.ddlgen.sql'), '--optdiag', od], dir);
      expect(err).toContain(
        `${od}:13:1: expected at least 2,273 pages of 2 KB for Data row count 100,000 (titles.optdiag.txt:15), found Data page count 1, which cannot hold them: the shortest row of table titles takes 43 bytes on ase-dol`,
      );
    });

    it('a row count of 1e26', () => {
      const dir = tmp();
      const od = join(dir, 'titles.optdiag.txt');
      writeFileSync(od, readFileSync(ex('titles.optdiag.txt'), 'utf8').replace('5000000.0000000000000000', '1e26'));
      expect(refused(['--ddl', ex('titles.ddlgen.sql'), '--optdiag', od], dir)).toMatch(
        new RegExp(
          `^error: ${od}:15:1: expected Data row count as a whole number up to 2\\^53 − 1 .* found 1e\\+26: not an exact count a server could print`,
        ),
      );
    });

    it("a ddlgen script with pgstattuple's output (postgres-heap would be guessed from it), and --format of another DBMS", () => {
      const dir = tmp();
      const err = refused(['--ddl', ex('titles.ddlgen.sql'), '--pgstattuple', ex('ticket_events.pgstattuple.txt')], dir);
      expect(err).toContain(
        `${ex('ticket_events.pgstattuple.txt')}:7:1: expected the output of SAP ASE's tools for table titles, whose DDL is SAP ASE's (lock datarows at titles.ddlgen.sql:47), found pgstattuple's output (PostgreSQL's)`,
      );
      const f = refused(['--ddl', ex('titles.ddlgen.sql'), '--optdiag', ex('titles.optdiag.txt'), '--format', 'postgres-heap'], dir);
      expect(f).toContain(
        `--format: expected a format of SAP ASE (--format ase-dol or ase-apl) for optdiag's output (SAP ASE's) at ${ex('titles.optdiag.txt')}:9, found postgres-heap`,
      );
    });

    it("a config whose sp_spaceused disagrees with optdiag's Data page count by more than 1%, and whose engine.format is another DBMS's", () => {
      const dir = tmp();
      writeFileSync(join(dir, 'su.txt'), readFileSync(ex('titles.sp_spaceused.txt'), 'utf8').replace('1007500 KB', '1107500 KB'));
      const cfg = (format: string, su: string) =>
        `name: t\ntable: { ddl: ${ex('titles.ddlgen.sql')} }\nengine: { format: ${format} }\nestimate:\n  measured: { optdiag: ${ex('titles.optdiag.txt')}, sp_spaceused: ${su} }\n`;
      writeFileSync(join(dir, 't.yaml'), cfg('ase-dol', 'su.txt'));
      expect(refused([join(dir, 't.yaml')], dir)).toContain(
        `${join(dir, 'su.txt')}:7:1: expected data to agree with optdiag Data page count 503,750 (${ex('titles.optdiag.txt')}:13): 503,750 pages within 1%`,
      );
      writeFileSync(join(dir, 'p.yaml'), cfg('postgres-heap', ex('titles.sp_spaceused.txt')));
      expect(refused([join(dir, 'p.yaml')], dir)).toContain(
        `${join(dir, 'p.yaml')}:3:19: expected a format of SAP ASE (engine.format ase-dol or ase-apl) for optdiag's output (SAP ASE's) at ${ex('titles.optdiag.txt')}:9, found postgres-heap (engine.format)`,
      );
    });
  });

  it('refuses --ddl beside a config, and an estimate with neither (exit 2)', () => {
    const a = rowsim(['estimate', TITLES, '--ddl', 'x.sql']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/--ddl, --format and --page-size are for an estimate without a config file/);
    const b = rowsim(['estimate', '--optdiag', 'x.txt']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/expected a config file, or --ddl/);
  });
});
