/**
 * The PostgreSQL heap: MVCC versions, HOT, fillfactor, on-access pruning, VACUUM. See README.md beside
 * this file ("postgres-heap") for what is modelled and what is simplified. Sources: docs/sources.md,
 * "PostgreSQL source code": the files it names (bufpage.h, hio.c
 * RelationGetBufferForTuple, heapam.c heap_update, pruneheap.c heap_page_prune_opt, freespace.c).
 *
 * Per page, in one interleaved Uint16Array: bytes of tuple storage (live, not-yet-dead and dead-unpruned
 * versions, each MAXALIGNed), line pointers (all, as nline), unused line pointers, line pointers kept by
 * HOT-chain roots (redirect or LP_DEAD), versions whose deleting transaction is still open ("pending"),
 * dead versions (committed, not yet pruned), and flags (PD_PAGE_FULL, touched in this transaction).
 * Per page where a version has died, its line pointer array, a state byte each (a pool of arrays).
 * Per row: the page of its current version, its stored bytes, whether it is a heap-only tuple and its
 * line pointer; for a heap-only row, its chain root's line pointer (2 bytes, once a HOT update happens).
 */
import type { MvccMetrics } from './metrics.js';
import { grown } from '../util/arrays.js';
import type { DeadPages, PageGeometry, PageMapData, ReorgKind, StorageEngine, UpdateInfo } from './engine.js';
import { FreeTree } from './free-tree.js';
import type { HeapEventSink } from './events.js';
import { bucketRows, frozenInspector, inspectedPages, type PageInspector, type SlotDetail } from './inspect.js';
import type { PageReads } from './page-reads.js';

interface PostgresHeapOptions {
  geometry: PageGeometry;
  fillfactor: number;
  /** Keep what reads need per row (HOT chain lengths, index entries of dead versions): the workload has read phases. */
  readState?: boolean;
  /** Indexes on the table: a non-HOT update adds one entry to each. */
  indexCount: number;
  rowCapacity: number;
}

/** On-access pruning runs when free space < max(fillfactor reserve, BLCKSZ / 10) (heap_page_prune_opt) [pruneheap.c]. */
export const PG_PRUNE_FREE_DIVISOR = 10;

/** FSM_CATEGORIES = 256: free space is kept in BLCKSZ/256-byte steps (freespace.c). */
const PG_FSM_CATEGORIES = 256;
/** Heap pages covered by one FSM leaf page on 8k: LeafNodesPerPage = 8164 − 4095 = 4069 (fsm_internals.h). */
function pgFsmLeafSlots(pageBytes: number): number {
  const nodes = pageBytes - 24 - 4;
  return nodes - (pageBytes / 2 - 1);
}
/**
 * Pages of the free space map fork when its highest recorded heap page is `highPage` (−1: no FSM): the
 * FSM is a tree of FSM_TREE_DEPTH levels (3 from 1,626 slots a page) whose pages are laid out depth first;
 * the file reaches the leaf covering `highPage` (fsm_logical_to_physical) [freespace.c][fsm_internals.h].
 * 3 pages up to 4,069 heap pages on 8k.
 */
export function pgFsmPages(pageBytes: number, highPage: number): number {
  if (highPage < 0) return 0;
  const slots = pgFsmLeafSlots(pageBytes);
  const depth = slots >= 1626 ? 3 : 4;
  let leafno = Math.floor(highPage / slots);
  let pages = 0;
  for (let l = 0; l < depth; l++) {
    pages += leafno + 1;
    leafno = Math.floor(leafno / slots);
  }
  return pages;
}

/** Pages of the visibility map fork covering heap pages 0 … highPage: 2 bits a heap page on (BLCKSZ − 24) bytes, 32,672 heap pages a map page on 8k [visibilitymap.c]. */
export function pgVmPages(pageBytes: number, highPage: number): number {
  return highPage < 0 ? 0 : Math.ceil((highPage + 1) / ((pageBytes - 24) * 4));
}

/** VACUUM truncates trailing empty pages when ≥ 1000 of them or ≥ 1/16 of the table (vacuumlazy.c). */
const PG_REL_TRUNCATE_MINIMUM = 1000;
const PG_REL_TRUNCATE_FRACTION = 16;

