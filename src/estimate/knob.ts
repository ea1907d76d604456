/**
 * "The reserve knob of a format": the one setting that leaves room on a page for rows to grow.
 * ASE DOL: exp_row_size (bytes reserved up to an expected row length) [storage-ase.md I][J][N];
 * PostgreSQL heap: fillfactor 10..100 (percent of the page inserts may fill);
 * Oracle heap: PCTFREE 0..99 (percent of the block kept free for updates) [storage-other-engines.md].
 *
 * The estimator is written against this interface only; it knows no format.
 */
import { engineForFormat } from '../config/defaults.js';
import type { EngineSpec } from '../config/spec.js';
import type { FormatId } from '../config/schema.js';
import { resolveExpRowSize } from '../formats/ase.js';
import { getFormat } from '../formats/index.js';
import type { TableLayout } from '../formats/types.js';
import type { ReorgKind } from '../heap/engine.js';

export type KnobKey = 'exp_row_size' | 'fillfactor' | 'pctfree';
export type Setting = number | 'max';
export type SpecialName = 'pack' | 'default' | 'max' | 'current';

export interface SpecialSetting {
  name: SpecialName;
  /** What is written in the config / the DBMS command. */
  setting: Setting;
  /** Where it sits on the knob's numeric axis (ASE: the resolved bytes). */
  value: number;
  label: string;
}

export interface ReserveKnob {
  format: FormatId;
  key: KnobKey;
  /** Smallest and largest value the DBMS accepts for this table. */
  min: number;
  max: number;
  /** true: a larger value reserves more room (exp_row_size, pctfree); false: less (fillfactor). */
  moreReserveWhenLarger: boolean;
  specials: SpecialSetting[];
  /** The engine settings with this knob set. */
  engineWith(base: EngineSpec, setting: Setting): EngineSpec;
  /** Commands that apply `value` to table `table`, and what they do and do not change. */
  commands(table: string, value: number): { commands: string[]; note: string };
  /** The reorganisation whose cost is reported (ASE: reorg forwarded_rows and its exclusive table locks). */
  reorg?: ReorgKind;
  /** How a row that no longer fits is counted: "forwarded" (ASE, SQL Server), "migrated" (Oracle), … */
  movedWord: string;
  /** The engine metric the target applies to: forwarded_rows (ASE; migrated rows on Oracle) or, on
   *  PostgreSQL, newpage_updates (updates whose new version went to another page: not HOT). */
  movedMetric: 'forwarded_rows' | 'newpage_updates';
}

/** Formats the estimator supports, whether or not they are registered in this build. */
export const KNOB_FORMATS: readonly FormatId[] = ['ase-dol', 'postgres-heap', 'oracle-heap'];

export class KnobError extends Error {}

/** The reserve knob of `format` for a table laid out as `layout`. Throws KnobError when there is none. */
export function reserveKnob(format: FormatId, layout: TableLayout, engine: EngineSpec): ReserveKnob {
  switch (format) {
    case 'ase-dol': {
      // Valid range: max(2, fixed-length columns) .. maximum data row length (logical) [I][J][N].
      const min = Math.max(2, layout.fixedNotNullBytes);
      const max = layout.logicalMaxBytes;
      const defaultBytes = resolveExpRowSize({ ...engine, exp_row_size: 0 }, layout).exp_row_size;
      return {
        format,
        key: 'exp_row_size',
        min,
        max,
        moreReserveWhenLarger: true,
        specials: [
          { name: 'pack', setting: 1, value: 1, label: '1 (pack fully)' },
          {
            name: 'default',
            setting: 0,
            value: defaultBytes,
            label: `0 (server default ${engine.default_exp_row_size_percent}% = ${defaultBytes})`,
          },
          { name: 'max', setting: 'max', value: max, label: `max (${max})` },
        ],
        engineWith: (base, setting) => ({ ...base, format, exp_row_size: setting }),
        commands: (table, value) => ({
          commands: [`sp_chgattribute '${table}', 'exp_row_size', ${value}`],
          note: `only pages allocated from now on use exp_row_size ${value}; existing pages keep their rows and reservations until \`reorg rebuild ${table}\` (an exclusive table lock for its whole run)`,
        }),
        reorg: 'forwarded_rows',
        movedWord: 'forwarded',
        movedMetric: 'forwarded_rows',
      };
    }
    case 'postgres-heap':
      return {
        format,
        key: 'fillfactor',
        min: 10,
        max: 100,
        moreReserveWhenLarger: false,
        specials: [{ name: 'default', setting: 100, value: 100, label: '100 (default, pack fully)' }],
        engineWith: (base, setting) => ({ ...base, format, fillfactor: Number(setting) }),
        commands: (table, value) => ({
          commands: [`ALTER TABLE ${table} SET (fillfactor = ${value});`],
          note: `only pages filled from now on leave ${100 - value}% free; VACUUM FULL ${table} (or CLUSTER, pg_repack) rewrites existing pages`,
        }),
        movedWord: 'moved (non-HOT, to a new page)',
        movedMetric: 'newpage_updates',
      };
    case 'oracle-heap':
      return {
        format,
        key: 'pctfree',
        min: 0,
        max: 99,
        moreReserveWhenLarger: true,
        specials: [
          { name: 'pack', setting: 0, value: 0, label: '0 (pack fully)' },
          { name: 'default', setting: 10, value: 10, label: '10 (default)' },
        ],
        engineWith: (base, setting) => ({ ...base, format, pctfree: Number(setting) }),
        commands: (table, value) => ({
          commands: [`ALTER TABLE ${table} PCTFREE ${value};`],
          note: `only blocks used from now on keep ${value}% free; ALTER TABLE ${table} MOVE rewrites existing blocks and removes migrated rows (rebuild the indexes afterwards)`,
        }),
        movedWord: 'migrated',
        movedMetric: 'forwarded_rows',
      };
    default:
      throw new KnobError(
        `a format with a reserve setting (${KNOB_FORMATS.join(', ')}); ${format} has none the estimator can tune${format === 'ase-apl' ? ' (allpages-locked tables store exp_row_size but ignore it)' : ''}`,
      );
  }
}

/** Engine settings for estimating `format`, starting from the config's engine (page size: the format's own default unless it is the config's format). */
export function engineFor(base: EngineSpec, format: FormatId): EngineSpec {
  return engineForFormat(base, format);
}

/** Order two knob values by the room they reserve: negative when `a` reserves less than `b`. */
export function compareReserve(knob: ReserveKnob, a: number, b: number): number {
  return knob.moreReserveWhenLarger ? a - b : b - a;
}
