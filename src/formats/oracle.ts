/**
 * Oracle heap-organised table row format (`oracle-heap`). Figures cite their source by key
 * (docs/sources.md, "Oracle") [oracle]; where the sources are silent the constant says
 * "assumption" and is a setting or a documented simplification.
 *
 * A row: 3-byte row header (flag, lock, column count) + per stored column a length byte (1 byte below
 * 250 bytes, else 3) + data. Trailing NULL columns are not stored; a NULL between stored columns takes
 * its length byte only. A block: the cache layer, the transaction header with its ITL slots (two at
 * least in an ASSM segment), the data header and table directory: 122 bytes on 8k at INITRANS 1, leaving
 * 8,070 bytes for rows and their 2-byte row directory entries [ORA-FOOTE][ORA-LEWIS].
 */
import type { SettingsOf, Zod } from '../config/format-ids.js';
import type { DdlClauses } from '../config/ddl-clauses.js';
import type { ColumnDef, EngineSpec, IndexDef, TableDef } from '../config/spec.js';
import { columnBytes } from '../btree/geometry.js';
import { CHAIN_ROW_BYTES, FORWARDING_HEAP_ROW_BYTES, ForwardingHeap } from '../heap/forwarding-heap.js';
import {
  COMMON_DEFAULTS,
  withoutUtf16,
  type AllocationInput,
  type AllocationPageCounts,
  type ComparisonRule,
  type PageAnatomy,
  type ReserveKnob,
  type StorageFormat,
} from './format.js';
import { typeClass, unconverted } from './comparison.js';
import { FORWARDING_PHASE_METRICS, forwardingReorgNote, greedyIndexGeometry } from './forwarding.js';
import type { ColumnType } from '../config/column-types.js';
import { isCharacterType } from '../config/column-types.js';
import {
  EngineSettingError,
  NULL_LEN,
  checkPageSize,
  columnLayout,
  indexVaryingColumns,
  logicalDataBytes,
  nationalOrCharsetBytesPerChar,
  rowBytesRange,
  type ColumnLayout,
  type PageGeometry,
  type ResolvedEngine,
  type TableLayout,
} from '../layout/table-layout.js';

/** The settings Oracle declares: the block's PCTFREE, PCTUSED and INITRANS [ORA-ADMIN8]. */
const oracleSettings = (z: Zod) => ({
  pctfree: z.number().int().min(0).max(99).optional(),
  pctused: z.number().int().min(1).max(99).optional(),
  initrans: z.number().int().min(1).max(255).optional(),
});

/** Index ITL slots rowsim's Oracle index blocks have: two [ORA-KDXLE], Oracle's default INITRANS of an index. */
const ORACLE_INDEX_INITRANS = 2;

/** Oracle's physical attributes after a table's or an index's columns [ORA-ADMIN8]; compressed table blocks are refused. */
const oracleDdl: DdlClauses = {
  words: {
    PCTFREE: { kind: 'setting', key: 'pctfree', min: 0, max: 99, engine: true, sign: 'PCTFREE' },
    INITRANS: { kind: 'setting', key: 'initrans', min: 1, max: 255, engine: true },
    PCTUSED: { kind: 'setting', key: 'pctused', min: 1, max: 99, engine: true },
    COMPRESS: { kind: 'refuse', expected: 'NOCOMPRESS or no COMPRESS clause (rowsim does not model compressed table blocks)' },
  },
  indexWords: {
    PCTFREE: { kind: 'setting', key: 'pctfree', min: 0, max: 99 },
    INITRANS: {
      kind: 'fixed',
      min: 1,
      max: 255,
      value: ORACLE_INDEX_INITRANS,
      why: "the ITL slots rowsim's Oracle index blocks have; an index has no initrans setting",
    },
  },
  nullableByDefault: true,
};

declare module '../config/format-ids.js' {
  interface DdlTableOptions {
    /** Oracle `PCTFREE N`. */
    pctfree?: DdlSetting<number>;
    /** Oracle `INITRANS N`. */
    initrans?: DdlSetting<number>;
    /** Oracle `PCTUSED N`. */
    pctused?: DdlSetting<number>;
  }
  interface DbmsIds {
    oracle: true;
  }
  interface FormatIds {
    'oracle-heap': true;
  }
  interface FormatSettings extends SettingsOf<typeof oracleSettings> {}
}