// page fields
const STRIDE = 13;
const STORE = 0; // bytes of tuple storage
const NLINE = 1; // line pointers
const UNUSED = 2; // LP_UNUSED, reusable
const ROOTS = 3; // LP_REDIRECT / LP_DEAD kept by chain roots after pruning
const PEND_BYTES = 4;
const PEND_COUNT = 5;
const PEND_FREE_LP = 6; // pending versions that are heap-only: their LP becomes unused when pruned
const DEAD_BYTES = 7;
const DEAD_COUNT = 8;
const DEAD_FREE_LP = 9;
const FLAGS = 10;
const LIVE = 11; // live versions on the page
const PRUNES = 12; // times the page was pruned (16 bits, wrapping): a row's HOT chain count is stale when its stamp differs
const F_FULL = 1;
const F_TOUCHED = 2;
// row fields
const ROW_STRIDE = 2;
/** Bytes of row state the PostgreSQL heap keeps per row: [page, length | flags], two 32-bit fields. */
export const POSTGRES_HEAP_ROW_BYTES = ROW_STRIDE * 4;
/** Bytes a row of read state when the workload reads (HOT chain, its stamp, index entries of dead versions). */
export const PG_READ_STATE_ROW_BYTES = 4;
/** Bytes a row when versions die: its chain root's line pointer (2) and the page's line pointer array (a byte a line pointer, with room to grow). */
export const PG_CHURN_ROW_BYTES = 5;
const LEN_MASK = 0xffff;
/** The row's line pointer on its page (offset number − 1), 12 bits from bit 17: MaxHeapTuplesPerPage is 1,164 on 32 kB. */
const OFF_SHIFT = 17;
const OFF_MASK = 0xfff;
// Line pointer states, one byte each in a page's line pointer array (allocated when a version on the
// page first dies: until then the page's line pointers are its live versions, in order).
const LP_UNUSED = 0;
const LP_LIVE = 1; // a live version
const LP_PEND_HOT = 2; // a heap-only version replaced or deleted by the open transaction
const LP_PEND_ROOT = 3; // a version with an index entry (a chain's root) replaced or deleted by the open transaction
const LP_DEAD_HOT = 4; // the same, committed: pruning makes the line pointer unused
const LP_DEAD_ROOT = 5; // pruning keeps the line pointer as LP_REDIRECT or LP_DEAD
const LP_ROOT = 6; // LP_REDIRECT or LP_DEAD (no storage)
const LP_KEEP = 7; // (VACUUM's pass) a redirect to a live version
/** Row flag: the current version is a heap-only tuple (reached through a HOT chain). */
const F_HEAP_ONLY = 1 << 16;
// read state, a 32-bit word a row when the workload reads: the HOT chain's length (8 bits, saturating),
// the page's prune count when the chain was last counted (8 bits), and the index entries of the row's
// dead versions that no VACUUM removed and no index scan killed yet (8 bits, saturating)
const CHAIN_MASK = 0xff;
const STAMP_SHIFT = 8;
const DEAD_SHIFT = 16;
const SATURATED = 0xff;

export class PostgresHeap implements StorageEngine {
  private readonly geometry: PageGeometry;
  private readonly options: PostgresHeapOptions;
  private readonly saveFreeSpace: number;
  private readonly pruneMinFree: number;
  private readonly nearlyEmptyFreeSpace: number;
  private readonly catStep: number;
  private readonly fsmLeaf: number;

  /** Per row, interleaved so an update reads one cache line: [page of the current version (−1: not live), stored bytes | flags << 16]. */
  private rows: Int32Array;
  private rowHigh = 0;
  private liveCount = 0;

  /** Every field fits 16 bits: bytes of a page of at most 32 kB, counts of at most MaxHeapTuplesPerPage. */
  private pageFields = new Uint16Array(1024 * STRIDE);
  private pageCount = 0;
  private targetBlock = -1;
  private fsm = new FreeTree();
  private fsmNext = new Int32Array(16);
  /** Upper FSM levels are only filled in by VACUUM (FreeSpaceMapVacuum): before it, searches stay on one FSM leaf page. */
  private fsmVacuumed = false;
  /** The highest heap page the FSM fork covers and the highest the visibility map covers (−1: no fork) [freespace.c][visibilitymap.c]. */
  private fsmHigh = -1;
  private vmHigh = -1;
  private touched = new Int32Array(64);
  private touchedCount = 0;
  /**
   * Line pointer arrays, for the pages where a version died: page p's states are lpPool[lpAt[p] …
   * lpAt[p] + lpCap[p]) (lpAt −1: none yet, its line pointers are its live versions in order). Where the
   * line pointers are matters: PageAddItem reuses the first unused one, and pruning
   * (PageRepairFragmentation) and VACUUM (PageTruncateLinePointerArray) cut unused ones off the end.
   */
  private lpPool = new Uint8Array(0);
  private lpTop = 0;
  private lpAt = new Int32Array(1024).fill(-1);
  private lpCap = new Uint16Array(1024);
  /** Per row whose current version is heap-only, the line pointer of its chain's root (null until the first HOT update). */
  private rootOff: Uint16Array | null = null;

