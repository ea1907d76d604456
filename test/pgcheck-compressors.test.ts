/**
 * pg-check's pglz and LZ4 emulators (src/pgcheck/pglz.ts, lz4.ts) give, input for input, the sizes they
 * gave before they were made faster: a corpus drawn from a fixed stream that reaches every path of both
 * (random bytes: pglz's give-ups at 1,024 output bytes and at 75%; alphabets of 2 … 62 bytes: long hash
 * lists, the good-match cut; runs: 273-byte matches and 3-byte tags; copies from up to 6,000 bytes back:
 * the 4,095-byte offset limit and a recycled history; every hash-size boundary; LZ4's skip-ahead and its
 * last 12 bytes). Their agreement with a live server: test/toast.test.ts and test/pgcheck-toast.test.ts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { lz4CompressedSize } from '../src/pgcheck/lz4.js';
import { pglzCompressedSize } from '../src/pgcheck/pglz.js';
import { Prng } from '../src/util/prng.js';

const LENGTHS = [
  0, 1, 12, 13, 31, 32, 33, 100, 127, 128, 255, 256, 511, 512, 1023, 1024, 1025, 1400, 4095, 4096, 4097, 8200, 20_000, 60_000,
];
const ALPHABETS = [256, 62, 16, 4, 3, 2];

/** An input of `len` bytes of one of five kinds. */
function input(rng: Prng, len: number, kind: number): Uint8Array {
  const b = new Uint8Array(len);
  const alphabet = ALPHABETS[rng.int(ALPHABETS.length)]!;
  for (let i = 0; i < len;) {
    if (kind === 0 || i < 8) b[i++] = rng.int(alphabet);
    else if (kind === 1) {
      // A run of one byte, up to 600 long.
      const v = rng.int(256);
      for (let r = 1 + rng.int(600); r > 0 && i < len; r--) b[i++] = v;
    } else {
      // A copy of earlier bytes (kind 2: near, kind 3: up to 6,000 back), then a few literals; kind 4 mixes all.
      const back = 1 + rng.int(Math.min(i, kind === 2 ? 300 : 6000));
      for (let r = 3 + rng.int(kind === 4 ? 40 : 300); r > 0 && i < len; r--, i++) b[i] = b[i - back]!;
      for (let r = rng.int(kind === 4 ? 30 : 6); r > 0 && i < len; r--) b[i++] = rng.int(alphabet);
    }
  }
  return b;
}

describe('pg-check compressors', () => {
  it('pglz and LZ4 give the sizes recorded before they were made faster, over 1,500 inputs of every kind and size', () => {
    const rng = Prng.derive(38, 'compressors');
    const sizes: number[] = [];
    const outcomes = { pglzGaveUp: 0, pglzCompressed: 0, lz4Shorter: 0 };
    for (let i = 0; i < 1500; i++) {
      const len = i < LENGTHS.length * 5 ? LENGTHS[Math.floor(i / 5)]! : rng.int(i % 10 === 0 ? 30_000 : 3000);
      const bytes = input(rng, len, i % 5);
      const pglz = pglzCompressedSize(bytes);
      const lz4 = lz4CompressedSize(bytes);
      sizes.push(pglz, lz4);
      if (pglz < 0) outcomes.pglzGaveUp++;
      else outcomes.pglzCompressed++;
      if (lz4 < len) outcomes.lz4Shorter++;
    }
    // Both branches of each are in the corpus.
    expect(outcomes.pglzGaveUp).toBeGreaterThan(100);
    expect(outcomes.pglzCompressed).toBeGreaterThan(100);
    expect(outcomes.lz4Shorter).toBeGreaterThan(100);
    expect(createHash('sha256').update(sizes.join(',')).digest('hex')).toBe(CORPUS_SIZES);
  });
});

/** SHA-256 of the 3,000 sizes as the emulators gave them before they were made faster. */
const CORPUS_SIZES = 'e8604452198cba61d492903c6522554c69ab939dbbcee72ff1789f928f032fc5';