const ORACLE_BLOCK_SIZES = [2048, 4096, 8192, 16384, 32768] as const;
const ORACLE_DEFAULT_BLOCK_BYTES = 8192;
/**
 * Block overhead [ORA-FOOTE][ORA-LEWIS]: a block dump of an ASSM table block (8k, INITRANS 1) shows two
 * ITL slots ("itc: 2"), a data area of tsiz 0x1f98 = 8,088 bytes and a data header of hsiz = 18 + 2 per row
 * (0x26e with 302 rows); 8,088 − 18 = 8,070 bytes for rows, as Jonathan Lewis counts for INITRANS 2.
 * 8,192 − 8,088 = 104 = the cache layer (20-byte header + 4-byte tail) + 32 bytes of fixed transaction
 * header + 2 × 24-byte ITL slots (the split into parts is an inference; the totals are published).
 */
const ORACLE_CACHE_LAYER_BYTES = 24;
const ORACLE_TXN_HEADER_FIXED_BYTES = 32;
const ORACLE_ITL_ENTRY_BYTES = 24;
/** An ASSM segment formats at least two ITL slots in a table block, whatever INITRANS says ("itc: 2" at INITRANS 1) [ORA-FOOTE]. */
const ORACLE_ASSM_MIN_ITL = 2;
const ORACLE_DATA_HEADER_BYTES = 14;
const ORACLE_TABLE_DIRECTORY_BYTES = 4;
const ORACLE_ROW_DIRECTORY_BYTES = 2;
/** The most columns a table may have (MAX_COLUMNS = STANDARD; 23ai's EXTENDED allows 4,096) [ORA-LIMITS]. */
const ORACLE_MAX_COLUMNS = 1000;
/** INITRANS default for tables: 1 [oracle]. */
const ORACLE_DEFAULT_INITRANS = 1;
/** Row header 3 bytes; a column length byte below 250 bytes, else 3 [oracle]. */
const ORACLE_ROW_HEADER_BYTES = 3;
const ORACLE_SHORT_LENGTH_LIMIT = 250;
const ORACLE_SHORT_LENGTH_BYTES = 1;
const ORACLE_LONG_LENGTH_BYTES = 3;
/** PCTFREE default 10, PCTUSED 40 (ignored under ASSM) [oracle]. */
const ORACLE_DEFAULT_PCTFREE = 10;
const ORACLE_DEFAULT_PCTUSED = 40;
/** A migrated row's head keeps a forwarding address: row header + 6-byte rowid (assumption: 9 bytes). */
const ORACLE_ROWID_BYTES = 6;
export const ORACLE_MIGRATION_STUB_BYTES = ORACLE_ROW_HEADER_BYTES + ORACLE_ROWID_BYTES;
/** Every chained row piece carries a row header and the next piece's rowid (assumption). */
const ORACLE_CHAIN_PIECE_OVERHEAD_BYTES = ORACLE_ROW_HEADER_BYTES + ORACLE_ROWID_BYTES;
/** DATE 7 bytes, TIMESTAMP 11, TIMESTAMP WITH TIME ZONE 13 (Oracle SQL Reference, data types). */
const ORACLE_DATE_BYTES = 7;
const ORACLE_TIMESTAMP_BYTES = 11;
const ORACLE_TIMESTAMP_TZ_BYTES = 13;
/** In-row LOB: a 36-byte locator header with up to 3964 bytes of data inline (assumption, ENABLE STORAGE IN ROW). */
const ORACLE_LOB_LOCATOR_BYTES = 36;
const ORACLE_LOB_INLINE_MAX_BYTES = 3964;

/**
 * B*-tree index: index blocks offer 8,032 bytes on 8k with their two ITL slots ("kdxlebksz 8032" in a leaf
 * block dump) [ORA-KDXLE]: 160 bytes of block overhead; PCTFREE 10 on build, of that space. Entries
 * (assumptions): 2-byte entry header, a length byte per key column (3 from 250 bytes), 6-byte rowid (+1
 * length byte when non-unique), 2-byte row directory; branch entries a 4-byte block pointer.
 */
const ORACLE_INDEX_ENTRY_HEADER_BYTES = 2;
const ORACLE_INDEX_BLOCK_OVERHEAD_BYTES = 160;
const ORACLE_INDEX_PCTFREE = 10;
const ORACLE_BRANCH_POINTER_BYTES = 4;

