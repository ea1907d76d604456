/**
 * The config's table as MySQL DDL, and the values mysql-check sends. Pure: no server.
 *
 * DDL: `CREATE TABLE … ENGINE=InnoDB ROW_FORMAT=… DEFAULT CHARSET=… COLLATE …_bin`, the clustered index as
 * the PRIMARY KEY (InnoDB's table is its clustered index), the other indexes inline when created before
 * the load, else as CREATE INDEX after the first phase that leaves rows (as the simulator builds them).
 *
 * Values: a row has a code per column (its insertion number + 1, or a scrambled one for `order: random`,
 * shifted when an update changes it), so keys sort and repeat as the config says; a character value is
 * the code in base 36, zero-padded to 13 characters, then filler letters up to the drawn length (ASCII:
 * one byte a character in latin1 and utf8mb4); a binary value the code's 8 bytes, big-endian, then zero
 * bytes; a column no index reads is filler only (its bytes are what the page holds, not what they say).
 */
import type { ColumnDef, EngineSpec, IndexDef, TableDef } from '../config/spec.js';
import { quoteName } from './scratch.js';
import { tableCharset } from '../formats/innodb-comparison.js';

/** Input mysql-check cannot replay (the CLI prints it and exits 2). */
export class MysqlCheckError extends Error {}

export type SqlValue = number | string | Buffer | null;

/** How a column's values are made. */
type ValueKind = 'int' | 'number' | 'bool' | 'date' | 'time' | 'datetime' | 'text' | 'bytes';

export interface ColumnPlan {
  name: string;
  ddl: string;
  kind: ValueKind;
  nullable: boolean;
  /** A column some index reads: its values carry their code. */
  keyed: boolean;
  /** Characters (text) or bytes a value has at most. */
  maxUnits: number;
  /** The length a value has when the config draws none (fixed types: their size). */
  defaultUnits: number;
  /** A type whose values all have one size (numbers, dates, CHAR, BINARY): no length is drawn for it. */
  fixed: boolean;
  /** Largest value of an integer type. */
  intMax: number;
}

export interface TablePlan {
  /** Quoted table name (inside the scratch database, which is the connection's current one). */
  ident: string;
  columns: ColumnPlan[];
  createSql: string;
  /** CREATE INDEX statements sent after the first phase that leaves rows. */
  laterIndexes: string[];
  /** Positions of the clustered key's columns: the PRIMARY KEY's, else the UNIQUE NOT NULL index InnoDB promotes (a DDL's PRIMARY KEY without CLUSTERED); empty: InnoDB's own row id. */
  primary: number[];
  /** The first index's leading column, which `via: range` runs over (−1: no index). */
  rangeColumn: number;
  /** Every index as the config names it and as the server does (PRIMARY, GEN_CLUST_INDEX). */
  indexes: { config: string | null; server: string }[];
  rowFormat: string;
  charset: string;
}

const INT_MAX: Record<string, number> = {
  tinyint: 127,
  smallint: 32_767,
  mediumint: 8_388_607,
  int: 2_147_483_647,
  integer: 2_147_483_647,
  bigint: Number.MAX_SAFE_INTEGER,
};
const ROW_FORMATS = ['dynamic', 'compact', 'redundant', 'compressed'];
/** A value's length when the config draws none and the type is unbounded (text, blob). */
const UNBOUNDED_DEFAULT_UNITS = 0;
/** Longest value sent (max_allowed_packet is 16 MB by default on MariaDB, 64 MB on MySQL 8). */
const MAX_SENT_UNITS = 8 << 20;

function intColumn(c: ColumnDef): Pick<ColumnPlan, 'ddl' | 'kind' | 'intMax'> {
  const unsigned = c.type.name.startsWith('unsigned ');
  const base = c.type.name.replace(/^unsigned /, '');
  const max = INT_MAX[base];
  if (max === undefined) throw new MysqlCheckError(`column ${c.name}: type ${c.type.sql} has no MySQL integer type`);
  return { ddl: `${base.toUpperCase()}${unsigned ? ' UNSIGNED' : ''}`, kind: 'int', intMax: max };
}

function datetimeColumn(c: ColumnDef): Pick<ColumnPlan, 'ddl' | 'kind'> {
  const n = c.type.name;
  if (n === 'date') return { ddl: 'DATE', kind: 'date' };
  if (n === 'time') return { ddl: 'TIME', kind: 'time' };
  if (n === 'timestamp') return { ddl: 'TIMESTAMP NULL', kind: 'datetime' };
  if (n === 'datetime2') return { ddl: 'DATETIME(6)', kind: 'datetime' };
  return { ddl: 'DATETIME', kind: 'datetime' };
}

