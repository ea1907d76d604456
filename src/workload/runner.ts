/**
 * The phase runner: generates rows and changes from the workload with seeded streams, sizes them with
 * the format, and drives the page engine. Pure: no I/O.
 */
import { COMPRESSIBILITY_STEPS, type Order, type PhaseSpec, type SetSpec, type StorageSpec } from '../config/spec.js';
import { getFormat, indexGeometries } from '../formats/registry.js';
import { INDEX_OPTION_KEYS } from '../config/index-settings.js';
import type { AllocationPageCounts, OffRowStore, OutOfLineStore, StorageFormat } from '../formats/format.js';
import {
  fullLengthBytes,
  MAX_STORED_LEN,
  NULL_LEN,
  type ColumnLayout,
  type ResolvedEngine,
  type TableLayout,
} from '../layout/table-layout.js';
import type { EngineMetrics, ReorgKind, RowSizes, StorageEngine, UpdateInfo } from '../heap/engine.js';
import type { HeapEventSink } from '../heap/events.js';
import { grown } from '../util/arrays.js';
import type { IndexPages } from '../btree/geometry.js';
import { IndexSet, NO_INDEX_PAGES, type RowList } from '../btree/index-set.js';
import { Prng } from '../util/prng.js';
import { resolveCount, type Count } from '../util/units.js';
import { lengthSource, type LengthSource } from './dist.js';
import { RowPicker } from './select.js';
import { plannedInserts } from './planned-work.js';
import { reducePageMap, type PageMapCells } from './page-map.js';
import { BufferCache } from '../heap/buffer-cache.js';
import { PageReads } from '../heap/page-reads.js';
import { readPlan, readResult, type ReadResult } from './reads.js';
import { derbyLobStore, lobReadCost } from '../formats/lob.js';
import { ColumnKeys, KeyStore, NULL_KEY, type KeyContext } from './keys.js';
import type { ValueDomain } from '../config/spec.js';
import { runLayout } from './constant-columns.js';
import { groupedNumber } from '../util/numbers.js';

export interface PhaseResult {
  op: PhaseSpec['op'];
  /** What the phase did, e.g. "update 100000 rows (random)". */
  label: string;
  rows_affected: number;
  metrics: EngineMetrics;
  /** Pages of the table's indexes after the phase (built at the end of the first insert phase). */
  index_pages: IndexPages;
  /** Pages the format spends on allocation apart from data and index pages, by kind. */
  allocation_pages: AllocationPages;
  /** A read phase's reads (select, read_lob). */
  reads?: ReadResult;
}

export interface AllocationPages {
  total: number;
  by_kind: AllocationPageCounts;
}

interface RowBytes {
  min: number;
  avg: number;
  max: number;
  logical_max: number;
  /** The physical bounds the schema allows (shortest and longest possible row). */
  schema_min: number;
  schema_max: number;
}

export interface StorageRunResult {
  engine: ResolvedEngine;
  notes: string[];
  row_bytes: RowBytes;
  phases: PhaseResult[];
  final: EngineMetrics;
  index_pages: IndexPages;
  allocation_pages: AllocationPages;
  /** Page maps before each reorg and at the end; a large table's reduced to several pages a cell (page-map.ts). */
  pageMaps: { after_phase: number; label: string; map: PageMapCells }[];
  memory_bytes: number;
}

export interface RunOptions {
  /** Keep page maps of at most this many cells (0: none); a table of more pages is drawn several pages a cell. */
  pageMapMaxCells?: number;
  /** Called with the engine after every phase (tests check invariants here). */
  afterPhase?: (engine: StorageEngine, phase: number) => void;
  /** Check the engine's invariants after every phase (ROWSIM_CHECK=1, `run --check`); a broken one is an internal error. */
  checkInvariants?: boolean;
  /** Sees every operation the engine accepted, in order, with the row's stored lengths (pg-check replays them). */
  observer?: WorkloadObserver;
  /** Where the engine tells what it does, step by step (rowsim trace). */
  events?: HeapEventSink;
  /** Called with the engine where the runner keeps a page map, with that map (rowsim run draws the report's pages there). */
  onPageMap?: (engine: StorageEngine, pageMap: StorageRunResult['pageMaps'][number]) => void;
  /** Called with the engine as soon as it exists, before the first phase (rowsim trace reads its pages). */
  onEngine?: (engine: StorageEngine) => void;
  /** Called immediately before and after the row operations of each phase, not its index build or metrics (npm run bench times phases). */
  onPhase?: (index: number, edge: 'start' | 'end') => void;
}

/**
 * The operations of a run as the engine accepted them: what pg-check replays against a live database,
 * so both see the same rows, the same changes and the same transaction boundaries.
 */
export interface WorkloadObserver {
  phaseStart?(index: number, phase: PhaseSpec): void;
  /** An operation on one row is about to reach the engine (accepted or not: the next call says); a read of a row, or a table scan (row −1). */
  beforeRow?(op: 'insert' | 'update' | 'delete' | 'select' | 'scan', row: number): void;
  /**
   * A new row; its varying lengths are lens[base …] (NULL_LEN for NULL); `keys`: per column the key its
   * value sorts and compares by (workload/keys.ts), NaN for a column no index reads and no config describes;
   * where the workload gives values a compressibility, each column's in 64ths at levels[levelBase + column]
   * (else levels is null). `whole`: where the workload reads large objects (read_lob), per varying column
   * index the whole length of each row's value (the row store keeps at most 65,534 bytes).
   */
  insert?(
    row: number,
    lens: Uint16Array,
    base: number,
    keys: Float64Array,
    levels: Uint8Array | null,
    levelBase: number,
    whole?: ReadonlyMap<number, Uint32Array> | null,
  ): void;
  /** A changed row: the columns its `set` names, its lengths, keys (and compressibilities) after the change. `whole`: as for insert. */
  update?(
    row: number,
    columns: readonly ColumnLayout[],
    lens: Uint16Array,
    base: number,
    keys: Float64Array,
    levels: Uint8Array | null,
    levelBase: number,
    whole?: ReadonlyMap<number, Uint32Array> | null,
  ): void;
  delete?(row: number): void;
  /** A transaction ends (the statement or the row, as the phase says). */
  commit?(): void;
  reorg?(kind: ReorgKind): void;
  /** A select phase fetches one row through its access path (an index seek or a row-id fetch): one statement; with repeat, the rows again. */
  read?(row: number): void;
  /** A select phase runs one table scan (once a repetition) that returns `rows`, the chosen rows in order. */
  scan?(rows: Int32Array): void;
  phaseEnd?(index: number, result: PhaseResult): void;
}

/**
 * A table's rows: the stored lengths of the varying columns, NULL_LEN for NULL; and, when the workload
 * gives values a compressibility and the format compresses, each column's value's, in 64ths.
 */
