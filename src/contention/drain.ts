/**
 * The collapse boundary in closed form: a fluid drain criterion for the hottest lock (or, lockless, the
 * hottest CAS line). Pure.
 *
 * With w tasks waiting at the hottest lock, the other min(N, U) − w engines that hold a task do work and
 * send acquisitions to it at rate (min(N, U) − w) × r, r its visits per engine-second of work (visits
 * per transaction ÷ the engine demand of a transaction without waiting). The lock passes one
 * acquisition per hold + c(w) × hand-off, c(w) the transfers a hand-off takes with w waiters: w for
 * ttas, ticket, spin_yield and spin_sleep (every spinner re-reads the line: Boyd-Wickizer et al., "Non-
 * scalable locks are dangerous", Linux Symposium 2012), 2w − 1 for plain tas, 1 for mcs and
 * ttas_backoff. Arrivals over service is
 *
 *   f(w) = (min(N, U) − w) × r × (hold + c(w) × handoff)
 *
 * Where f(w) > 1 the waiters grow faster than the lock drains them. f(0) is the lock's utilisation at
 * full engines; with c(w) = w, f is a parabola peaking at w = (A − hold/h)/2. If max f ≤ 1 every burst
 * drains: the point cannot collapse. If max f > 1, a burst of w* = min{w : f(w) > 1} waiters cannot
 * drain and feeds itself until f falls back to 1 at the collapsed equilibrium w_c (the upper root):
 * the point is bistable when f(0) < 1 (it runs until a burst reaches w*) and overloaded when f(0) ≥ 1.
 * The criterion needs the engines full of tasks — true once the point collapses, as users pile up;
 * it ignores give-ups past spin_limit (spin_yield, spin_sleep) and back-off's idle gaps.
 *
 * Whether a bistable point collapses within a run depends on a burst reaching the size that cannot
 * drain from the running state. The running state has X_run = min(N/D, U/(D + Z)) (the operational bound
 * without the lock) and U − X_run × Z users in the system (`running_in_system`); only min(N, that) engines
 * hold a task, so its burst size w*_run is the smallest w with (min(N, U − X_run Z) − w) × r × (hold +
 * c(w) × handoff) > 1 (none: every burst the running state can produce drains). A crude estimate of the
 * bursts: the running lock utilisation ρ taken as an M/M/1 queue's, whose chance of w*_run waiters is
 * ρ^w*_run, times the acquisitions in the run (warm-up and window): `bursts_expected`. Collapse is predicted when the point is overloaded or when
 * bursts_expected ≥ 1 — and when the collapsed state can hold itself: at the collapsed equilibrium the
 * lock passes 1 / (hold + c(w_c) × handoff) acquisitions a ns, so X_c = that ÷ visits transactions, X_c × Z
 * users think and the rest, U − X_c × Z, must fill the min(N, U) engines (`collapsed_in_system`); with
 * fewer users than that the pile-up drains through the think time.
 */
import { lineVisits, lockVisits, type PointModel } from './model.js';

export interface DrainCriterion {
  /** What the criterion is computed for. */
  resource: 'spinlock' | 'latch' | 'cas line' | 'none';
  /** Visits to the hottest resource per engine-second of work. */
  r_per_engine_s: number;
  /** Engines that can hold a task: min(N, U). */
  engines: number;
  /** Transfers of a hand-off with w waiters: w, 2w − 1 or 1. */
  handoff_growth: 'w' | '2w-1' | '1';
  /** f(0): the resource's utilisation with every engine working. */
  f0: number;
  /** The largest f(w) over 0 ≤ w < engines, and where. */
  max_f: number;
  w_peak: number;
  /** The smallest burst that cannot drain (f(w) > 1), or null when every burst drains. */
  w_star: number | null;
  /** The collapsed equilibrium: the largest w with f(w) ≥ 1, or null. */
  w_collapsed: number | null;
  /** drains: max f ≤ 1; bistable: f(0) < 1 < max f; overloaded: f(0) ≥ 1. */
  verdict: 'drains' | 'bistable' | 'overloaded';
  /** The running point's utilisation of the resource (at its bound without the lock). */
  rho_running: number;
  /** Users in the system at the running state, U − X_run × Z, and the burst that cannot drain from it (null: none). */
  running_in_system: number;
  w_star_running: number | null;
  /** Bursts of w* waiters expected in the run (warm-up + window): acquisitions × ρ^w* (0 when every burst drains). */
  bursts_expected: number;
  /** Users in the system at the collapsed equilibrium (U − X_c × Z), or null without one. */
  collapsed_in_system: number | null;
  /** Overloaded, or bistable with a burst expected in the run, and users enough to hold the collapsed state. */
  collapse_predicted: boolean;
}

