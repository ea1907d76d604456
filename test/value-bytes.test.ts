/** The value generator's byte helpers (src/pgcheck/value-bytes.ts) against Node's own UTF-8 and a plain Set. */
import { describe, expect, it } from 'vitest';
import { forgetGrams, putUtf8, remember, seen } from '../src/pgcheck/value-bytes.js';
import { Prng } from '../src/util/prng.js';

describe('pg-check value bytes', () => {
  it('putUtf8 writes what Buffer.from(String.fromCodePoint(cp)) writes, at every width and its edges', () => {
    const edges = [0, 0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xfffd, 0x10000, 0x1f600, 0x10ffff];
    const rng = Prng.derive(1, 'utf8');
    const points = [...edges, ...Array.from({ length: 2000 }, () => rng.int(0xd800))];
    const out = new Uint8Array(8);
    for (const cp of points) {
      const end = putUtf8(cp, out, 2);
      expect(Buffer.from(out.subarray(2, end))).toEqual(Buffer.from(String.fromCodePoint(cp), 'utf8'));
    }
  });

  it('the 3-byte sequence set holds exactly what was remembered, at any size, and forgets it all', () => {
    const rng = Prng.derive(2, 'grams');
    for (const len of [10, 1000, 70_000]) {
      forgetGrams(len);
      const plain = new Set<number>();
      for (let i = 0; i < len; i++) {
        const g = rng.int(1 << 24);
        remember(g);
        plain.add(g);
      }
      for (const g of plain) expect(seen(g)).toBe(true);
      let absent = 0;
      for (let i = 0; i < 5000; i++) {
        const g = rng.int(1 << 24);
        if (!plain.has(g)) (expect(seen(g)).toBe(false), absent++);
      }
      expect(absent).toBeGreaterThan(4000);
      forgetGrams(len);
      for (const g of [...plain].slice(0, 100)) expect(seen(g)).toBe(false);
    }
  });
});
