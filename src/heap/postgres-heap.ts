/**
 * The PostgreSQL heap: MVCC versions, HOT, fillfactor, on-access pruning, VACUUM. See README.md beside
 * this file ("postgres-heap") for what is modelled and what is simplified. Sources: docs/sources.md,
 * "PostgreSQL source code": the files it names (bufpage.h, hio.c
 * RelationGetBufferForTuple, heapam.c heap_update, pruneheap.c heap_page_prune_opt, freespace.c).
 * The pages, the free space map and pruning are postgres-pages.ts; this file holds the operations
 * (insert, update, delete, commit), VACUUM and VACUUM FULL, the reads and what an observer asks.
 */
import type { MvccMetrics } from './metrics.js';
import type { DeadPages, PageMapData, ReorgKind, StorageEngine, UpdateInfo } from './engine.js';
import type { HeapEventSink } from './events.js';
import { bucketRows, frozenInspector, inspectedPages, type PageInspector, type SlotDetail } from './inspect.js';
import type { PageReads } from './page-reads.js';
import { Lp, Page, PageFlag, pgFsmPages, pgVmPages, PostgresPages, ReadState, Row } from './postgres-pages.js';

export {
  PG_CHURN_ROW_BYTES,
  PG_PRUNE_FREE_DIVISOR,
  PG_READ_STATE_ROW_BYTES,
  pgFsmPages,
  pgVmPages,
  POSTGRES_HEAP_ROW_BYTES,
  type PostgresHeapOptions,
} from './postgres-pages.js';

/** VACUUM truncates trailing empty pages when ≥ 1000 of them or ≥ 1/16 of the table (vacuumlazy.c). */
const PG_REL_TRUNCATE_MINIMUM = 1000;
const PG_REL_TRUNCATE_FRACTION = 16;

export class PostgresHeap extends PostgresPages implements StorageEngine {
  // ---- operations ----------------------------------------------------------------------------

  /** A new tuple; `skipFsm`: as HEAP_INSERT_SKIP_FSM, never into a page the free space map knows (a rewrite's inserts). */
  insert(row: number, phys: number, _logical: number, skipFsm = false): boolean {
    if (phys > this.geometry.maxRowBytes) {
      this.counters.rows_rejected++;
      return false;
    }
    this.ensureRow(row);
    const pagesBefore = this.pageCount;
    const p = this.pageForTuple(phys, skipFsm);
    const off = this.addTuple(p, phys);
    if (this.txn !== null) this.logVersion(row, p, off, phys, false);
    if (this.sink !== null) this.sink({ op: 'insert', row, page: p, bytes: phys, reserved: 0, newPage: this.pageCount > pagesBefore });
    this.rows[row * Row.STRIDE] = p;
    this.rows[row * Row.STRIDE + 1] = phys | (off << Row.OFF_SHIFT);
    if (this.readState !== null) this.readState[row] = 0;
    if (row >= this.rowHigh) this.rowHigh = row + 1;
    this.liveCount++;
    this.counters.inserts++;
    return true;
  }

  update(row: number, phys: number, _logical: number, info: UpdateInfo): boolean {
    this.lastUpdateNewIndexEntries = false;
    if (phys > this.geometry.maxRowBytes) {
      this.counters.updates_rejected++;
      return false;
    }
    const ri = row * Row.STRIDE;
    const p = this.rows[ri]!;
    // The index scan that finds the row reads its page: on-access pruning first (a sequential scan or a
    // range's index scan read it before, once: visitPage).
    if (info.scanned !== true) this.pruneOpt(p);
    this.counters.updates++;
    if (this.txn !== null) this.logRow(row);
    const oldLen = this.rows[ri + 1]! & Row.LEN_MASK;
    const oldHeapOnly = (this.rows[ri + 1]! & Row.HEAP_ONLY) !== 0;
    let q = p;
    let hot = false;
    const freeNow = this.heapFree(p);
    const pagesBefore = this.pageCount;
    if (phys <= freeNow) {
      hot = !info.indexedChanged;
      if (!hot) this.counters.samepage_nonhot_updates++;
    } else {
      // heap_update: the old page gets PD_PAGE_FULL as a hint to prune it on the next access.
      this.pageFields[p * Page.STRIDE + Page.FLAGS]! |= PageFlag.FULL;
      q = this.pageForTuple(phys);
      this.counters.newpage_updates++;
    }
    const oldOff = (this.rows[ri + 1]! >>> Row.OFF_SHIFT) & Row.OFF_MASK;
    this.retire(p, oldLen, oldHeapOnly, oldOff);
    const off = this.addTuple(q, phys);
    if (this.txn !== null) this.logVersion(-1, q, off, phys, hot);
    this.rows[ri] = q;
    this.rows[ri + 1] = phys | (hot ? Row.HEAP_ONLY : 0) | (off << Row.OFF_SHIFT);
    // A chain's first heap-only version: the version it replaced is the chain's root.
    if (hot && !oldHeapOnly) this.rootOffs()[row] = oldOff;
    if (this.readState !== null) this.noteUpdate(row, q, hot);
    if (hot) this.counters.hot_updates++;
    else {
      this.counters.index_entries_added += this.options.indexCount;
      this.lastUpdateNewIndexEntries = true;
    }
    if (this.sink !== null) {
      const outcome = hot ? 'hot' : q === p ? 'same-page' : 'new-page';
      this.sink({
        op: 'update',
        row,
        page: p,
        home: -1,
        fromBytes: oldLen,
        toBytes: phys,
        totalFree: freeNow,
        contiguousFree: freeNow,
        outcome,
        toPage: q,
        newPage: this.pageCount > pagesBefore,
      });
    }
    return true;
  }