  /** Where the engine tells what it does (rowsim trace); null: nowhere. */
  private sink: HeapEventSink | null = null;
  /** Per row, what reads need (see CHAIN_MASK …); null when the workload has no read phase. */
  private readState: Int32Array | null;
  /** The read phase's counters while a read runs (pruning on access is counted there). */
  private reading: PageReads | null = null;

  /** True when the last update added an entry to every index (not HOT). */
  lastUpdateNewIndexEntries = false;

  private counters = {
    inserts: 0,
    updates: 0,
    hot_updates: 0,
    newpage_updates: 0,
    samepage_nonhot_updates: 0,
    deletes: 0,
    prunes: 0,
    pruned_tuples: 0,
    index_entries_added: 0,
    rows_rejected: 0,
    updates_rejected: 0,
    vacuums: 0,
    vacuum_full: 0,
    exclusive_table_locks: 0,
    pages_truncated: 0,
    lp_dead_reclaimed: 0,
  };

  constructor(options: PostgresHeapOptions) {
    this.options = options;
    this.geometry = options.geometry;
    const page = this.geometry.pageBytes;
    // RelationGetTargetPageFreeSpace: BLCKSZ × (100 − fillfactor) / 100 [hio.c].
    this.saveFreeSpace = Math.floor((page * (100 - options.fillfactor)) / 100);
    // heap_page_prune_opt: minfree = Max(fillfactor reserve, BLCKSZ / 10) [pruneheap.c].
    this.pruneMinFree = Math.max(this.saveFreeSpace, Math.floor(page / PG_PRUNE_FREE_DIVISOR));
    // hio.c: pages with only line pointers count as empty for large tuples at low fillfactor.
    this.nearlyEmptyFreeSpace = this.geometry.maxRowBytes - Math.floor(this.geometry.maxRowsPerPage / 8) * this.geometry.slotBytes;
    this.catStep = page / PG_FSM_CATEGORIES;
    this.fsmLeaf = pgFsmLeafSlots(page);
    const n = Math.max(16, options.rowCapacity);
    this.rows = new Int32Array(n * ROW_STRIDE);
    for (let i = 0; i < this.rows.length; i += ROW_STRIDE) this.rows[i] = -1;
    this.readState = options.readState ? new Int32Array(n) : null;
  }

  // ---- row fields --------------------------------------------------------------------------

  private page(r: number): number {
    return this.rows[r * ROW_STRIDE]!;
  }
  private len(r: number): number {
    return this.rows[r * ROW_STRIDE + 1]! & LEN_MASK;
  }
  private heapOnly(r: number): boolean {
    return (this.rows[r * ROW_STRIDE + 1]! & F_HEAP_ONLY) !== 0;
  }

  // ---- page helpers --------------------------------------------------------------------------

  /** PageGetHeapFreeSpace(): pd_upper − pd_lower − one line pointer; 0 at MaxHeapTuplesPerPage with no unused LP. */
  private heapFree(p: number): number {
    const i = p * STRIDE;
    const nline = this.pageFields[i + NLINE]!;
    if (nline >= this.geometry.maxRowsPerPage && this.pageFields[i + UNUSED] === 0) return 0;
    const free = this.geometry.usableBytes - this.pageFields[i + STORE]! - nline * this.geometry.slotBytes - this.geometry.slotBytes;
    return free > 0 ? free : 0;
  }

  private newPage(): number {
    const p = this.pageCount++;
    if ((p + 1) * STRIDE > this.pageFields.length) this.pageFields = grown(this.pageFields, (p + 1) * STRIDE);
    this.pageFields.fill(0, p * STRIDE, (p + 1) * STRIDE);
    if (p >= this.lpAt.length) {
      const old = this.lpAt.length;
      this.lpAt = grown(this.lpAt, p + 1);
      this.lpAt.fill(-1, old);
      this.lpCap = grown(this.lpCap, p + 1);
    }
    this.lpAt[p] = -1;
    this.lpCap[p] = 0;
    return p;
  }

