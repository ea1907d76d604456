/**
 * A table stored in the order of its clustered index (SQL Server clustered tables, SAP ASE allpages-locked
 * tables with a clustered index): the data pages are the index's leaf level, linked in key order. Rows never
 * move to the end of the table and never leave a forwarding address: a row that grows past its page's
 * free space splits the page, and the upper half of its rows moves to a new page linked after it (SQL
 * Server's "page split", counted in `page_splits` like the Access Methods "Page Splits/sec" counter does
 * for mid-index splits [MS-SPLIT]; ASE's data page split on an allpages-locked table [PT-SPLIT]).
 *
 * Row ids are key order: rows arrive with ascending keys (as rowsim generates them), so an insert goes
 * to the last page and, when that page is full, to a new page of its own (an end-of-index allocation,
 * not a split). Each page holds a contiguous range of row ids; a split cuts a range in two. A page left
 * without rows is deallocated (SQL Server ghost cleanup; ASE "if you delete the last row on a page, the
 * page is deallocated" [PT-DEL]). See README.md beside this file.
 */
import type { ClusteredMetrics } from './metrics.js';
import { grown } from '../util/arrays.js';
import type { PageGeometry, PageMapData, ReorgKind, StorageEngine, UpdateInfo } from './engine.js';
import type { HeapEventSink } from './events.js';
import { bucketRows, frozenInspector, inspectedPages, type PageInspector, type SlotDetail } from './inspect.js';
import type { PageReads } from './page-reads.js';

interface ClusteredHeapOptions {
  geometry: PageGeometry;
  /** Bytes a build or rebuild leaves free on each data page (the clustered index's fill factor). */
  buildReserveBytes: number;
  /** Rows a data page may hold at most (ASE max_rows_per_page on the clustered index); 0: the page's own limit. */
  maxRowsPerPage: number;
  /** One empty page for every `reservePageGap − 1` pages a build fills (ASE reservepagegap); 0: none. */
  reservePageGap: number;
  /** Nonclustered indexes that point at rows by row id: a row moved by a split updates an entry in each (ASE APL). */
  ridIndexes: number;
  /** `reorg compact` rebuilds the pages (SQL Server ALTER INDEX … REORGANIZE); false: only empty pages go (ASE reclaim_space). */
  compactRebuilds: boolean;
  /** `reorg forwarded_rows` rebuilds (SQL Server: ALTER TABLE … REBUILD); false: nothing to do. */
  forwardedRowsRebuilds: boolean;
  rowCapacity: number;
}

const NONE = -1;

export class ClusteredHeap implements StorageEngine {
  private readonly geometry: PageGeometry;
  private readonly options: ClusteredHeapOptions;
  private readonly maxRows: number;
  // rows: page (−1 = not live) and bytes
  private rowPageOf: Int32Array;
  private rowLen: Uint16Array;
  private rowHigh = 0;
  private liveCount = 0;
  // pages: bytes of rows, rows, the row-id range [lo, hi], key-order links; allocated or not
  private used = new Int32Array(1024);
  private slots = new Int32Array(1024);
  private lo = new Int32Array(1024);
  private hi = new Int32Array(1024);
  private next = new Int32Array(1024);
  private prev = new Int32Array(1024);
  private live = new Uint8Array(1024);
  private pageCount = 0;
  private allocated = 0;
  private head = NONE;
  private tail = NONE;
  /** Empty pages a build left for later splits (reservepagegap). */
  private gapPages = 0;
  /** Where the engine tells what it does (rowsim trace); null: nowhere. */
  private sink: HeapEventSink | null = null;
  private counters = {
    inserts: 0,
    updates: 0,
    updates_in_place: 0,
    deletes: 0,
    rows_rejected: 0,
    updates_rejected: 0,
    page_splits: 0,
    rows_moved_by_splits: 0,
    index_row_updates: 0,
    pages_allocated: 0,
    pages_deallocated: 0,
    exclusive_table_locks: 0,
  };

