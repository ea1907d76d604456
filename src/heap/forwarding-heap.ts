/**
 * The slotted-page heap with forwarding (ASE data-only-locked) or moving rows (ASE allpages-locked).
 * See README.md beside this file for what is modelled, what is simplified and why.
 *
 * State is in typed arrays, interleaved per row (home page, current page, bytes and reservation) and per
 * page (bytes used by row bodies and stubs, high-water mark of the row area, offset-table entries, bytes
 * reserved for growth), so an operation touches one cache line of each. Every operation is O(1) except
 * reorg.
 */
import type { ForwardingMetrics } from './metrics.js';
import { grown } from '../util/arrays.js';
import type { PageGeometry, PageMapData, ReorgKind, RowSizes, StorageEngine, UpdateInfo } from './engine.js';
import { FreeTree } from './free-tree.js';
import type { HeapEventSink } from './events.js';
import {
  bucketRows,
  frozenInspector,
  inspectedPages,
  PAGE_ASKED,
  scratchInt32,
  slotIn,
  type PageDetail,
  type PageInspector,
  type RowBuckets,
  type SlotDetail,
} from './inspect.js';
import type { PageReads } from './page-reads.js';

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

const ROW_STRIDE = 3;

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
/** Bytes of row state a forwarding heap keeps per row (its three 32-bit fields); a chaining heap (Oracle) adds a bit (ChainPieces). */
export const FORWARDING_HEAP_ROW_BYTES = ROW_STRIDE * 4;
export const CHAIN_ROW_BYTES = 1 / 8;

/**
 * The extra pages of chained rows (Oracle: rows longer than a block). Few rows chain: a bit per row says
 * which, and a map holds their piece counts.
 */
class ChainPieces {
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
const HOME = 0;
const CUR = 1;
const SIZE = 2;
const PAGE_STRIDE = 4;
/** The largest page whose fields fit in 16 bits (every format's pages are at most 32 kB). */
const MAX_PAGE_BYTES = 0xffff;
const USED = 0;
const TOP = 1;
const SLOTS = 2;
const RESERVED = 3;
/** Page names of chained pieces in the buffer cache: below the heap's, MAX_NAMED_PIECES a row. */
const CHAIN_PAGE_BASE = -1;
const MAX_NAMED_PIECES = 8;
const PAGE_FREE = 0;
const PAGE_ALLOCATED = 1;
/** Pages per reorg transaction [R2][R3]. */
const REORG_PAGES_PER_TRANSACTION = 8;
/**
 * PFS (SQL Server's Page Free Space): the room a page's band guarantees a new record, by the page's used
 * bytes (0 … usable): the page is in the first band whose upper bound (`uppers`, % full) its used share
 * does not exceed, and the band guarantees the rest of `baseBytes` above that bound [DBA-15026].
 */
export function pfsRoomTable(uppers: readonly number[], baseBytes: number, usable: number): Uint16Array {
  const guaranteed = uppers.map((upper) => Math.floor((baseBytes * (100 - upper)) / 100));
  if (guaranteed.some((g) => g < 0 || g > 0xffff)) throw new Error(`ForwardingHeap: PFS bands of ${baseBytes} bytes do not fit 16 bits`);
  const table = new Uint16Array(usable + 1);
  for (let used = 0; used <= usable; used++) {
    let band = 0;
    while (band < uppers.length - 1 && 100 * used > uppers[band]! * usable) band++;
    table[used] = guaranteed[band]!;
  }
  return table;
}

/**
 * The page arrays are made once with room for a page per ROWS_PER_PAGE_ROOM rows of the expected rows,
 * and grow past it only for tables of fewer rows a page. The room costs address space, not memory: the
 * operating system maps an array's pages as they are first written, so a table uses what its pages
 * fill, and no copy is left behind for the garbage collector by growing (a copy the size of the arrays,
 * which stayed resident until a full collection and made the run's peak).
 */
export const ROWS_PER_PAGE_ROOM = 4;

export class ForwardingHeap implements StorageEngine {
  private readonly geometry: PageGeometry;
  private readonly options: ForwardingHeapOptions;
  /** Back-pointer bytes of a forwarded record; insert reserve (PCTFREE) bytes. */
  private readonly backPointerBytes: number;
  private readonly insertReserve: number;
  // The options and page figures the hot paths read, as fields of their own.
  private readonly usable: number;
  private readonly slotBytes: number;
  private readonly maxRows: number;
  private readonly maxRowBytes: number;
  private readonly stubBytes: number;
  private readonly expRowSize: number;
  private readonly physicalBasis: boolean;
  private readonly compaction: boolean;
  private readonly forwarding: boolean;
  private readonly moveBackHome: boolean;
  private readonly deallocateEmpty: boolean;
  /**
   * PFS: the room a page's band guarantees, by the page's used bytes (its rows and slots, 0 … usable): a
   * page is in the first band whose upper bound (0, 50, 80, 95, 100 % full by default) its used share does
   * not exceed. A table, so that the search's hot path reads one value instead of counting bands.
   */
  private readonly pfsRoomByUsed: Uint16Array | null;
  /** Free-space search over pages (null: last page only, the ASE hot path). */
  private readonly tree: FreeTree | null;
  /** Oracle chaining: extra pages per row (null when off) and their total. */
  private readonly chain: ChainPieces | null;
  private chainPages = 0;
  private chainedRows = 0;

