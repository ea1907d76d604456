/**
 * The maintenance what-if: what the change costs against living with the current setting.
 *
 * - "current": the table as the (fitted) model has it now, a reorg at day 0 and then every W days;
 *   each day new rows arrive short and grow (the fitted growth), so forwarded rows build up again
 *   between the runs. Each run's exclusive table locks are counted [R3][S-ASE-BET].
 * - "recommended": the setting applied and the table rebuilt once (reorg rebuild / ALTER TABLE … MOVE:
 *   every page written, one exclusive table lock for the whole run [R3][R5]); the same daily growth,
 *   and no reorg afterwards.
 *
 * Both run on the page engine from the same rows and the same daily arrivals (common random numbers),
 * on the estimate's sample, extrapolated to the table like every other figure (src/estimate/stats.ts).
 * The daily growth and the schedule are inputs (estimate.maintenance); their defaults are assumed.
 * Pure: no I/O.
 */
import { getFormat } from '../formats/registry.js';
import type { MaintenanceCommands } from '../formats/format.js';
import type { ReorgKind } from '../heap/engine.js';
import { Prng } from '../util/prng.js';
import type { ReserveKnob } from './knob.js';
import { replicateSeed, RowsTable, type CandidateTask, type SimSource } from './simulate.js';
import { extrapolate } from './stats.js';

interface MaintenanceDay {
  day: number;
  /** At the end of the day (before the day's reorg, on a reorg day). */
  forwarded_rows: number;
  forwarded_rows_interval: [number, number];
  pages: number;
  /** On a reorg day: forwarded rows after it. */
  forwarded_rows_after_reorg?: number;
}

interface MaintenanceRun {
  day: number;
  /** Forwarded rows the run found (the peak before it). */
  forwarded_rows_before: number;
  exclusive_table_locks: number;
  exclusive_table_locks_interval: [number, number];
}

export interface MaintenanceScenario {
  setting: string;
  value: number;
  days: MaintenanceDay[];
  runs: MaintenanceRun[];
  /** The one-off rebuild that applies the setting to existing pages (recommended only). */
  rebuild?: { pages_written: number; pages_written_interval: [number, number]; exclusive_table_locks: number };
}

export interface MaintenancePlan {
  every_days: number;
  days: number;
  /** Rows added (and grown) per day, in the table and in the sample. */
  growth_rows_per_day: number;
  sample_growth_per_day: number;
  /** The periodic reorganisation the engine runs: ASE reorg forwarded_rows; SQL Server and Oracle rebuild the table. */
  periodic: ReorgKind;
  /** The periodic run rebuilds the table: one exclusive table lock a run, whatever the table's size. */
  periodicRebuilds: boolean;
}

interface Replicate {
  forwarded: number[];
  after: number[];
  pages: number[];
  runs: { day: number; before: number; locks: number }[];
  rebuildPages?: number;
}

/** One replicate of one scenario: the fitted table, then `days` days of growth. */
function replicate(
  task: CandidateTask,
  src: Extract<SimSource, { kind: 'rows' }>,
  r: number,
  plan: MaintenancePlan,
  rebuildFirst: boolean,
): Replicate {
  const seed = replicateSeed(task.seed, r);
  const t = new RowsTable(task, src, seed, src.rows + plan.days * plan.sample_growth_per_day);
  t.loadAndGrow();
  const e = t.engine;
  const out: Replicate = { forwarded: [], after: [], pages: [], runs: [] };
  const run = (day: number) => {
    const before = e.metrics();
    e.reorg(plan.periodic);
    const after = e.metrics();
    out.runs.push({ day, before: before.forwarded_rows, locks: after.exclusive_table_locks - before.exclusive_table_locks });
    out.after[day] = after.forwarded_rows;
  };
  if (rebuildFirst) {
    e.reorg('rebuild');
    out.rebuildPages = e.metrics().pages;
  } else run(0);
  const m0 = e.metrics();
  out.forwarded.push(m0.forwarded_rows);
  out.pages.push(m0.pages);
  const pick = Prng.derive(seed, 'maintenance', 'rows');
  const order = Prng.derive(seed, 'maintenance', 'order');
  for (let day = 1; day <= plan.days; day++) {
    const first = t.count;
    for (let i = 0; i < plan.sample_growth_per_day; i++) t.insertRow(pick);
    e.commit();
    t.grow(first, t.count, order);
    const m = e.metrics();
    out.forwarded.push(m.forwarded_rows);
    out.pages.push(m.pages);
    if (!rebuildFirst && day % plan.every_days === 0) run(day);
  }
  return out;
}

