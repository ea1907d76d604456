/**
 * The phase runner: generates rows and changes from the workload with seeded streams, sizes them with
 * the format, and drives the page engine. Pure: no I/O. The run's state is RunState (run-state.ts); each
 * phase kind is a function of its own (phase-insert.ts, phase-update.ts, phase-delete.ts,
 * phase-select.ts, phase-read-lob.ts, phase-reorg.ts); this file runs them in turn and collects the
 * results (run-types.ts says what they hold).
 */
import type { PhaseSpec, StorageSpec } from '../config/spec.js';
import { INDEX_OPTION_KEYS } from '../config/index-settings.js';
import type { StorageFormat } from '../formats/format.js';
import type { TableLayout } from '../layout/table-layout.js';
import type { EngineMetrics, RowSizes } from '../heap/engine.js';
import type { IndexPages } from '../btree/geometry.js';
import { NO_INDEX_PAGES } from '../btree/index-set.js';
import { Prng } from '../util/prng.js';
import { reducePageMap } from './page-map.js';
import { givesCompressibility } from './row-values.js';
import { RunState } from './run-state.js';
import type { AllocationPages, PhaseOutcome, PhaseResult, RowBytes, RunOptions, StorageRunResult } from './run-types.js';
import { insertPhase } from './phase-insert.js';
import { updatePhase } from './phase-update.js';
import { deletePhase } from './phase-delete.js';
import { selectPhase } from './phase-select.js';
import { readLobPhase } from './phase-read-lob.js';
import { reorgPhase } from './phase-reorg.js';

export type { AllocationPages, PhaseResult, RunOptions, StorageRunResult, WorkloadObserver } from './run-types.js';

export function runStorage(spec: StorageSpec, options: RunOptions = {}): StorageRunResult {
  return new WorkloadRun(spec, options).run();
}

/** One run of a workload on one engine: its state (RunState), the phases run in turn, their results as they accumulate. */
class WorkloadRun extends RunState {
  private readonly phases: PhaseResult[] = [];
  private readonly pageMaps: StorageRunResult['pageMaps'] = [];
  private readonly maxCells: number;

  constructor(spec: StorageSpec, options: RunOptions) {
    super(spec, options);
    this.maxCells = options.pageMapMaxCells ?? 0;
  }

  run(): StorageRunResult {
    // when: before_load: CREATE INDEX on the empty table; every row then enters the indexes by insertion.
    if (this.indexes && this.spec.table.indexes[0]?.when === 'before_load') {
      this.indexes.build({ count: 0, at: () => 0 }, this.store.lens, this.capacity);
      this.engine.indexesBuilt?.();
    }
    this.spec.workload.forEach((phase, index) => {
      const rng = Prng.derive(this.spec.seed, 'phase', index, phase.op);
      this.obs?.phaseStart?.(index, phase);
      this.options.onPhase?.(index, 'start');
      this.phaseIndex = index;
      const outcome = this.runPhase(phase, index, rng);
      this.options.onPhase?.(index, 'end');
      this.afterPhase(phase, index, outcome);
    });
    return this.result();
  }

  private runPhase(phase: PhaseSpec, index: number, rng: Prng): PhaseOutcome {
    switch (phase.op) {
      case 'insert':
        return insertPhase(this, phase, index);
      case 'update':
        return updatePhase(this, phase, index, rng);
      case 'delete':
        return deletePhase(this, phase, rng);
      case 'reorg':
        return reorgPhase(this, phase.kind);
      case 'select':
        return selectPhase(this, phase, index);
      case 'read_lob':
        return readLobPhase(this, phase, index);
      case 'snapshot':
        this.holdSnapshot(phase.action === 'open');
        return { affected: 0, label: phase.action === 'open' ? 'open a snapshot (another session)' : 'close the snapshot' };
    }
  }

  /** Indexes built on the loaded table, the phase's metrics, page maps, invariants. */
  private afterPhase(phase: PhaseSpec, index: number, { affected, label, reads }: PhaseOutcome): void {
    const { engine, indexes } = this;
    // Indexes are created on the loaded table: after the first phase that leaves rows.
    if (indexes && !indexes.built && engine.liveRows() > 0) {
      const rows = this.liveRowList();
      // An entry over the index's limit: the server refuses the CREATE INDEX, the run stops there.
      const over = indexes.hasLimit ? indexes.buildOversize(rows, this.store.lens) : null;
      if (over) this.refuse('create index', over, over.row);
      indexes.build(rows, this.store.lens, this.capacity);
      engine.indexesBuilt?.();
    }
    const metrics = engine.metrics();
    if (indexes) metrics.index_entries = indexes.entries();
    if (this.offRow) metrics.row_overflow_pages = this.offRow.store.pages(this.offRow.total);
    if (this.ool) Object.assign(metrics, this.ool.metrics());
    const index_pages = engine.indexPages?.() ?? (indexes ? indexes.pages(metrics.pages) : NO_INDEX_PAGES);
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
export function allocationPages(format: StorageFormat, layout: TableLayout, metrics: EngineMetrics, index: IndexPages): AllocationPages {
  const by_kind = format.allocation.allocationPages({
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
    INDEX_OPTION_KEYS.filter((k) => idx[k] !== undefined && !format.indexes.indexSettings.includes(k)).map(
      (k) => `${k} of index ${idx.name} does not apply to ${format.id} and is ignored`,
    ),
  );
  return [...ignored, ...(format.indexes.indexNotes?.(spec.table) ?? [])];
}

/** Column storage and value compressibility mean something to a format that moves and compresses values (PostgreSQL); elsewhere a note. */
function contentNotes(spec: StorageSpec, format: StorageFormat): string[] {
  const notes = spec.table.columns
    .filter((c) => c.storage !== undefined && !format.rows.columnStorage)
    .map((c) => `storage of column ${c.name} does not apply to ${format.id} and is ignored`);
  if (!format.allocation.outOfLine && givesCompressibility(spec.workload))
    notes.push(`compressibility does not apply to ${format.id} (it stores values as they are) and is ignored`);
  return notes;
}

/** Reorganisations that mean nothing to this format run as no-ops, with a note. */
function reorgNotes(spec: StorageSpec, format: StorageFormat): string[] {
  const kinds = new Set(spec.workload.flatMap((p) => (p.op === 'reorg' ? [p.kind] : [])));
  return [...kinds].flatMap((kind) => format.pages.reorgNote(kind) ?? []);
}
