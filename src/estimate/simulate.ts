/**
 * One estimate candidate: replay the table's rows (a sample of them) on the page engine with the knob
 * at one value, once per replicate seed, and report what a DBA would measure. Pure: no I/O.
 *
 * Replicate r uses the same random streams for every candidate and format (common random numbers), so
 * the differences between candidates are the knob's doing, not sampling noise.
 */
import type { Dist, EngineSpec, PhaseSpec, StorageSpec, TableDef } from '../config/spec.js';
import { getFormat } from '../formats/registry.js';
import type { PageGeometry } from '../heap/engine.js';
import type { EngineMetrics, ReorgKind, StorageEngine } from '../heap/engine.js';
import type { StorageFormat } from '../formats/format.js';
import type { TableLayout } from '../layout/table-layout.js';
import { metric } from '../heap/metrics.js';
import { Prng, mixKeys } from '../util/prng.js';
import { lengthSampler } from '../workload/dist.js';
import { runStorage } from '../workload/runner.js';
import { plannedInserts } from '../workload/planned-work.js';
import { fillRowLengths, type LengthPairs } from './rows.js';
import { growOrder, rowDraws, shuffled } from './draws.js';

/** Where the rows come from. */
export type SimSource =
  /** The config's workload (or one built from per-column histograms), scaled to the sample. */
  | { kind: 'workload'; workload: PhaseSpec[] }
  /** Per-row data lengths at insert and now: resampled pairs (CSV) or independent draws (optdiag). */
  | {
      kind: 'rows';
      rows: number;
      pairs?: LengthPairs;
      dists?: { insert: Dist; now: Dist };
      /**
       * Lengths now from `now`; each row inserted at floor + insertShare × (now − floor): the growth model
       * the estimate fits to the evidence (src/estimate/fit.ts). 0: inserted at the floor, 1: never grown.
       */
      grown?: { now: Dist; floor: number; insertShare: number };
      /** Fixed NOT NULL bytes of the layout the lengths were measured on (shifted onto other formats). */
      measuredFixedBytes: number;
    };

export interface CandidateTask {
  name: string;
  seed: number;
  table: TableDef;
  /** Engine settings with the knob at this candidate's value. */
  engine: EngineSpec;
  replicates: number;
  /**
   * Only replicates `replicate` … `replicateEnd` − 1 (default: this one alone): a pool splits a candidate
   * into parts for its threads. Default: all.
   */
  replicate?: number;
  replicateEnd?: number;
  source: SimSource;
  reorg?: ReorgKind;
  /** The engine metric reported as forwarded_rows (the knob's movedMetric); default forwarded_rows. */
  movedMetric?: string;
}

/** One replicate's figures, at the end of the workload (before the reorg whose cost is measured). */
export interface ReplicateFigures {
  rows: number;
  pages: number;
  /** Rows that no longer fit where they were: forwarded (ASE), migrated (Oracle), moved to a new page (PostgreSQL). */
  forwarded_rows: number;
  updates: number;
  hot_updates: number;
  table_scan_page_reads: number;
  /** Pages the same rows take packed fully (no reservation, nothing forwarded), first fit in row order. */
  packed_pages: number;
  space_used_pct: number;
  /** The reorg's exclusive table locks (ASE reorg forwarded_rows), and pages after it. */
  reorg_exclusive_table_locks: number;
  pages_after_reorg: number;
}

export function replicateSeed(seed: number, replicate: number): number {
  return mixKeys(seed, ['estimate', replicate]);
}

export function simulateCandidate(task: CandidateTask): ReplicateFigures[] {
  const out: ReplicateFigures[] = [];
  const [from, to] = task.replicate === undefined ? [0, task.replicates] : [task.replicate, task.replicateEnd ?? task.replicate + 1];
  for (let r = from; r < to; r++) {
    out.push(task.source.kind === 'workload' ? simulateWorkload(task, task.source.workload, r) : simulateRows(task, task.source, r));
  }
  return out;
}

/** Pages the live rows take when packed fully in row-id order (first fit on the last page). */
function packedPages(engine: StorageEngine, rowIds: number, g: PageGeometry): number {
  let pages = 0;
  let used = 0;
  let count = 0;
  for (let r = 0; r < rowIds; r++) {
    if (!engine.isLive(r)) continue;
    const need = engine.rowBytes(r) + g.slotBytes;
    if (pages === 0 || count >= g.maxRowsPerPage || used + need > g.usableBytes) {
      pages++;
      used = 0;
      count = 0;
    }
    used += need;
    count++;
  }
  return pages;
}

