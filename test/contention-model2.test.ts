/**
 * Contention round 2: the lock kinds, the line-serialised CAS, optimistic reads, stationarity, the
 * statistics of replications and the phase headline — each checked against something no one here
 * wrote (bounds, closed forms, textbook quantiles), and each check shown to fail a wrong model.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPointModel, pointNetwork } from '../src/contention/model.js';
import { operationalBounds } from '../src/contention/mva.js';
import { phaseHeadline } from '../src/contention/phase.js';
import { parseContention, type BufferManagerKind, type ContentionSpec } from '../src/contention/schema.js';
import { halfDrift, isStationary, nearestRank, simulatePoint } from '../src/contention/sim.js';
import { meanInterval, ratioInterval, t95 } from '../src/contention/stats.js';
import { COLLAPSE_SHARE_OF_BOUND, runReplication, summarisePoint, type Replication } from '../src/contention/task.js';
import { Prng } from '../src/util/prng.js';

const spec = (raw: Record<string, unknown>): ContentionSpec => parseContention({ stationarity: { max_extensions: 0 }, ...raw });
const rep = (s: ContentionSpec, bm: BufferManagerKind, engines: number, users: number, seed = 7): Replication =>
  runReplication({ spec: s, buffer_manager: bm, engines, users, seed });

/** The small xoltp-like model of contention-sim.test.ts: 32 engines, hot pages, 4 spinlocks. */
const small = (latched: Record<string, unknown> = {}, over: Record<string, unknown> = {}) =>
  spec({
    engines: 32,
    users: 1,
    think_time: '2ms',
    transaction: { logical_reads: 40, cpu_per_read: '2us', cpu_per_transaction: '100us' },
    pages: { count: 10000, skew: 0.99 },
    latched: { spinlocks: 4, hold: '300ns', handoff_per_waiter: '100ns', wait: 'spin', lock: 'ttas', ...latched },
    service_times: 'exponential',
    duration: '120ms',
    warmup: '30ms',
    ...over,
  });

describe('lock kinds', () => {
  it('every kind keeps the engine-time split exact and the operational bound', () => {
    for (const lock of ['ttas', 'tas', 'ttas_backoff', 'spin_yield', 'spin_sleep', 'ticket', 'mcs']) {
      const s = small({ lock });
      const r = rep(s, 'latched', 32, 800);
      expect(r.work_pct + r.spin_pct + r.cas_retry_pct + r.restart_pct, lock).toBeCloseTo(r.engine_busy_pct, 1);
      const b = operationalBounds(pointNetwork(buildPointModel(s, 'latched', 32, 800)), 800);
      expect(r.throughput_tps, lock).toBeLessThanOrEqual(b.throughput_tps * 1.02);
    }
  });

  it('a ticket lock has the TTAS hand-off cost (FIFO order): throughput like TTAS, far below MCS', () => {
    const ttas = rep(small({ lock: 'ttas' }), 'latched', 32, 800);
    const ticket = rep(small({ lock: 'ticket' }), 'latched', 32, 800);
    expect(ticket.throughput_tps / ttas.throughput_tps).toBeGreaterThan(0.8);
    expect(ticket.throughput_tps / ttas.throughput_tps).toBeLessThan(1.25);
    const mcs = rep(small({ lock: 'mcs' }), 'latched', 32, 800);
    expect(mcs.throughput_tps).toBeGreaterThan(ticket.throughput_tps * 1.5);
  });

  it('MCS and back-off avoid the TTAS stampede; spin-then-yield gives engines back', () => {
    const ttas = rep(small({ lock: 'ttas' }), 'latched', 32, 800);
    const mcs = rep(small({ lock: 'mcs' }), 'latched', 32, 800);
    const backoff = rep(small({ lock: 'ttas_backoff' }), 'latched', 32, 800);
    const yieldy = rep(small({ lock: 'spin_yield', spin_limit: '2us' }), 'latched', 32, 800);
    expect(mcs.throughput_tps).toBeGreaterThan(ttas.throughput_tps * 1.5);
    expect(backoff.throughput_tps).toBeGreaterThan(ttas.throughput_tps);
    expect(yieldy.yields_per_transaction).toBeGreaterThan(0);
    expect(yieldy.spin_pct).toBeLessThan(ttas.spin_pct);
  });
});

