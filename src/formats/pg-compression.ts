/**
 * How PostgreSQL compresses a value on its way to TOAST, for values of a known construction.
 *
 * A column's `compressibility` (values: and set: of the workload) says what its values are made of, as
 * a construction code k (the row store keeps it a value, src/workload/row-values.ts levelOf):
 *
 *   - a share c ≤ 60/64, k = round(64 c) (none under 4): blocks of 64 bytes, each k bytes repeating
 *     the bytes before them at a distance of L = 64 − k (for k > L, periodically), the other L bytes
 *     fresh (no 3-byte sequence of the value occurs twice outside the repeats). In a last, partial
 *     block a repeat of fewer than 4 bytes is fresh too;
 *   - `{ unit: U }` (1 ≤ U ≤ 64), k = UNIT_CODE_BASE + U: one block, the value's first U bytes fresh and
 *     every byte after them repeating the byte U before it, as repeat(md5(…), n) (U = 32) or
 *     repeat('x', n) (U = 1) make them.
 *
 * pg-check sends values built exactly so (src/pgcheck/values.ts) and checks each one with its own pglz
 * and LZ4 (src/pgcheck/pglz.ts, lz4.ts) before it sends it; the figures below are the output those
 * compressors produce for such a value, computed from the blocks alone:
 *
 *   - pglz [PG-PGLZ]: every fresh byte a literal (a control bit and a byte); a repeat is matched 273
 *     bytes (PGLZ_MAX_MATCH) at a time, 3-byte tags, and what is left of it is one more tag (2 bytes
 *     up to 17, 3 from 18) when it is 4 bytes or more (a position's hash list is that of its next 4
 *     bytes: a shorter rest's bytes hash with fresh ones, or within 4 bytes of the end with one byte,
 *     and find nothing), else literals; a control byte before every 8 items; PGLZ_strategy_default
 *     gives up on values under 32 bytes, without a match in the first 1,024 output bytes, or at
 *     (n × 75) / 100 output bytes;
 *   - LZ4 [LZ4-BLOCK]: a sequence per repeat (token, literal-length bytes, the fresh bytes before it,
 *     2-byte offset, match-length bytes: one more for every 255), no match starting in the last 12
 *     bytes or reaching into the last 5, the rest a last literal run; with fresh runs of at most 64
 *     bytes the search never skips.
 *
 * toast_compress_datum keeps the result only when its varlena (an 8-byte header: length and the raw
 * size with the method) is more than 2 bytes smaller than the value; LZ4's output must not exceed the
 * value either [PG-TOAST]. k = 0 (the default) is a value with nothing to find: never compressed.
 */

import { COMPRESSIBILITY_STEPS } from '../config/spec.js';

/** The construction's block, and the shortest and longest repeat a block has. */
export const COMPRESS_BLOCK_BYTES = 64;
export const MIN_REPEAT_BYTES = 4;
export const MAX_REPEAT_BYTES = 60;
/** The largest share the 64-byte blocks hold (60/64), and the codes of `{ unit: U }`: UNIT_CODE_BASE + U. */
export const MAX_BLOCK_SHARE = MAX_REPEAT_BYTES / COMPRESS_BLOCK_BYTES;
export const UNIT_CODE_BASE = COMPRESSIBILITY_STEPS;
export const MAX_UNIT_BYTES = 64;

/** VARHDRSZ_COMPRESSED: a compressed varlena's 4-byte header and 4-byte raw size and method [PG-TOAST]. */
export const PG_VARHDRSZ_COMPRESSED = 8;
/** toast_compress_datum keeps a compressed value only when it saves more than 2 bytes [PG-TOAST]. */
const PG_COMPRESS_MIN_SAVING = 2;

/** PGLZ_strategy_default [PG-PGLZ]. */
const PGLZ_MIN_INPUT_BYTES = 32;
const PGLZ_MIN_COMP_RATE = 25;
const PGLZ_SHORT_TAG_MAX = 17;
const PGLZ_MAX_MATCH = 273;
/** A rest of a repeat shorter than this is literals (see above). */
const PGLZ_HASHED_BYTES = 4;

/** LZ4 block format limits [LZ4-BLOCK]. */
const LZ4_MINMATCH = 4;
const LZ4_MFLIMIT = 12;
const LZ4_LASTLITERALS = 5;
const LZ4_LENGTH_MASK = 15;

export type ToastCompression = 'pglz' | 'lz4';

/**
 * The construction code of a share c (0 … 60/64): round(64 c), none (0) under 4. A share beyond what the
 * blocks hold is an error (the config loader refuses it with a message first: src/loader/workload.ts).
 */
