import { describe, expect, it } from 'vitest';
import { parseContention, type ContentionSpec } from '../src/contention/schema.js';
import { runReplication, summarisePoint, type ContentionPoint } from '../src/contention/task.js';
import { buildPointModel, pointNetwork } from '../src/contention/model.js';
import { exactMva, machineRepairman } from '../src/contention/mva.js';
import type { BufferManagerKind } from '../src/contention/schema.js';
import * as record from '../src/contention/sim-state.js';

const spec = (raw: Record<string, unknown>): ContentionSpec => parseContention({ stationarity: { max_extensions: 0 }, ...raw });
/** One replication of a point, summarised (bounds and, product-form, MVA). */
const point = (s: ContentionSpec, bm: BufferManagerKind, engines: number, users: number, seed = 7): ContentionPoint =>
  summarisePoint(s, bm, engines, users, [runReplication({ spec: s, buffer_manager: bm, engines, users, seed })]);
const relErr = (a: number, b: number): number => Math.abs(a - b) / b;

/** A small product-form network: 4 engines, 2 spinlocks (one hot), a FCFS lock station per spinlock. */
const productForm = (latched: Record<string, unknown>, duration = '12s') =>
  spec({
    engines: 4,
    users: 1,
    think_time: '2ms',
    transaction: { logical_reads: 4, cpu_per_read: '50us', cpu_per_transaction: '200us' },
    pages: { count: 100, skew: 1 },
    buffer_managers: ['latched'],
    latched: { spinlocks: 2, wait: 'block', lock: 'queue', ...latched },
    service_times: 'exponential',
    duration,
    warmup: '200ms',
  });

describe('product-form networks agree with exact MVA within 3%', () => {
  // lock-bound: the hot spinlock saturates (D_lock ≈ 150 µs > D_cpu / N = 100 µs)
  // engine-bound: short holds, the four engines saturate
  const cases = [
    { name: 'lock-bound', latched: { hold: '50us', handoff_per_waiter: 0 }, users: [1, 4, 32, 64] },
    { name: 'engine-bound, queue lock with hand-off', latched: { hold: '5us', handoff_per_waiter: '1us' }, users: [2, 8, 32, 64] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const s = productForm(c.latched);
      const net = pointNetwork(buildPointModel(s, 'latched', 4, 1));
      expect(net.product_form).toBe(true);
      const maxU = Math.max(...c.users);
      const mva = exactMva(net, maxU);
      // a deliberately wrong network: 10% more engine and lock demand
      const wrong = exactMva(
        { ...net, engine_demand_ns: net.engine_demand_ns * 1.1, lock_demands_ns: net.lock_demands_ns.map((d) => d * 1.1) },
        maxU,
      );
      let saturatedChecked = 0;
      for (const u of c.users) {
        const p = point(s, 'latched', 4, u);
        const x = mva.throughput_per_ns[u]! * 1e9;
        const r = mva.response_ns[u]! / 1e6;
        expect(p.mva).toBeDefined();
        expect(relErr(p.throughput_tps, x)).toBeLessThan(0.03);
        expect(relErr(p.response_time_ms, r)).toBeLessThan(0.03);
        expect(Math.abs(p.mva!.throughput_error_pct)).toBeLessThan(3);
        const xw = wrong.throughput_per_ns[u]! * 1e9;
        const rw = wrong.response_ns[u]! / 1e6;
        // the check has teeth: the wrong MVA is off by more than 3% in throughput or response time
        expect(relErr(p.throughput_tps, xw) > 0.03 || relErr(p.response_time_ms, rw) > 0.03).toBe(true);
        if (p.engine_busy_pct > 97 || p.hottest_lock_busy_pct > 97) saturatedChecked++;
      }
      expect(saturatedChecked).toBeGreaterThan(0);
    });
  }

  it('is not product-form with constant service, spinning, or a ttas hand-off', () => {
    const base = { hold: '5us', handoff_per_waiter: '1us' };
    expect(pointNetwork(buildPointModel(productForm(base), 'latched', 4, 1)).product_form).toBe(true);
    expect(pointNetwork(buildPointModel(productForm({ ...base, wait: 'spin' }), 'latched', 4, 1)).product_form).toBe(false);
    expect(pointNetwork(buildPointModel(productForm({ ...base, lock: 'ttas' }), 'latched', 4, 1)).product_form).toBe(false);
    const constant = spec({ ...productFormRaw(), service_times: 'constant' });
    expect(pointNetwork(buildPointModel(constant, 'latched', 4, 1)).product_form).toBe(false);
  });
});