class RowStore {
  lens: Uint16Array;
  levels: Uint8Array | null;
  constructor(
    readonly width: number,
    capacity: number,
    readonly columns: number,
    withLevels: boolean,
  ) {
    this.lens = new Uint16Array(Math.max(1, width * Math.max(16, capacity)));
    this.levels = withLevels ? new Uint8Array(Math.max(1, columns * Math.max(16, capacity))) : null;
  }
  /** Room for rows 0 … count − 1 (the arrays grow only past the capacity they were made with). */
  ensureRows(count: number): void {
    this.lens = grown(this.lens, count * this.width);
    if (this.levels) this.levels = grown(this.levels, count * this.columns);
  }
  /** Read each row's first length (so the loads of a batch overlap); the sum means nothing. */
  touch(rows: Int32Array, count: number): number {
    const lens = this.lens;
    const w = this.width;
    let sum = 0;
    for (let i = 0; i < count; i++) sum += lens[rows[i]! * w]!;
    return sum;
  }
}

/** The off-row records of the rows (SQL Server ROW_OVERFLOW_DATA): bytes per row and in all. */
class OffRowTally {
  private bytes: Uint32Array;
  total = 0;
  constructor(
    readonly store: OffRowStore,
    capacity: number,
  ) {
    this.bytes = new Uint32Array(Math.max(16, capacity));
  }
  set(row: number, lens: Uint16Array, base: number): void {
    if (row >= this.bytes.length) this.bytes = grown(this.bytes, row + 1);
    const b = this.store.recordBytes(lens, base);
    this.total += b - this.bytes[row]!;
    this.bytes[row] = b;
  }
  clear(row: number): void {
    if (row < this.bytes.length) {
      this.total -= this.bytes[row]!;
      this.bytes[row] = 0;
    }
  }
}

/** The longest large-object value rowsim keeps a length for: 2^31 − 1 bytes (SQL Server's and ASE's 2 GB limit; PostgreSQL's is 1 GB). */
const LOB_MAX_BYTES = 0x7fffffff;

/** Rows a phase generates, sizes and hands to the engine at a time (column by column within a batch). */
const BATCH = 256;

/**
 * Stored bytes of a value of `units` characters or bytes in column `col` (capped at its declared
 * length, its most bytes and the row store's limit).
 */
function toBytes(col: ColumnLayout, units: number): number {
  if (!col.variableType) return col.fixedBytes;
  const u = Math.min(units, col.declaredLength);
  const bytes = col.bytesOfLength ? col.bytesOfLength(u) : col.character ? Math.round(u * col.bytesPerChar) : u;
  return Math.min(bytes, col.maxBytes, MAX_STORED_LEN);
}

/**
 * One column's values for a batch of rows, from two streams of its own (lengths, NULLs) derived from
 * the phase's: a column's values do not depend on the other columns' specs or on the batch size.
 */
class ColumnValues {
  /** Units (characters or bytes) drawn for the batch; −1 for NULL. */
  readonly units = new Int32Array(BATCH);
  private readonly lengthRng: Prng;
  private readonly nullRng: Prng;
  /** Bytes = min(units, plainCap) when the column sizes a unit as one byte (no conversion). */
  private readonly plainCap: number;

  constructor(
    readonly col: ColumnLayout,
    private readonly source: LengthSource | null,
    private readonly nullShare: number,
    seed: number,
    phase: number,
    op: string,
  ) {
    this.lengthRng = Prng.derive(seed, 'phase', phase, op, 'column', col.name, 'length');
    this.nullRng = Prng.derive(seed, 'phase', phase, op, 'column', col.name, 'null');
    this.plainCap =
      col.variableType && !col.bytesOfLength && (!col.character || col.bytesPerChar === 1)
        ? Math.min(col.declaredLength, col.maxBytes, MAX_STORED_LEN)
        : -1;
  }

  /** Draw `count` values: units[i] (the length drawn, or −1 for NULL). */
  draw(count: number): void {
    const units = this.units;
    if (this.source) this.source.fill(this.lengthRng, units, count);
    else units.fill(0, 0, count);
    const share = this.nullShare;
    if (share > 0) {
      const rng = this.nullRng;
      for (let i = 0; i < count; i++) if (rng.float32() < share) units[i] = -1;
    }
  }

  /** Stored bytes of a drawn length (not NULL): a value of that length, or the type's size when no length is set. */
  bytes(units: number): number {
    if (!this.source) return fullLengthBytes(this.col);
    if (this.plainCap >= 0) return units < this.plainCap ? units : this.plainCap;
    return toBytes(this.col, units);
  }

  /** Whole bytes of a large-object value of `units` characters or bytes (not capped by the row store): a read_lob phase reads them. */
  lobBytes(units: number): number {
    const col = this.col;
    if (!this.source) return col.maxBytes;
    return Math.min(col.character ? Math.round(units * col.bytesPerChar) : units, LOB_MAX_BYTES);
  }

  /** Bytes a value of `old` stored bytes (NULL_LEN: NULL) takes after growing by `units`. */
  grownBytes(old: number, units: number): number {
    const col = this.col;
    const base = old === NULL_LEN ? 0 : old;
    const added = col.bytesOfLength
      ? col.bytesOfLength(units) - col.bytesOfLength(0)
      : col.character
        ? Math.round(units * col.bytesPerChar)
        : units;
    return Math.min(base + added, col.maxBytes, MAX_STORED_LEN);
  }
}

/** Is the value at position `at` of any of rows first … first + count − 1 NULL (at −1: the column keeps no length, never)? */
function batchHasNull(lens: Uint16Array, width: number, at: number, first: number, count: number): boolean {
  if (at < 0) return false;
  for (let i = 0, p = first * width + at; i < count; i++, p += width) if (lens[p] === NULL_LEN) return true;
  return false;
}

/** A compressibility (0 … 1) in 64ths, as the row store keeps it. */
const levelOf = (compressibility: number | undefined): number => Math.round((compressibility ?? 0) * COMPRESSIBILITY_STEPS);

/** Does the workload give any value a compressibility? */
function givesCompressibility(workload: readonly PhaseSpec[]): boolean {
  return workload.some(
    (ph) =>
      (ph.op === 'insert' && Object.values(ph.values).some((v) => (v.compressibility ?? 0) > 0)) ||
      (ph.op === 'update' && Object.values(ph.set).some((c) => (c.kind === 'length' || c.kind === 'grow') && (c.compressibility ?? 0) > 0)),
  );
}

/** What an update's `set` does to a column's stored length. */
const enum SetMode {
  /** A new value of the drawn length. */
  Length,
  /** The value grows by the drawn length. */
  Grow,
  /** Only the NULL share applies: a NULL value gets its type's size back. */
  NullOnly,
  /** A fixed-length type: a value keeps its size (or becomes NULL). */
  Fixed,
}

/** An update's change to one column whose stored length it can change, applied a row at a time. */
class ColumnChange {
  readonly values: ColumnValues;
  readonly column: ColumnLayout;
  private readonly mode: SetMode;
  private readonly at: number;
  /** Stored bytes of a value that is not NULL and has no length drawn (a NULL given its type's size back, a fixed type). */
  private readonly notNullBytes: number;

