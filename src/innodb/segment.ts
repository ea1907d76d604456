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
import type { Space } from './space.js';

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
    /** The file the segment takes its extents and fragment pages from. */
    private readonly space: Space,
  ) {}

  /** FSEG_FRAG_LIMIT (FSEG_FRAG_ARR_N_SLOTS = FSP_EXTENT_SIZE / 2): pages taken one at a time. */
  get fragLimit(): number {
    return this.extentPages / 2;
  }

  /**
   * One page allocated to the segment (a split, a new root, an off-page column page). `hinted`: the page
   * after the one split is the segment's next free page (the split page was the last one allocated), and
   * fseg_alloc_free_page_low takes it while the extent has room, before its FSEG_FILLFACTOR rule.
   * Returns whether the page is a fragment page (given back to the file when freed).
   */
  alloc(hinted = false): boolean {
    const free = this.reserved - this.used;
    this.used++;
    if (hinted && free > 0) return false;
    if (this.used > this.fragLimit && free < this.reserved / FSEG_FILLFACTOR) {
      this.takeExtents(1);
      this.fillFreeList();
    } else if (free <= 0) {
      if (this.used <= this.fragLimit) {
        this.fragments++;
        this.reserved++;
        this.space.takeFragPage();
        return true;
      }
      this.takeExtents(1);
    }
    return false;
  }

  private takeExtents(n: number): void {
    for (let i = 0; i < n; i++) this.space.takeExtent();
    this.reserved += n * this.extentPages;
  }

  /** n pages at once (the off-page pages of one value: btr_store_big_rec_extern_fields hints the page after the last). */
  allocMany(n: number): void {
    for (let i = 0; i < n; i++) this.alloc(true);
  }

  /** A page given back: a fragment page returns to the file, a page of an extent stays reserved. */
  free(fragment = false): void {
    if (this.used === 0) return;
    this.used--;
    if (fragment && this.fragments > 0) {
      this.fragments--;
      this.reserved--;
      this.space.freeFragPage();
    }
  }

  /** n pages of extents given back (off-page column pages). */
  freeMany(n: number): void {
    for (let i = 0; i < n; i++) this.free(false);
  }

  /** fseg_fill_free_list: a large segment takes spare extents with the one it needed. */
  private fillFreeList(): void {
    if (this.reserved < FSEG_FREE_LIST_LIMIT_EXTENTS * this.extentPages) return;
    this.takeExtents(FSEG_FREE_LIST_MAX_LEN);
  }

  /** Every page given back (a rebuild drops the old segments and their file). */
  reset(): void {
    this.used = this.reserved = this.fragments = 0;
  }
}
