/**
 * The interface between the workload runner and a page engine. The runner generates rows and sizes
 * them with the format; the engine places them on pages and keeps the counters a DBA knows.
 */
import type { EngineMetrics } from './metrics.js';
import type { HeapEventSink } from './events.js';
import type { PageInspector } from './inspect.js';
import type { PageReads } from './page-reads.js';

export type { EngineMetrics };

/** What a page offers: the figures every page engine works with (each format fills them in). */
export interface PageGeometry {
  pageBytes: number;
  headerBytes: number;
  /** Bytes for rows and the row offset table: page − header (− special space). */
  usableBytes: number;
  /** Bytes of one row offset table entry / line pointer / slot. */
  slotBytes: number;
  maxRowsPerPage: number;
  /** Longest row a page accepts (physical). */
  maxRowBytes: number;
}

export interface PageMapData {
  /** Per page: fraction of usable bytes in use (rows, stubs, offset table). */
  fill: Float32Array;
  /** Per page: forwarding stubs (rows whose home is here and that live elsewhere). */
  stubs: Uint16Array;
  /** Per page: forwarded rows living here away from home. */
  forwardedIn: Uint16Array;
}

export interface UpdateInfo {
  /** Some indexed column changed value (PostgreSQL: no HOT). */
  indexedChanged: boolean;
  /**
   * The statement already read the row's page as it reached the row (a scan or a key range: see
   * workload/access.ts), so the update reads it no more (PostgreSQL: no on-access pruning here).
   */
  scanned?: boolean;
}

export type ReorgKind = 'forwarded_rows' | 'rebuild' | 'compact' | 'vacuum';

/** Heap pages of dead versions an index scan fetched: the first `count` of `pages`. */
export interface DeadPages {
  readonly pages: Int32Array;
  readonly count: number;
}

/** The live rows' physical bytes (rowBytes of each): the least, the most, their sum and how many rows. */
export interface RowSizes {
  min: number;
  max: number;
  sum: number;
  count: number;
}

/** What an engine that keeps rows in the order of their keys reads of the run (RunState gives it). */
export interface RowSource {
  /** The key of table column `col` in `row` (workload/keys.ts): sorts as the column's values do. */
  key(col: number, row: number): number;
  /** The row store's stored lengths now (the array is replaced as it grows): row r's at r × width. */
  lens(): Uint16Array;
  readonly width: number;
}

/** Index pages a format reports (btree/geometry.ts works them out; an engine that keeps its own indexes reports them). */
export interface IndexPages {
  total: number;
  by_index: Record<string, number>;
  /** Levels of index pages per index: the leaf level and the levels above it; for a clustered index whose leaf level is the table's data pages (ASE allpages-locked, SQL Server), the levels above the data. */
  levels: Record<string, number>;
  /** The pages above the leaf level per index (included in by_index). */
  nonleaf_by_index: Record<string, number>;
}