  constructor(options: ClusteredHeapOptions) {
    this.options = options;
    this.geometry = options.geometry;
    this.maxRows =
      options.maxRowsPerPage > 0 ? Math.min(options.maxRowsPerPage, this.geometry.maxRowsPerPage) : this.geometry.maxRowsPerPage;
    const n = Math.max(16, options.rowCapacity);
    this.rowPageOf = new Int32Array(n).fill(NONE);
    this.rowLen = new Uint16Array(n);
  }

  // ---- pages -------------------------------------------------------------------------------------

  private free(p: number): number {
    return this.geometry.usableBytes - this.used[p]! - this.slots[p]! * this.geometry.slotBytes;
  }

  /** A new page linked after `after` in key order (NONE: the first page); a reserved gap page when there is one. */
  private newPage(after: number): number {
    const p = this.pageCount++;
    if (p >= this.used.length) {
      const n = p + 1;
      this.used = grown(this.used, n);
      this.slots = grown(this.slots, n);
      this.lo = grown(this.lo, n);
      this.hi = grown(this.hi, n);
      this.next = grown(this.next, n);
      this.prev = grown(this.prev, n);
      this.live = grown(this.live, n);
    }
    this.used[p] = this.slots[p] = 0;
    this.lo[p] = this.hi[p] = NONE;
    this.live[p] = 1;
    if (this.gapPages > 0) this.gapPages--;
    else {
      this.allocated++;
      this.counters.pages_allocated++;
    }
    const nx = after === NONE ? this.head : this.next[after]!;
    this.prev[p] = after;
    this.next[p] = nx;
    if (after === NONE) this.head = p;
    else this.next[after] = p;
    if (nx === NONE) this.tail = p;
    else this.prev[nx] = p;
    return p;
  }

  private dropPage(p: number): void {
    const pv = this.prev[p]!;
    const nx = this.next[p]!;
    if (pv === NONE) this.head = nx;
    else this.next[pv] = nx;
    if (nx === NONE) this.tail = pv;
    else this.prev[nx] = pv;
    this.live[p] = 0;
    this.allocated--;
    this.counters.pages_deallocated++;
  }

  private place(p: number, row: number, bytes: number): void {
    this.used[p]! += bytes;
    this.slots[p]!++;
    if (this.lo[p] === NONE || row < this.lo[p]!) this.lo[p] = row;
    if (row > this.hi[p]!) this.hi[p] = row;
    this.rowPageOf[row] = p;
    this.rowLen[row] = bytes;
  }

  private fits(p: number, bytes: number, reserve = 0): boolean {
    return this.slots[p]! < this.maxRows && this.free(p) - reserve >= bytes + this.geometry.slotBytes;
  }

  /**
   * Split page p: the rows from the middle (by bytes) on move to a new page linked after it, so each
   * keeps about half [MS-SPLIT][PT-SPLIT]. At least one row stays and one moves.
   */
  private split(p: number): void {
    const rows: number[] = [];
    let total = 0;
    for (let r = this.lo[p]!; r <= this.hi[p]!; r++) {
      if (this.rowPageOf[r] === p) {
        rows.push(r);
        total += this.rowLen[r]!;
      }
    }
    let k = 0;
    let before = 0;
    while (k < rows.length - 1 && (k === 0 || before + this.rowLen[rows[k]!]! <= total / 2)) before += this.rowLen[rows[k++]!]!;
    const q = this.newPage(p);
    for (let i = k; i < rows.length; i++) {
      const r = rows[i]!;
      this.used[p]! -= this.rowLen[r]!;
      this.slots[p]!--;
      this.place(q, r, this.rowLen[r]!);
    }
    this.hi[p] = rows[k - 1]!;
    const moved = rows.length - k;
    if (this.sink !== null) this.sink({ op: 'split', page: p, newPage: q, rows: rows.slice(k) });
    this.counters.page_splits++;
    this.counters.rows_moved_by_splits += moved;
    this.counters.index_row_updates += moved * this.options.ridIndexes;
  }

  // ---- operations --------------------------------------------------------------------------------

