/**
 * The largest index entry PostgreSQL stores, and its error for a larger one (SQLSTATE 54000,
 * program_limit_exceeded; workload/index-refusal.ts says where a run meets it):
 *   - index_form_tuple (indextuple.c): a tuple above INDEX_SIZE_MASK (8,191 bytes), its size MAXALIGNed;
 *   - _bt_check_third_page (nbtutils.c): a tuple above BTMaxItemSize (the geometry's maxTupleBytes, 2,704
 *     bytes on 8K pages), its size MAXALIGNed.
 */
import type { IndexGeometry } from './geometry.js';

/** INDEX_SIZE_MASK (itup.h): the largest index tuple index_form_tuple makes. */
export const PG_INDEX_TUPLE_MAX_BYTES = 0x1fff;
/** BTREE_VERSION (nbtree.h) of an index PostgreSQL 12 and later create. */
const PG_BTREE_VERSION = 4;

/** An entry over a limit: the index, the entry's bytes (MAXALIGNed, as the server says them), the limit passed. */
export interface OversizeEntry {
  index: string;
  bytes: number;
  limit: number;
}

/** An entry of `bytes` over what the server stores in index g (INDEX_SIZE_MASK first, then g's largest item), or null. */
export function overLimit(g: IndexGeometry, bytes: number): OversizeEntry | null {
  if (bytes > PG_INDEX_TUPLE_MAX_BYTES) return { index: g.name, bytes, limit: PG_INDEX_TUPLE_MAX_BYTES };
  if (g.maxTupleBytes !== undefined && bytes > g.maxTupleBytes) return { index: g.name, bytes, limit: g.maxTupleBytes };
  return null;
}

/** The server's error message for the entry (without its DETAIL), as PostgreSQL 15 words it. */
export function serverText(e: OversizeEntry): string {
  return e.limit === PG_INDEX_TUPLE_MAX_BYTES
    ? `index row requires ${e.bytes} bytes, maximum size is ${e.limit}`
    : `index row size ${e.bytes} exceeds btree version ${PG_BTREE_VERSION} maximum ${e.limit} for index "${e.index}"`;
}
