/**
 * Byte-level helpers of pg-check's value generator (values.ts, value-blocks.ts): random characters and
 * UTF-8 encoding by hand, the scratch a value is made in, and the set of the 3-byte sequences already in
 * a compressible value being built.
 */
import type { Prng } from '../util/prng.js';

/** 62 ASCII key digits in byte order (so keys sort bytewise in code order under COLLATE "C"). */
export const ASCII_DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The code points a random character of 2, 3 or 4 bytes is drawn from (3 bytes: not the surrogates, nor U+FFFE, U+FFFF). */
const WIDTH_RANGES: readonly (readonly [number, number])[] = [
  [0, 0],
  [0x21, 0x7e],
  [0x80, 0x7ff],
  [0x800, 0xfffd],
  [0x10000, 0x10ffff],
];
const SURROGATES = [0xd800, 0xdfff] as const;
/** A random code point of a character of `width` bytes in UTF-8 (1: an ASCII letter or digit). */
export function randomCodePoint(width: number, rng: Prng): number {
  if (width === 1) return ASCII_DIGITS.charCodeAt(rng.int(62));
  const [lo, hi] = WIDTH_RANGES[width]!;
  if (width !== 3) return lo + rng.int(hi - lo + 1);
  const cp = lo + rng.int(hi - lo + 1 - (SURROGATES[1] - SURROGATES[0] + 1));
  return cp >= SURROGATES[0] ? cp + (SURROGATES[1] - SURROGATES[0] + 1) : cp;
}

/**
 * The bytes of the value being made (scratch, grown as needed): a value is decoded or copied out of it
 * once it is whole, so that its tries allocate nothing (a new array a try kept the collector busy).
 */
let valueScratch = Buffer.alloc(8192);
export function scratchBytes(len: number): Buffer {
  if (valueScratch.length < len) valueScratch = Buffer.alloc(Math.max(len, 2 * valueScratch.length));
  return valueScratch.subarray(0, len);
}

/** Code point `cp` in UTF-8 into out at `at` (what Buffer.from(String.fromCodePoint(cp)) writes); the next place. */
export function putUtf8(cp: number, out: Uint8Array, at: number): number {
  if (cp < 0x80) {
    out[at] = cp;
    return at + 1;
  }
  if (cp < 0x800) {
    out[at] = 0xc0 | (cp >> 6);
    out[at + 1] = 0x80 | (cp & 0x3f);
    return at + 2;
  }
  if (cp < 0x10000) {
    out[at] = 0xe0 | (cp >> 12);
    out[at + 1] = 0x80 | ((cp >> 6) & 0x3f);
    out[at + 2] = 0x80 | (cp & 0x3f);
    return at + 3;
  }
  out[at] = 0xf0 | (cp >> 18);
  out[at + 1] = 0x80 | ((cp >> 12) & 0x3f);
  out[at + 2] = 0x80 | ((cp >> 6) & 0x3f);
  out[at + 3] = 0x80 | (cp & 0x3f);
  return at + 4;
}

/**
 * The 3-byte sequences already in the value being built: a set of 24-bit numbers, open addressing over
 * at least twice the value's bytes (a value holds at most one a byte), so that it stays in the cache.
 */
let gramSlots = new Int32Array(1024).fill(-1);
let gramMask = 1023;
export const gram = (b: Uint8Array, q: number): number => (b[q - 2]! << 16) | (b[q - 1]! << 8) | b[q]!;
/** The slot of g: where it is, or the empty slot where it goes. */
function gramSlot(g: number): number {
  let i = Math.imul(g, 0x9e3779b1) >>> 8;
  for (;;) {
    i &= gramMask;
    const s = gramSlots[i]!;
    if (s === g || s < 0) return i;
    i++;
  }
}
export const seen = (g: number): boolean => gramSlots[gramSlot(g)] === g;
export function remember(g: number): void {
  gramSlots[gramSlot(g)] = g;
}
/** An empty set for a value of `len` bytes. */
export function forgetGrams(len: number): void {
  let size = 1024;
  while (size < 2 * len + 8) size *= 2;
  if (size !== gramSlots.length) gramSlots = new Int32Array(size);
  gramSlots.fill(-1);
  gramMask = size - 1;
}
/** Remembers g unless the set holds it already: whether it was new (seen, then remember, in one probe). */
export function rememberNew(g: number): boolean {
  const i = gramSlot(g);
  if (gramSlots[i] === g) return false;
  gramSlots[i] = g;
  return true;
}
