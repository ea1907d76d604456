/**
 * Walker alias table for O(1) sampling of data pages by Zipf popularity (the simulator's data-page draws).
 * A draw reads one slot at random, a cache miss in the simulation's working set, so it reads an 8-byte
 * slot: the probability rounded to float32 beside the alias (800 kB for 100,000 pages, where the float64
 * and int32 arrays are 1.2 MB and two lines). The float32 decides unless the draw lies within
 * PROB_ROUNDING of it; there the float64 `prob` does, so every draw is the float64 table's.
 */
/** More than the float32 rounding of a probability in [0, 1] (at most 2^-25). */
const PROB_ROUNDING = 1e-7;

export class AliasTable {
  readonly prob: Float64Array;
  readonly alias: Int32Array;
  readonly size: number;
  /** Slot j: the float32 probability at 2j of `probs32`, the alias at 2j + 1 of `aliases32` (one buffer). */
  private readonly probs32: Float32Array;
  private readonly aliases32: Int32Array;
  constructor(weights: Float64Array) {
    const n = weights.length;
    this.size = n;
    this.prob = new Float64Array(n);
    this.alias = new Int32Array(n);
    const scaled = new Float64Array(n);
    const small = new Int32Array(n);
    const large = new Int32Array(n);
    let ns = 0;
    let nl = 0;
    for (let i = 0; i < n; i++) {
      scaled[i] = weights[i]! * n;
      if (scaled[i]! < 1) small[ns++] = i;
      else large[nl++] = i;
    }
    while (ns > 0 && nl > 0) {
      const s = small[--ns]!;
      const l = large[nl - 1]!;
      this.prob[s] = scaled[s]!;
      this.alias[s] = l;
      scaled[l] = scaled[l]! + scaled[s]! - 1;
      if (scaled[l]! < 1) {
        nl--;
        small[ns++] = l;
      }
    }
    while (nl > 0) {
      const l = large[--nl]!;
      this.prob[l] = 1;
      this.alias[l] = l;
    }
    while (ns > 0) {
      const s = small[--ns]!;
      this.prob[s] = 1;
      this.alias[s] = s;
    }
    const buffer = new ArrayBuffer(8 * n);
    this.probs32 = new Float32Array(buffer);
    this.aliases32 = new Int32Array(buffer);
    for (let i = 0; i < n; i++) {
      this.probs32[2 * i] = this.prob[i]!;
      this.aliases32[2 * i + 1] = this.alias[i]!;
    }
  }

  /** A draw from a uniform u in [0, 1). */
  sample(u: number): number {
    const x = u * this.size;
    const j = x | 0;
    const d = x - j;
    const p = this.probs32[2 * j]!;
    // |prob − its float32| ≤ 2^-25 for prob ≤ 1: outside PROB_ROUNDING the float32 gives the float64's answer
    if (d < p - PROB_ROUNDING) return j;
    if (d > p + PROB_ROUNDING) return this.aliases32[2 * j + 1]!;
    return d < this.prob[j]! ? j : this.alias[j]!;
  }
}
