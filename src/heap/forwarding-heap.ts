/**
 * The slotted-page heap with forwarding (ASE data-only-locked) or moving rows (ASE allpages-locked), and
 * through its options SQL Server's and Oracle's heaps. See README.md beside this file for what is
 * modelled, what is simplified and why. The engine is built in layers, one a file: the page store
 * (forwarding-pages.ts), the free-space search (forwarding-free-space.ts), inserts and updates
 * (forwarding-writes.ts), deletes and reorg (forwarding-reorg.ts); this file adds the reads and what an
 * observer asks (metrics, page maps, the inspector of forwarding-inspect.ts, the invariants).
 */
import type { ForwardingMetrics } from './metrics.js';
import type { PageMapData, RowSizes, StorageEngine } from './engine.js';
import type { HeapEventSink } from './events.js';
import { bucketRows, type PageInspector } from './inspect.js';
import type { PageReads } from './page-reads.js';
import { forwardingInspector } from './forwarding-inspect.js';
import { ForwardingReorg } from './forwarding-reorg.js';
import { Page, PageState, Row } from './forwarding-pages.js';

export { CHAIN_ROW_BYTES, FORWARDING_HEAP_ROW_BYTES, ROWS_PER_PAGE_ROOM, type ForwardingHeapOptions } from './forwarding-pages.js';
export { pfsRoomTable } from './free-tree.js';

/**
 * Pages from which the batch prefetch also reads each page's state and free-space entry (prefetchRows):
 * 2^19 pages make a 512 kB state array and a free-space tree of 4 MB, past what the caches keep.
 */
const PREFETCH_SEARCH_PAGES = 1 << 19;

/**
 * 1 when a row whose home page is `home` lives on page `cur` elsewhere (forwarded), else 0, without a
 * branch: after random updates whether a row is forwarded is as good as random, and a branch on it is
 * mispredicted often (both pages ≥ 0, so home ^ cur is 0 or positive).
 */
function forwardedBit(home: number, cur: number): number {
  const moved = home ^ cur;
  return (moved | -moved) >>> 31;
}
/** Page names of chained pieces in the buffer cache: below the heap's, MAX_NAMED_PIECES a row. */
const CHAIN_PAGE_BASE = -1;
const MAX_NAMED_PIECES = 8;

export class ForwardingHeap extends ForwardingReorg implements StorageEngine {
  // ---- reads ---------------------------------------------------------------------------------

  /**
   * A row fetched by its row id: the home page, then the forwarded or migrated row's page (one more read:
   * ASE "must read the page at the original location and then read the page where the forwarded data is
   * stored" [PT-FWD]; SQL Server's forwarded_fetch_count; Oracle's table fetch continued row), then one
   * read a chained piece (Oracle).
   */
  fetchRow(row: number, reads: PageReads, _viaIndex: boolean): void {
    const i = row * Row.STRIDE;
    const h = this.rows[i + Row.HOME]!;
    const c = this.rows[i + Row.CUR]!;
    reads.dataPage(h);
    if (c !== h) {
      reads.dataPage(c);
      reads.forwardedHops++;
    }
    if (this.chainedRows > 0) this.readChain(row, reads);
    if (this.sink !== null)
      this.sink({
        op: 'read',
        row,
        pages: c !== h ? [h, c] : [h],
        forwarded: c !== h,
        pieces: this.chain?.get(row) ?? 0,
        deadVersions: 0,
        chainHops: 0,
      });
  }

  /** A chained row's pieces: one page visit each (they live on pages of their own, named apart from the heap's). */
  private readChain(row: number, reads: PageReads): void {
    const pieces = this.chain!.get(row);
    for (let k = 0; k < pieces; k++) reads.dataPage(CHAIN_PAGE_BASE - (row * MAX_NAMED_PIECES + Math.min(k, MAX_NAMED_PIECES - 1)));
    reads.chainedPieces += pieces;
  }

  /**
   * A full scan: every allocated page in page order. Where the format's scans follow forwarding (SQL
   * Server: "the pointer is followed immediately" and the forwarded row skipped where it lives [SS-SCAN];
   * ASE: the scan's cost adds the forwarded rows' reads [PT-DOLSCAN], which rowsim takes as following at
   * the stub), each forwarded row costs a read of its page at its stub; Oracle's full scans read a
   * migrated row where it lives and skip its head piece [ORA-SCAN]. Chained pieces are read as the
   * blocks they are on and once more from the head piece (table fetch continued row).
   */
  scanTable(reads: PageReads): void {
    const before = { pages: reads.dataPages, hops: reads.forwardedHops, pieces: reads.chainedPieces };
    this.scanPages(reads);
    if (this.sink !== null) {
      const hops = reads.forwardedHops - before.hops;
      const pieces = reads.chainedPieces - before.pieces;
      // The table's pages (chained pieces' blocks included); the reads at stubs and head pieces apart.
      this.sink({ op: 'scan', pages: reads.dataPages - before.pages - hops - pieces, hops, pieces, tuples: 0 });
    }
  }

