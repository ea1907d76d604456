/**
 * SQL Server heap row format (`sqlserver-heap`). Figures cite docs/sources.md,
 * "SQL Server heaps", by the document it names: [pages] pages-and-extents-architecture-guide,
 * [heaps] heaps-tables-without-clustered-indexes, [estimate] estimate-the-size-of-a-heap,
 * [versioning] row versioning resource usage, [fwd] improve.dk / sqlskills (third-party).
 *
 * A data row: status A 1 + status B 1 + fixed-length size 2 + fixed data + column count 2 + null bitmap
 * ⌈cols/8⌉ + (when a variable column is stored) variable column count 2 + 2 per variable column up to the
 * last non-NULL one + variable data. Fixed-length columns take their bytes even when NULL.
 */
import type { SettingsOf, Zod } from '../config/format-ids.js';
import { HARMLESS, type DdlClauses } from '../config/ddl-clauses.js';
import type { ColumnDef, EngineSpec, IndexDef, TableDef } from '../config/spec.js';
import { keyBytes, keyColumns, type IndexGeometry } from '../btree/geometry.js';
import { FORWARDING_HEAP_ROW_BYTES, ForwardingHeap } from '../heap/forwarding-heap.js';
import { ClusteredHeap } from '../heap/clustered-heap.js';
import { metric } from '../heap/metrics.js';
import type { PageDetail } from '../heap/inspect.js';
import {
  COMMON_DEFAULTS,
  withoutUtf16,
  type AllocationInput,
  type AllocationPageCounts,
  type ComparisonRule,
  type OffRowStore,
  type PageAnatomy,
  type StorageFormat,
} from './format.js';
import { unconverted } from './comparison.js';
import { sqlserverLobStore } from './lob.js';
import { FORWARDING_PHASE_METRICS, forwardingReorgNote, greedyIndexGeometry } from './forwarding.js';
import type { ColumnType } from '../config/column-types.js';
import { intBytes, isCharacterType } from '../config/column-types.js';
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

/** The settings SQL Server declares: the PFS bands, forwarded rows moving home, row versioning, the collation. */
const sqlserverSettings = (z: Zod) => ({
  pfs_bands: z.enum(['on', 'off']).optional(),
  move_back_home: z.enum(['on', 'off']).optional(),
  row_versioning: z.enum(['on', 'off']).optional(),
  collation: z.enum(['sql', 'windows']).optional(),
});

/** SQL Server's table options `WITH (…)`: compression and memory-optimized tables are refused unless off; the rest harmless. */
const sqlserverDdl: DdlClauses = {
  withParens: {
    data_compression: { kind: 'only', values: ['none'], why: 'rowsim does not model compressed rows or pages' },
    xml_compression: { kind: 'only', values: ['off'], why: 'rowsim does not model compressed XML values' },
    memory_optimized: { kind: 'only', values: ['off'], why: 'a memory-optimized table keeps no data pages, which is what rowsim models' },
    durability: HARMLESS,
    system_versioning: HARMLESS,
    ledger: HARMLESS,
  },
};

declare module '../config/format-ids.js' {
  interface DbmsIds {
    sqlserver: true;
  }
  interface FormatIds {
    'sqlserver-heap': true;
  }
  interface FormatSettings extends SettingsOf<typeof sqlserverSettings> {}
}

