import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/config/errors.js';
import { loadConfig } from '../src/loader/config.js';
import { loadEstimateConfig } from '../src/loader/config.js';
import {
  onceEach,
  pickForwardingTarget,
  recommend,
  refinementValues,
  runEstimate,
  type CandidateFigures,
  type EstimateOutcome,
} from '../src/estimate/estimate.js';
import { fillRowLengths, maxEntropyLengths } from '../src/estimate/rows.js';
import type { CandidateTask, ReplicateFigures } from '../src/estimate/simulate.js';
import { extrapolate } from '../src/estimate/stats.js';
import { getFormat } from '../src/formats/registry.js';
import { fillfactorKnob } from '../src/formats/postgres-settings.js';
import { distMean } from '../src/workload/dist.js';
import { runStorage } from '../src/workload/runner.js';
import { ROOT } from './helpers/cli.js';

const TITLES = join(ROOT, 'sim-configs', 'estimate-titles.yaml');
const titlesText = readFileSync(TITLES, 'utf8');
const tmp = () => mkdtempSync(join(tmpdir(), 'rowsim-est-'));

function problems(fn: () => unknown): InputError['problems'] {
  try {
    fn();
  } catch (err) {
    if (err instanceof InputError) return err.problems;
    throw err;
  }
  throw new Error('expected an InputError');
}

const cand = (o: EstimateOutcome, v: number): CandidateFigures => o.formats[0]!.candidates.find((c) => c.value === v)!;

describe('the estimate runner', () => {
  it('simulates each distinct task once, in a batch and across batches, and hands every task its own figures', async () => {
    const seen: string[] = [];
    const pairs = { insert: new Int32Array([10, 20]), now: new Int32Array([30, 40]) };
    const task = (seed: number, value: number, p = pairs) =>
      ({
        name: 't',
        seed,
        engine: { exp_row_size: value },
        replicates: 1,
        source: { kind: 'rows', rows: 5, pairs: p },
      }) as unknown as CandidateTask;
    const runner = onceEach(async (tasks) =>
      tasks.map((t) => {
        seen.push(`${t.seed}/${(t.engine as { exp_row_size: number }).exp_row_size}`);
        return [{ rows: t.seed, pages: (t.engine as { exp_row_size: number }).exp_row_size } as ReplicateFigures];
      }),
    );
    const first = await runner([task(1, 100), task(2, 100), task(1, 100), task(1, 120)]);
    expect(first.map((r) => [r[0]!.rows, r[0]!.pages])).toEqual([
      [1, 100],
      [2, 100],
      [1, 100],
      [1, 120],
    ]);
    const again = await runner([task(1, 120), task(3, 100), task(2, 100)]);
    expect(again.map((r) => [r[0]!.rows, r[0]!.pages])).toEqual([
      [1, 120],
      [3, 100],
      [2, 100],
    ]);
    expect(seen).toEqual(['1/100', '2/100', '1/120', '3/100']);
    // Length pairs are told apart by the array, not its place in the task: other arrays are another task.
    await runner([task(1, 100, { insert: new Int32Array([10, 20]), now: new Int32Array([30, 41]) })]);
    expect(seen).toHaveLength(5);
  });
});

