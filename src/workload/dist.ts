/**
 * Length distributions and the Zipf sampler. A length source draws one value (`one`) or fills a batch
 * (`fill`, one loop per distribution kind: the workload runner draws a column's values for many rows at
 * a time); both give the same draws. No allocation per sample.
 */
import type { Dist, ShareDist } from '../config/spec.js';
import type { Prng } from '../util/prng.js';

export type Sampler = (rng: Prng) => number;

const TWO_TO_MINUS_32 = 2.3283064365386963e-10;

/**
 * The longest length a source draws, 2^31 − 1 (row-values.ts LOB_MAX_BYTES): the loader refuses longer
 * lengths written; this keeps a normal's or lognormal's tail in an Int32Array and a uniform's span under
 * 2^32 (Lemire's method needs it).
 */
const MAX_DRAWN = 0x7fffffff;
const whole = (v: number): number => Math.min(MAX_DRAWN, Math.max(0, Math.round(v)));

/** A sampler of whole lengths ≥ 0 for a length distribution: one draw at a time of lengthSource(d). */
export function lengthSampler(d: Dist): Sampler {
  const src = lengthSource(d);
  return (rng) => src.one(rng);
}

/**
 * A length distribution that fills a batch: `fill(rng, out, count)` writes `count` draws into out[0 …],
 * one loop per distribution kind, so a phase generates a column's values for many rows at a time
 * without a call per value. The draws are the same, one by one, as `one()` would give.
 */
export abstract class LengthSource {
  abstract one(rng: Prng): number;
  abstract fill(rng: Prng, out: Int32Array, count: number): void;
}

class ConstSource extends LengthSource {
  constructor(private readonly v: number) {
    super();
  }
  one(): number {
    return this.v;
  }
  fill(_rng: Prng, out: Int32Array, count: number): void {
    out.fill(this.v, 0, count);
  }
}

/**
 * Uniform whole numbers in [lo, hi] by Lemire's multiply-shift ("Fast random integer generation in an
 * interval", ACM TOMACS 2019): a 32-bit draw times the span, the high word is the value; draws whose low
 * word falls under 2^32 mod span are rejected, so there is no bias and no division per draw.
 */
class UniformSource extends LengthSource {
  private readonly span: number;
  private readonly threshold: number;
  constructor(
    private readonly lo: number,
    hi: number,
  ) {
    super();
    this.span = hi - lo + 1;
    this.threshold = 0x100000000 % this.span;
  }
  one(rng: Prng): number {
    const span = this.span;
    for (;;) {
      const m = rng.nextU32() * span;
      const high = Math.floor(m * TWO_TO_MINUS_32);
      if (m - high * 0x100000000 >= this.threshold) return this.lo + high;
    }
  }
  fill(rng: Prng, out: Int32Array, count: number): void {
    rng.fillInt(out, count, this.lo, this.span);
  }
}

class NormalSource extends LengthSource {
  constructor(
    private readonly mean: number,
    private readonly sd: number,
  ) {
    super();
  }
  one(rng: Prng): number {
    return whole(this.mean + this.sd * rng.normal());
  }
  fill(rng: Prng, out: Int32Array, count: number): void {
    const { mean, sd } = this;
    for (let i = 0; i < count; i++) out[i] = whole(mean + sd * rng.normal());
  }
}

class LognormalSource extends LengthSource {
  constructor(
    private readonly median: number,
    private readonly sigma: number,
  ) {
    super();
  }
  one(rng: Prng): number {
    return whole(this.median * Math.exp(this.sigma * rng.normal()));
  }
  fill(rng: Prng, out: Int32Array, count: number): void {
    const { median, sigma } = this;
    for (let i = 0; i < count; i++) out[i] = whole(median * Math.exp(sigma * rng.normal()));
  }
}

