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
import type { EngineSpec } from '../config/spec.js';
import { getFormat } from '../formats/registry.js';
import type { EstimateConfig } from './types.js';
import { aggregate, r2, type Cand, type CandidateFigures } from './figures.js';
import { compareReserve, engineFor, estimateKnob, reserveKnob, type ReserveKnob, type Setting } from './knob.js';
import type { CandidateTask, ReplicateFigures } from './simulate.js';
import { simulateCandidate } from './simulate.js';
import { calibrate, checkEvidence, sourceNotes } from './calibrate.js';
import { candidateTask, currentCand, fmtPct, samplePlan, type Plan } from './plan.js';
import { verdictOf } from './verdict.js';
import { whatIf, type MaintenanceWhatIf } from './whatif.js';
import { estimateAdvice, type Advice } from './advice.js';
import { checkAcrossSpreads, type SpreadCheck } from './robust.js';
import { rebuildFillStudy, type RebuildFillStudy } from './rebuild-fill.js';

export { candidateTask, currentCand, fmtPct, plannedLive, samplePlan, scaleWorkload, type Plan } from './plan.js';

export type { CandidateFigures } from './figures.js';
export type { CandidateRunner, FormatEstimate, Recommendation } from './types.js';
import type { CandidateRunner, FormatEstimate, Recommendation, Calibration, Verdict } from './types.js';
import { groupedNumber } from '../util/numbers.js';

/** Runs every task in this thread (tests, benchmarks, --workers 0). */
export const inProcessRunner: CandidateRunner = async (tasks) => tasks.map(simulateCandidate);

/** Coarse grid: about this many steps over the accepted range. */
const COARSE_STEPS = 32;
/** Refinement: at most this many extra values per bracket. */
const REFINE_MAX = 24;

interface SampleInfo {
  source: EstimateConfig['source']['kind'];
  table_rows: number;
  sampled: boolean;
  rows_per_seed: number;
  pages_per_seed: number;
  seeds: number;
}

/** One partition's estimate on its own figures (optdiag's partition blocks). */
export interface PartitionEstimate {
  name: string;
  file: string;
  line: number;
  rows: number;
  measured_pct?: number;
  simulated_pct: number;
  interval: [number, number];
  pages_measured: number;
  pages_simulated: number;
  reproduced: boolean;
  misses: string[];
  insert_avg_bytes?: number;
  spread?: number;
  /** The least reserve that meets the target on this partition, and whether one does. */
  recommended: number;
  met: boolean;
}

export interface EstimateOutcome {
  sample: SampleInfo;
  /** Per partition, when the evidence is per partition; `partitions_sentence` says what follows for the table. */
  partitions?: PartitionEstimate[];
  partitions_sentence?: string;
  formats: FormatEstimate[];
  /** The measured evidence against the simulation of the current setting (fitted or checked). */
  calibration?: Calibration;
  /** What the estimate says first, and the exit status: 3 when no command should be applied. */
  verdict: Verdict;
  maintenance?: MaintenanceWhatIf;
  /** The rebuild's free space and the DBMS's other space settings, for a recommendation. */
  advice?: Advice;
  /** A format without a reserve knob whose rebuild fills pages to a setting (StorageFormat.knob.rebuildFill). */
  rebuild_fill?: RebuildFillStudy;
  /** The recommendation checked at the narrowest and widest spread of the row lengths the evidence allows. */
  spread_check?: SpreadCheck;
  notes: string[];
}

// ---- candidates -------------------------------------------------------------------------------

