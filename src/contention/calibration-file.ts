/**
 * The calibration file `rowsim calibrate` writes and `contention.calibration: file.json` reads: costs
 * measured on worker threads, by model key path, in nanoseconds (null: not fitted, e.g. every run that
 * could fit it was time-sliced). Applying it to a resolved spec is pure.
 */
import { z } from 'zod';
import type { CalibrationApplied, ContentionBase, ContentionSpec } from './spec.js';

/** Model keys a calibration file may set. */
const CALIBRATED_KEYS = [
  'latched.hold',
  'latched.handoff_per_waiter',
  'lockless.cas',
  'lockless.line_transfer',
  'lockless.lookup',
] as const;
type CalibratedKey = (typeof CALIBRATED_KEYS)[number];

/** The longest cost a calibration file may give: 10 ms, far past a latch held or a cache line moved (a thread descheduled, not a cost). */
export const MAX_CALIBRATED_NS = 1e7;

const cost = z.number().nullable();

/** How a cost was fitted, or why it was refused (files written before refusals were recorded have none). */
const fitEntry = z.object({
  value: cost,
  refused: z.string().optional(),
  spread_pct: z.number().nullable().optional(),
  repeats_ns: z.array(z.number()).optional(),
});

export const calibrationFileSchema = z.looseObject({
  rowsim_calibration: z.literal(1),
  machine: z.looseObject({ cpus: z.number().int().positive(), model: z.string(), node: z.string() }),
  costs: z.strictObject({
    'latched.hold': cost,
    'latched.handoff_per_waiter': cost,
    'lockless.cas': cost,
    'lockless.line_transfer': cost,
    'lockless.lookup': cost,
  }),
  fits: z.record(z.string(), fitEntry).optional(),
  fit_rule: z.looseObject({ max_repeat_spread_pct: z.number() }).optional(),
});

export type CalibrationFile = z.output<typeof calibrationFileSchema>;

/** A figure of a calibration file that contradicts the physics or the file's own other figures: where (key path) and what was expected. */
export interface CalibrationContradiction {
  path: (string | number)[];
  message: string;
}

/**
 * The figures of a calibration file that cannot all be true: a cost not above 0 or past
 * MAX_CALIBRATED_NS, a fit of an unknown key, a fit marked refused that gives a cost (or whose cost
 * `costs` gives), a fit's value other than its cost, a spread below 0 or over the file's own fit rule for
 * a fitted cost, a repeat below 0.
 */
export function calibrationContradictions(cal: CalibrationFile): CalibrationContradiction[] {
  const out: CalibrationContradiction[] = [];
  const add = (path: (string | number)[], message: string) => out.push({ path, message });
  for (const k of CALIBRATED_KEYS) {
    const v = cal.costs[k];
    if (v !== null && !(v > 0 && v <= MAX_CALIBRATED_NS))
      add(
        ['costs', k],
        `expected a cost above 0 and at most ${MAX_CALIBRATED_NS.toLocaleString('en-US')} ns (10 ms; a latch held, a CAS or a cache line moved takes nanoseconds to microseconds), or null (refused), found ${v}`,
      );
  }
  const maxSpread = cal.fit_rule?.max_repeat_spread_pct;
  for (const [k, fit] of Object.entries(cal.fits ?? {})) {
    if (!(CALIBRATED_KEYS as readonly string[]).includes(k)) {
      add(['fits', k], `expected a fit of one of ${CALIBRATED_KEYS.join(', ')}, found "${k}"`);
      continue;
    }
    const c = cal.costs[k as CalibratedKey];
    if (out.some((o) => o.path[1] === k)) continue;
    if (fit.refused !== undefined && fit.value !== null)
      add(['fits', k, 'value'], `expected null for a fit marked refused ("${fit.refused}"), found ${fit.value}`);
    else if (fit.refused !== undefined && c !== null)
      add(['costs', k], `expected null: fits.${k} says the cost was refused ("${fit.refused}"), found ${c}`);
    else if (fit.value !== c) add(['fits', k, 'value'], `expected costs.${k}'s ${c}, found ${fit.value}`);
    if (typeof fit.spread_pct === 'number' && fit.spread_pct < 0)
      add(['fits', k, 'spread_pct'], `expected a spread of 0% or more, found ${fit.spread_pct}`);
    else if (typeof fit.spread_pct === 'number' && c !== null && maxSpread !== undefined && fit.spread_pct > maxSpread)
      add(
        ['fits', k, 'spread_pct'],
        `expected at most fit_rule.max_repeat_spread_pct ${maxSpread}% for a fitted cost (a wider spread is refused), found ${fit.spread_pct}`,
      );
    const negative = (fit.repeats_ns ?? []).findIndex((x) => !(x >= 0));
    if (negative >= 0) add(['fits', k, 'repeats_ns', negative], `expected a repeat of 0 ns or more, found ${fit.repeats_ns![negative]}`);
  }
  return out;
}

