/**
 * The estimate against the DBA's measurements: when the rows' lengths at insert are unknown, fit them
 * (src/estimate/fit.ts) so that the current setting reproduces the measured forwarded (or non-HOT)
 * share; when they are given (a CSV, column histograms, a workload), check that the current setting
 * reproduces it. Either way the measured share is set beside the simulated one with its 95% interval,
 * and the measured data pages beside the simulated pages. Pure apart from the runner.
 */
import type { EstimateConfig } from './types.js';
import type { Calibration, CandidateRunner, FormatEstimate } from './types.js';

export type { Calibration };
import type { MovedTarget } from './evidence/merge.js';
import { r2, type Cand } from './figures.js';
import { fitGrowthAndSpread } from './fit.js';
import { lengthMoments, lengthsNow } from './length-model.js';
import type { Figure } from './evidence/types.js';
import type { ModelInput } from './types.js';
import type { ReserveKnob } from './knob.js';
import { ASSUMED_SPREAD, candidateTask, fmtPct, samplePlan } from './plan.js';
import { groupedNumber } from '../util/numbers.js';

function measuredOf(t: MovedTarget): Calibration['measured'] {
  return {
    pct: Math.round(100 * t.share * 10000) / 10000,
    count: t.count,
    basis: t.basis,
    basis_word: t.basisWord,
    label: t.label,
    figures: t.figures.map((f) => ({ label: `${f.kind} ${f.label}`, value: f.value, file: f.file, line: f.line })),
  };
}

/** The lengths the fit varies: the shortest length and the average now. */
function lengths(cfg: EstimateConfig): { floor: number; avgNow: number } {
  const src = cfg.source;
  if (src.kind === 'evidence' || src.kind === 'optdiag') return { floor: src.min, avgNow: src.avg };
  return { floor: 0, avgNow: 0 };
}

/** The fit, when the config asks for one (insert lengths unknown, a measured moved share). */
export async function calibrate(
  cfg: EstimateConfig,
  knob: ReserveKnob,
  current: Cand,
  fixed: number,
  runner: CandidateRunner,
): Promise<Calibration | undefined> {
  const target = cfg.evidence?.moved;
  if (!cfg.fit || !target) return undefined;
  const base = samplePlan(cfg, fixed);
  const src = cfg.source;
  const model = src.kind === 'evidence' || src.kind === 'optdiag' ? src.model : undefined;
  // The spread is fitted to the data pages where the lengths come from the tools' figures and pages were measured.
  const pages = src.kind === 'evidence' ? pagesTarget(cfg)?.value : undefined;
  const sf = await fitGrowthAndSpread(
    target,
    pages,
    ASSUMED_SPREAD,
    knob,
    current,
    (share, spread) => candidateTask(cfg, knob, cfg.engine, current, samplePlan(cfg, fixed, { insertShare: share, spread }).source),
    runner,
    { tableRows: base.tableRows, sampleRows: base.sampleRows },
  );
  const f = sf.growth;
  const { floor, avgNow } = lengths(cfg);
  const insertAvg = floor + f.insert_share * (avgNow - floor);
  const now = model ? lengthMoments(lengthsNow(model, sf.spread)) : { mean: avgNow, sd: 0, p5: avgNow, p95: avgNow };
  const cal: Calibration = {
    kind: 'fit',
    measured: measuredOf(target),
    simulated: {
      setting: settingLabel(knob, current),
      moved_pct: f.simulated.moved_pct,
      interval: f.simulated.interval,
      pages: f.simulated.pages,
      pages_interval: f.simulated.pages_interval,
    },
    reproduced: f.reproduced,
    fit: {
      insert_share: f.insert_share,
      insert_share_range: f.insert_share_range,
      floor_bytes: floor,
      insert_avg_bytes: r2(insertAvg),
      now_avg_bytes: r2(avgNow),
      growth_avg_bytes: r2(avgNow - insertAvg),
      curve: f.curve,
      spread: sf.spread,
      spread_fitted: sf.fitted,
      lengths_now: { mean: r2(now.mean), sd: r2(now.sd), p5: now.p5, p95: now.p95 },
      spread_curve: sf.curve,
    },
    misses: [],
    sentence: '',
  };
  if (src.kind === 'evidence') cal.inputs = fittedInputs(src.inputs, cal, target, pagesTarget(cfg));
  return finish(cfg, knob, cal);
}

