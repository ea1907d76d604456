/**
 * A file segment's pages as InnoDB reserves them (fsp0fsp.cc fseg_alloc_free_page_low, fseg_fill_free_list;
 * constants in fsp0fsp.h / fsp0types.h): each index has two segments, the leaf pages' (with the off-page
 * column pages) and the non-leaf pages' (with the root). A segment takes its first FSEG_FRAG_LIMIT pages
 * (half an extent) one at a time from fragment extents, then whole extents; it takes a new extent early
 * when fewer than 1/FSEG_FILLFACTOR of its reserved pages are free, and a large segment (at least
 * FSEG_FREE_LIST_LIMIT extents) keeps up to FSEG_FREE_LIST_MAX_LEN free extents. `used` is what
 * mysql.innodb_index_stats calls n_leaf_pages for the leaf segment, `reserved` what `size` adds up.
 *
 * Freeing follows fseg_free_page_low: a fragment page goes back to the file's fragment extents at once; a
 * page of one of the segment's extents is marked free in it, and the extent goes back to the file's free
 * list (fsp_free_extent) when its last used page is freed, so `reserved` (`size`) falls. Each page is
 * placed in an extent: the extent of the page split when it has a free page (the hint), else the segment's
 * first extent with a free page (its FSEG_NOT_FULL list, then its FSEG_FREE list).
 *
 * Simplified: the lists' order is the extents' order of taking; off-page column pages are freed last-in
 * first-out (the pages of a row are not remembered).
 */
import type { Space } from './space.js';

/** FSEG_FILLFACTOR: a new extent is taken when free reserved pages fall below reserved / 8. */
const FSEG_FILLFACTOR = 8;
/** FSEG_FREE_LIST_LIMIT: a segment of at least this many extents keeps spare extents on its free list. */
const FSEG_FREE_LIST_LIMIT_EXTENTS = 40;
/** FSEG_FREE_LIST_MAX_LEN: spare extents added at once when the segment's free list is empty. */
const FSEG_FREE_LIST_MAX_LEN = 4;

/** The slot of a fragment page (not in one of the segment's extents). */
export const FRAGMENT = -1;

export class Segment {
  used = 0;
  reserved = 0;
  /** Pages of the segment's fragment array in use (at most fragLimit). */
  private fragments = 0;
  /** Per extent the segment has taken (in the order taken): its pages in use, -1 once given back. */
  private extentUsed: number[] = [];
  /** The slots of off-page column pages, most recent last. */
  private offPage: number[] = [];

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
   * `hintExtent`: the extent of the page split. Returns the page's slot: FRAGMENT or its extent, for its freeing.
   */
  alloc(hinted = false, hintExtent = FRAGMENT): number {
    const free = this.reserved - this.used;
    this.used++;
    if (hinted && free > 0) return this.place(hintExtent);
    if (this.used > this.fragLimit && free < this.reserved / FSEG_FILLFACTOR) {
      const x = this.takeExtents(1);
      this.fillFreeList();
      return this.place(x);
    } else if (free <= 0) {
      if (this.used <= this.fragLimit) {
        this.fragments++;
        this.reserved++;
        this.space.takeFragPage();
        return FRAGMENT;
      }
      return this.place(this.takeExtents(1));
    }
    return this.place(hintExtent);
  }

  /** A page of extent x when it has one free (the hint, fseg_alloc_free_page_low), else of the first extent with one. */
  private place(x: number): number {
    const full = this.extentPages;
    let at = x >= 0 && this.extentUsed[x]! >= 0 && this.extentUsed[x]! < full ? x : -1;
    for (let i = 0; at < 0 && i < this.extentUsed.length; i++) {
      const u = this.extentUsed[i]!;
      if (u > 0 && u < full) at = i;
    }
    if (at < 0) at = this.extentUsed.indexOf(0);
    if (at < 0) throw new Error('innodb segment: no free page in its extents');
    this.extentUsed[at]!++;
    return at;
  }

  /** n extents taken from the file; returns the first one's number in the segment. */
  private takeExtents(n: number): number {
    const first = this.extentUsed.length;
    for (let i = 0; i < n; i++) {
      this.space.takeExtent();
      this.extentUsed.push(0);
    }
    this.reserved += n * this.extentPages;
    return first;
  }

  /** n pages at once (the off-page pages of one value: btr_store_big_rec_extern_fields hints the page after the last). */
  allocMany(n: number): void {
    for (let i = 0; i < n; i++) this.offPage.push(this.alloc(true, this.offPage[this.offPage.length - 1] ?? FRAGMENT));
  }

  /**
   * The page in `slot` given back (fseg_free_page_low): a fragment page returns to the file's fragment
   * extents; a page of an extent is marked free, and the extent returns to the file's free list once none
   * of its pages is in use (fsp_free_extent).
   */
  free(slot: number): void {
    if (this.used === 0) return;
    this.used--;
    if (slot === FRAGMENT) {
      if (this.fragments === 0) return;
      this.fragments--;
      this.reserved--;
      this.space.freeFragPage();
    } else if (--this.extentUsed[slot]! === 0) {
      this.extentUsed[slot] = -1;
      this.reserved -= this.extentPages;
      this.space.freeExtent();
    }
  }

  /** n off-page column pages given back. */
  freeMany(n: number): void {
    for (let i = 0; i < n; i++) this.free(this.offPage.pop() ?? FRAGMENT);
  }

  /** fseg_fill_free_list: a large segment takes spare extents with the one it needed. */
  private fillFreeList(): void {
    if (this.reserved < FSEG_FREE_LIST_LIMIT_EXTENTS * this.extentPages) return;
    this.takeExtents(FSEG_FREE_LIST_MAX_LEN);
  }

  /** Every page given back (a rebuild drops the old segments and their file). */
  reset(): void {
    this.used = this.reserved = this.fragments = 0;
    this.extentUsed = [];
    this.offPage = [];
  }
}