/** Page 8192 bytes, 96-byte header, 2-byte slot array entries [pages]. */
const SQLSERVER_PAGE_BYTES = 8192;
const SQLSERVER_PAGE_HEADER_BYTES = 96;
const SQLSERVER_SLOT_BYTES = 2;
/** Max in-row size; longer variable columns go to ROW_OVERFLOW pages leaving a 24-byte pointer [pages]. */
const SQLSERVER_MAX_IN_ROW_BYTES = 8060;
const SQLSERVER_ROW_OVERFLOW_POINTER_BYTES = 24;
/** A ROW_OVERFLOW record: the value behind a 14-byte blob record header (assumption: DBCC PAGE shows 8,014-byte records for 8,000-byte values). */
const SQLSERVER_ROW_OVERFLOW_RECORD_HEADER_BYTES = 14;
/** RID = 8 bytes [heaps]. */
const SQLSERVER_RID_BYTES = 8;
/** Row header: status A 1 + status B 1 + fixed-length size 2 (the "+ 4" of the heap-size formula) [estimate]. */
const SQLSERVER_ROW_HEADER_BYTES = 4;
/** Column count (2 bytes) before the null bitmap: Null_Bitmap = 2 + ⌊(Num_Cols + 7)/8⌋ [estimate]. */
const SQLSERVER_COLUMN_COUNT_BYTES = 2;
/** Variable_Data_Size = 2 + 2 × Num_Variable_Cols + Max_Var_Size [estimate]. */
const SQLSERVER_VAR_COUNT_BYTES = 2;
const SQLSERVER_VAR_OFFSET_BYTES = 2;
/** Forwarding stub: 1 status byte + 8-byte RID [fwd]. */
export const SQLSERVER_FORWARDING_STUB_BYTES = 9;
/** Back-pointer carried by a forwarded record: "about 10 bytes, not verified" [fwd]. */
const SQLSERVER_BACK_POINTER_BYTES = 10;
/** Every heap row must be able to turn into a forwarding stub: rows are at least 9 bytes (inference from [fwd]). */
const SQLSERVER_MIN_ROW_BYTES = SQLSERVER_FORWARDING_STUB_BYTES;
/** Row-versioning tag added to rows under snapshot isolation / RCSI [versioning]. */
const SQLSERVER_VERSION_TAG_BYTES = 14;
/** text/ntext/image keep a 16-byte text pointer in the row. */
const SQLSERVER_TEXT_POINTER_BYTES = 16;
/** Nonclustered index on a heap: 1-byte row header, 8-byte RID, 6-byte child page pointer, 2-byte slot; variable keys add 2 bytes each and a 2-byte count, a nullable key a null bitmap (MS docs, "Estimate the Size of a Nonclustered Index"). */
const SQLSERVER_INDEX_ROW_HEADER_BYTES = 1;
const SQLSERVER_INDEX_CHILD_POINTER_BYTES = 6;
const SQLSERVER_INDEX_VAR_KEY_BYTES = 2;
/** PFS free-space bands, in percent full: 0, 1–50, 51–80, 81–95, 96–100 [pages]. */
const SQLSERVER_PFS_BAND_UPPER_PCT = [0, 50, 80, 95, 100] as const;

/** Bytes of a fixed-length SQL Server type (bit columns are packed separately). */
function sqlserverFixedBytes(t: ColumnType): number {
  switch (t.family) {
    case 'int':
      return intBytes(t);
    case 'float':
      if (t.name === 'real') return 4;
      if (t.name === 'float') return t.length <= 24 ? 4 : 8;
      return 8;
    case 'numeric':
      // decimal/numeric: precision 1–9 → 5, 10–19 → 9, 20–28 → 13, 29–38 → 17 bytes (MS docs, decimal and numeric).
      return t.precision <= 9 ? 5 : t.precision <= 19 ? 9 : t.precision <= 28 ? 13 : 17;
    case 'money':
      return t.name === 'smallmoney' ? 4 : 8;
    case 'datetime':
      return sqlserverTimeBytes(t);
    case 'bool':
      return 1;
    case 'uuid':
      return 16;
    case 'char':
      return t.national ? 2 * t.length : t.length;
    case 'binary':
      return t.length;
    case 'text':
    case 'blob':
      return SQLSERVER_TEXT_POINTER_BYTES;
    case 'varchar':
    case 'varbinary':
      return 0;
  }
}

/**
 * date 3, smalldatetime 4, datetime 8; time(n) 3, 4 or 5 bytes for n 0–2, 3–4, 5–7 (7 when not given), datetime2(n)
 * that and a 3-byte date, datetimeoffset(n) that and a 2-byte offset (Microsoft Learn, time, datetime2, datetimeoffset).
 */
function sqlserverTimeBytes(t: ColumnType): number {
  const fraction = t.sql.includes('(') ? t.precision : 7;
  const time = fraction <= 2 ? 3 : fraction <= 4 ? 4 : 5;
  const sized: Record<string, number> = {
    date: 3,
    smalldatetime: 4,
    time,
    bigtime: 5,
    datetime2: time + 3,
    datetimeoffset: time + 5,
    timetz: time + 5,
  };
  return sized[t.name] ?? 8;
}

/** Bytes per character: nchar/nvarchar are UTF-16; char/varchar follow the code page (latin1) or a UTF-8 collation. */
const sqlserverBytesPerChar: (t: ColumnType, engine: EngineSpec) => number = nationalOrCharsetBytesPerChar;

interface SqlServerLayoutInfo {
  nCols: number;
  /** Fixed-length data bytes (bit columns packed 8 per byte). */
  fixedBytes: number;
  /** varIndex of each variable-length column, in column order. */
  varCols: Int32Array;
  versionTagBytes: number;
  maxInRow: number;
  /** A non-unique clustered index: the uniquifier is a variable-length column, first of them, empty for a distinct key [MS-CI][DBA-15026]. */
  uniquifier: boolean;
}

interface SqlServerTableLayout extends TableLayout {
  ss: SqlServerLayoutInfo;
}

function ssColumnLayout(col: ColumnDef, index: number, table: TableDef, engine: EngineSpec): ColumnLayout {
  const t = col.type;
  const variableType = t.family === 'varchar' || t.family === 'varbinary';
  const character = isCharacterType(t) && t.family !== 'text';
  const bpc = character ? sqlserverBytesPerChar(t, engine) : 1;
  // varchar(n)/char(n) declare bytes; nvarchar(n)/nchar(n) declare byte-pairs.
  const maxBytes = variableType ? (t.national ? 2 * t.length : t.length) : sqlserverFixedBytes(t);
  // Fixed-length columns keep their bytes when NULL: only variable columns vary (NULL = not stored).
  return columnLayout(table, col, index, { variableType, character, bytesPerChar: bpc, maxBytes, varying: variableType });
}