/**
 * NUMBER bytes of a value of `digits` significant digits: ROUND((digits + s) / 2) + 1, s = 1 for a
 * negative value [ORA-NUMBER]; for a positive value 1 + ⌈digits / 2⌉. NUMBER(p) holds at most p digits.
 */
function oracleNumberBytes(digits: number): number {
  return 1 + Math.ceil(digits / 2);
}

/** NUMBER bytes of an integer value, exactly: an exponent byte, a byte per base-100 digit without the trailing zero ones, a terminator byte for a negative value under 20 digits [ORA-NUMBER]. */
export function oracleNumberBytesOf(value: number): number {
  if (value === 0) return 1;
  const digits: number[] = [];
  for (let v = Math.abs(Math.trunc(value)); v > 0; v = Math.floor(v / 100)) digits.push(v % 100);
  let k = 0;
  while (digits[k] === 0) k++;
  const mantissa = digits.length - k;
  return 1 + mantissa + (value < 0 && mantissa < 20 ? 1 : 0);
}

/** Digits of the NUMBER a binary integer maps to: NUMBER(3), (5), (10), (19); an unsigned one the digits of its largest value. */
const ORACLE_INT_DIGITS: Record<string, number> = { tinyint: 3, smallint: 5, 'unsigned smallint': 5, bigint: 19, 'unsigned bigint': 20 };

/** Bytes of a value of a constant-size Oracle type. */
function oracleFixedBytes(t: ColumnType, engine: EngineSpec): number {
  switch (t.family) {
    case 'int':
      // smallint, integer and bigint map to NUMBER(5), NUMBER(10), NUMBER(19); sized at full precision.
      return oracleNumberBytes(ORACLE_INT_DIGITS[t.name] ?? 10);
    case 'float':
      return t.name === 'real' || (t.name === 'float' && t.length <= 24) ? 4 : 8; // BINARY_FLOAT / BINARY_DOUBLE
    case 'numeric':
      return oracleNumberBytes(t.precision);
    case 'money':
      return oracleNumberBytes(19);
    case 'datetime':
      if (t.name === 'timestamptz' || t.name === 'datetimeoffset') return ORACLE_TIMESTAMP_TZ_BYTES;
      if (t.name === 'timestamp' || t.name === 'datetime2' || t.name === 'bigdatetime') return ORACLE_TIMESTAMP_BYTES;
      return ORACLE_DATE_BYTES;
    case 'bool':
      return 1;
    case 'uuid':
      return 16; // RAW(16)
    case 'char':
      return t.national ? 2 * t.length : Math.round(t.length * oracleBytesPerChar(t, engine));
    case 'binary':
      return t.length;
    case 'text':
    case 'blob':
    case 'varchar':
    case 'varbinary':
      return 0;
  }
}

/** NCHAR/NVARCHAR2 use AL16UTF16 (2 bytes); CHAR/VARCHAR2 the database character set. */
const oracleBytesPerChar: (t: ColumnType, engine: EngineSpec) => number = nationalOrCharsetBytesPerChar;

interface OracleLayoutInfo {
  n: number;
  /** Constant data bytes per column (−1 when the length is stored per row). */
  bytes: Int32Array;
  varIndex: Int32Array;
  /** LOB columns: data beyond ORACLE_LOB_INLINE_MAX_BYTES goes out of row. */
  lob: Uint8Array;
  /** Is any column a LOB? (oracleRowBytes skips the LOB rules when none is.) */
  anyLob: boolean;
  /** The leading columns of constant, non-NULL bytes (every row stores them alike), and the row header with their bytes. */
  prefixCols: number;
  prefixBytes: number;
}

interface OracleTableLayout extends TableLayout {
  ora: OracleLayoutInfo;
}

/** Decimal digits of the NUMBER an integer, numeric or money column maps to (0: not a NUMBER). */
function oracleNumberDigits(t: ColumnType): number {
  if (t.family === 'int') return ORACLE_INT_DIGITS[t.name] ?? 10;
  if (t.family === 'numeric') return t.precision;
  if (t.family === 'money') return 19;
  return 0;
}