  /** Page p's line pointer array, made (its live versions in order) if the page had none. */
  private lps(p: number, need: number): number {
    let at = this.lpAt[p]!;
    const cap = this.lpCap[p]!;
    if (at >= 0 && need <= cap) return at;
    const nline = this.pageFields[p * STRIDE + NLINE]!;
    need = Math.max(need, nline);
    let size = Math.max(8, cap);
    while (size < need) size *= 2;
    size = Math.min(size, Math.max(need, this.geometry.maxRowsPerPage));
    if (this.lpTop + size > this.lpPool.length) this.lpPool = grown(this.lpPool, this.lpTop + size);
    const to = this.lpTop;
    this.lpTop += size;
    if (at >= 0) this.lpPool.copyWithin(to, at, at + nline);
    else this.lpPool.fill(LP_LIVE, to, to + nline);
    this.lpPool.fill(LP_UNUSED, to + nline, to + size);
    this.lpAt[p] = at = to;
    this.lpCap[p] = size;
    return at;
  }

  /** PageAddItem: the first unused line pointer if there is one, else a new one at the end; returns its place (offset number − 1). */
  private addTuple(p: number, bytes: number): number {
    const i = p * STRIDE;
    const pg = this.pageFields;
    const nline = pg[i + NLINE]!;
    let off = nline;
    if (pg[i + UNUSED]! > 0) {
      const at = this.lpAt[p]!;
      const pool = this.lpPool;
      off = 0;
      while (pool[at + off] !== LP_UNUSED) off++;
      pool[at + off] = LP_LIVE;
      pg[i + UNUSED]!--;
    } else {
      if (this.lpAt[p]! >= 0) {
        const at = this.lps(p, nline + 1);
        this.lpPool[at + nline] = LP_LIVE;
      }
      pg[i + NLINE] = nline + 1;
    }
    pg[i + STORE]! += bytes;
    pg[i + LIVE]!++;
    return off;
  }

  private offOf(r: number): number {
    return (this.rows[r * ROW_STRIDE + 1]! >>> OFF_SHIFT) & OFF_MASK;
  }

  private rootOffs(): Uint16Array {
    if (this.rootOff === null || this.rootOff.length * ROW_STRIDE < this.rows.length)
      this.rootOff = grown(this.rootOff ?? new Uint16Array(0), this.rows.length / ROW_STRIDE);
    return this.rootOff;
  }

  private fsmAvailCat(avail: number): number {
    if (avail >= this.geometry.maxRowBytes) return PG_FSM_CATEGORIES - 1;
    return Math.min(PG_FSM_CATEGORIES - 2, Math.floor(avail / this.catStep));
  }

  private fsmNeededCat(needed: number): number {
    if (needed > this.geometry.maxRowBytes) return PG_FSM_CATEGORIES - 1;
    return Math.ceil(needed / this.catStep);
  }

  /** fsm_search_avail on one FSM leaf page: first fit from fp_next_slot, wrapping; fp_next_slot moves past it. */
  private fsmSearchLeaf(group: number, cat: number): number {
    const lo = group * this.fsmLeaf;
    const hi = Math.min(this.pageCount, lo + this.fsmLeaf);
    if (hi <= lo) return -1;
    if (group >= this.fsmNext.length) this.fsmNext = grown(this.fsmNext, group + 1);
    const start = lo + this.fsmNext[group]!;
    let f = this.fsm.findFrom(cat, start);
    if (f < 0 || f >= hi) {
      f = this.fsm.findFrom(cat, lo);
      if (f >= hi || f >= start) f = -1;
    }
    if (f >= 0) this.fsmNext[group] = f - lo + 1;
    return f;
  }

  /** fsm_search from the root: only pages VACUUM has recorded in the upper levels are found. */
  private fsmSearchRoot(cat: number): number {
    if (!this.fsmVacuumed) return -1;
    const groups = Math.ceil(this.pageCount / this.fsmLeaf);
    for (let gi = 0; gi < groups; gi++) {
      const f = this.fsmSearchLeaf(gi, cat);
      if (f >= 0) return f;
    }
    return -1;
  }

