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
 *     the multi-byte characters of 2, 3 and 4 bytes that make up its byte length under utf8, their
 *     shares as the config gives them (random code points of each width);
 *   - a string or bytea the workload gives a compressibility is built as src/formats/pg-compression.ts
 *     says (blocks of fresh bytes and repeats), its key spread over alphabets of its own, and run
 *     through pglz and LZ4 (pglz.ts, lz4.ts) before it is sent: its compressed size under each must be
 *     the model's (a value that misses is drawn again).
 *
 * Per type: integers count up from 1; real / double precision count up in their own bit patterns (every
 * value exact); numeric(p, s) has as many digits as its stored bytes allow (every digit 1–9, the last at
 * the s-th decimal place, so neither its first nor its last NBASE group is zero and it takes the bytes
 * pgNumericBytes gives); money counts cents; date counts
 * days from 2000-01-01, time microseconds, timestamp(tz) seconds from 2000-01-01 00:00:00 (+00); uuid
 * holds the code in its first 8 bytes; boolean alternates. Pure and deterministic from (seed, row,
 * column, code).
 */
import type { ColumnDef, EngineSpec, TableDef } from '../config/spec.js';
import { pgNumericBytes, type PgTableLayout, type PgType } from '../formats/postgres.js';
import {
  compressedDatumBytes,
  compresses,
  forEachBlock,
  lz4Bytes,
  pglzBytes,
  unitOf,
  type ToastCompression,
} from '../formats/pg-compression.js';
import { NULL_LEN, utf8WidthShares } from '../layout/table-layout.js';
import { Prng } from '../util/prng.js';
import { lz4CompressedSize } from './lz4.js';
import { pglzCompressedSize } from './pglz.js';
import { buildBlocks } from './value-blocks.js';
import { ASCII_DIGITS, putUtf8, randomCodePoint, scratchBytes } from './value-bytes.js';

/**
 * The first of the key digits of 2, 3 and 4 bytes in UTF-8, 64 of each in byte order: U+00C0 … U+00FF (C3 80 … C3 BF),
 * U+4E00 … U+4E3F (E4 B8 80 … E4 B8 BF), U+1F600 … U+1F63F (F0 9F 98 80 … F0 9F 98 BF).
 */
const WIDE_DIGIT_BASE: readonly number[] = [0, 0, 0xc0, 0x4e00, 0x1f600];
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
  /** Bytes per character under the engine's encoding (utf8BytesPerChar under utf8; 1 for other types). */
  bytesPerChar: number;
  /** Shares of the characters that take 2, 3 and 4 bytes (character columns under utf8; else 0). */
  widths: readonly [number, number, number];
  /** The method a value is compressed with (default_toast_compression): compressible values are checked against it. */
  compression: ToastCompression;
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
  if (
    sql === 'money' ||
    sql === 'date' ||
    sql === 'time' ||
    sql === 'timestamp' ||
    sql === 'timestamptz' ||
    sql === 'uuid' ||
    sql === 'text' ||
    sql === 'bytea'
  )
    return sql;
  if (sql === 'boolean') return 'bool';
  throw new Error(`pg-check makes no values of type ${sql}`);
}

function columnSql(c: ColumnDef, i: number, layout: PgTableLayout, engine: EngineSpec): ColumnSql {
  const t = layout.pg.types[i]!;
  const cl = layout.columns[i]!;
  const kind = kindOf(t);
  const utf8 = cl.character && engine.encoding === 'utf8';
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
    widths: utf8 ? utf8WidthShares(engine) : [0, 0, 0],
    compression: engine.default_toast_compression,
  };
}

export function columnsSql(table: TableDef, layout: PgTableLayout, engine: EngineSpec): ColumnSql[] {
  return table.columns.map((c, i) => columnSql(c, i, layout, engine));
}

/** The column's SQL type in CREATE TABLE: character types sort bytewise (COLLATE "C"), as the keys are made. */
export function columnDdlType(col: ColumnSql): string {
  return col.kind === 'bpchar' || col.kind === 'varchar' || col.kind === 'text' ? `${col.type.sql} COLLATE "C"` : col.type.sql;
}

