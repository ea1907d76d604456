/**
 * The measuring window's figures: what one replication reports (SimStats), and the checks made at the
 * window's end — Little's law, the drift between the window's halves, stationarity — and the exact
 * percentiles of the response times (nearest rank, by selection). The simulator (sim.ts) collects the
 * sums; the window is [warmup, warmup + duration], extended while the point is not stationary.
 */

/** Batches of the measuring window (batch means: stats.ts tests them). */
export const BATCHES = 10;
/** Buckets of the run's commit history over the first warm-up + window (more follow with extensions). */
export const TRACE_BUCKETS = 100;

/** z of the counting-noise band of the half-window drift (99%, two-sided). */
const DRIFT_NOISE_Z = 2.576;

export interface SimStats {
  window_ns: number;
  warmup_ns: number;
  transactions: number;
  /** Commits in the first and the second half of the window. */
  half_transactions: [number, number];
  /** Commits in each of BATCHES equal batches of the window (batch means). */
  batch_transactions: number[];
  /** Commits per TRACE_BUCKET_NS bucket from time 0 to the window's end (warm-up included): the run's history. */
  trace: number[];
  trace_bucket_ns: number;
  /** 95th and 99th percentile of the response times of the transactions committed in the window (exact). */
  response_ns_p95: number;
  response_ns_p99: number;
  response_sum_ns: number;
  think_sum_ns: number;
  thinks: number;
  /** Engine time in the window, by use. busy = work + spin + cas_retry + restart (an invariant). */
  engine_busy_ns: number;
  engine_work_ns: number;
  engine_spin_ns: number;
  engine_cas_retry_ns: number;
  engine_restart_ns: number;
  /** Time tasks spent waiting for a spinlock or latch (spinning, backing off or blocked), hand-off included. */
  lock_wait_ns: number;
  /** Time tasks spent in the run queue. */
  run_queue_ns: number;
  /** Time integral of the number of users inside a transaction. */
  in_transaction_ns: number;
  lookups: number;
  cas_attempts: number;
  cas_retries: number;
  optimistic_reads: number;
  optimistic_restarts: number;
  /** spin_yield: times a spinner gave its engine up. */
  yields: number;
  /** Busy time (held or in hand-off) of the busiest lock. */
  hottest_lock_busy_ns: number;
  /** 'spinlock' or 'latch'. */
  hottest_lock_kind: string;
  events: number;
  /** Window extensions made; the checks of the last window. */
  extensions: number;
  little_law_error_pct: number;
  drift_pct: number;
  /** The drift the window's commit count alone would explain (99%), percent. */
  drift_noise_pct: number;
  stationary: boolean;
  /** An extension was due but would have passed max_events. */
  budget_stopped: boolean;
}

/** SimStats without the checks made after the window (sim.ts adds them). */
export type WindowStats = Omit<
  SimStats,
  'extensions' | 'little_law_error_pct' | 'drift_pct' | 'drift_noise_pct' | 'stationary' | 'budget_stopped'
>;

/** Little's law check: (X·(R + Z̄) − U)/U in percent, with the measured mean think time. */
export function littleLawErrorPct(
  s: Pick<SimStats, 'transactions' | 'window_ns' | 'response_sum_ns' | 'think_sum_ns' | 'thinks'>,
  users: number,
  thinkNs: number,
): number {
  const x = s.transactions / s.window_ns;
  const r = s.transactions > 0 ? s.response_sum_ns / s.transactions : 0;
  const z = s.thinks > 0 ? s.think_sum_ns / s.thinks : thinkNs;
  return (100 * (x * (r + z) - users)) / users;
}

/** Drift of throughput between the halves of the window, and the drift counting noise alone explains. */
export function halfDrift(half: readonly [number, number]): { drift_pct: number; noise_pct: number } {
  const n = half[0] + half[1];
  if (n === 0) return { drift_pct: 0, noise_pct: 0 };
  return { drift_pct: (200 * (half[1] - half[0])) / n, noise_pct: (100 * DRIFT_NOISE_Z * 2) / Math.sqrt(n) };
}

/**
 * Is a window stationary? Little's law holds within the tolerance, and the drift between its halves is
 * within the tolerance or within what the commit count's noise explains.
 */
export function isStationary(little_pct: number, drift_pct: number, noise_pct: number, tolerance_pct: number): boolean {
  return Math.abs(little_pct) <= tolerance_pct && (Math.abs(drift_pct) <= tolerance_pct || Math.abs(drift_pct) <= noise_pct);
}

/**
 * The q-quantile by the nearest-rank rule (the ⌈q·n⌉-th smallest), found by selection (Hoare's
 * quickselect with a median-of-three pivot) instead of a full sort; reorders `a`. 0 when empty.
 */
export function nearestRank(a: Float64Array, q: number): number {
  const n = a.length;
  if (n === 0) return 0;
  const k = Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1));
  let lo = 0;
  let hi = n - 1;
  while (hi > lo) {
    const mid = (lo + hi) >> 1;
    // median of three to the middle
    if (a[mid]! < a[lo]!) swap(a, mid, lo);
    if (a[hi]! < a[lo]!) swap(a, hi, lo);
    if (a[hi]! < a[mid]!) swap(a, hi, mid);
    const pivot = a[mid]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}