  delete(row: number, scanned = false): void {
    const ri = row * Row.STRIDE;
    const p = this.rows[ri]!;
    if (!scanned) this.pruneOpt(p);
    if (this.txn !== null) this.logRow(row);
    if (this.sink !== null) this.sink({ op: 'delete', row, page: p, home: -1, bytes: this.len(row) });
    this.retire(p, this.len(row), this.heapOnly(row), this.offOf(row));
    this.rows[ri] = -1;
    this.liveCount--;
    this.counters.deletes++;
  }

  /** Transaction end: versions it replaced or deleted become dead (prunable); while a snapshot is held, they stay until it is let go. */
  commit(): void {
    this.txn = null;
    if (this.holding) {
      this.holdTouched();
      return;
    }
    const pg = this.pageFields;
    if (this.sink !== null && this.touchedCount > 0) {
      let versions = 0;
      for (let k = 0; k < this.touchedCount; k++) versions += pg[this.touched[k]! * Page.STRIDE + Page.PEND_COUNT]!;
      this.sink({ op: 'commit', pages: Array.from(this.touched.subarray(0, this.touchedCount)), versions });
    }
    for (let k = 0; k < this.touchedCount; k++) {
      const i = this.touched[k]! * Page.STRIDE;
      pg[i + Page.DEAD_BYTES]! += pg[i + Page.PEND_BYTES]!;
      pg[i + Page.DEAD_COUNT]! += pg[i + Page.PEND_COUNT]!;
      pg[i + Page.DEAD_FREE_LP]! += pg[i + Page.PEND_FREE_LP]!;
      pg[i + Page.PEND_BYTES] = 0;
      pg[i + Page.PEND_COUNT] = 0;
      pg[i + Page.PEND_FREE_LP] = 0;
      pg[i + Page.FLAGS]! &= ~PageFlag.TOUCHED;
      const at = this.lpAt[this.touched[k]!]!;
      const pool = this.lpPool;
      for (let j = at, end = at + pg[i + Page.NLINE]!; j < end; j++) {
        const st = pool[j]!;
        if (st === Lp.PEND_HOT) pool[j] = Lp.DEAD_HOT;
        else if (st === Lp.PEND_ROOT) pool[j] = Lp.DEAD_ROOT;
      }
    }
    this.touchedCount = 0;
  }

  // ---- ROLLBACK and snapshots held --------------------------------------------------------------

  /** The open transaction, when it may end in ROLLBACK: rows as they were before it ([page, field, chain root]), versions it made ([page, place, bytes | heap-only << 16]). */
  private txn: { rows: Map<number, [number, number, number]>; made: number[] } | null = null;
  private holding = false;
  private held: number[] = [];

  beginTransactionLog(): void {
    this.txn = { rows: new Map(), made: [] };
  }

  private logRow(row: number): void {
    const t = this.txn!;
    if (t.rows.has(row)) return;
    const ri = row * Row.STRIDE;
    const root = this.rootOff !== null && row < this.rootOff.length ? this.rootOff[row]! : 0;
    t.rows.set(row, [this.rows[ri]!, this.rows[ri + 1]!, root]);
  }

  /** A version the transaction made (a new row's first: `row` ≥ 0, logged as not there before). */
  private logVersion(row: number, p: number, off: number, bytes: number, heapOnly: boolean): void {
    const t = this.txn!;
    if (row >= 0 && !t.rows.has(row)) t.rows.set(row, [-1, 0, 0]);
    t.made.push(p, off, bytes | (heapOnly ? 1 << 16 : 0));
  }