export function repeatBytes(compressibility: number): number {
  const m = Math.round(compressibility * COMPRESS_BLOCK_BYTES);
  if (m > MAX_REPEAT_BYTES)
    throw new RangeError(`compressibility ${compressibility} is over ${MAX_BLOCK_SHARE}: the 64-byte blocks hold at most 60 repeat bytes`);
  return m < MIN_REPEAT_BYTES ? 0 : m;
}

/** The construction code of `{ unit: U }`: a value that is its first U bytes repeated. */
export function unitCode(unit: number): number {
  if (!Number.isInteger(unit) || unit < 1 || unit > MAX_UNIT_BYTES)
    throw new RangeError(`a repeating unit is 1 … ${MAX_UNIT_BYTES} bytes, found ${unit}`);
  return UNIT_CODE_BASE + unit;
}

/** The unit of a construction code, or 0 for the 64-byte blocks (and none). */
export const unitOf = (k: number): number => (k > UNIT_CODE_BASE ? k - UNIT_CODE_BASE : 0);

/** Is k a code of a value with something to compress (not none, not a share under 4/64)? */
export const compresses = (k: number): boolean => k >= MIN_REPEAT_BYTES;

/**
 * The blocks of an n-byte value of construction k: visit(start, fresh, repeat) for each, the fresh
 * bytes first; each repeat copies the bytes `fresh` before it. 64-byte blocks: a last block's repeat
 * shorter than MIN_REPEAT_BYTES is fresh; a unit: one block; k under 4: all fresh.
 */
export function forEachBlock(n: number, k: number, visit: (start: number, fresh: number, repeat: number) => void): void {
  if (!compresses(k)) {
    if (n > 0) visit(0, n, 0);
    return;
  }
  if (k > UNIT_CODE_BASE) {
    const u = k - UNIT_CODE_BASE;
    if (n > 0) visit(0, Math.min(u, n), Math.max(0, n - u));
    return;
  }
  if (k > MAX_REPEAT_BYTES) throw new RangeError(`construction code ${k}: 64-byte blocks hold at most ${MAX_REPEAT_BYTES} repeat bytes`);
  const fresh = COMPRESS_BLOCK_BYTES - k;
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

/** Bytes pglz writes for an n-byte value of construction k, or −1 when it gives up. */
export function pglzBytes(n: number, k: number): number {
  if (n < PGLZ_MIN_INPUT_BYTES || !compresses(k)) return -1;
  let items = 0;
  let bytes = 0;
  forEachBlock(n, k, (_start, fresh, repeat) => {
    const full = Math.floor(repeat / PGLZ_MAX_MATCH);
    const rest = repeat - full * PGLZ_MAX_MATCH;
    const literals = fresh + (rest < PGLZ_HASHED_BYTES ? rest : 0);
    items += literals + full;
    bytes += literals + 3 * full;
    if (rest >= PGLZ_HASHED_BYTES) {
      items++;
      bytes += rest > PGLZ_SHORT_TAG_MAX ? 3 : 2;
    }
  });
  // The first match comes within 64 bytes: the first_success_by rule (1,024 output bytes) never applies.
  const out = bytes + Math.ceil(items / 8);
  return out >= Math.floor((n * (100 - PGLZ_MIN_COMP_RATE)) / 100) ? -1 : out;
}

const lz4LengthBytes = (len: number): number => (len >= LZ4_LENGTH_MASK ? 1 + Math.floor((len - LZ4_LENGTH_MASK) / 255) : 0);

/** Bytes LZ4 writes for an n-byte value of construction k. */
export function lz4Bytes(n: number, k: number): number {
  let out = 0;
  let anchor = 0;
  if (n > LZ4_MFLIMIT && compresses(k)) {
    let done = false;
    forEachBlock(n, k, (start, fresh, repeat) => {
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
 * The varlena bytes (8-byte header included) toast_compress_datum makes of an n-byte value of
 * construction k, or −1 when it keeps the value uncompressed.
 */
export function compressedDatumBytes(method: ToastCompression, n: number, k: number): number {
  if (!compresses(k)) return -1;
  const out = method === 'pglz' ? pglzBytes(n, k) : lz4Bytes(n, k);
  if (out < 0 || (method === 'lz4' && out > n)) return -1;
  const size = out + PG_VARHDRSZ_COMPRESSED;
  return size < n - PG_COMPRESS_MIN_SAVING ? size : -1;
}

/** compressedDatumBytes, remembered by (method, k, n): a run asks for the same few lengths again and again. */
export class CompressedSizes {
  private readonly cache = new Map<number, Int32Array>();
  constructor(readonly method: ToastCompression) {}
  bytes(n: number, k: number): number {
    if (!compresses(k)) return -1;
    let row = this.cache.get(k);
    if (!row) this.cache.set(k, (row = new Int32Array(0x10000).fill(-2)));
    let v = row[n]!;
    if (v === -2) row[n] = v = compressedDatumBytes(this.method, n, k);
    return v;
  }
}