  constructor(col: ColumnLayout, set: SetSpec, seed: number, phase: number) {
    const dist = set.kind === 'length' || set.kind === 'grow' ? set.dist : undefined;
    const nullShare = col.nullable && set.kind !== 'changed' ? (set.null ?? 0) : 0;
    this.values = new ColumnValues(col, dist ? lengthSource(dist) : null, nullShare, seed, phase, 'update');
    this.column = col;
    this.mode =
      set.kind === 'null' ? SetMode.NullOnly : !col.variableType ? SetMode.Fixed : set.kind === 'grow' ? SetMode.Grow : SetMode.Length;
    this.at = col.varIndex;
    this.notNullBytes = fullLengthBytes(col);
  }

  /** Keep the whole lengths of this large-object column in `lob` (by row) as well. */
  trackLob(lob: Uint32Array): void {
    this.lob = lob;
  }
  private lob: Uint32Array | null = null;

  /** Change the row whose lengths start at lens[base], with the batch's i-th draw; returns the old length. */
  apply(lens: Uint16Array, base: number, i: number, row = -1): number {
    const at = base + this.at;
    const old = lens[at]!;
    const u = this.values.units[i]!;
    if (u < 0) lens[at] = NULL_LEN;
    else if (this.mode === SetMode.Length) lens[at] = this.values.bytes(u);
    else if (this.mode === SetMode.Grow) lens[at] = this.values.grownBytes(old, u);
    else if (this.mode === SetMode.Fixed) lens[at] = this.notNullBytes;
    else if (old === NULL_LEN) lens[at] = this.notNullBytes;
    const lob = this.lob;
    if (lob !== null && row >= 0) {
      if (lens[at] === NULL_LEN) lob[row] = 0;
      else if (u < 0) lob[row] = 0;
      else if (this.mode === SetMode.Length) lob[row] = this.values.lobBytes(u);
      else if (this.mode === SetMode.Grow)
        lob[row] = Math.min(lob[row]! + this.values.lobBytes(u) - this.values.lobBytes(0), LOB_MAX_BYTES);
      else if (old === NULL_LEN) lob[row] = this.column.maxBytes;
    }
    return old;
  }

  /** Put back the length apply() returned (the engine refused the update). */
  restore(lens: Uint16Array, base: number, old: number): void {
    lens[base + this.at] = old;
  }
}

export function runStorage(spec: StorageSpec, options: RunOptions = {}): StorageRunResult {
  return new WorkloadRun(spec, options).run();
}

/** A keyed column's draws in a phase: the column, its position among the stored lengths (−1: none), its keys, its distinct values' lengths. */
interface KeyDraw {
  col: number;
  at: number;
  keys: ColumnKeys;
  lens: Map<number, number> | null;
}

/** What an update phase keeps from batch to batch (WorkloadRun.update). */
interface UpdateBatch {
  setColumns: ColumnLayout[];
  /** The changes to the columns whose stored lengths the phase can change, and their old lengths in the row being changed. */
  sized: ColumnChange[];
  old: Int32Array;
  info: UpdateInfo;
  /** A transaction a row (else one for the statement). */
  perRow: boolean;
  keyChanged: ReturnType<IndexSet['keysChanged']> | null;
  /** An index refuses entries over a size (updates that would make one are refused). */
  limit: boolean;
  /** The keyed columns the phase changes, their new keys and old lengths in the row being changed. */
  keyDraws: KeyDraw[];
  newKeys: Float64Array;
  oldLens: Int32Array;
  /** Per column, 1 where the phase gives it a new value. */
  changed: Uint8Array;
  /** The compressibilities the phase sets, and their old values in the row being changed. */
  levelSets: { at: number; level: number }[];
  oldLevels: Uint8Array;
  /** Rows changed so far (a key draw's position). */
  visited: number;
}

/** One phase's outcome before its metrics are read. */
interface PhaseOutcome {
  affected: number;
  label: string;
  reads?: ReadResult;
}

/**
 * One run of a workload on one engine: the rows' stored lengths, the engine, the indexes, and the phase
 * results as they accumulate. Each phase kind is one method.
 */
class WorkloadRun {
  private readonly format: StorageFormat;
  /** The layout rows are sized with: columns the run never changes are fixed (workload/constant-columns.ts). */
  private readonly layout: TableLayout;
  /** The table's layout as declared: what the result reports of it. */
  private readonly schema: TableLayout;
  private readonly resolved: ResolvedEngine;
  private readonly capacity: number;
  private readonly engine: StorageEngine;
  private readonly width: number;
  private readonly store: RowStore;
  private readonly obs: WorkloadObserver | undefined;
  private readonly indexes: IndexSet | null;
  /** MVCC indexes keep an entry per version: they follow commits and deletes. */
  private readonly trackVersions: boolean;
  /** Off-row records (SQL Server row overflow), when the format keeps any. */
  private readonly offRow: OffRowTally | null;
  /** The relation values move out of line to (PostgreSQL's TOAST relation), when the table has one: it sizes the rows. */
  private readonly ool: OutOfLineStore | null;
  private readonly ncols: number;
  /** Whole lengths of large-object values (the row store keeps at most MAX_STORED_LEN): by varIndex, when a read_lob phase reads them. */
  private readonly lobs: Map<number, Uint32Array> | null;
  private readonly maxCells: number;
  private readonly phases: PhaseResult[] = [];
  private readonly pageMaps: StorageRunResult['pageMaps'] = [];
  private nextRow = 0;
  /** What the touch before each batch read (kept so the reads are not optimised away). */
  private touched = 0;
  /** The buffer cache of read phases (`cache:`), made at the first. */
  private bufferCache: BufferCache | null = null;
  /** Keys of the columns indexes read and configs describe (workload/keys.ts). */
  private readonly keys: KeyStore;
  /** Per column, the values its latest insert phase described (`distinct`, `frequency`, `order`): an update's new values are drawn from them. */
  private readonly domains: (ValueDomain | undefined)[];
  /** Per column, the key range its random distinct values were placed in (kept for later phases). */
  private readonly randomRanges = new Map<number, { lo: number; span: number }>();
  /** Per column, the stored bytes of each distinct value (its key): every row with the value has its length. */
  private readonly valueLens = new Map<number, Map<number, number>>();
  /** Inserts and updates refused because an index entry would be larger than the DBMS takes. */
  private indexRefusedRows = 0;
  private indexRefusedUpdates = 0;