function oraColumnLayout(col: ColumnDef, index: number, table: TableDef, engine: EngineSpec): ColumnLayout {
  const t = col.type;
  const digits = oracleNumberDigits(t);
  if (digits > 0) {
    // NUMBER is variable-length: sized by the value's significant digits (the workload's length), at most p [ORA-NUMBER].
    return columnLayout(table, col, index, {
      variableType: true,
      character: false,
      bytesPerChar: 1,
      maxBytes: oracleNumberBytes(digits),
      declaredLength: digits,
      bytesOfLength: oracleNumberBytes,
    });
  }
  const variableType = t.family === 'varchar' || t.family === 'varbinary' || t.family === 'text' || t.family === 'blob';
  const character = isCharacterType(t);
  const bpc = character ? oracleBytesPerChar(t, engine) : 1;
  const maxBytes = variableType ? Math.round(t.length * bpc) : oracleFixedBytes(t, engine);
  return columnLayout(table, col, index, { variableType, character, bytesPerChar: bpc, maxBytes });
}

/** Row bytes: header, a length byte (or 3) per stored column, data; trailing NULLs not stored [oracle]. */
export function oracleRowBytes(ora: OracleLayoutInfo, lens: Uint16Array, base: number): number {
  let row = ora.prefixBytes;
  let pendingNulls = 0;
  for (let i = ora.prefixCols; i < ora.n; i++) {
    const v = ora.varIndex[i]!;
    let len = v >= 0 ? lens[base + v]! : ora.bytes[i]!;
    if (len === NULL_LEN) {
      pendingNulls++;
      continue;
    }
    if (ora.anyLob && ora.lob[i]) len = (len > ORACLE_LOB_INLINE_MAX_BYTES ? 0 : len) + ORACLE_LOB_LOCATOR_BYTES;
    row += pendingNulls * ORACLE_SHORT_LENGTH_BYTES;
    pendingNulls = 0;
    row += (len < ORACLE_SHORT_LENGTH_LIMIT ? ORACLE_SHORT_LENGTH_BYTES : ORACLE_LONG_LENGTH_BYTES) + len;
  }
  return row;
}

/** ITL slots a table block starts with: INITRANS, at least two in an ASSM segment [ORA-FOOTE]. */
function oracleItlSlots(initrans: number): number {
  return Math.max(initrans, ORACLE_ASSM_MIN_ITL);
}

/** Bytes of a table block that rows and their row directory cannot use: 122 on any block size at INITRANS 1 or 2 [ORA-FOOTE][ORA-LEWIS]. */
function oracleBlockOverhead(initrans: number): number {
  return (
    ORACLE_CACHE_LAYER_BYTES +
    ORACLE_TXN_HEADER_FIXED_BYTES +
    ORACLE_ITL_ENTRY_BYTES * oracleItlSlots(initrans) +
    ORACLE_DATA_HEADER_BYTES +
    ORACLE_TABLE_DIRECTORY_BYTES
  );
}

export function oracleGeometry(blockBytes: number, initrans = ORACLE_DEFAULT_INITRANS): PageGeometry {
  const header = oracleBlockOverhead(initrans);
  const usable = blockBytes - header;
  return {
    pageBytes: blockBytes,
    headerBytes: header,
    usableBytes: usable,
    slotBytes: ORACLE_ROW_DIRECTORY_BYTES,
    maxRowsPerPage: Math.floor(usable / (ORACLE_MIGRATION_STUB_BYTES + ORACLE_ROW_DIRECTORY_BYTES)),
    // A longer row is chained over several blocks (the engine splits it).
    maxRowBytes: usable - ORACLE_ROW_DIRECTORY_BYTES,
  };
}

/**
 * `constant`: columns (index → bytes) the run stores at one size, laid out as fixed. A block stores every
 * column alike (a length byte or three, then the data), so a fixed column and a stored length of the
 * same bytes make the same row and the same index entry.
 */