/**
 * Row bytes from the varying lengths: the documented row format, trailing NULL variable columns not
 * stored, ROW_OVERFLOW for rows above 8060 bytes, the 9-byte minimum and the optional versioning tag.
 */
export function sqlserverRowBytes(ss: SqlServerLayoutInfo, lens: Uint16Array, base: number): number {
  const u = ss.uniquifier ? 1 : 0;
  const fixedPart = SQLSERVER_ROW_HEADER_BYTES + ss.fixedBytes + SQLSERVER_COLUMN_COUNT_BYTES + ((ss.nCols + u + 7) >> 3);
  const vc = ss.varCols;
  let lastStored = -1;
  let varData = 0;
  for (let i = 0; i < vc.length; i++) {
    const len = lens[base + vc[i]!]!;
    if (len !== NULL_LEN) {
      lastStored = i;
      varData += len;
    }
  }
  let row = fixedPart;
  if (lastStored >= 0) {
    // The uniquifier's offset comes first: it costs 2 bytes whenever a later variable column is stored.
    row += SQLSERVER_VAR_COUNT_BYTES + SQLSERVER_VAR_OFFSET_BYTES * (lastStored + 1 + u) + varData;
    if (row > ss.maxInRow) row = pushOffRow(ss, lens, base, row);
  }
  row += ss.versionTagBytes;
  return Math.max(SQLSERVER_MIN_ROW_BYTES, row);
}

/** Move the largest variable columns to ROW_OVERFLOW pages (24-byte pointer each) until the row fits in-row [pages]. */
function pushOffRow(ss: SqlServerLayoutInfo, lens: Uint16Array, base: number, row: number): number {
  return pushedOffRow(ss, lens, base, row).row;
}

/** The in-row bytes left, and the bytes of the ROW_OVERFLOW records the pushed values take (value + record header + slot). */
function pushedOffRow(ss: SqlServerLayoutInfo, lens: Uint16Array, base: number, row: number): { row: number; records: number } {
  const vc = ss.varCols;
  const moved = new Uint8Array(vc.length);
  let records = 0;
  while (row > ss.maxInRow) {
    let best = -1;
    let bestLen = SQLSERVER_ROW_OVERFLOW_POINTER_BYTES;
    for (let i = 0; i < vc.length; i++) {
      const len = lens[base + vc[i]!]!;
      if (!moved[i] && len !== NULL_LEN && len > bestLen) {
        best = i;
        bestLen = len;
      }
    }
    if (best < 0) break;
    moved[best] = 1;
    row -= bestLen - SQLSERVER_ROW_OVERFLOW_POINTER_BYTES;
    records += bestLen + SQLSERVER_ROW_OVERFLOW_RECORD_HEADER_BYTES + SQLSERVER_SLOT_BYTES;
  }
  return { row, records };
}

/**
 * ROW_OVERFLOW_DATA of a table whose rows can exceed 8,060 bytes (2005+) [pages]: the pushed values are
 * records on their own pages, counted packed full (a lower bound: a page takes records whole).
 */
function sqlserverOffRow(layout: TableLayout): OffRowStore | undefined {
  const ss = (layout as SqlServerTableLayout).ss;
  const longest =
    SQLSERVER_ROW_HEADER_BYTES +
    ss.fixedBytes +
    SQLSERVER_COLUMN_COUNT_BYTES +
    ((ss.nCols + 8) >> 3) +
    SQLSERVER_VAR_COUNT_BYTES +
    layout.varying.reduce((sum, c) => sum + SQLSERVER_VAR_OFFSET_BYTES + c.maxBytes, 2);
  if (longest <= ss.maxInRow) return undefined;
  const usable = layout.geometry.pageBytes - SQLSERVER_PAGE_HEADER_BYTES;
  return {
    recordBytes: (lens, base) => {
      let row =
        SQLSERVER_ROW_HEADER_BYTES + ss.fixedBytes + SQLSERVER_COLUMN_COUNT_BYTES + ((ss.nCols + 7) >> 3) + SQLSERVER_VAR_COUNT_BYTES;
      for (let i = 0; i < ss.varCols.length; i++) {
        const len = lens[base + ss.varCols[i]!]!;
        row += SQLSERVER_VAR_OFFSET_BYTES + (len === NULL_LEN ? 0 : len);
      }
      return row > ss.maxInRow ? pushedOffRow(ss, lens, base, row).records : 0;
    },
    pages: (bytes) => Math.ceil(bytes / usable),
  };
}

