/**
 * A file segment's pages as InnoDB reserves them (fsp0fsp.cc fseg_alloc_free_page_low, fseg_free_page_low,
 * fseg_fill_free_list; constants in fsp0fsp.h / fsp0types.h): each index has two segments, the leaf pages'
 * (with the off-page column pages) and the non-leaf pages' (with the root). `used` is what
 * mysql.innodb_index_stats calls n_leaf_pages for the leaf segment, `reserved` what `size` adds up.
 *
 * Every page has a place: a fragment page (the segment's first FSEG_FRAG_LIMIT pages, half an extent, taken
 * one at a time from the file's fragment extents) or a page of one of the segment's extents. A new page
 * is the hinted one (the page beside the page split) when it is free in the segment; else, when fewer
 * than 1/FSEG_FILLFACTOR of the reserved pages are free, the first or last page of a free extent (the
 * segment's FSEG_FREE list first, else the file's); else a free page of the hinted page's extent, of the
 * segment's FSEG_NOT_FULL extents, of its FSEG_FREE extents; else a fragment page; else a new extent. A
 * large segment (at least FSEG_FREE_LIST_LIMIT extents) keeps up to FSEG_FREE_LIST_MAX_LEN free extents.
 *
 * Freeing (fseg_free_page_low): a fragment page goes back to the file at once; a page of an extent is
 * marked free there, and the extent goes back to the file's free list (fsp_free_extent) when its last
 * used page is freed: `reserved` (`size`) falls and DATA_FREE grows.
 *
 * Simplified: the segment's extents are numbered in the order taken, not by their place in the file (a
 * hint past an extent's end is no hint; fseg_alloc_free_page_low's case of a hint in a free extent of the
 * file is its FSEG_FILLFACTOR case).
 */
import type { Space } from './space.js';

/** FSEG_FILLFACTOR: a new extent is taken when free reserved pages fall below reserved / 8. */
const FSEG_FILLFACTOR = 8;
/** FSEG_FREE_LIST_LIMIT: a segment of at least this many extents keeps spare extents on its free list. */
const FSEG_FREE_LIST_LIMIT_EXTENTS = 40;
/** FSEG_FREE_LIST_MAX_LEN: spare extents added at once when the segment's free list is empty. */
const FSEG_FREE_LIST_MAX_LEN = 4;

/** The place of a fragment page; other places are extent × extentPages + the page's offset in it. */
export const FRAGMENT = -1;

/** The way a split's records go (FSP_UP: the new page after the page split, FSP_DOWN: before), or none. */
export type Direction = 'up' | 'down' | 'none';

export class Segment {
  used = 0;
  reserved = 0;
  /** Pages of the segment's fragment array in use (at most fragLimit). */
  private fragments = 0;
  /** Per extent the segment has taken (in the order taken): its pages in use, -1 once given back. */
  private extentUsed: number[] = [];
  /** Per place in the segment's extents: 1 when the page is in use (XDES_FREE_BIT clear). */
  private pageUsed = new Uint8Array(0);
  /** FSEG_NOT_FULL: extents with some pages in use, in list order. */
  private notFull: number[] = [];
  /** FSEG_FREE: extents of the segment with no page in use. */
  private spare: number[] = [];
  /** The place of the off-page column page taken last (the hint for the next). */
  private lastOffPage = FRAGMENT;

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
   * The hint for a page beside the page at `place` (btr_page_split_and_insert: the page after it going up,
   * before it going down): FRAGMENT when that is not in the same extent of the segment.
   */
  beside(place: number, dir: Direction): number {
    if (place < 0) return FRAGMENT;
    const e = this.extentPages;
    const to = dir === 'down' ? place - 1 : place + 1;
    return Math.floor(to / e) === Math.floor(place / e) && to >= 0 ? to : FRAGMENT;
  }

