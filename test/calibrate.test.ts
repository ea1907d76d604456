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
import { benchmarkModel, DEFAULT_WORKLOAD, ThreadPool, verify } from '../src/calibrate/bench.js';
import { applyCalibrationToSpec, calibrationFileSchema } from '../src/contention/calibration-file.js';
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
    expect(wrong.stderr).toMatch(/contention\.calibration: .*bad\.json with costs/);
    const run = rowsim(['run', join(dir, 'ok.yaml'), '--out', join(dir, 'out'), '--quiet']);
    expect(run.code).toBe(0);
  });
});
