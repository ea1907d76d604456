/**
 * An independent reading of pg-check's values (src/pgcheck/values.ts): what a value takes as PostgreSQL
 * stores it, worked out from the value itself, and whether its type accepts it. The generator's tests
 * hold every value against this, not against the generator's own arithmetic.
 */
import type { ColumnSql, SqlValue } from '../../src/pgcheck/values.js';

/** The data bytes PostgreSQL stores for `value` in column `col` (no varlena header), or a reason the type rejects it. */
export function pgDataBytes(col: ColumnSql, value: Exclude<SqlValue, null>): number | string {
  switch (col.kind) {
    case 'int2':
      return Number.isInteger(value) && (value as number) >= -32768 && (value as number) <= 32767 ? 2 : `${value} is not a smallint`;
    case 'int4':
      return Number.isInteger(value) && (value as number) >= -(2 ** 31) && (value as number) < 2 ** 31 ? 4 : `${value} is not an integer`;
    case 'int8':
      return Number.isSafeInteger(value) ? 8 : `${value} is not a bigint a JavaScript number holds`;
    case 'float4':
      return typeof value === 'number' && Number.isFinite(value) && Math.fround(value) === value ? 4 : `${value} is not a float4`;
    case 'float8':
      return typeof value === 'number' && Number.isFinite(value) ? 8 : `${value} is not a float8`;
    case 'money':
      return typeof value === 'string' && /^\d{1,17}\.\d\d$/.test(value) ? 8 : `${value} is not money`;
    case 'bool':
      return typeof value === 'boolean' ? 1 : `${value} is not a boolean`;
    case 'uuid':
      return typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value)
        ? 16
        : `${value} is not a uuid`;
    case 'date':
      return typeof value === 'string' && validDate(value) ? 4 : `${value} is not a date`;
    case 'time':
      return typeof value === 'string' && /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{6}$/.test(value) ? 8 : `${value} is not a time`;
    case 'timestamp':
    case 'timestamptz': {
      const m = /^(\d{4,6}-\d\d-\d\d) ([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\+00)?$/.exec(String(value));
      return m && validDate(m[1]!) && (col.kind === 'timestamptz') === (m[3] !== undefined) ? 8 : `${value} is not a ${col.kind}`;
    }
    case 'numeric':
      return numericBytes(String(value), col.precision, col.scale);
    case 'bytea':
      return Buffer.isBuffer(value) ? value.length : `${typeof value} is not a Buffer`;
    case 'bpchar':
    case 'varchar':
    case 'text': {
      if (typeof value !== 'string') return `${typeof value} is not a string`;
      const chars = codePoints(value);
      if (col.kind === 'bpchar' && chars !== col.declaredChars)
        return `char(${col.declaredChars}) given ${chars} characters (it would be blank-padded or refused)`;
      if (col.kind === 'varchar' && chars > col.declaredChars) return `varchar(${col.declaredChars}) given ${chars} characters`;
      if (value.endsWith(' ') && col.kind === 'bpchar') return 'a char(n) value ending in a blank';
      return Buffer.byteLength(value, 'utf8');
    }
  }
}

/** Characters (code points) of a string: a surrogate pair is one. Counted in place, not spread into an array per value. */
function codePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++, n++) {
    const u = text.charCodeAt(i);
    if (u >= 0xd800 && u <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) i++;
    }
  }
  return n;
}

function validDate(text: string): boolean {
  const m = /^(\d{4,6})-(\d\d)-(\d\d)$/.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  return days !== undefined && d >= 1 && d <= days;
}

/**
 * numeric's short format: a 2-byte header, then one 2-byte NBASE (10,000) digit per group of 4 decimal
 * digits counted from the decimal point, leading and trailing zero groups dropped (numeric.c).
 */
function numericBytes(text: string, precision: number, scale: number): number | string {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return `${text} is not a numeric`;
  const int = m[1]!.replace(/^0+/, '');
  const frac = m[2] ?? '';
  if (frac.length !== scale) return `${text} has ${frac.length} decimals, numeric(${precision},${scale}) shows ${scale}`;
  if (int.length > precision - scale) return `${text} has more than ${precision - scale} integer digits`;
  const intGroups = Math.ceil(int.length / 4);
  const padded = int.padStart(intGroups * 4, '0') + frac.padEnd(Math.ceil(frac.length / 4) * 4, '0');
  const groups: string[] = [];
  for (let i = 0; i < padded.length; i += 4) groups.push(padded.slice(i, i + 4));
  while (groups.length > 0 && groups[0] === '0000') groups.shift();
  while (groups.length > 0 && groups[groups.length - 1] === '0000') groups.pop();
  return 2 + 2 * groups.length;
}

/** Two values are the same value (Buffers by content). */
export function sameValue(a: SqlValue, b: SqlValue): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  return a === b;
}

/** Order of two non-NULL values as a B-tree with COLLATE "C" orders them (bytewise for text and bytea). */
export function compareValues(a: Exclude<SqlValue, null>, b: Exclude<SqlValue, null>, col: ColumnSql): number {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return Buffer.compare(a, b);
  if (typeof a === 'string' && typeof b === 'string') {
    if (col.kind === 'numeric' || col.kind === 'money') return Number(a) - Number(b);
    return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  }
  return Number(a) - Number(b);
}