  constructor(
    private readonly spec: StorageSpec,
    private readonly options: RunOptions,
  ) {
    this.format = getFormat(spec.engine.format);
    const layouts = runLayout(this.format, spec, options.observer !== undefined);
    this.layout = layouts.layout;
    this.schema = layouts.schema;
    this.resolved = this.format.resolve(spec.engine, this.schema);
    this.capacity = plannedInserts(spec.workload);
    this.engine = this.format.createEngine(this.layout, this.resolved, spec, this.capacity);
    if (options.events) this.engine.setEvents(options.events);
    options.onEngine?.(this.engine);
    this.width = this.layout.varying.length;
    this.ncols = this.layout.columns.length;
    this.ool = this.format.outOfLine?.(this.layout, spec, this.capacity) ?? null;
    this.store = new RowStore(this.width, this.capacity, this.ncols, this.ool !== null && givesCompressibility(spec.workload));
    this.layout.bindRowLevels?.(() => this.store.levels, this.width, this.ncols);
    this.obs = options.observer;
    // Keys for the columns a simulated (nbtree) index reads and the columns a config gives values to.
    const geometries = indexGeometries(this.format, spec.table, this.layout);
    const keyed = new Uint8Array(spec.table.columns.length);
    for (const g of geometries) if (g.nbtree) for (const c of g.columns) keyed[c] = 1;
    for (const ph of spec.workload) {
      const given =
        ph.op === 'insert'
          ? Object.entries(ph.values)
              .filter(([, v]) => v.domain)
              .map(([k]) => k)
          : ph.op === 'update'
            ? Object.entries(ph.set)
                .filter(([, v]) => v.domain)
                .map(([k]) => k)
            : [];
      for (const name of given) keyed[this.layout.columns.findIndex((c) => c.name === name)] = 1;
    }
    this.keys = new KeyStore(keyed, this.capacity);
    this.domains = spec.table.columns.map(() => undefined);
    const keys = this.keys;
    // Indexes grow with updates only where every update that is not heap-only adds entries (MVCC).
    this.indexes =
      spec.table.indexes.length > 0
        ? new IndexSet(geometries, this.layout, this.format.versionedIndexes, {
            key: (col, row) => keys.get(col, row),
            keyIsRowId: (col) => keys.implicit(col),
            rowPage: (row) => this.engine.rowPage(row),
            lens: () => this.store.lens,
            visitBlock: (page) => this.engine.visitPage?.(page),
          })
        : null;
    this.trackVersions = this.indexes !== null && this.format.versionedIndexes;
    const offRowStore = this.format.offRow?.(this.layout);
    this.offRow = offRowStore ? new OffRowTally(offRowStore, this.capacity) : null;
    this.lobs = spec.workload.some((ph) => ph.op === 'read_lob')
      ? new Map(
          this.layout.varying
            .filter((c) => spec.table.columns[c.index]!.type.lob)
            .map((c) => [c.varIndex, new Uint32Array(Math.max(16, this.capacity))]),
        )
      : null;
    if (this.lobs) this.ool?.useWholeLengths?.(this.lobs);
    this.maxCells = options.pageMapMaxCells ?? 0;
  }

  run(): StorageRunResult {
    this.spec.workload.forEach((phase, index) => {
      const rng = Prng.derive(this.spec.seed, 'phase', index, phase.op);
      this.obs?.phaseStart?.(index, phase);
      this.options.onPhase?.(index, 'start');
      const outcome = this.runPhase(phase, index, rng);
      this.options.onPhase?.(index, 'end');
      this.afterPhase(phase, index, outcome);
    });
    return this.result();
  }

  private runPhase(phase: PhaseSpec, index: number, rng: Prng): PhaseOutcome {
    switch (phase.op) {
      case 'insert':
        return this.insert(phase, index);
      case 'update':
        return this.update(phase, index, rng);
      case 'delete':
        return this.delete(phase, rng);
      case 'reorg':
        return this.reorg(phase.kind);
      case 'select':
        return this.select(phase, index);
      case 'read_lob':
        return this.readLob(phase, index);
    }
  }

  /** End of a transaction (a statement, or one row with `transaction: row`). */
  private commitTransaction(): void {
    this.engine.commit();
    this.ool?.commit();
    if (this.trackVersions) this.indexes!.commit();
    this.obs?.commit?.();
  }

  /**
   * The live rows in id order, for an index build: every id when every row is live (no list is made),
   * else a list of the live ids.
   */
  private liveRowList(): RowList {
    const count = this.engine.liveRows();
    if (count === this.nextRow) return { count, at: (k) => k };
    const ids = new Int32Array(count);
    let k = 0;
    for (let r = 0; r < this.nextRow; r++) if (this.engine.isLive(r)) ids[k++] = r;
    return { count, at: (i) => ids[i]! };
  }

  /** A keyed column's key draws for a phase of `count` values (workload/keys.ts). */
  private columnKeys(col: ColumnLayout, domain: ValueDomain | undefined, phase: number, op: string, count: number): KeyDraw {
    const width = this.width;
    const ctx: KeyContext = {
      store: this.keys,
      seed: this.spec.seed,
      phase,
      op,
      count,
      rowIds: this.nextRow,
      isLive: (r) => this.engine.isLive(r),
      bytesOf: (r) => (col.varIndex >= 0 ? this.store.lens[r * width + col.varIndex]! : col.fixedBytes),
    };
    const randomDistinct = domain?.distinct !== undefined && domain.order === 'random';
    const keys = new ColumnKeys(col.index, col.name, domain, ctx, randomDistinct ? this.randomRanges.get(col.index) : undefined);
    if (randomDistinct && !this.randomRanges.has(col.index)) this.randomRanges.set(col.index, keys.range());
    let lens: Map<number, number> | null = null;
    if (domain?.distinct !== undefined && col.varIndex >= 0) {
      lens = this.valueLens.get(col.index) ?? new Map<number, number>();
      this.valueLens.set(col.index, lens);
    }
    return { col: col.index, at: col.varIndex, keys, lens };
  }

  /**
   * The key of `row`'s new value in a keyed column (the phase's j-th), NULL_KEY for a NULL; a distinct
   * value takes the length the first row with it had (a repeated existing value, that row's length).
   */
  private drawKey(kd: KeyDraw, row: number, j: number, lens: Uint16Array, current: number, store = true): number {
    const at = kd.at;
    const base = row * this.width;
    let key: number;
    if (at >= 0 && lens[base + at] === NULL_LEN) key = NULL_KEY;
    else {
      key = kd.keys.next(j, current);
      if (kd.lens !== null && kd.keys.valueId >= 0) {
        const known = kd.lens.get(key);
        if (known !== undefined) lens[base + at] = known;
        else {
          const src = kd.keys.sourceRow;
          const b = src >= 0 ? this.store.lens[src * this.width + at]! : lens[base + at]!;
          if (b !== NULL_LEN) {
            kd.lens.set(key, b);
            lens[base + at] = b;
          }
        }
      }
    }
    if (store) this.keys.set(kd.col, row, key);
    return key;
  }

  /** The live rows in the order of their pages (by row id within a page). */
  private rowsInPageOrder(): Int32Array {
    const ids: number[] = [];
    for (let r = 0; r < this.nextRow; r++) if (this.engine.isLive(r)) ids.push(r);
    const slot = this.engine.rowSlot?.bind(this.engine);
    ids.sort((a, b) => this.engine.rowPage(a) - this.engine.rowPage(b) || (slot ? slot(a) - slot(b) : 0) || a - b);
    return Int32Array.from(ids);
  }

  /** Rows of the phase, a batch at a time, in the phase's order ('order' stream: nothing else draws from it). */
  private picker(count: Count, order: Order, rng: Prng): RowPicker {
    const live = this.engine.liveRows();
    return new RowPicker(order, resolveCount(count, live), this.nextRow, live, this.engine, rng);
  }

