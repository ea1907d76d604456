/**
 * The bytes of a compressible value, built as src/formats/pg-compression.ts says (values.ts draws the
 * key and checks the value against both compressors): in each block's fresh bytes first the key's next
 * digits, then characters no 3-byte sequence of which occurs before (nor across into the repeat), then
 * the repeat, a periodic copy of the fresh bytes. Under utf8 the characters' widths follow the column's
 * shares, and every repeat ends where a character does.
 */
import { forEachBlock } from '../formats/pg-compression.js';
import type { Prng } from '../util/prng.js';
import { forgetGrams, gram, putUtf8, randomCodePoint, remember, rememberNew, scratchBytes, seen } from './value-bytes.js';

/** Draws of a character before the value is given up (its caller draws the value again). */
const CHAR_TRIES = 64;

/** The bytes of a compressible value (null: no character fits somewhere; the caller draws again). */
export function buildBlocks(
  len: number,
  m: number,
  key: Uint8Array,
  singles: readonly number[],
  widths: [number, number, number] | null,
  rng: Prng,
): Buffer | null {
  // Every byte is written before it is read (the fresh bytes, then the repeat that copies them).
  const buf = scratchBytes(len);
  const acc = [0, 0, 0, 0, 0];
  let k = 0;
  let failed = false;
  const single = widths === null || (widths[0] === 0 && widths[1] === 0 && widths[2] === 0);
  const block: Block = { buf, start: 0, end: 0, repeat: 0, singles, widths, acc, rng, single };
  forgetGrams(len);
  drawAt = drawn = 0;
  forEachBlock(len, m, (start, fresh, repeat) => {
    if (failed) return;
    const end = start + fresh;
    let p = start;
    for (; p < end && k < key.length; p++) {
      buf[p] = key[k++]!;
      if (p >= 2) remember(gram(buf, p));
    }
    // A repeat copies the fresh bytes from the block's start, periodically: it must end where a character does.
    const cut = repeat > 0 && repeat % fresh !== 0 ? start + (repeat % fresh) : -1;
    block.start = start;
    block.end = end;
    block.repeat = repeat;
    while (p < end) {
      const w = placeChar(block, p, Math.min(4, end - p, cut > p ? cut - p : 4));
      if (w === 0) {
        failed = true;
        return;
      }
      p += w;
    }
    copyRepeat(buf, start, end, repeat);
  });
  return failed ? null : buf;
}

interface Block {
  buf: Uint8Array;
  start: number;
  end: number;
  repeat: number;
  singles: readonly number[];
  widths: [number, number, number] | null;
  acc: number[];
  rng: Prng;
  /** Every fresh character is a single byte (no shares of wide ones): its draws come in batches. */
  single: boolean;
}

/**
 * A batch of single-byte draws (int(singles.length)), taken in order. A batch at p, try t, holds at most
 * min(CHAR_TRIES − t, end − p) draws: every place to the block's end takes one at least and a place given
 * up takes CHAR_TRIES, so the batch is used up before the block ends and the stream is where single draws
 * leave it.
 */
const DRAWS = new Int32Array(CHAR_TRIES);
let drawAt = 0;
let drawn = 0;
function singleDraw(b: Block, p: number, tries: number): number {
  if (drawAt === drawn) {
    drawn = Math.min(CHAR_TRIES - tries, b.end - p);
    b.rng.fillBelow(DRAWS, drawn, b.singles.length);
    drawAt = 0;
  }
  return DRAWS[drawAt++]!;
}

/**
 * A fresh character at p of at most `most` bytes whose 3-byte sequences are new, remembered: its width,
 * or 0 when none was found in CHAR_TRIES draws.
 */
function placeChar(b: Block, p: number, most: number): number {
  const { buf, widths, acc, singles, rng } = b;
  for (let tries = 0; tries < CHAR_TRIES; tries++) {
    const w = pickWidth(widths, acc, most);
    if (w === 1) buf[p] = singles[b.single ? singleDraw(b, p, tries) : rng.int(singles.length)]!;
    else putUtf8(randomCodePoint(w, rng), buf, p);
    if (b.repeat > 0 && p + w === b.end) {
      if (!fresh3Grams(buf, p, w, b.start)) continue;
      for (let q = Math.max(2, p); q < p + w; q++) remember(gram(buf, q));
    } else if (w === 1) {
      // One sequence, looked up and remembered in one probe.
      if (p >= 2 && !rememberNew(gram(buf, p))) continue;
    } else {
      if (!fresh3Grams(buf, p, w, -1)) continue;
      for (let q = Math.max(2, p); q < p + w; q++) remember(gram(buf, q));
    }
    if (widths && w > 1) acc[w]! -= 1;
    return w;
  }
  return 0;
}

/**
 * The repeat after a block's fresh bytes: buf[q] = buf[q − fresh] for q in [end, end + repeat). Only the
 * two sequences that reach back into the fresh bytes are new: from end + 2 on, each 3 bytes copy the 3
 * bytes `fresh` before them, a sequence already in the set.
 */
function copyRepeat(buf: Uint8Array, start: number, end: number, repeat: number): void {
  const fresh = end - start;
  for (let q = end; q < end + repeat; q++) buf[q] = buf[q - fresh]!;
  for (let q = Math.max(2, end); q < end + Math.min(2, repeat); q++) remember(gram(buf, q));
}

/** The width of the next fresh character: the widest whose share has built up a whole character, if it fits. */
function pickWidth(widths: [number, number, number] | null, acc: number[], most: number): number {
  if (widths === null) return 1;
  acc[2]! += widths[0];
  acc[3]! += widths[1];
  acc[4]! += widths[2];
  for (let w = Math.min(4, most); w >= 2; w--) if (acc[w]! >= 1) return w;
  return 1;
}

/** The sequences a character would add (at most 4 of its own and 2 into the repeat). */
const MINE = new Int32Array(6);

/**
 * The 3-byte sequences that end in buf[p … p + w) are new (and differ from each other); when the
 * character ends a block's fresh bytes (`repeatFrom` ≥ 0), so are the two that reach into the repeat.
 */
function fresh3Grams(buf: Uint8Array, p: number, w: number, repeatFrom: number): boolean {
  const mine = MINE;
  let n = 0;
  for (let q = Math.max(2, p); q < p + w; q++) mine[n++] = gram(buf, q);
  if (repeatFrom >= 0) {
    const e = p + w;
    const r0 = buf[repeatFrom]!;
    // A unit of one byte repeats that byte.
    const r1 = e - repeatFrom >= 2 ? buf[repeatFrom + 1]! : r0;
    if (e >= 2) mine[n++] = (buf[e - 2]! << 16) | (buf[e - 1]! << 8) | r0;
    if (e >= 1) mine[n++] = (buf[e - 1]! << 16) | (r0 << 8) | r1;
  }
  for (let i = 0; i < n; i++) {
    if (seen(mine[i]!)) return false;
    for (let j = 0; j < i; j++) if (mine[j] === mine[i]) return false;
  }
  return true;
}
