/**
 * rowsim calibrate: the latch and CAS protocols on real worker threads (SharedArrayBuffer, Atomics).
 * Correctness first, at every thread count the machine allows (and one more, time-sliced): mutual
 * exclusion, no lost update under CAS, no torn optimistic read. The checker has teeth: a lock that
 * excludes nothing loses updates, and optimistic reads that skip validation tear. Never asserts timings.
 */
import { availableParallelism } from 'node:os';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { benchmarkModel, calibrate, DEFAULT_WORKLOAD, ThreadPool, verify, type RunResult } from '../src/calibrate/bench.js';
import { fitAll, MAX_REPEAT_SPREAD_PCT, type FitRun } from '../src/calibrate/fit.js';
import { calibrationLines } from '../src/contention/report.js';
import { applyCalibrationToSpec, calibrationContradictions, calibrationFileSchema } from '../src/contention/calibration-file.js';
import { parseContention } from '../src/contention/schema.js';
import { modelInputs } from '../src/contention/inputs.js';
import { rowsim } from './helpers/cli.js';

const cores = availableParallelism();
const counts = [...Array.from({ length: cores }, (_v, i) => i + 1), cores + 1];

describe('the protocols are correct at every thread count', () => {
  for (const mode of ['ttas', 'ticket', 'mcs'] as const) {
    it(`${mode}: the counter the lock protects equals the accesses; never two threads inside`, async () => {
      for (const t of counts) {
        const r = await verify(mode, t, 120, { ...DEFAULT_WORKLOAD, partitions: 2 });
        expect(r.ops).toBeGreaterThan(0);
        expect(r.checks.lost_updates, `${mode} at ${t} threads`).toBe(0);
        expect(r.checks.occupancy_violations, `${mode} at ${t} threads`).toBe(0);
        expect(r.time_sliced).toBe(t > cores || r.cpu_share < 0.8);
      }
    });
  }
  it('cas-pin: CAS-incremented words add up to the accesses (no lost update)', async () => {
    for (const t of counts) {
      const r = await verify('cas-pin', t, 120, { ...DEFAULT_WORKLOAD, headers: 4 });
      expect(r.checks.cas_lost_updates, `at ${t} threads`).toBe(0);
      if (t >= 2 && !r.time_sliced) expect(r.cas_failure_pct).toBeGreaterThanOrEqual(0);
    }
  });
  it('optimistic: a validated read never sees a torn header', async () => {
    for (const t of counts) {
      const r = await verify('optimistic', t, 120, { ...DEFAULT_WORKLOAD, headers: 4, writeShare: 0.3 });
      expect(r.checks.torn_reads, `at ${t} threads`).toBe(0);
    }
  });
});

describe.skipIf(cores < 2)('the checks have teeth (two threads on two cores)', () => {
  it('a lock that excludes nothing loses updates', async () => {
    let lost = 0;
    for (let i = 0; i < 10 && lost === 0; i++)
      lost = (await verify('broken', 2, 150, { ...DEFAULT_WORKLOAD, partitions: 1, headers: 1, outsideIters: 0 })).checks.lost_updates;
    expect(lost).toBeGreaterThan(0);
  });
  it('optimistic reads that skip validation tear', async () => {
    let torn = 0;
    for (let i = 0; i < 10 && torn === 0; i++)
      torn = (await verify('unvalidated', 2, 150, { ...DEFAULT_WORKLOAD, headers: 1, outsideIters: 0 })).checks.torn_reads;
    expect(torn).toBeGreaterThan(0);
  });
});

