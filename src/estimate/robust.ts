/**
 * A recommendation that survives what the evidence leaves open. The fit chooses one spread of the row
 * lengths (src/estimate/fit.ts), but often several spreads reproduce both the moved share and the data
 * pages inside their intervals, and a wider spread can need more reserve. The recommendation is checked
 * at the narrowest and the widest spread the evidence allows, each with its own fitted growth; where one
 * of them needs more reserve, that value is what the estimate recommends, and it says why. Pure apart
 * from the runner.
 */
import { aggregate, type Cand, type CandidateFigures } from './figures.js';
import { compareReserve, type ReserveKnob } from './knob.js';
import { lengthMoments, lengthsNow } from './length-model.js';
import { candidateTask, samplePlan } from './plan.js';
import type { Calibration, CandidateRunner, EstimateConfig } from './types.js';

/** Candidates tried at once when the recommendation does not hold at a spread. */
const STEP = 4;

export interface SpreadEnd {
  spread: number;
  insert_share: number;
  /** Standard deviation of the row data lengths now at that spread. */
  sd: number;
  /** The least reserve of the candidates that meets the target there (or the most tried, not met). */
  value: number;
  met: boolean;
  forwarded_pct: number;
  upper_pct: number;
}

export interface SpreadCheck {
  /** The spreads whose fitted growth reproduces both the moved share and the pages inside their intervals. */
  spread_range: [number, number];
  sd_range: [number, number];
  ends: SpreadEnd[];
  /** The value that meets the target at every end (the most reserve of theirs and the recommendation's). */
  value: number;
  sentence: string;
}

type Point = NonNullable<Calibration['fit']>['spread_curve'][number];

/** The spreads the evidence allows: both figures inside their intervals. */
function allowed(cal: Calibration): Point[] {
  const pages = cal.pages?.measured;
  const fit = cal.fit;
  if (!fit || !fit.spread_fitted || pages === undefined) return [];
  return fit.spread_curve.filter((p) => p.reproduced && pages >= p.pages_interval[0] && pages <= p.pages_interval[1]);
}

/** The least reserve among `ordered` (from the recommendation on) that meets the target with this growth. */
async function leastAt(
  cfg: EstimateConfig,
  knob: ReserveKnob,
  fixed: number,
  p: Point,
  ordered: Cand[],
  runner: CandidateRunner,
): Promise<SpreadEnd> {
  const plan = samplePlan(cfg, fixed, { insertShare: p.insert_share, spread: p.spread });
  const src = cfg.source;
  const sd = src.kind === 'evidence' ? lengthMoments(lengthsNow(src.model, p.spread)).sd : 0;
  let last: CandidateFigures | undefined;
  for (let i = 0; i < ordered.length; i += STEP) {
    const batch = ordered.slice(i, i + STEP);
    const results = await runner(batch.map((c) => candidateTask(cfg, knob, cfg.engine, c, plan.source)));
    for (let k = 0; k < batch.length; k++) {
      const f = aggregate(knob, batch[k]!, results[k]!, plan.tableRows, plan.sampleRows);
      last = f;
      if (f.interval.forwarded_rows_pct[1] <= cfg.target_pct) {
        return {
          spread: p.spread,
          insert_share: p.insert_share,
          sd: round2(sd),
          value: f.value,
          met: true,
          forwarded_pct: f.forwarded_rows_pct,
          upper_pct: f.interval.forwarded_rows_pct[1],
        };
      }
    }
  }
  return {
    spread: p.spread,
    insert_share: p.insert_share,
    sd: round2(sd),
    value: last!.value,
    met: false,
    forwarded_pct: last!.forwarded_rows_pct,
    upper_pct: last!.interval.forwarded_rows_pct[1],
  };
}

/**
 * The recommendation `value` checked at the narrowest and widest allowed spreads. `values` are the
 * candidates simulated so far (any order); those with at least the recommendation's reserve are tried in
 * order, plus every whole value between them near the recommendation, so the answer is exact to a step.
 */
export async function checkAcrossSpreads(
  cfg: EstimateConfig,
  knob: ReserveKnob,
  fixed: number,
  cal: Calibration,
  value: number,
  values: number[],
  runner: CandidateRunner,
): Promise<SpreadCheck | undefined> {
  const ok = allowed(cal);
  if (ok.length < 2 || knob.key === 'none') return undefined;
  const lo = ok[0]!;
  const hi = ok[ok.length - 1]!;
  const more = [...new Set([...values, ...Array.from({ length: 24 }, (_, i) => value + (knob.moreReserveWhenLarger ? i : -i))])]
    .filter((v) => v >= knob.min && v <= knob.max && compareReserve(knob, v, value) >= 0)
    .sort((a, b) => compareReserve(knob, a, b));
  const ordered: Cand[] = more.map((v) => ({ value: v, setting: v, specials: [], refined: true }));
  const ends = [];
  for (const p of lo.spread === hi.spread ? [lo] : [lo, hi]) ends.push(await leastAt(cfg, knob, fixed, p, ordered, runner));
  const most = ends.reduce((a, b) => (compareReserve(knob, b.value, a.value) > 0 ? b : a));
  const best = compareReserve(knob, most.value, value) > 0 ? most.value : value;
  const k = knob.key;
  const sdRange: [number, number] = [Math.min(...ends.map((e) => e.sd)), Math.max(...ends.map((e) => e.sd))];
  const at = ends.map((e) => `${k} ${e.value} at spread ${e.spread} (sd ${e.sd} bytes)${e.met ? '' : ', not met'}`).join(', ');
  const sentence =
    `the evidence allows the lengths now to spread from sd ${sdRange[0]} to ${sdRange[1]} bytes (spreads ${lo.spread}–${hi.spread}: both figures inside their intervals); the least that meets the target there: ${at}` +
    (best === value ? `: ${k} ${value} holds across them` : `: ${k} ${best} is needed at the widest, and is recommended`);
  return { spread_range: [lo.spread, hi.spread], sd_range: sdRange, ends, value: best, sentence };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
