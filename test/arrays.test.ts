/** The typed-array helpers of src/util/arrays.ts. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grown, lastAtMost, lowerBound, sortedDistinct } from '../src/util/arrays.js';

/** The plain binary search lastAtMost stands for: the last index of a[0 … n − 1] with a value ≤ v, 0 when none. */
function plain(a: Int32Array, n: number, v: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (a[mid]! <= v) lo = mid;
    else hi = mid - 1;
  }
  return Math.max(0, lo);
}

describe('lastAtMost', () => {
  it('gives what a plain binary search gives, from any guess (sorted arrays with repeats and a tail of sentinels)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -50, max: 1000 }), { minLength: 0, maxLength: 300 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: -100, max: 1100 }),
        fc.integer({ min: -20, max: 400 }),
        fc.nat(20),
        (values, sentinels, v, guess, shorter) => {
          const a = Int32Array.from([...values.sort((x, y) => x - y), ...Array<number>(sentinels).fill(0x7fffffff)]);
          // The first n entries only, the rest of the array sorted too (an array with room to spare).
          const n = Math.max(0, a.length - shorter);
          expect(lastAtMost(a, n, v, guess)).toBe(plain(a, n, v));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('the edges: one entry, a value below all, above all, equal to a repeated value', () => {
    expect(lastAtMost(Int32Array.of(5), 1, 0, 0)).toBe(0);
    const a = Int32Array.of(10, 20, 20, 20, 30, 40);
    for (let g = -1; g <= 7; g++) {
      expect(lastAtMost(a, 6, 5, g)).toBe(0);
      expect(lastAtMost(a, 6, 99, g)).toBe(5);
      expect(lastAtMost(a, 6, 20, g)).toBe(3);
      expect(lastAtMost(a, 6, 25, g)).toBe(3);
      expect(lastAtMost(a, 6, 30, g)).toBe(4);
    }
    // Only the first n entries count.
    expect(lastAtMost(a, 3, 99, 2)).toBe(2);
    expect(lastAtMost(a, 3, 99, 0)).toBe(2);
  });
});

describe('grown', () => {
  it('keeps the values and the type, doubles small arrays and grows large ones by half', () => {
    const a = Int32Array.of(1, 2, 3);
    const b = grown(a, 20);
    expect(b).toBeInstanceOf(Int32Array);
    expect(Array.from(b.subarray(0, 3))).toEqual([1, 2, 3]);
    expect(b.length).toBe(32);
    expect(grown(b, 10)).toBe(b);
    expect(grown(new Uint8Array(1 << 20), (1 << 20) + 1).length).toBe(1.5 * (1 << 20));
  });
});

describe('sortedDistinct and lowerBound (the checkers rank their keys with them)', () => {
  it('the first n keys sorted, each once; lowerBound is the first index at or above a value, as a scan finds it', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 60 }), fc.nat({ max: 10 }), (xs, tail) => {
        const keys = Float64Array.from([...xs, ...Array.from({ length: tail }, () => 1e9)]);
        const distinct = sortedDistinct(keys, xs.length);
        expect([...distinct]).toEqual([...new Set(xs)].sort((a, b) => a - b));
        for (let v = -52; v <= 52; v++) {
          const first = [...distinct].findIndex((d) => d >= v);
          expect(lowerBound(distinct, v)).toBe(first < 0 ? distinct.length : first);
        }
      }),
      { numRuns: 200, seed: 7 },
    );
  });
});