/** The stored length of column `col` in a row whose stored lengths are lens[base …]: bytes, or NULL_LEN. */
export function storedLength(col: ColumnSql, lens: ArrayLike<number>, base: number): number {
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

/**
 * A string value's shape: its characters, how many take 2, 3 and 4 bytes, and its key: the width, and
 * the width in bytes of each key digit (1: an ASCII digit; 2–4: wide digits, where the rest of the
 * string cannot hold every wide character).
 */
interface StringShape {
  chars: number;
  /** Key characters at the start. */
  key: number;
  /** Bytes of each key character (1 … 4). */
  keyWidths: Uint8Array;
  /** Wide characters of 2, 3 and 4 bytes outside the key (indexes 2 … 4). */
  rest: [number, number, number, number, number];
}

/** The widest character a column's values hold (1 when every share is 0). */
function widestChar(widths: readonly [number, number, number]): number {
  return widths[2] > 0 ? 4 : widths[1] > 0 ? 3 : widths[0] > 0 ? 2 : 1;
}

/**
 * Wide characters of 2, 3 and 4 bytes for `extra` bytes beyond one a character among `chars`
 * characters: as the shares say, as near as whole characters allow, never more than `chars` of them.
 */
function wideCounts(chars: number, extra: number, widths: readonly [number, number, number]): [number, number, number] {
  let n4 = Math.min(Math.floor(extra / 3), Math.round(widths[2] * chars));
  let n3 = Math.min(Math.floor((extra - 3 * n4) / 2), Math.round(widths[1] * chars));
  let n2 = extra - 3 * n4 - 2 * n3;
  // Too many wide characters for the string: merge them into wider ones (the bytes stay).
  while (n2 + n3 + n4 > chars) {
    if (n2 >= 2) {
      n2 -= 2;
      n3++;
    } else if (n2 >= 1 && n3 >= 1) {
      n2--;
      n3--;
      n4++;
    } else if (n3 >= 3) {
      n3 -= 3;
      n4 += 2;
    } else break;
  }
  return [n2, n3, n4];
}

/**
 * The characters of a `bytes`-byte string of `col`: char(n) has exactly n; varchar and text as close to
 * bytes / bytesPerChar as the declared length and the widest character allow. The rest of the string
 * holds the wide characters, widest first; those it cannot hold are the key's last digits.
 */
function stringShape(col: ColumnSql, bytes: number, width: number): StringShape {
  const widest = widestChar(col.widths);
  let chars: number;
  if (col.kind === 'bpchar') chars = col.declaredChars;
  else {
    const most = col.declaredChars > 0 ? Math.min(col.declaredChars, bytes) : bytes;
    chars = Math.min(most, Math.max(Math.ceil(bytes / Math.max(widest, 2)), Math.round(bytes / col.bytesPerChar)));
    if (widest === 1) chars = Math.min(most, bytes);
  }
  const extra = bytes - chars;
  if (extra < 0 || extra > 3 * chars)
    throw new Error(`pg-check cannot make a ${col.type.sql} value of ${bytes} bytes (${chars} characters)`);
  const [n2, n3, n4] = wideCounts(chars, extra, col.widths);
  const key = Math.min(chars, width);
  let room = chars - key;
  const rest: StringShape['rest'] = [0, 0, 0, 0, 0];
  const left = [0, 0, n2, n3, n4];
  for (const w of [4, 3, 2]) {
    const take = Math.min(left[w]!, room);
    rest[w] = take;
    left[w]! -= take;
    room -= take;
  }
  const keyWidths = new Uint8Array(key).fill(1);
  let at = key - 1;
  for (const w of [4, 3, 2]) for (let k = 0; k < left[w]!; k++) keyWidths[at--] = w;
  if (at < -1) throw new Error(`pg-check cannot make a ${col.type.sql} value of ${bytes} bytes (${chars} characters)`);
  return { chars, key, keyWidths, rest };
}

/** Distinct values of a string shape's key (ASCII digits 62, wide digits 64). */
function stringCapacity(s: StringShape): number {
  let cap = 1;
  for (let i = 0; i < s.key && cap < MAX_CODE; i++) cap *= s.keyWidths[i] === 1 ? 62 : 64;
  return Math.min(MAX_CODE, cap);
}

/** ⌈log_radix⌉-wide keys for the column's codes: how wide its key is. */
export function columnKeyWidth(col: ColumnSql, totalCodes: number): number {
  return col.kind === 'bytea' ? keyWidth(totalCodes, 256) : keyWidth(totalCodes, 62);
}

/**
 * The key of a compressible value: digits of radix 8 (strings) or 32 (bytea), each position its own
 * range of bytes (position j: bytes 1 + 8j … 8 + 8j, or 32j … 32j + 31), so that no 3 bytes with a key
 * digit in them occur twice in the value but where the construction repeats them.
 */
const COMPRESSIBLE_STRING_RADIX = 8;
const COMPRESSIBLE_BYTEA_RADIX = 32;

function compressibleRadix(col: ColumnSql): number {
  return col.kind === 'bytea' ? COMPRESSIBLE_BYTEA_RADIX : COMPRESSIBLE_STRING_RADIX;
}

/** Fresh (not repeated) bytes of an n-byte value of m repeat bytes a block: where its key digits go. */
function freshBytes(n: number, m: number): number {
  let fresh = 0;
  forEachBlock(n, m, (_start, f) => (fresh += f));
  return fresh;
}

/** A numeric(p, s) value's digits for its stored bytes: the most digits that take exactly those bytes. */
function numericDigits(col: ColumnSql, bytes: number): number {
  for (let d = col.precision; d >= 0; d--) if (pgNumericBytes(d, col.scale) === bytes) return d;
  throw new Error(`pg-check cannot make a ${col.type.sql} value of ${bytes} bytes`);
}

/**
 * Values of one column: its capacity at a length and the value of a code. `width` is the key width for
 * the column's number of codes (columnKeyWidth), `compressibleWidth` that of its compressible values.
 */
export class ColumnValues {
  private readonly digitsOf = new Map<number, number>();
  /** String shapes by stored length, made once each (a shape a value was garbage the collector swept). */
  private readonly shapeOf = new Map<number, StringShape>();
  constructor(
    readonly col: ColumnSql,
    readonly ci: number,
    private readonly seed: number,
    private readonly width: number,
    private readonly compressibleWidth = keyWidth(1, 2),
  ) {}

  /** The construction of a value of this column of compressibility `level` (the row store's code): 0 for types that do not compress. */
  repeat(level: number): number {
    const k = this.col.kind;
    return (k === 'bytea' || k === 'varchar' || k === 'text') && compresses(level) ? level : 0;
  }

  /**
   * The repeat bytes a `len`-byte value of compressibility `level` is built with: 0 when its construction
   * repeats nothing at that length (a value no longer than its unit is all fresh bytes, as an incompressible
   * one is), so such a value is drawn as an incompressible one, which the character limits of varchar(n)
   * always admit.
   */
  private repeatAt(len: number, level: number): number {
    const m = this.repeat(level);
    return m > 0 && freshBytes(len, m) < len ? m : 0;
  }

  private shape(len: number): StringShape {
    let s = this.shapeOf.get(len);
    if (s === undefined) this.shapeOf.set(len, (s = stringShape(this.col, len, this.width)));
    return s;
  }

  private numericDigits(len: number): number {
    let d = this.digitsOf.get(len);
    if (d === undefined) this.digitsOf.set(len, (d = numericDigits(this.col, len)));
    return d;
  }

  /** How many distinct values a `len`-byte value of this column (of compressibility `level`) can take (1: it cannot change). */
  capacity(len: number, level = 0): number {
    const col = this.col;
    const m = this.repeatAt(len, level);
    if (m > 0) return Math.min(MAX_CODE, compressibleRadix(col) ** Math.min(this.compressibleWidth, freshBytes(len, m)));
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
        return stringCapacity(this.shape(len));
    }
  }

  /**
   * The value whose key is `code` (0 ≤ code < capacity(len, level)), `len` stored bytes (NULL_LEN: NULL);
   * `row` and `draw` seed the random part (draw: the column's code before any wrap, so each value has its own).
   */
  value(code: number, len: number, row: number, draw: number, level = 0): SqlValue {
    if (len === NULL_LEN) return null;
    const col = this.col;
    const m = this.repeatAt(len, level);
    if (m > 0) return compressibleValue(col, code, len, m, this.compressibleWidth, Prng.derive(this.seed, 'value', row, this.ci, draw));
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
        return incompressible(
          col,
          len,
          (rng) => byteaValue(code, len, this.width, rng),
          Prng.derive(this.seed, 'value', row, this.ci, draw),
        ) as Buffer;
      case 'bpchar':
      case 'varchar':
      case 'text': {
        const shape = this.shape(len);
        const bytes = incompressible(
          col,
          len,
          (rng) => stringBytes(code, shape, len, rng),
          Prng.derive(this.seed, 'value', row, this.ci, draw),
        ) as Buffer;
        return bytes.toString('utf8');
      }
    }
  }
}

