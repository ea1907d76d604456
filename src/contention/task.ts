/**
 * One replication of one contention point as a pool task: `runTask(payload)` builds the point model
 * and runs the simulation. `summarisePoint` merges a point's replications: means, 95% intervals, the
 * share that collapsed, stationarity, the operational bounds and (product-form networks) exact MVA.
 * Payload and result are plain, structured-cloneable data.
 */
import { buildPointModel, pointNetwork, type PointModel } from './model.js';
import { exactMva, operationalBounds, type Bounds } from './mva.js';
import type { BufferManagerKind, ContentionBase } from './spec.js';
import { simulatePoint, type StartState } from './sim.js';
import { batchMeansInterval, meanInterval, type Interval, type IntervalMethod } from './stats.js';
import { historyOf, type History } from './history.js';
import { operationalBounds as boundsOf } from './mva.js';
import { drainCriterion, type DrainCriterion } from './drain.js';

export interface ContentionTaskPayload {
  spec: ContentionBase;
  buffer_manager: BufferManagerKind;
  engines: number;
  users: number;
  /** The replication's own seed, derived from (run seed, buffer manager, engines, users, replication). */
  seed: number;
  /** A start-state probe of a bimodal point (metastability.ts): the same seed from `start`, over a window `duration_factor` times as long, no extensions. */
  probe?: { start: StartState; duration_factor: number };
}

/**
 * A replication collapsed when its throughput is below this share of the point's operational bound
 * (a definition, assumed: the latched collapse delivers ~20% of the bound, a running point ~100%).
 */
export const COLLAPSE_SHARE_OF_BOUND = 0.5;

/** Throughput and response times: of one seed, or their means over a point's replications. */
interface ResponseFigures {
  throughput_tps: number;
  response_time_ms: number;
  response_time_ms_p95: number;
  response_time_ms_p99: number;
}

/** Where the engines' time went, and how often look-ups retried, restarted or yielded (one seed, or the means). */
interface EngineTimeFigures {
  engine_busy_pct: number;
  work_pct: number;
  spin_pct: number;
  cas_retry_pct: number;
  restart_pct: number;
  idle_pct: number;
  spinlock_wait_pct: number;
  run_queue_pct: number;
  cas_retries_per_lookup: number;
  optimistic_restarts_per_read: number;
  yields_per_transaction: number;
  hottest_lock_busy_pct: number;
}

/** One simulation: the figures of one seed. */
export interface Replication extends ResponseFigures, EngineTimeFigures {
  seed: number;
  little_law_error_pct: number;
  drift_pct: number;
  drift_noise_pct: number;
  stationary: boolean;
  extensions: number;
  budget_stopped: boolean;
  warmup_ms: number;
  window_ms: number;
  transactions: number;
  events: number;
  /** The window's throughput in equal batches (batch means). */
  batch_tps: number[];
  /** When it collapsed and how long each state held (history.ts). */
  history: History;
}

interface MvaCheck {
  throughput_tps: number;
  response_time_ms: number;
  /** (simulated mean − MVA) / MVA, percent. */
  throughput_error_pct: number;
  response_time_error_pct: number;
}

/** Operational bounds in tps; null where a resource has no demand (no bound). */
interface PointBounds {
  throughput_tps: number;
  engines_tps: number | null;
  lock_tps: number | null;
  users_tps: number;
  binding: Bounds['binding'];
}

/** What one start state did over the probes' longer window. */
export interface StartOutcome {
  start: StartState;
  /** Simulated time of each probe (warm-up + the longer window), ms. */
  run_ms: number;
  replications: number;
  /** Replications that collapsed (a collapse that held, history.ts). */
  collapsed: number;
  /** Collapsed replications that changed state again (recovered, or flickered). */
  switched: number;
  /** From the start to the first collapse, over the collapsed replications, ms; null when none collapsed. */
  time_to_collapse_ms: { median: number; min: number; max: number } | null;
  /** The shortest a collapsed replication stayed collapsed to the end, and a running one ran, ms; null when there is none. */
  collapsed_held_ms: number | null;
  running_held_ms: number | null;
}