export function oracleLayout(table: TableDef, engine: EngineSpec, constant?: ReadonlyMap<number, number>): OracleTableLayout {
  const columns = table.columns.map((c, i) => {
    const col = oraColumnLayout(c, i, table, engine);
    const bytes = constant?.get(i);
    return bytes === undefined ? col : { ...col, varying: false, fixedBytes: bytes };
  });
  const { varying, fixedNotNullBytes, logicalMaxBytes } = indexVaryingColumns(columns);
  const bytes = Int32Array.from(columns, (c) => (c.varying ? -1 : c.fixedBytes));
  const lob = Uint8Array.from(table.columns, (c) => (c.type.family === 'text' || c.type.family === 'blob' ? 1 : 0));
  const ora: OracleLayoutInfo = {
    n: columns.length,
    bytes,
    varIndex: Int32Array.from(columns, (c) => c.varIndex),
    lob,
    anyLob: lob.includes(1),
    prefixCols: 0,
    prefixBytes: ORACLE_ROW_HEADER_BYTES,
  };
  // The leading columns every row stores alike (constant bytes, not NULL) are counted once, here, by the
  // row format itself over those columns alone (they read no length); a row's bytes start after them.
  let prefixCols = 0;
  while (prefixCols < columns.length && bytes[prefixCols]! >= 0 && bytes[prefixCols] !== NULL_LEN) prefixCols++;
  ora.prefixBytes = oracleRowBytes({ ...ora, n: prefixCols }, new Uint16Array(0), 0);
  ora.prefixCols = prefixCols;
  return {
    columns,
    varying,
    geometry: oracleGeometry(engine.page_size, engine.initrans),
    ...rowBytesRange(varying, (lens) => oracleRowBytes(ora, lens, 0)),
    logicalMaxBytes,
    fixedNotNullBytes,
    ora,
  };
}

/**
 * Bytes a block keeps free for updates: PCTFREE percent of the space left after the block header, as the
 * sizing notes take it ("a percentage of the block size minus the block header") [ORA-10640][ORA-ADMIN8].
 */
export function oraclePctfreeBytes(geometry: PageGeometry, pctfree: number): number {
  return Math.floor((geometry.usableBytes * pctfree) / 100);
}

/** A B*-tree: length-prefixed key columns and a rowid per entry, built to PCTFREE 10 (assumptions above). */
function oracleIndexGeometry(_table: TableDef, layout: TableLayout, idx: IndexDef, columns: number[]) {
  const lengthPrefixed = (cs: readonly number[], lens: Uint16Array, base: number) => {
    let sum = 0;
    for (const ci of cs) {
      const b = columnBytes(layout, ci, lens, base);
      sum += (b >= ORACLE_SHORT_LENGTH_LIMIT ? ORACLE_LONG_LENGTH_BYTES : ORACLE_SHORT_LENGTH_BYTES) + Math.max(0, b);
    }
    return sum;
  };
  const first = columns.slice(0, 1);
  const pageBytes = layout.geometry.pageBytes;
  return greedyIndexGeometry({
    name: idx.name,
    columns,
    unique: idx.unique,
    leafTupleBytes: (lens, base) =>
      ORACLE_INDEX_ENTRY_HEADER_BYTES + lengthPrefixed(columns, lens, base) + ORACLE_ROWID_BYTES + (idx.unique ? 0 : 1),
    pivotBytes: (lens, base) => ORACLE_INDEX_ENTRY_HEADER_BYTES + lengthPrefixed(first, lens, base) + ORACLE_BRANCH_POINTER_BYTES,
    slotBytes: ORACLE_ROW_DIRECTORY_BYTES,
    pageRoomBytes: pageBytes - ORACLE_INDEX_BLOCK_OVERHEAD_BYTES,
    leafReserveBytes: Math.floor(((pageBytes - ORACLE_INDEX_BLOCK_OVERHEAD_BYTES) * (idx.pctfree ?? ORACLE_INDEX_PCTFREE)) / 100),
    nonLeafReserveBytes: 0,
  });
}

/**
 * ASSM space metadata of one segment (assumption; Oracle documents the structure, not the counts): the
 * segment header (with the level-3 bitmap), one level-1 bitmap block per 16 blocks of a segment up to
 * 1 MB, per 64 up to 32 MB, per 256 up to 1 GB and per 1,024 beyond, and one level-2 bitmap block per
 * 512 level-1 blocks. A new segment of one 64K extent: header, one L1 and one L2 block.
 */
export function oracleSegmentMetadataBlocks(blocks: number, blockBytes: number): { header: number; bitmap: number } {
  if (blocks <= 0) return { header: 0, bitmap: 0 };
  const bytes = blocks * blockBytes;
  const span = bytes <= 1 << 20 ? 16 : bytes <= 32 << 20 ? 64 : bytes <= 1 << 30 ? 256 : 1024;
  const l1 = Math.ceil(blocks / span);
  return { header: 1, bitmap: l1 + Math.ceil(l1 / 512) };
}

