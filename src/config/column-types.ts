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
  /** A character type's own character set, where written (`varchar(36) character set latin1`, MySQL's spelling), in lower case. */
  characterSet?: string;
}

/** How a type name is read: its family and its parameters. A format declares its own types so (StorageFormat.columnTypes). */
export interface TypeInfo {
  family: TypeFamily;
  national?: boolean;
  /** How many parameters the type takes and what they mean ('fraction': digits of fractional seconds). */
  params: 'none' | 'length' | 'optional-length' | 'precision' | 'fraction';
  defaultLength?: number;
  /** Without a length the type is unbounded (PostgreSQL's `character varying`), not of defaultLength. */
  unboundedWithoutLength?: boolean;
}

/** Known type names. Engines size them; a type an engine lacks is sized by its nearest equivalent. */
const TYPES: Record<string, TypeInfo> = {
  tinyint: { family: 'int', params: 'none' },
  smallint: { family: 'int', params: 'none' },
  int: { family: 'int', params: 'none' },
  integer: { family: 'int', params: 'none' },
  bigint: { family: 'int', params: 'none' },
  'unsigned smallint': { family: 'int', params: 'none' },
  'unsigned int': { family: 'int', params: 'none' },
  'unsigned bigint': { family: 'int', params: 'none' },
  real: { family: 'float', params: 'none' },
  float: { family: 'float', params: 'optional-length', defaultLength: 53 },
  'double precision': { family: 'float', params: 'none' },
  numeric: { family: 'numeric', params: 'precision' },
  decimal: { family: 'numeric', params: 'precision' },
  number: { family: 'numeric', params: 'precision' },
  money: { family: 'money', params: 'none' },
  smallmoney: { family: 'money', params: 'none' },
  date: { family: 'datetime', params: 'none' },
  time: { family: 'datetime', params: 'fraction' },
  timetz: { family: 'datetime', params: 'fraction' },
  datetime: { family: 'datetime', params: 'none' },
  smalldatetime: { family: 'datetime', params: 'none' },
  bigdatetime: { family: 'datetime', params: 'none' },
  bigtime: { family: 'datetime', params: 'none' },
  timestamp: { family: 'datetime', params: 'fraction' },
  timestamptz: { family: 'datetime', params: 'fraction' },
  datetime2: { family: 'datetime', params: 'fraction' },
  datetimeoffset: { family: 'datetime', params: 'fraction' },
  bit: { family: 'bool', params: 'none' },
  boolean: { family: 'bool', params: 'none' },
  bool: { family: 'bool', params: 'none' },
  char: { family: 'char', params: 'optional-length', defaultLength: 1 },
  character: { family: 'char', params: 'optional-length', defaultLength: 1 },
  bpchar: { family: 'char', params: 'optional-length', defaultLength: 1 },
  varchar: { family: 'varchar', params: 'optional-length', defaultLength: 1 },
  'character varying': { family: 'varchar', params: 'optional-length', unboundedWithoutLength: true },
  varchar2: { family: 'varchar', params: 'length' },
  nchar: { family: 'char', national: true, params: 'optional-length', defaultLength: 1 },
  nvarchar: { family: 'varchar', national: true, params: 'optional-length', defaultLength: 1 },
  nvarchar2: { family: 'varchar', national: true, params: 'length' },
  unichar: { family: 'char', national: true, params: 'optional-length', defaultLength: 1 },
  univarchar: { family: 'varchar', national: true, params: 'optional-length', defaultLength: 1 },
  binary: { family: 'binary', params: 'optional-length', defaultLength: 1 },
  varbinary: { family: 'varbinary', params: 'optional-length', defaultLength: 1 },
  raw: { family: 'varbinary', params: 'length' },
  varbit: { family: 'varbinary', params: 'optional-length', unboundedWithoutLength: true },
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

/**
 * Other spellings of known types, as pg_dump, SSMS and ddlgen print them: the spelling (its words, the
 * parenthesised parameters left out) → the type it is.
 */
const ALIASES: Record<string, string> = {
  'timestamp without time zone': 'timestamp',
  'timestamp with time zone': 'timestamptz',
  'time without time zone': 'time',
  'time with time zone': 'timetz',
  'char varying': 'varchar',
  'national char': 'nchar',
  'national character': 'nchar',
  'national char varying': 'nvarchar',
  'national character varying': 'nvarchar',
  'national varchar': 'nvarchar',
  'nchar varying': 'nvarchar',
  'bit varying': 'varbit',
};

/** Every type spelling of more than one word (the DDL reader reads a type's words while they begin one). */
export let MULTI_WORD_TYPES: readonly string[] = multiWordTypes();

function multiWordTypes(): string[] {
  return [...Object.keys(TYPES), ...Object.keys(ALIASES)].filter((n) => n.includes(' '));
}

/**
 * Types a format declares beyond the common ones above (src/formats/registry.ts adds each format's
 * StorageFormat.columnTypes once the format is in the registry). A name known already must mean the same.
 */
export function addColumnTypes(types: Readonly<Record<string, TypeInfo>>, owner: string): void {
  for (const [name, info] of Object.entries(types)) {
    const known = TYPES[name];
    if (known && JSON.stringify(known) !== JSON.stringify(info))
      throw new Error(`format ${owner} declares column type ${name} otherwise than it is known`);
    TYPES[name] = info;
  }
  MULTI_WORD_TYPES = multiWordTypes();
}

/** Most digits of fractional seconds a time type takes (Oracle's TIMESTAMP(9); SQL Server 7, PostgreSQL 6). */
const MAX_FRACTION_DIGITS = 9;

/** Bytes of a binary integer: tinyint 1, smallint 2, bigint 8, int 4; an unsigned type as its signed one. */
export function intBytes(t: ColumnType): number {
  return { tinyint: 1, smallint: 2, 'unsigned smallint': 2, bigint: 8, 'unsigned bigint': 8 }[t.name] ?? 4;
}

/** Longest length accepted for a bounded type: larger than any page, to catch typos. */
const MAX_DECLARED_LENGTH = 1_000_000;

/** Unbounded types (text, blob) are generated up to this many characters unless a length is given. */
const UNBOUNDED_DEFAULT_MAX = 65_535;

function knownTypeNames(): string[] {
  return Object.keys(TYPES);
}

/**
 * A spelling's type name (its words, aliases resolved) and parameters: `varchar(200)`, `numeric(10,2)`,
 * `double precision`, `timestamp(3) without time zone`, `[decimal](18, 2)` as SSMS writes it.
 */
function splitSpelling(spelling: string): { name: string; p1?: string; p2?: string } {
  const text = spelling.trim().toLowerCase().replace(/\s+/g, ' ');
  const m = /^([a-z][a-z0-9_ ]*?)\s*(?:\(\s*(\d+|max)\s*(?:,\s*(\d+)\s*)?\)\s*([a-z][a-z ]*)?)?$/.exec(text);
  if (!m) throw new SchemaError(`a column type such as int, varchar(200) or numeric(10,2), found "${spelling}"`);
  const written = m[4] ? `${m[1]!} ${m[4].trim()}` : m[1]!;
  const name = ALIASES[written] ?? written;
  if (!TYPES[name]) throw new SchemaError(`a known column type (${knownTypeNames().join(', ')}), found "${written}"`);
  return { name, ...(m[2] !== undefined ? { p1: m[2] } : {}), ...(m[3] !== undefined ? { p2: m[3] } : {}) };
}

/**
 * Parse `varchar(200)`, `numeric(10,2)`, `int`, `char`, `double precision`, `timestamp with time zone` …;
 * a character type may name its character set after it (`varchar(36) character set latin1`, `… charset
 * latin1`): the formats that know character sets read it (the innodb format), and refuse names they lack.
 */
export function parseType(spelling: string): ColumnType {
  const m = /^(.*?)\s+(?:character\s+set|charset)\s+([a-z][a-z0-9_]*)\s*$/i.exec(spelling.trim());
  if (!m) return parseBareType(spelling);
  const t = parseBareType(m[1]!);
  if (!isCharacterType(t)) throw new SchemaError(`a character set only after a character type (char, varchar, text), found "${spelling}"`);
  t.characterSet = m[2]!.toLowerCase();
  return t;
}

function parseBareType(spelling: string): ColumnType {
  const { name, p1: p1Text, p2: p2Text } = splitSpelling(spelling);
  const info = TYPES[name]!;
  const p1 = p1Text === 'max' ? UNBOUNDED_DEFAULT_MAX : p1Text !== undefined ? Number(p1Text) : undefined;
  const p2 = p2Text !== undefined ? Number(p2Text) : undefined;
  const t: ColumnType = {
    name,
    family: info.family,
    length: 0,
    national: info.national ?? false,
    precision: 0,
    scale: 0,
    sql: name,
    lob: info.family === 'text' || info.family === 'blob' || p1Text === 'max',
  };
  switch (info.params) {
    case 'none':
      // MySQL's integer display width (int(11), bigint(20), tinyint(1)): no storage effect.
      if (p1 !== undefined && !(info.family === 'int' && p2 === undefined && p1Text !== 'max'))
        throw new SchemaError(`${name} without a length, found "${spelling}"`);
      if (info.family === 'text' || info.family === 'blob') t.length = UNBOUNDED_DEFAULT_MAX;
      break;
    case 'fraction':
      if (p1Text === 'max' || p2 !== undefined || (p1 !== undefined && p1 > MAX_FRACTION_DIGITS)) {
        throw new SchemaError(
          `${name} or ${name}(p) with p from 0 to ${MAX_FRACTION_DIGITS} digits of fractional seconds, found "${spelling}"`,
        );
      }
      if (p1 !== undefined) {
        t.precision = p1;
        t.sql = `${name}(${p1})`;
      }
      break;
    case 'length':
    case 'optional-length':
      lengthParameter(t, info, spelling, p1, p2);
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

/** The length of a character or binary type; a bit string's n bits are 4 bytes of bit count and ⌈n/8⌉ bytes (PostgreSQL's varbit). */
function lengthParameter(t: ColumnType, info: TypeInfo, spelling: string, p1: number | undefined, p2: number | undefined): void {
  const name = t.name;
  if (p1 === undefined && info.params === 'length') {
    throw new SchemaError(`${name}(n) with a length, found "${spelling}"`);
  }
  if (p2 !== undefined) throw new SchemaError(`${name}(n) with one length, found "${spelling}"`);
  t.length = p1 ?? (info.unboundedWithoutLength ? UNBOUNDED_DEFAULT_MAX : (info.defaultLength ?? 1));
  if (t.length < 1 || t.length > MAX_DECLARED_LENGTH) {
    throw new SchemaError(`a length from 1 to ${MAX_DECLARED_LENGTH} for ${name}, found ${t.length}`);
  }
  if (info.family === 'float') return;
  t.sql = p1 === undefined && info.unboundedWithoutLength ? name : `${name}(${t.length})`;
  if (name === 'varbit' && p1 !== undefined) t.length = 4 + Math.ceil(p1 / 8);
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