/** The column's MySQL type and how its values are made. */
function columnPlan(c: ColumnDef, keyed: boolean): ColumnPlan {
  const t = c.type;
  const base = { name: c.name, nullable: c.nullable, keyed, maxUnits: 0, defaultUnits: 0, intMax: 0, fixed: true };
  const sized = (ddl: string, kind: ValueKind, units: number, fixed: boolean): ColumnPlan => ({
    ...base,
    ddl,
    kind,
    maxUnits: units,
    defaultUnits: fixed ? units : Math.min(units, MAX_SENT_UNITS),
    fixed,
  });
  switch (t.family) {
    case 'int':
      return { ...base, ...intColumn(c) };
    case 'float':
      return { ...base, ddl: t.name === 'real' ? 'FLOAT' : 'DOUBLE', kind: 'number' };
    case 'numeric':
      return { ...base, ddl: `DECIMAL(${t.precision},${t.scale})`, kind: 'number', intMax: 10 ** Math.max(1, t.precision - t.scale) - 1 };
    case 'money':
      return { ...base, ddl: 'DECIMAL(19,4)', kind: 'number', intMax: 1e14 };
    case 'bool':
      return { ...base, ddl: 'BOOLEAN', kind: 'bool' };
    case 'datetime':
      return { ...base, ...datetimeColumn(c) };
    case 'uuid':
      return sized('BINARY(16)', 'bytes', 16, true);
    case 'char':
      if (t.length > 255) throw new MysqlCheckError(`column ${c.name}: CHAR(${t.length}) is over MySQL's 255 characters`);
      return sized(`CHAR(${t.length})`, 'text', t.length, true);
    case 'binary':
      if (t.length > 255) throw new MysqlCheckError(`column ${c.name}: BINARY(${t.length}) is over MySQL's 255 bytes`);
      return sized(`BINARY(${t.length})`, 'bytes', t.length, true);
    case 'varchar':
      return sized(`VARCHAR(${t.length})`, 'text', t.length, false);
    case 'varbinary':
      return sized(`VARBINARY(${t.length})`, 'bytes', t.length, false);
    case 'text':
      return {
        ...sized(/^(tiny|medium|long)?text$/.test(t.name) ? t.name.toUpperCase() : 'LONGTEXT', 'text', MAX_SENT_UNITS, false),
        defaultUnits: UNBOUNDED_DEFAULT_UNITS,
      };
    case 'blob':
      return {
        ...sized(/^(tiny|medium|long)?blob$/.test(t.name) ? t.name.toUpperCase() : 'LONGBLOB', 'bytes', MAX_SENT_UNITS, false),
        defaultUnits: UNBOUNDED_DEFAULT_UNITS,
      };
  }
}

