/**
 * Calibration: the DBA's tools give the rows' lengths now and how many of them no longer fit where they
 * were (forwarded rows, non-HOT updates that went to another page), but not how long the rows were
 * when they were inserted. One parameter describes that growth: each row is inserted at
 * floor + s × (its length now − floor), floor being the shortest row the source allows; s = 0 is the
 * manual's short-insert-then-update case, s = 1 rows that never grow. The fit simulates the table's
 * current setting over s and takes the s whose moved share matches the measured one; the evidence is
 * reproduced when the measured share lies inside that simulation's 95% interval. When even s = 0 moves
 * fewer rows than measured (the most growth these lengths allow), no growth model reproduces it.
 *
 * Pure apart from the runner it is given (the same CandidateRunner as the estimate).
 */
import type { MovedTarget } from './evidence/merge.js';
import { aggregate, type Cand, type CandidateFigures } from './figures.js';
import type { ReserveKnob } from './knob.js';
import type { CandidateTask, ReplicateFigures } from './simulate.js';

/** Coarse grid of insert shares, then this many bisection steps between the bracketing grid points. */
const FIT_GRID = [0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1] as const;
const FIT_BISECTIONS = 5;

export interface FitPoint {
  insert_share: number;
  moved_pct: number;
  interval: [number, number];
  pages: number;
  pages_interval: [number, number];
}

interface FitResult {
  /** The measured share, % of rows (or of updates). */
  measured_pct: number;
  measured: MovedTarget;
  /** Whether a growth model reproduces the measurement (inside the simulated 95% interval). */
  reproduced: boolean;
  /** The fitted insert share, and the range of shares whose interval holds the measurement. */
  insert_share: number;
  insert_share_range: [number, number];
  /** The current setting at the fitted share. */
  simulated: FitPoint;
  /** Every share simulated, in increasing order. */
  curve: FitPoint[];
}

/** Builds the current setting's task for an insert share (the plan's rows with that growth). */
type TaskForShare = (share: number) => CandidateTask;
type Runner = (tasks: CandidateTask[]) => Promise<ReplicateFigures[][]>;

export type { FitResult };

/**
 * The insert share fitted at one spread. The moved share falls as the insert share rises, so the grid is
 * simulated a share at a time from 0 up to the first point at or under the measurement, which brackets it
 * (the spreads fitted side by side keep the threads busy), and the bisection runs in that bracket. With
 * `whole` the rest of the grid is simulated too, for the curve and the range of shares that hold the
 * measurement; without it they cover the shares simulated so far only (the other fields are the same
 * either way). `points` keeps the shares simulated, for a later call at the same spread.
 */
export async function fitGrowth(
  target: MovedTarget,
  knob: ReserveKnob,
  current: Cand,
  taskFor: TaskForShare,
  runner: Runner,
  scale: { tableRows: number; sampleRows: number },
  opts: { whole: boolean; points?: Map<number, FitPoint> } = { whole: true },
): Promise<FitResult> {
  const points = opts.points ?? new Map<number, FitPoint>();
  const evaluate = async (shares: number[]) => {
    const todo = shares.filter((s) => !points.has(s));
    const results = await runner(todo.map(taskFor));
    todo.forEach((s, i) => points.set(s, point(s, aggregate(knob, current, results[i]!, scale.tableRows, scale.sampleRows))));
  };
  const m = 100 * target.share;
  const step = opts.whole ? FIT_GRID.length : 1;
  let k = -1;
  for (let i = 0; k < 0 && i < FIT_GRID.length; i += step) {
    await evaluate(FIT_GRID.slice(i, i + step));
    k = FIT_GRID.findIndex((s) => points.has(s) && points.get(s)!.moved_pct <= m);
  }
  if (k < 0) k = FIT_GRID.length - 1;
  if (opts.whole) await evaluate([...FIT_GRID]);
  let lo: number = k > 0 ? FIT_GRID[k - 1]! : 0;
  let hi: number = FIT_GRID[k]!;
  if (k > 0) {
    for (let i = 0; i < FIT_BISECTIONS; i++) {
      const mid = Math.round(((lo + hi) / 2) * 1e6) / 1e6;
      await evaluate([mid]);
      if (points.get(mid)!.moved_pct > m) lo = mid;
      else hi = mid;
    }
  }
  const a = points.get(lo)!;
  const b = points.get(hi)!;
  // The closer of the two bracketing shares: both were simulated, so the reported fit is a simulation.
  const best = k === 0 ? b : Math.abs(a.moved_pct - m) <= Math.abs(b.moved_pct - m) ? a : b;
  const curve = [...points.values()].sort((x, y) => x.insert_share - y.insert_share);
  const holds = curve.filter((p) => contains(p.interval, m));
  const reproduced = contains(best.interval, m);
  return {
    measured_pct: r4(m),
    measured: target,
    reproduced,
    insert_share: best.insert_share,
    insert_share_range: holds.length
      ? [holds[0]!.insert_share, holds[holds.length - 1]!.insert_share]
      : [best.insert_share, best.insert_share],
    simulated: best,
    curve,
  };
}

function point(share: number, c: CandidateFigures): FitPoint {
  return {
    insert_share: share,
    moved_pct: c.forwarded_rows_pct,
    interval: c.interval.forwarded_rows_pct,
    pages: c.pages,
    pages_interval: c.interval.pages,
  };
}