function figures(before: EngineMetrics, after: EngineMetrics | undefined, packed: number, moved = 'forwarded_rows'): ReplicateFigures {
  return {
    rows: before.rows,
    pages: before.pages,
    forwarded_rows: metric(before, moved),
    updates: before.updates,
    hot_updates: before.hot_updates,
    table_scan_page_reads: before.table_scan_page_reads,
    packed_pages: packed,
    space_used_pct: before.space_used_pct,
    reorg_exclusive_table_locks: after ? after.exclusive_table_locks - before.exclusive_table_locks : 0,
    pages_after_reorg: after ? after.pages : before.pages,
  };
}

function simulateWorkload(task: CandidateTask, workload: PhaseSpec[], r: number): ReplicateFigures {
  const phases: PhaseSpec[] = task.reorg ? [...workload, { op: 'reorg', kind: task.reorg }] : workload;
  const spec: StorageSpec = {
    name: task.name,
    seed: replicateSeed(task.seed, r),
    table: task.table,
    engine: task.engine,
    workload: phases,
  };
  const format = getFormat(task.engine.format)!;
  const geometry = format.rows.layout(task.table, task.engine).geometry;
  const rowIds = plannedInserts(workload);
  const last = workload.length - 1;
  let packed = 0;
  const res = runStorage(spec, {
    afterPhase: (engine, index) => {
      if (index === last) packed = packedPages(engine, rowIds, geometry);
    },
  });
  const before = res.phases[last]!.metrics;
  const after = task.reorg ? res.phases[last + 1]!.metrics : undefined;
  return figures(before, after, packed, task.movedMetric);
}

function simulateRows(task: CandidateTask, src: Extract<SimSource, { kind: 'rows' }>, r: number): ReplicateFigures {
  const t = new RowsTable(task, src, replicateSeed(task.seed, r), src.rows);
  t.loadAndGrow();
  const before = t.engine.metrics();
  const packed = packedPages(t.engine, src.rows, t.layout.geometry);
  let after: EngineMetrics | undefined;
  if (task.reorg) {
    t.engine.reorg(task.reorg);
    after = t.engine.metrics();
  }
  return figures(before, after, packed, task.movedMetric);
}

/** The row lengths a RowsTable keeps the bytes of (a row longer than its layout's shortest by more is worked out each time). */
const BYTES_KEPT = 1 << 16;

/**
 * A table of measured rows on the page engine: each row drawn from the source (a resampled pair, two
 * independent lengths, or the fitted growth model), inserted at its length then, grown to its length
 * now. `capacity` leaves room for rows added later (the maintenance what-if adds rows day by day).
 */
export class RowsTable {
  readonly format: StorageFormat;
  readonly layout: TableLayout;
  readonly engine: StorageEngine;
  /** One row's stored lengths: the scratch fillRowLengths writes a length's columns into. */
  private readonly lens: Uint16Array;
  /**
   * A row's stored bytes and data bytes are a function of its data length alone (fillRowLengths spreads
   * the length over the columns the same way every time, and a format's rowBytes is pure), so they are
   * worked out once per length and looked up after: most of an estimate's time went on doing it per
   * row, for lengths that repeat thousands of times. Indexed by the length on this layout − its
   * fixed NOT NULL bytes (the shortest row), −1 while not yet worked out.
   */
  private readonly rowBytesAt: Int32Array;
  private readonly logicalBytesAt: Int32Array;
  private readonly nowLen: Int32Array;
  private readonly shift: number;
  /** insertRow's samplers, made at its first row (loadAndGrow reads the replicate's draws instead). */
  private sampleIns: ((rng: Prng) => number) | null = null;
  private sampleNow: ((rng: Prng) => number) | null = null;
  /** Rows inserted so far (row ids 0 .. count − 1). */
  count = 0;
  private readonly info = { indexedChanged: false };