  /**
   * One page allocated to the segment (fseg_alloc_free_page_low, its cases in order): a split's new page
   * (hint: the page beside the page split), a new root level, an off-page column page. Returns its place.
   */
  alloc(hint = FRAGMENT, dir: Direction = 'none'): number {
    const free = this.reserved - this.used;
    const usedBefore = this.used++;
    const e = this.extentPages;
    if (hint >= 0 && this.pageUsed[hint] === 0 && this.extentUsed[Math.floor(hint / e)]! >= 0) return this.mark(hint);
    if (dir !== 'none' && usedBefore >= this.fragLimit && free < Math.floor(this.reserved / FSEG_FILLFACTOR)) {
      return this.mark(this.freeExtent() * e + (dir === 'down' ? e - 1 : 0));
    }
    const hx = hint >= 0 ? Math.floor(hint / e) : -1;
    if (hx >= 0 && this.extentUsed[hx]! >= 0 && this.extentUsed[hx]! < e) return this.mark(this.findFree(hx, hint % e));
    if (free > 0) return this.mark(this.findFree(this.notFull[0] ?? this.spare[0]!, 0));
    if (usedBefore < this.fragLimit) {
      this.fragments++;
      this.reserved++;
      this.space.takeFragPage();
      return FRAGMENT;
    }
    return this.mark(this.freeExtent() * e);
  }

  /** xdes_find_free: the first free page of extent x from offset `from` on, then from its start. */
  private findFree(x: number, from: number): number {
    const e = this.extentPages;
    for (let i = 0; i < e; i++) {
      const at = x * e + ((from + i) % e);
      if (this.pageUsed[at] === 0) return at;
    }
    throw new Error(`innodb segment: extent ${x} has no free page`);
  }

  /** fseg_mark_page_used: the extent moves from FSEG_FREE to FSEG_NOT_FULL, and off it once full. */
  private mark(place: number): number {
    const x = Math.floor(place / this.extentPages);
    this.pageUsed[place] = 1;
    if (this.extentUsed[x] === 0) {
      this.spare.splice(this.spare.indexOf(x), 1);
      this.notFull.push(x);
    }
    if (++this.extentUsed[x]! === this.extentPages) this.notFull.splice(this.notFull.indexOf(x), 1);
    return place;
  }

  /** fseg_alloc_free_extent: the first extent of the segment's free list, else one of the file's. */
  private freeExtent(): number {
    if (this.spare.length === 0) {
      this.takeExtents(1);
      this.fillFreeList();
    }
    return this.spare[0]!;
  }

  private takeExtents(n: number): void {
    for (let i = 0; i < n; i++) {
      this.space.takeExtent();
      this.spare.push(this.extentUsed.length);
      this.extentUsed.push(0);
    }
    this.reserved += n * this.extentPages;
    if (this.pageUsed.length < this.extentUsed.length * this.extentPages) {
      const grown = new Uint8Array(Math.max(this.extentUsed.length * this.extentPages, this.pageUsed.length * 2));
      grown.set(this.pageUsed);
      this.pageUsed = grown;
    }
  }

  /** n off-page column pages (btr_store_big_rec_extern_fields hints the page after the last): their places. */
  allocMany(n: number): number[] {
    const places: number[] = [];
    for (let i = 0; i < n; i++) {
      this.lastOffPage = this.alloc(this.beside(this.lastOffPage, 'up'));
      places.push(this.lastOffPage);
    }
    return places;
  }

  /**
   * The page at `place` given back (fseg_free_page_low): a fragment page returns to the file's fragment
   * extents; a page of an extent is marked free, and the extent returns to the file's free list once none
   * of its pages is in use (fsp_free_extent).
   */
  free(place: number): void {
    if (this.used === 0) return;
    this.used--;
    if (place === FRAGMENT) {
      if (this.fragments === 0) return;
      this.fragments--;
      this.reserved--;
      this.space.freeFragPage();
      return;
    }
    const x = Math.floor(place / this.extentPages);
    this.pageUsed[place] = 0;
    if (this.extentUsed[x] === this.extentPages) this.notFull.push(x);
    if (--this.extentUsed[x]! > 0) return;
    this.notFull.splice(this.notFull.indexOf(x), 1);
    this.extentUsed[x] = -1;
    this.reserved -= this.extentPages;
    this.space.freeExtent();
  }

  /** Off-page column pages given back, by their places (a purged row's own: btr_free_externally_stored_field). */
  freeMany(places: readonly number[]): void {
    for (const place of places) this.free(place);
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
    this.pageUsed = new Uint8Array(0);
    this.notFull = [];
    this.spare = [];
    this.lastOffPage = FRAGMENT;
  }
}