function contains(iv: [number, number], v: number): boolean {
  return v >= iv[0] - 1e-9 && v <= iv[1] + 1e-9;
}

function r4(x: number): number {
  return Math.round(x * 10000) / 10000;
}

// ---- the spread: fitted to the data pages -------------------------------------------------------

/**
 * Spreads tried first (src/estimate/length-model.ts): denser near 0, where a byte of standard deviation
 * is a small step of the spread on a wide column. Then the best is refined this many times, each time
 * trying the points halfway (geometrically, away from 0) to its neighbours.
 */
export const SPREAD_GRID = [0, 1 / 64, 1 / 16, 0.25, 0.5, 1] as const;
const SPREAD_REFINEMENTS = 4;

/** The growth fitted at one spread, with what it gives. */
export interface SpreadPoint {
  spread: number;
  insert_share: number;
  moved_pct: number;
  interval: [number, number];
  reproduced: boolean;
  pages: number;
  pages_interval: [number, number];
  /** The most this spread's lengths can move: every row inserted at the shortest length (insert share 0). */
  most_moved_pct: number;
  most_upper_pct: number;
}

export interface SpreadFit {
  growth: FitResult;
  spread: number;
  /** Whether the spread was fitted to measured pages (else it was assumed). */
  fitted: boolean;
  /** Every spread tried, each with its fitted growth, in increasing spread. */
  curve: SpreadPoint[];
}

type TaskForGrowth = (share: number, spread: number) => CandidateTask;

/**
 * How far a point misses, for choosing the spread: a point whose growth reproduces the moved share (inside
 * its interval) is scored by its pages' distance in half-widths of their interval; any other comes after
 * every such point, scored by the larger of its two distances.
 */
function missOf(f: FitResult, pages: number): number {
  const piv = f.simulated.pages_interval;
  const phalf = Math.max(0.5, (piv[1] - piv[0]) / 2);
  const pagesMiss = Math.abs(f.simulated.pages - pages) / phalf;
  if (f.reproduced) return pagesMiss;
  const m = f.measured_pct;
  const iv = f.simulated.interval;
  const half = Math.max(1e-6, (iv[1] - iv[0]) / 2);
  const moved = m < iv[0] ? (iv[0] - m) / half : (m - iv[1]) / half;
  return 1e6 + Math.max(moved, pagesMiss);
}

function midway(a: number, b: number): number {
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  const mid = lo > 0 ? Math.sqrt(lo * hi) : hi / 4;
  return Math.round(mid * 1e6) / 1e6;
}

/**
 * Two unknowns, two measurements: for each spread the insert share is fitted to the moved share
 * (fitGrowth); the spread is the one whose fitted growth reproduces the moved share with the pages
 * closest to the measured ones, in half-widths of their 95% interval (a grid, then refined around the
 * best); when no spread reproduces the moved share, the one that misses both least. Without
 * measured pages the spread is `assumed`.
 */
export async function fitGrowthAndSpread(
  target: MovedTarget,
  pages: number | undefined,
  assumed: number,
  knob: ReserveKnob,
  current: Cand,
  taskFor: TaskForGrowth,
  runner: Runner,
  scale: { tableRows: number; sampleRows: number },
): Promise<SpreadFit> {
  const fits = new Map<number, FitResult>();
  const points = new Map<number, Map<number, FitPoint>>();
  // Each spread's growth without the grid past its bracket (curveOf reads none of it); the chosen spread's whole.
  const fitAt = (d: number, whole: boolean) => {
    if (!points.has(d)) points.set(d, new Map());
    return fitGrowth(target, knob, current, (share) => taskFor(share, d), runner, scale, { whole, points: points.get(d)! });
  };
  const at = async (spreads: number[]) => {
    const todo = [...new Set(spreads)].filter((d) => !fits.has(d));
    const done = await Promise.all(todo.map((d) => fitAt(d, false)));
    todo.forEach((d, i) => fits.set(d, done[i]!));
  };
  if (pages === undefined) {
    fits.set(assumed, await fitAt(assumed, true));
    return { growth: fits.get(assumed)!, spread: assumed, fitted: false, curve: curveOf(fits) };
  }
  await at([...SPREAD_GRID]);
  const best = () => [...fits.entries()].reduce((a, b) => (missOf(b[1], pages) < missOf(a[1], pages) ? b : a))[0];
  for (let i = 0; i < SPREAD_REFINEMENTS; i++) {
    const tried = [...fits.keys()].sort((x, y) => x - y);
    const d = best();
    const k = tried.indexOf(d);
    const around = [tried[k - 1], tried[k + 1]].filter((x): x is number => x !== undefined).map((x) => midway(d, x));
    await at(around);
  }
  const d = best();
  fits.set(d, await fitAt(d, true));
  return { growth: fits.get(d)!, spread: d, fitted: true, curve: curveOf(fits) };
}

function curveOf(fits: Map<number, FitResult>): SpreadPoint[] {
  return [...fits.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([spread, f]) => ({
      spread,
      insert_share: f.insert_share,
      moved_pct: f.simulated.moved_pct,
      interval: f.simulated.interval,
      reproduced: f.reproduced,
      pages: f.simulated.pages,
      pages_interval: f.simulated.pages_interval,
      most_moved_pct: f.curve[0]!.moved_pct,
      most_upper_pct: f.curve[0]!.interval[1],
    }));
}