/** The table's and each index's segment headers and ASSM bitmap blocks. */
function oracleAllocationPages(input: AllocationInput): AllocationPageCounts {
  let header = 0;
  let bitmap = 0;
  for (const blocks of [input.dataPages, ...Object.values(input.indexPages)]) {
    const m = oracleSegmentMetadataBlocks(blocks, input.pageBytes);
    header += m.header;
    bitmap += m.bitmap;
  }
  return { segment_header: header, bitmap_blocks: bitmap };
}

/** PCTFREE 0..99: percent of a block kept free for updates [oracle]. */
function pctfreeKnob(): ReserveKnob {
  return {
    format: 'oracle-heap',
    key: 'pctfree',
    min: 0,
    max: 99,
    moreReserveWhenLarger: true,
    specials: [
      { name: 'pack', setting: 0, value: 0, label: '0 (pack fully)' },
      { name: 'default', setting: ORACLE_DEFAULT_PCTFREE, value: ORACLE_DEFAULT_PCTFREE, label: `${ORACLE_DEFAULT_PCTFREE} (default)` },
    ],
    engineWith: (base, setting) => ({ ...base, format: 'oracle-heap', pctfree: Number(setting) }),
    commands: (table, value) => ({
      commands: [`ALTER TABLE ${table} PCTFREE ${value};`],
      note: `only blocks used from now on keep ${value}% free; ALTER TABLE ${table} MOVE rewrites existing blocks and removes migrated rows (rebuild the indexes afterwards)`,
    }),
    movedWord: 'migrated',
    movedMetric: 'forwarded_rows',
  };
}

/** An Oracle table block: cache layer (with its 4-byte tail), transaction header and ITL, data header, table and row directories; rows from the end [ORA-FOOTE][ORA-LEWIS]. */
function oraclePageAnatomy(layout: TableLayout, engine: EngineSpec): PageAnatomy {
  const itl = oracleItlSlots(engine.initrans);
  const keep = oraclePctfreeBytes(layout.geometry, engine.pctfree);
  return {
    title: 'Oracle table block (ASSM)',
    header: [
      { label: 'cache layer (and tail)', bytes: ORACLE_CACHE_LAYER_BYTES },
      { label: 'transaction header', bytes: ORACLE_TXN_HEADER_FIXED_BYTES },
      { label: `ITL: ${itl} slots`, bytes: ORACLE_ITL_ENTRY_BYTES * itl },
      { label: 'data header', bytes: ORACLE_DATA_HEADER_BYTES },
      { label: 'table directory', bytes: ORACLE_TABLE_DIRECTORY_BYTES },
    ],
    slotArray: { name: 'row directory', entryBytes: ORACLE_ROW_DIRECTORY_BYTES, at: 'after-header', firstSlot: 0 },
    ...(keep > 0 ? { fillLine: { label: `PCTFREE ${engine.pctfree}: inserts leave ${keep} bytes free`, keepFreeBytes: keep } } : {}),
    words: {
      stub: `migration stub (the head piece, ${ORACLE_MIGRATION_STUB_BYTES} bytes: where the row now lives; its rowid does not change)`,
      forwarded: 'migrated row',
      move: 'migrated',
      stubShort: 'head piece (migration stub)',
    },
    notes: [
      'Row data fill the block from its end up, the row directory grows after the header; a migrated row leaves its head piece in its place.',
    ],
  };
}

/** Oracle's comparison classes: character (database or national character set), NUMBER, datetime, RAW. */
type OracleCompareClass = 'char' | 'nchar' | 'number' | 'date' | 'raw';

function oracleCompareClass(t: ColumnType): OracleCompareClass {
  const k = typeClass(t);
  switch (k) {
    case 'char':
    case 'nchar':
      return k;
    case 'int':
    case 'numeric':
    case 'float':
    case 'money':
    case 'bool':
      return 'number';
    case 'datetime':
      return 'date';
    case 'binary':
    case 'uuid':
      return 'raw';
  }
}