function sqlserverGeometry(pageBytes: number): PageGeometry {
  const usable = pageBytes - SQLSERVER_PAGE_HEADER_BYTES;
  return {
    pageBytes,
    headerBytes: SQLSERVER_PAGE_HEADER_BYTES,
    usableBytes: usable,
    slotBytes: SQLSERVER_SLOT_BYTES,
    maxRowsPerPage: Math.floor(usable / (SQLSERVER_MIN_ROW_BYTES + SQLSERVER_SLOT_BYTES)),
    maxRowBytes: SQLSERVER_MAX_IN_ROW_BYTES + SQLSERVER_BACK_POINTER_BYTES,
  };
}

export function sqlserverLayout(table: TableDef, engine: EngineSpec): SqlServerTableLayout {
  const clustered = table.indexes.find((i) => i.clustered);
  const columns = table.columns.map((c, i) => ssColumnLayout(c, i, table, engine));
  // Not its fixedNotNullBytes: SQL Server keeps fixed-length columns' bytes even when NULL.
  const { varying, logicalMaxBytes } = indexVaryingColumns(columns);
  const bits = table.columns.filter((c) => c.type.family === 'bool').length;
  const fixedBytes =
    columns.filter((c) => !c.variableType && table.columns[c.index]!.type.family !== 'bool').reduce((s, c) => s + c.fixedBytes, 0) +
    Math.ceil(bits / 8);
  const ss: SqlServerLayoutInfo = {
    nCols: columns.length,
    fixedBytes,
    varCols: Int32Array.from(varying, (c) => c.varIndex),
    versionTagBytes: engine.row_versioning === 'on' ? SQLSERVER_VERSION_TAG_BYTES : 0,
    maxInRow: SQLSERVER_MAX_IN_ROW_BYTES,
    uniquifier: clustered !== undefined && !clustered.unique,
  };
  const heap = sqlserverGeometry(engine.page_size);
  return {
    columns,
    varying,
    // A clustered table's rows are never forwarded: no back-pointer on top of the 8,060 bytes [pages].
    geometry: clustered ? { ...heap, maxRowBytes: SQLSERVER_MAX_IN_ROW_BYTES } : heap,
    ...rowBytesRange(varying, (lens) => sqlserverRowBytes(ss, lens, 0)),
    logicalMaxBytes,
    fixedNotNullBytes: fixedBytes,
    ...(clustered ? { clusteredIndex: clustered } : {}),
    ss,
  };
}

/**
 * Msg 1701 [MS-1701]: SQL Server refuses at CREATE TABLE a table whose minimum row, its fixed-length
 * columns (bit columns 8 a byte) and the row's internal overhead (row header 4, column count 2, null
 * bitmap ⌈columns/8⌉ [estimate]: 7 bytes up to 8 columns), exceeds 8,060 bytes [pages]. Variable-length
 * columns take no bytes in the minimum row: they may be empty, or pushed off the row.
 */
/**
 * The longest declared length SQL Server takes [MS-CHAR]: char, varchar, binary, varbinary 8,000 bytes;
 * nchar and nvarchar 4,000 byte-pairs; longer only as varchar(max), nvarchar(max), varbinary(max).
 */
function sqlserverDeclaredLengthLimit(table: TableDef): string | undefined {
  for (const c of table.columns) {
    const t = c.type;
    if (t.lob || !['char', 'varchar', 'binary', 'varbinary'].includes(t.family)) continue;
    const max = t.national ? 4000 : 8000;
    if (t.length <= max) continue;
    const orMax = t.family === 'varchar' || t.family === 'varbinary' ? ` or ${t.name}(max)` : '';
    return `expected ${t.name}(n) with n at most ${max}${orMax} for column ${c.name}, found ${t.sql} (Msg 131: "The size (${t.length}) given to the column '${c.name}' exceeds the maximum allowed for any data type (${max})") [MS-CHAR]`;
  }
  return undefined;
}

function sqlserverMinimumRowLimit(table: TableDef, layout: TableLayout): string | undefined {
  const ss = (layout as SqlServerTableLayout).ss;
  const overhead = SQLSERVER_ROW_HEADER_BYTES + SQLSERVER_COLUMN_COUNT_BYTES + ((ss.nCols + 7) >> 3);
  const minimum = ss.fixedBytes + overhead;
  if (minimum <= SQLSERVER_MAX_IN_ROW_BYTES) return undefined;
  return `expected a table SQL Server can create, found table ${table.name} whose minimum row size would be ${minimum}, including ${overhead} bytes of internal overhead, which exceeds the maximum allowable table row size of ${SQLSERVER_MAX_IN_ROW_BYTES} bytes (Msg 1701: every row stores the ${ss.fixedBytes} bytes of the fixed-length columns; declare the longest of them varchar or nvarchar)`;
}