  insert(row: number, phys: number): boolean {
    if (phys > this.geometry.maxRowBytes) {
      this.counters.rows_rejected++;
      return false;
    }
    if (row >= this.rowPageOf.length) {
      const old = this.rowPageOf.length;
      this.rowPageOf = grown(this.rowPageOf, row + 1);
      this.rowPageOf.fill(NONE, old);
      this.rowLen = grown(this.rowLen, row + 1);
    }
    // Keys ascend: the row belongs at the end; a full last page gets a new page after it.
    const fitsLast = this.tail !== NONE && this.fits(this.tail, phys);
    const p = fitsLast ? this.tail : this.newPage(this.tail);
    this.place(p, row, phys);
    if (this.sink !== null) this.sink({ op: 'insert', row, page: p, bytes: phys, reserved: 0, newPage: !fitsLast });
    if (row >= this.rowHigh) this.rowHigh = row + 1;
    this.liveCount++;
    this.counters.inserts++;
    return true;
  }

  update(row: number, phys: number, _logical: number, _info: UpdateInfo): boolean {
    if (phys > this.geometry.maxRowBytes) {
      this.counters.updates_rejected++;
      return false;
    }
    this.counters.updates++;
    let p = this.rowPageOf[row]!;
    const from = p;
    const fromBytes = this.rowLen[row]!;
    const totalFree = this.free(p);
    const splitsBefore = this.counters.page_splits;
    const delta = phys - this.rowLen[row]!;
    // The page is split until the row's page has room for its growth (a row alone on a page always fits).
    while (delta > 0 && this.free(p) < delta && this.slots[p]! > 1) {
      this.split(p);
      p = this.rowPageOf[row]!;
    }
    this.used[p]! += delta;
    this.rowLen[row] = phys;
    this.counters.updates_in_place++;
    if (this.sink !== null) {
      const outcome = this.counters.page_splits > splitsBefore ? 'split' : delta <= 0 ? 'shrank' : 'in-place';
      this.sink({
        op: 'update',
        row,
        page: from,
        home: -1,
        fromBytes,
        toBytes: phys,
        totalFree,
        contiguousFree: totalFree,
        outcome,
        toPage: p,
        newPage: p !== from,
      });
    }
    return true;
  }

  delete(row: number): void {
    const p = this.rowPageOf[row]!;
    if (this.sink !== null) this.sink({ op: 'delete', row, page: p, home: -1, bytes: this.rowLen[row]! });
    this.used[p]! -= this.rowLen[row]!;
    this.slots[p]!--;
    this.rowPageOf[row] = NONE;
    this.liveCount--;
    this.counters.deletes++;
    if (this.slots[p] === 0 && this.allocated > 1) this.dropPage(p);
  }

  commit(): void {
    // Rows change in place: nothing becomes visible or dead at commit.
  }

  /** CREATE CLUSTERED INDEX on the loaded table: the data pages are rewritten at the index's fill factor. */
  indexesBuilt(): void {
    this.rebuild();
  }

  reorg(kind: ReorgKind): void {
    if (
      kind === 'rebuild' ||
      (kind === 'compact' && this.options.compactRebuilds) ||
      (kind === 'forwarded_rows' && this.options.forwardedRowsRebuilds)
    ) {
      this.rebuild();
      if (kind !== 'compact') this.counters.exclusive_table_locks++;
    }
  }

  /** Rows rewritten in key order onto new pages, each filled to the fill factor, with reservepagegap's empty pages. */
  private rebuild(): void {
    this.counters.pages_deallocated += this.allocated;
    this.pageCount = 0;
    this.allocated = 0;
    this.gapPages = 0;
    this.head = this.tail = NONE;
    this.live.fill(0);
    let p = NONE;
    const sink = this.sink;
    for (let r = 0; r < this.rowHigh; r++) {
      const from = this.rowPageOf[r]!;
      if (from === NONE) continue;
      if (p === NONE || !this.fits(p, this.rowLen[r]!, this.options.buildReserveBytes)) p = this.newPage(p);
      this.place(p, r, this.rowLen[r]!);
      if (sink !== null) sink({ op: 'reorg-row', row: r, from, home: from, to: p, bytes: this.rowLen[r]!, outcome: 'rewritten' });
    }
    if (p === NONE) this.newPage(NONE);
    if (this.options.reservePageGap > 1) {
      this.gapPages = Math.floor(this.allocated / (this.options.reservePageGap - 1));
      this.allocated += this.gapPages;
      this.counters.pages_allocated += this.gapPages;
    }
    if (this.sink !== null) this.sink({ op: 'rewrite', kind: 'rebuild', pages: this.allocated });
  }