describe('runs and the model', () => {
  it('marks more runnable threads than cores as time-sliced, with the reason', async () => {
    const pool = new ThreadPool(cores + 1);
    try {
      const r = await pool.run('ttas', cores + 1, 80, DEFAULT_WORKLOAD);
      expect(r.time_sliced).toBe(true);
      expect(r.time_sliced_reason).toContain(`${cores + 1} runnable threads on ${cores} cores`);
      expect(r.latency_ns!.samples).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
  });

  it('models a table run as threads engines and users with one look-up per access', () => {
    const spec = benchmarkModel('ticket', 2, DEFAULT_WORKLOAD, {
      outside: 200,
      hold: 150,
      handoff: 60,
      cas: 50,
      transfer: 20,
      lookup: 100,
    });
    expect(spec.engines).toEqual([2]);
    expect(spec.users).toEqual([2]);
    expect(spec.latched.lock).toBe('ticket');
    expect(spec.transaction.logical_reads).toBe(1);
    expect(
      benchmarkModel('optimistic', 2, DEFAULT_WORKLOAD, { outside: 200, hold: 150, handoff: 60, cas: 50, transfer: 20, lookup: 100 })
        .lockless.read,
    ).toBe('optimistic');
  });
});

const calFile = {
  rowsim_calibration: 1,
  machine: { cpus: 2, model: 'Test CPU', node: 'v20' },
  costs: {
    'latched.hold': 180,
    'latched.handoff_per_waiter': 90,
    'lockless.cas': 60,
    'lockless.line_transfer': null,
    'lockless.lookup': 120,
  },
};

describe('contention.calibration', () => {
  it('replaces the assumed costs, derived values follow, and the inputs say measured', () => {
    const spec = parseContention({ engines: 8, users: 10, latched: { hold: '300ns' } });
    const applied = applyCalibrationToSpec(spec, calibrationFileSchema.parse(calFile), 'cal.json');
    expect(applied.latched.hold_ns).toBe(180);
    expect(applied.latched.handoff_per_waiter_ns).toBe(90);
    expect(applied.lockless.line_transfer_ns).toBe(90); // follows the measured hand-off
    expect(applied.calibration!.replaced['latched.hold']).toBe(300);
    const inputs = modelInputs(applied);
    expect(inputs.find((i) => i.key === 'latched.hold')).toMatchObject({ origin: 'calibration', value: '180 ns' });
    expect(inputs.find((i) => i.key === 'latched.hold')!.source).toContain('measured: cal.json');
    expect(inputs.find((i) => i.key === 'pages.skew')!.origin).toBe('default');
  });

  it('a config names the file; a missing or wrong file is refused at the key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-cal-'));
    writeFileSync(join(dir, 'cal.json'), JSON.stringify(calFile));
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...calFile, costs: { 'latched.hold': 'fast' } }));
    const cfg = (file: string) =>
      `name: c\ncontention:\n  engines: 4\n  users: [10]\n  think_time: 1ms\n  duration: 20ms\n  warmup: 5ms\n  calibration: ${file}\n`;
    writeFileSync(join(dir, 'ok.yaml'), cfg('cal.json'));
    writeFileSync(join(dir, 'missing.yaml'), cfg('nope.json'));
    writeFileSync(join(dir, 'wrong.yaml'), cfg('bad.json'));
    expect(rowsim(['validate', join(dir, 'ok.yaml')]).code).toBe(0);
    const missing = rowsim(['validate', join(dir, 'missing.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /missing\.yaml:8:\d+: contention\.calibration: expected a calibration file written by rowsim calibrate \(nope\.json\)/,
    );
    const wrong = rowsim(['validate', join(dir, 'wrong.yaml')]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/bad\.json:1:\d+: costs\.latched\.hold: expected number, found string \(contention\.calibration\)/);
    const run = rowsim(['run', join(dir, 'ok.yaml'), '--out', join(dir, 'out'), '--quiet']);
    expect(run.code).toBe(0);
  });
});

const run = (ns: number, sliced = false): FitRun => ({
  ns_per_op_per_thread: ns,
  time_sliced: sliced,
  time_sliced_reason: sliced ? 'each thread got 45% of a core (other load on the machine)' : null,
});
/** Fitting runs by tag, three repeats each: one-thread outside 400, bare 500, ttas1 520, lock1 110, cas1 30; two-thread lock2 380, casSpaced 460, cas2 180. */
function healthy(): Map<string, FitRun[]> {
  const base: Record<string, number> = { outside: 400, bare: 500, ttas1: 520, lock1: 110, cas1: 30, lock2: 380, casSpaced: 460, cas2: 180 };
  return new Map(Object.entries(base).map(([t, v]) => [t, [run(v), run(v * 1.01), run(v * 0.99)]]));
}