  private insert(phase: Extract<PhaseSpec, { op: 'insert' }>, index: number): PhaseOutcome {
    const { engine, format, layout, width, indexes, obs } = this;
    const n = resolveCount(phase.rows, engine.liveRows());
    const columns = layout.varying.map((col) => {
      const v = phase.values[col.name];
      return new ColumnValues(
        col,
        v?.length ? lengthSource(v.length) : null,
        col.nullable ? (v?.null ?? 0) : 0,
        this.spec.seed,
        index,
        'insert',
      );
    });
    this.store.ensureRows(this.nextRow + n);
    const lens = this.store.lens;
    const levels = this.store.levels;
    const ncols = this.ncols;
    const insertLevels = levels ? Uint8Array.from(layout.columns, (c) => levelOf(phase.values[c.name]?.compressibility)) : null;
    const ool = this.ool;
    const offRow = this.offRow;
    const appendIndexes = indexes !== null && indexes.built;
    const limit = indexes !== null && indexes.hasLimit;
    const firstRow = this.nextRow;
    // Keyed columns: their keys drawn as the phase's `values` describe them.
    const keyDraws = layout.columns
      .filter((col) => this.keys.keyed[col.index])
      .map((col) => {
        const domain = phase.values[col.name]?.domain;
        if (domain) this.domains[col.index] = domain;
        return this.columnKeys(col, domain, index, 'insert', n);
      });
    let affected = 0;
    for (let done = 0; done < n;) {
      const count = Math.min(BATCH, n - done);
      const first = this.nextRow;
      // Column by column: each column's lengths for the whole batch.
      for (let v = 0; v < width; v++) {
        const c = columns[v]!;
        c.draw(count);
        const units = c.units;
        for (let i = 0, at = first * width + v; i < count; i++, at += width) {
          const u = units[i]!;
          lens[at] = u < 0 ? NULL_LEN : c.bytes(u);
        }
        const lob = this.lobs?.get(v);
        if (lob) {
          if (lob.length < first + count) this.lobs!.set(v, grown(lob, first + count));
          const whole = this.lobs!.get(v)!;
          for (let i = 0; i < count; i++) whole[first + i] = units[i]! < 0 ? 0 : c.lobBytes(units[i]!);
        }
      }
      for (const kd of keyDraws) {
        // Ascending keys of a load (no values to repeat, no NULL in the batch): a run, not a draw a row.
        if (kd.lens === null && kd.keys.plainAscending && !batchHasNull(lens, width, kd.at, first, count))
          this.keys.setRun(kd.col, first, count, kd.keys.ascendingKey(first - firstRow));
        else for (let i = 0; i < count; i++) this.drawKey(kd, first + i, first + i - firstRow, lens, NaN);
      }
      if (levels) for (let i = 0; i < count; i++) levels.set(insertLevels!, (first + i) * ncols);
      // Row by row: sized by the format (or its TOAST relation), placed by the engine.
      for (let i = 0; i < count; i++) {
        const row = first + i;
        const base = row * width;
        const logical = format.logicalBytes(layout, lens, base);
        obs?.beforeRow?.('insert', row);
        // An index entry larger than the index takes: the server refuses the INSERT.
        if (limit && indexes.tooLarge(lens, base)) {
          this.indexRefusedRows++;
          continue;
        }
        const bytes = ool ? ool.sizeInsert(row, lens, base, levels, row * ncols) : format.rowBytes(layout, lens, base, logical);
        if (engine.insert(row, bytes, logical)) {
          affected++;
          ool?.apply();
          if (appendIndexes) indexes.append(row, lens, base);
          offRow?.set(row, lens, base);
          obs?.insert?.(row, lens, base, this.keys.snapshot(row), levels, row * ncols, this.lobs);
        }
      }
      this.nextRow += count;
      done += count;
    }
    engine.commit();
    ool?.commit();
    obs?.commit?.();
    return { affected, label: `insert ${n} ${n === 1 ? 'row' : 'rows'}` };
  }

  private update(phase: Extract<PhaseSpec, { op: 'update' }>, index: number, rng: Prng): PhaseOutcome {
    const { engine, layout, indexes } = this;
    const picker = this.picker(phase.rows, phase.order, rng);
    const n = picker.total;
    const setColumns = Object.keys(phase.set).map((name) => layout.columns.find((c) => c.name === name)!);
    // Columns whose stored length a `set` can change (a fixed NOT NULL column keeps its size; `changed` keeps the length).
    const sized = setColumns
      .filter((col) => col.varying && phase.set[col.name]!.kind !== 'changed')
      .map((col) => new ColumnChange(col, phase.set[col.name]!, this.spec.seed, index));
    for (const ch of sized) {
      const lob = this.lobs?.get(ch.column.varIndex);
      if (lob) ch.trackLob(lob);
    }
    // Keyed columns the set changes: new keys from the set's values, else those the column's last insert described.
    const keyDraws = setColumns
      .filter((col) => this.keys.keyed[col.index])
      .map((col) => this.columnKeys(col, phase.set[col.name]!.domain ?? this.domains[col.index], index, 'update', n));
    // The columns the update gives new values (the TOAST relation keeps the others as they are stored).
    const changed = new Uint8Array(this.ncols);
    for (const col of setColumns) changed[col.index] = 1;
    // New compressibilities: a new length's value has the set's (default 0); a grown value keeps its own unless the set gives one.
    const levelSets = setColumns.flatMap((col) => {
      const set = phase.set[col.name]!;
      if (set.kind === 'length' || (set.kind === 'grow' && set.compressibility !== undefined))
        return [{ at: col.index, level: levelOf(set.compressibility) }];
      return [];
    });
    const u: UpdateBatch = {
      setColumns,
      sized,
      old: new Int32Array(Math.max(1, sized.length)),
      info: { indexedChanged: setColumns.some((col) => col.indexed) },
      perRow: phase.transaction === 'row',
      keyChanged: indexes ? indexes.keysChanged(new Set(setColumns.map((c) => c.index))) : null,
      limit: indexes !== null && indexes.hasLimit,
      keyDraws,
      newKeys: new Float64Array(keyDraws.length),
      oldLens: new Int32Array(keyDraws.length),
      changed,
      levelSets,
      oldLevels: new Uint8Array(Math.max(1, levelSets.length)),
      visited: 0,
    };
    // Nothing but the lengths and the engine (no keys, compressibilities kept, observer, index versions,
    // TOAST, off-row records or large objects): the batches take the short loop (updatePlain).
    const plain =
      keyDraws.length === 0 &&
      (levelSets.length === 0 || this.store.levels === null) &&
      !this.obs &&
      !this.trackVersions &&
      !this.ool &&
      !this.offRow &&
      !u.limit &&
      this.lobs === null &&
      engine.lastUpdateNewIndexEntries === undefined;
    const affected = this.updateBatches(u, picker, plain, phase.order.kind !== 'sequential');
    if (!u.perRow) this.commitTransaction();
    return { affected, label: `update ${n} ${n === 1 ? 'row' : 'rows'} (${orderName(phase.order)}, ${Object.keys(phase.set).join(', ')})` };
  }