function productFormRaw(): Record<string, unknown> {
  return { engines: 4, users: 1, latched: { wait: 'block', lock: 'queue' }, service_times: 'exponential' };
}

describe('with no lock contention the model is the machine-repairman network M/M/N//U', () => {
  const raw = {
    engines: 4,
    users: 1,
    think_time: '2ms',
    transaction: { logical_reads: 8, cpu_per_read: '25us', cpu_per_transaction: '200us' },
    pages: { count: 1000, skew: 0.99 },
    latched: { spinlocks: 1024, hold: 0, handoff_per_waiter: 0, wait: 'spin', lock: 'ttas' },
    lockless: { cas: 0, lookup: 0 },
    service_times: 'exponential',
    duration: '8s',
    warmup: '200ms',
  };
  for (const bm of ['latched', 'lockless'] as const) {
    it(`${bm}: throughput and response time within 3% of M/M/4//U`, () => {
      const s = spec(raw);
      for (const u of [4, 12, 40]) {
        const p = point(s, bm, 4, u, 11);
        const mr = machineRepairman(u, 4, 400e3, 2e6);
        expect(relErr(p.throughput_tps, mr.throughput_per_ns * 1e9)).toBeLessThan(0.03);
        expect(relErr(p.response_time_ms, mr.response_ns / 1e6)).toBeLessThan(0.03);
        expect(p.spin_pct).toBe(0);
      }
    });
  }
});

/** The xoltp-like model at a small scale: 32 engines, hot pages, 4 ttas spinlocks. */
const small = (over: Record<string, unknown> = {}) =>
  spec({
    engines: 32,
    users: 1,
    think_time: '2ms',
    transaction: { logical_reads: 40, cpu_per_read: '2us', cpu_per_transaction: '100us' },
    pages: { count: 10000, skew: 0.99 },
    latched: { spinlocks: 4, hold: '300ns', handoff_per_waiter: '100ns', wait: 'spin', lock: 'ttas' },
    lockless: { cas: '40ns' },
    service_times: 'exponential',
    duration: '150ms',
    warmup: '30ms',
    ...over,
  });