class ChoiceSource extends LengthSource {
  private readonly cum: Float64Array;
  private readonly values: Int32Array;
  constructor(d: Extract<Dist, { kind: 'choice' }>) {
    super();
    const total = d.weights.reduce((s, w) => s + w, 0);
    this.cum = new Float64Array(d.weights.length);
    let acc = 0;
    d.weights.forEach((w, i) => {
      acc += w / total;
      this.cum[i] = acc;
    });
    this.cum[this.cum.length - 1] = 1;
    this.values = Int32Array.from(d.values, whole);
  }
  one(rng: Prng): number {
    const cum = this.cum;
    const u = rng.float();
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (u < cum[mid]!) hi = mid;
      else lo = mid + 1;
    }
    return this.values[lo]!;
  }
  fill(rng: Prng, out: Int32Array, count: number): void {
    for (let i = 0; i < count; i++) out[i] = this.one(rng);
  }
}

/**
 * Lengths in a given order: the i-th draw is values[i mod n] (−1: NULL, which the caller keeps). The
 * source is a phase's column's own, so its draws are the phase's values in order.
 */
class SequenceSource extends LengthSource {
  private readonly values: Int32Array;
  private at = 0;
  constructor(values: readonly number[]) {
    super();
    this.values = Int32Array.from(values, (v) => (v < 0 ? -1 : whole(v)));
  }
  one(): number {
    const v = this.values[this.at]!;
    this.at = this.at + 1 === this.values.length ? 0 : this.at + 1;
    return v;
  }
  fill(_rng: Prng, out: Int32Array, count: number): void {
    for (let i = 0; i < count; i++) out[i] = this.one();
  }
}

/** The batch source of whole lengths ≥ 0 for a length distribution (a sequence's NULLs are −1). */
export function lengthSource(d: Dist): LengthSource {
  switch (d.kind) {
    case 'const':
      return new ConstSource(whole(d.value));
    case 'uniform': {
      const lo = Math.min(MAX_DRAWN, Math.max(0, Math.ceil(Math.min(d.min, d.max))));
      const hi = Math.min(MAX_DRAWN, Math.max(lo, Math.floor(Math.max(d.min, d.max))));
      return new UniformSource(lo, hi);
    }
    case 'normal':
      return new NormalSource(d.mean, d.sd);
    case 'lognormal':
      return new LognormalSource(d.median, d.sigma);
    case 'choice':
      return new ChoiceSource(d);
    case 'sequence':
      return new SequenceSource(d.values);
  }
}

/** The longest value a distribution can draw before clipping (Infinity for the unbounded ones). */
export function distMax(d: Dist): number {
  switch (d.kind) {
    case 'const':
      return d.value;
    case 'uniform':
      return Math.max(d.min, d.max);
    case 'choice':
    case 'sequence':
      return d.values.reduce((m, v) => Math.max(m, v), 0);
    case 'normal':
    case 'lognormal':
      return Infinity;
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
    case 'sequence': {
      const lengths = d.values.filter((v) => v >= 0);
      return lengths.length ? lengths.reduce((s, v) => s + v, 0) / lengths.length : 0;
    }
  }
}

/** A share drawn from a share distribution, clipped to 0 … 1. */
function drawShare(d: ShareDist, rng: Prng): number {
  let v: number;
  if (d.kind === 'uniform') v = d.min + (d.max - d.min) * rng.float();
  else if (d.kind === 'normal') v = d.mean + d.sd * rng.normal();
  else {
    const total = d.weights.reduce((s, w) => s + w, 0);
    let u = rng.float() * total;
    let i = 0;
    while (i < d.values.length - 1 && u >= d.weights[i]!) u -= d.weights[i++]!;
    v = d.values[i]!;
  }
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

/**
 * Bytes per character of one utf8 value whose shares of 2-, 3- and 4-byte characters are drawn for it:
 * each width's from its distribution (or its fixed share), scaled down together when they pass 1.
 */
export class MultibyteShares {
  constructor(
    private readonly fixed: readonly [number, number, number],
    private readonly dists: readonly [ShareDist | null, ShareDist | null, ShareDist | null],
  ) {}
  bytesPerChar(rng: Prng): number {
    const d = this.dists;
    const s2 = d[0] ? drawShare(d[0], rng) : this.fixed[0];
    const s3 = d[1] ? drawShare(d[1], rng) : this.fixed[1];
    const s4 = d[2] ? drawShare(d[2], rng) : this.fixed[2];
    const sum = s2 + s3 + s4;
    const k = sum > 1 ? 1 / sum : 1;
    return 1 + k * (s2 + 2 * s3 + 3 * s4);
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
