/** Walker alias table for O(1) sampling of data pages by Zipf popularity (the simulator's data-page draws). */
export class AliasTable {
  readonly prob: Float64Array;
  readonly alias: Int32Array;
  readonly size: number;
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
  }

  /** A draw from a uniform u in [0, 1). */
  sample(u: number): number {
    const x = u * this.size;
    const j = x | 0;
    return x - j < this.prob[j]! ? j : this.alias[j]!;
  }
}
