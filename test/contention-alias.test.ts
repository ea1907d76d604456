/** The Zipf page draws (alias-table.ts): a head table and a tail table that together give the Zipf law. */
import { describe, expect, it } from 'vitest';
import { AliasTable, HEAD_SLOTS } from '../src/contention/alias-table.js';
import { zipfWeights } from '../src/contention/model.js';
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
