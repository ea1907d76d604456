/**
 * Extrapolation from a sample to the whole table, with a 95% prediction interval.
 *
 * Page behaviour is local: a page's fate depends on the rows inserted around it, not on the size of the
 * table. So each replicate's per-row ratios (pages per row, forwarded rows per row, …) estimate the
 * whole table's. With k replicates of S rows each, ratio sample mean m and standard deviation s, the
 * whole table of N rows is predicted to show N·m ± t(k−1) · s · sqrt(1/k + S/N) · N: the uncertainty of
 * the mean plus the table's own run-to-run variation (a variance ∝ 1/N, i.e. s²·S/N). Two allowances
 * widen it: a sample has a first and a last page whose rows behave differently (a partly filled last
 * page lets rows grow in place), an effect of about one page per replicate that vanishes in a big
 * table, so a sampled estimate adds `edge` (one page's worth of the metric, per row of the sample);
 * and a floor of 3/(k·S) per row (the "rule of three": no event in k·S rows still allows up to
 * 3/(k·S) at 95%) keeps an interval from collapsing to a point when every replicate agrees.
 */

/** Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086,
  2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

function tQuantile975(dof: number): number {
  if (dof < 1) return Infinity;
  return dof <= T975.length ? T975[dof - 1]! : 1.96;
}

export interface Extrapolated {
  /** Whole-table estimate. */
  value: number;
  /** Lowest and highest replicate, scaled to the whole table. */
  spread: [number, number];
  /** 95% prediction interval for the whole table. */
  interval: [number, number];
}

/**
 * `ratios`: one per replicate (metric ÷ rows of that replicate); `total`: the table's rows N;
 * `sampleRows`: rows per replicate S; `edge`: the sample-edge allowance per row (0 when S = N).
 */
export function extrapolate(ratios: readonly number[], total: number, sampleRows: number, edge = 0): Extrapolated {
  const k = ratios.length;
  const mean = ratios.reduce((s, x) => s + x, 0) / Math.max(1, k);
  const sd = k > 1 ? Math.sqrt(ratios.reduce((s, x) => s + (x - mean) * (x - mean), 0) / (k - 1)) : 0;
  const frac = Math.min(1, sampleRows / Math.max(1, total));
  const floor = 3 / (Math.max(1, k) * Math.max(1, sampleRows));
  const half = Math.max(k > 1 ? tQuantile975(k - 1) * sd * Math.sqrt(1 / k + frac) : 0, floor) + (frac < 1 ? edge : 0);
  return {
    value: mean * total,
    spread: [Math.min(...ratios) * total, Math.max(...ratios) * total],
    interval: [Math.max(0, mean - half) * total, (mean + half) * total],
  };
}