/** The model's inputs with the two fitted ones added: the growth (to the moved share) and the spread (to the pages, or assumed). */
function fittedInputs(given: ModelInput[], cal: Calibration, target: MovedTarget, pages: Figure | undefined): ModelInput[] {
  const fit = cal.fit!;
  const moved = target.figures[0]!;
  const out = [...given];
  out.push({
    name: 'length at insert',
    value: `${Math.round(fit.insert_avg_bytes)} data bytes on average (${Math.round(100 * fit.insert_share)}% of the way from ${fit.floor_bytes} bytes to each row's length now)`,
    how: 'fitted',
    from: `to ${moved.kind} ${moved.label} (${moved.file}:${moved.line})`,
  });
  const spreadText = `${fit.spread} (row data lengths now: sd ${fit.lengths_now.sd} bytes, 90% of rows from ${fit.lengths_now.p5} to ${fit.lengths_now.p95})`;
  out.push(
    fit.spread_fitted && pages
      ? {
          name: 'spread of the lengths',
          value: spreadText,
          how: 'fitted',
          from: `to ${pages.kind} ${pages.label} (${pages.file}:${pages.line})`,
        }
      : {
          name: 'spread of the lengths',
          value: spreadText,
          how: 'assumed',
          from: 'no data page count to fit it to: the whole range the columns allow (maximum entropy)',
        },
  );
  out.push({
    name: 'how rows grow',
    value: 'every row once, in one statement, in random order',
    how: 'assumed',
    from: 'no file says how the rows were updated',
  });
  return out;
}

/** The check, when the lengths were given and a moved share was measured. */
export function checkEvidence(cfg: EstimateConfig, primary: FormatEstimate): Calibration | undefined {
  const target = cfg.evidence?.moved;
  const cur = primary.candidates.find((c) => c.specials.includes('current'));
  if (!target || !cur) return undefined;
  const m = 100 * target.share;
  const iv = cur.interval.forwarded_rows_pct;
  const cal: Calibration = {
    kind: 'check',
    measured: measuredOf(target),
    simulated: {
      setting: cur.setting,
      moved_pct: cur.forwarded_rows_pct,
      interval: iv,
      pages: cur.pages,
      pages_interval: cur.interval.pages,
    },
    reproduced: m >= iv[0] - 1e-9 && m <= iv[1] + 1e-9,
    misses: [],
    sentence: '',
  };
  return finish(cfg, undefined, cal);
}

function settingLabel(knob: ReserveKnob, c: Cand): string {
  if (knob.key === 'none') return 'the table as it is';
  const sp = knob.specials.find((s) => s.setting === c.setting);
  return sp && sp.value !== c.value ? `${knob.key} ${c.setting} (= ${c.value})` : `${knob.key} ${c.setting}`;
}

/** The data pages the rows take: the measured data pages, less the empty ones where the input counts them. */
function pagesTarget(cfg: EstimateConfig): Figure | undefined {
  const pages = cfg.evidence?.pages;
  const empty = cfg.evidence?.emptyPages;
  if (!pages || !empty || empty.value <= 0 || empty.value >= pages.value) return pages;
  return { ...pages, value: pages.value - empty.value, label: `${pages.label} less ${empty.label} ${groupedNumber(empty.value)}` };
}

/** A simulated data page count further than this from the measured one is a miss (exit status 3). */
export const PAGES_TOLERANCE_PCT = 5;