  /**
   * RelationGetBufferForTuple (hio.c): the cached target block if it has len + fillfactor reserve
   * free; else record its free space in the FSM and ask the FSM for another page; else extend.
   */
  private pageForTuple(len: number, skipFsm = false): number {
    const targetFree =
      len + this.saveFreeSpace > this.nearlyEmptyFreeSpace ? Math.max(len, this.nearlyEmptyFreeSpace) : len + this.saveFreeSpace;
    // HEAP_INSERT_SKIP_FSM (a rewrite's inserts): the target block, else a new page.
    if (skipFsm) {
      if (this.targetBlock >= 0 && targetFree <= this.heapFree(this.targetBlock)) return this.targetBlock;
      return (this.targetBlock = this.newPage());
    }
    let p = this.targetBlock;
    // Most inserts fit the target block: the FSM category is worked out only for a search.
    if (p >= 0 && targetFree <= this.heapFree(p)) return p;
    const cat = this.fsmNeededCat(targetFree);
    if (p < 0) {
      p = this.fsmSearchRoot(cat);
      if (p < 0 && this.pageCount > 0) p = this.pageCount - 1;
    }
    for (let attempts = 0; p >= 0 && attempts < this.pageCount + 1; attempts++) {
      const free = this.heapFree(p);
      if (targetFree <= free) {
        this.targetBlock = p;
        return p;
      }
      // RecordAndGetPageWithFreeSpace: set this page's category, search its FSM leaf page, then the root.
      this.fsm.set(p, this.fsmAvailCat(free));
      if (p > this.fsmHigh) this.fsmHigh = p;
      const group = Math.floor(p / this.fsmLeaf);
      p = this.fsmSearchLeaf(group, cat);
      if (p < 0) p = this.fsmSearchRoot(cat);
    }
    p = this.newPage();
    this.targetBlock = p;
    return p;
  }

  private touch(p: number): void {
    const i = p * STRIDE;
    if ((this.pageFields[i + FLAGS]! & F_TOUCHED) !== 0) return;
    this.pageFields[i + FLAGS]! |= F_TOUCHED;
    if (this.touchedCount >= this.touched.length) this.touched = grown(this.touched, this.touchedCount + 1);
    this.touched[this.touchedCount++] = p;
  }

  /** The old version of a row becomes dead when its transaction commits. */
  private retire(p: number, bytes: number, heapOnly: boolean, off: number): void {
    const at = this.lps(p, 0);
    this.lpPool[at + off] = heapOnly ? LP_PEND_HOT : LP_PEND_ROOT;
    const i = p * STRIDE;
    this.pageFields[i + PEND_BYTES]! += bytes;
    this.pageFields[i + PEND_COUNT]!++;
    if (heapOnly) this.pageFields[i + PEND_FREE_LP]!++;
    this.pageFields[i + LIVE]!--;
    this.touch(p);
  }

  /** heap_page_prune_opt: prune when the page has dead versions and is full or short of free space. */
  private pruneOpt(p: number): void {
    const i = p * STRIDE;
    if (this.pageFields[i + DEAD_COUNT] === 0) return;
    if ((this.pageFields[i + FLAGS]! & F_FULL) === 0 && this.heapFree(p) >= this.pruneMinFree) return;
    this.prune(p);
  }

  /** heap_page_prune + PageRepairFragmentation: dead storage freed; heap-only LPs unused; roots keep theirs. */
  private prune(p: number, by: 'access' | 'vacuum' = 'access'): void {
    const i = p * STRIDE;
    const dead = this.pageFields[i + DEAD_COUNT]!;
    const freeLp = this.pageFields[i + DEAD_FREE_LP]!;
    if (this.sink !== null) this.sink({ op: 'prune', page: p, versions: dead, freedBytes: this.pageFields[i + DEAD_BYTES]!, by });
    this.pageFields[i + STORE]! -= this.pageFields[i + DEAD_BYTES]!;
    this.pageFields[i + UNUSED]! += freeLp;
    this.pageFields[i + ROOTS]! += dead - freeLp;
    // Dead heap-only versions' line pointers become unused, dead roots LP_REDIRECT or LP_DEAD; then
    // PageRepairFragmentation cuts the unused ones at the end off the array [bufpage.c].
    const at = this.lps(p, 0);
    const pool = this.lpPool;
    let nline = this.pageFields[i + NLINE]!;
    for (let k = at; k < at + nline; k++) {
      const st = pool[k]!;
      if (st === LP_DEAD_HOT) pool[k] = LP_UNUSED;
      else if (st === LP_DEAD_ROOT) pool[k] = LP_ROOT;
    }
    while (nline > 0 && pool[at + nline - 1] === LP_UNUSED) nline--;
    this.pageFields[i + UNUSED]! -= this.pageFields[i + NLINE]! - nline;
    this.pageFields[i + NLINE] = nline;
    this.pageFields[i + DEAD_BYTES] = 0;
    this.pageFields[i + DEAD_COUNT] = 0;
    this.pageFields[i + DEAD_FREE_LP] = 0;
    this.pageFields[i + FLAGS]! &= ~F_FULL;
    this.pageFields[i + PRUNES] = (this.pageFields[i + PRUNES]! + 1) & 0xffff;
    if (this.reading !== null && by === 'access') this.reading.pagesPruned++;
    this.counters.prunes++;
    this.counters.pruned_tuples += dead;
  }

