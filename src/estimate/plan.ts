/**
 * The sample the estimate simulates (the workload scaled to it, or measured rows resampled), the
 * candidate tasks, and the current setting as a candidate. Pure.
 */
import type { EngineSpec, PhaseSpec } from '../config/spec.js';
import { plannedInserts } from '../workload/planned-work.js';
import { resolveCount, type Count } from '../util/units.js';
import type { EstimateConfig, Growth } from './types.js';
import { lengthsNow } from './length-model.js';
import { r2, type Cand } from './figures.js';
import type { ReserveKnob, Setting } from './knob.js';
import type { CandidateTask, SimSource } from './simulate.js';

// ---- sample plan ------------------------------------------------------------------------------

function scaleCount(c: Count, f: number): Count {
  return c.kind === 'count' ? { kind: 'count', n: c.n > 0 ? Math.max(1, Math.round(c.n * f)) : 0 } : c;
}

/** The workload with every absolute row count multiplied by f (percentages and `all` unchanged). */
export function scaleWorkload(workload: readonly PhaseSpec[], f: number): PhaseSpec[] {
  return workload.map((p) => (p.op === 'reorg' || p.op === 'snapshot' ? p : { ...p, rows: scaleCount(p.rows, f) }) as PhaseSpec);
}

/** Live rows after the workload. */
export function plannedLive(workload: readonly PhaseSpec[]): number {
  let live = 0;
  for (const p of workload) {
    if (p.op === 'insert') live += resolveCount(p.rows, live);
    else if (p.op === 'delete') live -= Math.min(live, resolveCount(p.rows, live));
  }
  return live;
}

export interface Plan {
  source: SimSource;
  tableRows: number;
  sampleRows: number;
  sampled: boolean;
}

/** The spread a source's lengths are simulated at when none was fitted: the whole range (maximum entropy). */
export const ASSUMED_SPREAD = 1;

/**
 * The sample the candidates are simulated on. `growth` is the fitted growth (src/estimate/fit.ts) for
 * sources whose insert lengths are unknown (the tools' figures); by default rows are inserted at the
 * shortest length and their lengths now spread over the whole range.
 */
export function samplePlan(
  cfg: EstimateConfig,
  measuredFixedBytes: number,
  growth: Growth = { insertShare: 0, spread: ASSUMED_SPREAD },
): Plan {
  const src = cfg.source;
  if (src.kind === 'workload' || src.kind === 'columns') {
    const planned = plannedInserts(src.workload);
    const live = Math.max(1, plannedLive(src.workload));
    const tableRows = cfg.rows ?? live;
    const g = tableRows / live;
    const sampled = planned * g > cfg.sample_rows;
    const f = sampled ? cfg.sample_rows / planned : g;
    const workload = scaleWorkload(src.workload, f);
    return { source: { kind: 'workload', workload }, tableRows, sampleRows: Math.max(1, plannedLive(workload)), sampled };
  }
  const tableRows = cfg.rows ?? (src.kind === 'csv' ? src.pairs.insert.length : src.rows);
  const n = Math.min(cfg.sample_rows, tableRows);
  let source: SimSource;
  if (src.kind === 'csv') source = { kind: 'rows', rows: n, pairs: src.pairs, measuredFixedBytes };
  else if (src.kind === 'evidence' || cfg.fit) {
    source = {
      kind: 'rows',
      rows: n,
      grown: { now: lengthsNow(src.model, growth.spread), floor: src.min, insertShare: growth.insertShare },
      measuredFixedBytes,
    };
  } else source = { kind: 'rows', rows: n, dists: { insert: src.insert, now: src.now }, measuredFixedBytes };
  return { source, tableRows, sampleRows: n, sampled: n < tableRows };
}

/** The current setting of the config's format as a candidate (the knob `none`: the table as it is). */
export function currentCand(knob: ReserveKnob, engine: EngineSpec): Cand {
  if (knob.key === 'none') return { value: 0, setting: 0, specials: ['current'], refined: false };
  const current = engine[knob.key] as Setting;
  const sp = knob.specials.find((s) => s.setting === current);
  return { value: sp ? sp.value : current === 'max' ? knob.max : current, setting: current, specials: ['current'], refined: false };
}

export function candidateTask(cfg: EstimateConfig, knob: ReserveKnob, engine: EngineSpec, c: Cand, source: SimSource): CandidateTask {
  return {
    name: cfg.name,
    seed: cfg.seed,
    table: cfg.table,
    engine: knob.engineWith(engine, c.setting),
    replicates: cfg.seeds,
    source,
    reorg: knob.reorg,
    movedMetric: knob.movedMetric,
  };
}

export function fmtPct(x: number): string {
  return `${x < 0.01 && x > 0 ? x.toPrecision(2) : r2(x)}%`;
}
