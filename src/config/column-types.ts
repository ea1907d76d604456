/**
 * Column types, parsed from their SQL spelling into an engine-neutral descriptor. Each format turns a
 * descriptor into bytes (src/formats/*). Pure functions.
 */
export class SchemaError extends Error {}

/** Type families: how a value is stored, before any engine-specific sizing. */
type TypeFamily =
  | 'int' // whole numbers; bytes fixed per type name
  | 'float'
  | 'numeric' // numeric(p,s)/decimal: bytes from the precision
  | 'money'
  | 'datetime' // date/time types; bytes fixed per type name
  | 'bool'
  | 'char' // fixed-length character string: n characters (blank padded)
  | 'varchar' // variable-length character string up to n characters
  | 'binary' // fixed-length bytes
  | 'varbinary' // variable bytes up to n
  | 'text' // unbounded character data (text, clob, unitext)
  | 'blob' // unbounded bytes (image, bytea, blob)
  | 'uuid'; // 16-byte binary uuid / uniqueidentifier

export interface ColumnType {
  /** The type name in lower case as written, e.g. `varchar`, `unichar`, `int`. */
  name: string;
  family: TypeFamily;
  /** Characters (char families) or bytes (binary families) declared, e.g. 200 for varchar(200). */
  length: number;
  /** National/unicode character type (nchar, nvarchar, unichar, univarchar, unitext, ntext). */
  national: boolean;
  precision: number;
  scale: number;
  /** The spelling, normalised, e.g. `varchar(200)`. */
  sql: string;
  /** A large object: text, clob, blob, image, bytea, or a (max) type: its values may be read in chunks (read_lob). */
  lob: boolean;
}

interface TypeInfo {
  family: TypeFamily;
  national?: boolean;
  /** How many parameters the type takes and what they mean. */
  params: 'none' | 'length' | 'optional-length' | 'precision';
  defaultLength?: number;
}

/** Known type names. Engines size them; a type an engine lacks is sized by its nearest equivalent. */
const TYPES: Record<string, TypeInfo> = {
  tinyint: { family: 'int', params: 'none' },
  smallint: { family: 'int', params: 'none' },
  int: { family: 'int', params: 'none' },
  integer: { family: 'int', params: 'none' },
  bigint: { family: 'int', params: 'none' },
  'unsigned int': { family: 'int', params: 'none' },
  real: { family: 'float', params: 'none' },
  float: { family: 'float', params: 'optional-length', defaultLength: 53 },
  'double precision': { family: 'float', params: 'none' },
  numeric: { family: 'numeric', params: 'precision' },
  decimal: { family: 'numeric', params: 'precision' },
  number: { family: 'numeric', params: 'precision' },
  money: { family: 'money', params: 'none' },
  smallmoney: { family: 'money', params: 'none' },
  date: { family: 'datetime', params: 'none' },
  time: { family: 'datetime', params: 'none' },
  datetime: { family: 'datetime', params: 'none' },
  smalldatetime: { family: 'datetime', params: 'none' },
  bigdatetime: { family: 'datetime', params: 'none' },
  bigtime: { family: 'datetime', params: 'none' },
  timestamp: { family: 'datetime', params: 'none' },
  timestamptz: { family: 'datetime', params: 'none' },
  datetime2: { family: 'datetime', params: 'none' },
  bit: { family: 'bool', params: 'none' },
  boolean: { family: 'bool', params: 'none' },
  bool: { family: 'bool', params: 'none' },
  char: { family: 'char', params: 'optional-length', defaultLength: 1 },
  character: { family: 'char', params: 'optional-length', defaultLength: 1 },
  bpchar: { family: 'char', params: 'optional-length', defaultLength: 1 },
  varchar: { family: 'varchar', params: 'optional-length', defaultLength: 1 },
  'character varying': { family: 'varchar', params: 'optional-length', defaultLength: 1 },
  varchar2: { family: 'varchar', params: 'length' },
  nchar: { family: 'char', national: true, params: 'optional-length', defaultLength: 1 },
  nvarchar: { family: 'varchar', national: true, params: 'optional-length', defaultLength: 1 },
  nvarchar2: { family: 'varchar', national: true, params: 'length' },
  unichar: { family: 'char', national: true, params: 'optional-length', defaultLength: 1 },
  univarchar: { family: 'varchar', national: true, params: 'optional-length', defaultLength: 1 },
  binary: { family: 'binary', params: 'optional-length', defaultLength: 1 },
  varbinary: { family: 'varbinary', params: 'optional-length', defaultLength: 1 },
  raw: { family: 'varbinary', params: 'length' },
  bytea: { family: 'blob', params: 'none' },
  image: { family: 'blob', params: 'none' },
  blob: { family: 'blob', params: 'none' },
  text: { family: 'text', params: 'none' },
  unitext: { family: 'text', national: true, params: 'none' },
  ntext: { family: 'text', national: true, params: 'none' },
  clob: { family: 'text', params: 'none' },
  uuid: { family: 'uuid', params: 'none' },
  uniqueidentifier: { family: 'uuid', params: 'none' },
};

