/**
 * Length distributions and the Zipf sampler. Samplers are plain closures over a Prng: no allocation
 * per sample.
 */
import type { Dist } from '../config/spec.js';
import type { Prng } from '../util/prng.js';

export type Sampler = (rng: Prng) => number;

/** A sampler of whole lengths ≥ 0 for a length distribution. */
export function lengthSampler(d: Dist): Sampler {
  switch (d.kind) {
    case 'const': {
      const v = Math.max(0, Math.round(d.value));
      return () => v;
    }
    case 'uniform': {
      const lo = Math.max(0, Math.ceil(Math.min(d.min, d.max)));
      const hi = Math.max(lo, Math.floor(Math.max(d.min, d.max)));
      return (rng) => rng.intBetween(lo, hi);
    }
    case 'normal': {
      const { mean, sd } = d;
      return (rng) => Math.max(0, Math.round(mean + sd * rng.normal()));
    }
    case 'lognormal': {
      const { median, sigma } = d;
      return (rng) => Math.max(0, Math.round(median * Math.exp(sigma * rng.normal())));
    }
    case 'choice': {
      const total = d.weights.reduce((s, w) => s + w, 0);
      const cum = new Float64Array(d.weights.length);
      let acc = 0;
      d.weights.forEach((w, i) => {
        acc += w / total;
        cum[i] = acc;
      });
      cum[cum.length - 1] = 1;
      const values = Int32Array.from(d.values, (v) => Math.max(0, Math.round(v)));
      return (rng) => {
        const u = rng.float();
        let lo = 0;
        let hi = cum.length - 1;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (u < cum[mid]!) hi = mid;
          else lo = mid + 1;
        }
        return values[lo]!;
      };
    }
  }
}

/** Mean of a distribution before clipping (for estimates and summaries). */
export function distMean(d: Dist): number {
  switch (d.kind) {
    case 'const':
      return d.value;
    case 'uniform':
      return (d.min + d.max) / 2;
    case 'normal':
      return d.mean;
    case 'lognormal':
      return d.median * Math.exp((d.sigma * d.sigma) / 2);
    case 'choice': {
      const total = d.weights.reduce((s, w) => s + w, 0);
      return d.values.reduce((s, v, i) => s + (v * d.weights[i]!) / total, 0);
    }
  }
}

/**
 * Zipf(s) ranks 1..n by rejection-inversion (Hörmann & Derflinger 1996): O(1) per sample, no tables,
 * any n. Rank 1 is the most popular.
 */
export class ZipfSampler {
  // Named as in the paper: H(x1) − 1, H(n + ½) and the squeeze bound s of the acceptance test; n ranks, exponent s.
  private readonly hX1: number;
  private readonly hN: number;
  private readonly sCut: number;

  constructor(
    private readonly n: number,
    private readonly s: number,
  ) {
    this.hX1 = this.hIntegral(1.5) - 1;
    this.hN = this.hIntegral(n + 0.5);
    this.sCut = 2 - this.hIntegralInverse(this.hIntegral(2.5) - this.h(2));
  }

  sample(rng: Prng): number {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const u = this.hN + rng.float() * (this.hX1 - this.hN);
      const x = this.hIntegralInverse(u);
      let k = Math.floor(x + 0.5);
      if (k < 1) k = 1;
      else if (k > this.n) k = this.n;
      if (k - x <= this.sCut || u >= this.hIntegral(k + 0.5) - this.h(k)) return k;
    }
    return 1;
  }

  private h(x: number): number {
    return Math.exp(-this.s * Math.log(x));
  }

  private hIntegral(x: number): number {
    const logX = Math.log(x);
    return helper2((1 - this.s) * logX) * logX;
  }

  private hIntegralInverse(x: number): number {
    let t = x * (1 - this.s);
    if (t < -1) t = -1;
    return Math.exp(helper1(t) * x);
  }
}

/** log(1 + x) / x, stable near 0. */
function helper1(x: number): number {
  return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1 - x * (0.5 - x * (1 / 3 - 0.25 * x));
}

/** (exp(x) − 1) / x, stable near 0. */
function helper2(x: number): number {
  return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1 + x * 0.5 * (1 + x * (1 / 3) * (1 + 0.25 * x));
}