describe('lockless CAS serialised on a line', () => {
  // every look-up CASes one page: the line is a single server of at least `cas` per success
  const hot = (cas: string, transfer: string | number) =>
    spec({
      engines: 16,
      users: 200,
      think_time: '50us',
      transaction: { logical_reads: 4, cpu_per_read: 0, cpu_per_transaction: '2us' },
      pages: { count: 1, skew: 0 },
      buffer_managers: ['lockless'],
      lockless: { cas, line_transfer: transfer, lookup: 0 },
      service_times: 'constant',
      duration: '20ms',
      warmup: '5ms',
    });

  it('successes on one line never exceed 1 / cas (a model with free parallel CASes would)', () => {
    const r = rep(hot('1us', '1us'), 'lockless', 16, 200);
    const casPerSec = r.throughput_tps * 4;
    expect(casPerSec).toBeLessThanOrEqual(1e6 * 1.001);
    // saturated, every success is preceded by a failed attempt (one line transfer) on the held line: 1 / (cas + transfer)
    expect(casPerSec).toBeGreaterThan(0.45e6);
    expect(casPerSec).toBeLessThan(0.55e6);
    expect(r.cas_retries_per_lookup).toBeGreaterThan(0);
    // the check has teeth: with CASes not serialised, 16 engines would reach 16 × the line's rate
    const unserialisedBound = (16 / (2e3 + 4 * 1e3)) * 1e9 * 4;
    expect(unserialisedBound).toBeGreaterThan(1e6 * 1.001);
  });

  it('a failed attempt costs one line transfer: saturated, one success per cas + line_transfer (not one transfer per other writer)', () => {
    const cheap = rep(hot('200ns', 0), 'lockless', 16, 200);
    const dear = rep(hot('200ns', '200ns'), 'lockless', 16, 200);
    expect(cheap.throughput_tps * 4).toBeGreaterThan(0.95 / 200e-9);
    expect(dear.throughput_tps * 4).toBeGreaterThan(0.95 / 400e-9);
    expect(dear.throughput_tps * 4).toBeLessThan(1.001 / 400e-9);
    // a transfer per other writer (15 of them here) would pass one success per 200 + 15 × 200 ns
    expect(dear.throughput_tps * 4).toBeGreaterThan(3 / (200e-9 * 16));
    const b = pointNetwork(buildPointModel(hot('200ns', 0), 'lockless', 16, 200));
    expect(b.lock_demands_ns[0]).toBeCloseTo(4 * 200, 6); // the hottest line's demand is in the bounds
  });
});

describe('optimistic reads', () => {
  const opt = (write_share: number) =>
    spec({
      engines: 16,
      users: 400,
      think_time: '100us',
      transaction: { logical_reads: 10, cpu_per_read: '1us', cpu_per_transaction: '10us' },
      pages: { count: 20, skew: 1.2 },
      buffer_managers: ['lockless'],
      lockless: { read: 'optimistic', write_share, lookup: '300ns', write_hold: '300ns' },
      service_times: 'constant',
      duration: '20ms',
      warmup: '5ms',
    });
  it('read without writing a line: no restarts without writers, restarts when writers change versions', () => {
    const none = rep(opt(0), 'lockless', 16, 400);
    expect(none.optimistic_restarts_per_read).toBe(0);
    expect(none.cas_retry_pct).toBe(0);
    const some = rep(opt(0.2), 'lockless', 16, 400);
    expect(some.optimistic_restarts_per_read).toBeGreaterThan(0);
    expect(some.restart_pct).toBeGreaterThan(0);
    expect(some.work_pct + some.spin_pct + some.cas_retry_pct + some.restart_pct).toBeCloseTo(some.engine_busy_pct, 1);
  });
  it('beats CAS on every read on hot pages', () => {
    const cas = rep(
      spec({
        ...JSON.parse(JSON.stringify({})),
        engines: 16,
        users: 400,
        think_time: '100us',
        transaction: { logical_reads: 10, cpu_per_read: '1us', cpu_per_transaction: '10us' },
        pages: { count: 20, skew: 1.2 },
        buffer_managers: ['lockless'],
        lockless: { read: 'cas', lookup: '300ns', cas: '100ns' },
        service_times: 'constant',
        duration: '20ms',
        warmup: '5ms',
      }),
      'lockless',
      16,
      400,
    );
    const o = rep(opt(0), 'lockless', 16, 400);
    expect(o.throughput_tps).toBeGreaterThan(cas.throughput_tps);
  });
});

describe('stationarity', () => {
  it('the halves-drift test accepts counting noise and flags a trend', () => {
    expect(halfDrift([10000, 10100]).drift_pct).toBeCloseTo(0.995, 2);
    expect(isStationary(0.1, 0.99, halfDrift([10000, 10100]).noise_pct, 1)).toBe(true);
    expect(isStationary(0.1, 5, halfDrift([100000, 105000]).noise_pct, 1)).toBe(false);
    expect(isStationary(3, 0, 0, 1)).toBe(false);
  });
  it('a point that fills up during its window is extended, then flagged; a steady one passes', () => {
    // 1000 users, one engine of 1 ms: a backlog of a second, measured for 60 ms from a cold start
    const cold = spec({
      engines: 1,
      users: 1000,
      think_time: 0,
      transaction: { logical_reads: 0, cpu_per_read: 0, cpu_per_transaction: '1ms' },
      buffer_managers: ['lockless'],
      duration: '60ms',
      warmup: 0,
      stationarity: { max_extensions: 1 },
    });
    const s = simulatePoint(buildPointModel(cold, 'lockless', 1, 1000), 1);
    expect(s.extensions).toBe(1);
    expect(s.stationary).toBe(false);
    expect(Math.abs(s.little_law_error_pct)).toBeGreaterThan(1);
    const steady = simulatePoint(buildPointModel(small(), 'lockless', 32, 200), 1);
    expect(steady.stationary).toBe(true);
    expect(steady.extensions).toBe(0);
  });
});