  /**
   * An update phase's rows, a batch at a time; returns the rows changed. The loops are methods of their own,
   * apart from update()'s set-up, so that the compiler's code for them stays valid from run to run: with
   * them inside update() (which a run calls afresh, with new column objects) that code was dropped at the
   * start of a phase and compiled again on a thread of its own every few runs (the storage bench's CPU
   * time counted it: 20 ms in a 45 ms phase).
   */
  private updateBatches(u: UpdateBatch, picker: RowPicker, plain: boolean, touchFirst: boolean): number {
    const { engine, indexes, store } = this;
    const sized = u.sized;
    const rows = new Int32Array(BATCH);
    let affected = 0;
    for (;;) {
      const count = picker.next(rows);
      if (count === 0) break;
      // Touch every row's state before the first is worked on: the loads overlap instead of queueing. Rows
      // in id order need no such pass: they lie one after the other in the row arrays and mostly on the
      // page of the row before (the processor's own prefetching follows them).
      if (touchFirst) this.touched += store.touch(rows, count) + (engine.prefetchRows?.(rows, count) ?? 0);
      if (this.trackVersions) this.touched += indexes!.prefetchRows(rows, count);
      for (let c = 0; c < sized.length; c++) sized[c]!.values.draw(count);
      affected += plain ? this.updatePlain(u, rows, count) : this.updateRows(u, rows, count);
    }
    return affected;
  }

  /**
   * One batch of an update phase where only the rows' lengths and the engine take part (see `plain` in
   * update): the same changes as updateRows with none of its other work. Returns the rows changed.
   */
  private updatePlain(u: UpdateBatch, rows: Int32Array, count: number): number {
    const { engine, format, layout, width } = this;
    const { sized, old, info, perRow } = u;
    const lens = this.store.lens;
    let affected = 0;
    for (let i = 0; i < count; i++) {
      const row = rows[i]!;
      const base = row * width;
      for (let c = 0; c < sized.length; c++) old[c] = sized[c]!.apply(lens, base, i);
      const logical = format.logicalBytes(layout, lens, base);
      if (engine.update(row, format.rowBytes(layout, lens, base, logical), logical, info)) affected++;
      else for (let c = 0; c < sized.length; c++) sized[c]!.restore(lens, base, old[c]!);
      if (perRow) this.commitTransaction();
    }
    return affected;
  }

  /** One batch of an update phase, with everything the run keeps beside the lengths. Returns the rows changed. */
  private updateRows(u: UpdateBatch, rows: Int32Array, count: number): number {
    const { engine, format, layout, width, indexes, obs, ool, offRow, ncols } = this;
    const { setColumns, sized, old, info, perRow, keyChanged, limit, keyDraws, newKeys, oldLens, changed, levelSets, oldLevels } = u;
    const lens = this.store.lens;
    const levels = this.store.levels;
    let affected = 0;
    for (let i = 0; i < count; i++) {
      const row = rows[i]!;
      const base = row * width;
      for (let c = 0; c < sized.length; c++) old[c] = sized[c]!.apply(lens, base, i, row);
      for (let k = 0; k < keyDraws.length; k++) {
        const kd = keyDraws[k]!;
        oldLens[k] = kd.at >= 0 ? lens[base + kd.at]! : 0;
        newKeys[k] = this.drawKey(kd, row, u.visited, lens, this.keys.get(kd.col, row), false);
      }
      u.visited++;
      const levelBase = row * ncols;
      if (levels) {
        for (let k = 0; k < levelSets.length; k++) {
          oldLevels[k] = levels[levelBase + levelSets[k]!.at]!;
          levels[levelBase + levelSets[k]!.at] = levelSets[k]!.level;
        }
      }
      const logical = format.logicalBytes(layout, lens, base);
      obs?.beforeRow?.('update', row);
      // The row is found through the first index (its leaf read, its dead versions' entries marked), then changed.
      if (this.trackVersions && indexes!.built) indexes!.locate(row);
      const refused = limit && indexes!.tooLarge(lens, base);
      if (refused) this.indexRefusedUpdates++;
      const bytes = refused
        ? 0
        : ool
          ? ool.sizeUpdate(row, lens, base, levels, levelBase, changed)
          : format.rowBytes(layout, lens, base, logical);
      if (!refused && engine.update(row, bytes, logical, info)) {
        affected++;
        ool?.apply();
        for (let k = 0; k < keyDraws.length; k++) this.keys.set(keyDraws[k]!.col, row, newKeys[k]!);
        if (indexes?.built && engine.lastUpdateNewIndexEntries) indexes.addVersion(row, lens, base, keyChanged);
        offRow?.set(row, lens, base);
        obs?.update?.(row, setColumns, lens, base, this.keys.snapshot(row), levels, levelBase, this.lobs);
      } else {
        for (let c = 0; c < sized.length; c++) sized[c]!.restore(lens, base, old[c]!);
        for (let k = 0; k < keyDraws.length; k++) if (keyDraws[k]!.at >= 0) lens[base + keyDraws[k]!.at] = oldLens[k]!;
        if (levels) for (let k = 0; k < levelSets.length; k++) levels[levelBase + levelSets[k]!.at] = oldLevels[k]!;
      }
      if (perRow) this.commitTransaction();
    }
    return affected;
  }

  private delete(phase: Extract<PhaseSpec, { op: 'delete' }>, rng: Prng): PhaseOutcome {
    const picker = this.picker(phase.rows, phase.order, rng);
    const n = picker.total;
    const perRow = phase.transaction === 'row';
    const rows = new Int32Array(BATCH);
    let affected = 0;
    for (;;) {
      const count = picker.next(rows);
      if (count === 0) break;
      for (let i = 0; i < count; i++) {
        const row = rows[i]!;
        if (!this.engine.isLive(row)) continue;
        this.obs?.beforeRow?.('delete', row);
        if (this.trackVersions && this.indexes!.built) this.indexes!.locate(row);
        this.engine.delete(row);
        this.ool?.delete(row);
        this.offRow?.clear(row);
        if (this.trackVersions) this.indexes!.remove(row, this.store.lens, row * this.width);
        affected++;
        this.obs?.delete?.(row);
        if (perRow) this.commitTransaction();
      }
    }
    if (!perRow) this.commitTransaction();
    return { affected, label: `delete ${n} ${n === 1 ? 'row' : 'rows'} (${orderName(phase.order)})` };
  }