  private ensureRow(row: number): void {
    if ((row + 1) * ROW_STRIDE <= this.rows.length) return;
    const old = this.rows.length;
    this.rows = grown(this.rows, (row + 1) * ROW_STRIDE);
    for (let i = old; i < this.rows.length; i += ROW_STRIDE) this.rows[i] = -1;
    if (this.readState !== null) this.readState = grown(this.readState, row + 1);
  }

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
    if (this.sink !== null) this.sink({ op: 'insert', row, page: p, bytes: phys, reserved: 0, newPage: this.pageCount > pagesBefore });
    this.rows[row * ROW_STRIDE] = p;
    this.rows[row * ROW_STRIDE + 1] = phys | (off << OFF_SHIFT);
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
    const ri = row * ROW_STRIDE;
    const p = this.rows[ri]!;
    // The scan that finds the row reads its page: on-access pruning first.
    this.pruneOpt(p);
    this.counters.updates++;
    const oldLen = this.rows[ri + 1]! & LEN_MASK;
    const oldHeapOnly = (this.rows[ri + 1]! & F_HEAP_ONLY) !== 0;
    let q = p;
    let hot = false;
    const freeNow = this.heapFree(p);
    const pagesBefore = this.pageCount;
    if (phys <= freeNow) {
      hot = !info.indexedChanged;
      if (!hot) this.counters.samepage_nonhot_updates++;
    } else {
      // heap_update: the old page gets PD_PAGE_FULL as a hint to prune it on the next access.
      this.pageFields[p * STRIDE + FLAGS]! |= F_FULL;
      q = this.pageForTuple(phys);
      this.counters.newpage_updates++;
    }
    const oldOff = (this.rows[ri + 1]! >>> OFF_SHIFT) & OFF_MASK;
    this.retire(p, oldLen, oldHeapOnly, oldOff);
    const off = this.addTuple(q, phys);
    this.rows[ri] = q;
    this.rows[ri + 1] = phys | (hot ? F_HEAP_ONLY : 0) | (off << OFF_SHIFT);
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

  delete(row: number): void {
    const ri = row * ROW_STRIDE;
    const p = this.rows[ri]!;
    this.pruneOpt(p);
    if (this.sink !== null) this.sink({ op: 'delete', row, page: p, home: -1, bytes: this.len(row) });
    this.retire(p, this.len(row), this.heapOnly(row), this.offOf(row));
    this.rows[ri] = -1;
    this.liveCount--;
    this.counters.deletes++;
  }

