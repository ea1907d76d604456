/**
 * Walker alias tables for O(1) sampling of data pages by Zipf popularity (the simulator's data-page
 * draws). A draw from one alias table reads one slot chosen uniformly, a cache miss when the table is
 * larger than the cache. So the pages are split: the hot head (the HEAD_SLOTS most popular pages, 64 kB,
 * which stays in cache) has a table of its own, and the tail another; a draw u below the head's mass
 * reads the head table (u rescaled), else the tail's. At skew 0.99 over 100,000 pages 85% of the draws
 * read the head; the draws are the same distribution as one table's.
 *
 * A slot is one 32-bit word: the alias (its offset in the table, in as few bits as the table's size
 * needs) above the probability floored to the bits left (q = ⌊prob × 2^b⌋, b = 15 for a tail of 83,616
 * pages). The word decides unless the draw's fraction lies in [q, q + 1) / 2^b; there (one draw in 2^b)
 * the float64 `prob` does, so every draw is the float64 table's, and the table is half the bytes of a
 * float32 and an alias side by side (fewer cache misses: the tail table is 330 kB at 100,000 pages).
 */
/** Pages in the head table (the most popular ones); a distribution of at most twice this has one table. */
export const HEAD_SLOTS = 16384;

/** One Walker table over pages [first, first + size): slot j keeps j with probability prob[j], else alias[j]. */
class Walker {
  readonly size: number;
  readonly prob: Float64Array;
  /** Absolute page numbers. */
  readonly alias: Int32Array;
  /** Slot j: (alias[j] − first) × 2^probBits + ⌊prob[j] × 2^probBits⌋ (module comment). */
  readonly words: Int32Array;
  /** The bits of a word that hold the probability, and 2^probBits. */
  readonly probBits: number;
  readonly probScale: number;

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
    this.probBits = Math.min(30, 32 - Math.ceil(Math.log2(size)));
    this.probScale = 2 ** this.probBits;
    this.words = new Int32Array(size);
    for (let i = 0; i < size; i++) {
      const q = Math.min(Math.floor(prob[i]! * this.probScale), this.probScale - 1);
      this.words[i] = ((alias[i]! - first) * this.probScale + q) | 0;
    }
  }

  /** Add each page's probability under this table, × `share`, to out. */
  addProbabilities(out: Float64Array, first: number, share: number): void {
    for (let j = 0; j < this.size; j++) {
      out[first + j]! += (share * this.prob[j]!) / this.size;
      out[this.alias[j]!]! += (share * (1 - this.prob[j]!)) / this.size;
    }
  }

  /** The word of the slot a draw x reads (a read ahead of the draw). */
  slotWord(x: number): number {
    let j = x | 0;
    if (j >= this.size) j = this.size - 1;
    return this.words[j]!;
  }

  /** A draw from x uniform in [0, size): slot ⌊x⌋, its fraction against the slot's probability. */
  pick(x: number, first: number): number {
    let j = x | 0;
    if (j >= this.size) j = this.size - 1;
    const d = x - j;
    const w = this.words[j]!;
    const bits = this.probBits;
    // q / 2^b ≤ prob < (q + 1) / 2^b (prob < 1; prob = 1 has q = 2^b − 1 and never takes the alias), and
    // d × 2^b is exact: outside [q, q + 1) the word gives the float64's answer
    const q = w & (this.probScale - 1);
    const ds = d * this.probScale;
    if (ds < q) return j + first;
    if (ds >= q + 1) return (w >>> bits) + first;
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

  /** sample(u) decided by the float64 probabilities alone (what the words must agree with; tests). */
  sampleExact(u: number): number {
    const inHead = u < this.headMass;
    const table = inHead ? this.head : this.tail!;
    const x = inHead ? u * this.headScale : (u - this.headMass) * this.tailScale;
    let j = x | 0;
    if (j >= table.size) j = table.size - 1;
    return x - j < table.prob[j]! ? j + (inHead ? 0 : this.head.size) : table.alias[j]!;
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
        sum += tail.slotWord((v - headMass) * tailScale);
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
