/**
 * What a run of a workload gives back (StorageRunResult, a PhaseResult a phase) and what its caller may
 * hand it (RunOptions, a WorkloadObserver): the runner's interface, apart from its code (runner.ts).
 */
import type { PhaseSpec } from '../config/spec.js';
import type { AllocationPageCounts } from '../formats/format.js';
import type { ColumnLayout, ResolvedEngine } from '../layout/table-layout.js';
import type { EngineMetrics, ReorgKind, StorageEngine } from '../heap/engine.js';
import type { HeapEventSink } from '../heap/events.js';
import type { IndexPages } from '../btree/geometry.js';
import type { PageMapCells } from './page-map.js';
import type { ReadResult } from './reads.js';

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

export interface RowBytes {
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
  /** The open transaction ends in ROLLBACK (a phase with `rollback: true`). */
  rollback?(): void;
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

/** One phase's outcome before its metrics are read. */
export interface PhaseOutcome {
  affected: number;
  label: string;
  reads?: ReadResult;
}
