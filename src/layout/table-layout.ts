/**
 * What a storage format answers: how many bytes a value and a row take, what a page holds, and which
 * engine settings it accepts. The page engine (src/heap) asks these questions; it knows no format.
 */
import type { ColumnDef, EngineSpec, IndexDef, TableDef } from '../config/spec.js';
import type { FormatId } from '../config/schema.js';
import type { ColumnType } from '../config/column-types.js';
import type { PageGeometry } from '../heap/engine.js';

export type { PageGeometry };

/** Marker for a NULL in a row's stored lengths. */
export const NULL_LEN = 0xffff;
/** Longest value length the row store keeps (bytes); longer values are out of row in every engine. */
export const MAX_STORED_LEN = 0xfffe;

/**
 * Stored bytes of a value given no length: the type's size, a variable type's declared bound (a character
 * type's declared characters at the data's bytes a character, where its bound allows for wider characters:
 * InnoDB's utf8mb4 VARCHAR(n) and CHAR(n) may take 4n), capped at the row store's limit (a longer value is
 * out of row in every engine: a varchar(max) or text value given no length is stored as one, not as a NULL).
 */
export function fullLengthBytes(col: ColumnLayout): number {
  if (!col.variableType) return Math.min(col.fixedBytes, MAX_STORED_LEN);
  const bound = col.character && !col.bytesOfLength ? Math.round(col.declaredLength * col.bytesPerChar) : col.maxBytes;
  return Math.min(bound, col.maxBytes, MAX_STORED_LEN);
}

/** How one column is stored by a format. */
export interface ColumnLayout {
  name: string;
  index: number;
  nullable: boolean;
  /** Stored length varies from row to row (variable-length type, or nullable): kept per row. */
  varying: boolean;
  /** Position among the varying columns, or -1. */
  varIndex: number;
  /** Variable-length type (varchar, varbinary, text …) as opposed to fixed-length. */
  variableType: boolean;
  /** Bytes of a non-NULL value of a fixed-length type (or of a column a run holds at one size: workload/constant-columns.ts); else 0. */
  fixedBytes: number;
  /** Most bytes a value may take (declared bound). */
  maxBytes: number;
  /** Config lengths count characters (true) or bytes (false). */
  character: boolean;
  /** Declared length in characters or bytes (char(n), varchar(n), binary(n)). */
  declaredLength: number;
  /** Average bytes per character for character columns under the engine's encoding. */
  bytesPerChar: number;
  /** The column is a key column of some index. */
  indexed: boolean;
  /** Bytes of a value whose configured length is `units`, where a format sizes it otherwise than by characters or bytes (Oracle NUMBER: digits). */
  bytesOfLength?: (units: number) => number;
}

export interface TableLayout {
  columns: ColumnLayout[];
  /** Columns whose length is stored per row, in varIndex order. */
  varying: ColumnLayout[];
  geometry: PageGeometry;
  /** Physical bytes of the shortest and longest possible row, and the logical maximum (data only). */
  minRowBytes: number;
  maxRowBytes: number;
  logicalMaxBytes: number;
  /** Bytes of the fixed-length NOT NULL columns (ASE's lower bound for exp_row_size). */
  fixedNotNullBytes: number;
  /** The index whose order the rows are kept in, where the format keeps clustered tables (SQL Server, ASE allpages-locked). */
  clusteredIndex?: IndexDef;
  /**
   * A run's per-row compressibilities (64ths, levels()[row × ncols + column]; null: none), for sizes that
   * depend on them beyond the row's lengths (PostgreSQL's compressed index keys). Rows are found from a
   * lengths base as base / width.
   */
  bindRowLevels?(levels: () => Uint8Array | null, width: number, ncols: number): void;
}

/** A setting that is wrong for this format and table: the config loader turns it into an InputError. */
export class EngineSettingError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
  }
}

/** Engine settings after format-specific resolution (what results.json reports under `engine`). */
export interface ResolvedEngine {
  format: FormatId;
  page_size: number;
  [setting: string]: string | number | boolean | undefined;
}

function columnIsIndexed(table: TableDef, col: ColumnDef): boolean {
  const n = col.name.toLowerCase();
  return table.indexes.some((i) => i.columns.some((c) => c.toLowerCase() === n));
}

/** What a format decides about one column; columnLayout() fills in the rest. */
interface ColumnStorage {
  variableType: boolean;
  character: boolean;
  /** Average bytes per character (1 for non-character columns). */
  bytesPerChar: number;
  /** Most bytes a value may take; for a fixed-length type also the bytes of every non-NULL value. */
  maxBytes: number;
  /** Stored length varies per row; default: a variable-length type or a nullable column. */
  varying?: boolean;
  /** The declared length a configured length is capped at; default the type's (char(n) …). */
  declaredLength?: number;
  /** See ColumnLayout.bytesOfLength. */
  bytesOfLength?: (units: number) => number;
}