  private scanPages(reads: PageReads): void {
    const follows = this.options.scanFollowsForwarding ?? true;
    if (reads.cache === null) {
      reads.dataPages += this.allocatedPages;
      if (follows) {
        reads.dataPages += this.forwardedCount;
        reads.forwardedHops += this.forwardedCount;
      }
      if (this.chain !== null) {
        reads.dataPages += 2 * this.chainPages;
        reads.chainedPieces += this.chainPages;
      }
      return;
    }
    const forwarded =
      follows && this.forwardedCount > 0
        ? bucketRows(this.rowHigh, this.pageCount, (r) => (this.isLive(r) && this.cur(r) !== this.home(r) ? this.home(r) : -1), 0)
        : null;
    for (let p = 0; p < this.pageCount; p++) {
      if (this.state[p] !== PageState.ALLOCATED) continue;
      reads.dataPage(p);
      if (forwarded !== null) {
        for (let k = forwarded.start[p]!; k < forwarded.start[p + 1]!; k++) {
          reads.dataPage(this.cur(forwarded.rows[k]!));
          reads.forwardedHops++;
        }
      }
    }
    if (this.chain !== null && this.chainPages > 0) {
      // The chained pieces' own blocks, then each piece again from its head piece.
      for (let r = 0; r < this.rowHigh; r++) if (this.isLive(r) && this.chain.get(r) > 0) this.readChain(r, reads);
      for (let r = 0; r < this.rowHigh; r++) if (this.isLive(r) && this.chain.get(r) > 0) this.readChain(r, reads);
    }
  }

  // ---- observation ---------------------------------------------------------------------------

  prefetchRows(rows: Int32Array, count: number): number {
    const r = this.rows;
    const pg = this.pageFields;
    let sum = 0;
    // A row's three fields are 12 bytes: one row in eight has them across two cache lines, so the first
    // and the last are read (1e6 random updates 7–12% faster than reading Row.CUR alone; Row.HOME alone, 3%).
    for (let i = 0; i < count; i++) {
      const at = rows[i]! * Row.STRIDE;
      sum += r[at + Row.HOME]! + r[at + Row.SIZE]!;
    }
    // Then the pages they are on (a second pass: the row loads above are in by now).
    for (let i = 0; i < count; i++) {
      const p = r[rows[i]! * Row.STRIDE + Row.CUR]!;
      if (p >= 0) sum += pg[p * Page.STRIDE]!;
    }
    if (this.tree !== null && this.pageCount >= PREFETCH_SEARCH_PAGES) sum += this.prefetchSearch(rows, count);
    return sum;
  }

  /**
   * The state and free-space entry of the batch's pages, which the search's upkeep reads when a row leaves
   * its page (raise): at 1e8 rows, 1.8M pages, those two reads were 4.4 of the update phase's 25 s
   * (sqlserver-heap). Over fewer pages both stay in the processor's caches, and the extra pass costs more
   * than it saves (PREFETCH_SEARCH_PAGES).
   */
  private prefetchSearch(rows: Int32Array, count: number): number {
    const r = this.rows;
    const st = this.state;
    const tree = this.tree!;
    let sum = 0;
    for (let i = 0; i < count; i++) {
      const p = r[rows[i]! * Row.STRIDE + Row.CUR]!;
      if (p >= 0) sum += st[p]! + tree.get(p);
    }
    return sum;
  }

  rowPage(row: number): number {
    return this.cur(row);
  }

  /** A scan that follows forwarding meets a forwarded row at its stub, at home (and skips its body); Oracle's scans meet it where it lies. */
  scanPageOf(row: number): number {
    return (this.options.scanFollowsForwarding ?? true) ? this.home(row) : this.cur(row);
  }

  liveRows(): number {
    return this.liveCount;
  }

  rowBytes(row: number): number {
    const L = this.cur(row) !== this.home(row) ? this.len(row) - this.backPointerBytes : this.len(row);
    const pieces = this.chain?.get(row) ?? 0;
    return pieces > 0
      ? L +
          pieces * (this.usable - this.slotBytes - (this.options.chainPieceOverheadBytes ?? 0)) -
          (this.options.chainPieceOverheadBytes ?? 0)
      : L;
  }

