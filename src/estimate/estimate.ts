/**
 * rowsim estimate: sweep the reserve knob of a format (ASE exp_row_size, PostgreSQL fillfactor, Oracle
 * PCTFREE) over the values the DBMS accepts, replay the table's rows at each value with several seeds,
 * and recommend (1) the least reserve that keeps forwarded rows under a target and (2) the value with
 * the fewest table-scan page reads (pages + forwarded-row hops).
 *
 * Two rounds: a coarse grid over the whole range plus the special values, then every value between the
 * coarse neighbours of each recommendation. The figures of a value depend only on (config, seed, value)
 * — the replicate streams are shared by all values — so refining never changes a figure already seen,
 * and a higher target can never give a larger recommendation.
 *
 * Pure apart from the `runner` it is given (in-process or a piscina pool): no I/O, no clock.
 */
import type { FormatId } from '../config/schema.js';
import type { EngineSpec, PhaseSpec } from '../config/spec.js';
import { getFormat } from '../formats/registry.js';
import { plannedInserts } from '../workload/runner.js';
import { resolveCount, type Count } from '../util/units.js';
import type { EstimateConfig } from './config.js';
import { compareReserve, engineFor, reserveKnob, type ReserveKnob, type Setting, type SpecialName } from './knob.js';
import { extrapolate, type Extrapolated } from './stats.js';
import type { CandidateTask, ReplicateFigures, SimSource } from './simulate.js';
import { simulateCandidate } from './simulate.js';

/** Runs candidate tasks; results in task order. */
export type CandidateRunner = (tasks: CandidateTask[]) => Promise<ReplicateFigures[][]>;

/** Runs every task in this thread (tests, benchmarks, --workers 0). */
export const inProcessRunner: CandidateRunner = async (tasks) => tasks.map(simulateCandidate);

/** Coarse grid: about this many steps over the accepted range. */
export const COARSE_STEPS = 32;
/** Refinement: at most this many extra values per bracket. */
export const REFINE_MAX = 24;

export interface CandidateFigures {
  value: number;
  setting: string;
  specials: SpecialName[];
  label: string;
  refined: boolean;
  forwarded_rows: number;
  forwarded_rows_pct: number;
  pages: number;
  table_scan_page_reads: number;
  packed_pages: number;
  space_overhead_pct: number;
  hot_updates_pct?: number;
  reorg?: { kind: string; exclusive_table_locks: number; pages_after: number };
  spread: { forwarded_rows_pct: [number, number]; pages: [number, number]; table_scan_page_reads: [number, number] };
  interval: { forwarded_rows_pct: [number, number]; pages: [number, number]; table_scan_page_reads: [number, number] };
}

export interface Recommendation {
  value: number;
  why: string;
  met?: boolean;
}

export interface FormatEstimate {
  format: FormatId;
  knob: ReserveKnob['key'];
  limits: Record<string, number>;
  candidates: CandidateFigures[];
  forwarding_target: Recommendation;
  min_scan_reads: Recommendation;
  commands: string[];
  command_note: string;
  alternative_commands: string[];
}

export interface SampleInfo {
  source: EstimateConfig['source']['kind'];
  table_rows: number;
  sampled: boolean;
  rows_per_seed: number;
  pages_per_seed: number;
  seeds: number;
}

export interface EstimateOutcome {
  sample: SampleInfo;
  formats: FormatEstimate[];
  notes: string[];
}

// ---- sample plan ------------------------------------------------------------------------------

function scaleCount(c: Count, f: number): Count {
  return c.kind === 'count' ? { kind: 'count', n: c.n > 0 ? Math.max(1, Math.round(c.n * f)) : 0 } : c;
}

