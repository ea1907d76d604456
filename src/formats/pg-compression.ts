/**
 * How PostgreSQL compresses a value on its way to TOAST, for values of a known construction.
 *
 * A column's `compressibility` c (values: and set: of the workload) says what its values are made of:
 * blocks of 64 bytes, each m = round(64 c) bytes (at most 60, none under 4) repeating the bytes before
 * them at a distance of L = 64 − m (for m > L, periodically), the other L bytes fresh (no 3-byte
 * sequence of the value occurs twice outside the repeats). In a last, partial block a repeat of fewer
 * than 4 bytes is fresh too. pg-check sends values built exactly so (src/pgcheck/values.ts) and checks
 * each one with its own pglz and LZ4 (src/pgcheck/pglz.ts, lz4.ts) before it sends it; the figures
 * below are the output those compressors produce for such a value, computed from the blocks alone:
 *
 *   - pglz [PG-PGLZ]: every fresh byte a literal (a control bit and a byte), every repeat one match
 *     (2-byte tag up to 17 bytes, 3 bytes from 18; repeats are at most 60 bytes, under the 273 a tag
 *     holds), a control byte before every 8 items; PGLZ_strategy_default gives up on values under 32
 *     bytes, without a match in the first 1,024 output bytes, or at (n × 75) / 100 output bytes;
 *   - LZ4 [LZ4-BLOCK]: a sequence per repeat (token, literal-length bytes, the fresh bytes before it,
 *     2-byte offset, match-length bytes), no match starting in the last 12 bytes or reaching into the
 *     last 5, the rest a last literal run; with fresh runs of at most 60 bytes the search never skips.
 *
 * toast_compress_datum keeps the result only when its varlena (an 8-byte header: length and the raw
 * size with the method) is more than 2 bytes smaller than the value; LZ4's output must not exceed the
 * value either [PG-TOAST]. c = 0 (the default) is a value with nothing to find: never compressed.
 */

/** The construction's block, and the shortest and longest repeat a block has. */
export const COMPRESS_BLOCK_BYTES = 64;
export const MIN_REPEAT_BYTES = 4;
export const MAX_REPEAT_BYTES = 60;

/** VARHDRSZ_COMPRESSED: a compressed varlena's 4-byte header and 4-byte raw size and method [PG-TOAST]. */
export const PG_VARHDRSZ_COMPRESSED = 8;
/** toast_compress_datum keeps a compressed value only when it saves more than 2 bytes [PG-TOAST]. */
const PG_COMPRESS_MIN_SAVING = 2;

/** PGLZ_strategy_default [PG-PGLZ]. */
const PGLZ_MIN_INPUT_BYTES = 32;
const PGLZ_MIN_COMP_RATE = 25;
const PGLZ_SHORT_TAG_MAX = 17;

/** LZ4 block format limits [LZ4-BLOCK]. */
const LZ4_MINMATCH = 4;
const LZ4_MFLIMIT = 12;
const LZ4_LASTLITERALS = 5;
const LZ4_LENGTH_MASK = 15;

export type ToastCompression = 'pglz' | 'lz4';

/** Repeat bytes of a 64-byte block for a compressibility (0 … 1): round(64 c), at most 60, 0 under 4. */
export function repeatBytes(compressibility: number): number {
  const m = Math.min(MAX_REPEAT_BYTES, Math.round(compressibility * COMPRESS_BLOCK_BYTES));
  return m < MIN_REPEAT_BYTES ? 0 : m;
}

/**
 * The blocks of an n-byte value with m repeat bytes a block: visit(start, fresh, repeat) for each, the
 * fresh bytes first. A last block's repeat shorter than MIN_REPEAT_BYTES is fresh; m = 0: all fresh.
 */
export function forEachBlock(n: number, m: number, visit: (start: number, fresh: number, repeat: number) => void): void {
  if (m === 0) {
    if (n > 0) visit(0, n, 0);
    return;
  }
  const fresh = COMPRESS_BLOCK_BYTES - m;
  for (let start = 0; start < n; start += COMPRESS_BLOCK_BYTES) {
    const len = Math.min(COMPRESS_BLOCK_BYTES, n - start);
    let f = Math.min(fresh, len);
    let r = len - f;
    if (r < MIN_REPEAT_BYTES) {
      f += r;
      r = 0;
    }
    visit(start, f, r);
  }
}

/** Bytes pglz writes for an n-byte value of m repeat bytes a block, or −1 when it gives up. */
export function pglzBytes(n: number, m: number): number {
  if (n < PGLZ_MIN_INPUT_BYTES || m === 0) return -1;
  let items = 0;
  let bytes = 0;
  forEachBlock(n, m, (_start, fresh, repeat) => {
    items += fresh;
    bytes += fresh;
    if (repeat > 0) {
      items++;
      bytes += repeat > PGLZ_SHORT_TAG_MAX ? 3 : 2;
    }
  });
  // The first match comes within 60 bytes: the first_success_by rule (1,024 output bytes) never applies.
  const out = bytes + Math.ceil(items / 8);
  return out >= Math.floor((n * (100 - PGLZ_MIN_COMP_RATE)) / 100) ? -1 : out;
}

const lz4LengthBytes = (len: number): number => (len >= LZ4_LENGTH_MASK ? 1 + Math.floor((len - LZ4_LENGTH_MASK) / 255) : 0);

/** Bytes LZ4 writes for an n-byte value of m repeat bytes a block. */
export function lz4Bytes(n: number, m: number): number {
  let out = 0;
  let anchor = 0;
  if (n > LZ4_MFLIMIT && m > 0) {
    let done = false;
    forEachBlock(n, m, (start, fresh, repeat) => {
      const at = start + fresh;
      if (done || repeat === 0 || at > n - LZ4_MFLIMIT) return;
      const end = Math.min(at + repeat, n - LZ4_LASTLITERALS);
      const literals = at - anchor;
      out += 1 + lz4LengthBytes(literals) + literals + 2 + lz4LengthBytes(end - at - LZ4_MINMATCH);
      anchor = end;
      if (anchor > n - LZ4_MFLIMIT) done = true;
    });
  }
  const last = n - anchor;
  return out + 1 + lz4LengthBytes(last) + last;
}

/**
 * The varlena bytes (8-byte header included) toast_compress_datum makes of an n-byte value of m repeat
 * bytes a block, or −1 when it keeps the value uncompressed.
 */
export function compressedDatumBytes(method: ToastCompression, n: number, m: number): number {
  const out = method === 'pglz' ? pglzBytes(n, m) : lz4Bytes(n, m);
  if (out < 0 || (method === 'lz4' && out > n)) return -1;
  const size = out + PG_VARHDRSZ_COMPRESSED;
  return size < n - PG_COMPRESS_MIN_SAVING ? size : -1;
}

/** compressedDatumBytes, remembered by (method, m, n): a run asks for the same few lengths again and again. */
export class CompressedSizes {
  private readonly cache = new Map<number, Int32Array>();
  constructor(readonly method: ToastCompression) {}
  bytes(n: number, m: number): number {
    if (m === 0) return -1;
    let row = this.cache.get(m);
    if (!row) this.cache.set(m, (row = new Int32Array(0x10000).fill(-2)));
    let v = row[n]!;
    if (v === -2) row[n] = v = compressedDatumBytes(this.method, n, m);
    return v;
  }
}