describe('the titles table (pubs2)', () => {
  it('ASE accepts exp_row_size from 21 (fixed NOT NULL bytes) to 331 (maximum data row length)', () => {
    const spec = loadConfig(TITLES).storage[0]!.spec;
    const format = getFormat('ase-dol')!;
    const layout = format.rows.layout(spec.table, spec.engine);
    const resolved = format.resolve(spec.engine, layout);
    expect(resolved.exp_row_size_max).toBe(331);
    expect(resolved.exp_row_size_min).toBe(21);
    expect(resolved.exp_row_size).toBe(100); // 0 → 5% of 2002
  });

  it('the workload reproduces the manual figures: rows under 40 bytes at insert, average about 184, maximum 331', () => {
    const spec = loadConfig(TITLES).storage[0]!.spec;
    const layout = getFormat('ase-dol')!.rows.layout(spec.table, spec.engine);
    const overhead = 8 + 2 * layout.varying.length; // DOL row = 8 + data + 2 per variable column [E]
    const r = runStorage({
      ...spec,
      workload: spec.workload.map((p) => (p.op === 'insert' ? { ...p, rows: { kind: 'count', n: 20000 } } : p)),
    });
    expect(r.row_bytes.logical_max).toBe(331);
    expect(r.row_bytes.avg - overhead).toBeGreaterThan(176);
    expect(r.row_bytes.avg - overhead).toBeLessThan(192);
    const ins = runStorage({ ...spec, workload: [{ ...spec.workload[0]!, rows: { kind: 'count', n: 20000 } } as never] });
    expect(ins.row_bytes.min - overhead).toBeLessThan(40);
  });
});

describe('row lengths', () => {
  it('a row data length is spread over the columns exactly (property)', () => {
    const spec = loadConfig(TITLES).storage[0]!.spec;
    const format = getFormat('ase-dol')!;
    const layout = format.rows.layout(spec.table, spec.engine);
    const lens = new Uint16Array(layout.varying.length);
    fc.assert(
      fc.property(fc.integer({ min: 21, max: 331 }), (len) => {
        fillRowLengths(layout, len, lens, 0);
        expect(format.rows.logicalBytes(layout, lens, 0)).toBe(len);
        layout.varying.forEach((c, i) => {
          if (lens[i] !== 0xffff) expect(lens[i]).toBeLessThanOrEqual(c.maxBytes);
        });
      }),
    );
  });

  it('optdiag figures become the maximum-entropy distribution with that mean', () => {
    for (const [min, max, avg] of [
      [32, 331, 184],
      [21, 331, 60],
      [100, 120, 119],
    ] as const) {
      const d = maxEntropyLengths(min, max, avg);
      expect(distMean(d)).toBeCloseTo(avg, 3);
      if (d.kind === 'choice') expect([Math.min(...d.values), Math.max(...d.values)]).toEqual([min, max]);
    }
  });

  it('intervals widen with fewer seeds and never collapse to a point', () => {
    const a = extrapolate([0.1, 0.12, 0.11], 1e6, 1000);
    const b = extrapolate([0.1, 0.12, 0.11, 0.1, 0.12, 0.11, 0.1, 0.12, 0.11], 1e6, 1000);
    expect(a.interval[1] - a.interval[0]).toBeGreaterThan(b.interval[1] - b.interval[0]);
    const z = extrapolate([0, 0, 0], 1e6, 1000);
    expect(z.interval[0]).toBe(0);
    expect(z.interval[1]).toBeGreaterThan(0);
  });
});