  /**
   * A read phase: its statements, each a row fetched through the phase's access path or a table scan,
   * counted as the engine reads them (src/heap/page-reads.ts), through the run's buffer cache if it has one.
   */
  private select(phase: Extract<PhaseSpec, { op: 'select' }>, index: number): PhaseOutcome {
    const { engine, indexes, obs } = this;
    const plan = readPlan(this.format, this.spec, phase);
    const reads = new PageReads(this.cache());
    const dataPages = engine.metrics().pages;
    const indexNo = plan.path === 'index' && indexes ? indexes.indexOf(plan.index!) : -1;
    if (indexNo >= 0) indexes!.prepareReads(dataPages);
    const rows = new Int32Array(BATCH);
    let returned = 0;
    for (let rep = 0; rep < phase.repeat; rep++) {
      // Each repetition runs the same statement on the same rows: the order's stream starts afresh.
      const picker = this.picker(phase.rows, phase.order, Prng.derive(this.spec.seed, 'phase', index, phase.op));
      if (plan.path === 'scan') {
        this.obs?.beforeRow?.('scan', -1);
        engine.scanTable(reads);
        reads.statements++;
        reads.rows += picker.total;
        returned += picker.total;
        if (obs?.scan) obs.scan(pickAll(picker));
        continue;
      }
      for (;;) {
        const count = picker.next(rows);
        if (count === 0) break;
        this.touched +=
          (engine.prefetchRows?.(rows, count) ?? 0) + (indexNo >= 0 && this.trackVersions ? indexes!.prefetchReads(rows, count) : 0);
        for (let i = 0; i < count; i++) {
          const row = rows[i]!;
          this.obs?.beforeRow?.('select', row);
          if (indexNo >= 0) {
            const before = reads.indexPages;
            indexes!.readPath(indexNo, row, this.nextRow, engine.rowPage(row), dataPages, reads);
            this.options.events?.({ op: 'index-read', index: plan.index!, pages: reads.indexPages - before });
          }
          engine.fetchRow(row, reads, plan.path === 'index', indexNo >= 0 && this.trackVersions ? indexes!.dead : null);
          obs?.read?.(row);
        }
        reads.statements += count;
        reads.rows += count;
        returned += count;
      }
    }
    const n = resolveCount(phase.rows, engine.liveRows());
    return {
      affected: returned,
      label: `select ${n} ${n === 1 ? 'row' : 'rows'} (${plan.short}${phase.repeat > 1 ? `, ${phase.repeat} times` : ''})`,
      reads: readResult(this.format, plan, reads, this.spec.costs),
    };
  }

  /**
   * A read_lob phase: each chosen row's value of the column read in chunks (lobReadCost: keep reads on,
   * restart reads from the first byte each time), through the LOB store of the format (or Derby's).
   * With a buffer cache, every LOB page read goes through it, the values laid out in row order.
   */
  private readLob(phase: Extract<PhaseSpec, { op: 'read_lob' }>, index: number): PhaseOutcome {
    const col = this.layout.columns.find((c) => c.name === phase.column)!;
    const store = phase.store === 'derby' ? derbyLobStore() : this.format.lobStore!(this.layout, this.spec.engine);
    const whole = this.lobs!.get(col.varIndex)!;
    const reads = new PageReads(this.cache());
    const values = this.engine.liveRows();
    // With a cache: each value's first LOB page, the values laid out one after the other in row order.
    let firstPage: Float64Array | null = null;
    if (reads.cache !== null) {
      firstPage = new Float64Array(this.nextRow + 1);
      for (let r = 0; r < this.nextRow; r++)
        firstPage[r + 1] = firstPage[r]! + (this.engine.isLive(r) ? Math.ceil(whole[r]! / store.bytesPerPage) : 0);
    }
    const picker = this.picker(phase.rows, phase.order, Prng.derive(this.spec.seed, 'phase', index, phase.op));
    const rows = new Int32Array(BATCH);
    let valuesRead = 0;
    let chunkReads = 0;
    let bytes = 0;
    let valueBytes = 0;
    let lookups = 0;
    for (;;) {
      const count = picker.next(rows);
      if (count === 0) break;
      for (let i = 0; i < count; i++) {
        const row = rows[i]!;
        const s = whole[row]!;
        const cost = lobReadCost(s, phase.chunk, phase.reposition, store, values);
        reads.statements++;
        reads.rows++;
        if (cost.reads === 0) continue;
        valuesRead++;
        chunkReads += cost.reads;
        bytes += cost.bytes;
        valueBytes += s;
        lookups += cost.lookups;
        if (firstPage === null) {
          reads.lobPages += cost.pages;
          continue;
        }
        // Page by page through the cache: the lookup pages, then the prefix (restart) or the next chunk's pages (keep).
        const base = firstPage[row]!;
        const per = store.bytesPerPage;
        const lookupEach = cost.lookups / cost.reads;
        let done = 0;
        for (let k = 0; k < cost.reads; k++) {
          for (let l = 0; l < lookupEach; l++) reads.lobPage(-1 - l);
          const end = Math.min((k + 1) * phase.chunk, s);
          const from = phase.reposition === 'restart' ? 0 : done;
          const lastPage = Math.ceil(end / per);
          for (let pg = from; pg < lastPage; pg++) reads.lobPage(Math.min(0x7fffffff, base + pg));
          done = lastPage;
        }
      }
    }
    const n = resolveCount(phase.rows, values);
    const plan = {
      path: 'rowid' as const,
      short: `${groupedNumber(phase.chunk)}-byte chunks, ${phase.reposition}`,
      text: `each value of ${phase.column} read in chunks of ${groupedNumber(phase.chunk)} bytes from ${store.title}, ${phase.reposition === 'restart' ? 'every chunk read from the first byte again (the stream restarts)' : 'each chunk where the last ended'}`,
    };
    const result = readResult(this.format, plan, reads, this.spec.costs);
    result.lob = {
      column: phase.column,
      store: store.title,
      chunk: phase.chunk,
      reposition: phase.reposition,
      values_read: valuesRead,
      value_bytes: valueBytes,
      chunk_reads: chunkReads,
      bytes_processed: bytes,
      pages_processed: reads.lobPages,
      lookup_pages: lookups,
      assumed: store.assumed,
      source: store.source,
    };
    return {
      affected: valuesRead,
      label: `read_lob ${n} ${n === 1 ? 'value' : 'values'} of ${phase.column} (${plan.short})`,
      reads: result,
    };
  }

  /** The run's buffer cache, made at the first read phase (null without `cache:`). */
  private cache(): BufferCache | null {
    if (!this.spec.cache) return null;
    this.bufferCache ??= new BufferCache(this.spec.cache.pages, this.spec.cache.policy);
    return this.bufferCache;
  }

  private reorg(kind: ReorgKind): PhaseOutcome {
    const engine = this.engine;
    if (kind === 'rebuild' && this.ool?.rebuild && engine.resizeForRebuild) {
      // The rewrite reads the rows in page order and stores each one's values afresh, then writes them.
      this.ool.rebuild(this.rowsInPageOrder(), this.store.lens, this.width, this.store.levels, this.ncols, (row, bytes) =>
        engine.resizeForRebuild!(row, bytes),
      );
    }
    engine.reorg(kind);
    this.ool?.reorg(kind, () => this.rowsInPageOrder());
    // The pages after a reorganisation are not the pages the cache holds: it starts again.
    this.bufferCache = null;
    this.obs?.reorg?.(kind);
    const indexes = this.indexes;
    if (indexes?.built) {
      if (kind === 'rebuild') indexes.build(this.liveRowList(), this.store.lens, this.nextRow);
      else if (this.format.versionedIndexes && (kind === 'vacuum' || kind === 'compact')) indexes.vacuum(this.engine.liveRows());
    }
    return { affected: this.engine.liveRows(), label: kind === 'vacuum' ? 'vacuum' : `reorg ${kind}` };
  }