  /**
   * ROLLBACK: every version the transaction made is dead at once, whatever snapshot is held (its xmin
   * aborted: HEAPTUPLE_DEAD; a heap-only one's line pointer becomes unused when pruned, another's
   * LP_DEAD), and the versions it replaced or deleted are live again where they are (their xmax
   * aborted) [heapam_visibility.c HeapTupleSatisfiesVacuum, pruneheap.c heap_prune_chain].
   */
  abort(): void {
    const t = this.txn;
    this.txn = null;
    if (t !== null) {
      for (let k = 0; k < t.made.length; k += 3) this.abortVersion(t.made[k]!, t.made[k + 1]!, t.made[k + 2]!);
      for (const [row, [page, field, root]] of t.rows) this.restoreRow(row, page, field, root);
    }
    this.commit();
  }

  private abortVersion(p: number, off: number, word: number): void {
    const pg = this.pageFields;
    const i = p * Page.STRIDE;
    const bytes = word & 0xffff;
    const hot = word >>> 16 === 1;
    const at = this.lps(p, 0);
    if (this.lpPool[at + off] === Lp.LIVE) pg[i + Page.LIVE]!--;
    else {
      pg[i + Page.PEND_BYTES]! -= bytes;
      pg[i + Page.PEND_COUNT]!--;
      if (hot) pg[i + Page.PEND_FREE_LP]!--;
    }
    this.lpPool[at + off] = hot ? Lp.DEAD_HOT : Lp.DEAD_ROOT;
    pg[i + Page.DEAD_BYTES]! += bytes;
    pg[i + Page.DEAD_COUNT]!++;
    if (hot) pg[i + Page.DEAD_FREE_LP]!++;
  }

  /** The row's version from before the transaction live again (or, a row the transaction inserted, gone). */
  private restoreRow(row: number, page: number, field: number, root: number): void {
    const ri = row * Row.STRIDE;
    const liveNow = this.rows[ri]! >= 0;
    if (page >= 0) {
      const pg = this.pageFields;
      const i = page * Page.STRIDE;
      const at = this.lps(page, 0);
      const off = (field >>> Row.OFF_SHIFT) & Row.OFF_MASK;
      this.lpPool[at + off] = Lp.LIVE;
      pg[i + Page.PEND_BYTES]! -= field & Row.LEN_MASK;
      pg[i + Page.PEND_COUNT]!--;
      if ((field & Row.HEAP_ONLY) !== 0) {
        pg[i + Page.PEND_FREE_LP]!--;
        this.rootOffs()[row] = root;
      }
      pg[i + Page.LIVE]!++;
      if (!liveNow) this.liveCount++;
    } else if (liveNow) this.liveCount--;
    this.rows[ri] = page;
    this.rows[ri + 1] = field;
  }

  holdSnapshot(hold: boolean): void {
    this.commit();
    this.holding = hold;
    if (hold) return;
    // Let go: every version held is dead now (a commit of the pages that hold them).
    for (const p of this.held) {
      this.pageFields[p * Page.STRIDE + Page.FLAGS]! &= ~PageFlag.HELD;
      if (p < this.pageCount) this.touch(p);
    }
    this.held = [];
    this.commit();
  }

  /** A commit while a snapshot is held: the pages' pending versions stay pending, their pages remembered. */
  private holdTouched(): void {
    const pg = this.pageFields;
    for (let k = 0; k < this.touchedCount; k++) {
      const p = this.touched[k]!;
      const i = p * Page.STRIDE;
      pg[i + Page.FLAGS]! &= ~PageFlag.TOUCHED;
      if ((pg[i + Page.FLAGS]! & PageFlag.HELD) === 0) {
        pg[i + Page.FLAGS]! |= PageFlag.HELD;
        this.held.push(p);
      }
    }
    this.touchedCount = 0;
  }

  reorg(kind: ReorgKind): void {
    this.commit();
    switch (kind) {
      case 'vacuum':
      case 'compact':
        this.vacuum();
        break;
      case 'rebuild':
        this.vacuumFull();
        break;
      case 'forwarded_rows':
        // PostgreSQL heaps have no forwarded rows.
        break;
    }
  }