  constructor(
    task: CandidateTask,
    private readonly src: Extract<SimSource, { kind: 'rows' }>,
    private readonly seed: number,
    capacity: number,
  ) {
    this.format = getFormat(task.engine.format)!;
    this.layout = this.format.rows.layout(task.table, task.engine);
    const resolved = this.format.resolve(task.engine, this.layout);
    const spec: StorageSpec = { name: task.name, seed, table: task.table, engine: task.engine, workload: [] };
    this.engine = this.format.pages.createEngine(this.layout, resolved, spec, capacity);
    this.lens = new Uint16Array(Math.max(1, this.layout.varying.length));
    const lengths = Math.min(BYTES_KEPT, this.layout.logicalMaxBytes - this.layout.fixedNotNullBytes + 1);
    this.rowBytesAt = new Int32Array(Math.max(0, lengths) + 1).fill(-1);
    this.logicalBytesAt = new Int32Array(Math.max(0, lengths) + 1).fill(-1);
    this.nowLen = new Int32Array(capacity);
    this.shift = this.layout.fixedNotNullBytes - src.measuredFixedBytes;
  }

  /** Where a row of `len` measured data bytes stands in rowBytesAt and logicalBytesAt, worked out when new. */
  private bytesFor(len: number): number {
    const lo = this.layout.fixedNotNullBytes;
    const onLayout = Math.min(this.layout.logicalMaxBytes, Math.max(lo, len + this.shift));
    // The last place is scratch for a length not kept: worked out every time.
    const scratch = this.rowBytesAt.length - 1;
    const k = Math.min(onLayout - lo, scratch);
    if (k === scratch || this.rowBytesAt[k] === -1) {
      fillRowLengths(this.layout, onLayout, this.lens, 0);
      this.rowBytesAt[k] = this.format.rows.rowBytes(this.layout, this.lens, 0);
      this.logicalBytesAt[k] = this.format.rows.logicalBytes(this.layout, this.lens, 0);
    }
    return k;
  }

  /** Draw the next row (its length at insert and now) and insert it. */
  insertRow(pick: Prng): number {
    const src = this.src;
    if (!src.pairs && !this.sampleNow) {
      this.sampleIns = src.dists ? lengthSampler(src.dists.insert) : null;
      this.sampleNow = lengthSampler(src.dists ? src.dists.now : src.grown!.now);
    }
    if (src.pairs) {
      const k = pick.int(src.pairs.insert.length);
      return this.place(src.pairs.insert[k]!, src.pairs.now[k]!);
    }
    if (src.grown) {
      const now = this.sampleNow!(pick);
      return this.place(this.grownInsert(now), now);
    }
    const ins = this.sampleIns!(pick);
    return this.place(ins, this.sampleNow!(pick));
  }

  /** A row of the fitted growth model: inserted insertShare of the way from the floor to its length now. */
  private grownInsert(now: number): number {
    const g = this.src.grown!;
    return Math.min(now, g.floor + Math.round(g.insertShare * Math.max(0, now - g.floor)));
  }

  /** Insert the next row at data length `ins`; it grows to `now` later. */
  private place(ins: number, now: number): number {
    const row = this.count++;
    this.nowLen[row] = now;
    const k = this.bytesFor(ins);
    this.engine.insert(row, this.rowBytesAt[k]!, this.logicalBytesAt[k]!);
    return row;
  }

  /** Grow rows first .. end − 1 to their length now, in random order, as one statement. */
  grow(first: number, end: number, shuffle: Prng): void {
    this.growInOrder(shuffled(first, end, shuffle));
  }

  private growInOrder(order: Int32Array): void {
    for (let i = 0; i < order.length; i++) {
      const row = order[i]!;
      if (!this.engine.isLive(row)) continue;
      const k = this.bytesFor(this.nowLen[row]!);
      this.engine.update(row, this.rowBytesAt[k]!, this.logicalBytesAt[k]!, this.info);
    }
    this.engine.commit();
  }

  /**
   * The table's history as the source describes it: every row inserted, then every row grown in random
   * order. The draws are the replicate's (src/estimate/draws.ts): the same as insertRow and grow take them.
   */
  loadAndGrow(): void {
    const src = this.src;
    const n = src.rows;
    if (src.pairs) {
      const [k] = rowDraws(this.seed, n, { pairs: src.pairs.insert.length });
      for (let row = 0; row < n; row++) this.place(src.pairs.insert[k![row]!]!, src.pairs.now[k![row]!]!);
    } else if (src.grown) {
      const [now] = rowDraws(this.seed, n, { now: src.dists?.now ?? src.grown.now });
      for (let row = 0; row < n; row++) this.place(this.grownInsert(now![row]!), now![row]!);
    } else {
      const [ins, now] = rowDraws(this.seed, n, src.dists!);
      for (let row = 0; row < n; row++) this.place(ins![row]!, now![row]!);
    }
    this.engine.commit();
    this.growInOrder(growOrder(this.seed, n));
  }
}
