/**
 * One contention point as a pool task: `runTask(payload)` builds the point model, runs the
 * simulation, and adds the analytic checks (bounds always, exact MVA when the network is
 * product-form). Payload and result are plain, structured-cloneable data.
 */
import { buildPointModel, pointNetwork } from './model.js';
import { exactMva, operationalBounds, type Bounds } from './mva.js';
import type { BufferManagerKind, ContentionSpec } from './schema.js';
import { simulatePoint } from './sim.js';

export interface ContentionTaskPayload {
  spec: ContentionSpec;
  buffer_manager: BufferManagerKind;
  engines: number;
  users: number;
  /** The point's own seed, derived from (run seed, buffer manager, engines, users). */
  seed: number;
}

export interface MvaCheck {
  throughput_tps: number;
  response_time_ms: number;
  /** (simulated − MVA) / MVA, percent. */
  throughput_error_pct: number;
  response_time_error_pct: number;
}

export interface ContentionPoint {
  users: number;
  throughput_tps: number;
  response_time_ms: number;
  response_time_ms_p95: number;
  response_time_ms_p99: number;
  /** Engine time (N × window): busy = work + spin + CAS retries; idle the rest. */
  engine_busy_pct: number;
  work_pct: number;
  spin_pct: number;
  cas_retry_pct: number;
  idle_pct: number;
  /** Share of response time spent waiting for a spinlock or latch (spinning or blocked). */
  spinlock_wait_pct: number;
  /** Share of response time spent in the run queue, waiting for an engine. */
  run_queue_pct: number;
  cas_retries_per_lookup: number;
  lookups_per_transaction: number;
  /** Busy share of the busiest spinlock or latch (hand-off included). */
  hottest_lock_busy_pct: number;
  /** users = throughput × (response + think): (right − left) / left, percent. */
  little_law_error_pct: number;
  transactions: number;
  events: number;
  seed: number;
  bounds: PointBounds;
  mva?: MvaCheck;
}

function isPayload(p: unknown): p is ContentionTaskPayload {
  if (typeof p !== 'object' || p === null) return false;
  const o = p as Record<string, unknown>;
  return (
    typeof o.spec === 'object' &&
    (o.buffer_manager === 'latched' || o.buffer_manager === 'lockless') &&
    Number.isInteger(o.engines) &&
    Number.isInteger(o.users) &&
    Number.isInteger(o.seed)
  );
}

const round = (x: number, digits = 4): number => (Number.isFinite(x) ? Number(x.toPrecision(digits + 2)) : x);

export function runPoint(payload: ContentionTaskPayload): ContentionPoint {
  const model = buildPointModel(payload.spec, payload.buffer_manager, payload.engines, payload.users);
  const net = pointNetwork(model);
  const s = simulatePoint(model, payload.seed);
  const windowNs = s.window_ns;
  const x = s.transactions / windowNs; // per ns
  const r = s.transactions > 0 ? s.response_sum_ns / s.transactions : 0;
  const z = s.thinks > 0 ? s.think_sum_ns / s.thinks : model.think_ns;
  const pct = (q: number): number => {
    const a = s.response_ns_sorted;
    if (a.length === 0) return 0;
    return a[Math.min(a.length - 1, Math.max(0, Math.ceil(q * a.length) - 1))]!;
  };
  const engineNs = model.engines * windowNs;
  const point: ContentionPoint = {
    users: payload.users,
    throughput_tps: round(x * 1e9),
    response_time_ms: round(r / 1e6),
    response_time_ms_p95: round(pct(0.95) / 1e6),
    response_time_ms_p99: round(pct(0.99) / 1e6),
    engine_busy_pct: round((100 * s.engine_busy_ns) / engineNs),
    work_pct: round((100 * s.engine_work_ns) / engineNs),
    spin_pct: round((100 * s.engine_spin_ns) / engineNs),
    cas_retry_pct: round((100 * s.engine_cas_retry_ns) / engineNs),
    idle_pct: round(Math.max(0, 100 - (100 * s.engine_busy_ns) / engineNs)),
    spinlock_wait_pct: s.in_transaction_ns > 0 ? round((100 * s.lock_wait_ns) / s.in_transaction_ns) : 0,
    run_queue_pct: s.in_transaction_ns > 0 ? round((100 * s.run_queue_ns) / s.in_transaction_ns) : 0,
    cas_retries_per_lookup: s.lookups > 0 ? round(s.cas_retries / s.lookups) : 0,
    lookups_per_transaction: model.lookups,
    hottest_lock_busy_pct: round((100 * s.hottest_lock_busy_ns) / windowNs),
    little_law_error_pct: round((100 * (x * (r + z) - payload.users)) / payload.users),
    transactions: s.transactions,
    events: s.events,
    seed: payload.seed,
    bounds: roundBounds(operationalBounds(net, payload.users)),
  };
  if (net.product_form) {
    const sol = exactMva(net, payload.users);
    const mx = sol.throughput_per_ns[payload.users]! * 1e9;
    const mr = sol.response_ns[payload.users]! / 1e6;
    point.mva = {
      throughput_tps: round(mx),
      response_time_ms: round(mr),
      throughput_error_pct: round((100 * (x * 1e9 - mx)) / mx),
      response_time_error_pct: mr > 0 ? round((100 * (r / 1e6 - mr)) / mr) : 0,
    };
  }
  return point;
}

/** Operational bounds in tps; null where a resource has no demand (no bound). */
export interface PointBounds {
  throughput_tps: number;
  engines_tps: number | null;
  lock_tps: number | null;
  users_tps: number;
  binding: Bounds['binding'];
}

function roundBounds(b: Bounds): PointBounds {
  const fin = (x: number): number | null => (Number.isFinite(x) ? round(x) : null);
  return { binding: b.binding, throughput_tps: round(b.throughput_tps), engines_tps: fin(b.engines_tps), lock_tps: fin(b.lock_tps), users_tps: round(b.users_tps) };
}

/** Pool entry (src/pool/worker.ts, kind 'contention'). */
export function runTask(payload: unknown): unknown {
  if (!isPayload(payload)) throw new TypeError('contention task: payload must be { spec, buffer_manager, engines, users, seed }');
  return runPoint(payload);
}