  /** Indexes built on the loaded table, the phase's metrics, page maps, invariants. */
  private afterPhase(phase: PhaseSpec, index: number, { affected, label, reads }: PhaseOutcome): void {
    const { engine, indexes } = this;
    // Indexes are created on the loaded table: after the first phase that leaves rows.
    if (indexes && !indexes.built && engine.liveRows() > 0) {
      indexes.build(this.liveRowList(), this.store.lens, this.capacity);
      engine.indexesBuilt?.();
    }
    const metrics = engine.metrics();
    if (indexes) metrics.index_entries = indexes.entries();
    if (indexes?.hasLimit) {
      metrics.rows_rejected += this.indexRefusedRows;
      metrics.updates_rejected += this.indexRefusedUpdates;
      metrics.rows_rejected_by_index = this.indexRefusedRows;
      metrics.updates_rejected_by_index = this.indexRefusedUpdates;
    }
    if (this.offRow) metrics.row_overflow_pages = this.offRow.store.pages(this.offRow.total);
    if (this.ool) Object.assign(metrics, this.ool.metrics());
    const index_pages = indexes ? indexes.pages(metrics.pages) : NO_INDEX_PAGES;
    const allocation_pages = allocationPages(this.format, this.layout, metrics, index_pages);
    const phaseResult: PhaseResult = {
      op: phase.op,
      label,
      rows_affected: affected,
      metrics,
      index_pages,
      allocation_pages,
      ...(reads ? { reads } : {}),
    };
    this.phases.push(phaseResult);
    this.obs?.phaseEnd?.(index, phaseResult);
    const next = this.spec.workload[index + 1];
    if (next?.op === 'reorg' && phase.op !== 'reorg' && this.maxCells > 0) {
      this.keepPageMap(index, `before reorg ${next.kind}`);
    }
    if (this.options.checkInvariants) {
      const broken = engine.checkInvariants();
      if (broken.length > 0)
        throw new Error(
          `page engine invariants broken after phase ${index + 1} (${label}): ${broken.slice(0, 5).join('; ')}${broken.length > 5 ? ` (and ${broken.length - 5} more)` : ''}`,
        );
    }
    this.options.afterPhase?.(engine, index);
  }

  /** rowBytes over the live rows, asked of the engine row by row (an engine without rowSizes). */
  private rowSizes(): RowSizes {
    let min = Infinity;
    let max = 0;
    let sum = 0;
    let count = 0;
    for (let r = 0; r < this.nextRow; r++) {
      if (!this.engine.isLive(r)) continue;
      const b = this.engine.rowBytes(r);
      if (b < min) min = b;
      if (b > max) max = b;
      sum += b;
      count++;
    }
    return { min, max, sum, count };
  }

  /** The physical row sizes of the live rows at the end, and the schema's range. */
  private rowBytes(): RowBytes {
    const { min, max, sum, count } = this.engine.rowSizes?.() ?? this.rowSizes();
    const layout = this.schema;
    return {
      min: count ? min : 0,
      avg: count ? Math.round((sum / count) * 100) / 100 : 0,
      max,
      logical_max: layout.logicalMaxBytes,
      schema_min: layout.minRowBytes,
      schema_max: layout.maxRowBytes,
    };
  }

  private result(): StorageRunResult {
    const { engine, indexes, spec, format } = this;
    // The state after the last phase is the final state: no need to count the pages again.
    const last = this.phases[this.phases.length - 1];
    const final = last ? { ...last.metrics } : engine.metrics();
    if (!last && indexes) final.index_entries = indexes.entries();
    const result: StorageRunResult = {
      engine: this.resolved,
      notes: [
        ...format.notes(spec.engine, this.resolved),
        ...spec.engine.ignored.map((k) => `${k} does not apply to ${format.id} and is ignored`),
        ...indexNotes(spec, format),
        ...reorgNotes(spec, format),
        ...contentNotes(spec, format),
      ],
      row_bytes: this.rowBytes(),
      phases: this.phases,
      final,
      index_pages: last ? last.index_pages : NO_INDEX_PAGES,
      allocation_pages: last ? last.allocation_pages : allocationPages(format, this.layout, final, NO_INDEX_PAGES),
      pageMaps: this.pageMaps,
      memory_bytes:
        engine.memoryBytes() +
        this.store.lens.byteLength +
        (this.store.levels?.byteLength ?? 0) +
        (this.ool?.memoryBytes() ?? 0) +
        (indexes?.memoryBytes() ?? 0) +
        this.keys.memoryBytes(),
    };
    if (this.maxCells > 0) this.keepPageMap(spec.workload.length - 1, 'final');
    return result;
  }

  /** The page map after phase `index`, reduced to the map's cells; whoever asked is told. */
  private keepPageMap(index: number, label: string): void {
    const pm = { after_phase: index, label, map: reducePageMap(this.engine.pageMap(), this.maxCells) };
    this.pageMaps.push(pm);
    this.options.onPageMap?.(this.engine, pm);
  }
}

/** The format's allocation overhead for the table's data and index pages. */
function allocationPages(format: StorageFormat, layout: TableLayout, metrics: EngineMetrics, index: IndexPages): AllocationPages {
  const by_kind = format.allocationPages({
    pageBytes: layout.geometry.pageBytes,
    dataPages: metrics.pages,
    indexPages: index.by_index,
    metrics,
  });
  return { total: Object.values(by_kind).reduce((a, b) => a + b, 0), by_kind };
}

/** Index settings this format does not read are ignored, with a note; and what the format says about the indexes. */
function indexNotes(spec: StorageSpec, format: StorageFormat): string[] {
  const ignored = spec.table.indexes.flatMap((idx) =>
    INDEX_OPTION_KEYS.filter((k) => idx[k] !== undefined && !format.indexSettings.includes(k)).map(
      (k) => `${k} of index ${idx.name} does not apply to ${format.id} and is ignored`,
    ),
  );
  return [...ignored, ...(format.indexNotes?.(spec.table) ?? [])];
}

/** Column storage and value compressibility mean something to a format that moves and compresses values (PostgreSQL); elsewhere a note. */
function contentNotes(spec: StorageSpec, format: StorageFormat): string[] {
  const notes = spec.table.columns
    .filter((c) => c.storage !== undefined && !format.columnStorage)
    .map((c) => `storage of column ${c.name} does not apply to ${format.id} and is ignored`);
  if (!format.outOfLine && givesCompressibility(spec.workload))
    notes.push(`compressibility does not apply to ${format.id} (it stores values as they are) and is ignored`);
  return notes;
}

/** Reorganisations that mean nothing to this format run as no-ops, with a note. */
function reorgNotes(spec: StorageSpec, format: StorageFormat): string[] {
  const kinds = new Set(spec.workload.flatMap((p) => (p.op === 'reorg' ? [p.kind] : [])));
  return [...kinds].flatMap((kind) => format.reorgNote(kind) ?? []);
}

/** Every row a picker hands out, in order (for an observer of a scan's rows). */
function pickAll(picker: RowPicker): Int32Array {
  const all = new Int32Array(picker.total);
  let n = 0;
  while (n < all.length) {
    const got = picker.next(all.subarray(n));
    if (got === 0) break;
    n += got;
  }
  return all.subarray(0, n);
}

function orderName(o: { kind: string; s?: number }): string {
  return o.kind === 'zipf' ? `zipf(${o.s})` : o.kind;
}