function gridValues(knob: ReserveKnob, spec: EstimateConfig['candidates'] | undefined): Cand[] {
  const out: Cand[] = [];
  const numeric = (v: Setting): number => (v === 'max' ? knob.max : v);
  if (Array.isArray(spec)) {
    for (const v of spec) {
      const sp = knob.specials.find((s) => s.setting === v);
      out.push(
        sp
          ? { value: sp.value, setting: sp.setting, specials: [sp.name], refined: false }
          : { value: numeric(v), setting: numeric(v), specials: [], refined: false },
      );
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

// ---- recommendations ----------------------------------------------------------------------------

/** Candidates in order of the room they reserve, least first. */
function byReserve<T extends { value: number }>(knob: Pick<ReserveKnob, 'moreReserveWhenLarger'>, cands: readonly T[]): T[] {
  return [...cands].sort((a, b) => compareReserve(knob as ReserveKnob, a.value, b.value));
}

interface Choice {
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
function pickMinScan(ordered: readonly { reads: number }[]): number {
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

export function recommend(knob: ReserveKnob, cands: CandidateFigures[], targetPct: number): { fwd: Recommendation; scan: Recommendation } {
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
      (prev
        ? `; the next smaller reserve, ${k} ${prev.value}, gives ${fmtPct(prev.forwarded_rows_pct)} (up to ${fmtPct(prev.interval.forwarded_rows_pct[1])})`
        : '') +
      `. It takes ${groupedNumber(fc.pages)} pages, ${r2(fc.space_overhead_pct)}% more than packed.`
    : knob.key === 'none'
      ? `no setting meets ${targetPct}%: ${knob.format} has none that reserves room for growth (${knob.commands('', 0).note}), and the table forwards ${fmtPct(fc.forwarded_rows_pct)} of its rows (up to ${fmtPct(fc.interval.forwarded_rows_pct[1])})`
      : `no ${k} meets ${targetPct}%: the best is ${fc.value} with ${fmtPct(fc.forwarded_rows_pct)} (up to ${fmtPct(fc.interval.forwarded_rows_pct[1])}); ` +
        (fc.forwarded_rows_pct <= targetPct
          ? `its estimate is under the target but its 95% interval is not: the sample cannot show less (more seeds or sample rows narrow it: --seeds, --sample-rows)`
          : `rows grow by more than any reservation this setting allows`);
  const s = pickMinScan(view);
  const sc = ordered[s]!;
  const pack = cands.find((c) => c.specials.includes('pack') || c.value === knob.packValue);
  const swhy =
    `${k} ${sc.value} gives the fewest table-scan page reads: ` +
    (sc.table_scan_page_reads > sc.pages
      ? `${groupedNumber(sc.pages)} pages + ${groupedNumber(sc.table_scan_page_reads - sc.pages)} ${word}-row hops = ${groupedNumber(sc.table_scan_page_reads)}`
      : `${groupedNumber(sc.table_scan_page_reads)} (a scan reads each page once: ${word} rows cost no extra read in a scan on this engine)`) +
    (pack && pack.value !== sc.value ? `; packing fully (${k} ${pack.setting}) reads ${groupedNumber(pack.table_scan_page_reads)}` : '') +
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

/** Candidate tasks of one round, simulated and aggregated into each format's figures. */
function simulator(cfg: EstimateConfig, plan: Plan, runner: CandidateRunner) {
  return async (items: { w: FormatWork; c: Cand }[]) => {
    const tasks: CandidateTask[] = items.map(({ w, c }) => candidateTask(cfg, w.knob, w.engine, c, plan.source));
    const results = await runner(tasks);
    items.forEach(({ w, c }, i) => w.figures.set(c.value, aggregate(w.knob, c, results[i]!, plan.tableRows, plan.sampleRows)));
    return results;
  };
}

function formatWorks(cfg: EstimateConfig): FormatWork[] {
  return cfg.formats.map((format, i) => {
    const engine = engineFor(cfg.engine, format);
    const layout = getFormat(format)!.rows.layout(cfg.table, engine);
    const knob = i === 0 ? estimateKnob(format, layout, engine) : reserveKnob(format, layout, engine);
    const cands = knob.key === 'none' ? [] : gridValues(knob, i === 0 ? cfg.candidates : undefined);
    if (i === 0) cands.push(currentCand(knob, engine));
    return { format, knob, engine, cands: dedupe(cands), figures: new Map() };
  });
}

/** The coarse round, then the refinement round around each format's recommendations. */
async function simulateCandidates(cfg: EstimateConfig, works: FormatWork[], simulate: ReturnType<typeof simulator>): Promise<number> {
  const first = await simulate(works.flatMap((w) => w.cands.map((c) => ({ w, c }))));
  const pagesPerSeed = first[0] ? Math.round(first[0].reduce((s, f) => s + f.pages, 0) / first[0].length) : 0;
  if (!cfg.refine) return pagesPerSeed;
  const extra: { w: FormatWork; c: Cand }[] = [];
  for (const w of works) {
    if (w.knob.key === 'none') continue;
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
  return pagesPerSeed;
}

function formatEstimate(cfg: EstimateConfig, w: FormatWork): FormatEstimate {
  const cands = [...w.figures.values()].sort((a, b) => a.value - b.value);
  const current = cands.find((c) => c.specials.includes('current'));
  if (current) {
    for (const c of cands)
      c.vs_current = {
        pages: c.pages - current.pages,
        pct: current.pages > 0 ? Math.round((10000 * (c.pages - current.pages)) / current.pages) / 100 : 0,
      };
  }
  const { fwd, scan } = recommend(w.knob, cands, cfg.target_pct);
  const apply = w.knob.commands(cfg.table.name, fwd.value);
  return {
    format: w.format,
    knob: w.knob.key,
    page_bytes: w.engine.page_size,
    limits: w.knob.key === 'none' ? {} : { [`${w.knob.key}_min`]: w.knob.min, [`${w.knob.key}_max`]: w.knob.max },
    candidates: cands,
    forwarding_target: fwd,
    min_scan_reads: scan,
    commands: apply.commands,
    command_note: apply.note,
    alternative_commands: scan.value !== fwd.value ? w.knob.commands(cfg.table.name, scan.value).commands : [],
  };
}

/**
 * What an estimate starts with: each format's work, the first format's fixed NOT NULL bytes, and the evidence
 * fitted on its current setting (undefined without evidence to fit). runEstimate goes on from here; the fit's
 * tests stop here (nothing after it changes the calibration).
 */
export async function fitEvidence(
  cfg: EstimateConfig,
  runner: CandidateRunner = inProcessRunner,
): Promise<{ works: FormatWork[]; fixed: number; fitted: Calibration | undefined }> {
  const fixed = getFormat(cfg.engine.format)!.rows.layout(cfg.table, cfg.engine).fixedNotNullBytes;
  const works = formatWorks(cfg);
  const knob = works[0]!.knob;
  return { works, fixed, fitted: await calibrate(cfg, knob, currentCand(knob, cfg.engine), fixed, runner) };
}

/**
 * The runner, simulating each distinct task once: a task's figures depend on nothing but the task, and the
 * fit, the partitions, the candidates and the spread check ask for some tasks more than once (claim_history:
 * 38 of its 688). Typed arrays (resampled length pairs) are keyed by identity, not by their contents.
 */
export function onceEach(runner: CandidateRunner): CandidateRunner {
  const done = new Map<string, Promise<ReplicateFigures[]>>();
  const ids = new WeakMap<object, number>();
  let arrays = 0;
  const key = (task: CandidateTask) =>
    JSON.stringify(task, (_k, v: unknown) => {
      if (!ArrayBuffer.isView(v)) return v;
      let id = ids.get(v);
      if (id === undefined) ids.set(v, (id = arrays++));
      return `array ${id}`;
    });
  return async (tasks) => {
    const keys = tasks.map(key);
    const fresh = new Map<string, number>();
    keys.forEach((k, i) => {
      if (!done.has(k) && !fresh.has(k)) fresh.set(k, i);
    });
    if (fresh.size > 0) {
      const run = runner([...fresh.values()].map((i) => tasks[i]!));
      [...fresh.keys()].forEach((k, n) =>
        done.set(
          k,
          run.then((r) => r[n]!),
        ),
      );
    }
    return Promise.all(keys.map((k) => done.get(k)!));
  };
}

export async function runEstimate(cfg: EstimateConfig, given: CandidateRunner = inProcessRunner): Promise<EstimateOutcome> {
  const runner = onceEach(given);
  const { works, fixed, fitted } = await fitEvidence(cfg, runner);
  const primary = works[0]!;
  const plan = samplePlan(cfg, fixed, fitted?.fit ? { insertShare: fitted.fit.insert_share, spread: fitted.fit.spread } : undefined);
  const simulate = simulator(cfg, plan, runner);
  const pagesPerSeed = await simulateCandidates(cfg, works, simulate);
  const parts = cfg.partitions ? await partitionEstimates(cfg, runner) : undefined;
  const formats = works.map((w) => formatEstimate(cfg, w));
  const spreadCheck =
    fitted?.fit && formats[0]!.forwarding_target.met
      ? await checkAcrossSpreads(cfg, primary.knob, fixed, fitted, formats[0]!.forwarding_target.value, [...primary.figures.keys()], runner)
      : undefined;
  if (spreadCheck && spreadCheck.value !== formats[0]!.forwarding_target.value) {
    await raiseRecommendation(
      cfg,
      primary,
      formats,
      simulate,
      spreadCheck.value,
      `${primary.knob.key} ${spreadCheck.value} meets ${cfg.target_pct}% at every spread of the row lengths the evidence allows (${spreadCheck.sentence})`,
    );
  }
  if (parts) await partitionsDecide(cfg, primary, parts, formats, simulate);
  const calibration = fitted ?? checkEvidence(cfg, formats[0]!);
  const rebuildFill = rebuildFillStudy(cfg, plan.source.kind === 'workload' ? plan.source.workload : undefined);
  const verdict = verdictOf(cfg, formats[0]!, primary.knob, calibration, rebuildFill !== undefined);
  const maintenance = whatIf(cfg, primary.knob, formats[0]!, plan, verdict);
  const notes = [...cfg.notes, ...(cfg.evidence?.notes ?? []), ...sourceNotes(cfg, works, calibration)];
  if (parts)
    notes.push(
      "each partition's model takes optdiag's column statistics, which are the table's, with every varying column scaled by the same factor to the partition's own Data row size",
    );
  const advice = verdict.status === 'recommended' ? estimateAdvice(cfg, primary.knob, formats[0]!) : undefined;
  return {
    ...(rebuildFill ? { rebuild_fill: rebuildFill } : {}),
    ...(spreadCheck ? { spread_check: spreadCheck } : {}),
    ...(advice ? { advice } : {}),
    ...(parts ? { partitions: parts, partitions_sentence: partitionsSentence(primary.knob, parts, formats[0]!) } : {}),
    sample: {
      source: cfg.source.kind,
      table_rows: plan.tableRows,
      sampled: plan.sampled,
      rows_per_seed: plan.sampleRows,
      pages_per_seed: pagesPerSeed,
      seeds: cfg.seeds,
    },
    formats,
    ...(calibration ? { calibration } : {}),
    verdict,
    ...(maintenance ? { maintenance } : {}),
    notes,
  };
}

// ---- partitions ---------------------------------------------------------------------------------

/** Each partition estimated on its own figures, its own fit, the config's format only. */
async function partitionEstimates(cfg: EstimateConfig, runner: CandidateRunner): Promise<PartitionEstimate[]> {
  const out: PartitionEstimate[] = [];
  for (const p of cfg.partitions!) {
    const sub: EstimateConfig = {
      ...cfg,
      formats: [cfg.formats[0]!],
      source: p.source,
      evidence: p.evidence,
      fit: p.evidence.moved !== undefined,
      rows: undefined,
      notes: [],
      partitions: undefined,
    };
    const layout = getFormat(sub.engine.format)!.rows.layout(sub.table, sub.engine);
    const works = formatWorks(sub);
    const fitted = await calibrate(sub, works[0]!.knob, currentCand(works[0]!.knob, sub.engine), layout.fixedNotNullBytes, runner);
    const plan = samplePlan(
      sub,
      layout.fixedNotNullBytes,
      fitted?.fit ? { insertShare: fitted.fit.insert_share, spread: fitted.fit.spread } : undefined,
    );
    await simulateCandidates(sub, works, simulator(sub, plan, runner));
    const f = formatEstimate(sub, works[0]!);
    const cur = f.candidates.find((c) => c.specials.includes('current'))!;
    out.push({
      name: p.name,
      file: p.file,
      line: p.line,
      rows: p.source.rows,
      ...(fitted ? { measured_pct: fitted.measured.pct } : {}),
      simulated_pct: cur.forwarded_rows_pct,
      interval: cur.interval.forwarded_rows_pct,
      pages_measured: p.evidence.pages?.value ?? 0,
      pages_simulated: cur.pages,
      reproduced: fitted?.reproduced ?? true,
      misses: fitted?.misses ?? [],
      ...(fitted?.fit ? { insert_avg_bytes: fitted.fit.insert_avg_bytes, spread: fitted.fit.spread } : {}),
      recommended: f.forwarding_target.value,
      met: f.forwarding_target.met ?? false,
    });
  }
  return out;
}

/**
 * The table's one setting must serve every partition: when each partition's figures are reproduced and one
 * needs more reserve than the table's figures taken as one, that partition's value becomes the
 * recommendation (simulated on the table's model too, for its figures), and the reason says so.
 */
async function partitionsDecide(
  cfg: EstimateConfig,
  w: FormatWork,
  parts: PartitionEstimate[],
  formats: FormatEstimate[],
  simulate: ReturnType<typeof simulator>,
): Promise<void> {
  if (w.knob.key === 'none' || parts.some((p) => !p.reproduced || !p.met)) return;
  const table = formats[0]!;
  const most = byReserve(
    w.knob,
    parts.map((p) => ({ value: p.recommended, p })),
  ).at(-1)!;
  if (compareReserve(w.knob, most.value, table.forwarding_target.value) <= 0) return;
  await raiseRecommendation(
    cfg,
    w,
    formats,
    simulate,
    most.value,
    `${w.knob.key} ${most.value} is the least reserve that meets ${cfg.target_pct}% on every partition: partition ${most.p.name} needs it on its own figures, where the table's figures taken as one would give ${table.forwarding_target.value}`,
  );
}

/** Make `value` the primary format's recommendation, for the reason given (simulated on the table's model for its figures). */
async function raiseRecommendation(
  cfg: EstimateConfig,
  w: FormatWork,
  formats: FormatEstimate[],
  simulate: ReturnType<typeof simulator>,
  value: number,
  reason: string,
): Promise<void> {
  if (!w.figures.has(value)) {
    const c: Cand = { value, setting: value, specials: [], refined: true };
    w.cands.push(c);
    await simulate([{ w, c }]);
  }
  const f = formatEstimate(cfg, w);
  const fc = f.candidates.find((c) => c.value === value)!;
  const why = `${reason}; on the fitted model it gives ${fmtPct(fc.forwarded_rows_pct)} (interval ${fmtPct(fc.interval.forwarded_rows_pct[0])}–${fmtPct(fc.interval.forwarded_rows_pct[1])}) and ${groupedNumber(fc.pages)} pages, ${r2(fc.space_overhead_pct)}% more than packed.`;
  f.forwarding_target = { value, why, met: true };
  const cmd = w.knob.commands(cfg.table.name, value);
  f.commands = cmd.commands;
  f.command_note = cmd.note;
  formats[0] = f;
}

/** What the partitions say for the table's one setting. */
function partitionsSentence(knob: ReserveKnob, parts: PartitionEstimate[], table: FormatEstimate): string {
  const bad = parts.filter((p) => !p.reproduced);
  if (bad.length)
    return `${bad.length} of ${parts.length} partitions' figures cannot be reproduced on their own (${bad.map((p) => p.name).join(', ')}): their recommendations are not to be trusted`;
  const need = byReserve(
    knob,
    parts.map((p) => ({ value: p.recommended, p })),
  );
  const most = need[need.length - 1]!;
  const same = parts.every((p) => p.recommended === parts[0]!.recommended);
  const k = knob.key;
  if (same) return `every partition on its own gives ${k} ${most.value}, as the table does`;
  const rel =
    most.value === table.forwarding_target.value
      ? 'the recommendation above'
      : `the table's figures taken as one give ${table.forwarding_target.value}`;
  return `the partitions need from ${k} ${need[0]!.value} to ${most.value} on their own; ${k} is set for the whole table, so ${most.value} (partition ${most.p.name}) is the one that meets the target on every partition (${rel})`;
}
