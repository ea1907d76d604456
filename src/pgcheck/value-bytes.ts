/**
 * Byte-level helpers of pg-check's value generator (values.ts): UTF-8 encoding by hand, and the set of
 * the 3-byte sequences already in a compressible value being built.
 */

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