/**
 * The documented "Estimate the Size of a Heap" [estimate], used as a test oracle: Num_Cols, the fixed
 * data bytes, the number of variable columns and the largest variable data → row size and rows per page.
 */
export function sqlserverHeapEstimate(
  numCols: number,
  fixedDataBytes: number,
  numVariableCols: number,
  maxVarBytes: number,
): { rowBytes: number; rowsPerPage: number } {
  const nullBitmap = 2 + Math.floor((numCols + 7) / 8);
  const variableDataSize = numVariableCols > 0 ? 2 + 2 * numVariableCols + maxVarBytes : 0;
  const rowBytes = fixedDataBytes + variableDataSize + nullBitmap + 4;
  return { rowBytes, rowsPerPage: Math.floor((SQLSERVER_PAGE_BYTES - SQLSERVER_PAGE_HEADER_BYTES) / (rowBytes + 2)) };
}

/** PFS band of a page from its fullness: 0 empty, 1: 1–50 %, 2: 51–80 %, 3: 81–95 %, 4: 96–100 % [pages]. */
export function pfsBand(usedBytes: number, usableBytes: number): number {
  if (usedBytes <= 0) return 0;
  const pct = (100 * usedBytes) / usableBytes;
  if (pct <= 50) return 1;
  if (pct <= 80) return 2;
  if (pct <= 95) return 3;
  return 4;
}

/**
 * Index rows [MS-NCI][MS-CI]: a 1-byte header, the key, a null bitmap when a key column is nullable, the
 * variable-key offsets; a leaf row carries the row locator: the 8-byte RID on a heap, on a clustered table
 * the clustering key's columns the index does not have [MS-NCI]; a non-leaf row a 6-byte child page
 * pointer (and the locator when the index is not unique). A clustered index's leaf level is the data.
 */
function sqlserverIndexGeometry(table: TableDef, layout: TableLayout, idx: IndexDef, columns: number[]): IndexGeometry {
  const entry = (cols: readonly number[]) => {
    const nullBitmap = cols.some((ci) => layout.columns[ci]!.nullable) ? 2 + Math.ceil(cols.length / 8) : 0;
    const varHead = cols.some((ci) => layout.columns[ci]!.variableType) ? 2 : 0;
    return (lens: Uint16Array, base: number) =>
      SQLSERVER_INDEX_ROW_HEADER_BYTES + keyBytes(layout, cols, lens, base, SQLSERVER_INDEX_VAR_KEY_BYTES) + nullBitmap + varHead;
  };
  const common = {
    name: idx.name,
    columns,
    unique: idx.unique,
    slotBytes: SQLSERVER_SLOT_BYTES,
    pageRoomBytes: layout.geometry.pageBytes - SQLSERVER_PAGE_HEADER_BYTES,
    nonLeafReserveBytes: 0,
  };
  const key = entry(columns);
  const pivot = (lens: Uint16Array, base: number) => key(lens, base) + SQLSERVER_INDEX_CHILD_POINTER_BYTES;
  if (idx.clustered)
    return greedyIndexGeometry({ ...common, leafTupleBytes: pivot, pivotBytes: pivot, leafReserveBytes: 0, leafIsData: true });
  const clustered = table.indexes.find((i) => i.clustered);
  const locatorColumns = clustered ? [...columns, ...keyColumns(table, clustered).filter((c) => !columns.includes(c))] : columns;
  const locator = clustered ? entry(locatorColumns) : (lens: Uint16Array, base: number) => key(lens, base) + SQLSERVER_RID_BYTES;
  return greedyIndexGeometry({
    ...common,
    entryColumns: locatorColumns,
    leafTupleBytes: locator,
    pivotBytes: idx.unique ? pivot : (lens, base) => locator(lens, base) + SQLSERVER_INDEX_CHILD_POINTER_BYTES,
    leafReserveBytes: sqlserverFillReserve(idx.fillfactor),
  });
}

/** A PFS page tracks 8,088 pages; a GAM, an SGAM and an IAM page each cover 64,000 extents (512,000 pages, about 4 GB) [pages]. */
const SQLSERVER_PFS_INTERVAL_PAGES = 8_088;
const SQLSERVER_GAM_INTERVAL_PAGES = 64_000 * 8;

/**
 * SQL Server allocation overhead [pages]: an IAM page per allocation unit (the heap or clustered index,
 * each nonclustered index, the row-overflow data) and 4-GB interval, and the file's PFS, GAM and SGAM pages
 * over the pages of the table and its indexes (the database's pages, counted as if the table filled
 * them alone).
 */
export function sqlserverAllocationPages(input: AllocationInput): AllocationPageCounts {
  const overflow = metric(input.metrics, 'row_overflow_pages');
  const units = [input.dataPages, ...Object.values(input.indexPages), ...(overflow > 0 ? [overflow] : [])];
  const iam = units.reduce((sum, pages) => sum + Math.ceil(pages / SQLSERVER_GAM_INTERVAL_PAGES), 0);
  const all = units.reduce((sum, pages) => sum + pages, 0) + iam;
  const gam = Math.ceil(all / SQLSERVER_GAM_INTERVAL_PAGES);
  return { iam, pfs: Math.ceil(all / SQLSERVER_PFS_INTERVAL_PAGES), gam, sgam: gam };
}