describe('recommendations', () => {
  it("names the knob's packing value beside the fewest scan reads, where no special is named pack (PostgreSQL's fillfactor 100)", () => {
    const cand = (value: number, reads: number, fwdPct: number): CandidateFigures => ({
      value,
      setting: String(value),
      specials: value === 100 ? ['default'] : [],
      label: String(value),
      refined: false,
      forwarded_rows: fwdPct * 10,
      forwarded_rows_pct: fwdPct,
      pages: 1000,
      table_scan_page_reads: reads,
      packed_pages: 1000,
      space_overhead_pct: 0,
      spread: { forwarded_rows_pct: [fwdPct, fwdPct], pages: [1000, 1000], table_scan_page_reads: [reads, reads] },
      interval: { forwarded_rows_pct: [fwdPct, fwdPct], pages: [1000, 1000], table_scan_page_reads: [reads, reads] },
    });
    const { scan } = recommend(fillfactorKnob(), [cand(70, 1000, 0), cand(100, 1200, 20)], 5);
    expect(scan.value).toBe(70);
    expect(scan.why).toMatch(/; packing fully \(fillfactor 100\) reads 1,200;/);
  });

  it('a higher target never yields a larger value, refinement included (property over arbitrary curves)', () => {
    // An arbitrary (not monotone) curve of interval upper ends over knob values 0..60, and a grid.
    const knob = { min: 0, max: 60, moreReserveWhenLarger: true };
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 50, noNaN: true }), { minLength: 61, maxLength: 61 }),
        fc.array(fc.double({ min: 1, max: 1e5, noNaN: true }), { minLength: 61, maxLength: 61 }),
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.double({ min: 0, max: 50, noNaN: true }),
        (upper, reads, t1, t2) => {
          const [lo, hi] = t1 <= t2 ? [t1, t2] : [t2, t1];
          const pick = (target: number) => {
            const coarse = [0, 10, 20, 30, 40, 50, 60].map((v) => ({ value: v, upper: upper[v]!, reads: reads[v]! }));
            const extra = refinementValues(knob, coarse, target).map((v) => ({ value: v, upper: upper[v]!, reads: reads[v]! }));
            const all = [...coarse, ...extra].sort((a, b) => a.value - b.value);
            return all[pickForwardingTarget(all, target).index]!.value;
          };
          expect(pick(hi)).toBeLessThanOrEqual(pick(lo));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('on the titles table: monotone in the target, each recommendation with its interval under the target', async () => {
    const picks: number[] = [];
    for (const target of [0.5, 1, 5, 20]) {
      const cfg = loadEstimateConfig(TITLES, { target_pct: target, sample_rows: 4000, seeds: 3 });
      const o = await runEstimate(cfg);
      const rec = o.formats[0]!.forwarding_target;
      picks.push(rec.value);
      expect(rec.met).toBe(true);
      expect(cand(o, rec.value).interval.forwarded_rows_pct[1]).toBeLessThanOrEqual(target);
    }
    for (let i = 1; i < picks.length; i++) expect(picks[i]).toBeLessThanOrEqual(picks[i - 1]!);
    expect(picks[0]).toBeGreaterThan(picks[3]!);
  });

  it('sampled estimates agree with full simulations within their stated intervals', async () => {
    // 100,000-row titles table: estimate from 10,000-row samples, then simulate the whole table.
    const cfg = loadEstimateConfig(TITLES, { sample_rows: 10000 });
    cfg.candidates = [1, 0, 161, 201, 221, 251, 'max'];
    cfg.refine = false;
    const o = await runEstimate(cfg);
    expect(o.sample).toMatchObject({ sampled: true, table_rows: 100000, rows_per_seed: 10000, seeds: 5 });
    const base = loadConfig(TITLES).storage[0]!.spec;
    let checks = 0;
    let inside = 0;
    let worst = 0;
    for (const c of o.formats[0]!.candidates) {
      for (const seed of [42, 7]) {
        const r = runStorage({
          ...base,
          seed,
          engine: { ...base.engine, exp_row_size: c.setting === 'max' ? 'max' : Number(c.setting) },
        }).final;
        for (const [v, iv, mid] of [
          [(100 * r.forwarded_rows!) / r.rows!, c.interval.forwarded_rows_pct, c.forwarded_rows_pct],
          [r.pages!, c.interval.pages, c.pages],
          [r.table_scan_page_reads!, c.interval.table_scan_page_reads, c.table_scan_page_reads],
        ] as const) {
          checks++;
          if (v >= iv[0] - 1e-9 && v <= iv[1] + 1e-9) inside++;
          // Distance from the estimate in half-widths of the interval.
          const half = Math.max(1e-9, v >= mid ? iv[1] - mid : mid - iv[0]);
          worst = Math.max(worst, Math.abs(v - mid) / half);
        }
      }
    }
    // 95% intervals: nearly all full runs inside, none far outside.
    expect(inside / checks).toBeGreaterThanOrEqual(0.9);
    expect(worst).toBeLessThan(2);
  });

  it('the same config and seed give the same estimate, and replicates share their rows across candidates', async () => {
    const cfg = loadEstimateConfig(TITLES, { sample_rows: 2000, seeds: 2 });
    const a = await runEstimate(cfg);
    const b = await runEstimate(cfg);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    // Below the shortest row, exp_row_size reserves nothing: identical to packing fully.
    expect(cand(a, 21).forwarded_rows).toBe(cand(a, 1).forwarded_rows);
    expect(cand(a, 21).pages).toBe(cand(a, 1).pages);
  });
});

