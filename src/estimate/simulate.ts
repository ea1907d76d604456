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
import { metric } from '../heap/metrics.js';
import { Prng, mixKeys } from '../util/prng.js';
import { lengthSampler } from '../workload/dist.js';
import { plannedInserts, runStorage } from '../workload/runner.js';
import { fillRowLengths, type LengthPairs } from './rows.js';

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
  for (let r = 0; r < task.replicates; r++) {
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
  const spec: StorageSpec = { name: task.name, seed: replicateSeed(task.seed, r), table: task.table, engine: task.engine, workload: phases };
  const format = getFormat(task.engine.format)!;
  const geometry = format.layout(task.table, task.engine).geometry;
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
  const format = getFormat(task.engine.format)!;
  const layout = format.layout(task.table, task.engine);
  const resolved = format.resolve(task.engine, layout);
  const seed = replicateSeed(task.seed, r);
  const spec: StorageSpec = { name: task.name, seed, table: task.table, engine: task.engine, workload: [] };
  const n = src.rows;
  const engine = format.createEngine(layout, resolved, spec, n);
  const width = layout.varying.length;
  const lens = new Uint16Array(Math.max(1, n * width));
  const shift = layout.fixedNotNullBytes - src.measuredFixedBytes;
  const lo = layout.fixedNotNullBytes;
  const hi = layout.logicalMaxBytes;
  const onLayout = (len: number) => Math.min(hi, Math.max(lo, len + shift));

  // Which measured rows this replicate replays, and their lengths now.
  const pick = Prng.derive(seed, 'rows');
  const nowLen = new Int32Array(n);
  const sampleIns = src.dists ? lengthSampler(src.dists.insert) : null;
  const sampleNow = src.dists ? lengthSampler(src.dists.now) : null;
  for (let row = 0; row < n; row++) {
    let ins: number;
    if (src.pairs) {
      const k = pick.int(src.pairs.insert.length);
      ins = src.pairs.insert[k]!;
      nowLen[row] = src.pairs.now[k]!;
    } else {
      ins = sampleIns!(pick);
      nowLen[row] = sampleNow!(pick);
    }
    const base = row * width;
    fillRowLengths(layout, onLayout(ins), lens, base);
    engine.insert(row, format.rowBytes(layout, lens, base), format.logicalBytes(layout, lens, base));
  }
  engine.commit();
  // Growth: every row goes from its insert length to its length now, in random order, one statement.
  const order = Int32Array.from({ length: n }, (_, i) => i);
  const shuffle = Prng.derive(seed, 'update-order');
  for (let i = n - 1; i > 0; i--) {
    const j = shuffle.int(i + 1);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  const info = { indexedChanged: false };
  for (let i = 0; i < n; i++) {
    const row = order[i]!;
    if (!engine.isLive(row)) continue;
    const base = row * width;
    fillRowLengths(layout, onLayout(nowLen[row]!), lens, base);
    engine.update(row, format.rowBytes(layout, lens, base), format.logicalBytes(layout, lens, base), info);
  }
  engine.commit();
  const before = engine.metrics();
  const packed = packedPages(engine, n, layout.geometry);
  let after: EngineMetrics | undefined;
  if (task.reorg) {
    engine.reorg(task.reorg);
    after = engine.metrics();
  }
  return figures(before, after, packed, task.movedMetric);
}
