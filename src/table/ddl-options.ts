/**
 * The storage options of DDL indexes and tables that the DDL reader (src/table/ddl.ts) knows, and what
 * each means to rowsim: a setting it reads (the same index or engine setting the YAML form sets), an
 * option that does not change how rows and index entries are stored (read past), or one that does and
 * that rowsim cannot model (refused, with the reason). An option in none of these lists is refused too:
 * nothing a user wrote is dropped without a word. The index options here are every dialect's; a table's
 * storage clauses are each format's own (StorageFormat.ddl, DdlClauses), joined by the registry (DdlGrammar).
 */
import type { IndexSettingKey } from '../config/index-settings.js';

import { HARMLESS, type OptionRule } from '../config/ddl-clauses.js';

export { HARMLESS, type OptionRule };
export type { DdlClauses, DdlGrammar } from '../config/ddl-clauses.js';

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

/** The settings of MySQL's `COMMENT 'MERGE_THRESHOLD=N'` on an index (the rest of the comment is prose). */
export const INDEX_COMMENT_SETTINGS: Readonly<Record<string, OptionRule>> = {
  MERGE_THRESHOLD: { kind: 'setting', key: 'merge_threshold' satisfies IndexSettingKey, min: 1, max: 50 },
};

/** One-word (or word-and-operand) clauses after an index's columns (Oracle, PostgreSQL, SQL Server, ASE). */
export const INDEX_CLAUSES: Readonly<
  Record<string, { operand: 'none' | 'word' | 'parens' | 'optional-number' | 'assignment' } | { refuse: string }>
> = {
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
  // MySQL: KEY … (cols) USING BTREE | HASH, KEY_BLOCK_SIZE=N (COMMENT '…': INDEX_COMMENT_SETTINGS).
  USING: { operand: 'word' },
  KEY_BLOCK_SIZE: { operand: 'assignment' },
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