  /**
   * Lazy VACUUM: prune every page, set LP_DEAD line pointers unused (index entries removed), truncate
   * trailing unused line pointers of empty pages, record every page in the FSM, truncate trailing empty
   * pages when enough of them.
   */
  private vacuum(): void {
    const pg = this.pageFields;
    const pool = this.lpPool;
    // The line pointers that redirect to a live version: the chain roots of the live heap-only rows.
    const roots = this.rootOff;
    for (let r = 0; r < this.rowHigh; r++) {
      const p = this.page(r);
      if (p >= 0 && this.heapOnly(r)) pool[this.lpAt[p]! + roots![r]!] = Lp.KEEP;
    }
    for (let p = 0; p < this.pageCount; p++) {
      const i = p * Page.STRIDE;
      if (pg[i + Page.DEAD_COUNT]! > 0) this.prune(p, 'vacuum');
      const at = this.lpAt[p]!;
      if (at < 0) continue;
      // lazy_vacuum_heap_page: LP_DEAD line pointers (their index entries are gone) become unused, then
      // PageTruncateLinePointerArray cuts the unused ones off the end, keeping at least one [bufpage.c].
      let nline = pg[i + Page.NLINE]!;
      let lpDead = 0;
      for (let k = at; k < at + nline; k++) {
        if (pool[k] === Lp.ROOT) {
          pool[k] = Lp.UNUSED;
          lpDead++;
        } else if (pool[k] === Lp.KEEP) pool[k] = Lp.ROOT;
      }
      this.counters.lp_dead_reclaimed += lpDead;
      pg[i + Page.UNUSED]! += lpDead;
      pg[i + Page.ROOTS]! -= lpDead;
      if (lpDead > 0) {
        while (nline > 1 && pool[at + nline - 1] === Lp.UNUSED) nline--;
        pg[i + Page.UNUSED]! -= pg[i + Page.NLINE]! - nline;
        pg[i + Page.NLINE] = nline;
      }
    }
    // lazy_truncate_heap: trailing empty pages.
    let end = this.pageCount;
    while (end > 0 && pg[(end - 1) * Page.STRIDE + Page.NLINE] === pg[(end - 1) * Page.STRIDE + Page.UNUSED]) end--;
    const freeable = this.pageCount - end;
    if (freeable > 0 && (freeable >= PG_REL_TRUNCATE_MINIMUM || freeable >= this.pageCount / PG_REL_TRUNCATE_FRACTION)) {
      this.counters.pages_truncated += freeable;
      this.pageCount = end;
    }
    this.fsm.clear();
    for (let p = 0; p < this.pageCount; p++) this.fsm.set(p, this.fsmAvailCat(this.heapFree(p)));
    this.fsmVacuumed = true;
    // The index entries of dead versions are gone (lazy_vacuum_all_indexes); pruning made every chain stale.
    if (this.readState !== null)
      for (let r = 0; r < this.rowHigh; r++) this.readState[r]! &= ~(ReadState.SATURATED << ReadState.DEAD_SHIFT);
    this.fsmNext.fill(0);
    // VACUUM records every page in the FSM and pins the visibility map page of every page (both forks
    // are truncated with the heap).
    this.fsmHigh = this.vmHigh = this.pageCount - 1;
    this.targetBlock = -1; // the relcache entry is invalidated (relpages updated)
    this.counters.vacuums++;
    if (this.sink !== null) this.sink({ op: 'rewrite', kind: 'vacuum', pages: this.pageCount });
  }

  /** VACUUM FULL: the live rows rewritten in scan order onto new pages, honouring fillfactor (rewriteheap.c). */
  private vacuumFull(): void {
    const order: number[] = [];
    for (let p = 0; p < this.pageCount; p++) order.push(p);
    const byPage: number[][] = Array.from({ length: this.pageCount }, () => []);
    for (let r = 0; r < this.rowHigh; r++) if (this.page(r) >= 0) byPage[this.page(r)]!.push(r);
    // The rewrite reads each page's tuples in line pointer order (heapgetpage).
    for (const rows of byPage) if (rows.length > 1) rows.sort((a, b) => this.offOf(a) - this.offOf(b));
    this.pageFields.fill(0);
    this.pageCount = 0;
    this.lpTop = 0;
    this.lpAt.fill(-1);
    this.fsm.clear();
    this.fsmVacuumed = false;
    this.fsmNext.fill(0);
    // A new relation file: no free space map and no visibility map until something records them.
    this.fsmHigh = this.vmHigh = -1;
    let cur = -1;
    for (const rows of byPage) {
      for (const r of rows) {
        const len = this.len(r);
        if (cur < 0 || len + this.saveFreeSpace > this.heapFree(cur)) cur = this.newPage();
        const from = this.page(r);
        const off = this.addTuple(cur, len);
        this.rows[r * Row.STRIDE] = cur;
        if (this.sink !== null) this.sink({ op: 'reorg-row', row: r, from, home: from, to: cur, bytes: len, outcome: 'rewritten' });
        this.rows[r * Row.STRIDE + 1] = len | (off << Row.OFF_SHIFT);
      }
    }
    this.targetBlock = -1;
    // A new heap and new indexes: no chains, no entries of dead versions.
    this.readState?.fill(0);
    this.counters.vacuum_full++;
    if (this.sink !== null) this.sink({ op: 'rewrite', kind: 'vacuum full', pages: this.pageCount });
    this.counters.exclusive_table_locks++;
  }

