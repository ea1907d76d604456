/**
 * What a DDL storage option means to rowsim (src/table/ddl-options.ts has the index options every dialect
 * shares), and the clauses a format declares (StorageFormat.ddl), joined by the registry for the DDL reader.
 * Plain data on the ground floor: the format modules and the DDL reader both name them.
 */
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
  | { kind: 'only'; values: readonly string[]; why: string }
  /** One of `values` (lower case, `ROW_FORMAT=DYNAMIC`): the storage option `key`, an engine setting where `engine`; `sign` as for a setting. */
  | { kind: 'word'; key: string; values: readonly string[]; why: string; engine?: true; sign?: string }
  /** A quoted comment whose `NAME=N` parts are settings (MySQL's `COMMENT='MERGE_THRESHOLD=45'`), by upper-case name. */
  | { kind: 'comment'; settings: Readonly<Record<string, OptionRule>> };

export const HARMLESS: OptionRule = { kind: 'harmless' };

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
  /** Table options `NAME[=]value` after the columns (MySQL's ENGINE=InnoDB, ROW_FORMAT=DYNAMIC, COMMENT='…'), by upper-case name. */
  assignments?: Readonly<Record<string, OptionRule>>;
  /** In DDL that shows itself this format's DBMS's, a column declared neither NULL nor NOT NULL is nullable (else NOT NULL, ASE's default). */
  nullableByDefault?: true;
  /** The character sets a column may name (MySQL's `CHARACTER SET latin1`), in lower case; others are refused. */
  charsets?: readonly string[];
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
  assignments: Readonly<Record<string, OptionRule>>;
  /** The storage options that show the DDL's DBMS, by DdlStorage key. */
  signs: readonly { key: string; sign: string; dbms: string }[];
  /** The storage options that are engine settings of the same name, in the registry's order. */
  engineKeys: readonly string[];
  /** The DBMSs whose DDL leaves an undeclared column nullable. */
  nullableByDefault: ReadonlySet<string>;
  /** Every format's character sets (DdlClauses.charsets). */
  charsets: readonly string[];
}
