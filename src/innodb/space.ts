/**
 * The table's file (innodb_file_per_table) as fsp0fsp.cc keeps it: every extent has a descriptor (XDES)
 * with its state and a bit per page, pages are numbered by their place in the file, and the segments
 * (segment.ts) take whole extents from the file's free list (FSP_FREE) and single pages from fragment
 * extents (FSP_FREE_FRAG). fsp_fill_free_list initialises up to FSP_FREE_ADD (4) extents above the free
 * limit, extending the file first when fewer than four lie above it; fsp_try_extend_data_file extends it
 * by an extent, by four from min(32 extents, page-size pages) on (32 MiB at 16K, 16 MiB at 4K;
 * fsp_get_pages_to_extend_ibd). Before a page split,
 * btr_cur_pessimistic_insert reserves ⌊height / 16⌋ + 3 extents (fsp_reserve_free_extents), extending the
 * file until more extents are free than that and a reserve of 2 extents and 1 % of the file. DATA_FREE
 * (fsp_get_available_space_in_free_extents) is the free extents less that reserve.
 *
 * fsp_alloc_free_extent takes the hinted extent when it is free, else the free list's first;
 * fsp_alloc_free_page a page of the hinted fragment extent, else of the first on FSP_FREE_FRAG, else of a
 * new one; fsp_free_extent and fsp_free_page put an emptied extent last on FSP_FREE.
 * A sorted rebuild (OPTIMIZE TABLE) writes a new file that a live MariaDB 10.11 showed with no free
 * extent: it reserves nothing ahead (reset(true)) until its builds are done (loosen()); the splits after
 * it reserve again.
 */

/** FSP_FREE_ADD: extents fsp_fill_free_list initialises at a time. */
const FREE_ADD = 4;
/** The file's first pages: FSP_HDR/XDES, IBUF_BITMAP, INODE. */
const HEADER_PAGES = 3;
/** An extent descriptor page and an ibuf bitmap page begin every page-size pages: their extent is a fragment extent. */
const DESCRIPTOR_PAGES = 2;

/** XDES states (fsp0fsp.h): above the free limit an extent has none. */
export const XDES_FREE = 1;
export const XDES_FREE_FRAG = 2;
export const XDES_FULL_FRAG = 3;
export const XDES_FSEG = 4;

export class Space {
  private size = 0;
  private limit = 0;
  private tight = false;
  /** Per extent: its XDES state (0 above the free limit), the segment owning it, its pages in use. */
  private state = new Uint8Array(0);
  private owner = new Int32Array(0);
  private nUsed = new Uint16Array(0);
  /** Per page: 1 while in use (XDES_FREE_BIT clear). */
  private pageUsed = new Uint8Array(0);
  /** FSP_FREE and FSP_FREE_FRAG, in list order. */
  private freeList: number[] = [];
  private fragList: number[] = [];
  private segments = 0;
  /** Bumped by reset(): a segment of an older file has nothing to give back. */
  generation = 0;

  constructor(
    readonly extentPages: number,
    private readonly pageBytes: number,
  ) {
    this.reset(false);
  }

  /** A new file: its first extent initialised (a fragment extent), the header pages taken. */
  reset(tight: boolean): void {
    this.size = this.limit = 0;
    this.state = new Uint8Array(16);
    this.owner = new Int32Array(16);
    this.nUsed = new Uint16Array(16);
    this.pageUsed = new Uint8Array(16 * this.extentPages);
    this.freeList = [];
    this.fragList = [];
    this.tight = tight;
    this.generation++;
    this.size = this.extentPages;
    this.initExtent(HEADER_PAGES);
  }

  /** A new segment's id (FSP_SEG_ID). */
  newSegment(): number {
    return ++this.segments;
  }

  private initExtent(headerPages: number): void {
    const x = this.limit / this.extentPages;
    if (x >= this.state.length) this.grow(x + 1);
    if (headerPages > 0) {
      this.state[x] = XDES_FREE_FRAG;
      for (let i = 0; i < headerPages; i++) this.pageUsed[this.limit + i] = 1;
      this.nUsed[x] = headerPages;
      this.fragList.push(x);
    } else {
      this.state[x] = XDES_FREE;
      this.freeList.push(x);
    }
    this.limit += this.extentPages;
  }

