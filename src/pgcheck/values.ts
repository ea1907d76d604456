/**
 * The values pg-check sends for the rows the workload runner generated. The runner decides a stored
 * length per value (bytes, NULL_LEN for NULL); this module makes a value of exactly that many bytes as
 * PostgreSQL stores it, and makes it different from every other value of its column:
 *
 *   - every value of a column has an ordinal, its *code* (plan.ts numbers them: a phase's values after
 *     the phases before, an insert phase's in row order, an update phase's by (how often the row was
 *     already updated in the phase, row)); the value encodes its code in a fixed-width key at its start,
 *     so values sort in code order and two codes give two values;
 *   - a type or a length with fewer values than the column has codes wraps (code mod capacity): plan.ts
 *     keeps such a value different from the row's previous one and reports where values repeat;
 *   - the rest of a string or bytea is random (so pglz and lz4 find nothing to compress), with exactly
 *     the multi-byte characters that make up its byte length under utf8 (2 bytes each: U+00C0–U+00FF).
 *
 * Per type: integers count up from 1; real / double precision count up in their own bit patterns (every
 * value exact); numeric(p, s) has as many digits as its stored bytes allow (every digit 1–9, the last at
 * the s-th decimal place, so neither its first nor its last NBASE group is zero and it takes the bytes
 * pgNumericBytes gives); money counts cents; date counts
 * days from 2000-01-01, time microseconds, timestamp(tz) seconds from 2000-01-01 00:00:00 (+00); uuid
 * holds the code in its first 8 bytes; boolean alternates. Pure and deterministic from (seed, row,
 * column, code).
 */
import type { ColumnDef, TableDef } from '../config/spec.js';
import { pgNumericBytes, type PgTableLayout, type PgType } from '../formats/postgres.js';
import { NULL_LEN } from '../layout/table-layout.js';
import { Prng } from '../util/prng.js';

/** 62 ASCII key digits in byte order (so keys sort bytewise in code order under COLLATE "C"). */
const ASCII_DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 64 characters of 2 bytes each in UTF-8 (U+00C0 … U+00FF: C3 80 … C3 BF), in byte order. */
const MULTIBYTE_DIGITS = Array.from({ length: 64 }, (_, i) => String.fromCharCode(0xc0 + i)).join('');
const HEX = '0123456789abcdef';
/** The largest code a JavaScript number counts exactly. */
const MAX_CODE = Number.MAX_SAFE_INTEGER;

/** 2000-01-01 in days from 1970-01-01 (PostgreSQL's own epoch for dates and timestamps). */
const EPOCH_2000_DAYS = 10_957;
/** Microseconds in a day: the values of `time`. */
const DAY_MICROS = 86_400_000_000;
/** date goes up to 5874897-12-31 (PostgreSQL's documented range); codes stay well inside. */
const DATE_CAPACITY = 2_000_000_000;
/** timestamp goes up to 294276 AD: about 9.2e12 seconds from 2000. */
const TIMESTAMP_CAPACITY = 9_000_000_000_000;
/** float4 1.0 (0x3F800000) up to the largest finite float4 (0x7F7FFFFF): every bit pattern a value. */
const FLOAT4_ONE_BITS = 0x3f800000;
const FLOAT4_CAPACITY = 0x7f7fffff - FLOAT4_ONE_BITS + 1;

export type SqlValue = string | number | boolean | Buffer | null;

/** How a column's values are made (one per PostgreSQL type pg-check creates). */
export type ValueKind =
  | 'int2'
  | 'int4'
  | 'int8'
  | 'float4'
  | 'float8'
  | 'numeric'
  | 'money'
  | 'date'
  | 'time'
  | 'timestamp'
  | 'timestamptz'
  | 'bool'
  | 'uuid'
  | 'bpchar'
  | 'varchar'
  | 'text'
  | 'bytea';