describe('statistics of replications', () => {
  it('Student t quantiles are the textbook ones', () => {
    expect(t95(1)).toBe(12.706);
    expect(t95(4)).toBe(2.776);
    expect(t95(1000)).toBe(1.96);
  });
  it('the 95% interval of the mean covers the true mean about 95% of the time (normal samples)', () => {
    const r = new Prng(3);
    let covered = 0;
    const trials = 4000;
    for (let i = 0; i < trials; i++) {
      const xs = Array.from({ length: 5 }, () => 10 + 2 * r.normal());
      const { ci95 } = meanInterval(xs);
      if (ci95[0] <= 10 && 10 <= ci95[1]) covered++;
    }
    expect(covered / trials).toBeGreaterThan(0.935);
    expect(covered / trials).toBeLessThan(0.965);
    // teeth: a normal quantile (1.96) with 4 degrees of freedom undercovers
    let under = 0;
    for (let i = 0; i < trials; i++) {
      const xs = Array.from({ length: 5 }, () => 10 + 2 * r.normal());
      const m = meanInterval(xs);
      if (Math.abs(m.mean - 10) <= 1.96 * m.se) under++;
    }
    expect(under / trials).toBeLessThan(0.92);
  });
  it('a ratio of means has an interval that contains it', () => {
    const ri = ratioInterval([10, 11, 9], [2, 2.1, 1.9]);
    expect(ri.ratio).toBeCloseTo(5, 6);
    expect(ri.ci95[0]).toBeLessThan(5);
    expect(ri.ci95[1]).toBeGreaterThan(5);
  });
  it('nearest-rank selection equals sorting', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 400 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (xs, q) => {
          const sorted = [...xs].sort((a, b) => a - b);
          const k = Math.min(xs.length - 1, Math.max(0, Math.ceil(q * xs.length) - 1));
          expect(nearestRank(Float64Array.from(xs), q)).toBe(sorted[k]);
        },
      ),
      { numRuns: 200, seed: 42 },
    );
  });
  it('a point whose replications split is bimodal, with the mean of each mode', () => {
    const s = small();
    const bound = operationalBounds(pointNetwork(buildPointModel(s, 'latched', 32, 800)), 800).throughput_tps;
    const fake = (x: number, seed: number): Replication => ({ ...rep(s, 'latched', 32, 800, 1), seed, throughput_tps: x });
    const p = summarisePoint(s, 'latched', 32, 800, [fake(bound * 0.95, 1), fake(bound * 0.2, 2), fake(bound * 0.96, 3)]);
    expect(COLLAPSE_SHARE_OF_BOUND).toBe(0.5);
    expect(p.collapsed).toBe(1);
    expect(p.bimodal).toBe(true);
    expect(p.modes!.collapsed.throughput_tps).toBeCloseTo(bound * 0.2, -1);
  });
});

describe('the phase headline', () => {
  const axes = [
    { key: 'latched.handoff_per_waiter', values: ['20ns', '40ns', '60ns'] },
    { key: 'pages.skew', values: [0.8, 0.9, 0.99] },
  ];
  const cell = (i: number, j: number, collapsed: boolean) => ({
    index: [i, j],
    ratio: collapsed ? 5 : 1,
    collapsed_share: collapsed ? 1 : 0,
  });
  it('states a monotone collapse region as corners', () => {
    const cells = [];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) cells.push(cell(i, j, i >= 1 && j >= 2));
    const h = phaseHeadline(axes, cells, '80 engines');
    expect(h.monotone).toBe(true);
    expect(h.text).toContain('latched.handoff_per_waiter ≥ 40ns and pages.skew ≥ 0.99');
    expect(h.text).toContain('5.0×');
  });
  it('orients an axis where more of it removes the collapse', () => {
    const cells = [];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) cells.push(cell(i, j, i === 0));
    const h = phaseHeadline([{ key: 'latched.spinlocks', values: [4, 16, 64] }, axes[1]!], cells, 'x');
    expect(h.text).toContain('latched.spinlocks ≤ 4');
  });
  it('says when the region is not monotone, and when nothing collapses', () => {
    const cells = [];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) cells.push(cell(i, j, (i + j) % 2 === 1));
    expect(phaseHeadline(axes, cells, 'x').monotone).toBe(false);
    const none = [];
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) none.push(cell(i, j, false));
    expect(phaseHeadline(axes, none, 'x').text).toMatch(/collapses nowhere/);
  });
});
