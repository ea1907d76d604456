/**
 * What PostgreSQL declares to the registry beside its mechanics: its engine settings (the heap's
 * fillfactor and its TOAST settings), its DDL clauses and its reserve knob (src/formats/README.md,
 * "adding a format").
 */
import type { SettingsOf, Zod } from '../config/format-ids.js';
import { HARMLESS, type DdlClauses } from '../config/ddl-clauses.js';
import type { ReserveKnob } from './format.js';

/** fillfactor bounds and default for heaps [fillfactor]. */
const PG_MIN_FILLFACTOR = 10;
export const PG_DEFAULT_FILLFACTOR = 100;

/** The settings PostgreSQL declares: the heap's fillfactor and its TOAST settings. */
export const postgresSettings = (z: Zod) => ({
  fillfactor: z.number().int().min(10).max(100).optional(),
  toast_tuple_target: z.number().int().min(0).max(32768).optional(),
  default_toast_compression: z.enum(['pglz', 'lz4']).optional(),
});

/**
 * PostgreSQL's storage parameters `WITH (…)` [PG-STORAGE-PARAMS]: fillfactor and toast_tuple_target are the
 * engine settings; the autovacuum_* and toast.* parameters decide when VACUUM runs, which a workload's
 * phases state in rowsim: harmless.
 */
export const postgresDdl: DdlClauses = {
  withParens: {
    fillfactor: { kind: 'setting', key: 'fillfactor', min: 10, max: 100, engine: true, sign: 'WITH (fillfactor = …)' },
    toast_tuple_target: { kind: 'setting', key: 'toast_tuple_target', min: 128, max: 32768, engine: true },
    parallel_workers: HARMLESS,
    log_autovacuum_min_duration: HARMLESS,
    vacuum_index_cleanup: HARMLESS,
    vacuum_truncate: HARMLESS,
    user_catalog_table: HARMLESS,
  },
  harmlessParameters: {
    test: (name) => /^(toast\.)?autovacuum_/.test(name) || /^toast\.(vacuum_|log_autovacuum)/.test(name),
    label: 'autovacuum_…',
  },
  nullableByDefault: true,
};

/** fillfactor 10..100 (less leaves more room), applied with ALTER TABLE … SET (fillfactor = N) [fillfactor]. */
export function fillfactorKnob(): ReserveKnob {
  return {
    format: 'postgres-heap',
    key: 'fillfactor',
    min: PG_MIN_FILLFACTOR,
    max: 100,
    moreReserveWhenLarger: false,
    specials: [
      {
        name: 'default',
        setting: PG_DEFAULT_FILLFACTOR,
        value: PG_DEFAULT_FILLFACTOR,
        label: `${PG_DEFAULT_FILLFACTOR} (default, pack fully)`,
      },
    ],
    packValue: 100,
    engineWith: (base, setting) => ({ ...base, format: 'postgres-heap', fillfactor: Number(setting) }),
    commands: (table, value) => ({
      commands: [`ALTER TABLE ${table} SET (fillfactor = ${value});`],
      note: `only pages filled from now on leave ${100 - value}% free; VACUUM FULL ${table} (or CLUSTER, pg_repack) rewrites existing pages`,
    }),
    movedWord: 'moved (non-HOT, to a new page)',
    movedMetric: 'newpage_updates',
  };
}

declare module '../config/format-ids.js' {
  interface DdlTableOptions {
    /** PostgreSQL `WITH (fillfactor = N)`. */
    fillfactor?: DdlSetting<number>;
    /** PostgreSQL `WITH (toast_tuple_target = N)`. */
    toast_tuple_target?: DdlSetting<number>;
  }
  interface DbmsIds {
    postgres: true;
  }
  interface FormatIds {
    'postgres-heap': true;
  }
  interface FormatSettings extends SettingsOf<typeof postgresSettings> {}
}