  // ---- reads ---------------------------------------------------------------------------------

  /** A HOT update lengthens the row's chain (counted afresh if the page was pruned since); a non-HOT one starts a new chain and leaves an index entry on a dead version. */
  private noteUpdate(row: number, page: number, hot: boolean): void {
    const st = this.readState!;
    const s = st[row]!;
    const stamp = this.pageFields[page * Page.STRIDE + Page.PRUNES]! & 0xff;
    let dead = (s >>> ReadState.DEAD_SHIFT) & ReadState.SATURATED;
    let chain = 0;
    if (hot) {
      chain = ((s >>> ReadState.STAMP_SHIFT) & 0xff) === stamp ? s & ReadState.CHAIN_MASK : 0;
      if (chain < ReadState.SATURATED) chain++;
    } else if (dead < ReadState.SATURATED) dead++;
    st[row] = chain | (stamp << ReadState.STAMP_SHIFT) | (dead << ReadState.DEAD_SHIFT);
  }

  /** Steps along the row's HOT chain to its visible version: the heap-only versions not yet pruned away. */
  private chainHops(row: number, page: number): number {
    if (!this.heapOnly(row)) return 0;
    const s = this.readState![row]!;
    return ((s >>> ReadState.STAMP_SHIFT) & 0xff) === (this.pageFields[page * Page.STRIDE + Page.PRUNES]! & 0xff)
      ? s & ReadState.CHAIN_MASK
      : 0;
  }

  /** A heap page a read pins: pruned first when PostgreSQL would (heap_page_prune_opt from heapgetpage, heapam_index_fetch_tuple) [pruneheap.c]. */
  private readPage(p: number, reads: PageReads): void {
    reads.dataPage(p);
    this.reading = reads;
    this.pruneOpt(p);
    this.reading = null;
  }

  /**
   * A row fetched through an index entry: first the entries of its dead versions that no VACUUM removed
   * and no earlier index scan killed (each a heap visit that finds the chain dead, after which the scan
   * marks the entry LP_DEAD and later scans skip it: kill_prior_tuple, _bt_killitems [nbtree]), then
   * the live version through its HOT chain (heap_hot_search_buffer). `deadPages` (the B-tree model's
   * TIDs) names the page each dead version is on; without it they are counted on the row's current page.
   * A row-id fetch (a TID scan) reads the version's page alone and prunes nothing.
   */
  fetchRow(row: number, reads: PageReads, viaIndex: boolean, deadPages?: DeadPages | null): void {
    const p = this.page(row);
    if (!viaIndex || this.readState === null) {
      reads.dataPage(p);
      reads.tuplesVisited++;
      if (this.sink !== null) this.sink({ op: 'read', row, pages: [p], forwarded: false, pieces: 0, deadVersions: 0, chainHops: 0 });
      return;
    }
    const s = this.readState[row]!;
    const dead = deadPages ? deadPages.count : (s >>> ReadState.DEAD_SHIFT) & ReadState.SATURATED;
    if (dead > 0) {
      if (deadPages) {
        for (let k = 0; k < dead; k++) {
          const q = deadPages.pages[k]!;
          if (q < this.pageCount) this.readPage(q, reads);
          else reads.dataPage(q);
        }
      } else for (let k = 0; k < dead; k++) this.readPage(p, reads);
      reads.deadVersions += dead;
      reads.tuplesVisited += dead;
      this.readState[row] = s & ~(ReadState.SATURATED << ReadState.DEAD_SHIFT);
    }
    this.readPage(p, reads);
    const hops = this.chainHops(row, p);
    reads.hotChainHops += hops;
    reads.tuplesVisited += hops + 1;
    if (this.sink !== null)
      this.sink({
        op: 'read',
        row,
        pages: deadPages ? [...deadPages.pages.subarray(0, dead), p] : new Array<number>(dead + 1).fill(p),
        forwarded: false,
        pieces: 0,
        deadVersions: dead,
        chainHops: hops,
      });
  }

  /** A sequential scan: every page in order, pruned on access (heapgetpage), every version on it examined. */
  scanTable(reads: PageReads): void {
    const pg = this.pageFields;
    const tuples = reads.tuplesVisited;
    for (let p = 0; p < this.pageCount; p++) {
      this.readPage(p, reads);
      const i = p * Page.STRIDE;
      reads.tuplesVisited += pg[i + Page.LIVE]! + pg[i + Page.PEND_COUNT]! + pg[i + Page.DEAD_COUNT]!;
    }
    if (this.sink !== null) this.sink({ op: 'scan', pages: this.pageCount, hops: 0, pieces: 0, tuples: reads.tuplesVisited - tuples });
  }

