/**
 * For a format with no reserve knob whose sorted rebuild packs pages to a setting (StorageFormat.knob.rebuildFill,
 * InnoDB's innodb_fill_factor): the story's rows are loaded, the table rebuilt at each value, the growth
 * replayed, and the pages split during the growth counted. The fullest value with no split on any seed is
 * recommended, with the pages it costs. Beside it, the story as given with the clustered key inserted
 * ascending and at random (StorageFormat.knob.keyOrderColumn). Pure: no I/O.
 */
import type { EngineSpec, PhaseSpec, StorageSpec } from '../config/spec.js';
import { getFormat } from '../formats/registry.js';
import type { RebuildFill } from '../formats/format.js';
import { metric } from '../heap/metrics.js';
import { runStorage } from '../workload/runner.js';
import { groupedNumber } from '../util/numbers.js';
import { replicateSeed } from './simulate.js';
import type { EstimateConfig } from './types.js';

export interface RebuildFillRow {
  value: number;
  /** Pages right after the rebuild, and at the end of the growth (the largest over the seeds). */
  pages_after_rebuild: number;
  pages_at_end: number;
  /** Pages split during the growth after the rebuild (the largest over the seeds). */
  splits: number;
}

export interface KeyOrderRow {
  order: 'ascending' | 'random';
  pages: number;
  splits: number;
}

export interface RebuildFillStudy {
  key: string;
  rows: RebuildFillRow[];
  /** The fullest value with no split; absent when even the emptiest splits. */
  recommended?: number;
  sentence: string;
  commands: string[];
  source: string;
  assumed: string[];
  key_order?: { column: string; rows: KeyOrderRow[] };
}

interface Story {
  load: PhaseSpec[];
  growth: PhaseSpec[];
}

/** The leading inserts (the load) and what follows, reorgs dropped (the growth); undefined when nothing follows. */
export function splitStory(workload: readonly PhaseSpec[]): Story | undefined {
  const steps = workload.filter((p) => p.op !== 'reorg');
  const n = steps.findIndex((p) => p.op !== 'insert');
  if (n <= 0) return undefined;
  return { load: steps.slice(0, n), growth: steps.slice(n) };
}

function run(cfg: EstimateConfig, engine: EngineSpec, workload: PhaseSpec[], r: number) {
  const spec: StorageSpec = { name: cfg.name, seed: replicateSeed(cfg.seed, r), table: cfg.table, engine, workload };
  return runStorage(spec).phases;
}

function fillRow(cfg: EstimateConfig, fill: RebuildFill, value: number, story: Story): RebuildFillRow {
  const engine = fill.engineWith(cfg.engine, value);
  const overflow = fill.overflowMetric;
  const workload: PhaseSpec[] = [...story.load, { op: 'reorg', kind: 'rebuild' }, ...story.growth];
  const row: RebuildFillRow = { value, pages_after_rebuild: 0, pages_at_end: 0, splits: 0 };
  for (let r = 0; r < cfg.seeds; r++) {
    const phases = run(cfg, engine, workload, r);
    const rebuilt = phases[story.load.length]!.metrics;
    const end = phases[phases.length - 1]!.metrics;
    row.pages_after_rebuild = Math.max(row.pages_after_rebuild, rebuilt.pages);
    row.pages_at_end = Math.max(row.pages_at_end, end.pages);
    row.splits = Math.max(row.splits, metric(end, overflow) - metric(rebuilt, overflow));
  }
  return row;
}

/** The workload with `column`'s inserted values in `order`. */
function withKeyOrder(workload: readonly PhaseSpec[], column: string, order: KeyOrderRow['order']): PhaseSpec[] {
  return workload.map((p) => {
    if (p.op !== 'insert') return p;
    const v = p.values[column] ?? { null: 0 };
    const domain = { frequency: { kind: 'uniform' as const }, ...v.domain, order };
    return { ...p, values: { ...p.values, [column]: { ...v, domain } } };
  });
}

function keyOrder(cfg: EstimateConfig, workload: PhaseSpec[], column: string, overflow: string): KeyOrderRow[] {
  const steps = workload.filter((p) => p.op !== 'reorg');
  return (['ascending', 'random'] as const).map((order) => {
    const row: KeyOrderRow = { order, pages: 0, splits: 0 };
    for (let r = 0; r < cfg.seeds; r++) {
      const end = run(cfg, cfg.engine, withKeyOrder(steps, column, order), r).at(-1)!.metrics;
      row.pages = Math.max(row.pages, end.pages);
      row.splits = Math.max(row.splits, metric(end, overflow));
    }
    return row;
  });
}

function sentenceOf(key: string, rows: RebuildFillRow[], rec: RebuildFillRow | undefined): string {
  const full = rows[0]!;
  if (!rec)
    return `even ${key} ${rows.at(-1)!.value} leaves too little room: the growth splits ${groupedNumber(rows.at(-1)!.splits)} pages after the rebuild`;
  const cost = rec.pages_after_rebuild - full.pages_after_rebuild;
  const costPct = full.pages_after_rebuild ? Math.round((1000 * cost) / full.pages_after_rebuild) / 10 : 0;
  return (
    `${key} ${rec.value} is the fullest rebuild after which the growth splits no page on any seed` +
    ` (${groupedNumber(rec.pages_after_rebuild)} pages after the rebuild, +${groupedNumber(cost)} or +${costPct}% over ${key} ${full.value}, which splits ${groupedNumber(full.splits)})`
  );
}

/** The study for the sample workload `workload`, or undefined when the format declares no rebuild fill or the story has no growth. */
export function rebuildFillStudy(cfg: EstimateConfig, workload: PhaseSpec[] | undefined): RebuildFillStudy | undefined {
  const f = getFormat(cfg.engine.format);
  const fill = f.knob.rebuildFill;
  const story = workload && splitStory(workload);
  if (!fill || !workload || !story) return undefined;
  const rows: RebuildFillRow[] = [];
  for (let v = fill.max; v >= fill.min; v -= fill.step) {
    rows.push(fillRow(cfg, fill, v, story));
    if (rows.at(-1)!.splits === 0) break;
  }
  const rec = rows.find((x) => x.splits === 0);
  const column = f.knob.keyOrderColumn?.(cfg.table);
  return {
    key: fill.key,
    rows,
    ...(rec ? { recommended: rec.value } : {}),
    sentence: sentenceOf(fill.key, rows, rec),
    commands: rec ? fill.apply(cfg.table.name, rec.value, cfg.engine) : [],
    source: fill.source,
    assumed: [
      'the rows are loaded, the table rebuilt once, then the growth runs (the workload as given, reorgs dropped)',
      'a setting the rebuild needs beside it is set with it (InnoDB: MERGE_THRESHOLD at most half the fill factor, else emptier pages merge as rows change)',
      `${fill.key} tried from ${fill.max} down in steps of ${fill.step}`,
    ],
    ...(column ? { key_order: { column, rows: keyOrder(cfg, workload, column, fill.overflowMetric) } } : {}),
  };
}