describe('observable behaviour of the simulation', () => {
  it('holds the operational bounds, splits engine time exactly, and satisfies Little’s law', () => {
    const s = small();
    for (const bm of ['latched', 'lockless'] as const) {
      for (const u of [20, 200, 800]) {
        const p = point(s, bm, 32, u);
        expect(p.throughput_tps).toBeLessThanOrEqual(p.bounds.throughput_tps * 1.02);
        expect(p.work_pct + p.spin_pct + p.cas_retry_pct).toBeCloseTo(p.engine_busy_pct, 2);
        expect(p.engine_busy_pct + p.idle_pct).toBeCloseTo(100, 2);
        expect(Math.abs(p.little_law_error_pct)).toBeLessThan(3);
        expect(p.response_time_ms_p95).toBeLessThanOrEqual(p.response_time_ms_p99);
        if (bm === 'lockless') expect(p.spin_pct).toBe(0);
      }
    }
  });

  it('is deterministic from the seed', () => {
    const s = small();
    expect(point(s, 'latched', 32, 300, 5)).toEqual(point(s, 'latched', 32, 300, 5));
    expect(point(s, 'latched', 32, 300, 5).throughput_tps).not.toEqual(point(s, 'latched', 32, 300, 6).throughput_tps);
  });

  it('collapses the latched manager under load while the lockless one saturates its engines', () => {
    const s = small();
    const lat = point(s, 'latched', 32, 800);
    const ll = point(s, 'lockless', 32, 800);
    expect(lat.spin_pct).toBeGreaterThan(50);
    expect(ll.engine_busy_pct).toBeGreaterThan(95);
    expect(ll.throughput_tps / lat.throughput_tps).toBeGreaterThan(2);
    expect(lat.response_time_ms / ll.response_time_ms).toBeGreaterThan(5);
  });

  it('a queue (MCS) lock keeps hand-off constant and does better than ttas under contention', () => {
    const ttas = point(small(), 'latched', 32, 800);
    const queue = point(
      small({ latched: { spinlocks: 4, hold: '300ns', handoff_per_waiter: '100ns', lock: 'queue' } }),
      'latched',
      32,
      800,
    );
    expect(queue.throughput_tps).toBeGreaterThan(ttas.throughput_tps * 1.5);
    expect(queue.spin_pct).toBeLessThan(ttas.spin_pct);
  });

  it('with wait: block no engine time is spent spinning', () => {
    const p = point(small({ latched: { spinlocks: 4, wait: 'block' } }), 'latched', 32, 400);
    expect(p.spin_pct).toBe(0);
    expect(p.spinlock_wait_pct).toBeGreaterThan(0);
  });

  it('lockless CAS conflicts happen on hot pages and the engine-local cache removes them', () => {
    const hot = small({ pages: { count: 10, skew: 2 }, lockless: { cas: '200ns' } });
    const p = point(hot, 'lockless', 32, 800);
    expect(p.cas_retries_per_lookup).toBeGreaterThan(0);
    expect(p.cas_retry_pct).toBeGreaterThan(0);
    const cached = point(small({ pages: { count: 10, skew: 2 }, lockless: { cas: '200ns', local_cache_pages: 10 } }), 'lockless', 32, 800);
    expect(cached.cas_retries_per_lookup).toBe(0);
    expect(cached.throughput_tps).toBeGreaterThanOrEqual(p.throughput_tps);
  });

  it('XOLTP knobs: SNAP lowers CPU per transaction, a latch-free B-tree removes index-latch waits', () => {
    const idx = { traversals: 2, levels: 3, fanout: 50, latch_hold: '200ns' };
    const base = small({ users: 1, xoltp: { index: idx } });
    const snap = small({ xoltp: { index: idx, snap_cpu_factor: 0.5 } });
    const lf = small({ xoltp: { index: idx, latch_free_btree: true } });
    expect(pointNetwork(buildPointModel(snap, 'lockless', 32, 1)).engine_demand_ns).toBeLessThan(
      pointNetwork(buildPointModel(base, 'lockless', 32, 1)).engine_demand_ns,
    );
    const withLatch = point(base, 'lockless', 32, 800);
    const latchFree = point(lf, 'lockless', 32, 800);
    expect(withLatch.lookups_per_transaction).toBe(46);
    expect(withLatch.spinlock_wait_pct).toBeGreaterThan(0);
    expect(latchFree.spinlock_wait_pct).toBe(0);
    expect(latchFree.throughput_tps).toBeGreaterThan(withLatch.throughput_tps);
    // applies_to limits the features to the listed managers
    const onlyLockless = small({ xoltp: { index: idx, latch_free_btree: true, applies_to: ['lockless'] } });
    expect(buildPointModel(onlyLockless, 'latched', 32, 1).index_latches).toBe(true);
    expect(buildPointModel(onlyLockless, 'lockless', 32, 1).index_latches).toBe(false);
  });
});

describe("a task's record (sim-state.ts)", () => {
  it('has its float64, int32 and byte slots in disjoint bytes of one 64-byte line', () => {
    const widths: [string, number][] = [
      ['T_SEG_NS', 8],
      ['T_OP_BEGIN', 8],
      ['T_CAS_WASTE_END', 8],
      ['T_SINCE', 8],
      ['T_ENGINE_SINCE', 8],
      ['T_BACKOFF_NS', 8],
      ['T_STEP', 4],
      ['T_PAGE', 4],
      ['T_LOCK_OF', 4],
      ['T_STATE', 1],
      ['T_PART', 1],
      ['T_ON_ENGINE', 1],
      ['T_IS_WRITE', 1],
    ];
    const owner = new Array<string>(record.TASK_BYTES).fill('');
    for (const [name, width] of widths) {
      const slot = (record as unknown as Record<string, number>)[name]!;
      for (let b = slot * width; b < (slot + 1) * width; b++) {
        expect(b < record.TASK_BYTES && owner[b] === '', `${name}: byte ${b}`).toBe(true);
        owner[b] = name;
      }
    }
    expect(record.TASK_BYTES).toBe(64);
  });
});
