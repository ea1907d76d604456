/**
 * The storage options of DDL indexes and tables that the DDL reader (src/table/ddl.ts) knows, and what
 * each means to rowsim: a setting it reads (the same index or engine setting the YAML form sets), an
 * option that does not change how rows and index entries are stored (read past), or one that does and
 * that rowsim cannot model (refused, with the reason). An option in none of these lists is refused too:
 * nothing a user wrote is dropped without a word. The index options here are every dialect's; a table's
 * storage clauses are each format's own (StorageFormat.ddl, DdlClauses), joined by the registry (DdlGrammar).
 */
import type { IndexSettingKey } from '../config/index-settings.js';

/** What an option written `name = value` means. */
export type OptionRule =
  /**
   * A whole number in min … max: the index setting, or for tables the storage option `key` (DdlStorage);
   * `engine`: the option is the engine setting of the same name, which the config may also set; `sign`:
   * the option shows the DDL's DBMS (the format's), named so in DdlStorage.dialect.
   */
  | { kind: 'setting'; key: string; min: number; max: number; engine?: true; sign?: string }
  /** A whole number in min … max that must be `value` (`why` says why there is no setting). */
  | { kind: 'fixed'; min: number; max: number; value: number; why: string }
  /** Refused wherever written, as "expected …" (Oracle's COMPRESS). */
  | { kind: 'refuse'; expected: string }
  /** PostgreSQL's `deduplicate_items = on | off`. */
  | { kind: 'flag' }
  /** SQL Server's PAD_INDEX: harmless OFF, or ON without a fill factor (checked once the options are read). */
  | { kind: 'pad' }
  /** Does not change storage: read past. */
  | { kind: 'harmless' }
  /** Harmless with one of `values` (lower case); any other value changes storage in a way rowsim does not model. */
  | { kind: 'only'; values: readonly string[]; why: string };

export const HARMLESS: OptionRule = { kind: 'harmless' };

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

/** A format's DDL storage clauses (StorageFormat.ddl): each table by the option's name as written. */
export interface DdlClauses {
  /** Table options of `with name = N, …` without parentheses (ASE), by lower-case name. */
  with?: Readonly<Record<string, OptionRule>>;
  /** Table storage parameters of `WITH (name = value, …)` (PostgreSQL, SQL Server), by lower-case name. */
  withParens?: Readonly<Record<string, OptionRule>>;
  /** Storage parameters harmless by the shape of their name (PostgreSQL's autovacuum_…), and how the reader's message names them. */
  harmlessParameters?: { test(name: string): boolean; label: string };
  /** Clauses `WORD N` after a table's columns (Oracle's PCTFREE 10), by upper-case word; a setting only with a number after it. */
  words?: Readonly<Record<string, OptionRule>>;
  /** Clauses `WORD N` after an index's columns (Oracle's PCTFREE 20, INITRANS 2), by upper-case word. */
  indexWords?: Readonly<Record<string, OptionRule>>;
  /** In DDL that shows itself this format's DBMS's, a column declared neither NULL nor NOT NULL is nullable (else NOT NULL, ASE's default). */
  nullableByDefault?: true;
}

/** Every format's DDL clauses joined (src/formats/registry.ts ddlGrammar): what the reader reads. */
export interface DdlGrammar {
  /** The lock schemes of `lock …` (upper case), and the DBMS each shows. */
  locks: ReadonlyMap<string, string>;
  with: Readonly<Record<string, OptionRule>>;
  withParens: Readonly<Record<string, OptionRule>>;
  harmlessParameters: readonly { test(name: string): boolean; label: string }[];
  words: Readonly<Record<string, OptionRule>>;
  indexWords: Readonly<Record<string, OptionRule>>;
  /** The storage options that show the DDL's DBMS, by DdlStorage key. */
  signs: readonly { key: string; sign: string; dbms: string }[];
  /** The storage options that are engine settings of the same name, in the registry's order. */
  engineKeys: readonly string[];
  /** The DBMSs whose DDL leaves an undeclared column nullable. */
  nullableByDefault: ReadonlySet<string>;
}