/** The workload with every absolute row count multiplied by f (percentages and `all` unchanged). */
export function scaleWorkload(workload: readonly PhaseSpec[], f: number): PhaseSpec[] {
  return workload.map((p) => (p.op === 'reorg' ? p : { ...p, rows: scaleCount(p.rows, f) }) as PhaseSpec);
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

interface Plan {
  source: SimSource;
  tableRows: number;
  sampleRows: number;
  sampled: boolean;
}

export function samplePlan(cfg: EstimateConfig, measuredFixedBytes: number): Plan {
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
  const source: SimSource =
    src.kind === 'csv'
      ? { kind: 'rows', rows: n, pairs: src.pairs, measuredFixedBytes }
      : { kind: 'rows', rows: n, dists: { insert: src.insert, now: src.now }, measuredFixedBytes };
  return { source, tableRows, sampleRows: n, sampled: n < tableRows };
}

// ---- candidates -------------------------------------------------------------------------------

interface Cand {
  value: number;
  setting: Setting;
  specials: SpecialName[];
  refined: boolean;
}

function gridValues(knob: ReserveKnob, spec: EstimateConfig['candidates'] | undefined): Cand[] {
  const out: Cand[] = [];
  const numeric = (v: Setting): number => (v === 'max' ? knob.max : v);
  if (Array.isArray(spec)) {
    for (const v of spec) {
      const sp = knob.specials.find((s) => s.setting === v);
      out.push(sp ? { value: sp.value, setting: sp.setting, specials: [sp.name], refined: false } : { value: numeric(v), setting: numeric(v), specials: [], refined: false });
    }
    return out;
  }
  const lo = spec ? Math.max(knob.min, numeric(spec.from)) : knob.min;
  const hi = spec ? Math.min(knob.max, numeric(spec.to)) : knob.max;
  const step = spec?.step ?? Math.max(1, Math.ceil((hi - lo) / COARSE_STEPS));
  for (let v = lo; v < hi; v += step) out.push({ value: v, setting: v, specials: [], refined: false });
  if (hi >= lo) out.push({ value: hi, setting: hi, specials: [], refined: false });
  for (const s of knob.specials) out.push({ value: s.value, setting: s.setting, specials: [s.name], refined: false });
  return out;
}

/** Merge candidates with the same value (a special keeps its setting, e.g. 0 for the server default). */
function dedupe(cands: Cand[]): Cand[] {
  const by = new Map<number, Cand>();
  for (const c of cands) {
    const old = by.get(c.value);
    if (!old) by.set(c.value, { ...c, specials: [...c.specials] });
    else {
      for (const s of c.specials) if (!old.specials.includes(s)) old.specials.push(s);
      if (c.specials.length && !old.specials.length) old.setting = c.setting;
      old.refined &&= c.refined;
    }
  }
  return [...by.values()].sort((a, b) => a.value - b.value);
}

// ---- aggregation --------------------------------------------------------------------------------

function r2(x: number): number {
  return Math.round(x * 100) / 100;
}
function r4(x: number): number {
  return Math.round(x * 10000) / 10000;
}
function rInt(x: number): number {
  return Math.round(x);
}
function pair(x: [number, number], f: (v: number) => number): [number, number] {
  return [f(x[0]), f(x[1])];
}

function aggregate(knob: ReserveKnob, c: Cand, figs: ReplicateFigures[], tableRows: number, sampleRows: number): CandidateFigures {
  const ratio = (key: keyof ReplicateFigures) => figs.map((f) => (f.rows > 0 ? f[key] / f.rows : 0));
  // Sample-edge allowance: one page's worth of rows (forwarded rows), one page (pages), both (scan reads).
  const rowsPerPage = figs.reduce((s, f) => s + (f.pages > 0 ? f.rows / f.pages : 0), 0) / Math.max(1, figs.length);
  const S = Math.max(1, sampleRows);
  const edges: Partial<Record<keyof ReplicateFigures, number>> = {
    forwarded_rows: rowsPerPage / S,
    pages: 1 / S,
    table_scan_page_reads: (1 + rowsPerPage) / S,
    packed_pages: 1 / S,
  };
  const ex = (key: keyof ReplicateFigures): Extrapolated => extrapolate(ratio(key), tableRows, sampleRows, edges[key] ?? 0);
  const fwd = ex('forwarded_rows');
  const pages = ex('pages');
  const scan = ex('table_scan_page_reads');
  const packed = ex('packed_pages');
  const pct = (v: number) => r4((100 * v) / Math.max(1, tableRows));
  const updates = figs.reduce((s, f) => s + f.updates, 0);
  const special = knob.specials.filter((s) => c.specials.includes(s.name));
  const out: CandidateFigures = {
    value: c.value,
    setting: String(c.setting),
    specials: c.specials,
    label: [...special.map((s) => s.label), ...(c.specials.includes('current') ? [`current (config: ${c.setting})`] : [])].join(', ') || String(c.value),
    refined: c.refined,
    forwarded_rows: rInt(fwd.value),
    forwarded_rows_pct: pct(fwd.value),
    pages: rInt(pages.value),
    table_scan_page_reads: rInt(scan.value),
    packed_pages: rInt(packed.value),
    space_overhead_pct: packed.value > 0 ? r2(100 * (pages.value / packed.value - 1)) : 0,
    spread: { forwarded_rows_pct: pair(fwd.spread, pct), pages: pair(pages.spread, rInt), table_scan_page_reads: pair(scan.spread, rInt) },
    interval: { forwarded_rows_pct: pair(fwd.interval, pct), pages: pair(pages.interval, rInt), table_scan_page_reads: pair(scan.interval, rInt) },
  };
  if (knob.movedMetric === 'newpage_updates' && updates > 0) out.hot_updates_pct = r2((100 * figs.reduce((s, f) => s + f.hot_updates, 0)) / updates);
  if (knob.reorg) {
    out.reorg = {
      kind: knob.reorg,
      exclusive_table_locks: rInt(ex('reorg_exclusive_table_locks').value),
      pages_after: rInt(ex('pages_after_reorg').value),
    };
  }
  return out;
}

// ---- recommendations ----------------------------------------------------------------------------

/** Candidates in order of the room they reserve, least first. */
export function byReserve<T extends { value: number }>(knob: Pick<ReserveKnob, 'moreReserveWhenLarger'>, cands: readonly T[]): T[] {
  return [...cands].sort((a, b) => compareReserve(knob as ReserveKnob, a.value, b.value));
}

export interface Choice {
  /** Index into the reserve-ordered list. */
  index: number;
  met: boolean;
}

/**
 * The least reserve whose forwarded rows stay under the target at the upper end of its interval; when
 * none does, the one with the lowest upper end (least reserve on ties).
 */
export function pickForwardingTarget(ordered: readonly { upper: number }[], targetPct: number): Choice {
  const i = ordered.findIndex((c) => c.upper <= targetPct);
  if (i >= 0) return { index: i, met: true };
  let best = 0;
  for (let k = 1; k < ordered.length; k++) if (ordered[k]!.upper < ordered[best]!.upper) best = k;
  return { index: best, met: false };
}

/** The fewest table-scan page reads (least reserve on ties). */
export function pickMinScan(ordered: readonly { reads: number }[]): number {
  let best = 0;
  for (let k = 1; k < ordered.length; k++) if (ordered[k]!.reads < ordered[best]!.reads) best = k;
  return best;
}

/** Whole values strictly between a and b that the knob accepts, at most REFINE_MAX evenly spaced. */
export function between(knob: Pick2, a: number, b: number): number[] {
  const lo = Math.max(Math.min(a, b) + 1, knob.min);
  const hi = Math.min(Math.max(a, b) - 1, knob.max);
  if (hi < lo) return [];
  const n = hi - lo + 1;
  if (n <= REFINE_MAX) return Array.from({ length: n }, (_, i) => lo + i);
  const out = new Set<number>();
  for (let i = 0; i < REFINE_MAX; i++) out.add(lo + Math.round((i * (n - 1)) / (REFINE_MAX - 1)));
  return [...out];
}
type Pick2 = Pick<ReserveKnob, 'min' | 'max'>;

/** Values to add after the coarse round: the brackets around both recommendations. */
export function refinementValues(
  knob: Pick2 & Pick<ReserveKnob, 'moreReserveWhenLarger'>,
  ordered: readonly { value: number; upper: number; reads: number }[],
  targetPct: number,
): number[] {
  const out = new Set<number>();
  const fwd = pickForwardingTarget(ordered, targetPct);
  if (fwd.met && fwd.index > 0) for (const v of between(knob, ordered[fwd.index - 1]!.value, ordered[fwd.index]!.value)) out.add(v);
  const s = pickMinScan(ordered);
  const lo = ordered[Math.max(0, s - 1)]!.value;
  const hi = ordered[Math.min(ordered.length - 1, s + 1)]!.value;
  for (const v of between(knob, lo, hi)) out.add(v);
  const seen = new Set(ordered.map((c) => c.value));
  return [...out].filter((v) => !seen.has(v)).sort((a, b) => a - b);
}

function fmtPct(x: number): string {
  return `${x < 0.01 && x > 0 ? x.toPrecision(2) : r2(x)}%`;
}

function recommend(knob: ReserveKnob, cands: CandidateFigures[], targetPct: number): { fwd: Recommendation; scan: Recommendation } {
  const ordered = byReserve(knob, cands);
  const view = ordered.map((c) => ({ upper: c.interval.forwarded_rows_pct[1], reads: c.table_scan_page_reads }));
  const f = pickForwardingTarget(view, targetPct);
  const fc = ordered[f.index]!;
  const k = knob.key;
  const word = knob.movedWord;
  const prev = f.index > 0 ? ordered[f.index - 1] : undefined;
  const fwhy = f.met
    ? `${k} ${fc.value} reserves the least room of the candidates whose ${word} rows stay under ${targetPct}% even at the upper end of their 95% interval: ` +
      `${fmtPct(fc.forwarded_rows_pct)} (interval ${fmtPct(fc.interval.forwarded_rows_pct[0])}–${fmtPct(fc.interval.forwarded_rows_pct[1])}, seeds ${fmtPct(fc.spread.forwarded_rows_pct[0])}–${fmtPct(fc.spread.forwarded_rows_pct[1])})` +
      (prev ? `; the next smaller reserve, ${k} ${prev.value}, gives ${fmtPct(prev.forwarded_rows_pct)} (up to ${fmtPct(prev.interval.forwarded_rows_pct[1])})` : '') +
      `. It takes ${fc.pages.toLocaleString('en-US')} pages, ${r2(fc.space_overhead_pct)}% more than packed.`
    : `no candidate keeps ${word} rows under ${targetPct}%: ${k} ${fc.value} comes closest with ${fmtPct(fc.forwarded_rows_pct)} (up to ${fmtPct(fc.interval.forwarded_rows_pct[1])}); rows grow by more than any reservation this setting allows, so plan on a reorg`;
  const s = pickMinScan(view);
  const sc = ordered[s]!;
  const pack = cands.find((c) => c.specials.includes('pack') || (knob.key === 'fillfactor' && c.value === 100));
  const swhy =
    `${k} ${sc.value} gives the fewest table-scan page reads: ` +
    (sc.table_scan_page_reads > sc.pages
      ? `${sc.pages.toLocaleString('en-US')} pages + ${(sc.table_scan_page_reads - sc.pages).toLocaleString('en-US')} ${word}-row hops = ${sc.table_scan_page_reads.toLocaleString('en-US')}`
      : `${sc.table_scan_page_reads.toLocaleString('en-US')} (a scan reads each page once: ${word} rows cost no extra read in a scan on this engine)`) +
    (pack && pack.value !== sc.value ? `; packing fully (${k} ${pack.setting}) reads ${pack.table_scan_page_reads.toLocaleString('en-US')}` : '') +
    (sc.value === fc.value ? '; it also meets the forwarding target' : `; it lets ${fmtPct(sc.forwarded_rows_pct)} of rows be ${word}`);
  return { fwd: { value: fc.value, why: fwhy, met: f.met }, scan: { value: sc.value, why: swhy } };
}

// ---- the estimate ---------------------------------------------------------------------------------

interface FormatWork {
  format: FormatId;
  knob: ReserveKnob;
  engine: EngineSpec;
  cands: Cand[];
  figures: Map<number, CandidateFigures>;
}

export async function runEstimate(cfg: EstimateConfig, runner: CandidateRunner = inProcessRunner): Promise<EstimateOutcome> {
  const primaryFormat = getFormat(cfg.engine.format)!;
  const primaryLayout = primaryFormat.layout(cfg.table, cfg.engine);
  const plan = samplePlan(cfg, primaryLayout.fixedNotNullBytes);
  const works: FormatWork[] = cfg.formats.map((format, i) => {
    const engine = engineFor(cfg.engine, format);
    const layout = getFormat(format)!.layout(cfg.table, engine);
    const knob = reserveKnob(format, layout, engine);
    const cands = gridValues(knob, i === 0 ? cfg.candidates : undefined);
    if (i === 0) {
      // What the table has now: the config's own setting.
      const current = engine[knob.key] as Setting;
      const sp = knob.specials.find((s) => s.setting === current);
      cands.push({ value: sp ? sp.value : current === 'max' ? knob.max : current, setting: current, specials: ['current'], refined: false });
    }
    return { format, knob, engine, cands: dedupe(cands), figures: new Map() };
  });

  const simulate = async (items: { w: FormatWork; c: Cand }[]) => {
    const tasks: CandidateTask[] = items.map(({ w, c }) => ({
      name: cfg.name,
      seed: cfg.seed,
      table: cfg.table,
      engine: w.knob.engineWith(w.engine, c.setting),
      replicates: cfg.seeds,
      source: plan.source,
      reorg: w.knob.reorg,
      movedMetric: w.knob.movedMetric,
    }));
    const results = await runner(tasks);
    items.forEach(({ w, c }, i) => w.figures.set(c.value, aggregate(w.knob, c, results[i]!, plan.tableRows, plan.sampleRows)));
    return results;
  };

  const first = await simulate(works.flatMap((w) => w.cands.map((c) => ({ w, c }))));
  const pagesPerSeed = first[0] ? Math.round(first[0].reduce((s, f) => s + f.pages, 0) / first[0].length) : 0;

  if (cfg.refine) {
    const extra: { w: FormatWork; c: Cand }[] = [];
    for (const w of works) {
      const ordered = byReserve(w.knob, [...w.figures.values()]).map((c) => ({
        value: c.value,
        upper: c.interval.forwarded_rows_pct[1],
        reads: c.table_scan_page_reads,
      }));
      for (const v of refinementValues(w.knob, ordered, cfg.target_pct)) {
        const c: Cand = { value: v, setting: v, specials: [], refined: true };
        w.cands.push(c);
        extra.push({ w, c });
      }
    }
    if (extra.length) await simulate(extra);
  }

  const formats: FormatEstimate[] = works.map((w) => {
    const cands = [...w.figures.values()].sort((a, b) => a.value - b.value);
    const { fwd, scan } = recommend(w.knob, cands, cfg.target_pct);
    const apply = w.knob.commands(cfg.table.name, fwd.value);
    return {
      format: w.format,
      knob: w.knob.key,
      limits: { [`${w.knob.key}_min`]: w.knob.min, [`${w.knob.key}_max`]: w.knob.max },
      candidates: cands,
      forwarding_target: fwd,
      min_scan_reads: scan,
      commands: apply.commands,
      command_note: apply.note,
      alternative_commands: scan.value !== fwd.value ? w.knob.commands(cfg.table.name, scan.value).commands : [],
    };
  });

  const notes = [...cfg.notes];
  const src = cfg.source;
  if (src.kind === 'optdiag') {
    notes.push(
      `optdiag figures: the rows now follow the maximum-entropy length distribution on [${src.min}, ${src.max}] with mean ${src.avg}; ` +
        (src.insertAvg === undefined ? `rows are assumed inserted at the minimum length ${src.min} (the manual's short-insert-then-update case)` : `at insert, the same with mean ${src.insertAvg}`),
    );
    const cur = formats[0]!.candidates.find((c) => c.specials.includes('current'));
    if (src.forwarded !== undefined && cur) {
      notes.push(
        `optdiag reports ${src.forwarded.toLocaleString('en-US')} forwarded rows (${fmtPct((100 * src.forwarded) / src.rows)}); the simulation of the current setting (${formats[0]!.knob} ${cur.setting}) gives ${fmtPct(cur.forwarded_rows_pct)} (interval ${fmtPct(cur.interval.forwarded_rows_pct[0])}–${fmtPct(cur.interval.forwarded_rows_pct[1])}): a large gap means the insert lengths or the growth differ from what these figures imply`,
      );
    }
  }
  if (src.kind === 'csv' || src.kind === 'optdiag') {
    notes.push("each row's data length is spread over its columns (nullable fixed-length columns first, the rest over the variable-length columns in proportion to their declared lengths); all rows grow in one statement, in random order");
  }
  for (const w of works) {
    if (w.format !== cfg.engine.format && (src.kind === 'csv' || src.kind === 'optdiag')) {
      notes.push(`${w.format}: the measured lengths are replayed with the same variable-length bytes on ${w.format}'s own column sizes`);
    }
  }

  return {
    sample: {
      source: src.kind,
      table_rows: plan.tableRows,
      sampled: plan.sampled,
      rows_per_seed: plan.sampleRows,
      pages_per_seed: pagesPerSeed,
      seeds: cfg.seeds,
    },
    formats,
    notes,
  };
}
