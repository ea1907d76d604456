/**
 * A file segment's pages as InnoDB reserves them (fsp0fsp.cc fseg_alloc_free_page_low, fseg_fill_free_list;
 * constants in fsp0fsp.h / fsp0types.h): each index has two segments, the leaf pages' (with the off-page
 * column pages) and the non-leaf pages' (with the root). A segment takes its first FSEG_FRAG_LIMIT pages
 * (half an extent) one at a time from fragment extents, then whole extents; it takes a new extent early
 * when fewer than 1/FSEG_FILLFACTOR of its reserved pages are free, and a large segment (at least
 * FSEG_FREE_LIST_LIMIT extents) keeps up to FSEG_FREE_LIST_MAX_LEN free extents. `used` is what
 * mysql.innodb_index_stats calls n_leaf_pages for the leaf segment, `reserved` what `size` adds up.
 *
 * Simplified: a page freed inside an extent stays reserved (InnoDB gives an extent back to the space once
 * every page of it is free: not tracked, so `reserved` is an upper bound after many frees).
 */

/** FSEG_FILLFACTOR: a new extent is taken when free reserved pages fall below reserved / 8. */
const FSEG_FILLFACTOR = 8;
/** FSEG_FREE_LIST_LIMIT: a segment of at least this many extents keeps spare extents on its free list. */
const FSEG_FREE_LIST_LIMIT_EXTENTS = 40;
/** FSEG_FREE_LIST_MAX_LEN: spare extents added at once when the segment's free list is empty. */
const FSEG_FREE_LIST_MAX_LEN = 4;

export class Segment {
  used = 0;
  reserved = 0;
  /** Pages of the segment's fragment array in use (at most fragLimit). */
  private fragments = 0;

  constructor(
    /** FSP_EXTENT_SIZE: pages an extent (64 at 16K and above, 1 MiB of pages below). */
    readonly extentPages: number,
  ) {}

  /** FSEG_FRAG_LIMIT (FSEG_FRAG_ARR_N_SLOTS = FSP_EXTENT_SIZE / 2): pages taken one at a time. */
  get fragLimit(): number {
    return this.extentPages / 2;
  }

  /** One page allocated to the segment (a split, a new root, an off-page column page). */
  alloc(): void {
    const free = this.reserved - this.used;
    if (this.used >= this.fragLimit && free < this.reserved / FSEG_FILLFACTOR) {
      this.reserved += this.extentPages;
      this.fillFreeList();
    } else if (free <= 0) {
      if (this.used < this.fragLimit) {
        this.fragments++;
        this.reserved++;
      } else this.reserved += this.extentPages;
    }
    this.used++;
  }

  /** n pages at once (the off-page pages of one value). */
  allocMany(n: number): void {
    for (let i = 0; i < n; i++) this.alloc();
  }

  /** A page given back: a fragment page returns to the space, a page of an extent stays reserved. */
  free(n = 1): void {
    for (let i = 0; i < n && this.used > 0; i++) {
      this.used--;
      if (this.used < this.fragments) {
        this.fragments--;
        this.reserved--;
      }
    }
  }

  /** fseg_fill_free_list: a large segment takes spare extents with the one it needed. */
  private fillFreeList(): void {
    if (this.reserved < FSEG_FREE_LIST_LIMIT_EXTENTS * this.extentPages) return;
    this.reserved += FSEG_FREE_LIST_MAX_LEN * this.extentPages;
  }

  /** Every page given back (a rebuild drops the old segments). */
  reset(): void {
    this.used = this.reserved = this.fragments = 0;
  }
}