describe('calibrate refuses what it cannot measure', () => {
  it('fits from unsliced repeats that agree, with their spread and per-repeat range', () => {
    const f = fitAll(healthy());
    expect(f['latched.hold'].value).toBe(120);
    expect(f['lockless.lookup'].value).toBe(100);
    expect(f['latched.handoff_per_waiter'].value).toBe(80);
    expect(f['lockless.cas'].value).toBe(60);
    expect(f['lockless.line_transfer'].value).toBe(30); // 180 / 2 − 60
    expect(f['latched.hold'].spread_pct).toBeCloseTo(2, 1);
    expect(f['latched.hold'].repeats_ns).toHaveLength(3);
  });
  it('refuses every cost when every run is time-sliced: no fit from the one-thread runs either', () => {
    const all = new Map([...healthy()].map(([t, rs]) => [t, rs.map((r) => run(r.ns_per_op_per_thread, true))]));
    const f = fitAll(all);
    for (const [k, v] of Object.entries(f)) {
      expect(v.value, k).toBeNull();
      expect(v.refused, k).toMatch(/3 of 3 repeats of the \w+ run time-sliced \(each thread got 45% of a core/);
    }
  });
  it('refuses a cost whose run has one unsliced repeat, or repeats that disagree', () => {
    const m = healthy();
    m.set('lock2', [run(380, true), run(380), run(380, true)]);
    m.set('ttas1', [run(520), run(700), run(520)]);
    const f = fitAll(m);
    expect(f['latched.handoff_per_waiter'].value).toBeNull();
    expect(f['latched.handoff_per_waiter'].refused).toContain('2 of 3 repeats of the lock2 run time-sliced');
    expect(f['latched.hold'].value).toBeNull();
    expect(f['latched.hold'].refused).toContain(`more than ${MAX_REPEAT_SPREAD_PCT}%`);
    expect(f['lockless.lookup'].value).toBe(100); // its own runs are fine
  });
  it('refuses a cost that comes out at 0 ns or below: a difference the runs cannot tell from noise', () => {
    const m = healthy();
    m.set('bare', [run(395), run(395 * 1.01), run(395 * 0.99)]); // bare − outside = −5
    const f = fitAll(m);
    expect(f['lockless.lookup'].value).toBeNull();
    expect(f['lockless.lookup'].refused).toMatch(/came out at -5 ns, not above 0/);
    expect(f['latched.hold'].value).toBe(120);
  });
  it('finds the figures of a file that cannot all be true; a file calibrate writes has none', () => {
    const ok = calibrationFileSchema.parse({
      ...calFile,
      fits: { 'latched.hold': { value: 180, spread_pct: 3.1, repeats_ns: [175, 184] } },
      fit_rule: { max_repeat_spread_pct: 10 },
    });
    expect(calibrationContradictions(ok)).toEqual([]);
    const paths = (change: object) =>
      calibrationContradictions(calibrationFileSchema.parse({ ...ok, ...change })).map((c) => c.path.join('/'));
    expect(paths({ costs: { ...ok.costs, 'lockless.cas': 0 } })).toEqual(['costs/lockless.cas']);
    expect(paths({ costs: { ...ok.costs, 'latched.hold': 1e10 } })).toEqual(['costs/latched.hold']);
    const refused = { value: null, refused: 'refused: time-sliced' };
    expect(paths({ fits: { 'latched.hold': refused } })).toEqual(['costs/latched.hold']);
    expect(paths({ fits: { 'latched.hold': { ...refused, value: 180 } } })).toEqual(['fits/latched.hold/value']);
    expect(paths({ fits: { 'latched.hold': { value: 999 } } })).toEqual(['fits/latched.hold/value']);
    expect(paths({ fits: { 'latched.hodl': { value: 180 } } })).toEqual(['fits/latched.hodl']);
    expect(paths({ fits: { 'latched.hold': { value: 180, spread_pct: 25 } } })).toEqual(['fits/latched.hold/spread_pct']);
    expect(paths({ fits: { 'latched.hold': { value: 180, repeats_ns: [175, -1] } } })).toEqual(['fits/latched.hold/repeats_ns/1']);
  });
  it("a file that refused keeps the config's values, and the summary says which are measured and which refused", () => {
    const file = calibrationFileSchema.parse({
      ...calFile,
      costs: { ...calFile.costs, 'latched.handoff_per_waiter': null, 'lockless.line_transfer': null },
      fits: {
        'latched.hold': { value: 180, spread_pct: 3.1, repeats_ns: [175, 184] },
        'latched.handoff_per_waiter': { value: null, refused: 'refused: 3 of 3 repeats of the lock2 run time-sliced (…)' },
      },
      fit_rule: { max_repeat_spread_pct: 10 },
    });
    const spec = parseContention({ engines: 8, users: 10, latched: { hold: '300ns', handoff_per_waiter: '70ns' } });
    const applied = applyCalibrationToSpec({ ...spec, explicit_keys: ['latched.handoff_per_waiter'] }, file, 'cal.json');
    expect(applied.latched.handoff_per_waiter_ns).toBe(70);
    expect(applied.latched.hold_ns).toBe(180);
    const inputs = modelInputs(applied);
    expect(inputs.find((i) => i.key === 'latched.handoff_per_waiter')).toMatchObject({ origin: 'config', value: '70 ns' });
    expect(inputs.find((i) => i.key === 'latched.handoff_per_waiter')!.source).toContain('rowsim calibrate refused to measure it');
    expect(inputs.find((i) => i.key === 'latched.hold')!.source).toMatch(
      /measured: cal\.json .*repeats 175 ns – 184 ns, runs' repeat spread 3\.1%/,
    );
    const lines = calibrationLines(applied.calibration!).join('\n');
    expect(lines).toMatch(/measured \(fitting runs' repeats within 10%\): latched\.hold = 180 ns, repeats 175–184, spread 3\.1%/);
    expect(lines).toContain('Refused by rowsim calibrate');
    expect(lines).toMatch(/latched\.handoff_per_waiter — refused: 3 of 3/);
  });
});

/** Busy loops, two per core, that end themselves after `ms` (and are killed by pid when the test is done). */
function busyLoops(ms: number): ChildProcess[] {
  const code = `const e = Date.now() + ${ms}; let x = 1; while (Date.now() < e) x = (x * 31 + 7) | 0;`;
  return Array.from({ length: 2 * cores }, () => spawn(process.execPath, ['-e', code], { stdio: 'ignore' }));
}

describe('forced time-slicing: calibrate refuses every cost', () => {
  it('with busy loops on every core, and with more threads than cores, no cost is fitted and the file says why', async () => {
    const loops = busyLoops(60_000);
    try {
      await new Promise((r) => setTimeout(r, 300)); // the loops are running
      const report = await calibrate({ threads: [1, cores + 1], durationMs: 60, workload: DEFAULT_WORKLOAD, repeats: 2 });
      for (const [k, v] of Object.entries(report.costs)) expect(v, k).toBeNull();
      for (const f of Object.values(report.fits)) expect(f.refused).toMatch(/time-sliced/);
      const over = report.runs.filter((r: RunResult) => r.threads === cores + 1);
      expect(over.every((r: RunResult) => r.time_sliced && r.time_sliced_reason!.includes('runnable threads'))).toBe(true);
      expect(report.predictions.every((p) => p.predicted_ops_per_sec === null)).toBe(true);
      const spec = parseContention({ engines: 8, users: 10, latched: { hold: '300ns' } });
      expect(calibrationContradictions(calibrationFileSchema.parse(report))).toEqual([]);
      const applied = applyCalibrationToSpec(spec, calibrationFileSchema.parse(report), 'cal.json');
      expect(applied.latched.hold_ns).toBe(300);
      expect(Object.keys(applied.calibration!.refused).sort()).toEqual(Object.keys(report.costs).sort());
      expect(Object.keys(applied.calibration!.values)).toEqual([]);
    } finally {
      for (const p of loops) p.kill('SIGKILL');
    }
  });
});