  // ---- observation ------------------------------------------------------------------------------

  /** A row read by its row id (or reached through the clustered index): the data page it is on. */
  fetchRow(row: number, reads: PageReads, _viaIndex: boolean): void {
    reads.dataPage(this.rowPageOf[row]!);
    if (this.sink !== null)
      this.sink({ op: 'read', row, pages: [this.rowPageOf[row]!], forwarded: false, pieces: 0, deadVersions: 0, chainHops: 0 });
  }

  /** A scan of the table in key order: the data pages along their links. */
  scanTable(reads: PageReads): void {
    if (reads.cache === null) reads.dataPages += this.allocated - this.gapPages;
    else for (let p = this.head; p !== NONE; p = this.next[p]!) reads.dataPage(p);
    if (this.sink !== null) this.sink({ op: 'scan', pages: this.allocated - this.gapPages, hops: 0, pieces: 0, tuples: this.liveCount });
  }

  rowPage(row: number): number {
    return this.rowPageOf[row]!;
  }

  /** A scan reads the leaf chain in key order, and keys ascend with row ids: one position for every row, ordered by id. */
  scanPageOf(): number {
    return 0;
  }

  isLive(row: number): boolean {
    return row < this.rowHigh && this.rowPageOf[row] !== NONE;
  }

  liveRows(): number {
    return this.liveCount;
  }

  rowBytes(row: number): number {
    return this.rowLen[row]!;
  }

  metrics(): ClusteredMetrics {
    let usedBytes = 0;
    let rowBytes = 0;
    let linked = 0;
    let outOfOrder = 0;
    for (let p = this.head; p !== NONE; p = this.next[p]!) {
      usedBytes += this.used[p]! + this.slots[p]! * this.geometry.slotBytes;
      rowBytes += this.used[p]!;
      linked++;
      // An out-of-order page: the next page in key order lies before it in the file [MS-FRAG].
      if (this.next[p] !== NONE && this.next[p]! < p) outOfOrder++;
    }
    const pages = this.allocated;
    return {
      rows: this.liveCount,
      pages,
      forwarded_rows: 0,
      hot_updates: 0,
      updates: this.counters.updates,
      table_scan_page_reads: linked,
      space_used_pct: pages > 0 ? round2((100 * usedBytes) / (pages * this.geometry.usableBytes)) : 0,
      exclusive_table_locks: this.counters.exclusive_table_locks,
      avg_rows_per_page: pages > 0 ? round2(this.liveCount / pages) : 0,
      avg_row_bytes: this.liveCount > 0 ? round2(rowBytes / this.liveCount) : 0,
      inserts: this.counters.inserts,
      deletes: this.counters.deletes,
      rows_rejected: this.counters.rows_rejected,
      updates_rejected: this.counters.updates_rejected,
      updates_in_place: this.counters.updates_in_place,
      page_splits: this.counters.page_splits,
      rows_moved_by_splits: this.counters.rows_moved_by_splits,
      index_row_updates: this.counters.index_row_updates,
      empty_pages: this.gapPages,
      pages_allocated: this.counters.pages_allocated,
      pages_deallocated: this.counters.pages_deallocated,
      logical_fragmentation_pct: linked > 0 ? round2((100 * outOfOrder) / linked) : 0,
    };
  }