function finish(cfg: EstimateConfig, knob: ReserveKnob | undefined, cal: Calibration): Calibration {
  const pages = pagesTarget(cfg);
  const word = knob?.movedWord ?? 'forwarded';
  const s = cal.simulated;
  const m = cal.measured;
  if (!cal.reproduced) {
    const off = m.pct - s.moved_pct;
    cal.misses.push(
      `${m.label}: measured ${fmtPct(m.pct)} of ${m.basis_word}, simulated ${fmtPct(s.moved_pct)} (95% interval ${fmtPct(s.interval[0])}–${fmtPct(s.interval[1])}): ${off > 0 ? 'more' : 'fewer'} ${word} than the model can give, by ${r2(Math.abs(off))} points`,
    );
  }
  if (pages) {
    const iv = s.pages_interval;
    const offPct = pages.value > 0 ? r2((100 * (s.pages - pages.value)) / pages.value) : 0;
    const within = Math.abs(offPct) <= PAGES_TOLERANCE_PCT;
    cal.pages = {
      measured: pages.value,
      label: `${pages.kind} ${pages.label}`,
      file: pages.file,
      line: pages.line,
      simulated: s.pages,
      interval: iv,
      inside: pages.value >= iv[0] && pages.value <= iv[1],
      off_pct: offPct,
      within_tolerance: within,
    };
    if (!within) {
      cal.misses.push(
        `data pages: measured ${groupedNumber(pages.value)} (${pages.kind} ${pages.label}, ${pages.file}:${pages.line}), simulated ${groupedNumber(s.pages)} (interval ${groupedNumber(iv[0])}–${groupedNumber(iv[1])}): ${offPct > 0 ? '+' : ''}${offPct}%, more than the ${PAGES_TOLERANCE_PCT}% the estimate allows`,
      );
      cal.reproduced = false;
    }
  }
  const head = `${m.label}: ${fmtPct(m.pct)} of ${m.basis_word}`;
  const growth = cal.fit
    ? ` with rows inserted at about ${Math.round(cal.fit.insert_avg_bytes)} data bytes and grown to ${Math.round(cal.fit.now_avg_bytes)} on average (` +
      (cal.reproduced ? 'the fitted growth; ' : 'the closest growth; ') +
      `${Math.round(100 * cal.fit.insert_share)}% of the way from the shortest row, ${cal.fit.floor_bytes} bytes, to each row's length now` +
      (cal.fit.spread_fitted
        ? `; lengths now spread ${cal.fit.spread}, sd ${cal.fit.lengths_now.sd} bytes, fitted to the data pages)`
        : ')')
    : ' with the row lengths given';
  const p = cal.pages;
  cal.sentence =
    `${head}; the simulation of the current setting (${s.setting})${growth} gives ${fmtPct(s.moved_pct)} ${word}, 95% interval ${fmtPct(s.interval[0])}–${fmtPct(s.interval[1])}: ` +
    (cal.misses.length === 0 || !cal.misses[0]!.startsWith(m.label) ? 'the measurement is inside it' : 'the measurement is outside it') +
    (p
      ? `; data pages: measured ${groupedNumber(p.measured)} (${p.label}), simulated ${groupedNumber(p.simulated)} (interval ${groupedNumber(p.interval[0])}–${groupedNumber(p.interval[1])}; ${p.off_pct > 0 ? '+' : ''}${p.off_pct}%)` +
        (p.inside
          ? ''
          : p.within_tolerance
            ? `: outside the interval but within the ${PAGES_TOLERANCE_PCT}% allowed (deleted rows, empty pages and past settings take space the model does not have)`
            : `: a miss of more than ${PAGES_TOLERANCE_PCT}%`)
      : '');
  return cal;
}

/** Notes on where the rows came from and what was assumed. */
export function sourceNotes(cfg: EstimateConfig, works: { format: string }[], cal: Calibration | undefined): string[] {
  const notes: string[] = [];
  const src = cfg.source;
  if (src.kind === 'optdiag') {
    const ins =
      cal?.fit !== undefined
        ? `at insert: fitted to the forwarded rows (rows inserted ${Math.round(100 * cal.fit.insert_share)}% of the way from ${src.min} bytes to their length now)`
        : src.insertAvg === undefined
          ? `rows are assumed inserted at the minimum length ${src.min} (the manual's short-insert-then-update case)`
          : `at insert, the same with mean ${src.insertAvg}`;
    notes.push(
      `optdiag figures: the rows now follow the maximum-entropy length distribution on [${src.min}, ${src.max}] with mean ${src.avg}; ${ins}`,
    );
  }
  if (src.kind === 'csv' || src.kind === 'optdiag' || src.kind === 'evidence') {
    notes.push(
      "each row's data length is spread over its columns (nullable fixed-length columns first, the rest over the variable-length columns in proportion to their declared lengths); all rows grow in one statement, in random order",
    );
  }
  for (const w of works.slice(1)) {
    if (src.kind === 'csv' || src.kind === 'optdiag' || src.kind === 'evidence')
      notes.push(`${w.format}: the measured lengths are replayed with the same variable-length bytes on ${w.format}'s own column sizes`);
  }
  if (cal?.measured.basis_word === 'updates') {
    notes.push(
      "pg_stat_user_tables counts every update since the statistics were reset; the model updates each row once, growing it: further updates that do not grow a row make the measured share smaller than the model's",
    );
  }
  return notes;
}
