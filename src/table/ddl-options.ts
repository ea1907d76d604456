/**
 * The storage options of DDL indexes and tables that the DDL reader (src/table/ddl.ts) knows, and what
 * each means to rowsim: a setting it reads (the same index or engine setting the YAML form sets), an
 * option that does not change how rows and index entries are stored (read past), or one that does and
 * that rowsim cannot model (refused, with the reason). An option in none of these lists is refused too:
 * nothing a user wrote is dropped without a word.
 */
import type { IndexSettingKey } from '../config/index-settings.js';

/** What an option written `name = value` means. */
export type OptionRule =
  /** A whole number in min … max: the index setting (or, for tables, the engine setting) of the same name. */
  | { kind: 'setting'; key: string; min: number; max: number }
  /** PostgreSQL's `deduplicate_items = on | off`. */
  | { kind: 'flag' }
  /** SQL Server's PAD_INDEX: harmless OFF, or ON without a fill factor (checked once the options are read). */
  | { kind: 'pad' }
  /** Does not change storage: read past. */
  | { kind: 'harmless' }
  /** Harmless with one of `values` (lower case); any other value changes storage in a way rowsim does not model. */
  | { kind: 'only'; values: readonly string[]; why: string };

const HARMLESS: OptionRule = { kind: 'harmless' };

/**
 * Index options of `WITH (…)` (SQL Server, PostgreSQL) and `with …` (ASE), by lower-case name. The
 * harmless ones decide locking, statistics, how the index is built or whether duplicates are refused, not
 * how its pages are filled.
 */
export const INDEX_WITH_OPTIONS: Readonly<Record<string, OptionRule>> = {
  fillfactor: { kind: 'setting', key: 'fillfactor' satisfies IndexSettingKey, min: 0, max: 100 },
  max_rows_per_page: { kind: 'setting', key: 'max_rows_per_page' satisfies IndexSettingKey, min: 0, max: 256 },
  reservepagegap: { kind: 'setting', key: 'reservepagegap' satisfies IndexSettingKey, min: 0, max: 255 },
  deduplicate_items: { kind: 'flag' },
  pad_index: { kind: 'pad' },
  data_compression: { kind: 'only', values: ['none'], why: 'rowsim does not model compressed index pages' },
  index_compression: { kind: 'only', values: ['none'], why: 'rowsim does not model compressed index pages' },
  xml_compression: { kind: 'only', values: ['off'], why: 'rowsim does not model compressed XML values' },
  statistics_norecompute: HARMLESS,
  statistics_incremental: HARMLESS,
  ignore_dup_key: HARMLESS,
  allow_row_locks: HARMLESS,
  allow_page_locks: HARMLESS,
  optimize_for_sequential_key: HARMLESS,
  sort_in_tempdb: HARMLESS,
  drop_existing: HARMLESS,
  online: HARMLESS,
  maxdop: HARMLESS,
  resumable: HARMLESS,
  max_duration: HARMLESS,
  consumers: HARMLESS,
  statistics: HARMLESS,
  ignore_dup_row: HARMLESS,
  allow_dup_row: HARMLESS,
  sorted_data: HARMLESS,
  dml_logging: HARMLESS,
  deferred_allocation: HARMLESS,
  immediate_allocation: HARMLESS,
};

/**
 * Table options of `WITH (…)` (PostgreSQL storage parameters, SQL Server table options), by lower-case
 * name. PostgreSQL's autovacuum_* and toast.* parameters decide when VACUUM runs, which a workload's
 * phases state in rowsim: harmless.
 */
export const TABLE_WITH_OPTIONS: Readonly<Record<string, OptionRule>> = {
  fillfactor: { kind: 'setting', key: 'fillfactor', min: 10, max: 100 },
  toast_tuple_target: { kind: 'setting', key: 'toast_tuple_target', min: 128, max: 32768 },
  parallel_workers: HARMLESS,
  log_autovacuum_min_duration: HARMLESS,
  vacuum_index_cleanup: HARMLESS,
  vacuum_truncate: HARMLESS,
  user_catalog_table: HARMLESS,
  data_compression: { kind: 'only', values: ['none'], why: 'rowsim does not model compressed rows or pages' },
  xml_compression: { kind: 'only', values: ['off'], why: 'rowsim does not model compressed XML values' },
  memory_optimized: { kind: 'only', values: ['off'], why: 'a memory-optimized table keeps no data pages, which is what rowsim models' },
  durability: HARMLESS,
  system_versioning: HARMLESS,
  ledger: HARMLESS,
};

/** Is `name` (lower case, `toast.` prefix kept) a harmless PostgreSQL vacuum parameter? */
export function isVacuumParameter(name: string): boolean {
  return /^(toast\.)?autovacuum_/.test(name) || /^toast\.(vacuum_|log_autovacuum)/.test(name);
}

/**
 * ASE `create table … with …` options besides exp_row_size, reservepagegap, max_rows_per_page and
 * fillfactor (which the reader keeps): identity_gap and the logging and allocation options are harmless;
 * compression is refused unless none.
 */
export const ASE_TABLE_OPTIONS: Readonly<Record<string, OptionRule>> = {
  identity_gap: HARMLESS,
  dml_logging: HARMLESS,
  deferred_allocation: HARMLESS,
  immediate_allocation: HARMLESS,
  compression: { kind: 'only', values: ['none'], why: 'rowsim does not model compressed rows or pages' },
  lob_compression: { kind: 'only', values: ['0', 'off'], why: 'rowsim does not model compressed LOB values' },
};

/** One-word (or word-and-operand) clauses after an index's columns (Oracle, PostgreSQL, SQL Server, ASE). */
export const INDEX_CLAUSES: Readonly<Record<string, { operand: 'none' | 'word' | 'parens' | 'optional-number' } | { refuse: string }>> = {
  TABLESPACE: { operand: 'word' },
  MAXTRANS: { operand: 'word' },
  STORAGE: { operand: 'parens' },
  PARALLEL: { operand: 'optional-number' },
  NOPARALLEL: { operand: 'none' },
  LOGGING: { operand: 'none' },
  NOLOGGING: { operand: 'none' },
  NOCOMPRESS: { operand: 'none' },
  VISIBLE: { operand: 'none' },
  INVISIBLE: { operand: 'none' },
  ENABLE: { operand: 'none' },
  DISABLE: { operand: 'none' },
  VALIDATE: { operand: 'none' },
  NOVALIDATE: { operand: 'none' },
  DEFERRABLE: { operand: 'none' },
  DISTINCT: { operand: 'none' },
  NOT: { operand: 'word' },
  NULLS: { operand: 'word' },
  INITIALLY: { operand: 'word' },
  COMPUTE: { operand: 'word' },
  INCLUDE: {
    refuse: 'included (non-key) columns widen every leaf entry, which rowsim does not model: declare them as key columns to size the index',
  },
  WHERE: { refuse: 'a partial (filtered) index holds only some rows, which rowsim does not model' },
  COMPRESS: { refuse: 'rowsim does not model compressed index entries' },
  REVERSE: { refuse: 'a reverse-key index places its entries in another order, which rowsim does not model' },
  LOCAL: { refuse: 'a partitioned (local) index is one tree a partition, which rowsim does not model' },
  GLOBAL: { refuse: 'a partitioned (global) index is not modelled by rowsim' },
};

/** Index ITL slots rowsim's Oracle index blocks have: two [ORA-KDXLE], Oracle's default INITRANS of an index. */
export const ORACLE_INDEX_INITRANS = 2;