describe('measured input', () => {
  const withMeasured = (measured: string, extra = '') =>
    titlesText.replace(/workload:[\s\S]*?estimate:\n/, `estimate:\n${extra}  measured:\n${measured}`);

  it('a CSV of row lengths at insert and now: replayed by resampling, extrapolated to the table', async () => {
    const dir = tmp();
    const lines = ['insert,now'];
    for (let i = 0; i < 500; i++) lines.push(`${40 + (i % 60)},${120 + ((i * 37) % 200)}`);
    writeFileSync(join(dir, 'lengths.csv'), `${lines.join('\n')}\n`);
    const file = join(dir, 'titles.yaml');
    writeFileSync(file, withMeasured('    csv: lengths.csv\n', '  rows: 50000000\n'));
    const cfg = loadEstimateConfig(file, { sample_rows: 3000, seeds: 2 });
    expect(cfg.source.kind).toBe('csv');
    const o = await runEstimate(cfg);
    expect(o.sample).toMatchObject({ source: 'csv', table_rows: 50000000, sampled: true, rows_per_seed: 3000 });
    const f = o.formats[0]!;
    expect(cand(o, 1).forwarded_rows_pct).toBeGreaterThan(50);
    expect(cand(o, 331).forwarded_rows_pct).toBe(0);
    expect(f.forwarding_target.met).toBe(true);
    expect(f.commands[0]).toBe(`sp_chgattribute 'titles', 'exp_row_size', ${f.forwarding_target.value}`);
  });

  it('the shipped measured example loads (synthetic CSV of titles lengths)', () => {
    const cfg = loadEstimateConfig(join(ROOT, 'sim-configs', 'estimate-titles-measured.yaml'));
    expect(cfg.source.kind).toBe('csv');
    if (cfg.source.kind === 'csv') expect(cfg.source.pairs.insert.length).toBe(2000);
    expect(cfg.rows).toBe(5000000);
  });

  it('refuses lengths no row of the table can have, naming file, line, column and the allowed range', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'lengths.csv'), 'insert,now\n40,120\n# a comment\n50, 400\n');
    const file = join(dir, 'titles.yaml');
    writeFileSync(file, withMeasured('    csv: lengths.csv\n'));
    const p = problems(() => loadEstimateConfig(file));
    expect(p).toHaveLength(1);
    expect(p[0]).toMatchObject({ file: join(dir, 'lengths.csv'), line: 4, column: 5 });
    expect(p[0]!.message).toMatch(/from 21 to 331 bytes.*found 400/);
  });

  it('optdiag figures (the manual: min under 40, average 184, max 331)', async () => {
    const dir = tmp();
    const file = join(dir, 'titles.yaml');
    writeFileSync(file, withMeasured('    optdiag: { rows: 1000000, min: 32, avg: 184, max: 331, forwarded: 400000 }\n'));
    const cfg = loadEstimateConfig(file, { sample_rows: 3000, seeds: 2 });
    const o = await runEstimate(cfg);
    expect(o.sample.table_rows).toBe(1000000);
    // The forwarded count calibrates the unknown insert lengths: the current setting reproduces 40%.
    expect(o.calibration).toMatchObject({ kind: 'fit', reproduced: true, measured: { pct: 40 } });
    const iv = o.calibration!.simulated.interval;
    expect(iv[0]).toBeLessThanOrEqual(40);
    expect(iv[1]).toBeGreaterThanOrEqual(40);
    expect(o.notes.join('\n')).toMatch(/at insert: fitted to the forwarded rows/);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, withMeasured('    optdiag: { rows: 1000, min: 10, avg: 184, max: 331 }\n'));
    const p = problems(() => loadEstimateConfig(bad));
    expect(p[0]).toMatchObject({ key: 'estimate.measured.optdiag.min' });
    expect(p[0]!.message).toMatch(/from 21 to 331/);
    expect(p[0]!.line).toBeGreaterThan(1);
  });

  it('per-column histograms build the insert and growth', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'notes-now.csv'), 'length,count\n0,10\n100,30\n200,60\n');
    const file = join(dir, 'titles.yaml');
    writeFileSync(
      file,
      withMeasured(
        '    columns:\n      notes: { insert: { null: 1 }, now: { length: { histogram: notes-now.csv } } }\n      title: { insert: { length: 40 } }\n',
        '  rows: 30000\n',
      ),
    );
    const cfg = loadEstimateConfig(file, { sample_rows: 3000, seeds: 2 });
    expect(cfg.source.kind).toBe('columns');
    const o = await runEstimate(cfg);
    expect(cand(o, 1).forwarded_rows_pct).toBeGreaterThan(cand(o, 331).forwarded_rows_pct);
  });
});