/** The ColumnLayout of column `index` of `table` (varIndex is set by indexVaryingColumns()). */
export function columnLayout(table: TableDef, col: ColumnDef, index: number, s: ColumnStorage): ColumnLayout {
  return {
    name: col.name,
    index,
    nullable: col.nullable,
    varying: s.varying ?? (s.variableType || col.nullable),
    varIndex: -1,
    variableType: s.variableType,
    fixedBytes: s.variableType ? 0 : s.maxBytes,
    maxBytes: s.maxBytes,
    character: s.character,
    declaredLength: s.declaredLength ?? col.type.length,
    bytesPerChar: s.bytesPerChar,
    indexed: columnIsIndexed(table, col),
    ...(s.bytesOfLength ? { bytesOfLength: s.bytesOfLength } : {}),
  };
}

/**
 * Number the varying columns (varIndex, in column order) and sum the bytes of the columns that are
 * not varying (fixed-length NOT NULL) and the logical maximum of a row (every column at its maxBytes).
 */
export function indexVaryingColumns(columns: ColumnLayout[]): {
  varying: ColumnLayout[];
  fixedNotNullBytes: number;
  logicalMaxBytes: number;
} {
  const varying = columns.filter((c) => c.varying);
  varying.forEach((c, i) => (c.varIndex = i));
  return {
    varying,
    fixedNotNullBytes: columns.filter((c) => !c.varying).reduce((s, c) => s + c.fixedBytes, 0),
    logicalMaxBytes: columns.reduce((s, c) => s + c.maxBytes, 0),
  };
}

/**
 * Physical bytes of the shortest and longest possible row: `rowBytes` of the varying lengths with every
 * nullable column NULL and every variable value empty, then with every value at its longest stored length.
 */
export function rowBytesRange(
  varying: readonly ColumnLayout[],
  rowBytes: (lens: Uint16Array) => number,
): { minRowBytes: number; maxRowBytes: number } {
  const minLens = new Uint16Array(Math.max(1, varying.length));
  const maxLens = new Uint16Array(Math.max(1, varying.length));
  varying.forEach((c, i) => {
    minLens[i] = c.nullable ? NULL_LEN : c.variableType ? 0 : c.fixedBytes;
    maxLens[i] = c.variableType ? Math.min(c.maxBytes, MAX_STORED_LEN) : c.fixedBytes;
  });
  return { minRowBytes: rowBytes(minLens), maxRowBytes: rowBytes(maxLens) };
}

/** Logical bytes of a row (data only): the fixed NOT NULL bytes plus every stored (non-NULL) varying length. */
export function logicalDataBytes(layout: TableLayout, lens: Uint16Array, base: number): number {
  let sum = layout.fixedNotNullBytes;
  const v = layout.varying;
  for (let i = 0; i < v.length; i++) {
    const len = lens[base + i]!;
    if (len !== NULL_LEN) sum += len;
  }
  return sum;
}

/**
 * The shares of utf8 characters that take 2, 3 and 4 bytes: `multibyte_widths` where the config gives it,
 * else `multibyte_share` as the share of 2-byte characters.
 */
export function utf8WidthShares(engine: EngineSpec): [number, number, number] {
  const w = engine.multibyte_widths;
  if (w && (w[2] !== undefined || w[3] !== undefined || w[4] !== undefined)) return [w[2] ?? 0, w[3] ?? 0, w[4] ?? 0];
  return [engine.multibyte_share, 0, 0];
}

/** Average bytes per utf8 character: 1 + the 2-byte share + 2 × the 3-byte share + 3 × the 4-byte share. */
export function utf8BytesPerChar(engine: EngineSpec): number {
  const [s2, s3, s4] = utf8WidthShares(engine);
  return 1 + s2 + 2 * s3 + 3 * s4;
}

/**
 * The most bytes a utf8 character takes on average in one value: utf8BytesPerChar, or where the shares
 * differ from value to value (multibyte_vary), each width's largest share, the widest first, together
 * at most 1. A varchar(n) of such values holds up to n times this.
 */
export function utf8MostBytesPerChar(engine: EngineSpec): number {
  const vary = engine.multibyte_vary;
  if (!vary) return utf8BytesPerChar(engine);
  const fixed = utf8WidthShares(engine);
  const most = vary.map((d, i) =>
    d === null
      ? fixed[i]!
      : Math.min(1, d.kind === 'uniform' ? d.max : d.kind === 'normal' ? (d.sd > 0 ? 1 : d.mean) : Math.max(...d.values)),
  );
  let left = 1;
  let bytes = 1;
  for (const w of [4, 3, 2]) {
    const s = Math.min(most[w - 2]!, left);
    bytes += (w - 1) * s;
    left -= s;
  }
  return bytes;
}

/** Average bytes per character of a latin1 (1) or utf8 (utf8BytesPerChar) character set. */
export function charsetBytesPerChar(engine: EngineSpec): number {
  return engine.encoding === 'utf8' ? utf8BytesPerChar(engine) : 1;
}

/** National types (nchar/nvarchar …) take 2 bytes per character (UTF-16); others follow the character set. */
export function nationalOrCharsetBytesPerChar(t: ColumnType, engine: EngineSpec): number {
  return t.national ? 2 : charsetBytesPerChar(engine);
}

/** Throw unless the engine's page size is one of `pageSizes`; `expected` says which, before ", found …". */
export function checkPageSize(engine: EngineSpec, pageSizes: readonly number[], expected: string): void {
  if (!pageSizes.includes(engine.page_size)) {
    throw new EngineSettingError('page_size', `${expected}, found ${engine.page_size}`);
  }
}