export interface ColumnSql {
  name: string;
  /** Quoted identifier. */
  ident: string;
  type: PgType;
  kind: ValueKind;
  nullable: boolean;
  indexed: boolean;
  /** Position among the row's stored lengths, or −1 (a NOT NULL column of one size: type.bytes). */
  varIndex: number;
  /** Characters of char(n) / varchar(n); 0 when unbounded (text). */
  declaredChars: number;
  /** numeric(p, s). */
  precision: number;
  scale: number;
  /** Bytes per character under the engine's encoding (1 + multibyte_share under utf8; 1 for other types). */
  bytesPerChar: number;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function kindOf(t: PgType): ValueKind {
  const sql = t.sql;
  if (sql === 'smallint') return 'int2';
  if (sql === 'integer') return 'int4';
  if (sql === 'bigint') return 'int8';
  if (sql === 'real') return 'float4';
  if (sql === 'double precision') return 'float8';
  if (sql.startsWith('numeric(')) return 'numeric';
  if (sql.startsWith('char(')) return 'bpchar';
  if (sql.startsWith('varchar(')) return 'varchar';
  if (sql === 'money' || sql === 'date' || sql === 'time' || sql === 'timestamp' || sql === 'timestamptz' || sql === 'uuid' || sql === 'text' || sql === 'bytea') return sql;
  if (sql === 'boolean') return 'bool';
  throw new Error(`pg-check makes no values of type ${sql}`);
}

function columnSql(c: ColumnDef, i: number, layout: PgTableLayout): ColumnSql {
  const t = layout.pg.types[i]!;
  const cl = layout.columns[i]!;
  const kind = kindOf(t);
  return {
    name: c.name,
    ident: quoteIdent(c.name),
    type: t,
    kind,
    nullable: c.nullable,
    indexed: cl.indexed,
    varIndex: cl.varIndex,
    declaredChars: kind === 'bpchar' || kind === 'varchar' ? c.type.length : 0,
    precision: c.type.precision,
    scale: c.type.scale,
    bytesPerChar: cl.character ? cl.bytesPerChar : 1,
  };
}

export function columnsSql(table: TableDef, layout: PgTableLayout): ColumnSql[] {
  return table.columns.map((c, i) => columnSql(c, i, layout));
}

/** The column's SQL type in CREATE TABLE: character types sort bytewise (COLLATE "C"), as the keys are made. */
export function columnDdlType(col: ColumnSql): string {
  return col.kind === 'bpchar' || col.kind === 'varchar' || col.kind === 'text' ? `${col.type.sql} COLLATE "C"` : col.type.sql;
}

/** The stored length of column `col` in a row whose stored lengths are lens[base …]: bytes, or NULL_LEN. */
export function storedLength(col: ColumnSql, lens: Uint16Array, base: number): number {
  return col.varIndex >= 0 ? lens[base + col.varIndex]! : col.type.bytes;
}

/** Digits of `radix` needed for codes 0 … total − 1 (at least 1). */
export function keyWidth(total: number, radix: number): number {
  let w = 1;
  let reach = radix;
  while (reach < total && reach < MAX_CODE) {
    w++;
    reach *= radix;
  }
  return w;
}

/** A string value's shape: characters, how many take 2 bytes, and the key's width and digits' radixes. */
interface StringShape {
  chars: number;
  multi: number;
  /** Key characters at the start. */
  key: number;
  /** Key positions (from the end of the key) that are 2-byte characters. */
  keyMulti: number;
}

/**
 * The characters of a `bytes`-byte string of `col` under `bytesPerChar`: char(n) has exactly n; varchar
 * and text as close to bytes / bytesPerChar as the declared length and the 1–2 bytes a character allow.
 */
function stringShape(col: ColumnSql, bytes: number, width: number): StringShape {
  const bytesPerChar = col.bytesPerChar;
  let chars: number;
  if (col.kind === 'bpchar') chars = col.declaredChars;
  else {
    const most = col.declaredChars > 0 ? Math.min(col.declaredChars, bytes) : bytes;
    chars = Math.min(most, Math.max(Math.ceil(bytes / 2), Math.round(bytes / bytesPerChar)));
  }
  const multi = bytes - chars;
  if (multi < 0 || multi > chars) throw new Error(`pg-check cannot make a ${col.type.sql} value of ${bytes} bytes (${chars} characters)`);
  const key = Math.min(chars, width);
  return { chars, multi, key, keyMulti: Math.max(0, multi - (chars - key)) };
}

/** Distinct values of a string shape's key (ASCII digits 62, 2-byte digits 64). */
function stringCapacity(s: StringShape): number {
  return Math.min(MAX_CODE, 62 ** (s.key - s.keyMulti) * 64 ** s.keyMulti);
}

/** ⌈log_radix⌉-wide keys for the column's codes: how wide its key is. */
export function columnKeyWidth(col: ColumnSql, totalCodes: number): number {
  return col.kind === 'bytea' ? keyWidth(totalCodes, 256) : keyWidth(totalCodes, 62);
}

/** A numeric(p, s) value's digits for its stored bytes: the most digits that take exactly those bytes. */
function numericDigits(col: ColumnSql, bytes: number): number {
  for (let d = col.precision; d >= 0; d--) if (pgNumericBytes(d, col.scale) === bytes) return d;
  throw new Error(`pg-check cannot make a ${col.type.sql} value of ${bytes} bytes`);
}

/**
 * Values of one column: its capacity at a length and the value of a code. `width` is the key width for
 * the column's number of codes (columnKeyWidth).
 */
export class ColumnValues {
  private readonly digitsOf = new Map<number, number>();
  constructor(
    readonly col: ColumnSql,
    readonly ci: number,
    private readonly seed: number,
    private readonly width: number,
  ) {}