export interface StorageEngine {
  /** Place a new row; false when the row is longer than a page takes (the insert fails, as in the DBMS). */
  insert(row: number, physBytes: number, logicalBytes: number): boolean;
  /** Resize a row; false when the new row is too long (the update fails and the row is unchanged). */
  update(row: number, physBytes: number, logicalBytes: number, info: UpdateInfo): boolean;
  /** Remove a row; `scanned`: as UpdateInfo.scanned. */
  delete(row: number, scanned?: boolean): void;
  reorg(kind: ReorgKind): void;
  /** End of a transaction (statement or row scope): MVCC engines let old versions die here. */
  commit(): void;
  isLive(row: number): boolean;
  liveRows(): number;
  /** Physical bytes of a live row's current version. */
  rowBytes(row: number): number;
  /** rowBytes over every live row in one pass over the engine's own arrays (else the run asks row by row). */
  rowSizes?(): RowSizes;
  metrics(): EngineMetrics;
  pageMap(): PageMapData;
  /** Every page as it is now (or only the pages named), for the drawings (one pass over the rows to build). */
  inspect(only?: readonly number[]): PageInspector;
  /**
   * Read a live row by its row id, as a row-id fetch or an index entry does: its home page, then the page
   * it was forwarded or migrated to and any chained pieces. `viaIndex`: the row is reached through an
   * index entry (PostgreSQL: entries of its dead versions are visited too, and the HOT chain followed).
   * `deadPages`: the heap pages of the dead versions whose entries the index scan fetched, in index order
   * (PostgreSQL with the index simulated entry by entry); without it the engine counts them itself.
   */
  fetchRow(row: number, reads: PageReads, viaIndex: boolean, deadPages?: DeadPages | null): void;
  /** The page a live row's current version or body is on. */
  rowPage(row: number): number;
  /** Its place on that page (PostgreSQL: its line pointer), where the engine keeps it: a scan reads a page's rows in this order. */
  rowSlot?(row: number): number;
  /**
   * Where a table scan meets a live row, as a page number in scan order (rows of one page by rowSlot,
   * else by id): a forwarded row at its home page's stub where the scan follows forwarding (ASE, SQL
   * Server), where it lies where it does not (Oracle). Without it, rowPage.
   */
  scanPageOf?(row: number): number;
  /** The pages a table scan starting now reads (PostgreSQL: the relation's blocks at the scan's start); where pages are read one by one (visitPage). */
  scanExtent?(): number;
  /** A full table scan: every page in scan order, forwarded, migrated and chained rows as the DBMS reads them. */
  scanTable(reads: PageReads): void;
  /** Emit what the engine does, step by step, to `sink` (null: nothing, the default). */
  setEvents(sink: HeapEventSink | null): void;
  /** Bytes of simulator memory held (typed arrays), for the benchmark. */
  memoryBytes(): number;
  /** Broken invariants, described; empty when all hold. For tests. */
  checkInvariants(): string[];
  /** Just before reorg('rebuild'): the row's size on its page in the rewritten table (its values stored afresh). */
  resizeForRebuild?(row: number, bytes: number): void;
  /** The table's indexes were just built on the loaded table (CREATE INDEX): a clustered table rewrites its pages at the index's fill factor. */
  indexesBuilt?(): void;
  /**
   * Read the state of each of rows[0 … count − 1] before a batch works on them, so the memory loads of
   * the batch overlap instead of each waiting for the one before; returns a number that means nothing.
   */
  prefetchRows?(rows: Int32Array, count: number): number;
  /**
   * A statement read `page`: an index scan fetched a TID of a dead version there, a sequential scan reached
   * it, or a key range's index scan moved to it (workload/access.ts). PostgreSQL prunes it where
   * heap_page_prune_opt would.
   */
  visitPage?(page: number): void;
  /** Table columns whose keys the engine orders rows by (an index-organised table's and its indexes' key columns): the run keeps their keys. */
  readonly keyColumns?: readonly number[];
  /** Called once the run's keys and lengths exist, before the first row (with keyColumns). */
  useRowSource?(source: RowSource): void;
  /** An engine that keeps the table's indexes itself (an index-organised table): their pages, in place of the runner's model of them. */
  indexPages?(): IndexPages;
  /** MVCC engines: the last update added an entry to every index (PostgreSQL: not HOT). */
  readonly lastUpdateNewIndexEntries?: boolean;
  /** MVCC engines: the transaction that starts now may end in ROLLBACK: keep what abort() needs. */
  beginTransactionLog?(): void;
  /** MVCC engines: ROLLBACK of the open transaction (begun with beginTransactionLog): what the DBMS leaves on the pages. */
  abort?(): void;
  /**
   * MVCC engines: another session takes a snapshot (true) and keeps it until it is let go (false): the
   * versions that die meanwhile stay until then (pruning and VACUUM keep what the snapshot may see).
   */
  holdSnapshot?(hold: boolean): void;
}
