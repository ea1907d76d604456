/**
 * The PostgreSQL heap's pages: the state of rows and pages, a tuple placed on a page (RelationGetBufferForTuple's
 * choice, through the free space map), line pointers, on-access pruning. The operations, VACUUM, reads and
 * what an observer asks are the layer above (postgres-heap.ts).
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
import { grown } from '../util/arrays.js';
import type { PageGeometry } from './engine.js';
import { FreeTree } from './free-tree.js';
import type { HeapEventSink } from './events.js';
import type { PageReads } from './page-reads.js';

export interface PostgresHeapOptions {
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

// page fields, 16 bits each, interleaved; const enums, so that the compiler writes the numbers in place
export const enum Page {
  STRIDE = 13,
  STORE = 0, // bytes of tuple storage
  NLINE = 1, // line pointers
  UNUSED = 2, // LP_UNUSED, reusable
  ROOTS = 3, // LP_REDIRECT / LP_DEAD kept by chain roots after pruning
  PEND_BYTES = 4,
  PEND_COUNT = 5,
  PEND_FREE_LP = 6, // pending versions that are heap-only: their LP becomes unused when pruned
  DEAD_BYTES = 7,
  DEAD_COUNT = 8,
  DEAD_FREE_LP = 9,
  FLAGS = 10,
  LIVE = 11, // live versions on the page
  PRUNES = 12, // times the page was pruned (16 bits, wrapping): a row's HOT chain count is stale when its stamp differs
}
export const enum PageFlag {
  FULL = 1,
  TOUCHED = 2,
  /** Holds versions that died while a snapshot was held (pending until it is let go). */
  HELD = 4,
}
// row fields
export const enum Row {
  STRIDE = 2,
  LEN_MASK = 0xffff,
  /** The row's line pointer on its page (offset number − 1), 12 bits from bit 17: MaxHeapTuplesPerPage is 1,164 on 32 kB. */
  OFF_SHIFT = 17,
  OFF_MASK = 0xfff,
  /** Row flag: the current version is a heap-only tuple (reached through a HOT chain). */
  HEAP_ONLY = 1 << 16,
}
/** Bytes of row state the PostgreSQL heap keeps per row: [page, length | flags], two 32-bit fields. */
export const POSTGRES_HEAP_ROW_BYTES = Row.STRIDE * 4;
/** Bytes a row of read state when the workload reads (HOT chain, its stamp, index entries of dead versions). */
export const PG_READ_STATE_ROW_BYTES = 4;
/** Bytes a row when versions die: its chain root's line pointer (2) and the page's line pointer array (a byte a line pointer, with room to grow). */
export const PG_CHURN_ROW_BYTES = 5;
// Line pointer states, one byte each in a page's line pointer array (allocated when a version on the
// page first dies: until then the page's line pointers are its live versions, in order).
export const enum Lp {
  UNUSED = 0,
  LIVE = 1, // a live version
  PEND_HOT = 2, // a heap-only version replaced or deleted by the open transaction
  PEND_ROOT = 3, // a version with an index entry (a chain's root) replaced or deleted by the open transaction
  DEAD_HOT = 4, // the same, committed: pruning makes the line pointer unused
  DEAD_ROOT = 5, // pruning keeps the line pointer as LP_REDIRECT or LP_DEAD
  ROOT = 6, // LP_REDIRECT or LP_DEAD (no storage)
  KEEP = 7, // (VACUUM's pass) a redirect to a live version
}
// read state, a 32-bit word a row when the workload reads: the HOT chain's length (8 bits, saturating),
// the page's prune count when the chain was last counted (8 bits), and the index entries of the row's
// dead versions that no VACUUM removed and no index scan killed yet (8 bits, saturating)
export const enum ReadState {
  CHAIN_MASK = 0xff,
  STAMP_SHIFT = 8,
  DEAD_SHIFT = 16,
  SATURATED = 0xff,
}

