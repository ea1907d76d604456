/**
 * A file segment's pages as InnoDB reserves them (fsp0fsp.cc fseg_alloc_free_page_low, fseg_free_page_low,
 * fseg_alloc_free_extent; constants in fsp0fsp.h / fsp0types.h): each index has two segments, the leaf
 * pages' (with the off-page column pages) and the non-leaf pages' (with the root). `used` is what
 * mysql.innodb_index_stats calls n_leaf_pages for the leaf segment, `reserved` what `size` adds up.
 * Pages are numbered by their place in the file (space.ts), so a hint is a page of the file.
 *
 * A new page (fseg_alloc_free_page_low as MariaDB 10.11 has it since MDEV-33542, its cases in order):
 *   1. the hinted page, when its extent is the segment's and the page is free; else a free page of that
 *      extent from the hint on;
 *   2. when the segment uses at least FSEG_FRAG_LIMIT pages and fewer than 1/FSEG_FILLFACTOR of its
 *      reserved pages (and fewer than four extents' worth) are free: the hinted extent itself when it is
 *      free in the file, the hinted page in it; else, for a split (a direction), an extent of the
 *      segment's FSEG_FREE list or of the file, its first page going up, its last going down;
 *   3. a free page of the first FSEG_NOT_FULL extent, else of the first FSEG_FREE one;
 *   4. under FSEG_FRAG_LIMIT pages, a fragment page (fsp_alloc_free_page, the hint's fragment extent first);
 *   5. a new extent's first page.
 * fseg_fill_free_list is called only after an extent has been put on FSEG_FREE, and returns when that list
 * is not empty: it never adds an extent.
 *
 * Freeing (fseg_free_page_low): a fragment page goes back to the file at once; a page of an extent is
 * marked free there, and the extent goes back to the file's free list (fsp_free_extent) when its last
 * used page is freed: `reserved` (`size`) falls and DATA_FREE grows.
 */
import { removeExtent, XDES_FREE, type Space } from './space.js';

/** FSEG_FILLFACTOR: a new extent is taken when free reserved pages fall below reserved / 8. */
const FSEG_FILLFACTOR = 8;
/** MDEV-33542: …and below four extents' worth of pages. */
const FSEG_MAX_SPARE_EXTENTS = 4;

/** The way a split's records go (FSP_UP: the new page after the page split, FSP_DOWN: before), or none. */
export type Direction = 'up' | 'down' | 'none';

export class Segment {
  used = 0;
  reserved = 0;
  /** FSEG_ID. */
  private id: number;
  /** The file generation the segment's pages belong to. */
  private generation: number;
  /** The fragment page array's pages in use (at most fragLimit). */
  private frags: number[] = [];
  /** FSEG_NOT_FULL and FSEG_FREE: the segment's extents with some pages in use, and with none, in list order. */
  private notFull: number[] = [];
  private spare: number[] = [];
  /** The segment's extents (FSEG_FULL included), for giving them back. */
  private extents = new Set<number>();

  constructor(
    /** FSP_EXTENT_SIZE: pages an extent (64 at 16K and above, 1 MiB of pages below). */
    readonly extentPages: number,
    /** The file the segment takes its extents and fragment pages from. */
    private readonly space: Space,
  ) {
    this.id = space.newSegment();
    this.generation = space.generation;
  }

  /** FSEG_FRAG_LIMIT (FSEG_FRAG_ARR_N_SLOTS = FSP_EXTENT_SIZE / 2): pages taken one at a time. */
  get fragLimit(): number {
    return this.extentPages / 2;
  }

  /** The hint for a page beside page `place` (btr_page_split_and_insert: the page after it going up, before it going down). */
  beside(place: number, dir: Direction): number {
    return dir === 'down' ? place - 1 : place + 1;
  }

  /**
   * One page allocated to the segment (fseg_alloc_free_page_low): a split's new page (hint: the page
   * beside the page split), a new root level or a sorted build's page (hint 0), an off-page column page.
   * Returns its page number in the file.
   */
  alloc(hint = 0, dir: Direction = 'none'): number {
    const sp = this.space;
    const e = this.extentPages;
    if (sp.described(hint) < 0) hint = 0;
    const hx = Math.floor(hint / e);
    if (sp.ownerOf(hx) === this.id) {
      if (!sp.isUsed(hint)) return this.mark(hint);
      if (sp.usedIn(hx) < e) return this.mark(sp.findFree(hx, hint % e));
    }
    const free = this.reserved - this.used;
    if (this.used >= this.fragLimit && free < Math.floor(this.reserved / FSEG_FILLFACTOR) && free < FSEG_MAX_SPARE_EXTENTS * e) {
      if (sp.stateOf(hx) === XDES_FREE) {
        this.own(sp.takeExtent(hint, this.id));
        return this.mark(hint);
      }
      if (dir !== 'none') return this.mark(this.freeExtent() * e + (dir === 'down' ? e - 1 : 0));
    }
    if (free > 0) return this.mark(sp.findFree(this.notFull[0] ?? this.spare[0]!, 0));
    if (this.used < this.fragLimit) {
      const page = sp.takeFragPage(hint);
      this.frags.push(page);
      this.used++;
      this.reserved++;
      return page;
    }
    return this.mark(this.freeExtent() * e);
  }