describe('estimate config errors', () => {
  it('unknown keys are named with a suggestion and position', () => {
    const p = problems(() => loadEstimateConfig('x.yaml', {}, titlesText.replace('target_pct: 1', 'targt_pct: 1')));
    expect(p[0]).toMatchObject({ key: 'estimate.targt_pct' });
    expect(p[0]!.message).toMatch(/did you mean "target_pct"/);
    expect(p[0]!.line).toBe(titlesText.split('\n').findIndex((l) => l.includes('target_pct')) + 1);
  });

  it('candidates outside what ASE accepts are refused with the range', () => {
    const p = problems(() => loadEstimateConfig('x.yaml', {}, titlesText.replace('  seeds: 5', '  seeds: 5\n  candidates: [1, 150, 400]')));
    expect(p[0]).toMatchObject({ key: 'estimate.candidates[2]' });
    expect(p[0]!.message).toMatch(/21 to 331.*found 400/);
  });

  it('a format without a reserve knob is refused', () => {
    const p = problems(() => loadEstimateConfig('x.yaml', {}, titlesText.replace('format: ase-dol', 'format: ase-apl')));
    expect(p[0]).toMatchObject({ key: 'engine.format' });
    expect(p[0]!.message).toMatch(/ignore it/);
  });
});

describe.skipIf(!getFormat('postgres-heap') || !getFormat('oracle-heap'))('postgres fillfactor and oracle PCTFREE', () => {
  it('the same analysis for the other formats, with their commands', async () => {
    const cfg = loadEstimateConfig(TITLES, { sample_rows: 3000, seeds: 2, formats: ['postgres-heap', 'oracle-heap'] });
    const o = await runEstimate(cfg);
    const pg = o.formats.find((f) => f.format === 'postgres-heap')!;
    const ora = o.formats.find((f) => f.format === 'oracle-heap')!;
    expect(pg.knob).toBe('fillfactor');
    expect(pg.limits).toEqual({ fillfactor_min: 10, fillfactor_max: 100 });
    expect(pg.commands[0]).toBe(`ALTER TABLE titles SET (fillfactor = ${pg.forwarding_target.value});`);
    expect(ora.knob).toBe('pctfree');
    expect(ora.commands[0]).toBe(`ALTER TABLE titles PCTFREE ${ora.forwarding_target.value};`);
    for (const f of [pg, ora]) {
      expect(f.candidates.length).toBeGreaterThan(5);
      const low = f.candidates.find((c) => c.value === (f.knob === 'fillfactor' ? 100 : 0))!;
      const high = f.candidates.find((c) => c.value === (f.knob === 'fillfactor' ? 10 : 99))!;
      expect(low.forwarded_rows_pct).toBeGreaterThanOrEqual(high.forwarded_rows_pct);
    }
  });
});