  rowSizes(): RowSizes {
    const rows = this.rows;
    const bp = this.backPointerBytes;
    const chain = this.chain;
    let min = 0x7fffffff;
    let max = 0;
    let sum = 0;
    let count = 0;
    for (let r = 0, i = 0; r < this.rowHigh; r++, i += Row.STRIDE) {
      const home = rows[i + Row.HOME]!;
      if (home < 0) continue;
      // rowBytes(r) read in place: a forwarded row's back pointer is not its own; a chained row's pieces are.
      let b = (rows[i + Row.SIZE]! & 0xffff) - bp * forwardedBit(home, rows[i + Row.CUR]!);
      if (chain !== null && chain.get(r) > 0) b = this.rowBytes(r);
      min = Math.min(min, b);
      max = Math.max(max, b);
      sum += b;
      count++;
    }
    return { min, max, sum, count };
  }

  metrics(): ForwardingMetrics {
    const g = this.geometry;
    const pg = this.pageFields;
    let usedBytes = 0;
    let reservedBytes = 0;
    let holes = 0;
    let emptyPages = 0;
    for (let p = 0; p < this.pageCount; p++) {
      if (this.state[p] !== PageState.ALLOCATED) continue;
      const i = p * Page.STRIDE;
      usedBytes += pg[i + Page.USED]! + pg[i + Page.SLOTS]! * g.slotBytes;
      reservedBytes += pg[i + Page.RESERVED]!;
      holes += pg[i + Page.TOP]! - pg[i + Page.USED]!;
      if (pg[i + Page.SLOTS] === 0) emptyPages++;
    }
    let rowBytes = 0;
    for (let r = 0; r < this.rowHigh; r++) if (this.isLive(r)) rowBytes += this.len(r);
    const pages = this.allocatedPages + this.chainPages;
    const usedAll = usedBytes + this.chainPages * g.usableBytes;
    const hops = (this.options.scanFollowsForwarding ?? true) ? this.forwardedCount : 0;
    return {
      rows: this.liveCount,
      pages,
      forwarded_rows: this.forwardedCount,
      stubs: this.forwarding ? this.forwardedCount : 0,
      hot_updates: 0,
      updates: this.counters.updates,
      table_scan_page_reads: pages + hops + this.chainPages,
      space_used_pct: pages > 0 ? round2((100 * usedAll) / (pages * g.usableBytes)) : 0,
      exclusive_table_locks: this.counters.exclusive_table_locks,
      avg_rows_per_page: pages > 0 ? round2(this.liveCount / pages) : 0,
      avg_row_bytes: this.liveCount > 0 ? round2(rowBytes / this.liveCount) : 0,
      reserved_bytes: reservedBytes,
      fragmented_bytes: holes,
      empty_pages: emptyPages,
      inserts: this.counters.inserts,
      updates_in_place: this.counters.updates_in_place,
      forwarded_updates: this.counters.forwarded_updates,
      reforwarded_updates: this.counters.reforwarded_updates,
      row_moves: this.counters.row_moves,
      index_row_updates: this.counters.index_row_updates,
      compactions: this.counters.compactions,
      deletes: this.counters.deletes,
      rows_rejected: this.counters.rows_rejected,
      updates_rejected: this.counters.updates_rejected,
      reorg_transactions: this.counters.reorg_transactions,
      rows_moved_home: this.counters.rows_moved_home,
      rows_rehomed: this.counters.rows_rehomed,
      pages_allocated: this.counters.pages_allocated,
      pages_deallocated: this.counters.pages_deallocated,
      ...(this.backPointerBytes > 0 || this.moveBackHome ? { moved_home_on_update: this.counters.moved_home_on_update } : {}),
      ...(this.chain !== null
        ? {
            chained_rows: this.chainedRows,
            chained_pages: this.chainPages,
            // Oracle's `table fetch continued row` for one full scan plus one rowid fetch of every row.
            table_fetch_continued_row: this.chainPages + this.forwardedCount,
          }
        : {}),
    };
  }

  pageMap(): PageMapData {
    const n = this.pageCount;
    const fill = new Float32Array(n);
    const stubs = new Uint16Array(n);
    const forwardedIn = new Uint16Array(n);
    for (let p = 0; p < n; p++) {
      const i = p * Page.STRIDE;
      fill[p] =
        this.state[p] === PageState.ALLOCATED
          ? (this.pageFields[i + Page.USED]! + this.pageFields[i + Page.SLOTS]! * this.slotBytes) / this.usable
          : 0;
    }
    // Every live row adds 1 to both counts when it is forwarded, 0 when not.
    const rows = this.rows;
    const end = this.rowHigh * Row.STRIDE;
    for (let i = 0; i < end; i += Row.STRIDE) {
      const h = rows[i + Row.HOME]!;
      if (h < 0) continue;
      const c = rows[i + Row.CUR]!;
      const m = forwardedBit(h, c);
      stubs[h]! += m;
      forwardedIn[c]! += m;
    }
    return { fill, stubs, forwardedIn };
  }

