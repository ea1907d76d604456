/**
 * The random draws of a RowsTable's history, kept for the next table of the same replicate. An estimate
 * simulates the same replicate's rows hundreds of times: every candidate setting, every insert share and
 * spread of the fit, the partitions, the spread check. The rows' lengths (or the pairs they are resampled
 * from) and the order the update grows them in depend on the replicate's seed and the source alone, not
 * on the setting, so they are drawn once per thread and read after: a quarter of a replicate's time went
 * on drawing them again. The arrays come from the very code that drew them before, so every figure is
 * the same, and a miss only costs the draw.
 */
import type { Dist } from '../config/spec.js';
import { Prng } from '../util/prng.js';
import { lengthSampler } from '../workload/dist.js';

/**
 * Draws kept at most, in array elements over all entries (4 bytes each): 16 MB, some 70–100 replicates'
 * tables of 20,000 rows (2–3 arrays each).
 */
const BUDGET = 4 << 20;

/** A cache of Int32Arrays by key, the oldest dropped first when the budget is spent. */
class ArrayCache {
  private readonly entries = new Map<string, Int32Array[]>();
  private used = 0;

  get(key: string, make: () => Int32Array[]): Int32Array[] {
    const hit = this.entries.get(key);
    if (hit) return hit;
    const made = make();
    const size = made.reduce((s, a) => s + a.length, 0);
    if (size > BUDGET) return made;
    for (const [k, v] of this.entries) {
      if (this.used + size <= BUDGET) break;
      this.entries.delete(k);
      this.used -= v.reduce((s, a) => s + a.length, 0);
    }
    this.entries.set(key, made);
    this.used += size;
    return made;
  }
}

const cache = new ArrayCache();

/** Row ids 0 … rows − 1 shuffled by the stream `shuffle` (Fisher–Yates from the top, as RowsTable.grow does). */
export function shuffled(first: number, end: number, shuffle: Prng): Int32Array {
  const order = new Int32Array(end - first);
  for (let i = 0; i < order.length; i++) order[i] = first + i;
  for (let i = order.length - 1; i > 0; i--) {
    const j = shuffle.int(i + 1);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  return order;
}

/** The order a table of `rows` rows under replicate seed `seed` grows them in (its 'update-order' stream). Read only. */
export function growOrder(seed: number, rows: number): Int32Array {
  return cache.get(`order ${seed} ${rows}`, () => [shuffled(0, rows, Prng.derive(seed, 'update-order'))])[0]!;
}

/** What a table's rows are drawn from: resampled pairs (by their count), two independent lengths, or lengths now only. */
export type DrawSource = { pairs: number } | { insert: Dist; now: Dist } | { now: Dist };

/**
 * The draws of `rows` rows from the stream `rows` under seed `seed`, as RowsTable.insertRow takes them one
 * by one: for pairs the index of each row's pair, for two lengths both (insert, now), for lengths now only
 * those. Read only.
 */
export function rowDraws(seed: number, rows: number, src: DrawSource): Int32Array[] {
  return cache.get(`rows ${seed} ${rows} ${JSON.stringify(src)}`, () => {
    const pick = Prng.derive(seed, 'rows');
    if ('pairs' in src) {
      const k = new Int32Array(rows);
      for (let row = 0; row < rows; row++) k[row] = pick.int(src.pairs);
      return [k];
    }
    const now = new Int32Array(rows);
    const sampleNow = lengthSampler(src.now);
    if (!('insert' in src)) {
      for (let row = 0; row < rows; row++) now[row] = sampleNow(pick);
      return [now];
    }
    const ins = new Int32Array(rows);
    const sampleIns = lengthSampler(src.insert);
    for (let row = 0; row < rows; row++) {
      ins[row] = sampleIns(pick);
      now[row] = sampleNow(pick);
    }
    return [ins, now];
  });
}