  private grow(extents: number): void {
    const n = Math.max(extents, this.state.length * 2);
    const state = new Uint8Array(n);
    state.set(this.state);
    const owner = new Int32Array(n);
    owner.set(this.owner);
    const used = new Uint16Array(n);
    used.set(this.nUsed);
    const pages = new Uint8Array(n * this.extentPages);
    pages.set(this.pageUsed);
    this.state = state;
    this.owner = owner;
    this.nUsed = used;
    this.pageUsed = pages;
  }

  /** The sorted builds are done: splits and off-page inserts reserve extents again (fsp_reserve_free_extents). */
  loosen(): void {
    this.tight = false;
  }

  private extend(): void {
    const threshold = Math.min(32 * this.extentPages, this.pageBytes);
    this.size += this.size < threshold ? this.extentPages : FREE_ADD * this.extentPages;
  }

  /**
   * fsp_fill_free_list: extents above the free limit initialised until four have gone on FSP_FREE (an extent that begins with a
   * descriptor page goes on FSP_FREE_FRAG and is not counted), the file extended first if short.
   */
  private fill(): void {
    const e = this.extentPages;
    if (this.size < this.limit + FREE_ADD * e) this.extend();
    for (let n = 0; n < FREE_ADD && this.limit + e <= this.size;) {
      const descriptor = this.limit % this.pageBytes === 0;
      this.initExtent(descriptor ? DESCRIPTOR_PAGES : 0);
      if (!descriptor) n++;
    }
  }

  /** The extent of page `page` when its descriptor is defined (below the free limit and the size), else -1. */
  described(page: number): number {
    return page >= 0 && page < this.limit && page < this.size ? Math.floor(page / this.extentPages) : -1;
  }

  stateOf(x: number): number {
    return this.state[x]!;
  }

  ownerOf(x: number): number {
    return this.state[x] === XDES_FSEG ? this.owner[x]! : 0;
  }

  usedIn(x: number): number {
    return this.nUsed[x]!;
  }

  isUsed(page: number): boolean {
    return this.pageUsed[page] === 1;
  }

  /** xdes_find_free: the first free page of extent x from offset `from` on, then from its start; -1 if none. */
  findFree(x: number, from: number): number {
    const e = this.extentPages;
    for (let i = 0; i < e; i++) {
      const at = x * e + ((from + i) % e);
      if (this.pageUsed[at] === 0) return at;
    }
    return -1;
  }

  setUsed(page: number, used: boolean): void {
    const x = Math.floor(page / this.extentPages);
    if (this.pageUsed[page] === (used ? 1 : 0)) throw new Error(`innodb space: page ${page} is already ${used ? 'in use' : 'free'}`);
    this.pageUsed[page] = used ? 1 : 0;
    this.nUsed[x]! += used ? 1 : -1;
  }

  /** fsp_alloc_free_extent: the hinted extent when free, else the first of FSP_FREE (filled when empty); given to `seg` (0: a fragment extent). */
  takeExtent(hint: number, seg: number): number {
    const hx = this.described(hint);
    let x: number;
    if (hx >= 0 && this.state[hx] === XDES_FREE) x = hx;
    else {
      while (this.freeList.length === 0) this.fill();
      x = this.freeList[0]!;
    }
    removeExtent(this.freeList, x);
    this.state[x] = seg > 0 ? XDES_FSEG : XDES_FREE_FRAG;
    this.owner[x] = seg;
    if (seg === 0) this.fragList.push(x);
    return x;
  }

  /** fsp_alloc_free_page: a page of the hinted fragment extent, else of the first on FSP_FREE_FRAG, else of a new one. */
  takeFragPage(hint: number): number {
    const hx = this.described(hint);
    let x: number;
    let from = 0;
    if (hx >= 0 && this.state[hx] === XDES_FREE_FRAG) {
      x = hx;
      from = hint % this.extentPages;
    } else if (this.fragList.length > 0) x = this.fragList[0]!;
    else {
      // A fresh extent keeps the hint's offset; only the first of FSP_FREE_FRAG resets it (fsp_alloc_free_page).
      x = this.takeExtent(hint, 0);
      from = hint % this.extentPages;
    }
    const page = this.findFree(x, from);
    this.setUsed(page, true);
    if (this.nUsed[x] === this.extentPages) {
      this.state[x] = XDES_FULL_FRAG;
      removeExtent(this.fragList, x);
    }
    return page;
  }

