/**
 * The phase runner: generates rows and changes from the workload with seeded streams, sizes them with
 * the format, and drives the page engine. Pure: no I/O.
 */
import type { PhaseSpec, SetSpec, StorageSpec, ValueSpec } from '../config/spec.js';
import { getFormat, indexGeometries } from '../formats/registry.js';
import { INDEX_SETTING_KEYS } from '../config/index-settings.js';
import type { AllocationPageCounts, OffRowStore, StorageFormat } from '../formats/format.js';
import { MAX_STORED_LEN, NULL_LEN, type ColumnLayout, type ResolvedEngine, type TableLayout } from '../layout/table-layout.js';
import type { EngineMetrics, ReorgKind, StorageEngine } from '../heap/engine.js';
import type { HeapEventSink } from '../heap/events.js';
import { grown } from '../util/arrays.js';
import type { IndexPages } from '../btree/geometry.js';
import { IndexSet, NO_INDEX_PAGES } from '../btree/index-set.js';
import { Prng } from '../util/prng.js';
import { resolveCount } from '../util/units.js';
import { lengthSampler, type Sampler } from './dist.js';
import { selectRows } from './select.js';
import { reducePageMap, type PageMapCells } from './page-map.js';

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
}

/**
 * The operations of a run as the engine accepted them: what pg-check replays against a live database,
 * so both see the same rows, the same changes and the same transaction boundaries.
 */
export interface WorkloadObserver {
  phaseStart?(index: number, phase: PhaseSpec): void;
  /** An operation on one row is about to reach the engine (accepted or not: the next call says). */
  beforeRow?(op: 'insert' | 'update' | 'delete', row: number): void;
  /** A new row; its varying lengths are lens[base …] (NULL_LEN for NULL). */
  insert?(row: number, lens: Uint16Array, base: number): void;
  /** A changed row: the columns its `set` names, and its lengths after the change. */
  update?(row: number, columns: readonly ColumnLayout[], lens: Uint16Array, base: number): void;
  delete?(row: number): void;
  /** A transaction ends (the statement or the row, as the phase says). */
  commit?(): void;
  reorg?(kind: ReorgKind): void;
  phaseEnd?(index: number, result: PhaseResult): void;
}

/** Rows a workload inserts in total (percentages resolved against the rows at that point). */
export function plannedInserts(workload: readonly PhaseSpec[]): number {
  let live = 0;
  let inserted = 0;
  for (const ph of workload) {
    if (ph.op === 'insert') {
      const n = resolveCount(ph.rows, live);
      live += n;
      inserted += n;
    } else if (ph.op === 'delete') {
      live -= Math.min(live, resolveCount(ph.rows, live));
    }
  }
  return inserted;
}

