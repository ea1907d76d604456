/**
 * The literature's shapes of spinlock behaviour under load, as tests of the lock kinds: plain
 * test-and-set collapses sooner and deeper than test-and-test-and-set [ANDERSON]; an MCS queue lock
 * stays flat past saturation [MCS], [LOCKS]; exponential back-off holds its throughput [ANDERSON];
 * PostgreSQL's s_lock sleeps (1 ms and more, REL_15 s_lock.c) instead of burning engines; a pin by
 * fetch-and-add never fails, so its line passes one pin per `cas`. Small windows: the CPU stays modest.
 */
import { describe, expect, it } from 'vitest';
import { buildPointModel, pointNetwork } from '../src/contention/model.js';
import { drainCriterion } from '../src/contention/drain.js';
import { operationalBounds } from '../src/contention/mva.js';
import { parseContention, type ContentionSpec } from '../src/contention/schema.js';
import { runReplication, type Replication } from '../src/contention/task.js';

/** 32 engines, 4 spinlocks over Zipf 0.99 pages, 100 ns hand-off (the small model of contention-sim.test.ts). */
const small = (latched: Record<string, unknown>): ContentionSpec =>
  parseContention({
    engines: 32,
    users: 1,
    think_time: '2ms',
    transaction: { logical_reads: 40, cpu_per_read: '2us', cpu_per_transaction: '100us' },
    pages: { count: 10000, skew: 0.99 },
    buffer_managers: ['latched'],
    latched: { spinlocks: 4, hold: '300ns', handoff_per_waiter: '100ns', wait: 'spin', ...latched },
    service_times: 'exponential',
    duration: '60ms',
    warmup: '20ms',
    stationarity: { max_extensions: 0 },
  });
const at = (lock: string, users: number, extra: Record<string, unknown> = {}): Replication =>
  runReplication({ spec: small({ lock, ...extra }), buffer_manager: 'latched', engines: 32, users, seed: 3 });
const bound = (lock: string, users: number): number =>
  operationalBounds(pointNetwork(buildPointModel(small({ lock }), 'latched', 32, users)), users).throughput_tps;
const collapsed = (r: Replication, lock: string, users: number): boolean => r.throughput_tps < 0.5 * bound(lock, users);

describe('spinlock shapes from the literature', () => {
  it('plain TAS collapses at a lower load than TTAS, and deeper', () => {
    const grid = [100, 120, 140, 160];
    const first = (lock: string): number => grid.find((u) => collapsed(at(lock, u), lock, u)) ?? Infinity;
    const tas = first('tas');
    const ttas = first('ttas');
    expect(tas).toBeLessThan(ttas);
    expect(at('tas', 400).throughput_tps).toBeLessThan(0.7 * at('ttas', 400).throughput_tps);
  });

  it('an MCS lock stays flat past saturation (no collapse at 4× the users)', () => {
    const xs = [400, 800, 1600].map((u) => at('mcs', u));
    for (const r of xs) expect(r.throughput_tps).toBeGreaterThan(0.85 * bound('mcs', 1600));
    const tps = xs.map((r) => r.throughput_tps);
    expect(Math.max(...tps) / Math.min(...tps)).toBeLessThan(1.03);
  });

  it('exponential back-off holds its throughput where TTAS collapses', () => {
    const xs = [400, 1600].map((u) => at('ttas_backoff', u));
    expect(xs[1]!.throughput_tps / xs[0]!.throughput_tps).toBeGreaterThan(0.95);
    expect(xs[1]!.throughput_tps).toBeGreaterThan(2 * at('ttas', 1600).throughput_tps);
  });

  it("PostgreSQL's s_lock sleeps: each give-up costs at least 1 ms off the engine, and engines stop burning", () => {
    const sleep = at('spin_sleep', 800, { spin_limit: '10us' });
    const ttas = at('ttas', 800);
    expect(sleep.yields_per_transaction).toBeGreaterThan(0.5);
    // every sleep is ≥ 1 ms (MIN_DELAY_USEC): the response time holds them all
    expect(sleep.response_time_ms).toBeGreaterThan(1 * sleep.yields_per_transaction);
    expect(sleep.spin_pct).toBeLessThan(ttas.spin_pct / 2);
    // spin_yield (sched_yield) gives the engine up without sleeping: far more give-ups, no ms of sleep each
    const yieldy = at('spin_yield', 800, { spin_limit: '10us' });
    expect(yieldy.response_time_ms).toBeLessThan(1 * yieldy.yields_per_transaction);
  });
});

