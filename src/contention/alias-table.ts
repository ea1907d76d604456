/**
 * Walker alias tables for O(1) sampling of data pages by Zipf popularity (the simulator's data-page
 * draws). A draw from one alias table reads one slot chosen uniformly, a cache miss when the table is
 * larger than the cache. So the pages are split: the hot head (the HEAD_SLOTS most popular pages, 128 kB,
 * which stays in cache) has a table of its own, and the tail another; a draw u below the head's mass
 * reads the head table (u rescaled), else the tail's. At skew 0.99 over 100,000 pages 85% of the draws
 * read the head; the draws are the same distribution as one table's.
 *
 * A slot is 8 bytes: the probability rounded to float32 beside the alias. The float32 decides unless the
 * draw lies within PROB_ROUNDING of it; there the float64 `prob` does, so every draw is the float64
 * table's.
 */
/** More than the float32 rounding of a probability in [0, 1] (at most 2^-25). */
const PROB_ROUNDING = 1e-7;
/** Pages in the head table (the most popular ones); a distribution of at most twice this has one table. */
export const HEAD_SLOTS = 16384;

/** One Walker table over pages [first, first + size): slot j keeps j with probability prob[j], else alias[j]. */
class Walker {
  readonly size: number;
  readonly prob: Float64Array;
  /** Absolute page numbers. */
  readonly alias: Int32Array;
  /** Slot j: the float32 probability at 2j of `probs32`, the alias at 2j + 1 of `aliases32` (one buffer). */
  readonly probs32: Float32Array;
  readonly aliases32: Int32Array;

  constructor(weights: Float64Array, first: number, size: number, mass: number) {
    this.size = size;
    const prob = new Float64Array(size);
    const alias = new Int32Array(size);
    const scaled = new Float64Array(size);
    const small = new Int32Array(size);
    const large = new Int32Array(size);
    let ns = 0;
    let nl = 0;
    for (let i = 0; i < size; i++) {
      scaled[i] = (weights[first + i]! / mass) * size;
      if (scaled[i]! < 1) small[ns++] = i;
      else large[nl++] = i;
    }
    while (ns > 0 && nl > 0) {
      const s = small[--ns]!;
      const l = large[nl - 1]!;
      prob[s] = scaled[s]!;
      alias[s] = l;
      scaled[l] = scaled[l]! + scaled[s]! - 1;
      if (scaled[l]! < 1) {
        nl--;
        small[ns++] = l;
      }
    }
    while (nl > 0) {
      const l = large[--nl]!;
      prob[l] = 1;
      alias[l] = l;
    }
    while (ns > 0) {
      const s = small[--ns]!;
      prob[s] = 1;
      alias[s] = s;
    }
    for (let i = 0; i < size; i++) alias[i] = alias[i]! + first;
    this.prob = prob;
    this.alias = alias;
    const buffer = new ArrayBuffer(8 * size);
    this.probs32 = new Float32Array(buffer);
    this.aliases32 = new Int32Array(buffer);
    for (let i = 0; i < size; i++) {
      this.probs32[2 * i] = prob[i]!;
      this.aliases32[2 * i + 1] = alias[i]!;
    }
  }

  /** Add each page's probability under this table, × `share`, to out. */
  addProbabilities(out: Float64Array, first: number, share: number): void {
    for (let j = 0; j < this.size; j++) {
      out[first + j]! += (share * this.prob[j]!) / this.size;
      out[this.alias[j]!]! += (share * (1 - this.prob[j]!)) / this.size;
    }
  }

  /** The float32 probability of the slot a draw x reads (a read ahead of the draw). */
  slotProbability(x: number): number {
    let j = x | 0;
    if (j >= this.size) j = this.size - 1;
    return this.probs32[2 * j]!;
  }

  /** A draw from x uniform in [0, size): slot ⌊x⌋, its fraction against the slot's probability. */
  pick(x: number, first: number): number {
    let j = x | 0;
    if (j >= this.size) j = this.size - 1;
    const d = x - j;
    const p = this.probs32[2 * j]!;
    // |prob − its float32| ≤ 2^-25 for prob ≤ 1: outside PROB_ROUNDING the float32 gives the float64's answer
    if (d < p - PROB_ROUNDING) return j + first;
    if (d > p + PROB_ROUNDING) return this.aliases32[2 * j + 1]!;
    return d < this.prob[j]! ? j + first : this.alias[j]!;
  }
}

export class AliasTable {
  readonly size: number;
  /** Probability of a page in the head. */
  readonly headMass: number;
  private readonly head: Walker;
  private readonly tail: Walker | null;
  private readonly headScale: number;
  private readonly tailScale: number;

  constructor(weights: Float64Array) {
    const n = weights.length;
    this.size = n;
    const k = n <= 2 * HEAD_SLOTS ? n : HEAD_SLOTS;
    let headMass = 0;
    let total = 0;
    for (let i = 0; i < n; i++) {
      if (i < k) headMass += weights[i]!;
      total += weights[i]!;
    }
    this.head = new Walker(weights, 0, k, headMass);
    this.headMass = k === n ? 1 : headMass / total;
    this.headScale = k / this.headMass;
    this.tail = k < n ? new Walker(weights, k, n - k, total - headMass) : null;
    this.tailScale = k < n ? (n - k) / (1 - this.headMass) : 0;
  }

  /** Each page's probability of being drawn, from the tables (a check of their construction). */
  probabilities(): Float64Array {
    const out = new Float64Array(this.size);
    this.head.addProbabilities(out, 0, this.headMass);
    this.tail?.addProbabilities(out, this.head.size, 1 - this.headMass);
    return out;
  }

  /** A draw from a uniform u in [0, 1). */
  sample(u: number): number {
    if (u < this.headMass) return this.head.pick(u * this.headScale, 0);
    return this.tail!.pick((u - this.headMass) * this.tailScale, this.head.size);
  }

  /**
   * out[i] = sample(u[i]) for i < n. A first pass draws the head's pages (its table is in cache) and
   * reads the tail's slots, in independent reads whose cache misses overlap; a second pass draws the
   * tail's pages, whose slots it then finds in cache.
   */
  sampleBatch(u: Float64Array, out: Int32Array, n: number): void {
    const head = this.head;
    const tail = this.tail;
    if (!tail) {
      for (let i = 0; i < n; i++) out[i] = head.pick(u[i]! * this.headScale, 0);
      return;
    }
    const headMass = this.headMass;
    const headScale = this.headScale;
    const tailScale = this.tailScale;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const v = u[i]!;
      if (v < headMass) out[i] = head.pick(v * headScale, 0);
      else {
        sum += tail.slotProbability((v - headMass) * tailScale);
        out[i] = -1;
      }
    }
    this.touched = sum;
    const first = head.size;
    for (let i = 0; i < n; i++) if (out[i]! < 0) out[i] = tail.pick((u[i]! - headMass) * tailScale, first);
  }

  /** The sum of the slots sampleBatch read ahead (kept so that the reads are not optimised away). */
  touched = 0;
}