  private numericDigits(len: number): number {
    let d = this.digitsOf.get(len);
    if (d === undefined) this.digitsOf.set(len, (d = numericDigits(this.col, len)));
    return d;
  }

  /** How many distinct values a `len`-byte value of this column can take (1: it cannot change). */
  capacity(len: number): number {
    const col = this.col;
    switch (col.kind) {
      case 'int2':
        return 32_767;
      case 'int4':
        return 2_147_483_647;
      case 'int8':
      case 'money':
      case 'uuid':
        return MAX_CODE;
      case 'float4':
        return FLOAT4_CAPACITY;
      case 'float8':
        return 2 ** 52;
      case 'numeric':
        return Math.min(MAX_CODE, 9 ** this.numericDigits(len));
      case 'date':
        return DATE_CAPACITY;
      case 'time':
        return DAY_MICROS;
      case 'timestamp':
      case 'timestamptz':
        return TIMESTAMP_CAPACITY;
      case 'bool':
        return 2;
      case 'bytea':
        return Math.min(MAX_CODE, 256 ** Math.min(len, this.width));
      case 'bpchar':
      case 'varchar':
      case 'text':
        return stringCapacity(stringShape(col, len, this.width));
    }
  }

  /**
   * The value whose key is `code` (0 ≤ code < capacity(len)), `len` stored bytes (NULL_LEN: NULL); `row`
   * and `draw` seed the random part (draw: the column's code before any wrap, so each value has its own).
   */
  value(code: number, len: number, row: number, draw: number): SqlValue {
    if (len === NULL_LEN) return null;
    const col = this.col;
    switch (col.kind) {
      case 'int2':
      case 'int4':
      case 'int8':
        return code + 1;
      case 'float4':
        return float4FromBits(FLOAT4_ONE_BITS + code);
      case 'float8':
        return code + 0.5;
      case 'numeric':
        return numericValue(code, this.numericDigits(len), col.scale);
      case 'money':
        return `${Math.floor(code / 100)}.${String(code % 100).padStart(2, '0')}`;
      case 'date':
        return civilDate(EPOCH_2000_DAYS + code);
      case 'time':
        return clockTime(code);
      case 'timestamp':
        return timestampValue(code);
      case 'timestamptz':
        return `${timestampValue(code)}+00`;
      case 'bool':
        return code % 2 === 1;
      case 'uuid':
        return uuidValue(code, Prng.derive(this.seed, 'value', row, this.ci, draw));
      case 'bytea':
        return byteaValue(code, len, this.width, Prng.derive(this.seed, 'value', row, this.ci, draw));
      case 'bpchar':
      case 'varchar':
      case 'text':
        return stringValue(code, stringShape(col, len, this.width), Prng.derive(this.seed, 'value', row, this.ci, draw));
    }
  }
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

function float4FromBits(bits: number): number {
  u32[0] = bits >>> 0;
  return f32[0]!;
}

/**
 * numeric(p, s) of `digits` digits, each from 1 to 9 (the code in base 9, most significant first), the
 * last at the s-th decimal place: 1234.56 for 6 digits of numeric(12,2), 0.05 for 1; 0 for none.
 */
function numericValue(code: number, digits: number, scale: number): string {
  if (digits === 0) return scale > 0 ? `0.${'0'.repeat(scale)}` : '0';
  const out = new Array<string>(digits);
  let c = code;
  for (let i = digits - 1; i >= 0; i--) {
    out[i] = String(1 + (c % 9));
    c = Math.floor(c / 9);
  }
  const all = out.join('');
  if (scale === 0) return all;
  if (digits > scale) return `${all.slice(0, digits - scale)}.${all.slice(digits - scale)}`;
  return `0.${all.padStart(scale, '0')}`;
}

/** Days from 1970-01-01 as YYYY-MM-DD (the proleptic Gregorian calendar, any year from 1970 on). */
function civilDate(days: number): string {
  // Howard Hinnant's days_from_civil inverse, in whole numbers.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

const two = (n: number) => String(n).padStart(2, '0');

/** Microseconds of the day as HH:MM:SS.ffffff. */
function clockTime(micros: number): string {
  const s = Math.floor(micros / 1_000_000);
  return `${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}.${String(micros % 1_000_000).padStart(6, '0')}`;
}

/** Seconds from 2000-01-01 00:00:00. */
function timestampValue(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const s = seconds % 86_400;
  return `${civilDate(EPOCH_2000_DAYS + days)} ${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}

function uuidValue(code: number, rng: Prng): string {
  let h = code.toString(16).padStart(16, '0');
  for (let i = 0; i < 16; i++) h += HEX[rng.int(16)];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** `len` bytes: the code big-endian in the first min(len, width) bytes, then random bytes. */
function byteaValue(code: number, len: number, width: number, rng: Prng): Buffer {
  const b = Buffer.alloc(len);
  const key = Math.min(len, width);
  let c = code;
  for (let i = key - 1; i >= 0; i--) {
    b[i] = c % 256;
    c = Math.floor(c / 256);
  }
  for (let i = key; i < len; i++) b[i] = rng.int(256);
  return b;
}

/**
 * A string of `s.chars` characters, `s.multi` of them 2-byte: the key first (ASCII digits, and 2-byte
 * digits at its end when the rest of the string cannot hold every 2-byte character), the 2-byte
 * characters of the rest at random positions, random ASCII letters and digits elsewhere.
 */
function stringValue(code: number, s: StringShape, rng: Prng): string {
  const out = new Array<string>(s.chars);
  let c = code;
  for (let i = s.key - 1; i >= 0; i--) {
    const multi = i >= s.key - s.keyMulti;
    const radix = multi ? 64 : 62;
    out[i] = (multi ? MULTIBYTE_DIGITS : ASCII_DIGITS)[c % radix]!;
    c = Math.floor(c / radix);
  }
  const rest = s.chars - s.key;
  const restMulti = s.multi - s.keyMulti;
  if (rest > 0) {
    // A partial Fisher–Yates shuffle of the rest's positions picks where its 2-byte characters go.
    const pos = new Int32Array(rest);
    for (let i = 0; i < rest; i++) pos[i] = s.key + i;
    for (let i = 0; i < restMulti; i++) {
      const j = i + rng.int(rest - i);
      const t = pos[j]!;
      pos[j] = pos[i]!;
      pos[i] = t;
      out[t] = MULTIBYTE_DIGITS[rng.int(64)]!;
    }
    for (let i = restMulti; i < rest; i++) out[pos[i]!] = ASCII_DIGITS[rng.int(62)]!;
  }
  return out.join('');
}