/**
 * `column = :b` in Oracle: comparing character data with a number, a date or a RAW, the character side is
 * converted; comparing CHAR/VARCHAR2 with NCHAR/NVARCHAR2, the database character set side is converted
 * to the national character set [ORA-CMP]. A converted column (TO_NUMBER(col), SYS_OP_C2C(col)) cannot use
 * a normal index on it: the plan becomes a full scan. The rule's wording in the manual is not verified
 * here (docs/sources.md says so).
 */
function oracleComparison(column: ColumnDef, parameter: ColumnType): ComparisonRule {
  const c = oracleCompareClass(column.type);
  const p = oracleCompareClass(parameter);
  if (c === p) return unconverted(column.name, '[ORA-CMP]');
  const columnConverted =
    (c === 'char' && (p === 'number' || p === 'date' || p === 'raw' || p === 'nchar')) ||
    (c === 'nchar' && (p === 'number' || p === 'date' || p === 'raw'));
  const parameterConverted =
    (p === 'char' && (c === 'number' || c === 'date' || c === 'raw' || c === 'nchar')) ||
    (p === 'nchar' && (c === 'number' || c === 'date' || c === 'raw'));
  if (columnConverted) {
    const fn = p === 'number' ? 'TO_NUMBER' : p === 'date' ? 'TO_DATE' : p === 'raw' ? 'HEXTORAW' : 'SYS_OP_C2C';
    const expression = `${fn}(${column.name}) = :b`;
    return {
      access: 'scan',
      converted: 'column',
      expression,
      why: `Oracle converts the ${c === 'char' && p === 'nchar' ? 'database character set side to the national character set' : 'character side'}: the column (${expression}), so its index cannot be used`,
      source: '[ORA-CMP]',
    };
  }
  if (parameterConverted) {
    return {
      access: 'seek',
      converted: 'parameter',
      expression: `${column.name} = CONVERT(:b)`,
      why: "the parameter is converted to the column's type, and the index is used",
      source: '[ORA-CMP]',
    };
  }
  return {
    access: 'error',
    converted: 'none',
    expression: `${column.name} = :b`,
    why: `Oracle has no implicit conversion between ${column.type.sql} and ${parameter.sql} (ORA-00932: inconsistent datatypes)`,
    source: '[ORA-CMP]',
  };
}