/** The hottest lock (by demand) or CAS line, its visits per transaction, the fixed and the per-waiter part of its service. */
function hottest(m: PointModel): { resource: DrainCriterion['resource']; visits: number; fixed: number; per: number } {
  if (m.buffer_manager === 'lockless') {
    const lines = lineVisits(m);
    let v = 0;
    for (let p = 0; p < lines.cas.length; p++) if (lines.cas[p]! > v) v = lines.cas[p]!;
    // contended, a success takes one failed attempt (one transfer, none for a fetch-and-add) and the CAS
    return { resource: v > 0 ? 'cas line' : 'none', visits: v, fixed: m.cas_ns + (m.faa ? 0 : m.line_transfer_ns), per: 0 };
  }
  const visits = lockVisits(m);
  let best = { resource: 'none' as DrainCriterion['resource'], visits: 0, fixed: 0, per: 0, demand: 0 };
  const consider = (resource: 'spinlock' | 'latch', arr: Float64Array, hold: number): void => {
    for (let k = 0; k < arr.length; k++) {
      const d = arr[k]! * (hold + m.handoff_ns);
      if (d > best.demand) best = { resource, visits: arr[k]!, fixed: hold, per: m.handoff_ns, demand: d };
    }
  };
  consider('spinlock', visits.spinlock, m.hold_ns);
  consider('latch', visits.latch, m.latch_hold_ns);
  return best;
}

const growthOf = (m: PointModel): DrainCriterion['handoff_growth'] =>
  m.buffer_manager === 'lockless' || !m.ttas ? '1' : m.tas ? '2w-1' : 'w';

/** The drain criterion of a point (see the file's note): engine demand (the work a transaction needs without waiting) and all demands, ns. */
export function drainCriterion(m: PointModel, engineDemandNs: number, totalDemandNs: number): DrainCriterion {
  const h = hottest(m);
  const growth = growthOf(m);
  const A = Math.min(m.engines, m.users);
  const r = engineDemandNs > 0 ? (h.visits / engineDemandNs) * 1e9 : 0;
  const transfers = (w: number): number => (growth === '1' ? 1 : growth === 'w' ? Math.max(1, w) : Math.max(1, 2 * w - 1));
  const f = (a: number, w: number): number => (a - w) * (r / 1e9) * (h.fixed + transfers(w) * h.per);
  let maxF = 0;
  let wPeak = 0;
  let wC: number | null = null;
  for (let w = 0; w < A; w++) {
    const x = f(A, w);
    if (x > maxF) {
      maxF = x;
      wPeak = w;
    }
    if (x >= 1) wC = w;
  }
  const firstAbove = (a: number): number | null => {
    for (let w = 0; w < a; w++) if (f(a, w) > 1) return w;
    return null;
  };
  const wStar = firstAbove(A);
  const f0 = f(A, 0);
  const round = (x: number): number => Number(x.toPrecision(4));
  const xRun = Math.min(engineDemandNs > 0 ? m.engines / engineDemandNs : Infinity, m.users / (totalDemandNs + m.think_ns)); // per ns
  const rho = Math.min(1, xRun * h.visits * (h.fixed + h.per));
  const acquisitions = xRun * h.visits * (m.warmup_ns + m.duration_ns);
  const nRun = Math.max(0, m.users - xRun * m.think_ns);
  const wRun = firstAbove(Math.min(A, Math.floor(nRun)));
  const bursts = wRun === null ? 0 : acquisitions * Math.pow(rho, wRun);
  const verdict = maxF <= 1 ? 'drains' : f0 >= 1 ? 'overloaded' : 'bistable';
  const sC = wC === null ? 0 : h.fixed + transfers(wC) * h.per;
  const inSystem = wC === null || h.visits <= 0 ? null : m.users - (m.think_ns / (sC * h.visits)) * 1; // X_c × Z with X_c per ns
  const holds = inSystem !== null && inSystem >= A;
  return {
    resource: h.resource,
    r_per_engine_s: round(r),
    engines: A,
    handoff_growth: growth,
    f0: round(f0),
    max_f: round(maxF),
    w_peak: wPeak,
    w_star: wStar,
    w_collapsed: wC,
    verdict,
    rho_running: round(rho),
    running_in_system: round(nRun),
    w_star_running: wRun,
    bursts_expected: round(bursts),
    collapsed_in_system: inSystem === null ? null : round(inSystem),
    collapse_predicted: holds && (verdict === 'overloaded' || (verdict === 'bistable' && bursts >= 1)),
  };
}