/** What a clustered table does differently from a heap. */
function sqlserverClusteredNotes(engine: EngineSpec, index: string): string[] {
  const notes = [
    `a clustered table: the rows live in the leaf pages of ${index} in key order; a row that grows past its page's free space splits the page (page_splits) and is never forwarded; nonclustered indexes carry the clustering key instead of a RID`,
    "reorg forwarded_rows and rebuild run ALTER INDEX … REBUILD, compact ALTER INDEX … REORGANIZE, both at the clustered index's fill factor; pfs_bands and move_back_home apply to heaps only",
  ];
  if (engine.row_versioning === 'on') notes.push('row versioning on: every row carries a 14-byte versioning tag');
  return notes;
}

/** Fill factor 1–99 leaves (100 − n)% of a leaf page's 8096 bytes free on build; 0 and 100 fill it (non-leaf pages stay full without PAD_INDEX) [MS-FF]. */
function sqlserverFillReserve(fillfactor: number | undefined): number {
  const usable = SQLSERVER_PAGE_BYTES - SQLSERVER_PAGE_HEADER_BYTES;
  return fillfactor !== undefined && fillfactor > 0 && fillfactor < 100 ? Math.floor((usable * (100 - fillfactor)) / 100) : 0;
}

/** A SQL Server data page: the 96-byte page header, records after it, the slot array growing from the page's end; the page's PFS band [pages]. */
function sqlserverPageAnatomy(layout: TableLayout): PageAnatomy {
  const clustered = layout.clusteredIndex !== undefined;
  return {
    title: clustered ? `SQL Server data page (the leaf level of ${layout.clusteredIndex!.name})` : 'SQL Server heap data page',
    header: [{ label: 'page header', bytes: SQLSERVER_PAGE_HEADER_BYTES }],
    slotArray: { name: 'slot array', entryBytes: SQLSERVER_SLOT_BYTES, at: 'end', firstSlot: 0 },
    words: clustered
      ? { stub: 'none: a clustered table splits pages instead', forwarded: 'moved by a page split' }
      : {
          stub: `forwarding stub (${SQLSERVER_FORWARDING_STUB_BYTES} bytes)`,
          forwarded: 'forwarded record (carries a back-pointer to its stub)',
          move: 'forwarded',
          stubShort: 'forwarding stub',
        },
    ...(clustered
      ? {}
      : {
          band: (d: PageDetail) => {
            const band = pfsBand(d.storedBytes + d.slotArrayBytes, layout.geometry.usableBytes);
            return `PFS: ${['empty', '1–50 % full', '51–80 % full', '81–95 % full', '96–100 % full'][band]}`;
          },
        }),
    notes: clustered
      ? ['Rows stay in key order: a row that no longer fits splits the page.']
      : ['Inserts and forwarded records go to the first page whose PFS band guarantees room for them.'],
  };
}

/**
 * SQL Server's data type precedence, lowest first: "the data type with the lower precedence is first
 * converted to the data type with the higher precedence" [SS-PREC]. rowsim's type names map onto these.
 */
const SQLSERVER_PRECEDENCE = [
  'binary',
  'varbinary',
  'char',
  'varchar',
  'nchar',
  'nvarchar',
  'uniqueidentifier',
  'bit',
  'tinyint',
  'smallint',
  'int',
  'bigint',
  'smallmoney',
  'money',
  'decimal',
  'real',
  'float',
  'time',
  'date',
  'smalldatetime',
  'datetime',
  'datetime2',
] as const;

/** The SQL Server type a rowsim column type stands for (text and blob as the (max) types). */
function sqlserverTypeName(t: ColumnType): (typeof SQLSERVER_PRECEDENCE)[number] {
  switch (t.family) {
    case 'char':
      return t.national ? 'nchar' : 'char';
    case 'varchar':
    case 'text':
      return t.national ? 'nvarchar' : 'varchar';
    case 'binary':
      return 'binary';
    case 'varbinary':
    case 'blob':
      return 'varbinary';
    case 'uuid':
      return 'uniqueidentifier';
    case 'bool':
      return 'bit';
    case 'int':
      return t.name === 'tinyint' ? 'tinyint' : t.name === 'smallint' ? 'smallint' : t.name === 'bigint' ? 'bigint' : 'int';
    case 'numeric':
      return 'decimal';
    case 'money':
      return t.name === 'smallmoney' ? 'smallmoney' : 'money';
    case 'float':
      return t.name === 'real' ? 'real' : 'float';
    case 'datetime':
      return t.name === 'date'
        ? 'date'
        : t.name === 'time'
          ? 'time'
          : t.name === 'smalldatetime'
            ? 'smalldatetime'
            : t.name === 'datetime'
              ? 'datetime'
              : 'datetime2';
  }
}