function get(m: ContentionBase, key: CalibratedKey): number {
  switch (key) {
    case 'latched.hold':
      return m.latched.hold_ns;
    case 'latched.handoff_per_waiter':
      return m.latched.handoff_per_waiter_ns;
    case 'lockless.cas':
      return m.lockless.cas_ns;
    case 'lockless.line_transfer':
      return m.lockless.line_transfer_ns;
    case 'lockless.lookup':
      return m.lockless.lookup_ns;
  }
}

/**
 * The model with the measured costs in place of the assumed ones. Keys the config sweeps keep their
 * swept values. Values derived from a replaced one follow it unless the config sets them: the
 * lockless line transfer follows the hand-off, the lockless look-up and the write hold follow the hold.
 */
function applyCalibration(
  m: ContentionBase,
  costs: CalibrationFile['costs'],
  explicit: readonly string[],
  swept: readonly string[],
): ContentionBase {
  const out = structuredClone(m);
  const set = (key: CalibratedKey, v: number): void => {
    if (swept.includes(key)) return;
    if (key === 'latched.hold') out.latched.hold_ns = v;
    if (key === 'latched.handoff_per_waiter') out.latched.handoff_per_waiter_ns = v;
    if (key === 'lockless.cas') out.lockless.cas_ns = v;
    if (key === 'lockless.line_transfer') out.lockless.line_transfer_ns = v;
    if (key === 'lockless.lookup') out.lockless.lookup_ns = v;
  };
  const given = (k: CalibratedKey): number | null => costs[k];
  for (const k of CALIBRATED_KEYS) {
    const v = given(k);
    if (v !== null) set(k, v);
  }
  const hold = given('latched.hold');
  const handoff = given('latched.handoff_per_waiter');
  if (given('lockless.line_transfer') === null && handoff !== null && !explicit.includes('lockless.line_transfer'))
    set('lockless.line_transfer', handoff);
  if (given('lockless.lookup') === null && hold !== null && !explicit.includes('lockless.lookup')) set('lockless.lookup', hold);
  if (hold !== null && !explicit.includes('lockless.write_hold') && !swept.includes('latched.hold')) out.lockless.write_hold_ns = hold;
  return out;
}

/** The spec (and every sweep cell) with the file's costs applied; `file` and `machine` name the measurement. */
export function applyCalibrationToSpec(spec: ContentionSpec, cal: CalibrationFile, file: string): ContentionSpec {
  const swept = spec.sweep?.axes.map((a) => a.key) ?? [];
  const base = applyCalibration(spec, cal.costs, spec.explicit_keys, swept);
  const values: Record<string, number> = {};
  const replaced: Record<string, number> = {};
  for (const k of CALIBRATED_KEYS) {
    if (swept.includes(k)) continue;
    const after = get(base, k);
    const before = get(spec, k);
    if (cal.costs[k] !== null || after !== before) {
      values[k] = after;
      replaced[k] = before;
    }
  }
  const measured: CalibrationApplied['measured'] = {};
  const refused: Record<string, string> = {};
  for (const k of CALIBRATED_KEYS) {
    const fit = cal.fits?.[k];
    if (cal.costs[k] === null)
      refused[k] = fit?.refused ?? 'not fitted (the file gives no value and no reason: written before refusals were recorded)';
    else
      measured[k] = {
        spread_pct: typeof fit?.spread_pct === 'number' ? fit.spread_pct : null,
        repeats_ns: fit?.repeats_ns?.length ? [Math.min(...fit.repeats_ns), Math.max(...fit.repeats_ns)] : null,
      };
  }
  const applied: CalibrationApplied = {
    file,
    machine: `${cal.machine.model}, ${cal.machine.cpus} cores, Node.js ${cal.machine.node}`,
    values,
    replaced,
    measured,
    refused,
    max_repeat_spread_pct: cal.fit_rule?.max_repeat_spread_pct ?? null,
  };
  return {
    ...spec,
    ...base,
    sweep: spec.sweep
      ? {
          axes: spec.sweep.axes,
          cells: spec.sweep.cells.map((c) => ({ ...c, spec: applyCalibration(c.spec, cal.costs, spec.explicit_keys, swept) })),
        }
      : null,
    sources: spec.sources,
    explicit_keys: spec.explicit_keys,
    calibration: applied,
  };
}
