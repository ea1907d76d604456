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

/** How a point's throughput interval was made. */
export interface IntervalMethod {
  method: 'batch means' | 'replications';
  /** Batch means: the batches pooled (replications × batches a replication). */
  batches: number;
  /** Pooled lag-1 autocorrelation of the batch means within replications. */
  lag1: number;
  /** Why the batch means were not used, when they were not. */
  why?: string;
}

/**
 * The mean of `batches` (per replication, its window's throughput in equal batches) with a 95% interval
 * from batch means, when the batch size passes its test: the batch means of a replication, centred on
 * its mean, must show no lag-1 autocorrelation past 2/√n (pooled over the replications), tried with the
 * batches as they are and then merged in pairs. The interval's standard error is the larger of the
 * batches' (sd / √(R·B), df R·B − 1) and the replications' (sd of their means / √R, df R − 1): it is never
 * narrower than what the replications alone show. Otherwise the replications' t interval.
 */
export function batchMeansInterval(batches: readonly (readonly number[])[]): { mean: number; ci95: Interval; how: IntervalMethod } {
  const reps = batches.map((b) => b.reduce((a, x) => a + x, 0) / b.length);
  const byReps = meanInterval(reps);
  const fallback = (why: string, lag1: number) => ({
    mean: byReps.mean,
    ci95: byReps.ci95,
    how: { method: 'replications' as const, batches: 0, lag1, why },
  });
  let cur = batches.map((b) => [...b]);
  let lag1 = NaN;
  for (let attempt = 0; attempt < 2; attempt++) {
    const B = cur[0]?.length ?? 0;
    if (cur.length < 2 || B < 4) return fallback(`too few batches (${B} a replication) or replications`, lag1);
    let num = 0;
    let den = 0;
    cur.forEach((b, r) => {
      const m = reps[r]!;
      for (let i = 0; i < b.length; i++) {
        den += (b[i]! - m) ** 2;
        if (i > 0) num += (b[i]! - m) * (b[i - 1]! - m);
      }
    });
    lag1 = den > 0 ? num / den : 0;
    const n = cur.length * B;
    if (lag1 <= 2 / Math.sqrt(n)) {
      const all = meanInterval(cur.flat());
      const seB = all.se;
      const mean = byReps.mean;
      if (seB < byReps.se)
        return fallback('the replications vary more than their batches (the start state, or a slow drift)', Number(lag1.toPrecision(3)));
      const h = t95(n - 1) * seB;
      return { mean, ci95: [mean - h, mean + h], how: { method: 'batch means', batches: n, lag1: Number(lag1.toPrecision(3)) } };
    }
    cur = cur.map((b) => Array.from({ length: Math.floor(b.length / 2) }, (_v, i) => (b[2 * i]! + b[2 * i + 1]!) / 2));
  }
  return fallback(`the batch means are autocorrelated (lag-1 ${lag1.toPrecision(3)}) even merged in pairs`, Number(lag1.toPrecision(3)));
}
