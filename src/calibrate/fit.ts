/**
 * The contention model's costs fitted from `rowsim calibrate`'s fitting runs — or refused. A cost is
 * fitted only from runs that were not time-sliced (each thread had a core to itself) and whose repeats
 * agree: at least MIN_USABLE_REPEATS repeats of every run it is computed from, spread (max − min) / median
 * at most MAX_REPEAT_SPREAD_PCT. Otherwise the cost is refused, with the reason, and a config that uses
 * the calibration file keeps its own value for it. Pure: runs in, fits out.
 */
import { median } from '../contention/stats.js';

/** Repeats of one fitting run may differ by at most this share of their median, percent (assumed: a quiet machine repeats within a few percent; a loaded one does not). */
export const MAX_REPEAT_SPREAD_PCT = 10;
/** A spread needs two repeats: a run with fewer usable repeats is refused. */
export const MIN_USABLE_REPEATS = 2;

/** What the fit needs of a run. */
export interface FitRun {
  ns_per_op_per_thread: number;
  time_sliced: boolean;
  time_sliced_reason: string | null;
}

/** A fitted cost, or null with the reason it was refused. */
export interface Fitted {
  value: number | null;
  from: string;
  refused?: string;
  /** The cost computed from each repeat whose runs all qualified, ns (min … max is the repeat range). */
  repeats_ns?: number[];
  /** The largest spread (max − min) / median over the repeats of the runs it is computed from, percent. */
  spread_pct?: number;
}

/** The fitting runs by tag (repeats in order). */
export type ByTag = ReadonlyMap<string, readonly FitRun[]>;

const r3 = (x: number): number => (Number.isFinite(x) ? Number(x.toPrecision(3)) : x);

interface TagCheck {
  ok: boolean;
  /** Per repeat: ns per access, or null for a time-sliced repeat. */
  perRepeat: Array<number | null>;
  median: number;
  spread_pct: number;
  refused?: string;
}

/** One fitting run's repeats: usable or refused, why, and their spread. */
export function checkTag(byTag: ByTag, tag: string): TagCheck {
  const runs = byTag.get(tag) ?? [];
  const perRepeat = runs.map((r) => (r.time_sliced ? null : r.ns_per_op_per_thread));
  const ok = perRepeat.filter((x): x is number => x !== null);
  const med = ok.length ? median(ok) : NaN;
  const spread = ok.length >= 2 && med > 0 ? (100 * (Math.max(...ok) - Math.min(...ok))) / med : NaN;
  const base = { perRepeat, median: med, spread_pct: r3(spread) };
  if (ok.length < MIN_USABLE_REPEATS) {
    const reason = runs.map((r) => r.time_sliced_reason).find((x) => x) ?? 'no run';
    const sliced = runs.length - ok.length;
    return {
      ...base,
      ok: false,
      refused: `${sliced} of ${runs.length} repeats of the ${tag} run time-sliced (${reason}); at least ${MIN_USABLE_REPEATS} unsliced repeats are needed`,
    };
  }
  if (!(spread <= MAX_REPEAT_SPREAD_PCT))
    return {
      ...base,
      ok: false,
      refused: `the ${tag} run's ${ok.length} repeats differ by ${r3(spread)}% of their median (${ok.map((x) => r3(x)).join(', ')} ns an access), more than ${MAX_REPEAT_SPREAD_PCT}%`,
    };
  return { ...base, ok: true };
}

/**
 * A cost computed by `formula` from the medians of `tags` (ns per access of one thread each), refused when
 * any of them is; its repeat values are the formula over each repeat whose runs all qualified.
 */
export function fitCost(byTag: ByTag, tags: readonly string[], formula: (ns: number[]) => number, from: string): Fitted {
  const checks = tags.map((t) => checkTag(byTag, t));
  const bad = checks.find((c) => !c.ok);
  const spread = Math.max(...checks.map((c) => (Number.isFinite(c.spread_pct) ? c.spread_pct : 0)));
  if (bad) return { value: null, from, refused: `refused: ${bad.refused}` };
  const repeats: number[] = [];
  const n = Math.min(...checks.map((c) => c.perRepeat.length));
  for (let r = 0; r < n; r++) {
    const xs = checks.map((c) => c.perRepeat[r]);
    if (xs.every((x): x is number => x !== null && x !== undefined)) repeats.push(r3(Math.max(0, formula(xs))));
  }
  const value = r3(formula(checks.map((c) => c.median)));
  if (!(value > 0))
    return {
      value: null,
      from,
      refused: `refused: it came out at ${value} ns, not above 0: the runs it is the difference of cannot tell it from noise`,
    };
  return {
    value,
    from,
    repeats_ns: repeats,
    spread_pct: r3(spread),
  };
}

export const FITTED_KEYS = [
  'latched.hold',
  'latched.handoff_per_waiter',
  'lockless.cas',
  'lockless.line_transfer',
  'lockless.lookup',
] as const;
export type FittedKey = (typeof FITTED_KEYS)[number];

/**
 * Every cost the model takes, from the fitting runs (tags as `measure` in bench.ts names them): one
 * thread (outside, bare, ttas1, lock1, cas1) and two (lock2, casSpaced, cas2).
 */
export function fitAll(byTag: ByTag): Record<FittedKey, Fitted> {
  const fits = {} as Record<FittedKey, Fitted>;
  fits['lockless.lookup'] = fitCost(
    byTag,
    ['outside', 'bare'],
    ([o, b]) => b! - o!,
    "one thread: (outside work + the critical section's work) − outside work",
  );
  fits['latched.hold'] = fitCost(
    byTag,
    ['outside', 'ttas1'],
    ([o, t]) => t! - o!,
    'one thread: an uncontended TTAS acquisition, the critical section and the release, per access',
  );
  // one lock, two threads back to back: each acquisition is hold + one hand-off (the line moves)
  fits['latched.handoff_per_waiter'] = fitCost(
    byTag,
    ['lock1', 'lock2'],
    ([l1, l2]) => l2! / 2 - l1!,
    'one TTAS lock passed between two threads: time per acquisition − the one-thread time',
  );
  fits['lockless.cas'] = fitCost(
    byTag,
    ['outside', 'cas1', 'casSpaced'],
    ([o, c1, sp]) => Math.max(c1!, sp! - o!),
    'one word CAS-incremented by two threads between outside work: time per access − outside work (a CAS whose line the other thread wrote)',
  );
  // saturated: per success the model takes one failed attempt (one line transfer) and the retry (cas)
  fits['lockless.line_transfer'] = fitCost(
    byTag,
    ['outside', 'cas1', 'casSpaced', 'cas2'],
    ([o, c1, sp, c2]) => c2! / 2 - Math.max(c1!, sp! - o!),
    'one word CAS-incremented by two threads back to back: time per success − cas',
  );
  return fits;
}
