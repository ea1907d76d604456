/**
 * Prng's fast paths, each held to the plain way it stands for. Prng.derive's stream seed (mixKeys) and the
 * seeding of a Prng, held against their definitions written out the plain way: FNV-1a over each key's text
 * (`#` and the number in decimal, or `$` and the string, then a 0xff byte), and splitmix32's steps. mixKeys
 * hashes whole numbers without making their text. fillBelow: the numbers of as many calls of int(n).
 */
import { describe, expect, it } from 'vitest';
import { Prng, mixKeys } from '../src/util/prng.js';

function fnvOfText(seed: number, keys: readonly (string | number)[]): number {
  let h = Math.imul(0x811c9dc5 ^ (seed >>> 0), 0x01000193);
  h = Math.imul(h ^ (Math.floor(seed / 0x100000000) >>> 0), 0x01000193);
  for (const key of keys) {
    const text = typeof key === 'number' ? `#${String(key)}` : `$${key}`;
    for (const unit of text) for (let i = 0; i < unit.length; i++) h = Math.imul(h ^ unit.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ 0xff, 0x01000193);
  }
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function splitmixWords(seed: number): number[] {
  let x = seed >>> 0;
  const words: number[] = [];
  for (let i = 0; i < 4; i++) {
    x = (x + 0x9e3779b9) | 0;
    let z = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    words.push((z ^ (z >>> 16)) >>> 0);
  }
  return words;
}

describe('Prng.derive', () => {
  it('mixKeys is FNV-1a over the keys as text, for whole numbers of every sign and size and for other keys', () => {
    const g = new Prng(7);
    const odd = [
      0,
      -0,
      1,
      -1,
      9,
      10,
      -10,
      99,
      100,
      2 ** 31,
      2 ** 32,
      2 ** 53 - 1,
      -(2 ** 53 - 1),
      2 ** 53,
      1e21,
      0.5,
      -2.25,
      NaN,
      Infinity,
    ];
    const strings = ['value', '', 'é€😀', 'row'];
    for (let i = 0; i < 5000; i++) {
      const keys = Array.from({ length: g.int(5) }, (): string | number => {
        const r = g.int(4);
        return r === 0
          ? odd[g.int(odd.length)]!
          : r === 1
            ? strings[g.int(strings.length)]!
            : r === 2
              ? -g.int(1e6)
              : g.int(2 ** 30) * g.int(1 << 20);
      });
      const seed = [0, 123, g.nextU32(), g.nextU32() * 4096 + g.int(4096), -g.int(1000)][g.int(5)]!;
      expect(mixKeys(seed, keys), `${seed} ${JSON.stringify(keys)}`).toBe(fnvOfText(seed, keys));
    }
  });

  it('a Prng is seeded with four splitmix32 steps', () => {
    for (const seed of [0, 1, 2 ** 31, 2 ** 32 - 1, -5, 0x9e3779b9, 123456789]) {
      const want = splitmixWords(seed);
      if ((want[0]! | want[1]! | want[2]! | want[3]!) === 0) want[0] = 1;
      // xoshiro128**'s first output is a function of s1 alone: rotl(s1 × 5, 7) × 9.
      const x = Math.imul(want[1]!, 5);
      expect(new Prng(seed).nextU32()).toBe(Math.imul((x << 7) | (x >>> 25), 9) >>> 0);
    }
  });
});

describe('Prng.fillBelow', () => {
  it('gives the numbers of as many int(n) calls, and leaves the stream where they leave it', () => {
    for (const n of [0, 1, 2, 3, 62, 64, 97, 1000, 2 ** 31 + 1, 3 * 2 ** 30, 2 ** 32 - 1, 2 ** 32]) {
      const a = new Prng(n + 11);
      const b = new Prng(n + 11);
      const out = new Int32Array(300);
      a.fillBelow(out, 257, n);
      const want = Array.from({ length: 257 }, () => b.int(n));
      expect(Array.from(out.subarray(0, 257), (x) => x >>> 0)).toEqual(want);
      // Every state word as int(n) leaves it (the first output reads s1 only).
      for (let i = 0; i < 4; i++) expect(a.nextU32()).toBe(b.nextU32());
    }
  });
});
