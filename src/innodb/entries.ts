/** The records of an InnoDB tree's pages by kind (tree.ts): leaf records by entry id, node pointers by child page. */
import { grown } from '../util/arrays.js';

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
