/**
 * What PostgreSQL declares to the registry beside its mechanics: its engine settings (the heap's
 * fillfactor and its TOAST settings) and its DDL clauses (src/formats/README.md, "adding a format").
 */
import type { SettingsOf, Zod } from '../config/format-ids.js';
import { HARMLESS, type DdlClauses } from '../config/ddl-clauses.js';

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

declare module '../config/format-ids.js' {
  interface DdlTableOptions {
    /** PostgreSQL `WITH (fillfactor = N)`. */
    fillfactor?: DdlSetting<number>;
    /** PostgreSQL `WITH (toast_tuple_target = N)`. */
    toast_tuple_target?: DdlSetting<number>;
  }
  interface FormatIds {
    'postgres-heap': true;
  }
  interface FormatSettings extends SettingsOf<typeof postgresSettings> {}
}
