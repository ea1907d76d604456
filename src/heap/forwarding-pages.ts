/**
 * The forwarding heap's page store: the rows' and pages' state in typed arrays and the changes every
 * operation is made of (a page allocated, a body placed or removed, a page compacted or given back, a
 * row chained over extra blocks). The layers above it: the free-space search (forwarding-free-space.ts),
 * inserts and updates (forwarding-writes.ts), deletes and reorg (forwarding-reorg.ts), reads and
 * observation (forwarding-heap.ts). See README.md beside this file for what is modelled and why.
 *
 * State is in typed arrays, interleaved per row (home page, current page, bytes and reservation) and per
 * page (bytes used by row bodies and stubs, high-water mark of the row area, offset-table entries, bytes
 * reserved for growth), so an operation touches one cache line of each. Every operation is O(1) except
 * reorg.
 */
import { grown } from '../util/arrays.js';
import type { PageGeometry } from './engine.js';
import { FreeTree, pfsRoomTable } from './free-tree.js';
import type { HeapEventSink } from './events.js';

export interface ForwardingHeapOptions {
  geometry: PageGeometry;
  /** Forward rows that no longer fit (DOL); false: move them and update the indexes (APL). */
  forwarding: boolean;
  /** Bytes of the stub a forwarded row leaves at home. */
  stubBytes: number;
  /** Bytes reserved per row for growth on insert: 0 packs fully. */
  expRowSizeBytes: number;
  /** Compare exp_row_size with the physical (with overhead) or logical (data only) row length. */
  expRowSizeBasis: 'physical' | 'logical';
  /** Compact a page when an update fits in total but not in contiguous free space; off: forward. */
  compaction: boolean;
  /** Indexes on the table: each row move updates one entry in each (APL). */
  indexCount: number;
  /** Expected rows, to size the arrays once. */
  rowCapacity: number;
  // Options for the other engines' heaps (sqlserver-heap, oracle-heap); the defaults are ASE's.
  /** Extra bytes a forwarded record carries away from home (SQL Server's back-pointer). Default 0. */
  backPointerBytes?: number;
  /** A forwarded row that shrinks moves back home when it fits there (SQL Server). Default false. */
  moveBackHome?: boolean;
  /** Free bytes an insert must leave on its page (Oracle PCTFREE). Default 0. */
  insertReserveBytes?: number;
  /**
   * How inserts and moving rows find a page: `last-page` (ASE: the last page, else a new one), `exact`
   * (first page with room, by exact free space: Oracle ASSM), `pfs` (first page whose PFS band
   * guarantees room: SQL Server). Default last-page.
   */
  freeSpaceSearch?: 'last-page' | 'exact' | 'pfs';
  /** PFS bands: upper bound of each band in percent full (for freeSpaceSearch pfs). */
  pfsBandUpperPct?: readonly number[];
  /** PFS: the bytes a band's free percentage is taken of (SQL Server: 8,060, the longest record); default the usable page. */
  pfsBaseBytes?: number;
  /** Rows longer than a page are chained over extra pages (Oracle) instead of rejected. Default false. */
  chaining?: boolean;
  /** Row-piece overhead of each chained piece (Oracle: header + next rowid). */
  chainPieceOverheadBytes?: number;
  /** A table scan reads a forwarded row's page again (ASE, SQL Server). Oracle full scans do not. Default true. */
  scanFollowsForwarding?: boolean;
  /** `reorg forwarded_rows` rebuilds the table (SQL Server has no per-row reorg). Default false. */
  reorgForwardedRowsRebuilds?: boolean;
  /**
   * A page left without rows or stubs is deallocated (ASE: at once on an allpages-locked table, by the
   * housekeeper's garbage collection on a data-only-locked one), except the first page and the last,
   * where inserts go. Default false: it stays allocated until `reorg compact`.
   */
  deallocateEmptyPages?: boolean;
}

/** A row's three 32-bit fields, interleaved (const enums: the compiler writes the numbers in place). */
export const enum Row {
  STRIDE = 3,
  HOME = 0,
  CUR = 1,
  SIZE = 2,
}
/** A page's four 16-bit fields, interleaved. */
export const enum Page {
  STRIDE = 4,
  USED = 0,
  TOP = 1,
  SLOTS = 2,
  RESERVED = 3,
}
export const enum PageState {
  FREE = 0,
  ALLOCATED = 1,
}
/** Bytes of row state a forwarding heap keeps per row (its three 32-bit fields); a chaining heap (Oracle) adds a bit (ChainPieces). */
export const FORWARDING_HEAP_ROW_BYTES = Row.STRIDE * 4;
export const CHAIN_ROW_BYTES = 1 / 8;

