/**
 * The pieces the workload runner streams rows through: the permutation that orders a random phase
 * without a list of ids, the row picker of every order (with and without rows deleted), the batch
 * length sources (the same draws one at a time and in a batch, and no bias), and the free-space tree's
 * first-fit search against a plain scan.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Order } from '../src/config/spec.js';
import { FreeTree } from '../src/heap/free-tree.js';
import { Prng } from '../src/util/prng.js';
import { lengthSampler, lengthSource } from '../src/workload/dist.js';
import { Permutation } from '../src/workload/permutation.js';
import { RowPicker } from '../src/workload/select.js';

function allOf(picker: RowPicker, batch = 7): number[] {
  const out: number[] = [];
  const buf = new Int32Array(batch);
  for (let k = picker.next(buf); k > 0; k = picker.next(buf)) out.push(...buf.subarray(0, k));
  return out;
}

const everyRowLive = { isLive: () => true };

describe('Permutation', () => {
  it('is a bijection of 0 … n − 1 (every n up to 70, powers of two and their neighbours above)', () => {
    const sizes = [...Array.from({ length: 70 }, (_, i) => i + 1), 97, 255, 256, 257, 1000, 2047, 2048, 2049, 4097, 65535, 65536, 100_003];
    for (const n of sizes) {
      const p = new Permutation(n, new Prng(n));
      const seen = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        const x = p.at(i);
        expect(x >= 0 && x < n, `n=${n} i=${i} → ${x}`).toBe(true);
        expect(seen[x], `n=${n}: ${x} twice`).toBe(0);
        seen[x] = 1;
      }
    }
  });

  it('is deterministic from its stream and differs between streams', () => {
    const a = new Permutation(1000, new Prng(7));
    const b = new Permutation(1000, new Prng(7));
    const c = new Permutation(1000, new Prng(8));
    const seq = (p: Permutation) => Array.from({ length: 1000 }, (_, i) => p.at(i));
    expect(seq(a)).toEqual(seq(b));
    expect(seq(a)).not.toEqual(seq(c));
  });

  it('looks random: the first tenth lands evenly over the range, and neighbours are not correlated', () => {
    const n = 1_000_000;
    const p = new Permutation(n, new Prng(3));
    const buckets = new Array<number>(100).fill(0);
    const k = n / 10;
    let sx = 0;
    let sy = 0;
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    let prev = p.at(0);
    for (let i = 1; i < k; i++) {
      const x = p.at(i);
      buckets[Math.floor((x * 100) / n)]!++;
      sx += prev;
      sy += x;
      sxy += prev * x;
      sxx += prev * prev;
      syy += x * x;
      prev = x;
    }
    const expected = (k - 1) / 100;
    const chi2 = buckets.reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
    // 99 degrees of freedom: the 99.9th percentile is 148.
    expect(chi2).toBeLessThan(148);
    const m = k - 1;
    const r = (sxy - (sx * sy) / m) / Math.sqrt((sxx - (sx * sx) / m) * (syy - (sy * sy) / m));
    expect(Math.abs(r)).toBeLessThan(0.02);
  });

  it('fill() hands out exactly what at() gives, batch by batch (random orders keep their rows)', () => {
    for (const n of [1, 2, 3, 255, 256, 257, 1000, 65536, 100_003, 2 ** 27 + 1]) {
      const p = new Permutation(n, new Prng(n + 1));
      const out = new Int32Array(300);
      // Batches of odd sizes from several starts, the last one running up to n.
      for (const start of [0, 1, Math.floor(n / 3), Math.max(0, n - 300)]) {
        const count = Math.min(300 - (start % 7), n - start);
        p.fill(out, start, count);
        for (let j = 0; j < count; j++) expect(out[j]).toBe(p.at(start + j));
      }
    }
  });

  it('refuses a size it cannot permute', () => {
    expect(() => new Permutation(0, new Prng(1))).toThrow(RangeError);
    expect(() => new Permutation(2 ** 31, new Prng(1))).toThrow(RangeError);
  });
});

describe('RowPicker', () => {
  const orders: Order[] = [{ kind: 'sequential' }, { kind: 'random' }, { kind: 'spread' }];

  it('hands out exactly min(count, live) distinct live rows in every distinct order, whatever the batch size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 400 }),
        fc.double({ min: 0, max: 0.9, noNaN: true }),
        fc.integer({ min: 0, max: 500 }),
        fc.constantFrom(...orders),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 0, max: 1000 }),
        (ids, deadShare, count, order, batch, seed) => {
          const rng = new Prng(seed);
          const dead = new Uint8Array(ids).map(() => (rng.float() < deadShare ? 1 : 0));
          const live = { isLive: (r: number) => dead[r] === 0 };
          const liveCount = ids - dead.reduce((a, b) => a + b, 0);
          const picked = allOf(new RowPicker(order, count, ids, liveCount, live, new Prng(seed + 1)), batch);
          expect(picked.length).toBe(Math.min(count, liveCount));
          expect(new Set(picked).size).toBe(picked.length);
          for (const r of picked) expect(dead[r]).toBe(0);
          // The same rows for any batch size.
          expect(allOf(new RowPicker(order, count, ids, liveCount, live, new Prng(seed + 1)), 1)).toEqual(picked);
        },
      ),
    );
  });

  it('sequential takes the first live rows in id order; spread the ⌊i·n/k⌋-th live rows', () => {
    const dead = new Set([1, 4, 5, 9]);
    const live = { isLive: (r: number) => !dead.has(r) };
    const liveIds = [0, 2, 3, 6, 7, 8, 10, 11];
    expect(allOf(new RowPicker({ kind: 'sequential' }, 5, 12, 8, live, new Prng(1)))).toEqual(liveIds.slice(0, 5));
    expect(allOf(new RowPicker({ kind: 'spread' }, 3, 12, 8, live, new Prng(1)))).toEqual(
      [0, 1, 2].map((i) => liveIds[Math.floor((i * 8) / 3)]),
    );
    expect(allOf(new RowPicker({ kind: 'spread' }, 4, 12, 12, everyRowLive, new Prng(1)))).toEqual([0, 3, 6, 9]);
  });

  it('random visits every row once when all are asked for, in an order that is not the id order', () => {
    const picked = allOf(new RowPicker({ kind: 'random' }, 1000, 1000, 1000, everyRowLive, new Prng(5)), 64);
    expect([...picked].sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(picked.slice(0, 20)).not.toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('zipf draws with replacement: count rows, every one live, the hottest row drawn far more than the median one', () => {
    const dead = new Set([3, 17, 40]);
    const live = { isLive: (r: number) => !dead.has(r) };
    const picked = allOf(new RowPicker({ kind: 'zipf', s: 1.1 }, 20_000, 100, 97, live, new Prng(9)), 256);
    expect(picked.length).toBe(20_000);
    for (const r of picked) expect(dead.has(r)).toBe(false);
    const counts = new Map<number, number>();
    for (const r of picked) counts.set(r, (counts.get(r) ?? 0) + 1);
    const sorted = [...counts.values()].sort((a, b) => b - a);
    expect(sorted[0]!).toBeGreaterThan(10 * sorted[Math.floor(sorted.length / 2)]!);
  });

  it('hands out nothing from an empty table', () => {
    expect(allOf(new RowPicker({ kind: 'random' }, 10, 5, 0, { isLive: () => false }, new Prng(1)))).toEqual([]);
  });
});

describe('length sources', () => {
  const dists = [
    { kind: 'const' as const, value: 17 },
    { kind: 'uniform' as const, min: 20, max: 150 },
    { kind: 'uniform' as const, min: 0, max: 0 },
    { kind: 'normal' as const, mean: 80, sd: 20 },
    { kind: 'lognormal' as const, median: 60, sigma: 0.5 },
    { kind: 'choice' as const, values: [10, 100, 1000], weights: [1, 2, 1] },
  ];

  it('a batch draws the same values as one at a time, and as the closure sampler', () => {
    for (const d of dists) {
      const src = lengthSource(d);
      const batch = new Int32Array(500);
      src.fill(new Prng(4), batch, 500);
      const oneRng = new Prng(4);
      const ones = Array.from({ length: 500 }, () => src.one(oneRng));
      expect(Array.from(batch), d.kind).toEqual(ones);
      const sampler = lengthSampler(d);
      const closureRng = new Prng(4);
      expect(
        Array.from({ length: 500 }, () => sampler(closureRng)),
        d.kind,
      ).toEqual(ones);
    }
  });

  it('uniform draws stay in range and spread evenly where many raw draws are rejected (2^32 mod span = a quarter of 2^32)', () => {
    const span = 1_610_612_737;
    const out = new Int32Array(200_000);
    new Prng(11).fillInt(out, out.length, 5, span);
    const thirds = [0, 0, 0];
    for (const v of out) {
      expect(v >= 5 && v < 5 + span).toBe(true);
      thirds[Math.min(2, Math.floor(((v - 5) * 3) / span))]!++;
    }
    for (const t of thirds) expect(Math.abs(t / out.length - 1 / 3)).toBeLessThan(0.01);
  });
});

describe('FreeTree.findFrom', () => {
  it('finds the first page at or after `from` with enough room, as a scan does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -5, max: 100 }), { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 0, max: 120 }),
        fc.integer({ min: 0, max: 310 }),
        (values, need, from) => {
          const t = new FreeTree(4);
          values.forEach((v, p) => t.set(p, v));
          let expected = -1;
          for (let p = from; p < values.length; p++) {
            if (values[p]! >= need) {
              expected = p;
              break;
            }
          }
          expect(t.findFrom(need, from)).toBe(expected);
        },
      ),
    );
  });
});

describe('length sources past 2^31 − 1 (the loader refuses such lengths written; a tail may still reach them)', () => {
  it('clamp every draw to 2^31 − 1 instead of wrapping it negative in the Int32Array, and a uniform span over 2^32 ends', () => {
    const out = new Int32Array(64);
    const rng = new Prng(7);
    for (const d of [
      { kind: 'uniform', min: 0, max: 5e9 },
      { kind: 'normal', mean: 1e12, sd: 10 },
      { kind: 'lognormal', median: 1e12, sigma: 0.1 },
      { kind: 'const', value: 3e9 },
      { kind: 'choice', values: [3e9], weights: [1] },
      { kind: 'sequence', values: [3e9, -1] },
    ] as const) {
      lengthSource(d).fill(rng, out, out.length);
      expect(Math.min(...out), d.kind).toBeGreaterThanOrEqual(d.kind === 'sequence' ? -1 : 0);
      expect(Math.max(...out), d.kind).toBeLessThanOrEqual(0x7fffffff);
    }
    lengthSource({ kind: 'const', value: 3e9 }).fill(rng, out, 1);
    expect(out[0]).toBe(0x7fffffff);
  });
});