  // rows, interleaved so one update touches one cache line: [home, cur, len | rsv << 16]; home −1 = not live
  private rows: Int32Array;
  private rowHigh = 0;
  private liveCount = 0;
  private forwardedCount = 0;

  // pages, interleaved: [used, top, slots, reserved] (bytes of bodies and stubs, high-water mark of the row
  // area, offset-table entries, bytes reserved for growth); state: allocated or free. 16 bits each: no
  // field passes the page size, and no format's page is larger than 32 kB (8 bytes a page, not 16: at
  // 1e8 rows of ase-dol 6.8 million pages, 55 MB less).
  private pageFields: Uint16Array;
  private state: Uint8Array;
  private pageCount = 0;
  private allocatedPages = 0;
  private lastPage = -1;
  /** The free-space search's entry for the last page is behind the page (see touch). */
  private lastStale = false;
  /** A page other than the last whose entry in the free-space search is behind the page (see touch); −1: none. */
  private stalePage = -1;
  /** Where the engine tells what it does (rowsim trace); null: nowhere. */
  private sink: HeapEventSink | null = null;

  // counters (cumulative)
  private counters = {
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
    this.rows = new Int32Array(n * ROW_STRIDE).fill(-1);
    const pageRoom = Math.max(1024, Math.ceil(n / ROWS_PER_PAGE_ROOM));
    if (options.geometry.pageBytes > MAX_PAGE_BYTES)
      throw new Error(`ForwardingHeap: a page of ${options.geometry.pageBytes} bytes does not fit its 16-bit fields`);
    this.pageFields = new Uint16Array(pageRoom * PAGE_STRIDE);
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

  /** Bytes a new row (with its reservation) may take on page p: −1 when the page takes no rows. */
  private insertRoom(p: number): number {
    const i = p * PAGE_STRIDE;
    const slotsNow = this.pageFields[i + SLOTS]!;
    if (this.state[p] !== PAGE_ALLOCATED || slotsNow >= this.maxRows) return -1;
    const usedNow = this.pageFields[i + USED]! + slotsNow * this.slotBytes;
    let room = this.usable - usedNow - this.pageFields[i + RESERVED]! - this.slotBytes - this.insertReserve;
    const byUsed = this.pfsRoomByUsed;
    if (byUsed !== null) {
      // A page is chosen only when its PFS band guarantees room (pfsRoomByUsed): the band's free share is for the record itself, the slot comes on top [DBA-15026].
      const guaranteed = byUsed[usedNow < byUsed.length ? usedNow : byUsed.length - 1]!;
      if (guaranteed < room) room = guaranteed;
    }
    return room;
  }

  /**
   * Keep the free-space search up to date after page p may have gained room. Its entries may say a page
   * has more room than it has, never less: an entry is raised when its page gains room, and lowered only
   * when a search lands on the page and finds it short (targetPage), so a change that only takes room (a
   * row placed on the page, a row grown in place that keeps or grows its reservation) does not call this
   * at all. The first page a search returns that has the room is then
   * the first page with the room, as with every entry exact. The raises are put off too: the last page
   * changes with every insert and is tried before any search, and its entry is looked at only when a
   * search is about to run or another page becomes the last (flushLast); one other page, the one changed
   * last (stalePage), is looked at when another page changes or a search is about to run (updates in row
   * order change one page many times running).
   */
  private touch(p: number): void {
    if (p === this.lastPage) {
      this.lastStale = true;
      return;
    }
    if (p === this.stalePage) return;
    const q = this.stalePage;
    this.stalePage = p;
    if (q >= 0) this.raise(q);
  }

  /** Raise page p's entry in the free-space search to the room the page has, if that is more. */
  private raise(p: number): void {
    const room = this.insertRoom(p);
    if (room > this.tree!.get(p)) this.tree!.set(p, room);
  }

  /** Raise the free-space search's entries of the last page and of the page changed last to their pages' room. */
  private flushLast(): void {
    const q = this.stalePage;
    if (q >= 0) {
      this.stalePage = -1;
      this.raise(q);
    }
    if (!this.lastStale) return;
    this.lastStale = false;
    if (this.lastPage >= 0) this.raise(this.lastPage);
  }

  // ---- row fields -----------------------------------------------------------------------------

  private home(r: number): number {
    return this.rows[r * ROW_STRIDE + HOME]!;
  }
  private cur(r: number): number {
    return this.rows[r * ROW_STRIDE + CUR]!;
  }
  private len(r: number): number {
    return this.rows[r * ROW_STRIDE + SIZE]! & 0xffff;
  }
  private rsv(r: number): number {
    return this.rows[r * ROW_STRIDE + SIZE]! >>> 16;
  }
  private setRow(r: number, home: number, cur: number, len: number, rsv: number): void {
    const i = r * ROW_STRIDE;
    this.rows[i + HOME] = home;
    this.rows[i + CUR] = cur;
    this.rows[i + SIZE] = len | (rsv << 16);
  }

  // ---- helpers -------------------------------------------------------------------------------

  private reserveFor(phys: number, logical: number): number {
    const exp = this.expRowSize;
    if (exp <= 0) return 0;
    const length = this.physicalBasis ? phys : logical;
    return exp > length ? exp - length : 0;
  }

  private newPage(): number {
    const p = this.pageCount++;
    // Each array checked on its own: they grow on schedules of their own lengths (src/util/arrays.ts).
    if ((p + 1) * PAGE_STRIDE > this.pageFields.length) this.pageFields = grown(this.pageFields, (p + 1) * PAGE_STRIDE);
    if (p >= this.state.length) this.state = grown(this.state, p + 1);
    this.state[p] = PAGE_ALLOCATED;
    this.allocatedPages++;
    this.counters.pages_allocated++;
    if (this.tree !== null) this.flushLast();
    this.lastPage = p;
    if (this.tree !== null) this.touch(p);
    return p;
  }

  /** May a new row charged `charge` bytes (row + reservation) go on page p? */
  private fitsInsert(p: number, charge: number): boolean {
    if (p < 0 || this.state[p] !== PAGE_ALLOCATED) return false;
    if (this.tree !== null || this.insertReserve > 0) return this.insertRoom(p) >= charge;
    const i = p * PAGE_STRIDE;
    const slotsNow = this.pageFields[i + SLOTS]!;
    if (slotsNow >= this.maxRows) return false;
    const free = this.usable - this.pageFields[i + USED]! - slotsNow * this.slotBytes - this.pageFields[i + RESERVED]!;
    return free >= charge + this.slotBytes;
  }

  /**
   * The page a new or moving row goes to: the last page if it fits there; with a free-space search,
   * the first page with room; else a new page.
   */
  private targetPage(charge: number, notPage: number): number {
    const q = this.lastPage;
    // A row that can never leave the reserve free (PCTFREE near 100) still gets a page of its own.
    const need = Math.max(0, Math.min(charge, this.usable - this.slotBytes - this.insertReserve));
    if (q !== notPage && this.fitsInsert(q, need)) return q;
    if (this.tree !== null) {
      this.flushLast();
      const tree = this.tree;
      // An entry may promise more than its page has (touch): a page found short is lowered, and the search goes on past it.
      for (let f = tree.findFrom(need, 0); f >= 0;) {
        if (f === notPage) {
          f = tree.findFrom(need, f + 1);
          continue;
        }
        const room = this.insertRoom(f);
        if (room >= need) return f;
        tree.set(f, room);
        f = tree.findFrom(need, f + 1);
      }
    }
    return this.newPage();
  }

  /** Put a row body of `phys` bytes with its slot on page p, compacting when contiguous space lacks. */
  private placeBody(p: number, phys: number, rsv: number): void {
    const i = p * PAGE_STRIDE;
    const contiguous = this.usable - this.pageFields[i + TOP]! - (this.pageFields[i + SLOTS]! + 1) * this.slotBytes;
    if (phys > contiguous) this.compact(p);
    this.pageFields[i + USED]! += phys;
    this.pageFields[i + TOP]! += phys;
    this.pageFields[i + SLOTS]!++;
    this.pageFields[i + RESERVED]! += rsv;
    // The page only loses room: nothing for the free-space search (see touch).
  }

  private removeBody(p: number, phys: number, rsv: number): void {
    const i = p * PAGE_STRIDE;
    this.pageFields[i + USED]! -= phys;
    this.pageFields[i + SLOTS]!--;
    this.pageFields[i + RESERVED]! -= rsv;
    if (this.tree !== null) this.touch(p);
    if (this.deallocateEmpty && this.pageFields[i + SLOTS] === 0) this.freeIfEmpty(p);
  }

  /** A page without rows or stubs is deallocated, unless it is the first or the last page [PT-DEL][HK-GC]. */
  private freeIfEmpty(p: number): void {
    const i = p * PAGE_STRIDE;
    if (this.pageFields[i + SLOTS] !== 0 || p === this.lastPage || p === 0 || this.state[p] !== PAGE_ALLOCATED) return;
    this.pageFields[i + TOP] = 0;
    this.state[p] = PAGE_FREE;
    this.allocatedPages--;
    this.counters.pages_deallocated++;
    if (this.tree !== null) this.touch(p);
  }

  private compact(p: number): void {
    const i = p * PAGE_STRIDE;
    if (this.pageFields[i + TOP] !== this.pageFields[i + USED]) {
      if (this.sink !== null) this.sink({ op: 'compact', page: p, freedBytes: this.pageFields[i + TOP]! - this.pageFields[i + USED]! });
      this.pageFields[i + TOP] = this.pageFields[i + USED]!;
      this.counters.compactions++;
    }
  }

  private ensureRow(row: number): void {
    const need = (row + 1) * ROW_STRIDE;
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
  private chainRow(row: number, phys: number): number {
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

  // ---- operations ----------------------------------------------------------------------------

  insert(row: number, phys: number, logical: number): boolean {
    if (phys > this.maxRowBytes) {
      if (this.chain === null) {
        this.counters.rows_rejected++;
        return false;
      }
      this.ensureRow(row);
      phys = this.chainRow(row, phys);
    }
    this.ensureRow(row);
    const rsv = this.reserveFor(phys, logical);
    const pagesBefore = this.pageCount;
    const p = this.targetPage(phys + rsv, -1);
    this.placeBody(p, phys, rsv);
    this.setRow(row, p, p, phys, rsv);
    if (this.sink !== null) this.sink({ op: 'insert', row, page: p, bytes: phys, reserved: rsv, newPage: this.pageCount > pagesBefore });
    if (row >= this.rowHigh) this.rowHigh = row + 1;
    this.liveCount++;
    this.counters.inserts++;
    return true;
  }

  update(row: number, phys: number, logical: number, info: UpdateInfo): boolean {
    if (this.sink !== null) return this.updateTraced(row, phys, logical, info, this.sink);
    return this.updateRow(row, phys, logical);
  }

  /** An update with its event: the page's free space when it came, and what the engine's own counters say it did. */
  private updateTraced(row: number, phys: number, logical: number, _info: UpdateInfo, sink: HeapEventSink): boolean {
    const g = this.geometry;
    const h = this.home(row);
    const p = this.cur(row);
    const pi = p * PAGE_STRIDE;
    const slotArea = this.pageFields[pi + SLOTS]! * g.slotBytes;
    const totalFree = g.usableBytes - this.pageFields[pi + USED]! - slotArea;
    const contiguousFree = g.usableBytes - this.pageFields[pi + TOP]! - slotArea;
    const fromBytes = this.len(row);
    // The branch growOnPage takes: the new body in the contiguous free space, or a compaction first.
    const newBody = p !== h ? phys + this.backPointerBytes : phys;
    const inOnePiece = newBody <= contiguousFree;
    const c = this.counters;
    const before = [c.forwarded_updates, c.reforwarded_updates, c.moved_home_on_update, c.row_moves];
    const pagesBefore = this.pageCount;
    const ok = this.updateRow(row, phys, logical);
    if (!ok) return false;
    const q = this.cur(row);
    const outcome =
      c.forwarded_updates > before[0]!
        ? 'forwarded'
        : c.reforwarded_updates > before[1]!
          ? 'reforwarded'
          : c.moved_home_on_update > before[2]!
            ? 'moved-home'
            : c.row_moves > before[3]!
              ? 'moved'
              : this.len(row) <= fromBytes
                ? 'shrank'
                : inOnePiece
                  ? 'rewritten'
                  : 'compacted';
    sink({
      op: 'update',
      row,
      page: p,
      home: p !== h ? h : outcome === 'forwarded' ? p : -1,
      fromBytes,
      toBytes: this.len(row),
      totalFree,
      contiguousFree,
      outcome,
      toPage: q,
      newPage: this.pageCount > pagesBefore,
      ...(outcome === 'forwarded' ? { stubBytes: this.stubBytes } : {}),
    });
    return true;
  }

  private updateRow(row: number, phys: number, logical: number): boolean {
    if (this.chain !== null) {
      // The row's bit is read only while some row is chained: a random update would miss the cache on it.
      if (phys > this.maxRowBytes || (this.chainedRows > 0 && this.chain.get(row) > 0)) phys = this.chainRow(row, phys);
    } else if (phys > this.maxRowBytes) {
      this.counters.updates_rejected++;
      return false;
    }
    this.counters.updates++;
    const ri = row * ROW_STRIDE;
    const h = this.rows[ri + HOME]!;
    const p = this.rows[ri + CUR]!;
    const size = this.rows[ri + SIZE]!;
    const old = size & 0xffff;
    const oldRsv = size >>> 16;
    const newRsv = this.reserveFor(phys, logical);
    // A forwarded record carries the back-pointer (SQL Server) wherever it lives away from home.
    const body = p !== h ? phys + this.backPointerBytes : phys;
    const delta = body - old;
    if (delta <= 0) {
      if (p !== h && this.moveBackHome && this.moveHome(row, h, p, old, oldRsv, phys, newRsv)) return true;
      // Shrinks in place; the freed bytes become a hole until the page is compacted.
      this.resizeInPlace(row, p, body, delta, oldRsv, newRsv);
      return true;
    }
    if (this.growOnPage(p, body, delta)) {
      this.resizeInPlace(row, p, body, delta, oldRsv, newRsv);
      return true;
    }
    return this.relocate(row, h, p, old, oldRsv, phys, newRsv);
  }

  /**
   * Make room on page p for a body growing by `delta` to `body` bytes: rewritten into the contiguous free
   * space (the old body becomes a hole), or after compacting the page when only the total free space
   * takes it. False when the page cannot take it (or may not be compacted).
   */
  private growOnPage(p: number, body: number, delta: number): boolean {
    const pg = this.pageFields;
    const pi = p * PAGE_STRIDE;
    const slotArea = pg[pi + SLOTS]! * this.slotBytes;
    const totalFree = this.usable - pg[pi + USED]! - slotArea;
    if (delta > totalFree) return false;
    const contiguous = this.usable - pg[pi + TOP]! - slotArea;
    if (body <= contiguous) {
      pg[pi + TOP]! += body;
      return true;
    }
    if (!this.compaction) return false;
    this.compact(p);
    pg[pi + TOP]! += delta;
    return true;
  }

  /** The row (home h, now on page p) no longer fits where it is: move it (APL), forward it, or forward it again. */
  private relocate(row: number, h: number, p: number, old: number, oldRsv: number, phys: number, newRsv: number): boolean {
    let newHome = h;
    let q: number;
    let placed = phys;
    if (!this.forwarding) {
      // APL: the row moves (new row id); every index entry for it is updated.
      this.removeBody(p, old, oldRsv);
      q = this.targetPage(phys + newRsv, p);
      newHome = q;
      this.counters.row_moves++;
      this.counters.index_row_updates += this.options.indexCount;
    } else if (p === h) {
      // First move: a stub stays at home in the row's slot; the body goes elsewhere.
      const pi = p * PAGE_STRIDE;
      this.pageFields[pi + USED]! += this.stubBytes - old;
      this.pageFields[pi + RESERVED]! -= oldRsv;
      if (this.tree !== null) this.touch(p);
      placed = phys + this.backPointerBytes;
      q = this.targetPage(placed + newRsv, p);
      this.forwardedCount++;
      this.counters.forwarded_updates++;
    } else {
      // Already forwarded: move again and update the home stub; never more than one hop.
      if (this.moveBackHome && this.moveHome(row, h, p, old, oldRsv, phys, newRsv)) return true;
      this.removeBody(p, old, oldRsv);
      placed = phys + this.backPointerBytes;
      q = this.targetPage(placed + newRsv, p);
      if (q === h) {
        // The free-space search chose the home page: the row is home again, the stub becomes the row.
        this.bodyHome(row, h, phys, newRsv);
        this.counters.moved_home_on_update++;
        return true;
      }
      this.counters.reforwarded_updates++;
    }
    this.placeBody(q, placed, newRsv);
    this.setRow(row, newHome, q, placed, newRsv);
    return true;
  }

  /** The row stays on page p with a body of `body` bytes (`delta` more than before) and reservation `newRsv`. */
  private resizeInPlace(row: number, p: number, body: number, delta: number, oldRsv: number, newRsv: number): void {
    const pi = p * PAGE_STRIDE;
    this.pageFields[pi + USED]! += delta;
    this.pageFields[pi + RESERVED]! += newRsv - oldRsv;
    this.rows[row * ROW_STRIDE + SIZE] = body | (newRsv << 16);
    // A row that grows and keeps or grows its reservation only takes room (see touch).
    if (this.tree !== null && (delta < 0 || newRsv < oldRsv)) this.touch(p);
    this.counters.updates_in_place++;
  }

  /**
   * A forwarded row's body comes home in place of its stub (the page is compacted first when its
   * contiguous free space is too short); the row is no longer forwarded.
   */
  private bodyHome(row: number, h: number, phys: number, rsv: number): void {
    const g = this.geometry;
    const pg = this.pageFields;
    const hi = h * PAGE_STRIDE;
    // The stub goes first: its bytes become a hole, which a compaction squeezes out with the others.
    pg[hi + USED]! -= this.stubBytes;
    const contiguous = g.usableBytes - pg[hi + TOP]! - pg[hi + SLOTS]! * g.slotBytes;
    if (phys > contiguous) this.compact(h);
    pg[hi + USED]! += phys;
    pg[hi + TOP]! += phys;
    pg[hi + RESERVED]! += rsv;
    if (this.tree !== null) this.touch(h);
    this.setRow(row, h, h, phys, rsv);
    this.forwardedCount--;
  }

  /**
   * SQL Server: a forwarded row that shrinks (or must move again) goes back to its home page when it
   * fits there in place of its stub [sqlskills, third-party]. Returns false when it does not fit.
   */
  private moveHome(row: number, h: number, p: number, old: number, oldRsv: number, phys: number, newRsv: number): boolean {
    const g = this.geometry;
    const pg = this.pageFields;
    const hi = h * PAGE_STRIDE;
    const freeAtHome = g.usableBytes - pg[hi + USED]! - pg[hi + SLOTS]! * g.slotBytes;
    if (phys + newRsv - this.stubBytes > freeAtHome) return false;
    this.removeBody(p, old, oldRsv);
    this.bodyHome(row, h, phys, newRsv);
    this.counters.updates_in_place++;
    this.counters.moved_home_on_update++;
    return true;
  }

  delete(row: number): void {
    const p = this.cur(row);
    if (this.sink !== null)
      this.sink({ op: 'delete', row, page: p, home: this.home(row) !== p ? this.home(row) : -1, bytes: this.len(row) });
    this.removeBody(p, this.len(row), this.rsv(row));
    const h = this.home(row);
    if (h !== p) {
      const hi = h * PAGE_STRIDE;
      this.pageFields[hi + USED]! -= this.stubBytes;
      this.pageFields[hi + SLOTS]!--;
      if (this.tree !== null) this.touch(h);
      if (this.deallocateEmpty) this.freeIfEmpty(h);
      this.forwardedCount--;
    }
    if (this.chainedRows > 0 && this.chain!.get(row) > 0) this.chainRow(row, 0);
    this.setRow(row, -1, -1, 0, 0);
    this.liveCount--;
    this.counters.deletes++;
  }

  commit(): void {
    // Forwarding heaps change rows in place: nothing becomes visible or dead at commit.
  }

  reorg(kind: ReorgKind): void {
    switch (kind) {
      case 'forwarded_rows':
        if (this.options.reorgForwardedRowsRebuilds) this.rebuild();
        else this.reorgForwardedRows();
        break;
      case 'vacuum':
        // No MVCC versions to vacuum in a forwarding heap.
        break;
      case 'rebuild':
        this.rebuild();
        break;
      case 'compact':
        this.reorgForwardedRows();
        this.reclaimSpace();
        break;
    }
  }

  /**
   * The forwarded rows by home page, then row id: a counting sort of the rows found in id order. A sort
   * comparing rows took most of a reorg of many (n log n calls of a comparator: 0.13–0.25 s for 800,000).
   * bucketRows (inspect.ts) gives the same order, but calls its page callback twice for every row: at
   * 1,000,000 rows the reorg phase took 119–148 ms against 76–107 here with 841,077 rows forwarded, and
   * 25 against 5–9 ms with 31,070 (warm, 3 processes each).
   */
  private forwardedByHome(): Int32Array {
    // The rows found and the pages' counts on scratch arrays (slots 0 and 1, free during a reorg): a list
    // growing to 800,000 rows cost more than the sort, fresh arrays their page faults.
    const found = scratchInt32(0, this.rowHigh);
    let n = 0;
    for (let r = 0; r < this.rowHigh; r++) {
      if (this.isLive(r) && this.cur(r) !== this.home(r)) found[n++] = r;
    }
    const start = scratchInt32(1, this.pageCount + 1).fill(0);
    for (let i = 0; i < n; i++) start[this.home(found[i]!) + 1]!++;
    for (let p = 0; p < this.pageCount; p++) start[p + 1]! += start[p]!;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[start[this.home(found[i]!)]!++] = found[i]!;
    return out;
  }

  /**
   * reorg forwarded_rows [R2][R3][R4]: short transactions of at most 8 pages; each forwarded row goes
   * home if it fits there, else it is deleted and re-inserted with a new home. A transaction that meets
   * a forwarded row takes an exclusive table lock [S-ASE-BET].
   */
  private reorgForwardedRows(): void {
    const forwarded = this.forwardedByHome();
    this.counters.reorg_transactions += Math.ceil(this.allocatedPages / REORG_PAGES_PER_TRANSACTION);
    const g = this.geometry;
    let lastGroup = -1;
    for (const r of forwarded) {
      const h = this.home(r);
      const group = Math.floor(h / REORG_PAGES_PER_TRANSACTION);
      if (group !== lastGroup) {
        this.counters.exclusive_table_locks++;
        lastGroup = group;
      }
      const c = this.cur(r);
      const L0 = this.len(r);
      const L = L0 - this.backPointerBytes;
      const rsv = this.rsv(r);
      const hi = h * PAGE_STRIDE;
      const freeAtHome = g.usableBytes - this.pageFields[hi + USED]! - this.pageFields[hi + SLOTS]! * g.slotBytes;
      this.removeBody(c, L0, rsv);
      // this.pageFields, never a local copy: targetPage() may allocate a page and grow the array.
      if (L - this.stubBytes <= freeAtHome) {
        this.bodyHome(r, h, L, rsv);
        this.counters.rows_moved_home++;
        if (this.sink !== null) this.sink({ op: 'reorg-row', row: r, from: c, home: h, to: h, bytes: L, outcome: 'moved-home' });
      } else {
        this.pageFields[hi + USED]! -= this.stubBytes;
        this.pageFields[hi + SLOTS]!--;
        if (this.tree !== null) this.touch(h);
        if (this.deallocateEmpty) this.freeIfEmpty(h);
        const q = this.targetPage(L + rsv, -1);
        this.placeBody(q, L, rsv);
        this.setRow(r, q, q, L, rsv);
        this.forwardedCount--;
        this.counters.rows_rehomed++;
        if (this.sink !== null) this.sink({ op: 'reorg-row', row: r, from: c, home: h, to: q, bytes: L, outcome: 'rehomed' });
      }
    }
  }

  /** reorg reclaim_space: compact every page and deallocate empty ones (not the last page). */
  private reclaimSpace(): void {
    for (let p = 0; p < this.pageCount; p++) {
      if (this.state[p] !== PAGE_ALLOCATED) continue;
      this.compact(p);
      if (this.pageFields[p * PAGE_STRIDE + SLOTS] === 0 && p !== this.lastPage) {
        this.state[p] = PAGE_FREE;
        this.allocatedPages--;
        this.counters.pages_deallocated++;
        if (this.tree !== null) this.touch(p);
      }
    }
  }

  /** reorg rebuild [R3][R5]: one exclusive table lock; rows repacked honouring exp_row_size. */
  private rebuild(): void {
    const order = this.scanOrder();
    this.counters.pages_deallocated += this.allocatedPages;
    // Only the pages made so far: the arrays' room beyond them is still unwritten, and zero.
    this.pageFields.fill(0, 0, this.pageCount * PAGE_STRIDE);
    this.state.fill(PAGE_FREE, 0, this.pageCount);
    this.tree?.clear();
    this.lastStale = false;
    this.stalePage = -1;
    this.pageCount = 0;
    this.allocatedPages = 0;
    this.lastPage = -1;
    for (let i = 0; i < order.length; i++) {
      const r = order[i]!;
      const from = this.cur(r);
      const home = this.home(r);
      const L = from !== home ? this.len(r) - this.backPointerBytes : this.len(r);
      const rsv = this.rsv(r);
      const p = this.targetPage(L + rsv, -1);
      this.placeBody(p, L, rsv);
      this.setRow(r, p, p, L, rsv);
      if (this.sink !== null) this.sink({ op: 'reorg-row', row: r, from, home, to: p, bytes: L, outcome: 'rewritten' });
    }
    this.forwardedCount = 0;
    this.counters.exclusive_table_locks++;
    this.counters.reorg_transactions++;
    if (this.sink !== null) this.sink({ op: 'rewrite', kind: 'rebuild', pages: this.allocatedPages });
  }

  /** Live rows in table-scan order: by home page, then row id (a stable counting sort). */
  private scanOrder(): Int32Array {
    const counts = new Int32Array(this.pageCount + 1);
    for (let r = 0; r < this.rowHigh; r++) if (this.isLive(r)) counts[this.home(r) + 1]!++;
    for (let p = 0; p < this.pageCount; p++) counts[p + 1]! += counts[p]!;
    const order = new Int32Array(this.liveCount);
    for (let r = 0; r < this.rowHigh; r++) if (this.isLive(r)) order[counts[this.home(r)]!++] = r;
    return order;
  }

  // ---- reads ---------------------------------------------------------------------------------

  /**
   * A row fetched by its row id: the home page, then the forwarded or migrated row's page (one more read:
   * ASE "must read the page at the original location and then read the page where the forwarded data is
   * stored" [PT-FWD]; SQL Server's forwarded_fetch_count; Oracle's table fetch continued row), then one
   * read a chained piece (Oracle).
   */
  fetchRow(row: number, reads: PageReads, _viaIndex: boolean): void {
    const i = row * ROW_STRIDE;
    const h = this.rows[i + HOME]!;
    const c = this.rows[i + CUR]!;
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
      if (this.state[p] !== PAGE_ALLOCATED) continue;
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
    // and the last are read (1e6 random updates 7–12% faster than reading CUR alone; HOME alone, 3%).
    for (let i = 0; i < count; i++) {
      const at = rows[i]! * ROW_STRIDE;
      sum += r[at + HOME]! + r[at + SIZE]!;
    }
    // Then the pages they are on (a second pass: the row loads above are in by now).
    for (let i = 0; i < count; i++) {
      const p = r[rows[i]! * ROW_STRIDE + CUR]!;
      if (p >= 0) sum += pg[p * PAGE_STRIDE]!;
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
      const p = r[rows[i]! * ROW_STRIDE + CUR]!;
      if (p >= 0) sum += st[p]! + tree.get(p);
    }
    return sum;
  }

  rowPage(row: number): number {
    return this.cur(row);
  }

  isLive(row: number): boolean {
    return row < this.rowHigh && this.rows[row * ROW_STRIDE + HOME]! >= 0;
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
    for (let r = 0, i = 0; r < this.rowHigh; r++, i += ROW_STRIDE) {
      const home = rows[i + HOME]!;
      if (home < 0) continue;
      // rowBytes(r) read in place: a forwarded row's back pointer is not its own; a chained row's pieces are.
      let b = (rows[i + SIZE]! & 0xffff) - bp * forwardedBit(home, rows[i + CUR]!);
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
      if (this.state[p] !== PAGE_ALLOCATED) continue;
      const i = p * PAGE_STRIDE;
      usedBytes += pg[i + USED]! + pg[i + SLOTS]! * g.slotBytes;
      reservedBytes += pg[i + RESERVED]!;
      holes += pg[i + TOP]! - pg[i + USED]!;
      if (pg[i + SLOTS] === 0) emptyPages++;
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
      const i = p * PAGE_STRIDE;
      fill[p] =
        this.state[p] === PAGE_ALLOCATED ? (this.pageFields[i + USED]! + this.pageFields[i + SLOTS]! * this.slotBytes) / this.usable : 0;
    }
    // Every live row adds 1 to both counts when it is forwarded, 0 when not.
    const rows = this.rows;
    const end = this.rowHigh * ROW_STRIDE;
    for (let i = 0; i < end; i += ROW_STRIDE) {
      const h = rows[i + HOME]!;
      if (h < 0) continue;
      const c = rows[i + CUR]!;
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
    const n = this.pageCount;
    const g = this.geometry;
    // The pages whose rows are bucketed: those asked for, and the pages their stubs point to and their
    // forwarded bodies come from (a slot on one names its place on the other). For a few pages of a large
    // table that is a small share of its rows: nothing is made for every row.
    const rows = this.rows;
    const end = this.rowHigh * ROW_STRIDE;
    const need = inspectedPages(n, only);
    // The tests run in the order that keeps the branches predictable: few pages are asked for, while
    // whether a row is forwarded is as good as random after random updates.
    if (only !== undefined) {
      for (let i = 0; i < end; i += ROW_STRIDE) {
        const h = rows[i + HOME]!;
        if (h < 0) continue;
        const c = rows[i + CUR]!;
        if (need[h] === PAGE_ASKED) {
          if (c !== h && need[c] === 0) need[c] = 1;
        } else if (need[c] === PAGE_ASKED && need[h] === 0) need[h] = 1;
      }
    }
    // The rows by home page and the forwarded bodies by the page they are on, in row order, on those
    // pages: a counting sort of both at once, on scratch arrays (inspect.ts, scratchInt32), which
    // frozenInspector has read every page it keeps from before this returns.
    const homeStart = scratchInt32(0, n + 1).fill(0);
    const bodyStart = scratchInt32(2, n + 1).fill(0);
    let homes = 0;
    let bodies = 0;
    for (let i = 0; i < end; i += ROW_STRIDE) {
      const h = rows[i + HOME]!;
      if (h < 0) continue;
      if (need[h] !== 0) {
        homeStart[h + 1]!++;
        homes++;
      }
      const c = rows[i + CUR]!;
      if (need[c] !== 0 && c !== h) {
        bodyStart[c + 1]!++;
        bodies++;
      }
    }
    for (let p = 0; p < n; p++) {
      homeStart[p + 1]! += homeStart[p]!;
      bodyStart[p + 1]! += bodyStart[p]!;
    }
    const homeRows = scratchInt32(1, homes);
    const bodyRows = scratchInt32(3, bodies);
    const nextHome = homeStart.slice(0, n);
    const nextBody = bodyStart.slice(0, n);
    for (let r = 0, i = 0; i < end; r++, i += ROW_STRIDE) {
      const h = rows[i + HOME]!;
      if (h < 0) continue;
      if (need[h] !== 0) homeRows[nextHome[h]!++] = r;
      const c = rows[i + CUR]!;
      if (need[c] !== 0 && c !== h) bodyRows[nextBody[c]!++] = r;
    }
    const atHome: RowBuckets = { start: homeStart, rows: homeRows };
    const movedIn: RowBuckets = { start: bodyStart, rows: bodyRows };
    // A page's entries: the rows whose home it is (bodies or stubs), in row order, then the bodies forwarded in.
    const homeSlot = (r: number): number => slotIn(atHome, this.home(r), r);
    const bodySlot = (r: number): number => {
      const c = this.cur(r);
      return atHome.start[c + 1]! - atHome.start[c]! + slotIn(movedIn, c, r);
    };
    const piece = g.usableBytes - g.slotBytes - (this.options.chainPieceOverheadBytes ?? 0);
    const page = (p: number): PageDetail => {
      const slots: SlotDetail[] = [];
      const entry = (r: number, kind: SlotDetail['kind'], slot: number): SlotDetail => {
        const e: SlotDetail = { slot, kind, row: r, bytes: this.len(r) };
        if (this.rsv(r) > 0) e.reserved = this.rsv(r);
        const pieces = this.chain?.get(r) ?? 0;
        if (pieces > 0) e.pieces = pieces;
        return e;
      };
      if (p >= 0 && p < n) {
        const a = atHome.start[p]!;
        const homes = atHome.start[p + 1]! - a;
        for (let k = 0; k < homes; k++) {
          const r = atHome.rows[a + k]!;
          const c = this.cur(r);
          if (c === p) slots.push(entry(r, 'row', k));
          else slots.push({ slot: k, kind: 'stub', row: r, bytes: this.stubBytes, to: { page: c, slot: bodySlot(r) } });
        }
        const b = movedIn.start[p]!;
        for (let k = b; k < movedIn.start[p + 1]!; k++) {
          const r = movedIn.rows[k]!;
          slots.push({ ...entry(r, 'forwarded', homes + (k - b)), from: { page: this.home(r), slot: homeSlot(r) } });
        }
      }
      const i = p * PAGE_STRIDE;
      const inTable = p >= 0 && p < n;
      const used = inTable ? this.pageFields[i + USED]! : 0;
      const top = inTable ? this.pageFields[i + TOP]! : 0;
      const slotArrayBytes = (inTable ? this.pageFields[i + SLOTS]! : 0) * g.slotBytes;
      const flags: string[] = [];
      if (p === this.lastPage) flags.push('last page: inserts go here');
      if (this.chain !== null && slots.some((s) => s.pieces)) flags.push(`chained rows continue on blocks of ${piece} bytes each`);
      return {
        page: p,
        pages: this.allocatedPages,
        allocated: inTable && this.state[p] === PAGE_ALLOCATED,
        slots,
        storedBytes: used,
        slotArrayBytes,
        reservedBytes: inTable ? this.pageFields[i + RESERVED]! : 0,
        fragmentedBytes: top - used,
        contiguousBytes: g.usableBytes - top - slotArrayBytes,
        flags,
      };
    };
    return frozenInspector(n, page, only);
  }

  memoryBytes(): number {
    // The pages made, not the arrays' room (unwritten room is not resident; see ROWS_PER_PAGE_ROOM).
    return (
      this.rows.byteLength +
      this.pageCount * (PAGE_STRIDE * this.pageFields.BYTES_PER_ELEMENT + 1) +
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
      if (this.state[h] !== PAGE_ALLOCATED || this.state[c] !== PAGE_ALLOCATED) bad.push(`row ${r} on a free page`);
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
      const i = p * PAGE_STRIDE;
      const [u, top, sl, rs] = [
        this.pageFields[i + USED]!,
        this.pageFields[i + TOP]!,
        this.pageFields[i + SLOTS]!,
        this.pageFields[i + RESERVED]!,
      ];
      if (this.state[p] === PAGE_ALLOCATED) allocated++;
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
