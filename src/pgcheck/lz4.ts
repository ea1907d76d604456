/**
 * The size of LZ4's output for a value, as PostgreSQL compresses it (lz4_compress_datum calls
 * LZ4_compress_default with a bound-sized buffer: inputs under 64 KB use the 16-bit hash table, a fresh
 * zeroed state, acceleration 1) [PG-LZ4][LZ4-BLOCK]. pg-check runs it over every compressible value it makes
 * and refuses a value whose size is not the one the model predicts (src/formats/pg-compression.ts).
 * Written from the LZ4 block format and the description of lz4.c's fast compressor (no code copied):
 *
 *   - sequences of a token (4 bits of literal length, 4 of match length − 4), more length bytes of 255
 *     when a length reaches 15, the literals, a 2-byte offset and more match-length bytes;
 *   - positions are hashed by their next 4 bytes (× 2654435761, the top 13 bits) into a table of the
 *     last position seen with that hash (zeroed: an empty slot points at position 0);
 *   - the search moves one byte at a time, then faster after 64 misses (step = misses ≫ 6); a match of
 *     4 equal bytes is extended forward up to 5 bytes before the end and backward over equal bytes;
 *     no match starts in the last 12 bytes; after a match, position end − 2 is hashed and the next
 *     position tried at once;
 *   - inputs under 13 bytes are all literals.
 */

const LZ4_MINMATCH = 4;
const LZ4_MFLIMIT = 12;
const LZ4_LASTLITERALS = 5;
const LZ4_MIN_LENGTH = LZ4_MFLIMIT + 1;
const LZ4_SKIP_TRIGGER = 6;
/** LZ4_MEMORY_USAGE 14: a 16-bit table of 2^13 entries for inputs under 64 KB [LZ4-BLOCK]. */
const LZ4_HASH_BITS = 13;
const LZ4_RUN_MASK = 15;
const LZ4_ML_MASK = 15;
/** Inputs of LZ4_64Klimit bytes or more use another table (not modelled: rowsim values are shorter). */
export const LZ4_64K_LIMIT = 65536 + LZ4_MFLIMIT - 1;

const read32 = (s: Uint8Array, p: number): number => (s[p]! | (s[p + 1]! << 8) | (s[p + 2]! << 16) | (s[p + 3]! << 24)) >>> 0;
const hash = (s: Uint8Array, p: number): number => Math.imul(read32(s, p), 2654435761) >>> (32 - LZ4_HASH_BITS);

/** Bytes of a length field beyond the token's 4 bits: one byte of 255 for each 255, then the rest. */
const extraLengthBytes = (len: number, mask: number): number => (len >= mask ? 1 + Math.floor((len - mask) / 255) : 0);

/** The hash table, reused (zeroed) from call to call. */
const table = new Uint16Array(1 << LZ4_HASH_BITS);

/** Bytes LZ4_compress_default writes for `src` (a value under 64 KB). */
export function lz4CompressedSize(src: Uint8Array): number {
  const n = src.length;
  if (n >= LZ4_64K_LIMIT) throw new Error(`lz4CompressedSize models inputs under ${LZ4_64K_LIMIT} bytes, found ${n}`);
  let out = 0;
  let anchor = 0;
  const literals = (count: number): void => {
    out += 1 + extraLengthBytes(count, LZ4_RUN_MASK) + count;
  };
  if (n >= LZ4_MIN_LENGTH) {
    table.fill(0);
    const mflimitPlusOne = n - LZ4_MFLIMIT + 1;
    const matchLimit = n - LZ4_LASTLITERALS;
    table[hash(src, 0)] = 0;
    let ip = 1;
    let forwardH = hash(src, ip);
    search: for (;;) {
      // Find a match, faster and faster the longer none is found.
      let forward = ip;
      let step = 1;
      let attempts = 1 << LZ4_SKIP_TRIGGER;
      let match: number;
      for (;;) {
        const h = forwardH;
        const current = forward;
        match = table[h]!;
        ip = forward;
        forward += step;
        step = attempts++ >> LZ4_SKIP_TRIGGER;
        if (forward > mflimitPlusOne) break search;
        forwardH = hash(src, forward);
        table[h] = current;
        if (read32(src, match) === read32(src, ip)) break;
      }
      // Back over equal bytes before the match.
      while (ip > anchor && match > 0 && src[ip - 1] === src[match - 1]) {
        ip--;
        match--;
      }
      let litLength = ip - anchor;
      for (;;) {
        // The sequence: token, literal length, literals, offset, match length.
        let len = LZ4_MINMATCH;
        while (ip + len < matchLimit && src[ip + len] === src[match + len]) len++;
        out += 1 + extraLengthBytes(litLength, LZ4_RUN_MASK) + litLength + 2 + extraLengthBytes(len - LZ4_MINMATCH, LZ4_ML_MASK);
        ip += len;
        anchor = ip;
        if (ip >= mflimitPlusOne) break search;
        table[hash(src, ip - 2)] = ip - 2;
        // The very next position, with no literals between.
        const h = hash(src, ip);
        match = table[h]!;
        table[h] = ip;
        if (read32(src, match) !== read32(src, ip)) break;
        litLength = 0;
      }
      forwardH = hash(src, ++ip);
    }
  }
  literals(n - anchor);
  return out;
}