  setEvents(sink: HeapEventSink | null): void {
    this.sink = sink;
  }
  inspect(only?: readonly number[]): PageInspector {
    return forwardingInspector(
      {
        rows: this.rows,
        rowHigh: this.rowHigh,
        pageCount: this.pageCount,
        allocatedPages: this.allocatedPages,
        lastPage: this.lastPage,
        geometry: this.geometry,
        pageFields: this.pageFields,
        state: this.state,
        stubBytes: this.stubBytes,
        chainPieceOverheadBytes: this.options.chainPieceOverheadBytes ?? 0,
        chain: this.chain,
      },
      only,
    );
  }

  memoryBytes(): number {
    // The pages made, not the arrays' room (unwritten room is not resident; see ROWS_PER_PAGE_ROOM).
    return (
      this.rows.byteLength +
      this.pageCount * (Page.STRIDE * this.pageFields.BYTES_PER_ELEMENT + 1) +
      (this.tree?.byteLength ?? 0) +
      (this.chain?.byteLength ?? 0)
    );
  }

  checkInvariants(): string[] {
    const bad: string[] = [];
    const g = this.geometry;
    const n = this.pageCount;
    const used = new Int32Array(n);
    const slots = new Int32Array(n);
    const reserved = new Int32Array(n);
    let liveRows = 0;
    let forwarded = 0;
    for (let r = 0; r < this.rowHigh; r++) {
      if (!this.isLive(r)) continue;
      liveRows++;
      const h = this.home(r);
      const c = this.cur(r);
      if (this.state[h] !== PageState.ALLOCATED || this.state[c] !== PageState.ALLOCATED) bad.push(`row ${r} on a free page`);
      used[c]! += this.len(r);
      slots[c]!++;
      reserved[c]! += this.rsv(r);
      if (c !== h) {
        if (!this.forwarding) bad.push(`row ${r} forwarded on a format that does not forward`);
        forwarded++;
        used[h]! += this.stubBytes;
        slots[h]!++;
      }
    }
    if (liveRows !== this.liveCount) bad.push(`live rows ${this.liveCount} counted, ${liveRows} found`);
    if (forwarded !== this.forwardedCount) bad.push(`forwarded rows ${this.forwardedCount} counted, ${forwarded} found`);
    let allocated = 0;
    for (let p = 0; p < n; p++) {
      const i = p * Page.STRIDE;
      const [u, top, sl, rs] = [
        this.pageFields[i + Page.USED]!,
        this.pageFields[i + Page.TOP]!,
        this.pageFields[i + Page.SLOTS]!,
        this.pageFields[i + Page.RESERVED]!,
      ];
      if (this.state[p] === PageState.ALLOCATED) allocated++;
      if (used[p] !== u) bad.push(`page ${p}: used ${u} kept, ${used[p]} found`);
      if (slots[p] !== sl) bad.push(`page ${p}: slots ${sl} kept, ${slots[p]} found`);
      if (reserved[p] !== rs) bad.push(`page ${p}: reserved ${rs} kept, ${reserved[p]} found`);
      if (u + sl * g.slotBytes > g.usableBytes) bad.push(`page ${p}: bytes exceed usable space`);
      if (top + sl * g.slotBytes > g.usableBytes) bad.push(`page ${p}: row area overlaps offset table`);
      if (top < u) bad.push(`page ${p}: high-water mark below bytes used`);
      if (sl > g.maxRowsPerPage) bad.push(`page ${p}: more rows than a page holds`);
    }
    if (allocated !== this.allocatedPages) bad.push(`pages ${this.allocatedPages} counted, ${allocated} found`);
    if (this.tree !== null) {
      this.flushLast();
      for (let p = 0; p < n; p++) {
        if (this.tree.get(p) < this.insertRoom(p))
          bad.push(`page ${p}: free-space search says ${this.tree.get(p)}, less than the page has (${this.insertRoom(p)})`);
      }
    }
    if (this.chain !== null) {
      let pagesFound = 0;
      for (let r = 0; r < this.rowHigh; r++) if (this.isLive(r)) pagesFound += this.chain.get(r);
      if (pagesFound !== this.chainPages) bad.push(`chained pages ${this.chainPages} counted, ${pagesFound} found`);
    }
    return bad;
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
