/**
 * Statistics of replications: the mean with a 95% confidence interval (Student t), and the ratio of two
 * independent means with its interval by the delta method; the median of repeated measurements. Pure.
 */
export type Interval = [number, number];

/** The median of `xs` (the upper of the two middle values for an even count); `xs` is left as it was. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Two-sided 95% quantiles of Student's t for 1 … 30 degrees of freedom (standard tables). */
const T95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086,
  2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** t quantile for a two-sided 95% interval with `df` degrees of freedom (1.96 past 120). */
export function t95(df: number): number {
  if (df < 1) return Infinity;
  if (df <= 30) return T95[df - 1]!;
  if (df <= 40) return 2.021;
  if (df <= 60) return 2.0;
  if (df <= 120) return 1.98;
  return 1.96;
}

interface MeanInterval {
  mean: number;
  /** Standard error of the mean (0 with one value). */
  se: number;
  /** [mean − t·se, mean + t·se]; [mean, mean] with a single value (no interval can be given). */
  ci95: Interval;
  n: number;
}

export function meanInterval(xs: readonly number[]): MeanInterval {
  const n = xs.length;
  if (n === 0) return { mean: NaN, se: NaN, ci95: [NaN, NaN], n };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { mean, se: 0, ci95: [mean, mean], n };
  const variance = xs.reduce((a, b) => a + (b - mean) * (b - mean), 0) / (n - 1);
  const se = Math.sqrt(variance / n);
  const h = t95(n - 1) * se;
  return { mean, se, ci95: [mean - h, mean + h], n };
}

/**
 * a / b for two independent samples: the ratio of the means and a 95% interval from the delta method,
 * (se/ratio)² = (se_a/a)² + (se_b/b)², with the smaller sample's degrees of freedom.
 */
export function ratioInterval(a: readonly number[], b: readonly number[]): { ratio: number; ci95: Interval } {
  const ma = meanInterval(a);
  const mb = meanInterval(b);
  const ratio = ma.mean / mb.mean;
  if (!Number.isFinite(ratio)) return { ratio, ci95: [NaN, NaN] };
  const rel = Math.sqrt((ma.se / ma.mean) ** 2 + (mb.se / mb.mean) ** 2);
  const h = t95(Math.min(ma.n, mb.n) - 1) * rel * ratio;
  return { ratio, ci95: Number.isFinite(h) ? [Math.max(0, ratio - h), ratio + h] : [ratio, ratio] };
}
