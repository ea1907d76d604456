/**
 * The table's file (innodb_file_per_table) as fsp0fsp.cc grows it, for DATA_FREE. The segments take
 * whole extents from the file's free list (FSP_FREE) and single pages from fragment extents
 * (FSP_FREE_FRAG); fsp_fill_free_list initialises up to FSP_FREE_ADD (4) extents above the free limit,
 * extending the file first when fewer than four lie above it; fsp_try_extend_data_file extends it by an
 * extent, by four from 32 MiB on (fsp_get_pages_to_extend_ibd). Before a page split, btr_cur_pessimistic_insert
 * reserves ⌊height / 16⌋ + 3 extents (fsp_reserve_free_extents), extending the file until more extents are
 * free than that and a reserve of 2 extents and 1 % of the file. DATA_FREE
 * (fsp_get_available_space_in_free_extents) is the free extents less that reserve.
 *
 * An extent a segment empties comes back to the free list (fseg_free_page_low → fsp_free_extent).
 * Simplified: a sorted rebuild (OPTIMIZE TABLE) writes a
 * new file that a live MariaDB 10.11 showed with no free extent: it reserves nothing ahead.
 */

/** FSP_FREE_ADD: extents fsp_fill_free_list initialises at a time. */
const FREE_ADD = 4;
/** The file's first pages: FSP_HDR/XDES, IBUF_BITMAP, INODE. */
const HEADER_PAGES = 3;
/** An extent descriptor page and an ibuf bitmap page begin every page-size pages: their extent is a fragment extent. */
const DESCRIPTOR_PAGES = 2;

export class Space {
  private size = 0;
  private limit = 0;
  private freeExtents = 0;
  private freeFragPages = 0;
  private tight = false;

  constructor(
    private readonly extentPages: number,
    private readonly pageBytes: number,
  ) {
    this.reset(false);
  }

  /** A new file: its first extent initialised, the header pages taken. */
  reset(tight: boolean): void {
    this.size = this.limit = this.extentPages;
    this.freeExtents = 0;
    this.freeFragPages = this.extentPages - HEADER_PAGES;
    this.tight = tight;
  }

  private extend(): void {
    const threshold = Math.min(32 * this.extentPages, this.pageBytes);
    this.size += this.size < threshold ? this.extentPages : FREE_ADD * this.extentPages;
  }

  private fill(): void {
    const e = this.extentPages;
    if (this.size < this.limit + FREE_ADD * e) this.extend();
    for (let n = 0; n < FREE_ADD && this.limit + e <= this.size; n++) {
      if (this.limit % this.pageBytes === 0) this.freeFragPages += e - DESCRIPTOR_PAGES;
      else this.freeExtents++;
      this.limit += e;
    }
  }

  takeExtent(): void {
    for (let i = 0; i < 4 && this.freeExtents === 0; i++) this.fill();
    this.freeExtents = Math.max(0, this.freeExtents - 1);
  }

  takeFragPage(): void {
    if (this.freeFragPages === 0) {
      this.takeExtent();
      this.freeFragPages += this.extentPages;
    }
    this.freeFragPages--;
  }

  freeFragPage(): void {
    this.freeFragPages++;
  }

  /** fsp_free_extent: an extent a segment emptied joins the free list (FSP_FREE). */
  freeExtent(): void {
    this.freeExtents++;
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
    for (let i = 0; i < 64 && this.freeExtents + this.freeAbove() <= this.reserveExtents() + extents; i++) this.extend();
  }

  /** fsp_get_available_space_in_free_extents, in pages. */
  freePages(): number {
    const free = this.freeExtents + this.freeAbove() - this.reserveExtents();
    return Math.max(0, free) * this.extentPages;
  }
}