/**
 * The extra pages of chained rows (Oracle: rows longer than a block). Few rows chain: a bit per row says
 * which, and a map holds their piece counts.
 */
export class ChainPieces {
  private bits: Uint8Array;
  private readonly counts = new Map<number, number>();
  constructor(rows: number) {
    this.bits = new Uint8Array((rows + 7) >> 3);
  }
  get(row: number): number {
    const b = row >> 3;
    return b < this.bits.length && (this.bits[b]! & (1 << (row & 7))) !== 0 ? this.counts.get(row)! : 0;
  }
  set(row: number, pieces: number): void {
    this.ensure(row);
    if (pieces > 0) {
      this.bits[row >> 3]! |= 1 << (row & 7);
      this.counts.set(row, pieces);
    } else {
      this.bits[row >> 3]! &= ~(1 << (row & 7));
      this.counts.delete(row);
    }
  }
  ensure(row: number): void {
    this.bits = grown(this.bits, (row >> 3) + 1);
  }
  get byteLength(): number {
    return this.bits.byteLength + this.counts.size * 16;
  }
}
/** The largest page whose fields fit in 16 bits (every format's pages are at most 32 kB). */
const MAX_PAGE_BYTES = 0xffff;

/**
 * The page arrays are made once with room for a page per ROWS_PER_PAGE_ROOM rows of the expected rows,
 * and grow past it only for tables of fewer rows a page. The room costs address space, not memory: the
 * operating system maps an array's pages as they are first written, so a table uses what its pages
 * fill, and no copy is left behind for the garbage collector by growing (a copy the size of the arrays,
 * which stayed resident until a full collection and made the run's peak).
 */
export const ROWS_PER_PAGE_ROOM = 4;

/**
 * The state and the page changes; the free-space search's upkeep (touch, flushLast) is the layer above's.
 */
export abstract class ForwardingPages {
  protected readonly geometry: PageGeometry;
  protected readonly options: ForwardingHeapOptions;
  /** Back-pointer bytes of a forwarded record; insert reserve (PCTFREE) bytes. */
  protected readonly backPointerBytes: number;
  protected readonly insertReserve: number;
  // The options and page figures the hot paths read, as fields of their own.
  protected readonly usable: number;
  protected readonly slotBytes: number;
  protected readonly maxRows: number;
  protected readonly maxRowBytes: number;
  protected readonly stubBytes: number;
  protected readonly expRowSize: number;
  protected readonly physicalBasis: boolean;
  protected readonly compaction: boolean;
  protected readonly forwarding: boolean;
  protected readonly moveBackHome: boolean;
  protected readonly deallocateEmpty: boolean;
  /**
   * PFS: the room a page's band guarantees, by the page's used bytes (its rows and slots, 0 … usable): a
   * page is in the first band whose upper bound (0, 50, 80, 95, 100 % full by default) its used share does
   * not exceed. A table, so that the search's hot path reads one value instead of counting bands.
   */
  protected readonly pfsRoomByUsed: Uint16Array | null;
  /** Free-space search over pages (null: last page only, the ASE hot path). */
  protected readonly tree: FreeTree | null;
  /** Oracle chaining: extra pages per row (null when off) and their total. */
  protected readonly chain: ChainPieces | null;
  protected chainPages = 0;
  protected chainedRows = 0;

  // rows, interleaved so one update touches one cache line: [home, cur, len | rsv << 16]; home −1 = not live
  protected rows: Int32Array;
  protected rowHigh = 0;
  protected liveCount = 0;
  protected forwardedCount = 0;

