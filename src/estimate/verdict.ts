/**
 * What the estimate says first, and whether it prints a command: a recommendation (exit status 0), or
 * one of the two reasons not to apply anything (exit status 3, no `apply:` command unless --force):
 * the evidence cannot be reproduced by any growth of these rows, or no setting the DBMS accepts meets
 * the target. Pure.
 */
import type { EstimateConfig } from './types.js';
import type { Calibration, FormatEstimate, Verdict } from './types.js';

export type { Verdict, VerdictStatus } from './types.js';
import type { ReserveKnob } from './knob.js';
import { fmtPct } from './plan.js';

/** Exit status of an estimate that says not to apply anything (the CLI's EXIT_NOT_APPLICABLE, src/cli/exit-codes.ts). */
export const EXIT_NO_RECOMMENDATION = 3;

/** `splitsInstead`: the format's rows never move, its pages split (a rebuild fill study follows the headline). */
export function verdictOf(
  cfg: EstimateConfig,
  primary: FormatEstimate,
  knob: ReserveKnob,
  cal: Calibration | undefined,
  splitsInstead = false,
): Verdict {
  if (cal && !cal.reproduced)
    return { status: 'evidence_not_reproduced', headline: notReproduced(cfg, knob, cal), exit_status: EXIT_NO_RECOMMENDATION };
  const rec = primary.forwarding_target;
  if (!rec.met) return { status: 'target_not_met', headline: rec.why, exit_status: EXIT_NO_RECOMMENDATION };
  if (knob.key === 'none') {
    const c = primary.candidates[0]!;
    return {
      status: 'nothing_to_change',
      headline: `${knob.format}: the table forwards ${fmtPct(c.forwarded_rows_pct)} of its rows (up to ${fmtPct(c.interval.forwarded_rows_pct[1])}), within the ${cfg.target_pct}% target; ${splitsInstead ? 'its rows are never forwarded: its pages split instead (the rebuild fill factor below)' : 'it has no setting to change'}`,
      exit_status: 0,
    };
  }
  return { status: 'recommended', headline: `recommended ${knob.key} ${rec.value}: ${rec.why}`, exit_status: 0 };
}

function notReproduced(cfg: EstimateConfig, knob: ReserveKnob, cal: Calibration): string {
  const m = cal.measured;
  const s = cal.simulated;
  const word = knob.movedWord;
  const head = `the evidence cannot be reproduced: ${m.label} (${fmtPct(m.pct)} of ${m.basis_word} ${word})`;
  const movedInside = m.pct >= s.interval[0] - 1e-9 && m.pct <= s.interval[1] + 1e-9;
  const pageMiss = cal.misses.find((x) => x.startsWith('data pages'));
  if (movedInside && pageMiss) {
    return (
      `the evidence cannot be reproduced: the simulation of ${s.setting} reproduces ${m.label} (${fmtPct(m.pct)} of ${m.basis_word}; simulated ${fmtPct(s.moved_pct)}, interval ${fmtPct(s.interval[0])}–${fmtPct(s.interval[1])}) but misses the ${pageMiss}. ` +
      `Something the model leaves out takes or saves space (deleted rows and empty pages, reservepagegap, a past setting, rows of another length than the figures say, figures of another table or time), so no setting is recommended`
    );
  }
  const also = pageMiss ? `; it also misses the ${pageMiss}` : '';
  if (cal.kind === 'fit') {
    // The most any spread tried can move (each spread's share 0), and the spread that gives it.
    const widest = cal.fit!.spread_curve.reduce((a, b) => (b.most_moved_pct > a.most_moved_pct ? b : a));
    const most = { moved_pct: widest.most_moved_pct, interval: [0, widest.most_upper_pct] as [number, number] };
    const fewest = cal.fit!.curve[cal.fit!.curve.length - 1]!;
    const dir =
      m.pct > most.interval[1]
        ? `even with every row inserted at the shortest length (${cal.fit!.floor_bytes} bytes) and grown to its length now (${Math.round(cal.fit!.now_avg_bytes)} on average), ${s.setting} gives at most ${fmtPct(most.moved_pct)} (interval up to ${fmtPct(most.interval[1])})`
        : `no growth of these rows gives it with ${s.setting}: the closest is ${fmtPct(s.moved_pct)} (interval ${fmtPct(s.interval[0])}–${fmtPct(s.interval[1])}), the least ${fmtPct(fewest.moved_pct)}`;
    return `${head}, but ${dir}${also}. Something the model leaves out moves these rows (rows that grow more than once, deletes and re-inserts, a setting other than the current one when the rows were inserted, figures of another table or time), so no setting is recommended`;
  }
  return `${head}, but the rows ${cfg.source.kind === 'workload' ? 'of the workload' : 'given'} simulated with the current setting (${s.setting}) give ${fmtPct(s.moved_pct)} (interval ${fmtPct(s.interval[0])}–${fmtPct(s.interval[1])})${also}: the lengths do not describe this table, so no setting is recommended`;
}
