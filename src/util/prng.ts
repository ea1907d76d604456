/**
 * The one PRNG of rowsim: xoshiro128** (Blackman & Vigna), 32-bit state words, seeded through
 * splitmix32 so that any integer seed gives a well-mixed state. Deterministic, allocation-free on the
 * hot path, no Math.random anywhere in the core.
 *
 * Streams: `Prng.derive(seed, ...keys)` gives an independent generator for a (seed, key path), e.g.
 * one stream per workload phase or per replicate, so results never depend on evaluation order.
 */
export class Prng {
  // The four 32-bit state words of xoshiro128**, named s0..s3 as in the reference implementation.
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;
  private spareNormal = 0;
  private hasSpare = false;

  constructor(seed: number) {
    // splitmix32: four steps of the golden-ratio increment, each mixed (no closure: one Prng a value is made).
    const x = seed >>> 0;
    this.s0 = splitmix32((x + 0x9e3779b9) | 0);
    this.s1 = splitmix32((x + 2 * 0x9e3779b9) | 0);
    this.s2 = splitmix32((x + 3 * 0x9e3779b9) | 0);
    this.s3 = splitmix32((x + 4 * 0x9e3779b9) | 0);
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** A generator for the stream named by `keys` under `seed`; same arguments, same stream. */
  static derive(seed: number, ...keys: (string | number)[]): Prng {
    return new Prng(mixKeys(seed, keys));
  }

  /** Next 32-bit unsigned integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /**
   * out[i] = lo + a uniform whole number in [0, span) for i < count (0 < span ≤ 2^32), unbiased: Lemire's
   * multiply-shift with rejection ("Fast random integer generation in an interval", ACM TOMACS 2019).
   * The state stays in locals for the loop: the batch costs a few nanoseconds a draw.
   */
  fillInt(out: Int32Array, count: number, lo: number, span: number): void {
    const threshold = 0x100000000 % span;
    let s0 = this.s0;
    let s1 = this.s1;
    let s2 = this.s2;
    let s3 = this.s3;
    for (let i = 0; i < count;) {
      const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      const m = r * span;
      const high = Math.floor(m * 2.3283064365386963e-10);
      if (m - high * 0x100000000 < threshold) continue;
      out[i++] = lo + high;
    }
    this.s0 = s0;
    this.s1 = s1;
    this.s2 = s2;
    this.s3 = s3;
  }

  /**
   * out[i] = float32() for i < count: the same numbers as count calls, the state kept in locals for the
   * loop (the contention simulation's page stream takes its uniforms 256 at a time).
   */
  fillFloat32(out: Float64Array, count: number): void {
    let s0 = this.s0;
    let s1 = this.s1;
    let s2 = this.s2;
    let s3 = this.s3;
    for (let i = 0; i < count; i++) {
      const x = Math.imul(s1, 5);
      const r = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      out[i] = r * 2.3283064365386963e-10;
    }
    this.s0 = s0;
    this.s1 = s1;
    this.s2 = s2;
    this.s3 = s3;
  }

  /** Uniform double in [0, 1) with 53 random bits. */
  float(): number {
    const hi = this.nextU32() >>> 5; // 27 bits
    const lo = this.nextU32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform double in (0, 1]: safe for logarithms. */
  floatOpen(): number {
    return 1 - this.float();
  }

  /** Uniform integer in [0, n) for 0 < n ≤ 2^32, without modulo bias. */
  int(n: number): number {
    if (n <= 1) return 0;
    if (n <= 0x100000000 && (n & (n - 1)) === 0 && n <= 0x80000000) return this.nextU32() & (n - 1);
    const limit = Math.floor(0x100000000 / n) * n;
    for (;;) {
      const r = this.nextU32();
      if (r < limit) return r % n;
    }
  }

  /**
   * out[i] = int(n) for i < count and n ≤ 2^31 (out holds int32): the same numbers as count calls of int(n) (the
   * same rejections), the state kept in locals for the loop (pg-check draws a string's ASCII characters so).
   */
  fillBelow(out: Int32Array, count: number, n: number): void {
    if (n <= 1 || (n & (n - 1)) === 0) {
      for (let i = 0; i < count; i++) out[i] = this.int(n);
      return;
    }
    const limit = Math.floor(0x100000000 / n) * n;
    let s0 = this.s0;
    let s1 = this.s1;
    let s2 = this.s2;
    let s3 = this.s3;
    for (let i = 0; i < count;) {
      const x = Math.imul(s1, 5);
      const r = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      if (r < limit) out[i++] = r % n;
    }
    this.s0 = s0;
    this.s1 = s1;
    this.s2 = s2;
    this.s3 = s3;
  }

  /** Uniform integer in [min, max], inclusive. */
  intBetween(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** Exponential variate with the given mean. */
  exp(mean: number): number {
    return -mean * Math.log(this.floatOpen());
  }

  /**
   * Exponential variate from one 32-bit draw (u = (k + 0.5)/2^32, never 0 or 1): half the cost of
   * exp(), resolution 2^-32, largest value 22.2 means. The contention simulation uses it.
   */
  exp32(mean: number): number {
    return -mean * Math.log((this.nextU32() + 0.5) * 2.3283064365386963e-10);
  }

  /**
   * An index in [0, n) for n ≤ 2^32 from one 32-bit draw by multiply-and-floor (no division): the bias
   * is below n / 2^32 (1.2e-6 for n = 5000). The contention simulation uses it.
   */
  index(n: number): number {
    return Math.floor(this.nextU32() * 2.3283064365386963e-10 * n);
  }

  /** Uniform double in [0, 1) from one 32-bit draw (resolution 2^-32). */
  float32(): number {
    return this.nextU32() * 2.3283064365386963e-10;
  }

  /** Standard normal variate (Marsaglia polar method). */
  normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spareNormal;
    }
    for (;;) {
      const u = 2 * this.float() - 1;
      const v = 2 * this.float() - 1;
      const s = u * u + v * v;
      if (s > 0 && s < 1) {
        const m = Math.sqrt((-2 * Math.log(s)) / s);
        this.spareNormal = v * m;
        this.hasSpare = true;
        return u * m;
      }
    }
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** splitmix32's mix of one state step. */
function splitmix32(x: number): number {
  let z = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

const FNV_PRIME = 0x01000193;
/** Decimal digits of a whole number, least significant first (scratch for mixKeys). */
const DIGITS = new Int32Array(16);

/**
 * FNV-1a over the seed and keys, then murmur finalisation: a 32-bit stream seed. Each key is hashed as
 * its text, `#` and the number in decimal or `$` and the string, then a 0xff byte; a whole number's
 * digits are hashed as they come, without making the text (one Prng a value is derived).
 */
export function mixKeys(seed: number, keys: readonly (string | number)[]): number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  h = Math.imul(h, FNV_PRIME);
  const hi = Math.floor(seed / 0x100000000);
  h = Math.imul(h ^ (hi >>> 0), FNV_PRIME);
  for (const key of keys) {
    if (typeof key === 'number' && Number.isSafeInteger(key)) h = hashWhole(h, key);
    else {
      const text = typeof key === 'number' ? `#${key}` : key;
      if (typeof key !== 'number') h = Math.imul(h ^ 0x24, FNV_PRIME); // '$'
      for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
    }
    h = Math.imul(h ^ 0xff, FNV_PRIME);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a of `#${n}` for a safe integer n (String(-0) is "0"). */
function hashWhole(h: number, n: number): number {
  h = Math.imul(h ^ 0x23, FNV_PRIME); // '#'
  if (n < 0) h = Math.imul(h ^ 0x2d, FNV_PRIME); // '-'
  let m = Math.abs(n);
  let d = 0;
  do {
    const q = Math.floor(m / 10);
    DIGITS[d++] = m - q * 10;
    m = q;
  } while (m > 0);
  while (d > 0) h = Math.imul(h ^ (0x30 + DIGITS[--d]!), FNV_PRIME);
  return h;
}