  /**
   * An UPDATE or DELETE found its row through an index whose entries of the row's dead versions no scan
   * had marked yet: the scan fetches each such TID, so the page of each dead version is read and pruned
   * on access before the row's own page (heapam_index_fetch_tuple → heap_page_prune_opt) [pruneheap.c].
   */
  visitPage(p: number): void {
    if (p >= 0 && p < this.pageCount) this.pruneOpt(p);
  }

  /** A sequential scan reads the blocks the relation has when it starts (heapam.c initscan: rs_nblocks). */
  scanExtent(): number {
    return this.pageCount;
  }

  // ---- observation ---------------------------------------------------------------------------

  prefetchRows(rows: Int32Array, count: number): number {
    const r = this.rows;
    const pg = this.pageFields;
    let sum = 0;
    for (let i = 0; i < count; i++) sum += r[rows[i]! * Row.STRIDE]!;
    // The rows' read state (a fetch through an index reads it, an update writes it): an array of its own.
    const st = this.readState;
    if (st !== null) for (let i = 0; i < count; i++) sum += st[rows[i]!]!;
    // Then the pages they are on (a second pass: the row loads above are in by now).
    for (let i = 0; i < count; i++) {
      const p = r[rows[i]! * Row.STRIDE]!;
      if (p >= 0) sum += pg[p * Page.STRIDE + Page.DEAD_COUNT]!;
    }
    return sum;
  }

  rowPage(row: number): number {
    return this.page(row);
  }

  rowSlot(row: number): number {
    return this.offOf(row);
  }

  /** Only before reorg('rebuild'), which rewrites every page from the rows' sizes. */
  resizeForRebuild(row: number, bytes: number): void {
    const ri = row * Row.STRIDE + 1;
    this.rows[ri] = (this.rows[ri]! & ~Row.LEN_MASK) | bytes;
  }

  isLive(row: number): boolean {
    return row < this.rowHigh && this.rows[row * Row.STRIDE]! >= 0;
  }

  liveRows(): number {
    return this.liveCount;
  }

  rowBytes(row: number): number {
    return this.len(row);
  }

  /** Live rows whose current version is heap-only (reached through a HOT chain). */
  private heapOnlyRows(): number {
    let n = 0;
    for (let r = 0; r < this.rowHigh; r++) if (this.page(r) >= 0 && this.heapOnly(r)) n++;
    return n;
  }

  metrics(): MvccMetrics {
    const g = this.geometry;
    const pg = this.pageFields;
    let liveBytes = 0;
    for (let r = 0; r < this.rowHigh; r++) if (this.page(r) >= 0) liveBytes += this.len(r);
    let deadTuples = 0;
    let deadBytes = 0;
    let freeBytes = 0;
    let linePointers = 0;
    let unusedLps = 0;
    let emptyPages = 0;
    for (let p = 0; p < this.pageCount; p++) {
      const i = p * Page.STRIDE;
      deadTuples += pg[i + Page.DEAD_COUNT]! + pg[i + Page.PEND_COUNT]!;
      deadBytes += pg[i + Page.DEAD_BYTES]! + pg[i + Page.PEND_BYTES]!;
      freeBytes += this.heapFree(p);
      linePointers += pg[i + Page.NLINE]!;
      unusedLps += pg[i + Page.UNUSED]!;
      if (pg[i + Page.LIVE] === 0) emptyPages++;
    }
    const pages = this.pageCount;
    const u = this.counters.updates;
    return {
      rows: this.liveCount,
      pages,
      forwarded_rows: 0,
      hot_updates: this.counters.hot_updates,
      updates: u,
      hot_updates_pct: u > 0 ? round2((100 * this.counters.hot_updates) / u) : 0,
      newpage_updates: this.counters.newpage_updates,
      samepage_nonhot_updates: this.counters.samepage_nonhot_updates,
      table_scan_page_reads: pages,
      space_used_pct: pages > 0 ? round2((100 * (liveBytes + this.liveCount * this.geometry.slotBytes)) / (pages * g.usableBytes)) : 0,
      exclusive_table_locks: this.counters.exclusive_table_locks,
      avg_rows_per_page: pages > 0 ? round2(this.liveCount / pages) : 0,
      avg_row_bytes: this.liveCount > 0 ? round2(liveBytes / this.liveCount) : 0,
      dead_tuples: deadTuples,
      dead_tuple_bytes: deadBytes,
      free_bytes: freeBytes,
      line_pointers: linePointers,
      unused_line_pointers: unusedLps,
      heap_only_rows: this.heapOnlyRows(),
      empty_pages: emptyPages,
      prunes: this.counters.prunes,
      pruned_tuples: this.counters.pruned_tuples,
      index_entries_added: this.counters.index_entries_added,
      fsm_pages: pgFsmPages(this.geometry.pageBytes, this.fsmHigh),
      vm_pages: pgVmPages(this.geometry.pageBytes, this.vmHigh),
      inserts: this.counters.inserts,
      deletes: this.counters.deletes,
      rows_rejected: this.counters.rows_rejected,
      updates_rejected: this.counters.updates_rejected,
      vacuums: this.counters.vacuums,
      vacuum_full: this.counters.vacuum_full,
      lp_dead_reclaimed: this.counters.lp_dead_reclaimed,
      pages_truncated: this.counters.pages_truncated,
    };
  }