  /** fsp_free_page: a full fragment extent goes back on FSP_FREE_FRAG, an emptied one to FSP_FREE. */
  freeFragPage(page: number): void {
    const x = Math.floor(page / this.extentPages);
    if (this.state[x] === XDES_FULL_FRAG) {
      this.state[x] = XDES_FREE_FRAG;
      this.fragList.push(x);
    }
    this.setUsed(page, false);
    if (this.nUsed[x] === 0) {
      removeExtent(this.fragList, x);
      this.freeExtent(x);
    }
  }

  /** fsp_free_extent: an extent a segment emptied goes last on FSP_FREE. */
  freeExtent(x: number): void {
    if (this.state[x] === XDES_FREE) throw new Error(`innodb space: extent ${x} is already free`);
    this.state[x] = XDES_FREE;
    this.owner[x] = 0;
    this.freeList.push(x);
  }

  /** Free extents above the free limit, counted as fsp0fsp.cc does (one less, less their descriptor extents). */
  private freeAbove(): number {
    let n = Math.floor((this.size - this.limit) / this.extentPages);
    if (n > 0) {
      n--;
      n -= Math.floor(n / (this.pageBytes / this.extentPages));
    }
    return n;
  }

  private reserveExtents(): number {
    return 2 + Math.floor((Math.floor(this.size / this.extentPages) * 2) / 200);
  }

  /** fsp_reserve_free_extents(FSP_NORMAL) before a split: extend until more than `extents` and the reserve are free. */
  reserve(extents: number): void {
    if (this.tight) return;
    for (let i = 0; this.freeList.length + this.freeAbove() <= this.reserveExtents() + extents; i++) {
      if (i === 64) throw new Error(`innodb space: ${extents} extents not free after 64 extensions`);
      this.extend();
    }
  }

  /** The file's bookkeeping against itself (run --check): each extent's used count, its state and the list it is on. */
  check(): string[] {
    const bad: string[] = [];
    const e = this.extentPages;
    const onFree = new Set(this.freeList);
    const onFrag = new Set(this.fragList);
    for (let x = 0; x * e < this.limit; x++) {
      let used = 0;
      for (let i = 0; i < e; i++) used += this.pageUsed[x * e + i]!;
      const st = this.state[x]!;
      if (used !== this.nUsed[x]) bad.push(`innodb space: extent ${x} counts ${this.nUsed[x]} pages in use, its bits ${used}`);
      if ((st === XDES_FREE) !== onFree.has(x))
        bad.push(`innodb space: extent ${x} in state ${st} and ${onFree.has(x) ? '' : 'not '}on FSP_FREE`);
      if ((st === XDES_FREE_FRAG) !== onFrag.has(x))
        bad.push(`innodb space: extent ${x} in state ${st} and ${onFrag.has(x) ? '' : 'not '}on FSP_FREE_FRAG`);
      if (st === XDES_FREE && used > 0) bad.push(`innodb space: free extent ${x} has ${used} pages in use`);
      if (st === XDES_FULL_FRAG && used !== e) bad.push(`innodb space: full fragment extent ${x} has ${used} of ${e} pages in use`);
    }
    return bad;
  }

  /** fsp_get_available_space_in_free_extents, in pages. */
  freePages(): number {
    const free = this.freeList.length + this.freeAbove() - this.reserveExtents();
    return Math.max(0, free) * this.extentPages;
  }
}

/** An extent taken off one of the lists (FSP_FREE, FSP_FREE_FRAG, a segment's FSEG_FREE/FSEG_NOT_FULL); one not on it is a bookkeeping error. */
export function removeExtent(list: number[], x: number): void {
  const at = list.indexOf(x);
  if (at < 0) throw new Error(`innodb space: extent ${x} is not on the list it leaves`);
  list.splice(at, 1);
}