/** The state and the page-level steps every operation is made of. */
export abstract class PostgresPages {
  protected readonly geometry: PageGeometry;
  protected readonly options: PostgresHeapOptions;
  protected readonly saveFreeSpace: number;
  protected readonly pruneMinFree: number;
  protected readonly nearlyEmptyFreeSpace: number;
  protected readonly catStep: number;
  protected readonly fsmLeaf: number;

  /** Per row, interleaved so an update reads one cache line: [page of the current version (−1: not live), stored bytes | flags << 16]. */
  protected rows: Int32Array;
  protected rowHigh = 0;
  protected liveCount = 0;

  /** Every field fits 16 bits: bytes of a page of at most 32 kB, counts of at most MaxHeapTuplesPerPage. */
  protected pageFields = new Uint16Array(1024 * Page.STRIDE);
  protected pageCount = 0;
  protected targetBlock = -1;
  protected fsm = new FreeTree();
  protected fsmNext = new Int32Array(16);
  /** Upper FSM levels are only filled in by VACUUM (FreeSpaceMapVacuum): before it, searches stay on one FSM leaf page. */
  protected fsmVacuumed = false;
  /** The highest heap page the FSM fork covers and the highest the visibility map covers (−1: no fork) [freespace.c][visibilitymap.c]. */
  protected fsmHigh = -1;
  protected vmHigh = -1;
  protected touched = new Int32Array(64);
  protected touchedCount = 0;
  /**
   * Line pointer arrays, for the pages where a version died: page p's states are lpPool[lpAt[p] …
   * lpAt[p] + lpCap[p]) (lpAt −1: none yet, its line pointers are its live versions in order). Where the
   * line pointers are matters: PageAddItem reuses the first unused one, and pruning
   * (PageRepairFragmentation) and VACUUM (PageTruncateLinePointerArray) cut unused ones off the end.
   */
  protected lpPool = new Uint8Array(0);
  protected lpTop = 0;
  protected lpAt = new Int32Array(1024).fill(-1);
  protected lpCap = new Uint16Array(1024);
  /** Per row whose current version is heap-only, the line pointer of its chain's root (null until the first HOT update). */
  protected rootOff: Uint16Array | null = null;

  /** Where the engine tells what it does (rowsim trace); null: nowhere. */
  protected sink: HeapEventSink | null = null;
  /** Per row, what reads need (see CHAIN_MASK …); null when the workload has no read phase. */
  protected readState: Int32Array | null;
  /** The read phase's counters while a read runs (pruning on access is counted there). */
  protected reading: PageReads | null = null;

  /** True when the last update added an entry to every index (not HOT). */
  lastUpdateNewIndexEntries = false;

  protected readonly counters = {
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
    this.rows = new Int32Array(n * Row.STRIDE);
    for (let i = 0; i < this.rows.length; i += Row.STRIDE) this.rows[i] = -1;
    this.readState = options.readState ? new Int32Array(n) : null;
  }

  // ---- row fields --------------------------------------------------------------------------

  protected page(r: number): number {
    return this.rows[r * Row.STRIDE]!;
  }
  protected len(r: number): number {
    return this.rows[r * Row.STRIDE + 1]! & Row.LEN_MASK;
  }
  protected heapOnly(r: number): boolean {
    return (this.rows[r * Row.STRIDE + 1]! & Row.HEAP_ONLY) !== 0;
  }

  // ---- page helpers --------------------------------------------------------------------------

  /** PageGetHeapFreeSpace(): pd_upper − pd_lower − one line pointer; 0 at MaxHeapTuplesPerPage with no unused LP. */
  protected heapFree(p: number): number {
    const i = p * Page.STRIDE;
    const nline = this.pageFields[i + Page.NLINE]!;
    if (nline >= this.geometry.maxRowsPerPage && this.pageFields[i + Page.UNUSED] === 0) return 0;
    const free = this.geometry.usableBytes - this.pageFields[i + Page.STORE]! - nline * this.geometry.slotBytes - this.geometry.slotBytes;
    return free > 0 ? free : 0;
  }