  /** fseg_mark_page_used: the extent moves from FSEG_FREE to FSEG_NOT_FULL, and off it once full. */
  private mark(page: number): number {
    if (!(page >= 0)) throw new Error('innodb segment: no free page where the segment counted one');
    const x = Math.floor(page / this.extentPages);
    if (this.space.usedIn(x) === 0) {
      removeExtent(this.spare, x);
      this.notFull.push(x);
    }
    this.space.setUsed(page, true);
    if (this.space.usedIn(x) === this.extentPages) removeExtent(this.notFull, x);
    this.used++;
    return page;
  }

  private own(x: number): void {
    this.spare.push(x);
    this.extents.add(x);
    this.reserved += this.extentPages;
  }

  /** fseg_alloc_free_extent: the first extent of the segment's free list, else one of the file's (hint 0). */
  private freeExtent(): number {
    if (this.spare.length === 0) this.own(this.space.takeExtent(0, this.id));
    return this.spare[0]!;
  }

  /** n off-page column pages (btr_store_big_rec_extern_fields: the first hints the page after the record's, each next the page after the last). */
  allocMany(n: number, recordPage: number): number[] {
    const places: number[] = [];
    let hint = recordPage + 1;
    for (let i = 0; i < n; i++) {
      const page = this.alloc(hint);
      places.push(page);
      hint = page + 1;
    }
    return places;
  }

  /**
   * The page given back (fseg_free_page_low): a fragment page returns to the file's fragment extents; a
   * page of an extent is marked free, and the extent returns to the file's free list once none of its
   * pages is in use (fsp_free_extent).
   */
  free(page: number): void {
    if (this.generation !== this.space.generation) return;
    const slot = this.frags.indexOf(page);
    if (slot >= 0) {
      this.frags.splice(slot, 1);
      this.used--;
      this.reserved--;
      this.space.freeFragPage(page);
      return;
    }
    const x = Math.floor(page / this.extentPages);
    if (!this.extents.has(x) || !this.space.isUsed(page)) return;
    this.used--;
    if (this.space.usedIn(x) === this.extentPages) this.notFull.push(x);
    this.space.setUsed(page, false);
    if (this.space.usedIn(x) > 0) return;
    removeExtent(this.notFull, x);
    this.extents.delete(x);
    this.reserved -= this.extentPages;
    this.space.freeExtent(x);
  }

  /** Off-page column pages given back (a purged row's own: btr_free_externally_stored_field). */
  freeMany(places: readonly number[]): void {
    for (const place of places) this.free(place);
  }

  /** The segment's counts against the file's extents (run --check): used and reserved pages, ownership, FSEG_FREE and FSEG_NOT_FULL. */
  check(name: string): string[] {
    const sp = this.space;
    if (this.generation !== sp.generation) return [];
    const bad: string[] = [];
    const e = this.extentPages;
    let used = this.frags.length;
    for (const page of this.frags) if (!sp.isUsed(page)) bad.push(`${name}: fragment page ${page} is free in the file`);
    for (const x of this.extents) {
      const n = sp.usedIn(x);
      used += n;
      if (sp.ownerOf(x) !== this.id) bad.push(`${name}: extent ${x} is not owned by the segment`);
      const where = n === 0 ? this.spare : n < e ? this.notFull : null;
      const lists = Number(this.spare.includes(x)) + Number(this.notFull.includes(x));
      if (where === null ? lists !== 0 : lists !== 1 || !where.includes(x))
        bad.push(`${name}: extent ${x} with ${n} pages in use on the wrong list (FSEG_FREE / FSEG_NOT_FULL / FSEG_FULL)`);
    }
    if (used !== this.used) bad.push(`${name}: ${this.used} pages counted in use, ${used} found`);
    const reserved = this.frags.length + this.extents.size * e;
    if (reserved !== this.reserved) bad.push(`${name}: ${this.reserved} pages counted reserved, ${reserved} found`);
    return bad;
  }

  /** Every page given back (an index rebuilt in place), or forgotten when the file was replaced. */
  reset(): void {
    if (this.generation === this.space.generation) {
      for (const page of [...this.frags]) this.free(page);
      for (const x of this.extents) {
        for (let i = 0; i < this.extentPages; i++)
          if (this.space.isUsed(x * this.extentPages + i)) this.space.setUsed(x * this.extentPages + i, false);
        this.space.freeExtent(x);
      }
    }
    this.generation = this.space.generation;
    this.used = this.reserved = 0;
    this.frags = [];
    this.notFull = [];
    this.spare = [];
    this.extents = new Set();
  }
}