describe('a pin by fetch-and-add', () => {
  const hot = (read: string) =>
    parseContention({
      engines: 16,
      users: 200,
      think_time: '50us',
      transaction: { logical_reads: 4, cpu_per_read: 0, cpu_per_transaction: '2us' },
      pages: { count: 1, skew: 0 },
      buffer_managers: ['lockless'],
      lockless: { read, cas: '200ns', line_transfer: '200ns', lookup: 0 },
      service_times: 'constant',
      duration: '20ms',
      warmup: '5ms',
      stationarity: { max_extensions: 0 },
    });
  it('never fails: the saturated line passes one pin per cas, twice the CAS loop (cas + one failed transfer)', () => {
    const faa = runReplication({ spec: hot('faa'), buffer_manager: 'lockless', engines: 16, users: 200, seed: 1 });
    const cas = runReplication({ spec: hot('cas'), buffer_manager: 'lockless', engines: 16, users: 200, seed: 1 });
    expect(faa.cas_retries_per_lookup).toBe(0);
    expect(cas.cas_retries_per_lookup).toBeGreaterThan(0.5);
    expect(faa.throughput_tps * 4).toBeGreaterThan(0.95 / 200e-9);
    expect(faa.throughput_tps * 4).toBeLessThan(1.001 / 200e-9);
    expect(faa.throughput_tps / cas.throughput_tps).toBeGreaterThan(1.8);
  });
});

describe('the drain criterion: the collapse boundary in closed form', () => {
  const crit = (lock: string, users: number, handoff: string) => {
    const m = buildPointModel(small({ lock, handoff_per_waiter: handoff }), 'latched', 32, users);
    const n = pointNetwork(m);
    return { m, n, d: drainCriterion(m, n.engine_demand_ns, n.total_demand_ns) };
  };
  it('is the closed form f(w) = (N − w) r (hold + c(w) h): a parabola for TTAS, its peak where it should be', () => {
    const { d } = crit('ttas', 800, '100ns');
    const r = d.r_per_engine_s / 1e9;
    const f = (w: number): number => (32 - w) * r * (300 + Math.max(1, w) * 100);
    expect(d.f0).toBeCloseTo(f(0), 3);
    // continuous peak at w = (N − hold/h)/2 = 14.5: the integer peak is 14 or 15
    expect([14, 15]).toContain(d.w_peak);
    expect(d.max_f).toBeCloseTo(f(d.w_peak), 3);
    expect(f(d.w_star!)).toBeGreaterThan(1);
    expect(f(d.w_star! - 1)).toBeLessThanOrEqual(1);
    // a queue lock's hand-off does not grow: f falls with w, max f = f(0) < 1, every burst drains
    expect(crit('mcs', 800, '100ns').d).toMatchObject({ verdict: 'drains', w_star: null, handoff_growth: '1' });
    expect(crit('tas', 800, '100ns').d.max_f).toBeGreaterThan(d.max_f);
  });
  it('agrees with the simulation on both sides of the boundary', () => {
    for (const [lock, users, handoff] of [
      ['ttas', 800, '20ns'],
      ['ttas', 800, '100ns'],
      ['mcs', 800, '100ns'],
      ['tas', 800, '40ns'],
      ['ttas', 100, '100ns'],
    ] as const) {
      const { d } = crit(lock, users, handoff);
      const r = at(lock, users, { handoff_per_waiter: handoff });
      const b = operationalBounds(pointNetwork(buildPointModel(small({ lock, handoff_per_waiter: handoff }), 'latched', 32, users)), users);
      expect(r.throughput_tps < 0.5 * b.throughput_tps, `${lock} ${users} users ${handoff}: predicted ${d.collapse_predicted}`).toBe(
        d.collapse_predicted,
      );
    }
  });
});
