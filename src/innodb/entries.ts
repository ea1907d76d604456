/** An InnoDB tree's settings, counters and records by kind (tree.ts): leaf records by entry id, node pointers by child page. */
import { grown } from '../util/arrays.js';
import type { Space } from './space.js';

export interface TreeOptions {
  name: string;
  /** page_get_free_space_of_empty(): bytes an empty page offers records and their directory slots. */
  freeSpaceOfEmpty: number;
  /** dict_index_get_space_reserve() (page / 16) for a clustered index's leaves, 0 for a secondary index. */
  convergingReserve: number;
  /** BTR_CUR_PAGE_COMPRESS_LIMIT: page × MERGE_THRESHOLD / 100; a page below it is merged where it can be. */
  mergeLimitBytes: number;
  /** BTR_CUR_PAGE_REORGANIZE_LIMIT: page / 32. */
  reorganizeLimitBytes: number;
  /** btr0bulk m_reserved_space: bytes a sorted build leaves free on every page. */
  buildReserveBytes: number;
  /** FSP_EXTENT_SIZE in pages. */
  extentPages: number;
  /** The table's file, shared by its indexes' segments. */
  space: Space;
}

export interface TreeCounters {
  page_splits: number;
  page_merges: number;
  page_reorganizes: number;
  inserts_to_right_sibling: number;
}

/** Entries of one level kind: leaf records by entry id, node pointers by child page. */
export class Entries {
  key = new Float64Array(64);
  tie = new Float64Array(64);
  bytes = new Int32Array(64);
  page = new Int32Array(64).fill(-1);
  /** Node pointers: the leaf entry whose key the pointer copies (ties with the pages above resolve as PAGE_CUR_LE). */
  origin = new Int32Array(64);

  ensure(n: number): void {
    if (n <= this.key.length) return;
    const old = this.page.length;
    this.key = grown(this.key, n);
    this.tie = grown(this.tie, n);
    this.bytes = grown(this.bytes, n);
    this.page = grown(this.page, n);
    this.origin = grown(this.origin, n);
    this.page.fill(-1, old);
  }
}

/** PAGE_DIR_SLOT_SIZE and PAGE_DIR_SLOT_MIN_N_OWNED (page0page.h). */
const DIR_SLOT_BYTES = 2;
const DIR_SLOT_MIN_OWNED = 4;

/** page_dir_calc_reserved_space(): directory bytes reserved for n records, ⌈2n / 4⌉. */
export function dirReserved(n: number): number {
  return Math.floor((DIR_SLOT_BYTES * n + DIR_SLOT_MIN_OWNED - 1) / DIR_SLOT_MIN_OWNED);
}