export const oracleHeap: StorageFormat = {
  id: 'oracle-heap',
  dbms: 'oracle',
  dbmsName: 'Oracle',
  title: 'Oracle heap table (PCTFREE, migration, chaining)',
  evidence: [],
  defaultPageBytes: ORACLE_DEFAULT_BLOCK_BYTES,
  pageSizes: ORACLE_BLOCK_SIZES,
  settingsShape: oracleSettings,
  ddl: oracleDdl,
  settings: ['page_size', 'pctfree', 'pctused', 'initrans', 'encoding', 'multibyte_share', 'multibyte_widths', 'compaction'],
  defaults: {
    ...COMMON_DEFAULTS,
    pctfree: ORACLE_DEFAULT_PCTFREE,
    pctused: ORACLE_DEFAULT_PCTUSED,
    initrans: ORACLE_DEFAULT_INITRANS,
    compaction: 'on',
  },
  encodingFor: withoutUtf16,
  resolve(engine, layout): ResolvedEngine {
    checkPageSize(engine, ORACLE_BLOCK_SIZES, 'an Oracle block size (2k, 4k, 8k, 16k or 32k)');
    if (engine.encoding === 'utf16') {
      throw new EngineSettingError(
        'encoding',
        'latin1 or utf8 for the database character set (UTF-16 is only the national character set: declare nchar/nvarchar2), found utf16',
      );
    }
    const g = layout.geometry;
    return {
      format: 'oracle-heap',
      page_size: engine.page_size,
      pctfree: engine.pctfree,
      pctfree_bytes: oraclePctfreeBytes(layout.geometry, engine.pctfree),
      pctused: engine.pctused,
      initrans: engine.initrans,
      itl_slots: oracleItlSlots(engine.initrans),
      encoding: engine.encoding,
      block_overhead_bytes: g.headerBytes,
      usable_page_bytes: g.usableBytes,
      max_rows_per_page: g.maxRowsPerPage,
      migration_stub_bytes: ORACLE_MIGRATION_STUB_BYTES,
    };
  },
  notes(engine, resolved) {
    return [
      "integers and NUMBER(p,s) are sized by value: 1 + ⌈digits/2⌉ bytes, the significant digits given as the column's length in the workload, else the full precision",
      `${resolved.itl_slots} ITL slots a block (INITRANS ${engine.initrans}; an ASSM segment formats at least 2): ${resolved.block_overhead_bytes} bytes of block overhead; PCTFREE ${engine.pctfree} keeps ${resolved.pctfree_bytes} of the ${resolved.usable_page_bytes} bytes after it free`,
      'PCTUSED is ignored: segments use automatic segment space management (ASSM, the default since 9i)',
      'a migrated row leaves a 9-byte head (row header + rowid; assumption) and keeps its rowid; rows longer than a block are chained',
    ];
  },
  rows: {
    tableLimit: (table) =>
      table.columns.length > ORACLE_MAX_COLUMNS
        ? `expected at most ${ORACLE_MAX_COLUMNS} columns (ORA-01792: "maximum number of columns in a table or view is ${ORACLE_MAX_COLUMNS}") [ORA-LIMITS], found table ${table.name} with ${table.columns.length}`
        : undefined,
    layout: oracleLayout,
    constantLayout: oracleLayout,
    rowBytes(layout, lens, base) {
      return oracleRowBytes((layout as OracleTableLayout).ora, lens, base);
    },
    logicalBytes: logicalDataBytes,
  },
  pages: {
    pageAnatomy: oraclePageAnatomy,
    createEngine: (layout, _resolved, spec, rowCapacity) =>
      new ForwardingHeap({
        geometry: layout.geometry,
        forwarding: true,
        stubBytes: ORACLE_MIGRATION_STUB_BYTES,
        expRowSizeBytes: 0,
        expRowSizeBasis: 'physical',
        compaction: spec.engine.compaction === 'on',
        indexCount: spec.table.indexes.length,
        rowCapacity,
        insertReserveBytes: oraclePctfreeBytes(layout.geometry, spec.engine.pctfree),
        freeSpaceSearch: 'exact',
        chaining: true,
        chainPieceOverheadBytes: ORACLE_CHAIN_PIECE_OVERHEAD_BYTES,
        // A full scan reads a migrated row's head and skips it; the row is read where it lives [oracle].
        scanFollowsForwarding: false,
        // ALTER TABLE … MOVE: the table is rewritten [oracle].
        reorgForwardedRowsRebuilds: true,
      }),
    engineRowBytes: FORWARDING_HEAP_ROW_BYTES + CHAIN_ROW_BYTES,
    reorgNote: forwardingReorgNote('oracle-heap'),
  },
  reads: {
    comparison: (column, parameter) => oracleComparison(column, parameter),
    readCounters: (reads) => ({ table_fetch_continued_row: reads.forwardedHops + reads.chainedPieces }),
    readRowBytes: 0,
  },
  indexes: {
    indexSettings: ['pctfree'],
    indexNotes: (table) =>
      table.indexes.some((i) => i.clustered)
        ? ['clustered is ignored on oracle-heap: an index-organized table is not modelled; the table is a heap with a B*-tree index']
        : [],
    indexGeometry: oracleIndexGeometry,
    versionedIndexes: false,
  },
  allocation: {
    allocationPages: oracleAllocationPages,
  },
  knob: {
    reserveKnob: pctfreeKnob,
    rebuild: (table) => ({
      command: `ALTER TABLE ${table} MOVE`,
      needs: "free space for the table's new segment until the old one is dropped; the indexes are rebuilt after it [oracle]",
      indexesToo: false,
    }),
    maintenance: (table, value) => ({
      periodic: `ALTER TABLE ${table} MOVE`,
      periodicRebuilds: true,
      change: [`ALTER TABLE ${table} PCTFREE ${value};`, `ALTER TABLE ${table} MOVE;`],
      costs: ['ALTER TABLE … MOVE rewrites every block and leaves the indexes unusable until they are rebuilt [oracle]'],
    }),
    reserveSetting: 'pctfree',
    reserveUnit: '%',
  },
  words: {
    rowIdName: 'ROWID',
    phaseMetrics: FORWARDING_PHASE_METRICS,
    movedRows: { metric: 'forwarded_rows', word: 'migrated', short: 'migr.' },
    rowBytesAre: 'physical',
  },
};