/** One scenario over every replicate, extrapolated to the table. */
export function simulateScenario(
  task: CandidateTask,
  src: Extract<SimSource, { kind: 'rows' }>,
  plan: MaintenancePlan,
  rebuildFirst: boolean,
  scale: { tableRows: number; sampleRows: number },
  setting: { setting: string; value: number },
): MaintenanceScenario {
  const reps = Array.from({ length: task.replicates }, (_, r) => replicate(task, src, r, plan, rebuildFirst));
  const S = scale.sampleRows;
  const N = scale.tableRows;
  const ex = (values: number[]) =>
    extrapolate(
      values.map((v) => v / S),
      N,
      S,
    );
  const days: MaintenanceDay[] = [];
  for (let d = 0; d <= plan.days; d++) {
    const f = ex(reps.map((x) => x.forwarded[d]!));
    const day: MaintenanceDay = {
      day: d,
      forwarded_rows: Math.round(f.value),
      forwarded_rows_interval: [Math.round(f.interval[0]), Math.round(f.interval[1])],
      pages: Math.round(ex(reps.map((x) => x.pages[d]!)).value),
    };
    if (d > 0 && reps[0]!.after[d] !== undefined) day.forwarded_rows_after_reorg = Math.round(ex(reps.map((x) => x.after[d] ?? 0)).value);
    days.push(day);
  }
  const runs: MaintenanceRun[] = reps[0]!.runs.map((run, i) => {
    // A rebuild takes one lock whatever the size; reorg forwarded_rows one per 8-page transaction, which scales.
    const locks = plan.periodicRebuilds ? { value: 1, interval: [1, 1] as [number, number] } : ex(reps.map((x) => x.runs[i]!.locks));
    return {
      day: run.day,
      forwarded_rows_before: Math.round(ex(reps.map((x) => x.runs[i]!.before)).value),
      exclusive_table_locks: Math.round(locks.value),
      exclusive_table_locks_interval: [Math.round(locks.interval[0]), Math.round(locks.interval[1])],
    };
  });
  const out: MaintenanceScenario = { ...setting, days, runs };
  if (rebuildFirst) {
    const p = ex(reps.map((x) => x.rebuildPages ?? 0));
    out.rebuild = {
      pages_written: Math.round(p.value),
      pages_written_interval: [Math.round(p.interval[0]), Math.round(p.interval[1])],
      exclusive_table_locks: 1,
    };
  }
  return out;
}

/** What each format runs: the periodic reorganisation and the change, with what they hold and write (the format's routine says). */
export function maintenanceCommands(knob: ReserveKnob, table: string, value: number): MaintenanceCommands {
  const m = getFormat(knob.format).knob.maintenance?.(table, value);
  if (!m) throw new Error(`format ${knob.format} has no maintenance commands`);
  return m;
}

/** Totals over the what-if's days: the first run (today's backlog), the periodic runs after it. */
export interface MaintenanceTotals {
  first_run_locks: number;
  first_run_forwarded: number;
  periodic_runs: number;
  periodic_locks: number;
  periodic_locks_per_run: number;
  peak_forwarded: number;
  recommended_end_forwarded?: number;
}

export function maintenanceTotals(current: MaintenanceScenario, recommended: MaintenanceScenario | undefined): MaintenanceTotals {
  const first = current.runs.find((r) => r.day === 0);
  const later = current.runs.filter((r) => r.day > 0);
  const locks = later.reduce((s, r) => s + r.exclusive_table_locks, 0);
  const out: MaintenanceTotals = {
    first_run_locks: first?.exclusive_table_locks ?? 0,
    first_run_forwarded: first?.forwarded_rows_before ?? 0,
    periodic_runs: later.length,
    periodic_locks: locks,
    periodic_locks_per_run: later.length ? Math.round(locks / later.length) : 0,
    peak_forwarded: Math.max(0, ...later.map((r) => r.forwarded_rows_before)),
  };
  if (recommended) out.recommended_end_forwarded = recommended.days[recommended.days.length - 1]!.forwarded_rows;
  return out;
}