  // pages, interleaved: [used, top, slots, reserved] (bytes of bodies and stubs, high-water mark of the row
  // area, offset-table entries, bytes reserved for growth); state: allocated or free. 16 bits each: no
  // field passes the page size, and no format's page is larger than 32 kB (8 bytes a page, not 16: at
  // 1e8 rows of ase-dol 6.8 million pages, 55 MB less).
  protected pageFields: Uint16Array;
  protected state: Uint8Array;
  protected pageCount = 0;
  protected allocatedPages = 0;
  protected lastPage = -1;
  /** The free-space search's entry for the last page is behind the page (see touch). */
  protected lastStale = false;
  /** A page other than the last whose entry in the free-space search is behind the page (see touch); −1: none. */
  protected stalePage = -1;
  /** Where the engine tells what it does (rowsim trace); null: nowhere. */
  protected sink: HeapEventSink | null = null;

  // counters (cumulative)
  protected readonly counters = {
    inserts: 0,
    updates: 0,
    updates_in_place: 0,
    forwarded_updates: 0,
    reforwarded_updates: 0,
    row_moves: 0,
    index_row_updates: 0,
    compactions: 0,
    deletes: 0,
    rows_rejected: 0,
    updates_rejected: 0,
    exclusive_table_locks: 0,
    reorg_transactions: 0,
    rows_moved_home: 0,
    rows_rehomed: 0,
    moved_home_on_update: 0,
    rows_chained: 0,
    pages_deallocated: 0,
    pages_allocated: 0,
  };

  constructor(options: ForwardingHeapOptions) {
    this.options = options;
    this.geometry = options.geometry;
    this.usable = options.geometry.usableBytes;
    this.slotBytes = options.geometry.slotBytes;
    this.maxRows = options.geometry.maxRowsPerPage;
    this.maxRowBytes = options.geometry.maxRowBytes;
    this.stubBytes = options.stubBytes;
    this.expRowSize = options.expRowSizeBytes;
    this.physicalBasis = options.expRowSizeBasis === 'physical';
    this.compaction = options.compaction;
    this.forwarding = options.forwarding;
    this.moveBackHome = options.moveBackHome ?? false;
    this.deallocateEmpty = options.deallocateEmptyPages ?? false;
    const n = Math.max(16, options.rowCapacity);
    this.rows = new Int32Array(n * Row.STRIDE).fill(-1);
    const pageRoom = Math.max(1024, Math.ceil(n / ROWS_PER_PAGE_ROOM));
    if (options.geometry.pageBytes > MAX_PAGE_BYTES)
      throw new Error(`ForwardingHeap: a page of ${options.geometry.pageBytes} bytes does not fit its 16-bit fields`);
    this.pageFields = new Uint16Array(pageRoom * Page.STRIDE);
    this.state = new Uint8Array(pageRoom);
    this.backPointerBytes = options.backPointerBytes ?? 0;
    this.insertReserve = options.insertReserveBytes ?? 0;
    const search = options.freeSpaceSearch ?? 'last-page';
    this.tree = search === 'last-page' ? null : new FreeTree();
    this.pfsRoomByUsed =
      search === 'pfs'
        ? pfsRoomTable(options.pfsBandUpperPct ?? [0, 50, 80, 95, 100], options.pfsBaseBytes ?? this.usable, this.usable)
        : null;
    this.chain = options.chaining ? new ChainPieces(n) : null;
  }

  /** Page p may have gained room: its entry in the free-space search is raised, now or later (forwarding-free-space.ts). */
  protected abstract touch(p: number): void;
  /** Raise the entries whose raise was put off (forwarding-free-space.ts). */
  protected abstract flushLast(): void;

  // ---- row fields -----------------------------------------------------------------------------

  protected home(r: number): number {
    return this.rows[r * Row.STRIDE + Row.HOME]!;
  }
  protected cur(r: number): number {
    return this.rows[r * Row.STRIDE + Row.CUR]!;
  }
  protected len(r: number): number {
    return this.rows[r * Row.STRIDE + Row.SIZE]! & 0xffff;
  }
  protected rsv(r: number): number {
    return this.rows[r * Row.STRIDE + Row.SIZE]! >>> 16;
  }
  protected setRow(r: number, home: number, cur: number, len: number, rsv: number): void {
    const i = r * Row.STRIDE;
    this.rows[i + Row.HOME] = home;
    this.rows[i + Row.CUR] = cur;
    this.rows[i + Row.SIZE] = len | (rsv << 16);
  }

  // ---- helpers -------------------------------------------------------------------------------

  protected reserveFor(phys: number, logical: number): number {
    const exp = this.expRowSize;
    if (exp <= 0) return 0;
    const length = this.physicalBasis ? phys : logical;
    return exp > length ? exp - length : 0;
  }