/** A table's rows: the stored lengths of the varying columns, NULL_LEN for NULL. */
class RowStore {
  lens: Uint16Array;
  constructor(
    readonly width: number,
    capacity: number,
  ) {
    this.lens = new Uint16Array(Math.max(1, width * Math.max(16, capacity)));
  }
  ensure(row: number): void {
    this.lens = grown(this.lens, (row + 1) * this.width);
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

/** How to generate a column's stored length. */
interface ColumnGen {
  col: ColumnLayout;
  nullShare: number;
  sample: Sampler | null;
}

function toBytes(col: ColumnLayout, length: number): number {
  if (!col.variableType) return col.fixedBytes;
  const units = Math.min(length, col.declaredLength);
  const bytes = col.bytesOfLength ? col.bytesOfLength(units) : col.character ? Math.round(units * col.bytesPerChar) : units;
  return Math.min(bytes, col.maxBytes, MAX_STORED_LEN);
}

export function runStorage(spec: StorageSpec, options: RunOptions = {}): StorageRunResult {
  return new WorkloadRun(spec, options).run();
}

/** One phase's outcome before its metrics are read. */
interface PhaseOutcome {
  affected: number;
  label: string;
}

/**
 * One run of a workload on one engine: the rows' stored lengths, the engine, the indexes, and the phase
 * results as they accumulate. Each phase kind is one method.
 */
class WorkloadRun {
  private readonly format: StorageFormat;
  private readonly layout: TableLayout;
  private readonly resolved: ResolvedEngine;
  private readonly capacity: number;
  private readonly engine: StorageEngine;
  private readonly width: number;
  private readonly store: RowStore;
  private readonly obs: WorkloadObserver | undefined;
  private readonly indexes: IndexSet | null;
  /** MVCC indexes keep an entry per version: they follow commits and deletes. */
  private readonly trackVersions: boolean;
  private readonly scratch: Uint16Array;
  /** Off-row records (SQL Server row overflow), when the format keeps any. */
  private readonly offRow: OffRowTally | null;
  private readonly maxCells: number;
  private readonly phases: PhaseResult[] = [];
  private readonly pageMaps: StorageRunResult['pageMaps'] = [];
  private nextRow = 0;

  constructor(
    private readonly spec: StorageSpec,
    private readonly options: RunOptions,
  ) {
    this.format = getFormat(spec.engine.format);
    this.layout = this.format.layout(spec.table, spec.engine);
    this.resolved = this.format.resolve(spec.engine, this.layout);
    this.capacity = plannedInserts(spec.workload);
    this.engine = this.format.createEngine(this.layout, this.resolved, spec, this.capacity);
    if (options.events) this.engine.setEvents(options.events);
    options.onEngine?.(this.engine);
    this.width = this.layout.varying.length;
    this.store = new RowStore(this.width, this.capacity);
    this.obs = options.observer;
    // Indexes grow with updates only where every update that is not heap-only adds entries (MVCC).
    this.indexes = spec.table.indexes.length > 0 ? new IndexSet(indexGeometries(this.format, spec.table, this.layout), this.width, this.format.versionedIndexes) : null;
    this.trackVersions = this.indexes !== null && this.format.versionedIndexes;
    this.scratch = new Uint16Array(Math.max(1, this.width));
    const offRowStore = this.format.offRow?.(this.layout);
    this.offRow = offRowStore ? new OffRowTally(offRowStore, this.capacity) : null;
    this.maxCells = options.pageMapMaxCells ?? 0;
  }

  run(): StorageRunResult {
    this.spec.workload.forEach((phase, index) => {
      const rng = Prng.derive(this.spec.seed, 'phase', index, phase.op);
      this.obs?.phaseStart?.(index, phase);
      const outcome = this.runPhase(phase, rng);
      this.afterPhase(phase, index, outcome);
    });
    return this.result();
  }

  private runPhase(phase: PhaseSpec, rng: Prng): PhaseOutcome {
    switch (phase.op) {
      case 'insert':
        return this.insert(phase, rng);
      case 'update':
        return this.update(phase, rng);
      case 'delete':
        return this.delete(phase, rng);
      case 'reorg':
        return this.reorg(phase.kind);
    }
  }

  /** End of a transaction (a statement, or one row with `transaction: row`). */
  private commitTransaction(): void {
    this.engine.commit();
    if (this.trackVersions) this.indexes!.commit();
    this.obs?.commit?.();
  }

  private liveRowIds(): Int32Array {
    const out = new Int32Array(this.engine.liveRows());
    let k = 0;
    for (let r = 0; r < this.nextRow; r++) if (this.engine.isLive(r)) out[k++] = r;
    return out;
  }

  private insert(phase: Extract<PhaseSpec, { op: 'insert' }>, rng: Prng): PhaseOutcome {
    const { engine, format, layout, width, indexes, obs } = this;
    const n = resolveCount(phase.rows, engine.liveRows());
    const gens: ColumnGen[] = layout.varying.map((col) => columnGen(col, phase.values[col.name]));
    this.store.ensure(this.nextRow + n);
    const lens = this.store.lens;
    let affected = 0;
    for (let i = 0; i < n; i++) {
      const row = this.nextRow++;
      const base = row * width;
      for (let v = 0; v < width; v++) {
        const g = gens[v]!;
        if (g.nullShare > 0 && rng.float() < g.nullShare) lens[base + v] = NULL_LEN;
        else lens[base + v] = g.sample ? toBytes(g.col, g.sample(rng)) : g.col.variableType ? g.col.maxBytes : g.col.fixedBytes;
      }
      const logical = format.logicalBytes(layout, lens, base);
      obs?.beforeRow?.('insert', row);
      if (engine.insert(row, format.rowBytes(layout, lens, base, logical), logical)) {
        affected++;
        if (indexes?.built) indexes.append(row, lens, base);
        this.offRow?.set(row, lens, base);
        obs?.insert?.(row, lens, base);
      }
    }
    engine.commit();
    obs?.commit?.();
    return { affected, label: `insert ${n} ${n === 1 ? 'row' : 'rows'}` };
  }

  private update(phase: Extract<PhaseSpec, { op: 'update' }>, rng: Prng): PhaseOutcome {
    const { engine, format, layout, width, indexes, obs, scratch } = this;
    const live = this.liveRowIds();
    const n = resolveCount(phase.rows, live.length);
    const changes = Object.entries(phase.set).map(([name, set]) => {
      const col = layout.columns.find((c) => c.name === name)!;
      return { col, set, sample: setSampler(set) };
    });
    const info = { indexedChanged: changes.some((ch) => ch.col.indexed) };
    const lens = this.store.lens;
    const perRow = phase.transaction === 'row';
    const setColumns = changes.map((ch) => ch.col);
    const changedColumns = new Set(setColumns.map((c) => c.index));
    let affected = 0;
    selectRows(live, n, phase.order, rng, (row) => {
      const base = row * width;
      for (let v = 0; v < width; v++) scratch[v] = lens[base + v]!;
      for (const ch of changes) applySet(ch.col, ch.set, ch.sample, lens, base, rng);
      const logical = format.logicalBytes(layout, lens, base);
      obs?.beforeRow?.('update', row);
      if (engine.update(row, format.rowBytes(layout, lens, base, logical), logical, info)) {
        affected++;
        if (indexes?.built && engine.lastUpdateNewIndexEntries) indexes.addVersion(row, lens, base, changedColumns);
        this.offRow?.set(row, lens, base);
        obs?.update?.(row, setColumns, lens, base);
      } else {
        for (let v = 0; v < width; v++) lens[base + v] = scratch[v]!;
      }
      if (perRow) this.commitTransaction();
    });
    if (!perRow) this.commitTransaction();
    return { affected, label: `update ${n} ${n === 1 ? 'row' : 'rows'} (${orderName(phase.order)}, ${Object.keys(phase.set).join(', ')})` };
  }

  private delete(phase: Extract<PhaseSpec, { op: 'delete' }>, rng: Prng): PhaseOutcome {
    const live = this.liveRowIds();
    const n = resolveCount(phase.rows, live.length);
    const perRow = phase.transaction === 'row';
    let affected = 0;
    selectRows(live, n, phase.order, rng, (row) => {
      if (!this.engine.isLive(row)) return;
      this.obs?.beforeRow?.('delete', row);
      this.engine.delete(row);
      this.offRow?.clear(row);
      if (this.trackVersions) this.indexes!.remove(row, this.store.lens, row * this.width);
      affected++;
      this.obs?.delete?.(row);
      if (perRow) this.commitTransaction();
    });
    if (!perRow) this.commitTransaction();
    return { affected, label: `delete ${n} ${n === 1 ? 'row' : 'rows'} (${orderName(phase.order)})` };
  }

  private reorg(kind: ReorgKind): PhaseOutcome {
    this.engine.reorg(kind);
    this.obs?.reorg?.(kind);
    const indexes = this.indexes;
    if (indexes?.built) {
      if (kind === 'rebuild') indexes.build(this.liveRowIds(), this.store.lens, this.nextRow);
      else if (this.format.versionedIndexes && (kind === 'vacuum' || kind === 'compact')) indexes.vacuum(this.engine.liveRows());
    }
    return { affected: this.engine.liveRows(), label: kind === 'vacuum' ? 'vacuum' : `reorg ${kind}` };
  }

  /** Indexes built on the loaded table, the phase's metrics, page maps, invariants. */
  private afterPhase(phase: PhaseSpec, index: number, { affected, label }: PhaseOutcome): void {
    const { engine, indexes } = this;
    // Indexes are created on the loaded table: after the first phase that leaves rows.
    if (indexes && !indexes.built && engine.liveRows() > 0) {
      indexes.build(this.liveRowIds(), this.store.lens, this.capacity);
      engine.indexesBuilt?.();
    }
    const metrics = engine.metrics();
    if (indexes) metrics.index_entries = indexes.entries();
    if (this.offRow) metrics.row_overflow_pages = this.offRow.store.pages(this.offRow.total);
    const index_pages = indexes ? indexes.pages(metrics.pages) : NO_INDEX_PAGES;
    const allocation_pages = allocationPages(this.format, this.layout, metrics, index_pages);
    const phaseResult: PhaseResult = { op: phase.op, label, rows_affected: affected, metrics, index_pages, allocation_pages };
    this.phases.push(phaseResult);
    this.obs?.phaseEnd?.(index, phaseResult);
    const next = this.spec.workload[index + 1];
    if (next?.op === 'reorg' && phase.op !== 'reorg' && this.maxCells > 0) {
      this.keepPageMap(index, `before reorg ${next.kind}`);
    }
    if (this.options.checkInvariants) {
      const broken = engine.checkInvariants();
      if (broken.length > 0) throw new Error(`page engine invariants broken after phase ${index + 1} (${label}): ${broken.slice(0, 5).join('; ')}${broken.length > 5 ? ` (and ${broken.length - 5} more)` : ''}`);
    }
    this.options.afterPhase?.(engine, index);
  }

  /** The physical row sizes of the live rows at the end. */
  private rowBytes(): RowBytes {
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
    const layout = this.layout;
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
      notes: [...format.notes(spec.engine, this.resolved), ...spec.engine.ignored.map((k) => `${k} does not apply to ${format.id} and is ignored`), ...indexNotes(spec, format), ...reorgNotes(spec, format)],
      row_bytes: this.rowBytes(),
      phases: this.phases,
      final,
      index_pages: last ? last.index_pages : NO_INDEX_PAGES,
      allocation_pages: last ? last.allocation_pages : allocationPages(format, this.layout, final, NO_INDEX_PAGES),
      pageMaps: this.pageMaps,
      memory_bytes: engine.memoryBytes() + this.store.lens.byteLength + (indexes?.memoryBytes() ?? 0),
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
  const by_kind = format.allocationPages({ pageBytes: layout.geometry.pageBytes, dataPages: metrics.pages, indexPages: index.by_index, metrics });
  return { total: Object.values(by_kind).reduce((a, b) => a + b, 0), by_kind };
}

/** Index settings this format does not read are ignored, with a note; and what the format says about the indexes. */
function indexNotes(spec: StorageSpec, format: StorageFormat): string[] {
  const ignored = spec.table.indexes.flatMap((idx) =>
    INDEX_SETTING_KEYS.filter((k) => idx[k] !== undefined && !format.indexSettings.includes(k)).map((k) => `${k} of index ${idx.name} does not apply to ${format.id} and is ignored`),
  );
  return [...ignored, ...(format.indexNotes?.(spec.table) ?? [])];
}

/** Reorganisations that mean nothing to this format run as no-ops, with a note. */
function reorgNotes(spec: StorageSpec, format: StorageFormat): string[] {
  const kinds = new Set(spec.workload.flatMap((p) => (p.op === 'reorg' ? [p.kind] : [])));
  return [...kinds].flatMap((kind) => format.reorgNote(kind) ?? []);
}

function columnGen(col: ColumnLayout, spec: ValueSpec | undefined): ColumnGen {
  return {
    col,
    nullShare: col.nullable ? (spec?.null ?? 0) : 0,
    sample: spec?.length ? lengthSampler(spec.length) : null,
  };
}

function setSampler(set: SetSpec): Sampler | null {
  if (set.kind === 'length' || set.kind === 'grow') return lengthSampler(set.dist);
  return null;
}

function applySet(col: ColumnLayout, set: SetSpec, sample: Sampler | null, lens: Uint16Array, base: number, rng: Prng): void {
  if (!col.varying) return; // a fixed NOT NULL column: a new value of the same size
  const at = base + col.varIndex;
  if (set.kind === 'changed') return;
  const nullShare = col.nullable ? (set.null ?? 0) : 0;
  if (nullShare > 0 && rng.float() < nullShare) {
    lens[at] = NULL_LEN;
    return;
  }
  if (set.kind === 'null') {
    if (lens[at] === NULL_LEN) lens[at] = col.variableType ? col.maxBytes : col.fixedBytes;
    return;
  }
  if (!col.variableType) {
    lens[at] = col.fixedBytes;
    return;
  }
  const s = sample!(rng);
  if (set.kind === 'length') {
    lens[at] = toBytes(col, s);
  } else {
    const old = lens[at] === NULL_LEN ? 0 : lens[at]!;
    const added = col.bytesOfLength ? col.bytesOfLength(s) - col.bytesOfLength(0) : col.character ? Math.round(s * col.bytesPerChar) : s;
    lens[at] = Math.min(old + added, col.maxBytes, MAX_STORED_LEN);
  }
}

function orderName(o: { kind: string; s?: number }): string {
  return o.kind === 'zipf' ? `zipf(${o.s})` : o.kind;
}
