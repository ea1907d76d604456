/**
 * The resolved run specification: what the config means once parsed, validated and with units, files
 * (DDL, histograms) and defaults resolved. Plain data, so it crosses to worker threads unchanged.
 */
import type { Count } from '../util/units.js';
import type { ColumnType } from './column-types.js';
import type { COLUMN_STORAGES, EngineSettings, FormatId, IndexSettingKey, KEY_ORDERS } from './schema.js';
import type { DbmsId, DdlSetting, DdlTableOptions } from './format-ids.js';

export type { EngineSettings };

export interface ColumnDef {
  name: string;
  type: ColumnType;
  nullable: boolean;
  /** PostgreSQL's SET STORAGE for the column, where the config gives one (absent: the type's default). */
  storage?: ColumnStorage;
}

export type ColumnStorage = (typeof COLUMN_STORAGES)[number];

/**
 * Compressibility is kept per value as a construction code: a share in 64ths (0 … 60), or 64 + N for
 * `{ unit: N }` (src/formats/pg-compression.ts says how a value is built from it).
 */
export const COMPRESSIBILITY_STEPS = 64;

export interface IndexDef extends Partial<Record<IndexSettingKey, number>> {
  name: string;
  columns: string[];
  unique: boolean;
  /** The table's rows are kept in this index's order (at most one per table). */
  clustered: boolean;
  /** PostgreSQL's `deduplicate_items` storage parameter (absent: on). */
  deduplicate_items?: boolean;
  /** Created on the empty table before the first phase (absent: on the loaded table, after the first phase that leaves rows). */
  when?: 'before_load';
}

export interface TableDef {
  name: string;
  columns: ColumnDef[];
  indexes: IndexDef[];
  /** Storage options the table's DDL states (lock scheme, exp_row_size, fillfactor, PCTFREE …). */
  storage?: TableStorage;
}

/** The storage options of a table's DDL, and the .sql file they were read from (absent: inline DDL). */
export interface TableStorage extends DdlStorage {
  file?: string;
}

export type Dist =
  | { kind: 'const'; value: number }
  | { kind: 'uniform'; min: number; max: number }
  | { kind: 'normal'; mean: number; sd: number }
  | { kind: 'lognormal'; median: number; sigma: number }
  | { kind: 'choice'; values: number[]; weights: number[] }
  /** The lengths in the order the phase's values take them (from their start again when they run out); −1: NULL. */
  | { kind: 'sequence'; values: number[] };

/** Where a column's new values fall among its earlier values: above them all, anywhere, or next to one of them. */
export type KeyOrder = (typeof KEY_ORDERS)[number];

/** How often each of `distinct` values occurs. */
export type Frequency = { kind: 'uniform' } | { kind: 'zipf'; s: number };

/**
 * The values a column takes in a phase: `distinct` different ones (absent: every value its own), each
 * as often as `frequency` says, placed as `order` says. NULLs (the NULL share) are one more value.
 */
export interface ValueDomain {
  distinct?: number;
  frequency: Frequency;
  order: KeyOrder;
}

/**
 * What a value is made of for compression: a share of its bytes that repeat bytes shortly before them
 * (0 … 60/64), or `{ unit: N }`, a value that is its first N bytes repeated (src/formats/pg-compression.ts).
 */
export type Compressibility = number | { unit: number };

export interface ValueSpec {
  /** Length in characters (character types) or bytes; absent: the declared length. */
  length?: Dist;
  /** Share of NULLs, 0..1 (nullable columns only). */
  null: number;
  /** distinct, frequency or order as given (absent: every value distinct, ascending). */
  domain?: ValueDomain;
  /** What the value is made of for compression (character and binary columns; absent: nothing repeats). */
  compressibility?: Compressibility;
}

/** An update's change of a column; `domain`: the values it draws from, where the set names distinct, frequency or order. */
export type SetSpec =
  | { kind: 'changed'; domain?: ValueDomain }
  /** The value the row has (`SET c = c`): same length, same bytes. */
  | { kind: 'same' }
  | { kind: 'length'; dist: Dist; null?: number; domain?: ValueDomain; compressibility?: Compressibility }
  | { kind: 'grow'; dist: Dist; null?: number; domain?: ValueDomain; compressibility?: Compressibility }
  | { kind: 'null'; null: number; domain?: ValueDomain };

/** `sequential` (also written `oldest`): the first live rows by id; `newest`: the last. */
export type Order = { kind: 'sequential' } | { kind: 'newest' } | { kind: 'random' } | { kind: 'spread' } | { kind: 'zipf'; s: number };

/**
 * How an update or delete phase reaches its rows: `index`, each row found through the first index by its
 * key, one statement a row; `scan`, one statement that reads the table in page order (an unindexed
 * predicate, or none); `range`, one statement over a range of the first index's key (`WHERE id BETWEEN`).
 * The loader always sets it; a spec made in code without it means index.
 */
export type RowAccess = 'index' | 'scan' | 'range';

/** A phase's transactions: one for the phase, one a row, or `batch` rows each. */
export type TransactionScope = 'statement' | 'row' | { batch: number };

/** Rows a transaction of the scope takes (Infinity: the whole phase). */
export function rowsPerTransaction(t: TransactionScope = 'statement'): number {
  return t === 'statement' ? Infinity : t === 'row' ? 1 : t.batch;
}