  protected newPage(): number {
    const p = this.pageCount++;
    // Each array checked on its own: they grow on schedules of their own lengths (src/util/arrays.ts).
    if ((p + 1) * Page.STRIDE > this.pageFields.length) this.pageFields = grown(this.pageFields, (p + 1) * Page.STRIDE);
    if (p >= this.state.length) this.state = grown(this.state, p + 1);
    this.state[p] = PageState.ALLOCATED;
    this.allocatedPages++;
    this.counters.pages_allocated++;
    if (this.tree !== null) this.flushLast();
    this.lastPage = p;
    if (this.tree !== null) this.touch(p);
    return p;
  }

  /** Put a row body of `phys` bytes with its slot on page p, compacting when contiguous space lacks. */
  protected placeBody(p: number, phys: number, rsv: number): void {
    const i = p * Page.STRIDE;
    const contiguous = this.usable - this.pageFields[i + Page.TOP]! - (this.pageFields[i + Page.SLOTS]! + 1) * this.slotBytes;
    if (phys > contiguous) this.compact(p);
    this.pageFields[i + Page.USED]! += phys;
    this.pageFields[i + Page.TOP]! += phys;
    this.pageFields[i + Page.SLOTS]!++;
    this.pageFields[i + Page.RESERVED]! += rsv;
    // The page only loses room: nothing for the free-space search (see touch).
  }

  protected removeBody(p: number, phys: number, rsv: number): void {
    const i = p * Page.STRIDE;
    this.pageFields[i + Page.USED]! -= phys;
    this.pageFields[i + Page.SLOTS]!--;
    this.pageFields[i + Page.RESERVED]! -= rsv;
    if (this.tree !== null) this.touch(p);
    if (this.deallocateEmpty && this.pageFields[i + Page.SLOTS] === 0) this.freeIfEmpty(p);
  }

  /** A page without rows or stubs is deallocated, unless it is the first or the last page [PT-DEL][HK-GC]. */
  protected freeIfEmpty(p: number): void {
    const i = p * Page.STRIDE;
    if (this.pageFields[i + Page.SLOTS] !== 0 || p === this.lastPage || p === 0 || this.state[p] !== PageState.ALLOCATED) return;
    this.pageFields[i + Page.TOP] = 0;
    this.state[p] = PageState.FREE;
    this.allocatedPages--;
    this.counters.pages_deallocated++;
    if (this.tree !== null) this.touch(p);
  }

  protected compact(p: number): void {
    const i = p * Page.STRIDE;
    if (this.pageFields[i + Page.TOP] !== this.pageFields[i + Page.USED]) {
      if (this.sink !== null)
        this.sink({ op: 'compact', page: p, freedBytes: this.pageFields[i + Page.TOP]! - this.pageFields[i + Page.USED]! });
      this.pageFields[i + Page.TOP] = this.pageFields[i + Page.USED]!;
      this.counters.compactions++;
    }
  }

  protected ensureRow(row: number): void {
    const need = (row + 1) * Row.STRIDE;
    if (need <= this.rows.length) return;
    const old = this.rows.length;
    this.rows = grown(this.rows, need);
    this.rows.fill(-1, old);
    this.chain?.ensure(row);
  }

  /**
   * Oracle chaining: a row longer than a page keeps a head piece on its page and continues on
   * dedicated pages; returns the head piece's bytes and records the row's extra pages.
   */
  protected chainRow(row: number, phys: number): number {
    const chain = this.chain!;
    const before = chain.get(row);
    let extra = 0;
    let head = phys;
    if (phys > this.maxRowBytes) {
      const over = this.options.chainPieceOverheadBytes ?? 0;
      const piece = this.usable - this.slotBytes - over;
      extra = Math.ceil((phys - this.maxRowBytes) / piece);
      head = phys - extra * piece + over;
    }
    chain.set(row, extra);
    this.chainPages += extra - before;
    this.chainedRows += (extra > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
    if (extra > before) {
      this.counters.pages_allocated += extra - before;
      if (before === 0) this.counters.rows_chained++;
    }
    return head;
  }

  isLive(row: number): boolean {
    return row < this.rowHigh && this.rows[row * Row.STRIDE + Row.HOME]! >= 0;
  }
}