  /** Transaction end: versions it replaced or deleted become dead (prunable). */
  commit(): void {
    const pg = this.pageFields;
    if (this.sink !== null && this.touchedCount > 0) {
      let versions = 0;
      for (let k = 0; k < this.touchedCount; k++) versions += pg[this.touched[k]! * STRIDE + PEND_COUNT]!;
      this.sink({ op: 'commit', pages: Array.from(this.touched.subarray(0, this.touchedCount)), versions });
    }
    for (let k = 0; k < this.touchedCount; k++) {
      const i = this.touched[k]! * STRIDE;
      pg[i + DEAD_BYTES]! += pg[i + PEND_BYTES]!;
      pg[i + DEAD_COUNT]! += pg[i + PEND_COUNT]!;
      pg[i + DEAD_FREE_LP]! += pg[i + PEND_FREE_LP]!;
      pg[i + PEND_BYTES] = 0;
      pg[i + PEND_COUNT] = 0;
      pg[i + PEND_FREE_LP] = 0;
      pg[i + FLAGS]! &= ~F_TOUCHED;
      const at = this.lpAt[this.touched[k]!]!;
      const pool = this.lpPool;
      for (let j = at, end = at + pg[i + NLINE]!; j < end; j++) {
        const st = pool[j]!;
        if (st === LP_PEND_HOT) pool[j] = LP_DEAD_HOT;
        else if (st === LP_PEND_ROOT) pool[j] = LP_DEAD_ROOT;
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
      if (p >= 0 && this.heapOnly(r)) pool[this.lpAt[p]! + roots![r]!] = LP_KEEP;
    }
    for (let p = 0; p < this.pageCount; p++) {
      const i = p * STRIDE;
      if (pg[i + DEAD_COUNT]! > 0) this.prune(p, 'vacuum');
      const at = this.lpAt[p]!;
      if (at < 0) continue;
      // lazy_vacuum_heap_page: LP_DEAD line pointers (their index entries are gone) become unused, then
      // PageTruncateLinePointerArray cuts the unused ones off the end, keeping at least one [bufpage.c].
      let nline = pg[i + NLINE]!;
      let lpDead = 0;
      for (let k = at; k < at + nline; k++) {
        if (pool[k] === LP_ROOT) {
          pool[k] = LP_UNUSED;
          lpDead++;
        } else if (pool[k] === LP_KEEP) pool[k] = LP_ROOT;
      }
      this.counters.lp_dead_reclaimed += lpDead;
      pg[i + UNUSED]! += lpDead;
      pg[i + ROOTS]! -= lpDead;
      if (lpDead > 0) {
        while (nline > 1 && pool[at + nline - 1] === LP_UNUSED) nline--;
        pg[i + UNUSED]! -= pg[i + NLINE]! - nline;
        pg[i + NLINE] = nline;
      }
    }
    // lazy_truncate_heap: trailing empty pages.
    let end = this.pageCount;
    while (end > 0 && pg[(end - 1) * STRIDE + NLINE] === pg[(end - 1) * STRIDE + UNUSED]) end--;
    const freeable = this.pageCount - end;
    if (freeable > 0 && (freeable >= PG_REL_TRUNCATE_MINIMUM || freeable >= this.pageCount / PG_REL_TRUNCATE_FRACTION)) {
      this.counters.pages_truncated += freeable;
      this.pageCount = end;
    }
    this.fsm.clear();
    for (let p = 0; p < this.pageCount; p++) this.fsm.set(p, this.fsmAvailCat(this.heapFree(p)));
    this.fsmVacuumed = true;
    // The index entries of dead versions are gone (lazy_vacuum_all_indexes); pruning made every chain stale.
    if (this.readState !== null) for (let r = 0; r < this.rowHigh; r++) this.readState[r]! &= ~(SATURATED << DEAD_SHIFT);
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
        this.rows[r * ROW_STRIDE] = cur;
        if (this.sink !== null) this.sink({ op: 'reorg-row', row: r, from, home: from, to: cur, bytes: len, outcome: 'rewritten' });
        this.rows[r * ROW_STRIDE + 1] = len | (off << OFF_SHIFT);
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
    const stamp = this.pageFields[page * STRIDE + PRUNES]! & 0xff;
    let dead = (s >>> DEAD_SHIFT) & SATURATED;
    let chain = 0;
    if (hot) {
      chain = ((s >>> STAMP_SHIFT) & 0xff) === stamp ? s & CHAIN_MASK : 0;
      if (chain < SATURATED) chain++;
    } else if (dead < SATURATED) dead++;
    st[row] = chain | (stamp << STAMP_SHIFT) | (dead << DEAD_SHIFT);
  }

  /** Steps along the row's HOT chain to its visible version: the heap-only versions not yet pruned away. */
  private chainHops(row: number, page: number): number {
    if (!this.heapOnly(row)) return 0;
    const s = this.readState![row]!;
    return ((s >>> STAMP_SHIFT) & 0xff) === (this.pageFields[page * STRIDE + PRUNES]! & 0xff) ? s & CHAIN_MASK : 0;
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
    const dead = deadPages ? deadPages.count : (s >>> DEAD_SHIFT) & SATURATED;
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
      this.readState[row] = s & ~(SATURATED << DEAD_SHIFT);
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
      const i = p * STRIDE;
      reads.tuplesVisited += pg[i + LIVE]! + pg[i + PEND_COUNT]! + pg[i + DEAD_COUNT]!;
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

  // ---- observation ---------------------------------------------------------------------------

  prefetchRows(rows: Int32Array, count: number): number {
    const r = this.rows;
    const pg = this.pageFields;
    let sum = 0;
    for (let i = 0; i < count; i++) sum += r[rows[i]! * ROW_STRIDE]!;
    // The rows' read state (a fetch through an index reads it, an update writes it): an array of its own.
    const st = this.readState;
    if (st !== null) for (let i = 0; i < count; i++) sum += st[rows[i]!]!;
    // Then the pages they are on (a second pass: the row loads above are in by now).
    for (let i = 0; i < count; i++) {
      const p = r[rows[i]! * ROW_STRIDE]!;
      if (p >= 0) sum += pg[p * STRIDE + DEAD_COUNT]!;
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
    const ri = row * ROW_STRIDE + 1;
    this.rows[ri] = (this.rows[ri]! & ~LEN_MASK) | bytes;
  }

  isLive(row: number): boolean {
    return row < this.rowHigh && this.rows[row * ROW_STRIDE]! >= 0;
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
      const i = p * STRIDE;
      deadTuples += pg[i + DEAD_COUNT]! + pg[i + PEND_COUNT]!;
      deadBytes += pg[i + DEAD_BYTES]! + pg[i + PEND_BYTES]!;
      freeBytes += this.heapFree(p);
      linePointers += pg[i + NLINE]!;
      unusedLps += pg[i + UNUSED]!;
      if (pg[i + LIVE] === 0) emptyPages++;
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
      const i = p * STRIDE;
      fill[p] = (this.pageFields[i + STORE]! + this.pageFields[i + NLINE]! * this.geometry.slotBytes) / this.geometry.usableBytes;
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
        const i = p * STRIDE;
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
          group('pending', pg[i + PEND_COUNT]!, pg[i + PEND_BYTES]!);
          group('dead', pg[i + DEAD_COUNT]!, pg[i + DEAD_BYTES]!);
          group('redirect', pg[i + ROOTS]!, 0);
          group('unused', pg[i + UNUSED]!, 0);
        }
        const stored = inTable ? pg[i + STORE]! : 0;
        const slotArrayBytes = (inTable ? pg[i + NLINE]! : 0) * g.slotBytes;
        const flags: string[] = [];
        if (inTable && (pg[i + FLAGS]! & F_FULL) !== 0) flags.push('PD_PAGE_FULL');
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
    for (let p = 0; p < n; p++) {
      const i = p * STRIDE;
      const pg = this.pageFields;
      if (pg[i + LIVE] !== live[p]) bad.push(`page ${p}: ${pg[i + LIVE]} live versions kept, ${live[p]} found`);
      const versions = pg[i + LIVE]! + pg[i + PEND_COUNT]! + pg[i + DEAD_COUNT]!;
      const store = liveBytes[p]! + pg[i + PEND_BYTES]! + pg[i + DEAD_BYTES]!;
      if (store !== pg[i + STORE]) bad.push(`page ${p}: storage ${pg[i + STORE]} kept, ${store} in its versions`);
      if (versions + pg[i + UNUSED]! + pg[i + ROOTS]! !== pg[i + NLINE]) {
        bad.push(`page ${p}: ${pg[i + NLINE]} line pointers, but ${versions} versions + ${pg[i + UNUSED]} unused + ${pg[i + ROOTS]} roots`);
      }
      if (pg[i + STORE]! + pg[i + NLINE]! * this.geometry.slotBytes > this.geometry.usableBytes)
        bad.push(`page ${p}: tuples and line pointers exceed the page`);
      if (pg[i + NLINE]! > this.geometry.maxRowsPerPage) bad.push(`page ${p}: more than MaxHeapTuplesPerPage line pointers`);
      // The line pointer array agrees with the counts.
      const at = this.lpAt[p]!;
      const n = new Int32Array(8);
      if (at < 0) n[LP_LIVE] = pg[i + NLINE]!;
      else for (let k = 0; k < pg[i + NLINE]!; k++) n[this.lpPool[at + k]!]!++;
      const want = [
        pg[i + UNUSED]!,
        pg[i + LIVE]!,
        pg[i + PEND_FREE_LP]!,
        pg[i + PEND_COUNT]! - pg[i + PEND_FREE_LP]!,
        pg[i + DEAD_FREE_LP]!,
        pg[i + DEAD_COUNT]! - pg[i + DEAD_FREE_LP]!,
        pg[i + ROOTS]!,
        0,
      ];
      if (want.some((w, k) => w !== n[k]))
        bad.push(`page ${p}: line pointer states ${[...n].join('/')} where the counts say ${want.join('/')}`);
    }
    const seen = new Set<string>();
    for (let r = 0; r < this.rowHigh; r++) {
      const p = this.page(r);
      if (p < 0 || p >= n) continue;
      const off = this.offOf(r);
      const at = this.lpAt[p]!;
      if (off >= this.pageFields[p * STRIDE + NLINE]! || (at >= 0 && this.lpPool[at + off] !== LP_LIVE))
        bad.push(`row ${r}: its line pointer ${off + 1} on page ${p} is not a live version's`);
      if (seen.has(`${p}:${off}`)) bad.push(`row ${r}: line pointer ${off + 1} on page ${p} is another row's too`);
      seen.add(`${p}:${off}`);
      if (this.heapOnly(r)) {
        const root = at >= 0 && this.rootOff !== null ? this.lpPool[at + this.rootOff[r]!] : -1;
        if (root !== LP_ROOT && root !== LP_DEAD_ROOT && root !== LP_PEND_ROOT)
          bad.push(`row ${r}: heap-only, but its chain's root on page ${p} is not a root line pointer`);
      }
    }
    return bad;
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
