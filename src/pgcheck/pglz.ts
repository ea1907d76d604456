/**
 * PostgreSQL's pglz compressor, as far as the size of its output goes: pg-check runs it over every
 * compressible value it makes and refuses to send one whose compressed size is not the size the model
 * predicts (src/formats/pg-compression.ts); the tests run it against pg_column_size on a live server.
 * Written from the description of src/common/pg_lzcompress.c [PG-PGLZ] (no code copied):
 *
 *   - the output is a stream of items, a control byte before every 8 (one bit an item); an item is a
 *     literal byte, or a tag of 2 bytes (match length 3–17, offset < 4095) or 3 bytes (length 18–273);
 *   - a history of the last 4,096 input positions, linked in lists by a hash of the next 4 bytes (the
 *     next 1 byte within 4 of the end) over 512 … 8,192 lists by input size, bytes read as signed char;
 *   - at each position the list is walked from the most recent entry, keeping the longest match
 *     (strictly longer wins), until an offset of 4,095 or more, or a match of at least good_match (128,
 *     lowered by 10% for every entry walked) with more entries left; a match of 3 or more is taken;
 *   - PGLZ_strategy_default: inputs under 32 bytes are not compressed; compression fails when no match
 *     was found before 1,024 output bytes, or the output reaches (size × 75) / 100 bytes.
 */

/** PGLZ_strategy_default [PG-PGLZ]. */
export const PGLZ_MIN_INPUT_BYTES = 32;
export const PGLZ_MIN_COMP_RATE = 25;
export const PGLZ_FIRST_SUCCESS_BY = 1024;
const PGLZ_MATCH_SIZE_GOOD = 128;
const PGLZ_MATCH_SIZE_DROP = 10;
/** PGLZ_MAX_MATCH, PGLZ_HISTORY_SIZE; offsets fit 12 bits [PG-PGLZ]. */
const PGLZ_MAX_MATCH = 273;
const PGLZ_HISTORY_SIZE = 4096;
const PGLZ_MAX_OFFSET = 0x0fff;

/** Hash lists by input size: 512 under 128 bytes, doubling up to 8,192 from 1,024 [PG-PGLZ]. */
function pglzHashSize(n: number): number {
  if (n < 128) return 512;
  if (n < 256) return 1024;
  if (n < 512) return 2048;
  if (n < 1024) return 4096;
  return 8192;
}

// The history, reused from call to call: list heads by hash, and entries 1 … 4096 (0: none) with their
// next and previous entry, their list and their input position.
const start = new Int16Array(8192);
const next = new Int16Array(PGLZ_HISTORY_SIZE + 1);
const prev = new Int16Array(PGLZ_HISTORY_SIZE + 1);
const list = new Int32Array(PGLZ_HISTORY_SIZE + 1);
const pos = new Int32Array(PGLZ_HISTORY_SIZE + 1);
/** The input as signed char (as pg_lzcompress.c hashes it), reused and grown as needed. */
let signedInput = new Int8Array(8192);

/** The next entry to take, and whether all 4,096 were taken (the oldest is then reused). */
let entry = 1;
let recycle = false;

/** Position p enters the history, at the head of list h (the oldest entry unlinked first once all are taken). */
function enter(h: number, p: number): void {
  const e = entry;
  if (recycle) {
    const pe = prev[e]!;
    const ne = next[e]!;
    if (pe === 0) start[list[e]!] = ne;
    else next[pe] = ne;
    if (ne !== 0) prev[ne] = pe;
  }
  const head = start[h]!;
  next[e] = head;
  prev[e] = 0;
  if (head !== 0) prev[head] = e;
  list[e] = h;
  pos[e] = p;
  start[h] = e;
  if (++entry > PGLZ_HISTORY_SIZE) {
    entry = 1;
    recycle = true;
  }
}

/**
 * The hash of the 4 bytes from p, as signed char, before the mask: rolled on a byte at a time,
 * u(p + 1) = ((u(p) ^ (s[p] << 6)) << 2) ^ s[p + 4] (the same bits, in 32-bit integers).
 */
const hash4 = (s: Int8Array, p: number): number => (s[p]! << 6) ^ (s[p + 1]! << 4) ^ (s[p + 2]! << 2) ^ s[p + 3]!;

/**
 * Bytes pglz_compress writes for `src` under PGLZ_strategy_default, or −1 when it gives up (the value is
 * then stored uncompressed). The 8-byte compressed-varlena header is not counted.
 */
export function pglzCompressedSize(src: Uint8Array): number {
  const n = src.length;
  if (n < PGLZ_MIN_INPUT_BYTES) return -1;
  const resultMax = Math.floor((n * (100 - PGLZ_MIN_COMP_RATE)) / 100);
  const mask = pglzHashSize(n) - 1;
  start.fill(0, 0, mask + 1);
  if (signedInput.length < n) signedInput = new Int8Array(Math.max(n, 2 * signedInput.length));
  const s = signedInput;
  s.set(src);
  const tail = n - 3;
  entry = 1;
  recycle = false;
  let out = 0;
  let items = 0;
  let found = false;
  let p = 0;
  // The list of position p: its 4-byte hash, its one byte from `tail` on (fewer than 4 follow).
  let u = hash4(s, 0);
  while (p < n) {
    if (out >= resultMax) return -1;
    if (!found && out >= PGLZ_FIRST_SUCCESS_BY) return -1;
    // The longest match along the list of this position's hash.
    const h = (p < tail ? u : s[p]!) & mask;
    const most = Math.min(n - p, PGLZ_MAX_MATCH);
    let len = 0;
    let good = PGLZ_MATCH_SIZE_GOOD;
    for (let e = start[h]!; e !== 0;) {
      const from = pos[e]!;
      if (p - from >= PGLZ_MAX_OFFSET) break;
      let l = 0;
      while (l < most && src[p + l] === src[from + l]) l++;
      if (l > len) len = l;
      e = next[e]!;
      if (e !== 0) {
        if (len >= good) break;
        good -= Math.trunc((good * PGLZ_MATCH_SIZE_DROP) / 100);
      }
    }
    if ((items & 7) === 0) out++;
    items++;
    let step = 1;
    if (len > 2) {
      out += len > 17 ? 3 : 2;
      step = len;
      found = true;
    } else out++;
    // Every position passed enters the history (the oldest entry reused once all 4,096 are taken).
    for (const stop = p + step; p < stop; p++) {
      enter((p < tail ? u : s[p]!) & mask, p);
      if (p + 1 < tail) u = ((u ^ (s[p]! << 6)) << 2) ^ s[p + 4]!;
    }
  }
  return out >= resultMax ? -1 : out;
}