/** Character and national character types: what a collation can compare through a range. */
const SQLSERVER_CHARACTER = new Set(['char', 'varchar', 'nchar', 'nvarchar']);

/**
 * `column = @p` in SQL Server: the side of lower precedence is converted [SS-PREC]. A converted column
 * cannot be sought, except a char/varchar column compared with an nchar/nvarchar value under a Windows
 * collation, which is sought through a range computed from the value (GetRangeThroughConvert), each row
 * then checked with the conversion; under a SQL collation it is scanned [SS-COLL].
 */
function sqlserverComparison(column: ColumnDef, parameter: ColumnType, engine: EngineSpec): ComparisonRule {
  const c = sqlserverTypeName(column.type);
  const p = sqlserverTypeName(parameter);
  if (c === p) return unconverted(column.name, '[SS-PREC]');
  const characterC = SQLSERVER_CHARACTER.has(c);
  const characterP = SQLSERVER_CHARACTER.has(p);
  if (
    (c === 'uniqueidentifier' && !characterP && p !== 'binary' && p !== 'varbinary') ||
    (p === 'uniqueidentifier' && !characterC && c !== 'binary' && c !== 'varbinary')
  ) {
    return {
      access: 'error',
      converted: 'none',
      expression: `${column.name} = @p`,
      why: `SQL Server has no implicit conversion between ${c} and ${p} (operand type clash)`,
      source: '[SS-PREC]',
    };
  }
  const rc = SQLSERVER_PRECEDENCE.indexOf(c);
  const rp = SQLSERVER_PRECEDENCE.indexOf(p);
  if (rp < rc) {
    return {
      access: 'seek',
      converted: 'parameter',
      expression: `${column.name} = CONVERT_IMPLICIT(${column.type.sql}, @p)`,
      why: `${p} has a lower precedence than the column's ${c}: the parameter is converted, the index is sought`,
      source: '[SS-PREC]',
    };
  }
  const expression = `CONVERT_IMPLICIT(${parameter.sql}, ${column.name}, 0) = @p`;
  if (characterC && characterP && engine.collation === 'windows') {
    return {
      access: 'range-seek',
      converted: 'column',
      expression,
      why: `${p} has a higher precedence than the column's ${c}, so the column is converted (${expression}); under a Windows collation SQL Server still seeks the index through a range computed from the parameter (GetRangeThroughConvert) and checks each row it returns`,
      source: '[SS-PREC][SS-COLL]',
    };
  }
  return {
    access: 'scan',
    converted: 'column',
    expression,
    why: `${p} has a higher precedence than the column's ${c}, so every row's column is converted (${expression}) and the index cannot be sought${characterC && characterP ? ' (a SQL collation; a Windows collation would seek through a range: engine.collation)' : ''}`,
    source: characterC && characterP ? '[SS-PREC][SS-COLL]' : '[SS-PREC]',
  };
}