/** Longest length accepted for a bounded type: larger than any page, to catch typos. */
const MAX_DECLARED_LENGTH = 1_000_000;

/** Unbounded types (text, blob) are generated up to this many characters unless a length is given. */
const UNBOUNDED_DEFAULT_MAX = 65_535;

function knownTypeNames(): string[] {
  return Object.keys(TYPES);
}

/** Parse `varchar(200)`, `numeric(10,2)`, `int`, `char`, `double precision` … */
export function parseType(spelling: string): ColumnType {
  const text = spelling.trim().toLowerCase().replace(/\s+/g, ' ');
  const m = /^([a-z][a-z0-9_ ]*?)\s*(?:\(\s*(\d+|max)\s*(?:,\s*(\d+)\s*)?\))?$/.exec(text);
  if (!m) throw new SchemaError(`a column type such as int, varchar(200) or numeric(10,2), found "${spelling}"`);
  const name = m[1]!;
  const info = TYPES[name];
  if (!info) {
    throw new SchemaError(`a known column type (${knownTypeNames().join(', ')}), found "${name}"`);
  }
  const p1 = m[2] === 'max' ? UNBOUNDED_DEFAULT_MAX : m[2] !== undefined ? Number(m[2]) : undefined;
  const p2 = m[3] !== undefined ? Number(m[3]) : undefined;
  const t: ColumnType = {
    name,
    family: info.family,
    length: 0,
    national: info.national ?? false,
    precision: 0,
    scale: 0,
    sql: name,
    lob: info.family === 'text' || info.family === 'blob' || m[2] === 'max',
  };
  switch (info.params) {
    case 'none':
      if (p1 !== undefined) throw new SchemaError(`${name} without a length, found "${spelling}"`);
      if (info.family === 'text' || info.family === 'blob') t.length = UNBOUNDED_DEFAULT_MAX;
      break;
    case 'length':
    case 'optional-length':
      if (p1 === undefined && info.params === 'length') {
        throw new SchemaError(`${name}(n) with a length, found "${spelling}"`);
      }
      if (p2 !== undefined) throw new SchemaError(`${name}(n) with one length, found "${spelling}"`);
      t.length = p1 ?? info.defaultLength ?? 1;
      if (t.length < 1 || t.length > MAX_DECLARED_LENGTH) {
        throw new SchemaError(`a length from 1 to ${MAX_DECLARED_LENGTH} for ${name}, found ${t.length}`);
      }
      if (info.family !== 'float') t.sql = `${name}(${t.length})`;
      break;
    case 'precision':
      t.precision = p1 ?? 18;
      t.scale = p2 ?? 0;
      if (t.precision < 1 || t.precision > 38 || t.scale > t.precision) {
        throw new SchemaError(`precision 1..38 and scale ≤ precision for ${name}, found "${spelling}"`);
      }
      t.sql = `${name}(${t.precision},${t.scale})`;
      break;
  }
  return t;
}

/** A large-object type, whose values a read_lob phase reads in chunks. */
export function isLobType(t: ColumnType): boolean {
  return t.lob;
}

/** Does the stored length of a value of this type vary from row to row (given it is not NULL)? */
export function isVariableType(t: ColumnType): boolean {
  return t.family === 'varchar' || t.family === 'varbinary' || t.family === 'text' || t.family === 'blob';
}

/** Character families: a length in the config counts characters, converted to bytes by the encoding. */
export function isCharacterType(t: ColumnType): boolean {
  return t.family === 'char' || t.family === 'varchar' || t.family === 'text';
}

/** Binary families: values of bytes (binary, varbinary, bytea, blob, image). */
export function isBinaryType(t: ColumnType): boolean {
  return t.family === 'binary' || t.family === 'varbinary' || t.family === 'blob';
}