/** The scope as the config writes it. */
export function transactionText(t: TransactionScope): string {
  return typeof t === 'string' ? t : `batch(${t.batch})`;
}

/** How a select phase reaches its rows: a table scan, a named index (root to leaf, then the row), or a row-id fetch. */
export type AccessPath = 'scan' | 'index' | 'rowid';

/** `WHERE column = @parameter` with the parameter of a given type: whether an index on the column can be sought. */
export interface PredicateSpec {
  column: string;
  /** The parameter's type as written (nvarchar(36)) and parsed. */
  parameterText: string;
  parameter: ColumnType;
}

/** Where a read_lob phase's LOB values are kept: the table's format, or a store rowsim models only for LOB reads. */
export type LobStoreKind = 'table' | 'derby';

export type PhaseSpec =
  /** `transaction` absent: one for the phase; `rollback` absent: false (COMMIT). */
  | { op: 'insert'; rows: Count; values: Record<string, ValueSpec>; transaction?: TransactionScope; rollback?: boolean }
  | {
      op: 'update';
      rows: Count;
      order: Order;
      via?: RowAccess;
      transaction: TransactionScope;
      rollback?: boolean;
      set: Record<string, SetSpec>;
    }
  | { op: 'delete'; rows: Count; order: Order; via?: RowAccess; transaction: TransactionScope; rollback?: boolean }
  /** Another session takes a snapshot (open) and keeps it until a later close: no version it may see is removed. */
  | { op: 'snapshot'; action: 'open' | 'close' }
  | { op: 'reorg'; kind: 'forwarded_rows' | 'rebuild' | 'compact' | 'vacuum' }
  | { op: 'select'; rows: Count; order: Order; via: AccessPath; index?: string; predicate?: PredicateSpec; repeat: number }
  | { op: 'read_lob'; rows: Count; order: Order; column: string; chunk: number; reposition: 'restart' | 'keep'; store: LobStoreKind };

/** The buffer cache read phases go through (`cache:`): its size in pages and its replacement policy. */
export interface CacheSpec {
  pages: number;
  policy: 'lru' | 'clock';
}

/** Costs of one page read (`costs:`), for an estimated elapsed time of each read phase. */
export interface ReadCosts {
  logical_read_ns: number;
  physical_read_ns: number;
}

/** A share drawn per value (clipped to 0 … 1): engine.multibyte_share or multibyte_widths.N as a distribution. */
export type ShareDist =
  | { kind: 'uniform'; min: number; max: number }
  | { kind: 'normal'; mean: number; sd: number }
  | { kind: 'choice'; values: number[]; weights: number[] };

/** The engine settings of a run: every key of the schema's `engine:` resolved, and the format. */
export interface EngineSpec extends EngineSettings {
  format: FormatId;
  /**
   * Shares of 2-, 3- and 4-byte utf8 characters that differ from value to value, where the config gives
   * distributions (null: that width's share is the same for every value); multibyte_share and
   * multibyte_widths then hold their means.
   */
  multibyte_vary?: [ShareDist | null, ShareDist | null, ShareDist | null];
  /** Settings given in the config that this format does not use: reported as notes. */
  ignored: string[];
}

export interface StorageSpec {
  name: string;
  seed: number;
  table: TableDef;
  engine: EngineSpec;
  workload: PhaseSpec[];
  /** The buffer cache of read phases; absent: reads are counted, not cached. */
  cache?: CacheSpec;
  costs?: ReadCosts;
}

export interface SweepPoint {
  label: string;
  params: Record<string, string | number | boolean>;
  spec: StorageSpec;
}

export type { DdlSetting };

/** A table's lock scheme as its DDL names it (`lock datarows`): the formats' ddlLocks say which they are. */
export type LockScheme = string;

/**
 * The table's storage options as the DDL states them (absent: not stated): those every dialect may write
 * here, each format's own storage clauses (exp_row_size, fillfactor, PCTFREE …) from DdlTableOptions,
 * which the format modules fill.
 */
export interface DdlStorage extends DdlTableOptions {
  /** A `lock` clause (ASE's `lock allpages | datapages | datarows`). */
  lock?: DdlSetting<LockScheme>;
  /** Where each index setting the DDL states (WITH FILLFACTOR = 80, PCTFREE 20 …) was written, by index name. */
  indexOptions?: { index: string; key: string; line: number; column: number }[];
  /** ASE `on 'segment'`. */
  segment?: string;
  /** ASE `partition by roundrobin | hash | range | list …`: the scheme and, where stated, the count. */
  partitions?: { kind: string; count?: number };
  /** The database of a `use db` before the CREATE TABLE, or of a db.owner.table name. */
  database?: string;
  /** The owner of an owner.table name or of a `setuser 'owner'` before the CREATE TABLE. */
  owner?: string;
  /** The table's name as CREATE TABLE writes it, and where. */
  created?: DdlSetting<string>;
  /** The DBMS the DDL was written for, where its text shows it (src/table/ddl.ts ddlDialect). */
  dialect?: DdlDialect;
}

/** The DBMSs whose DDL the reader can tell apart: those the formats model (src/config/format-ids.ts DbmsIds). */
export type DdlDbms = DbmsId;

/** What showed the DDL's DBMS (`lock datarows`, `[dbo]`, `ALTER TABLE ONLY` …) and where. */
export interface DdlDialect extends DdlSetting<DdlDbms> {
  sign: string;
}