  protected newPage(): number {
    const p = this.pageCount++;
    if ((p + 1) * Page.STRIDE > this.pageFields.length) this.pageFields = grown(this.pageFields, (p + 1) * Page.STRIDE);
    this.pageFields.fill(0, p * Page.STRIDE, (p + 1) * Page.STRIDE);
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
  protected lps(p: number, need: number): number {
    let at = this.lpAt[p]!;
    const cap = this.lpCap[p]!;
    if (at >= 0 && need <= cap) return at;
    const nline = this.pageFields[p * Page.STRIDE + Page.NLINE]!;
    need = Math.max(need, nline);
    let size = Math.max(8, cap);
    while (size < need) size *= 2;
    size = Math.min(size, Math.max(need, this.geometry.maxRowsPerPage));
    if (this.lpTop + size > this.lpPool.length) this.lpPool = grown(this.lpPool, this.lpTop + size);
    const to = this.lpTop;
    this.lpTop += size;
    if (at >= 0) this.lpPool.copyWithin(to, at, at + nline);
    else this.lpPool.fill(Lp.LIVE, to, to + nline);
    this.lpPool.fill(Lp.UNUSED, to + nline, to + size);
    this.lpAt[p] = at = to;
    this.lpCap[p] = size;
    return at;
  }

  /** PageAddItem: the first unused line pointer if there is one, else a new one at the end; returns its place (offset number − 1). */
  protected addTuple(p: number, bytes: number): number {
    const i = p * Page.STRIDE;
    const pg = this.pageFields;
    const nline = pg[i + Page.NLINE]!;
    let off = nline;
    if (pg[i + Page.UNUSED]! > 0) {
      const at = this.lpAt[p]!;
      const pool = this.lpPool;
      off = 0;
      while (pool[at + off] !== Lp.UNUSED) off++;
      pool[at + off] = Lp.LIVE;
      pg[i + Page.UNUSED]!--;
    } else {
      if (this.lpAt[p]! >= 0) {
        const at = this.lps(p, nline + 1);
        this.lpPool[at + nline] = Lp.LIVE;
      }
      pg[i + Page.NLINE] = nline + 1;
    }
    pg[i + Page.STORE]! += bytes;
    pg[i + Page.LIVE]!++;
    return off;
  }

  protected offOf(r: number): number {
    return (this.rows[r * Row.STRIDE + 1]! >>> Row.OFF_SHIFT) & Row.OFF_MASK;
  }

  protected rootOffs(): Uint16Array {
    if (this.rootOff === null || this.rootOff.length * Row.STRIDE < this.rows.length)
      this.rootOff = grown(this.rootOff ?? new Uint16Array(0), this.rows.length / Row.STRIDE);
    return this.rootOff;
  }

  protected fsmAvailCat(avail: number): number {
    if (avail >= this.geometry.maxRowBytes) return PG_FSM_CATEGORIES - 1;
    return Math.min(PG_FSM_CATEGORIES - 2, Math.floor(avail / this.catStep));
  }

  protected fsmNeededCat(needed: number): number {
    if (needed > this.geometry.maxRowBytes) return PG_FSM_CATEGORIES - 1;
    return Math.ceil(needed / this.catStep);
  }

  /** fsm_search_avail on one FSM leaf page: first fit from fp_next_slot, wrapping; fp_next_slot moves past it. */
  protected fsmSearchLeaf(group: number, cat: number): number {
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
  protected fsmSearchRoot(cat: number): number {
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
  protected pageForTuple(len: number, skipFsm = false): number {
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

  protected touch(p: number): void {
    const i = p * Page.STRIDE;
    if ((this.pageFields[i + Page.FLAGS]! & PageFlag.TOUCHED) !== 0) return;
    this.pageFields[i + Page.FLAGS]! |= PageFlag.TOUCHED;
    if (this.touchedCount >= this.touched.length) this.touched = grown(this.touched, this.touchedCount + 1);
    this.touched[this.touchedCount++] = p;
  }

  /** The old version of a row becomes dead when its transaction commits. */
  protected retire(p: number, bytes: number, heapOnly: boolean, off: number): void {
    const at = this.lps(p, 0);
    this.lpPool[at + off] = heapOnly ? Lp.PEND_HOT : Lp.PEND_ROOT;
    const i = p * Page.STRIDE;
    this.pageFields[i + Page.PEND_BYTES]! += bytes;
    this.pageFields[i + Page.PEND_COUNT]!++;
    if (heapOnly) this.pageFields[i + Page.PEND_FREE_LP]!++;
    this.pageFields[i + Page.LIVE]!--;
    this.touch(p);
  }

  /** heap_page_prune_opt: prune when the page has dead versions and is full or short of free space. */
  protected pruneOpt(p: number): void {
    const i = p * Page.STRIDE;
    if (this.pageFields[i + Page.DEAD_COUNT] === 0) return;
    if ((this.pageFields[i + Page.FLAGS]! & PageFlag.FULL) === 0 && this.heapFree(p) >= this.pruneMinFree) return;
    this.prune(p);
  }

  /** heap_page_prune + PageRepairFragmentation: dead storage freed; heap-only LPs unused; roots keep theirs. */
  protected prune(p: number, by: 'access' | 'vacuum' = 'access'): void {
    const i = p * Page.STRIDE;
    const dead = this.pageFields[i + Page.DEAD_COUNT]!;
    const freeLp = this.pageFields[i + Page.DEAD_FREE_LP]!;
    if (this.sink !== null) this.sink({ op: 'prune', page: p, versions: dead, freedBytes: this.pageFields[i + Page.DEAD_BYTES]!, by });
    this.pageFields[i + Page.STORE]! -= this.pageFields[i + Page.DEAD_BYTES]!;
    this.pageFields[i + Page.UNUSED]! += freeLp;
    this.pageFields[i + Page.ROOTS]! += dead - freeLp;
    // Dead heap-only versions' line pointers become unused, dead roots LP_REDIRECT or LP_DEAD; then
    // PageRepairFragmentation cuts the unused ones at the end off the array [bufpage.c].
    const at = this.lps(p, 0);
    const pool = this.lpPool;
    let nline = this.pageFields[i + Page.NLINE]!;
    for (let k = at; k < at + nline; k++) {
      const st = pool[k]!;
      if (st === Lp.DEAD_HOT) pool[k] = Lp.UNUSED;
      else if (st === Lp.DEAD_ROOT) pool[k] = Lp.ROOT;
    }
    while (nline > 0 && pool[at + nline - 1] === Lp.UNUSED) nline--;
    this.pageFields[i + Page.UNUSED]! -= this.pageFields[i + Page.NLINE]! - nline;
    this.pageFields[i + Page.NLINE] = nline;
    this.pageFields[i + Page.DEAD_BYTES] = 0;
    this.pageFields[i + Page.DEAD_COUNT] = 0;
    this.pageFields[i + Page.DEAD_FREE_LP] = 0;
    this.pageFields[i + Page.FLAGS]! &= ~PageFlag.FULL;
    this.pageFields[i + Page.PRUNES] = (this.pageFields[i + Page.PRUNES]! + 1) & 0xffff;
    if (this.reading !== null && by === 'access') this.reading.pagesPruned++;
    this.counters.prunes++;
    this.counters.pruned_tuples += dead;
  }

  protected ensureRow(row: number): void {
    if ((row + 1) * Row.STRIDE <= this.rows.length) return;
    const old = this.rows.length;
    this.rows = grown(this.rows, (row + 1) * Row.STRIDE);
    for (let i = old; i < this.rows.length; i += Row.STRIDE) this.rows[i] = -1;
    if (this.readState !== null) this.readState = grown(this.readState, row + 1);
  }
}