  pageMap(): PageMapData {
    const n = this.pageCount;
    const fill = new Float32Array(n);
    for (let p = 0; p < n; p++) {
      const i = p * Page.STRIDE;
      fill[p] = (this.pageFields[i + Page.STORE]! + this.pageFields[i + Page.NLINE]! * this.geometry.slotBytes) / this.geometry.usableBytes;
    }
    return { fill, stubs: new Uint16Array(n), forwardedIn: new Uint16Array(n) };
  }

  setEvents(sink: HeapEventSink | null): void {
    this.sink = sink;
  }

  inspect(only?: readonly number[]): PageInspector {
    const n = this.pageCount;
    const g = this.geometry;
    const pg = this.pageFields;
    // Only the rows of the pages asked for (a page's slots name no other page).
    const need = inspectedPages(n, only);
    const byPage = bucketRows(
      this.rowHigh,
      n,
      (r) => {
        const p = this.page(r);
        return p >= 0 && need[p] !== 0 ? p : -1;
      },
      0,
    );
    return frozenInspector(
      n,
      (p) => {
        const inTable = p >= 0 && p < n;
        const i = p * Page.STRIDE;
        const slots: SlotDetail[] = [];
        if (inTable) {
          for (let k = byPage.start[p]!; k < byPage.start[p + 1]!; k++) {
            const r = byPage.rows[k]!;
            slots.push({ slot: k - byPage.start[p]!, kind: this.heapOnly(r) ? 'heap-only' : 'row', row: r, bytes: this.len(r) });
          }
          // Versions and line pointers the engine counts per page, not one by one: one entry per kind.
          let next = slots.length;
          const group = (kind: SlotDetail['kind'], count: number, bytes: number) => {
            if (count <= 0) return;
            slots.push({ slot: next, kind, bytes, count });
            next += count;
          };
          group('pending', pg[i + Page.PEND_COUNT]!, pg[i + Page.PEND_BYTES]!);
          group('dead', pg[i + Page.DEAD_COUNT]!, pg[i + Page.DEAD_BYTES]!);
          group('redirect', pg[i + Page.ROOTS]!, 0);
          group('unused', pg[i + Page.UNUSED]!, 0);
        }
        const stored = inTable ? pg[i + Page.STORE]! : 0;
        const slotArrayBytes = (inTable ? pg[i + Page.NLINE]! : 0) * g.slotBytes;
        const flags: string[] = [];
        if (inTable && (pg[i + Page.FLAGS]! & PageFlag.FULL) !== 0) flags.push('PD_PAGE_FULL');
        if (p === this.targetBlock) flags.push('insert target (the cached target block)');
        return {
          page: p,
          pages: n,
          allocated: inTable,
          slots,
          storedBytes: stored,
          slotArrayBytes,
          reservedBytes: 0,
          fragmentedBytes: 0,
          contiguousBytes: g.usableBytes - stored - slotArrayBytes,
          flags,
        };
      },
      only,
    );
  }

  memoryBytes(): number {
    return (
      this.rows.byteLength +
      this.pageFields.byteLength +
      this.fsm.byteLength +
      (this.readState?.byteLength ?? 0) +
      this.lpPool.byteLength +
      this.lpAt.byteLength +
      this.lpCap.byteLength +
      (this.rootOff?.byteLength ?? 0)
    );
  }