  pageMap(): PageMapData {
    const n = this.pageCount;
    const fill = new Float32Array(n);
    for (let p = 0; p < n; p++)
      if (this.live[p]) fill[p] = (this.used[p]! + this.slots[p]! * this.geometry.slotBytes) / this.geometry.usableBytes;
    return { fill, stubs: new Uint16Array(n), forwardedIn: new Uint16Array(n) };
  }

  setEvents(sink: HeapEventSink | null): void {
    this.sink = sink;
  }

  inspect(only?: readonly number[]): PageInspector {
    const n = this.pageCount;
    const g = this.geometry;
    // Only the rows of the pages asked for (a page's slots name no other page).
    const need = inspectedPages(n, only);
    const byPage = bucketRows(
      this.rowHigh,
      n,
      (r) => {
        const p = this.rowPageOf[r]!;
        return p >= 0 && need[p] !== 0 ? p : -1;
      },
      0,
    );
    return frozenInspector(
      n,
      (p) => {
        const inTable = p >= 0 && p < n;
        const slots: SlotDetail[] = [];
        if (inTable)
          for (let k = byPage.start[p]!; k < byPage.start[p + 1]!; k++)
            slots.push({ slot: k - byPage.start[p]!, kind: 'row', row: byPage.rows[k]!, bytes: this.rowLen[byPage.rows[k]!]! });
        const used = inTable ? this.used[p]! : 0;
        const slotArrayBytes = (inTable ? this.slots[p]! : 0) * g.slotBytes;
        return {
          page: p,
          pages: this.allocated,
          allocated: inTable && this.live[p] === 1,
          slots,
          storedBytes: used,
          slotArrayBytes,
          reservedBytes: 0,
          fragmentedBytes: 0,
          contiguousBytes: g.usableBytes - used - slotArrayBytes,
          ...(inTable && this.live[p] === 1
            ? { keyRange: { first: this.lo[p]!, last: this.hi[p]!, prev: this.prev[p]!, next: this.next[p]! } }
            : {}),
          flags: p === this.tail ? ['last page in key order: inserts go here'] : [],
        };
      },
      only,
    );
  }

  memoryBytes(): number {
    return this.rowPageOf.byteLength + this.rowLen.byteLength + 6 * this.used.byteLength + this.live.byteLength;
  }

  checkInvariants(): string[] {
    const bad: string[] = [];
    const n = this.pageCount;
    const used = new Int32Array(n);
    const slots = new Int32Array(n);
    let live = 0;
    for (let r = 0; r < this.rowHigh; r++) {
      const p = this.rowPageOf[r]!;
      if (p === NONE) continue;
      live++;
      if (!this.live[p]) bad.push(`row ${r} on a free page`);
      else if (r < this.lo[p]! || r > this.hi[p]!) bad.push(`row ${r} outside page ${p}'s range ${this.lo[p]}..${this.hi[p]}`);
      used[p]! += this.rowLen[r]!;
      slots[p]!++;
    }
    if (live !== this.liveCount) bad.push(`live rows ${this.liveCount} counted, ${live} found`);
    let linked = 0;
    let lastHi = -1;
    for (let p = this.head; p !== NONE; p = this.next[p]!) {
      linked++;
      if (used[p] !== this.used[p] || slots[p] !== this.slots[p])
        bad.push(`page ${p}: kept ${this.used[p]} bytes / ${this.slots[p]} rows, found ${used[p]} / ${slots[p]}`);
      if (this.free(p) < 0) bad.push(`page ${p}: rows exceed the page`);
      if (this.slots[p]! > this.maxRows) bad.push(`page ${p}: more rows than a page holds`);
      if (this.slots[p]! > 0 && this.lo[p]! <= lastHi) bad.push(`page ${p}: keys out of order`);
      if (this.slots[p]! > 0) lastHi = this.hi[p]!;
      if (linked > n) {
        bad.push('the page chain loops');
        break;
      }
    }
    if (linked + this.gapPages !== this.allocated) bad.push(`pages ${this.allocated} counted, ${linked} linked + ${this.gapPages} empty`);
    return bad;
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
