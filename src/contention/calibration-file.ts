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

const cost = z.number().min(0).max(1e7).nullable();

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