/** A compressible value's key width for the column's number of codes. */
export function compressibleKeyWidth(col: ColumnSql, totalCodes: number): number {
  return keyWidth(totalCodes, compressibleRadix(col));
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

/** Code points of the string being made, and the places of its rest (scratch, grown as needed). */
let codePoints = new Int32Array(256);
let places = new Int32Array(256);
/**
 * A string of `s.chars` characters, as its UTF-8 bytes (`len` of them): the key first (the code in ASCII
 * digits, and in wide digits at its end where the rest cannot hold every wide character), then the rest's
 * wide characters at random places, random ASCII letters and digits elsewhere.
 */
function stringBytes(code: number, s: StringShape, len: number, rng: Prng): Buffer {
  if (codePoints.length < s.chars) {
    codePoints = new Int32Array(s.chars);
    places = new Int32Array(s.chars);
  }
  const cps = codePoints;
  let c = code;
  for (let i = s.key - 1; i >= 0; i--) {
    const w = s.keyWidths[i]!;
    const radix = w === 1 ? 62 : 64;
    cps[i] = w === 1 ? ASCII_DIGITS.charCodeAt(c % radix) : WIDE_DIGIT_BASE[w]! + (c % radix);
    c = Math.floor(c / radix);
  }
  const rest = s.chars - s.key;
  const wide = s.rest[2] + s.rest[3] + s.rest[4];
  if (wide === 0) return asciiString(s.key, rest, len, rng);
  if (rest > 0) {
    // A partial Fisher–Yates shuffle of the rest's positions picks where its wide characters go.
    const pos = places;
    for (let i = 0; i < rest; i++) pos[i] = s.key + i;
    for (let i = 0; i < wide; i++) {
      const j = i + rng.int(rest - i);
      const t = pos[j]!;
      pos[j] = pos[i]!;
      pos[i] = t;
      const w = i < s.rest[4] ? 4 : i < s.rest[4] + s.rest[3] ? 3 : 2;
      cps[t] = randomCodePoint(w, rng);
    }
    for (let i = wide; i < rest; i++) cps[pos[i]!] = ASCII_DIGITS.charCodeAt(rng.int(62));
  }
  const out = scratchBytes(len);
  let at = 0;
  for (let i = 0; i < s.chars; i++) at = putUtf8(cps[i]!, out, at);
  if (at !== len) throw new Error(`pg-check made ${at} bytes of a ${len}-byte string`);
  return out;
}

/** The draws of a string's ASCII rest (scratch, grown as needed). */
let asciiDraws = new Int32Array(256);
/** ASCII_DIGITS as bytes. */
const ASCII_BYTES = Uint8Array.from(ASCII_DIGITS, (d) => d.charCodeAt(0));

/** The bytes of a string whose rest is all ASCII (the rest's places in order, no shuffle): its key's code points, then the rest. */
function asciiString(key: number, rest: number, len: number, rng: Prng): Buffer {
  const out = scratchBytes(len);
  let at = 0;
  for (let i = 0; i < key; i++) at = putUtf8(codePoints[i]!, out, at);
  if (asciiDraws.length < rest) asciiDraws = new Int32Array(Math.max(rest, 2 * asciiDraws.length));
  const draws = asciiDraws;
  rng.fillBelow(draws, rest, 62);
  for (let i = 0; i < rest; i++) out[at++] = ASCII_BYTES[draws[i]!]!;
  if (at !== len) throw new Error(`pg-check made ${at} bytes of a ${len}-byte string`);
  return out;
}

/** Values this long could be compressed by the toaster (it takes values over 24 bytes): checked not to compress. */
const CHECK_INCOMPRESSIBLE_FROM = 256;
/** Attempts at a value before pg-check gives up (its content is random: a retry draws another). */
const VALUE_ATTEMPTS = 8;

/**
 * The compressor's output size for a value: pglz's (−1 when it gives up) or LZ4's, as the column's
 * method compresses it, and what the model says of a value of `len` bytes and `m` repeat bytes a block.
 */
function compressedSizes(col: ColumnSql, bytes: Uint8Array, m: number): { real: number; model: number } {
  const len = bytes.length;
  return col.compression === 'lz4'
    ? { real: lz4CompressedSize(bytes), model: lz4Bytes(len, m) }
    : { real: pglzCompressedSize(bytes), model: pglzBytes(len, m) };
}

/**
 * A compressible value is the model's size under both compressors, whichever the column uses: LZ4's
 * hash table (2^13 entries) can lose a repeat of exactly 4 bytes to a collision (a longer one is found
 * a byte later and extended back), which costs a byte when it is the value's last repeat.
 */
function matchesModel(bytes: Uint8Array, m: number): boolean {
  const len = bytes.length;
  return pglzCompressedSize(bytes) === pglzBytes(len, m) && lz4CompressedSize(bytes) === lz4Bytes(len, m);
}

/**
 * A value with nothing to compress (random), checked: where the toaster could take it, the column's
 * compressor must leave it uncompressed, as the model does. A value that would compress is drawn again.
 */
function incompressible(col: ColumnSql, len: number, make: (rng: Prng) => Uint8Array, rng: Prng): Uint8Array {
  for (let attempt = 0; ; attempt++) {
    const bytes = make(rng);
    if (len < CHECK_INCOMPRESSIBLE_FROM) return bytes;
    const { real } = compressedSizes(col, bytes, 0);
    if (compressedDatumBytes(col.compression, len, 0) === -1 && keptSize(col.compression, real, len) === -1) return bytes;
    if (attempt + 1 >= VALUE_ATTEMPTS)
      throw new Error(`pg-check drew ${VALUE_ATTEMPTS} random ${col.type.sql} values of ${len} bytes that ${col.compression} compresses`);
  }
}

/** The compressed varlena toast_compress_datum keeps for a compressor output of `out` bytes, or −1. */
function keptSize(method: ToastCompression, out: number, len: number): number {
  if (out < 0 || (method === 'lz4' && out > len)) return -1;
  return out + 8 < len - 2 ? out + 8 : -1;
}

/**
 * A value built as src/formats/pg-compression.ts says, for `m` repeat bytes a block: in each block's
 * fresh bytes first the key's next digits, then characters no 3-byte sequence of which occurs before
 * (nor across into the repeat), then the repeat. Under utf8 the characters' widths follow the column's
 * shares, and every repeat ends where a character does. Checked with both compressors: each one's
 * output must be the size the model gives, or the value is drawn again.
 */
function compressibleValue(col: ColumnSql, code: number, len: number, m: number, keyWidthC: number, rng: Prng): string | Buffer {
  const bytea = col.kind === 'bytea';
  const radix = compressibleRadix(col);
  const keyLen = Math.min(keyWidthC, freshBytes(len, m));
  const key = new Uint8Array(keyLen);
  let c = code;
  for (let j = keyLen - 1; j >= 0; j--) {
    key[j] = (bytea ? radix * j : 1 + radix * j) + (c % radix);
    c = Math.floor(c / radix);
  }
  // Single bytes fresh characters may take: not a key digit of this value's, not NUL for a string.
  const keyEnd = bytea ? radix * keyLen : 1 + radix * keyLen;
  const singles = singleBytes(bytea, keyEnd);
  let bias = 1;
  for (let attempt = 0; attempt < VALUE_ATTEMPTS * 2; attempt++) {
    const bytes = buildBlocks(len, m, key, singles, bytea ? null : (col.widths.map((w) => w * bias) as [number, number, number]), rng);
    if (bytes === null) continue;
    if (!bytea && col.declaredChars > 0) {
      let chars = 0;
      for (let i = 0; i < bytes.length; i++) if ((bytes[i]! & 0xc0) !== 0x80) chars++;
      if (chars > col.declaredChars) {
        // Too many characters for varchar(n): more of them wide next time.
        bias *= 1.25;
        continue;
      }
    }
    if (!matchesModel(bytes, m)) continue;
    return bytea ? Buffer.from(bytes) : bytes.toString('utf8');
  }
  throw new Error(
    `pg-check could not build a ${col.type.sql} value of ${len} bytes that ${col.compression} compresses as the model says (${unitOf(m) ? `a ${unitOf(m)}-byte unit repeated` : `${m} of every 64 bytes repeated`})`,
  );
}

/** Single bytes a compressible value's fresh characters may take, by (bytea, the end of the key's byte ranges): made once each. */
const singlesMade = new Map<number, readonly number[]>();
function singleBytes(bytea: boolean, keyEnd: number): readonly number[] {
  const at = keyEnd * 2 + (bytea ? 1 : 0);
  let singles = singlesMade.get(at);
  if (!singles) {
    const made: number[] = [];
    for (let b = bytea ? 0 : 1; b < (bytea ? 256 : 128); b++) if (b >= keyEnd) made.push(b);
    singlesMade.set(at, (singles = made));
  }
  return singles;
}
