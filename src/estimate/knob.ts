/**
 * "The reserve knob of a format": the one setting that leaves room on a page for rows to grow.
 * ASE DOL: exp_row_size (bytes reserved up to an expected row length) [I][J][N];
 * PostgreSQL heap: fillfactor 10..100 (percent of the page inserts may fill);
 * Oracle heap: PCTFREE 0..99 (percent of the block kept free for updates) [oracle]; PostgreSQL: [fillfactor].
 *
 * The estimator is written against this interface only; it knows no format.
 */
import { availableFormats, engineForFormat, getFormat } from '../formats/registry.js';
import type { EngineSpec } from '../config/spec.js';
import type { FormatId } from '../config/schema.js';
import { KnobError, type ReserveKnob } from '../formats/format.js';
import type { TableLayout } from '../layout/table-layout.js';

export type { ReserveKnob, Setting, SpecialName, SpecialSetting } from '../formats/format.js';

export { KnobError };

/** The reserve knob of `format` for a table laid out as `layout`. Throws KnobError when there is none. */
export function reserveKnob(format: FormatId, layout: TableLayout, engine: EngineSpec): ReserveKnob {
  const f = getFormat(format);
  if (f.knob.reserveKnob) return f.knob.reserveKnob(layout, engine);
  const tunable = availableFormats().filter((id) => getFormat(id).knob.reserveKnob);
  throw new KnobError(
    `a format with a reserve setting (${tunable.join(', ')}); ${format} has none the estimator can tune${f.knob.noKnob ? ` (${f.knob.noKnob})` : ''}`,
  );
}

/** Engine settings for estimating `format`, starting from the config's engine (page size: the format's own default unless it is the config's format). */
export function engineFor(base: EngineSpec, format: FormatId): EngineSpec {
  return engineForFormat(base, format);
}

/** Order two knob values by the room they reserve: negative when `a` reserves less than `b`. */
export function compareReserve(knob: ReserveKnob, a: number, b: number): number {
  return knob.moreReserveWhenLarger ? a - b : b - a;
}

/**
 * The knob the estimate tunes for the config's own format: its reserve knob, or for a format whose rows
 * are forwarded but that has no reserve setting (SQL Server heaps: no fill factor [heaps]) a knob with
 * one value, the table as it is, and no command (the maintenance what-if shows its rebuild). Throws KnobError for a
 * format that neither reserves nor forwards (ASE allpages-locked tables: rows move, exp_row_size is
 * ignored).
 */
export function estimateKnob(format: FormatId, layout: TableLayout, engine: EngineSpec): ReserveKnob {
  const f = getFormat(format);
  if (f.knob.reserveKnob || f.words.movedRows.word !== 'forwarded') return reserveKnob(format, layout, engine);
  return {
    format,
    key: 'none',
    min: 0,
    max: 0,
    moreReserveWhenLarger: true,
    specials: [],
    engineWith: (base) => ({ ...base }),
    commands: () => ({ commands: [], note: f.knob.noKnob ?? 'no reserve setting' }),
    movedWord: f.words.movedRows.word,
    movedMetric: f.words.movedRows.metric,
  };
}