  checkInvariants(): string[] {
    const bad: string[] = [];
    const n = this.pageCount;
    const liveBytes = new Int32Array(n);
    const live = new Int32Array(n);
    const redirects = new Int32Array(n);
    let liveRows = 0;
    for (let r = 0; r < this.rowHigh; r++) {
      const p = this.page(r);
      if (p < 0) continue;
      if (p >= n) {
        bad.push(`row ${r} on page ${p} beyond the table (${n} pages)`);
        continue;
      }
      liveRows++;
      liveBytes[p]! += this.len(r);
      live[p]!++;
      if (this.heapOnly(r)) redirects[p]!++;
    }
    if (liveRows !== this.liveCount) bad.push(`live rows ${this.liveCount} counted, ${liveRows} found`);
    for (let p = 0; p < n; p++) this.checkPage(p, liveBytes[p]!, live[p]!, bad);
    this.checkRowLinePointers(bad);
    return bad;
  }

  /** Page p's counts against its versions (`liveBytes` and `live` found in the rows) and its line pointer array. */
  private checkPage(p: number, liveBytes: number, live: number, bad: string[]): void {
    const i = p * Page.STRIDE;
    const pg = this.pageFields;
    if (pg[i + Page.LIVE] !== live) bad.push(`page ${p}: ${pg[i + Page.LIVE]} live versions kept, ${live} found`);
    const versions = pg[i + Page.LIVE]! + pg[i + Page.PEND_COUNT]! + pg[i + Page.DEAD_COUNT]!;
    const store = liveBytes + pg[i + Page.PEND_BYTES]! + pg[i + Page.DEAD_BYTES]!;
    if (store !== pg[i + Page.STORE]) bad.push(`page ${p}: storage ${pg[i + Page.STORE]} kept, ${store} in its versions`);
    if (versions + pg[i + Page.UNUSED]! + pg[i + Page.ROOTS]! !== pg[i + Page.NLINE]) {
      bad.push(
        `page ${p}: ${pg[i + Page.NLINE]} line pointers, but ${versions} versions + ${pg[i + Page.UNUSED]} unused + ${pg[i + Page.ROOTS]} roots`,
      );
    }
    if (pg[i + Page.STORE]! + pg[i + Page.NLINE]! * this.geometry.slotBytes > this.geometry.usableBytes)
      bad.push(`page ${p}: tuples and line pointers exceed the page`);
    if (pg[i + Page.NLINE]! > this.geometry.maxRowsPerPage) bad.push(`page ${p}: more than MaxHeapTuplesPerPage line pointers`);
    // The line pointer array agrees with the counts.
    const at = this.lpAt[p]!;
    const n = new Int32Array(8);
    if (at < 0) n[Lp.LIVE] = pg[i + Page.NLINE]!;
    else for (let k = 0; k < pg[i + Page.NLINE]!; k++) n[this.lpPool[at + k]!]!++;
    const want = [
      pg[i + Page.UNUSED]!,
      pg[i + Page.LIVE]!,
      pg[i + Page.PEND_FREE_LP]!,
      pg[i + Page.PEND_COUNT]! - pg[i + Page.PEND_FREE_LP]!,
      pg[i + Page.DEAD_FREE_LP]!,
      pg[i + Page.DEAD_COUNT]! - pg[i + Page.DEAD_FREE_LP]!,
      pg[i + Page.ROOTS]!,
      0,
    ];
    if (want.some((w, k) => w !== n[k]))
      bad.push(`page ${p}: line pointer states ${[...n].join('/')} where the counts say ${want.join('/')}`);
  }

  /** Every live row's line pointer is a live version's, and no other row's; a heap-only row's chain has a root. */
  private checkRowLinePointers(bad: string[]): void {
    const n = this.pageCount;
    // (page, offset) as one number: an offset is under 4,096 (12 bits, MaxHeapTuplesPerPage at most 1,164), and a
    // number key keeps the check fast (a string a row made --check runs of large tables spend a quarter of their CPU here).
    const seen = new Set<number>();
    for (let r = 0; r < this.rowHigh; r++) {
      const p = this.page(r);
      if (p < 0 || p >= n) continue;
      const off = this.offOf(r);
      const at = this.lpAt[p]!;
      if (off >= this.pageFields[p * Page.STRIDE + Page.NLINE]! || (at >= 0 && this.lpPool[at + off] !== Lp.LIVE))
        bad.push(`row ${r}: its line pointer ${off + 1} on page ${p} is not a live version's`);
      const key = p * 4096 + off;
      if (seen.has(key)) bad.push(`row ${r}: line pointer ${off + 1} on page ${p} is another row's too`);
      seen.add(key);
      if (this.heapOnly(r)) {
        const root = at >= 0 && this.rootOff !== null ? this.lpPool[at + this.rootOff[r]!] : -1;
        if (root !== Lp.ROOT && root !== Lp.DEAD_ROOT && root !== Lp.PEND_ROOT)
          bad.push(`row ${r}: heap-only, but its chain's root on page ${p} is not a root line pointer`);
      }
    }
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
