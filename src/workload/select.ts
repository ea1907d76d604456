/**
 * Which rows a phase touches: a count of live rows in sequential, random, spread or zipf order, handed
 * out a batch at a time. No list of row ids is built: rows are chosen from the id space 0 … ids − 1
 * (every row ever inserted) and rows no longer live are passed over.
 *
 * - sequential: the first `count` live rows in id order (the oldest);
 * - newest: the last `count` live rows, in id order;
 * - spread: `count` live rows evenly spaced over the live rows in id order (the i-th of k is the
 *   ⌊i·n/k⌋-th live row);
 * - random: distinct rows in the order of a pseudo-random permutation of the id space (permutation.ts);
 * - zipf(s): `count` draws with replacement, rank 1 the most popular, ranks scattered over the id space
 *   by a fixed bijection so hot rows are not all on the first pages; a rank that falls on a row no longer
 *   live takes the next live row.
 */
import type { Order } from '../config/spec.js';
import type { Prng } from '../util/prng.js';
import { ZipfSampler } from './dist.js';
import { Permutation } from './permutation.js';

/** Whether a row id is a live row (the page engine knows). */
export interface LiveRows {
  isLive(row: number): boolean;
}

export class RowPicker {
  private readonly kind: Order['kind'];
  /** Rows still to hand out. */
  private left: number;
  /** Next position: an id (sequential, spread), a permutation position (random). */
  private pos = 0;
  /** spread: live rows passed so far, and the index of the next row to hand out. */
  private rank = 0;
  private i = 0;
  private readonly k: number;
  private readonly allLive: boolean;
  private readonly perm: Permutation | null = null;
  private readonly zipf: ZipfSampler | null = null;
  private readonly a: number = 1;
  private readonly b: number = 0;

  /**
   * `count` rows of the `liveCount` live rows among ids 0 … ids − 1, in `order`; `rng` keys the random
   * and zipf orders (nothing else draws from it).
   */
  constructor(
    order: Order,
    count: number,
    private readonly ids: number,
    private readonly liveCount: number,
    private readonly live: LiveRows,
    private readonly rng: Prng,
  ) {
    this.kind = order.kind;
    this.allLive = liveCount === ids;
    const n = liveCount;
    this.k = order.kind === 'zipf' ? Math.max(0, count) : Math.max(0, Math.min(count, n));
    this.left = n > 0 ? this.k : 0;
    if (this.left === 0) return;
    if (order.kind === 'random') this.perm = new Permutation(ids, rng);
    if (order.kind === 'zipf') {
      this.zipf = new ZipfSampler(ids, order.s);
      this.a = scatterMultiplier(ids, rng);
      this.b = rng.int(ids);
    }
  }

  /** Rows this picker hands out in all. */
  get total(): number {
    return this.liveCount > 0 ? this.k : 0;
  }

  /** Fill `out` with the next rows; returns how many (0: none left). */
  next(out: Int32Array): number {
    const want = Math.min(out.length, this.left);
    if (want === 0) return 0;
    let got: number;
    switch (this.kind) {
      case 'sequential':
        got = this.sequential(out, want);
        break;
      case 'newest':
        got = this.newest(out, want);
        break;
      case 'spread':
        got = this.spread(out, want);
        break;
      case 'random':
        got = this.random(out, want);
        break;
      case 'zipf':
        got = this.zipfRows(out, want);
        break;
    }
    this.left -= got;
    if (got < want) this.left = 0; // the id space ran out (cannot happen while the live count is right)
    return got;
  }

  private sequential(out: Int32Array, want: number): number {
    let got = 0;
    let id = this.pos;
    const end = this.ids;
    if (this.allLive) {
      while (got < want && id < end) out[got++] = id++;
    } else {
      while (got < want && id < end) {
        if (this.live.isLive(id)) out[got++] = id;
        id++;
      }
    }
    this.pos = id;
    return got;
  }

  /** The last k live rows in id order: ids from where the k-th live row from the end is (found once, walking back). */
  private newest(out: Int32Array, want: number): number {
    if (this.i === 0) {
      this.i = 1;
      if (this.allLive) this.pos = this.ids - this.k;
      else {
        let id = this.ids;
        for (let seen = 0; seen < this.k && id > 0;) if (this.live.isLive(--id)) seen++;
        this.pos = id;
      }
    }
    return this.sequential(out, want);
  }

  private spread(out: Int32Array, want: number): number {
    const n = this.liveCount;
    const k = this.k;
    let got = 0;
    if (this.allLive) {
      while (got < want) {
        out[got++] = Math.floor((this.i * n) / k);
        this.i++;
      }
      return got;
    }
    // The i-th row is the ⌊i·n/k⌋-th live row: walk the ids once, counting live rows.
    let id = this.pos;
    let rank = this.rank;
    while (got < want && id < this.ids) {
      if (this.live.isLive(id)) {
        if (rank === Math.floor((this.i * n) / k)) {
          out[got++] = id;
          this.i++;
        }
        rank++;
      }
      id++;
    }
    this.pos = id;
    this.rank = rank;
    return got;
  }

  private random(out: Int32Array, want: number): number {
    const perm = this.perm!;
    let got = 0;
    let p = this.pos;
    const end = this.ids;
    if (this.allLive) {
      got = Math.min(want, end - p);
      perm.fill(out, p, got);
      p += got;
    } else {
      while (got < want && p < end) {
        const id = perm.at(p++);
        if (this.live.isLive(id)) out[got++] = id;
      }
    }
    this.pos = p;
    return got;
  }

  private zipfRows(out: Int32Array, want: number): number {
    const z = this.zipf!;
    const n = this.ids;
    for (let got = 0; got < want; got++) {
      const rank = z.sample(this.rng) - 1;
      let id = (rank * this.a + this.b) % n;
      if (!this.allLive) {
        for (let step = 0; step < n && !this.live.isLive(id); step++) id = id + 1 === n ? 0 : id + 1;
      }
      out[got] = id;
    }
    return want;
  }
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** A multiplier coprime to n (so i → (i·a + b) mod n is a permutation), small enough for exact math. */
function scatterMultiplier(n: number, rng: Prng): number {
  if (n <= 2) return 1;
  const limit = Math.min(n - 1, Math.floor(Number.MAX_SAFE_INTEGER / n));
  for (let attempt = 0; attempt < 64; attempt++) {
    const a = 1 + rng.int(limit);
    if (gcd(a, n) === 1) return a;
  }
  return 1;
}
