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
import { fitGrowth } from './fit.js';
import type { ReserveKnob } from './knob.js';
import { candidateTask, fmtPct, samplePlan } from './plan.js';
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
export async function calibrate(cfg: EstimateConfig, knob: ReserveKnob, current: Cand, fixed: number, runner: CandidateRunner): Promise<Calibration | undefined> {
  const target = cfg.evidence?.moved;
  if (!cfg.fit || !target) return undefined;
  const base = samplePlan(cfg, fixed, 0);
  const f = await fitGrowth(
    target,
    knob,
    current,
    (share) => candidateTask(cfg, knob, cfg.engine, current, samplePlan(cfg, fixed, share).source),
    runner,
    { tableRows: base.tableRows, sampleRows: base.sampleRows },
  );
  const { floor, avgNow } = lengths(cfg);
  const insertAvg = floor + f.insert_share * (avgNow - floor);
  const setting = settingLabel(knob, current);
  const cal: Calibration = {
    kind: 'fit',
    measured: measuredOf(target),
    simulated: { setting, moved_pct: f.simulated.moved_pct, interval: f.simulated.interval, pages: f.simulated.pages, pages_interval: f.simulated.pages_interval },
    reproduced: f.reproduced,
    fit: {
      insert_share: f.insert_share,
      insert_share_range: f.insert_share_range,
      floor_bytes: floor,
      insert_avg_bytes: r2(insertAvg),
      now_avg_bytes: r2(avgNow),
      growth_avg_bytes: r2(avgNow - insertAvg),
      curve: f.curve,
    },
    sentence: '',
  };
  return finish(cfg, knob, cal);
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
    simulated: { setting: cur.setting, moved_pct: cur.forwarded_rows_pct, interval: iv, pages: cur.pages, pages_interval: cur.interval.pages },
    reproduced: m >= iv[0] - 1e-9 && m <= iv[1] + 1e-9,
    sentence: '',
  };
  return finish(cfg, undefined, cal);
}

function settingLabel(knob: ReserveKnob, c: Cand): string {
  if (knob.key === 'none') return 'the table as it is';
  const sp = knob.specials.find((s) => s.setting === c.setting);
  return sp && sp.value !== c.value ? `${knob.key} ${c.setting} (= ${c.value})` : `${knob.key} ${c.setting}`;
}

function finish(cfg: EstimateConfig, knob: ReserveKnob | undefined, cal: Calibration): Calibration {
  const pages = cfg.evidence?.pages;
  if (pages) {
    const iv = cal.simulated.pages_interval;
    cal.pages = { measured: pages.value, label: `${pages.kind} ${pages.label}`, simulated: cal.simulated.pages, interval: iv, inside: pages.value >= iv[0] && pages.value <= iv[1] };
  }
  const word = knob?.movedWord ?? 'forwarded';
  const s = cal.simulated;
  const head = `${cal.measured.label}: ${fmtPct(cal.measured.pct)} of ${cal.measured.basis_word}`;
  const growth = cal.fit
    ? ` with rows inserted at about ${Math.round(cal.fit.insert_avg_bytes)} data bytes and grown to ${Math.round(cal.fit.now_avg_bytes)} on average (` +
      (cal.reproduced ? 'the fitted growth; ' : 'the closest growth; ') +
      `${Math.round(100 * cal.fit.insert_share)}% of the way from the shortest row, ${cal.fit.floor_bytes} bytes, to each row's length now)`
    : ' with the row lengths given';
  cal.sentence =
    `${head}; the simulation of the current setting (${s.setting})${growth} gives ${fmtPct(s.moved_pct)} ${word}, 95% interval ${fmtPct(s.interval[0])}–${fmtPct(s.interval[1])}: ` +
    (cal.reproduced ? 'the measurement is inside it' : 'the measurement is outside it') +
    (cal.pages ? `; data pages: measured ${groupedNumber(cal.pages.measured)} (${cal.pages.label}), simulated ${groupedNumber(cal.pages.simulated)} (interval ${groupedNumber(cal.pages.interval[0])}–${groupedNumber(cal.pages.interval[1])})${cal.pages.inside ? '' : ': outside, not fitted (deleted rows, empty pages, reservepagegap and past settings take space the model does not have)'}` : '');
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
    notes.push(`optdiag figures: the rows now follow the maximum-entropy length distribution on [${src.min}, ${src.max}] with mean ${src.avg}; ${ins}`);
  }
  if (src.kind === 'csv' || src.kind === 'optdiag' || src.kind === 'evidence') {
    notes.push("each row's data length is spread over its columns (nullable fixed-length columns first, the rest over the variable-length columns in proportion to their declared lengths); all rows grow in one statement, in random order");
  }
  for (const w of works.slice(1)) {
    if (src.kind === 'csv' || src.kind === 'optdiag' || src.kind === 'evidence') notes.push(`${w.format}: the measured lengths are replayed with the same variable-length bytes on ${w.format}'s own column sizes`);
  }
  if (cal?.measured.basis_word === 'updates') {
    notes.push('pg_stat_user_tables counts every update since the statistics were reset; the model updates each row once, growing it: further updates that do not grow a row make the measured share smaller than the model\'s');
  }
  return notes;
}