/** A bimodal point's start-state test. */
export interface Metastability {
  /** The collapse sustains itself: from either start no collapsed replication recovered over the longer window (metastability.ts). */
  metastable: boolean;
  /** From the idle start over the longer window: `holds` when no more replications tipped than in the run's window, `decays` when more did. */
  running_state: 'holds' | 'decays';
  /** The backlog start collapses a different number of replications than the idle start. */
  depends_on_start: boolean;
  /** The point's modes (its own replications' means), tps. */
  modes_tps: { collapsed: number; running: number };
  idle: StartOutcome;
  backlog: StartOutcome;
}

/** A point: its replications merged. Scalar figures are means over the replications. */
export interface ContentionPoint extends ResponseFigures, EngineTimeFigures {
  users: number;
  replications: number;
  /** 95% intervals of the mean: throughput by batch means when the batch size passes its test (`interval`), else, and for response times, Student t over the replications. */
  ci95: { throughput_tps: Interval; response_time_ms: Interval; response_time_ms_p99: Interval };
  /** How the throughput interval was made. */
  interval: IntervalMethod;
  /** Bimodal points: whether the split is decided by the start (the same seeds over a longer window, from two start states; metastability.ts). */
  metastability?: Metastability;
  /** Replications whose throughput fell below COLLAPSE_SHARE_OF_BOUND of the bound. */
  collapsed: number;
  collapsed_share: number;
  /** Some replications collapsed and some did not: the mean describes neither. */
  bimodal: boolean;
  /** Bimodal points: the mean of each group. */
  modes?: {
    collapsed: { throughput_tps: number; response_time_ms: number };
    running: { throughput_tps: number; response_time_ms: number };
  };
  lookups_per_transaction: number;
  /** Every replication passed the stationarity checks (after any extensions). */
  stationary: boolean;
  not_stationary: number;
  /** The largest (by magnitude) over the replications. */
  little_law_error_pct: number;
  drift_pct: number;
  extensions: number;
  transactions: number;
  events: number;
  bounds: PointBounds;
  /** The closed-form collapse criterion of the hottest lock or CAS line (drain.ts). */
  drain: DrainCriterion;
  mva?: MvaCheck;
  runs: Array<
    Pick<Replication, 'seed' | 'throughput_tps' | 'response_time_ms' | 'stationary' | 'extensions' | 'window_ms'> & { collapsed: boolean }
  >;
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

export const round = (x: number, digits = 4): number => (Number.isFinite(x) ? Number(x.toPrecision(digits + 2)) : x);

export function runReplication(payload: ContentionTaskPayload): Replication {
  const probe = payload.probe;
  const spec: ContentionBase = probe
    ? {
        ...payload.spec,
        duration_ns: payload.spec.duration_ns * probe.duration_factor,
        stationarity: { ...payload.spec.stationarity, max_extensions: 0 },
      }
    : payload.spec;
  const model = buildPointModel(spec, payload.buffer_manager, payload.engines, payload.users);
  return replicationFrom(model, payload.seed, probe?.start ?? 'idle');
}

function replicationFrom(model: PointModel, seed: number, start: StartState): Replication {
  const s = simulatePoint(model, seed, start);
  const windowNs = s.window_ns;
  const bound = boundsOf(pointNetwork(model), model.users).throughput_tps;
  const batchNs = windowNs / s.batch_transactions.length;
  const x = s.transactions / windowNs; // per ns
  const r = s.transactions > 0 ? s.response_sum_ns / s.transactions : 0;
  const engineNs = model.engines * windowNs;
  return {
    seed,
    throughput_tps: round(x * 1e9),
    response_time_ms: round(r / 1e6),
    response_time_ms_p95: round(s.response_ns_p95 / 1e6),
    response_time_ms_p99: round(s.response_ns_p99 / 1e6),
    engine_busy_pct: round((100 * s.engine_busy_ns) / engineNs),
    work_pct: round((100 * s.engine_work_ns) / engineNs),
    spin_pct: round((100 * s.engine_spin_ns) / engineNs),
    cas_retry_pct: round((100 * s.engine_cas_retry_ns) / engineNs),
    restart_pct: round((100 * s.engine_restart_ns) / engineNs),
    idle_pct: round(Math.max(0, 100 - (100 * s.engine_busy_ns) / engineNs)),
    spinlock_wait_pct: s.in_transaction_ns > 0 ? round((100 * s.lock_wait_ns) / s.in_transaction_ns) : 0,
    run_queue_pct: s.in_transaction_ns > 0 ? round((100 * s.run_queue_ns) / s.in_transaction_ns) : 0,
    cas_retries_per_lookup: s.lookups > 0 ? round(s.cas_retries / s.lookups) : 0,
    optimistic_restarts_per_read: s.optimistic_reads > 0 ? round(s.optimistic_restarts / s.optimistic_reads) : 0,
    yields_per_transaction: s.transactions > 0 ? round(s.yields / s.transactions) : 0,
    hottest_lock_busy_pct: round((100 * s.hottest_lock_busy_ns) / windowNs),
    little_law_error_pct: round(s.little_law_error_pct),
    drift_pct: round(s.drift_pct),
    drift_noise_pct: round(s.drift_noise_pct),
    stationary: s.stationary,
    extensions: s.extensions,
    budget_stopped: s.budget_stopped,
    warmup_ms: round(s.warmup_ns / 1e6),
    window_ms: round(windowNs / 1e6),
    transactions: s.transactions,
    events: s.events,
    batch_tps: s.batch_transactions.map((n) => round((n / batchNs) * 1e9)),
    history: historyOf(s.trace, s.trace_bucket_ns, COLLAPSE_SHARE_OF_BOUND * bound),
  };
}

function roundBounds(b: Bounds): PointBounds {
  const fin = (x: number): number | null => (Number.isFinite(x) ? round(x) : null);
  return {
    binding: b.binding,
    throughput_tps: round(b.throughput_tps),
    engines_tps: fin(b.engines_tps),
    lock_tps: fin(b.lock_tps),
    users_tps: round(b.users_tps),
  };
}

type Figure = (r: Replication) => number;

const meanOf = (reps: readonly Replication[], f: Figure): number => round(reps.reduce((a, r) => a + f(r), 0) / reps.length);

/** The largest figure by magnitude over the replications. */
const worstOf = (reps: readonly Replication[], f: Figure): number => reps.map(f).reduce((a, b) => (Math.abs(b) > Math.abs(a) ? b : a), 0);

/** A 95% interval of the mean of a figure that cannot be negative: an interval reaching below zero (a bimodal point) is cut at zero. */
const ciOf = (reps: readonly Replication[], f: Figure): Interval =>
  meanInterval(reps.map(f)).ci95.map((v) => round(Math.max(0, v))) as Interval;

/** Mean throughput and response times, with their intervals. */
function responseMeans(reps: readonly Replication[]): ResponseFigures & Pick<ContentionPoint, 'ci95' | 'interval'> {
  const tb = batchMeansInterval(reps.map((r) => r.batch_tps));
  return {
    throughput_tps: meanOf(reps, (r) => r.throughput_tps),
    response_time_ms: meanOf(reps, (r) => r.response_time_ms),
    response_time_ms_p95: meanOf(reps, (r) => r.response_time_ms_p95),
    response_time_ms_p99: meanOf(reps, (r) => r.response_time_ms_p99),
    interval: tb.how,
    ci95: {
      throughput_tps: tb.ci95.map((v) => round(Math.max(0, v))) as Interval,
      response_time_ms: ciOf(reps, (r) => r.response_time_ms),
      response_time_ms_p99: ciOf(reps, (r) => r.response_time_ms_p99),
    },
  };
}

/** Mean engine-time shares and per-look-up rates (the hottest lock's busy share apart: it comes after lookups_per_transaction). */
function engineTimeMeans(reps: readonly Replication[]): Omit<EngineTimeFigures, 'hottest_lock_busy_pct'> {
  return {
    engine_busy_pct: meanOf(reps, (r) => r.engine_busy_pct),
    work_pct: meanOf(reps, (r) => r.work_pct),
    spin_pct: meanOf(reps, (r) => r.spin_pct),
    cas_retry_pct: meanOf(reps, (r) => r.cas_retry_pct),
    restart_pct: meanOf(reps, (r) => r.restart_pct),
    idle_pct: meanOf(reps, (r) => r.idle_pct),
    spinlock_wait_pct: meanOf(reps, (r) => r.spinlock_wait_pct),
    run_queue_pct: meanOf(reps, (r) => r.run_queue_pct),
    cas_retries_per_lookup: meanOf(reps, (r) => r.cas_retries_per_lookup),
    optimistic_restarts_per_read: meanOf(reps, (r) => r.optimistic_restarts_per_read),
    yields_per_transaction: meanOf(reps, (r) => r.yields_per_transaction),
  };
}

/** Stationarity over the replications: all of them, the worst checks, the most extensions. */
function stationarityFigures(
  reps: readonly Replication[],
): Pick<ContentionPoint, 'stationary' | 'not_stationary' | 'little_law_error_pct' | 'drift_pct' | 'extensions'> {
  return {
    stationary: reps.every((r) => r.stationary),
    not_stationary: reps.filter((r) => !r.stationary).length,
    little_law_error_pct: worstOf(reps, (r) => r.little_law_error_pct),
    drift_pct: worstOf(reps, (r) => r.drift_pct),
    extensions: Math.max(...reps.map((r) => r.extensions)),
  };
}

function runOf(r: Replication, collapsed: boolean): ContentionPoint['runs'][number] {
  return {
    seed: r.seed,
    throughput_tps: r.throughput_tps,
    response_time_ms: r.response_time_ms,
    collapsed,
    stationary: r.stationary,
    extensions: r.extensions,
    window_ms: r.window_ms,
  };
}

/** A bimodal point's two modes: the mean of the collapsed replications and of the others. */
function modesOf(collapsed: readonly Replication[], running: readonly Replication[]): NonNullable<ContentionPoint['modes']> {
  return {
    collapsed: {
      throughput_tps: meanOf(collapsed, (r) => r.throughput_tps),
      response_time_ms: meanOf(collapsed, (r) => r.response_time_ms),
    },
    running: { throughput_tps: meanOf(running, (r) => r.throughput_tps), response_time_ms: meanOf(running, (r) => r.response_time_ms) },
  };
}

/** Exact MVA of a product-form network at the point's population, and the simulation's error against it. */
function mvaCheck(net: ReturnType<typeof pointNetwork>, users: number, point: ResponseFigures): MvaCheck {
  const sol = exactMva(net, users);
  const mx = sol.throughput_per_ns[users]! * 1e9;
  const mr = sol.response_ns[users]! / 1e6;
  return {
    throughput_tps: round(mx),
    response_time_ms: round(mr),
    throughput_error_pct: round((100 * (point.throughput_tps - mx)) / mx),
    response_time_error_pct: mr > 0 ? round((100 * (point.response_time_ms - mr)) / mr) : 0,
  };
}

/** Merge a point's replications (in replication order) with its bounds and, when product-form, MVA. */
export function summarisePoint(
  spec: ContentionBase,
  bm: BufferManagerKind,
  engines: number,
  users: number,
  reps: readonly Replication[],
): ContentionPoint {
  const model = buildPointModel(spec, bm, engines, users);
  const net = pointNetwork(model);
  const bounds = roundBounds(operationalBounds(net, users));
  const isCollapsed = (r: Replication): boolean => r.throughput_tps < COLLAPSE_SHARE_OF_BOUND * bounds.throughput_tps;
  const collapsed = reps.filter(isCollapsed);
  const running = reps.filter((r) => !isCollapsed(r));
  const point: ContentionPoint = {
    users,
    replications: reps.length,
    ...responseMeans(reps),
    collapsed: collapsed.length,
    collapsed_share: round(collapsed.length / reps.length),
    bimodal: collapsed.length > 0 && running.length > 0,
    ...engineTimeMeans(reps),
    lookups_per_transaction: model.lookups,
    hottest_lock_busy_pct: meanOf(reps, (r) => r.hottest_lock_busy_pct),
    ...stationarityFigures(reps),
    transactions: reps.reduce((a, r) => a + r.transactions, 0),
    events: reps.reduce((a, r) => a + r.events, 0),
    bounds,
    drain: drainCriterion(model, net.engine_demand_ns, net.total_demand_ns),
    runs: reps.map((r) => runOf(r, isCollapsed(r))),
  };
  if (point.bimodal) point.modes = modesOf(collapsed, running);
  if (net.product_form) point.mva = mvaCheck(net, users, point);
  return point;
}

/** Pool entry (src/run/task-worker.ts, kind 'contention'). */
export function runTask(payload: unknown): unknown {
  if (!isPayload(payload)) throw new TypeError('contention task: payload must be { spec, buffer_manager, engines, users, seed }');
  return runReplication(payload);
}
