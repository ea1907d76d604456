/**
 * The maintenance what-if of the estimate's primary format (src/estimate/maintenance.ts), for measured
 * rows on a format whose rows are forwarded or migrated: living with the current setting and its
 * periodic reorg, against the recommended setting applied by one rebuild. Pure.
 */
import { resolveCount } from '../util/units.js';
import type { EstimateConfig } from './types.js';
import type { FormatEstimate, Verdict } from './types.js';
import type { ReserveKnob } from './knob.js';
import {
  maintenanceCommands,
  maintenanceTotals,
  simulateScenario,
  type MaintenancePlan,
  type MaintenanceScenario,
  type MaintenanceTotals,
} from './maintenance.js';
import { candidateTask, currentCand, fmtPct, type Plan } from './plan.js';
import { groupedNumber } from '../util/numbers.js';

export interface MaintenanceWhatIf {
  every_days: number;
  days: number;
  growth_rows_per_day: number;
  /** Inputs left at their assumed defaults (estimate.maintenance). */
  assumed: string[];
  periodic_command: string;
  change_commands: string[];
  costs: string[];
  current: MaintenanceScenario;
  recommended?: MaintenanceScenario;
  totals: MaintenanceTotals;
  summary: string;
}

export function whatIf(
  cfg: EstimateConfig,
  knob: ReserveKnob,
  primary: FormatEstimate,
  plan: Plan,
  verdict: Verdict,
): MaintenanceWhatIf | undefined {
  if (plan.source.kind !== 'rows' || knob.movedMetric !== 'forwarded_rows' || verdict.status === 'evidence_not_reproduced')
    return undefined;
  const m = cfg.maintenance;
  const growth = Math.max(1, resolveCount(m.growth_per_day, plan.tableRows));
  const mp: MaintenancePlan = {
    every_days: m.every_days,
    days: m.days,
    growth_rows_per_day: growth,
    sample_growth_per_day: Math.max(1, Math.round((growth * plan.sampleRows) / plan.tableRows)),
    periodic: knob.reorg ?? 'rebuild',
    periodicRebuilds: maintenanceCommands(knob, cfg.table.name, 0).periodicRebuilds,
  };
  const scale = { tableRows: plan.tableRows, sampleRows: plan.sampleRows };
  const cur = currentCand(knob, cfg.engine);
  const current = simulateScenario(candidateTask(cfg, knob, cfg.engine, cur, plan.source), plan.source, mp, false, scale, {
    setting: String(cur.setting),
    value: cur.value,
  });
  const recValue = primary.forwarding_target.value;
  const recommended =
    knob.key === 'none' || recValue === cur.value
      ? undefined
      : simulateScenario(
          candidateTask(cfg, knob, cfg.engine, { value: recValue, setting: recValue, specials: [], refined: false }, plan.source),
          plan.source,
          mp,
          true,
          scale,
          { setting: String(recValue), value: recValue },
        );
  const cmds = maintenanceCommands(knob, cfg.table.name, recValue);
  const totals = maintenanceTotals(current, recommended);
  return {
    every_days: m.every_days,
    days: m.days,
    growth_rows_per_day: growth,
    assumed: m.assumed,
    periodic_command: cmds.periodic,
    change_commands: cmds.change,
    costs: cmds.costs,
    current,
    ...(recommended ? { recommended } : {}),
    totals,
    summary: summary(cfg, knob, primary, mp, plan.tableRows, current, recommended, totals),
  };
}

function mb(pages: number, pageBytes: number): string {
  const bytes = pages * pageBytes;
  return bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(2)} GB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}

function summary(
  cfg: EstimateConfig,
  knob: ReserveKnob,
  primary: FormatEstimate,
  mp: MaintenancePlan,
  tableRows: number,
  current: MaintenanceScenario,
  recommended: MaintenanceScenario | undefined,
  totals: MaintenanceTotals,
): string {
  const rows = (n: number, of: number) => `${groupedNumber(n)} forwarded rows (${fmtPct((100 * n) / Math.max(1, of))})`;
  const of = Math.max(1, tableRows + mp.days * mp.growth_rows_per_day);
  const setting = knob.key === 'none' ? 'the table as it is' : `${knob.key} ${current.setting}`;
  const t = totals;
  let s =
    `living with ${setting} and running \`${maintenanceCommands(knob, cfg.table.name, 0).periodic}\` every ${mp.every_days} days: ` +
    (mp.periodicRebuilds
      ? `the first run (now) removes the ${groupedNumber(t.first_run_forwarded)} forwarded rows there are; then ${t.periodic_runs} runs in ${mp.days} days, each rewriting the whole table ` +
        `(about ${groupedNumber(current.days[0]!.pages)} pages, ${mb(current.days[0]!.pages, primary.page_bytes)})`
      : `the first run (now) moves the ${groupedNumber(t.first_run_forwarded)} forwarded rows there are and takes ${groupedNumber(t.first_run_locks)} exclusive table locks; ` +
        `then ${t.periodic_runs} runs in ${mp.days} days take ${groupedNumber(t.periodic_locks)} (about ${groupedNumber(t.periodic_locks_per_run)} a run)`) +
    `, with up to ${rows(t.peak_forwarded, of)} built up before each (${groupedNumber(mp.growth_rows_per_day)} new rows a day, inserted short and grown)`;
  if (recommended?.rebuild) {
    const end = recommended.days[recommended.days.length - 1]!;
    s +=
      `; changing to ${knob.key} ${recommended.setting} costs one rebuild now: ${groupedNumber(recommended.rebuild.pages_written)} pages written (${mb(recommended.rebuild.pages_written, primary.page_bytes)}), ` +
      `one exclusive table lock for its whole run, and then ${rows(end.forwarded_rows, of)} by day ${mp.days} without any reorg`;
  }
  return s;
}