/** An engine setting the core schema does not know yet (the innodb format declares it): its text, if given. */
function engineText(engine: EngineSpec, key: string): string | undefined {
  const v = (engine as unknown as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : undefined;
}

function indexColumnsSql(idx: IndexDef): string {
  return idx.columns.map(quoteName).join(', ');
}

/** `COMMENT 'MERGE_THRESHOLD=N'` where the index states one. */
function indexComment(idx: IndexDef): string {
  const t = (idx as unknown as Record<string, unknown>).merge_threshold;
  return typeof t === 'number' ? ` COMMENT 'MERGE_THRESHOLD=${t}'` : '';
}

/** The index InnoDB clusters the table by: the config's clustered one (the PRIMARY KEY), else InnoDB's choice. */
function clusteredIndex(table: TableDef): { primary: IndexDef | undefined; promoted: IndexDef | undefined } {
  const primary = table.indexes.find((i) => i.clustered);
  if (primary && !primary.unique)
    throw new MysqlCheckError(`index ${primary.name}: InnoDB clusters a table by its PRIMARY KEY, which is unique: add unique: true`);
  // Without a PRIMARY KEY, InnoDB clusters by the first UNIQUE index whose columns are all NOT NULL.
  const notNull = (i: IndexDef) =>
    i.columns.every((c) => table.columns.find((x) => x.name.toLowerCase() === c.toLowerCase())?.nullable === false);
  return { primary, promoted: primary ? undefined : table.indexes.find((i) => i.unique && notNull(i)) };
}

export function tablePlan(table: TableDef, engine: EngineSpec): TablePlan {
  const rowFormat = (engineText(engine, 'row_format') ?? 'dynamic').toLowerCase();
  if (!ROW_FORMATS.includes(rowFormat))
    throw new MysqlCheckError(`engine.row_format: expected one of ${ROW_FORMATS.join(', ')}, found ${rowFormat}`);
  // The table's default character set, as the innodb format sizes its columns: DEFAULT CHARSET=…, else the encoding's.
  const charset = tableCharset(engine);
  const position = (name: string) => {
    const i = table.columns.findIndex((c) => c.name.toLowerCase() === name.toLowerCase());
    if (i < 0) throw new MysqlCheckError(`index column ${name}: no such column in table ${table.name}`);
    return i;
  };
  const keyed = new Set(table.indexes.flatMap((i) => i.columns.map(position)));
  const columns = table.columns.map((c, i) => {
    const plan = columnPlan(c, keyed.has(i));
    // A column's own character set; NCHAR and NVARCHAR are MySQL's national set, utf8mb3.
    const set = c.type.characterSet ?? (c.type.national ? 'utf8mb3' : undefined);
    return set ? { ...plan, ddl: `${plan.ddl} CHARACTER SET ${set}` } : plan;
  });
  const { primary, promoted } = clusteredIndex(table);
  const ident = quoteName(table.name);
  const parts = columns.map((c) => `${quoteName(c.name)} ${c.ddl}${c.nullable ? '' : ' NOT NULL'}`);
  if (primary) parts.push(`PRIMARY KEY (${indexColumnsSql(primary)})${indexComment(primary)}`);
  const laterIndexes: string[] = [];
  for (const idx of table.indexes) {
    if (idx === primary) continue;
    const def = `${idx.unique ? 'UNIQUE ' : ''}KEY ${quoteName(idx.name)} (${indexColumnsSql(idx)})${indexComment(idx)}`;
    // The index InnoDB clusters by must be there before the rows: it is the table.
    if (idx.when === 'before_load' || idx === promoted) parts.push(def);
    else
      laterIndexes.push(
        `CREATE ${idx.unique ? 'UNIQUE ' : ''}INDEX ${quoteName(idx.name)} ON ${ident} (${indexColumnsSql(idx)})${indexComment(idx)}`,
      );
  }
  const createSql = `CREATE TABLE ${ident} (${parts.join(', ')}) ENGINE=InnoDB ROW_FORMAT=${rowFormat.toUpperCase()} DEFAULT CHARSET=${charset} COLLATE=${charset}_bin`;
  const indexes: TablePlan['indexes'] = table.indexes.map((i) => ({ config: i.name, server: i === primary ? 'PRIMARY' : i.name }));
  if (!primary && !promoted) indexes.unshift({ config: null, server: 'GEN_CLUST_INDEX' });
  const first = table.indexes[0];
  return {
    ident,
    columns,
    createSql,
    laterIndexes,
    primary: (primary ?? promoted)?.columns.map(position) ?? [],
    rangeColumn: first ? position(first.columns[0]!) : -1,
    indexes,
    rowFormat,
    charset,
  };
}

/** A code in [1, 2^31) scrambled: a bijection there (an odd multiplier modulo 2^31), so random keys never repeat. */
export function scramble(code: number): number {
  return Math.imul(code, 0x9e3779b1) & 0x7fffffff || 1;
}

const DAY_S = 86_400;
const EPOCH_2000_S = 946_684_800;

function isoSeconds(s: number): string {
  return new Date(s * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

/** The value of a column for a code and a length (units: characters or bytes; −1: NULL); `fill` is the filler letter. */
export function valueOf(c: ColumnPlan, code: number, units: number, fill = 'x'): SqlValue {
  if (units < 0) return null;
  switch (c.kind) {
    case 'int':
    case 'number':
      return c.intMax > 0 ? code % c.intMax : code;
    case 'bool':
      return code & 1;
    case 'date':
      return isoSeconds(EPOCH_2000_S + (code % 2_900_000) * DAY_S).slice(0, 10);
    case 'time':
      return isoSeconds(code % DAY_S).slice(11);
    case 'datetime':
      return isoSeconds(EPOCH_2000_S + (code % 1_000_000_000));
    case 'text': {
      const n = Math.min(units, c.maxUnits);
      if (!c.keyed) return fill.repeat(n);
      return (code.toString(36).padStart(13, '0') + fill.repeat(Math.max(0, n - 13))).slice(0, n);
    }
    case 'bytes': {
      const b = Buffer.alloc(Math.min(units, c.maxUnits));
      if (c.keyed) {
        const head = Buffer.alloc(8);
        head.writeBigUInt64BE(BigInt(code));
        head.copy(b, 0, 0, Math.min(8, b.length));
      } else b.fill(fill.charCodeAt(0));
      return b;
    }
  }
}