export const sqlserverHeap: StorageFormat = {
  id: 'sqlserver-heap',
  dbms: 'sqlserver',
  dbmsName: 'SQL Server',
  title: 'SQL Server heap (forwarding stubs, PFS)',
  evidence: ['index_physical_stats'],
  defaultPageBytes: SQLSERVER_PAGE_BYTES,
  pageSizes: [SQLSERVER_PAGE_BYTES],
  settingsShape: sqlserverSettings,
  ddl: sqlserverDdl,
  settings: [
    'page_size',
    'encoding',
    'multibyte_share',
    'multibyte_widths',
    'pfs_bands',
    'move_back_home',
    'row_versioning',
    'compaction',
    'collation',
  ],
  defaults: { ...COMMON_DEFAULTS, pfs_bands: 'on', move_back_home: 'on', row_versioning: 'off', compaction: 'on', collation: 'sql' },
  encodingFor: withoutUtf16,
  resolve(engine, layout): ResolvedEngine {
    checkPageSize(engine, [SQLSERVER_PAGE_BYTES], '8k for SQL Server (pages are always 8192 bytes)');
    if (engine.encoding === 'utf16') {
      throw new EngineSettingError(
        'encoding',
        'latin1 (a code page) or utf8 (a _UTF8 collation) for char/varchar; declare nchar/nvarchar for UTF-16; found utf16',
      );
    }
    const g = layout.geometry;
    return {
      format: 'sqlserver-heap',
      page_size: engine.page_size,
      pfs_bands: engine.pfs_bands,
      move_back_home: engine.move_back_home,
      row_versioning: engine.row_versioning,
      encoding: engine.encoding,
      usable_page_bytes: g.usableBytes,
      max_rows_per_page: g.maxRowsPerPage,
      max_row_bytes: SQLSERVER_MAX_IN_ROW_BYTES,
      forwarding_stub_bytes: SQLSERVER_FORWARDING_STUB_BYTES,
      back_pointer_bytes: SQLSERVER_BACK_POINTER_BYTES,
      ...(layout.clusteredIndex ? { clustered_index: layout.clusteredIndex.name } : {}),
    };
  },
  notes(engine, resolved) {
    if (resolved.clustered_index !== undefined) return sqlserverClusteredNotes(engine, String(resolved.clustered_index));
    const notes = [
      'a forwarded record carries a back-pointer of about 10 bytes (third-party, not verified); the stub left at home is 9 bytes',
      'reorg forwarded_rows and rebuild both run ALTER TABLE … REBUILD (SQL Server has no per-row reorg); heaps have no fill factor',
    ];
    if (engine.pfs_bands === 'on') {
      notes.push(
        'inserts and forwarded rows find pages through PFS bands (0, 1–50, 51–80, 81–95, 96–100 % full): a page is only chosen when its band guarantees room',
      );
    }
    if (engine.row_versioning === 'on') notes.push('row versioning on: every row carries a 14-byte versioning tag');
    return notes;
  },
  rows: {
    tableLimit: (table, layout) => sqlserverDeclaredLengthLimit(table) ?? sqlserverMinimumRowLimit(table, layout),
    layout: sqlserverLayout,
    rowBytes(layout, lens, base) {
      return sqlserverRowBytes((layout as SqlServerTableLayout).ss, lens, base);
    },
    logicalBytes: logicalDataBytes,
  },
  pages: {
    pageAnatomy: (layout) => sqlserverPageAnatomy(layout),
    createEngine: (layout, _resolved, spec, rowCapacity) =>
      layout.clusteredIndex
        ? new ClusteredHeap({
            geometry: layout.geometry,
            buildReserveBytes: sqlserverFillReserve(layout.clusteredIndex.fillfactor),
            maxRowsPerPage: 0,
            reservePageGap: 0,
            // Nonclustered indexes carry the clustering key, not a row id: a split moves no entry [MS-NCI].
            ridIndexes: 0,
            // ALTER INDEX … REORGANIZE compacts the leaf pages to the fill factor; REBUILD rewrites them.
            compactRebuilds: true,
            forwardedRowsRebuilds: true,
            rowCapacity,
          })
        : new ForwardingHeap({
            geometry: layout.geometry,
            forwarding: true,
            stubBytes: SQLSERVER_FORWARDING_STUB_BYTES,
            expRowSizeBytes: 0,
            expRowSizeBasis: 'physical',
            compaction: spec.engine.compaction === 'on',
            indexCount: spec.table.indexes.length,
            rowCapacity,
            backPointerBytes: SQLSERVER_BACK_POINTER_BYTES,
            moveBackHome: spec.engine.move_back_home === 'on',
            freeSpaceSearch: spec.engine.pfs_bands === 'on' ? 'pfs' : 'exact',
            pfsBandUpperPct: SQLSERVER_PFS_BAND_UPPER_PCT,
            // A page 81–95 % full takes a record of up to 5 % of 8,060 = 403 bytes: 392 characters fit, 393 do not [DBA-15026].
            pfsBaseBytes: SQLSERVER_MAX_IN_ROW_BYTES,
            // SQL Server has no per-row reorg: ALTER TABLE … REBUILD [heaps].
            reorgForwardedRowsRebuilds: true,
          }),
    engineRowBytes: FORWARDING_HEAP_ROW_BYTES,
    reorgNote: forwardingReorgNote('sqlserver-heap'),
  },
  reads: {
    comparison: sqlserverComparison,
    readCounters: (reads) => ({ forwarded_fetch_count: reads.forwardedHops }),
    readRowBytes: 0,
    lobStore: () => sqlserverLobStore(),
  },
  indexes: {
    indexSettings: ['fillfactor'],
    indexGeometry: sqlserverIndexGeometry,
    versionedIndexes: false,
  },
  allocation: {
    allocationPages: sqlserverAllocationPages,
    offRow: sqlserverOffRow,
  },
  knob: {
    noKnob: 'heaps have no fill factor',
    maintenance: (table) => ({
      periodic: `ALTER TABLE ${table} REBUILD`,
      periodicRebuilds: true,
      change: [],
      costs: [
        'ALTER TABLE … REBUILD rewrites the heap (every page written) and removes its forwarded records [heaps]; its locks and log depend on ONLINE and the recovery model (not modelled)',
        'a clustered index keeps rows from being forwarded at all (a table with one is not a heap) [heaps]',
      ],
    }),
  },
  words: {
    rowIdName: 'RID',
    phaseMetrics: [...FORWARDING_PHASE_METRICS, 'page_splits'],
    movedRows: { metric: 'forwarded_rows', word: 'forwarded', short: 'fwd' },
    rowBytesAre: 'physical',
  },
};
