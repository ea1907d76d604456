/** The Zipf page draws (alias-table.ts): a head table and a tail table that together give the Zipf law. */
import { describe, expect, it } from 'vitest';
import { AliasTable, HEAD_SLOTS } from '../src/contention/alias-table.js';
import { zipfWeights } from '../src/contention/model.js';
import { DRAW_BATCH, PageDraws } from '../src/contention/page-draws.js';
import { Prng } from '../src/util/prng.js';

describe('the alias tables draw pages by their Zipf weights', () => {
  it.each([
    [100_000, 0.99],
    [100_000, 0.8],
    [1000, 1.1],
  ])('%i pages, skew %f: every page has its weight (the tables exactly), and draws follow it', (pages, skew) => {
    const weights = zipfWeights(pages, skew);
    const table = new AliasTable(weights);
    expect(table.headMass < 1).toBe(pages > 2 * HEAD_SLOTS);
    const p = table.probabilities();
    let worst = 0;
    for (let i = 0; i < pages; i++) worst = Math.max(worst, Math.abs(p[i]! - weights[i]!) / weights[i]!);
    expect(worst).toBeLessThan(1e-9);
    // 2M draws: the head's share, and the counts of pages 0, 1, 9 and of the tail's first page, within 5 σ
    const rng = new Prng(11);
    const n = 2_000_000;
    const watch = [0, 1, 9, Math.min(HEAD_SLOTS, pages - 1)];
    const counts = watch.map(() => 0);
    let head = 0;
    let outside = 0;
    for (let k = 0; k < n; k++) {
      const page = table.sample(rng.float32());
      if (!(page >= 0 && page < pages)) outside++;
      if (page < HEAD_SLOTS) head++;
      const w = watch.indexOf(page);
      if (w >= 0) counts[w]!++;
    }
    expect(outside).toBe(0);
    let headWeight = 0;
    for (let i = 0; i < Math.min(HEAD_SLOTS, pages); i++) headWeight += weights[i]!;
    const within = (count: number, q: number) => Math.abs(count - n * q) <= 5 * Math.sqrt(n * q * (1 - q)) + 1;
    expect(within(head, headWeight)).toBe(true);
    watch.forEach((page, w) => expect(within(counts[w]!, weights[page]!), `page ${page}`).toBe(true));
  });
});

describe('a slot packed in one word (alias offset, floored probability) draws what the float64 table draws', () => {
  it.each([
    [100_000, 0.8],
    [100_000, 1.1],
    [5000, 0.99],
  ])('%i pages, skew %f: random draws and a fine grid of uniforms', (pages, skew) => {
    const table = new AliasTable(zipfWeights(pages, skew));
    const rng = new Prng(13);
    let differ = 0;
    for (let k = 0; k < 1_000_000; k++) {
      const u = rng.float32();
      if (table.sample(u) !== table.sampleExact(u)) differ++;
    }
    // 2^22 evenly spaced uniforms: every slot's fraction swept finely, the floored-probability bins included
    const grid = 1 << 22;
    for (let k = 0; k < grid; k++) {
      const u = k / grid;
      if (table.sample(u) !== table.sampleExact(u)) differ++;
    }
    expect(differ).toBe(0);
  });
});

describe('the page stream drawn a batch ahead (page-draws.ts) is the Prng taken draw by draw', () => {
  it.each([
    [100_000, 0.8, false],
    [1000, 1.1, true],
  ])('%i pages, skew %f (lines read ahead: %s): data and index draws, mixed, over several batches', (pages, skew, ahead) => {
    const table = new AliasTable(zipfWeights(pages, skew));
    const one = new Prng(7);
    const draws = new PageDraws(new Prng(7), table, ahead ? new Float64Array(pages) : null);
    const order = new Prng(3);
    let differ = 0;
    for (let k = 0; k < 5 * DRAW_BATCH + 17; k++) {
      // a look-up takes a data page or an index page, in whatever order the events come
      if (order.float32() < 0.3) {
        if (draws.index(4096) !== one.index(4096)) differ++;
      } else if (draws.dataPage() !== table.sample(one.float32())) differ++;
    }
    expect(differ).toBe(0);
  });

  it('a batch sampled at once is the draws sampled one by one', () => {
    const table = new AliasTable(zipfWeights(100_000, 0.99));
    const rng = new Prng(5);
    const u = new Float64Array(1000).map(() => rng.float32());
    const out = new Int32Array(1000);
    table.sampleBatch(u, out, 1000);
    expect(Array.from(out)).toEqual(Array.from(u, (x) => table.sample(x)));
  });
});
