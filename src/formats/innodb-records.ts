/**
 * InnoDB records and pages (format `innodb`): what a record of the clustered index, of a secondary index
 * and a node pointer take for each row format, what a page offers, which long values go off-page, and
 * the limits the server checks. Every figure cites the MariaDB server source (storage/innobase, the files
 * named) or the MySQL/MariaDB manuals; docs/sources.md "InnoDB" lists them.
 */
import type { ColumnType } from '../config/column-types.js';
import type { ColumnDef, EngineSpec, IndexDef, TableDef } from '../config/spec.js';
import {
  charsetBytesPerChar,
  columnLayout,
  indexVaryingColumns,
  NULL_LEN,
  rowBytesRange,
  type ColumnLayout,
  type TableLayout,
} from '../layout/table-layout.js';
import { columnCharset, INNODB_CHARSETS } from './innodb-comparison.js';

export type RowFormat = 'dynamic' | 'compact' | 'redundant';

/** fil0types.h: FIL_PAGE_DATA (the FIL header) 38 bytes, FIL_PAGE_DATA_END (the trailer) 8. */
export const FIL_HEADER_BYTES = 38;
export const FIL_TRAILER_BYTES = 8;
/** page0page.h: the index page header 36 bytes and two file segment headers (FSEG_HEADER_SIZE 10). */
export const PAGE_HEADER_BYTES = 36;
export const FSEG_HEADERS_BYTES = 20;
/** page0page.h PAGE_NEW_SUPREMUM_END − PAGE_DATA: infimum and supremum, 13 bytes each (5-byte header, 8 bytes); PAGE_OLD_SUPREMUM_END − PAGE_DATA: 31. */
const SYSTEM_RECORDS_BYTES = { compact: 26, redundant: 31 } as const;
/** page0page.h PAGE_EMPTY_DIR_START: an empty page's two directory slots (infimum's, supremum's), 2 bytes each. */
export const EMPTY_DIRECTORY_BYTES = 4;
/** rem0rec.h REC_N_NEW_EXTRA_BYTES (COMPACT, DYNAMIC) and REC_N_OLD_EXTRA_BYTES (REDUNDANT). */
const NEW_HEADER_BYTES = 5;
const OLD_HEADER_BYTES = 6;
/** rem0rec.h REC_1BYTE_OFFS_LIMIT: REDUNDANT uses 1-byte field end offsets while the data is at most 127 bytes (and no field is external). */
const ONE_BYTE_OFFSETS_LIMIT = 127;
/** data0type.h DATA_TRX_ID_LEN, DATA_ROLL_PTR_LEN, DATA_ROW_ID_LEN. */
const TRX_ID_BYTES = 6;
const ROLL_PTR_BYTES = 7;
export const ROW_ID_BYTES = 6;
/** btr0types.h FIELD_REF_SIZE / BTR_EXTERN_FIELD_REF_SIZE: the pointer to an off-page value. */
const EXTERN_REF_BYTES = 20;
/** btr0types.h BTR_EXTERN_LOCAL_STORED_MAX_SIZE (2 × 20): a value this short never goes off-page. */
const LOCAL_STORED_MAX_BYTES = 40;
/** dict0mem.h DICT_ANTELOPE_MAX_INDEX_COL_LEN: COMPACT and REDUNDANT keep a 768-byte prefix in the record. */
const ANTELOPE_PREFIX_BYTES = 768;
/** rem0types.h REC_MAX_DATA_SIZE (16384): with 64K pages a record stays under it (dict0dict.cc, page_rec_max). */
const REC_MAX_DATA_SIZE = 16384;
/** btr0cur.h BTR_BLOB_HDR_SIZE: the header of each off-page (BLOB) page after the FIL header. */
const BLOB_HEADER_BYTES = 8;
/** A node pointer's child page number (dict_index_build_node_ptr: 4 bytes, DATA_SYS_CHILD). */
const CHILD_PAGE_NO_BYTES = 4;

/** The InnoDB page sizes (innodb_page_size: 4k, 8k, 16k default, 32k, 64k). */
export const INNODB_PAGE_SIZES = [4096, 8192, 16384, 32768, 65536] as const;

/** page_get_free_space_of_empty(): an empty index page's bytes for records and their directory slots (16,252 at 16K COMPACT). */
export function freeSpaceOfEmpty(pageBytes: number, format: RowFormat): number {
  const system = format === 'redundant' ? SYSTEM_RECORDS_BYTES.redundant : SYSTEM_RECORDS_BYTES.compact;
  return pageBytes - FIL_HEADER_BYTES - PAGE_HEADER_BYTES - FSEG_HEADERS_BYTES - system - FIL_TRAILER_BYTES - EMPTY_DIRECTORY_BYTES;
}

/** The record size the server refuses from (dict0dict.cc page_rec_max): half an empty page (8,126 at 16K), REC_MAX_DATA_SIZE − 1 at 64K. */
export function recordLimit(pageBytes: number, format: RowFormat): number {
  return pageBytes === 65536 ? REC_MAX_DATA_SIZE - 1 : Math.floor(freeSpaceOfEmpty(pageBytes, format) / 2);
}

/** fsp0types.h FSP_EXTENT_SIZE: 1 MiB of pages below 16K, 64 pages from 16K on. */
export function extentPages(pageBytes: number): number {
  return pageBytes < 16384 ? 1048576 / pageBytes : 64;
}

/** Bytes of one off-page (BLOB) page's payload: the page less its FIL header and trailer and the BLOB header. */
export function blobPagePayload(pageBytes: number): number {
  return pageBytes - FIL_HEADER_BYTES - BLOB_HEADER_BYTES - FIL_TRAILER_BYTES;
}

/** MySQL's storage requirements of a fixed-length type (manual, "Data Type Storage Requirements"); 0 for a variable-length one. */
export function innodbFixedBytes(t: ColumnType): number {
  switch (t.family) {
    case 'int':
      // ENUM: 1 byte up to 255 members, else 2; SET: 1, 2, 3, 4 or 8 bytes for up to 8, 16, 24, 32, 64 members.
      if (t.name === 'enum') return t.length <= 255 ? 1 : 2;
      if (t.name === 'set') return [1, 2, 3, 4, 8, 8, 8, 8][Math.ceil(t.length / 8) - 1] ?? 8;
      return (
        ({ tinyint: 1, year: 1, smallint: 2, mediumint: 3, bigint: 8 } as Record<string, number>)[t.name] ??
        (t.name.includes('bigint') ? 8 : t.name.includes('smallint') ? 2 : 4)
      );
    case 'float':
      return t.name === 'real' || (t.name === 'float' && t.length <= 24) ? 4 : 8;
    case 'numeric':
      return decimalBytes(t.precision - t.scale) + decimalBytes(t.scale);
    case 'money':
      return decimalBytes(15) + decimalBytes(4);
    case 'datetime':
      return temporalBytes(t);
    case 'bool':
      return 1;
    case 'uuid':
      return 16;
    case 'char':
    case 'binary':
      return t.length;
    default:
      return 0;
  }
}

/** DECIMAL: 4 bytes for each 9 digits, the leftover digits 1–2 → 1 byte, 3–4 → 2, 5–6 → 3, 7–8 → 4 (integer and fraction parts apart). */
function decimalBytes(digits: number): number {
  return 4 * Math.floor(digits / 9) + [0, 1, 1, 2, 2, 3, 3, 4, 4][digits % 9]!;
}

/** DATE 3, TIME 3, DATETIME 5, TIMESTAMP 4, plus ⌈fsp / 2⌉ bytes of fractional seconds (MySQL 5.6.4+ formats). */
function temporalBytes(t: ColumnType): number {
  const fraction = Math.ceil((t.sql.includes('(') ? t.precision : 0) / 2);
  const base: Record<string, number> = { date: 3, time: 3, datetime: 5, timestamp: 4, timestamptz: 4, datetime2: 5, smalldatetime: 4 };
  return (base[t.name] ?? 8) + fraction;
}

/** The longest value of a TEXT or BLOB type (TINY 255, plain 65,535, MEDIUM 16 MiB − 1, LONG and JSON 4 GiB − 1). */
function lobMaxBytes(t: ColumnType): number {
  if (t.name.startsWith('tiny')) return 255;
  if (t.name.startsWith('medium')) return 16_777_215;
  if (t.name.startsWith('long') || t.name === 'json') return 4_294_967_295;
  return 65_535;
}

/** How a column's value is stored in a record. */
interface InnodbColumn {
  /** Place among the row's stored lengths (−1: a fixed-length NOT NULL column). */
  varIndex: number;
  fixedBytes: number;
  nullable: boolean;
  /** Its length is written in the record's variable-length list (COMPACT: not for fixed-length columns). */
  variable: boolean;
  /** DATA_BIG_COL: longer than 255 bytes at most, or a BLOB/TEXT: a 2-byte length from 128 bytes on, and off-page storage possible. */
  big: boolean;
  /** A column of the clustered index's key: never off-page. */
  key: boolean;
}

export interface InnodbLayoutInfo {
  format: RowFormat;
  pageBytes: number;
  columns: InnodbColumn[];
  /** DB_TRX_ID and DB_ROLL_PTR, and DB_ROW_ID when the table has no primary key. */
  systemBytes: number;
  systemFields: number;
  /** ⌈nullable columns / 8⌉: the NULL bitmap (COMPACT, DYNAMIC). */
  nullBitmapBytes: number;
  limit: number;
  /** The clustered index's name (GEN_CLUST_INDEX without a primary key) and its key columns. */
  clusteredName: string;
  clusteredColumns: number[];
  /** innodb_strict_mode: CREATE TABLE refuses a definition whose longest record reaches the limit. */
  strict: boolean;
}

export interface InnodbTableLayout extends TableLayout {
  innodb: InnodbLayoutInfo;
}

/** The index InnoDB clusters the table on: the primary key (a `clustered` index), else the first unique index of NOT NULL columns, else none. */
export function clusteredIndexOf(table: TableDef): IndexDef | undefined {
  const notNull = (idx: IndexDef) =>
    idx.columns.every((c) => !table.columns.find((col) => col.name.toLowerCase() === c.toLowerCase())?.nullable);
  return table.indexes.find((i) => i.clustered) ?? table.indexes.find((i) => i.unique && notNull(i));
}

/**
 * How a column is stored: its most bytes (a character type's characters times its character set's most
 * bytes a character), whether its length is written, and the bytes a character of the data takes. A CHAR
 * in a multi-byte character set is variable-length under COMPACT and DYNAMIC, at least n bytes (manual,
 * "COMPACT row format"; row0mysql.cc); REDUNDANT keeps it fixed at its most bytes.
 */
function columnStorage(
  c: ColumnDef,
  engine: EngineSpec,
  format: RowFormat,
): { variable: boolean; maxBytes: number; character: boolean; bytesPerChar: number } {
  const t = c.type;
  const character = t.family === 'char' || t.family === 'varchar' || t.family === 'text';
  const charset = character ? (columnCharset(t, engine) ?? 'utf8mb4') : 'latin1';
  const mbMax = INNODB_CHARSETS[charset].maxBytes;
  const bytesPerChar = !character ? 1 : mbMax === 1 ? 1 : charsetBytesPerChar({ ...engine, encoding: 'utf8' });
  const s = { character, bytesPerChar };
  if (t.family === 'text' || t.family === 'blob') return { ...s, variable: true, maxBytes: lobMaxBytes(t) };
  if (t.family === 'varchar') return { ...s, variable: true, maxBytes: t.length * mbMax };
  if (t.family === 'varbinary') return { ...s, variable: true, maxBytes: t.length };
  if (t.family === 'char' && mbMax > 1) return { ...s, variable: format !== 'redundant', maxBytes: t.length * mbMax };
  return { ...s, variable: false, maxBytes: innodbFixedBytes(t) };
}

export function innodbLayout(table: TableDef, engine: EngineSpec): InnodbTableLayout {
  const format = (engine.row_format ?? 'dynamic') as RowFormat;
  const clustered = clusteredIndexOf(table);
  const keyNames = new Set((clustered?.columns ?? []).map((c) => c.toLowerCase()));
  const storage = table.columns.map((c) => columnStorage(c, engine, format));
  const columns: ColumnLayout[] = table.columns.map((c, i) => {
    const s = storage[i]!;
    return columnLayout(table, c, i, {
      variableType: s.variable,
      character: s.character,
      bytesPerChar: s.bytesPerChar,
      maxBytes: s.maxBytes,
    });
  });
  const { varying, fixedNotNullBytes, logicalMaxBytes } = indexVaryingColumns(columns);
  const info: InnodbLayoutInfo = {
    format,
    pageBytes: engine.page_size,
    columns: columns.map((c, i) => ({
      varIndex: c.varIndex,
      fixedBytes: c.fixedBytes,
      nullable: c.nullable && !keyNames.has(c.name.toLowerCase()),
      variable: storage[i]!.variable,
      big: storage[i]!.variable && (storage[i]!.maxBytes > 255 || table.columns[i]!.type.lob),
      key: keyNames.has(c.name.toLowerCase()),
    })),
    systemBytes: TRX_ID_BYTES + ROLL_PTR_BYTES + (clustered ? 0 : ROW_ID_BYTES),
    systemFields: clustered ? 2 : 3,
    nullBitmapBytes: 0,
    limit: recordLimit(engine.page_size, format),
    clusteredName: clustered?.name ?? 'GEN_CLUST_INDEX',
    clusteredColumns: (clustered?.columns ?? []).map((n) => table.columns.findIndex((c) => c.name.toLowerCase() === n.toLowerCase())),
    strict: engine.innodb_strict_mode !== 'off',
  };
  info.nullBitmapBytes = Math.ceil(info.columns.filter((c) => c.nullable).length / 8);
  const usable = freeSpaceOfEmpty(engine.page_size, format);
  return {
    columns,
    varying,
    geometry: {
      pageBytes: engine.page_size,
      headerBytes: engine.page_size - usable,
      usableBytes: usable,
      // A directory slot (2 bytes) per 4 records: page_dir_calc_reserved_space reserves ⌈2n / 4⌉ bytes for n.
      slotBytes: 0.5,
      maxRowsPerPage: Math.floor(usable / (NEW_HEADER_BYTES + info.systemBytes + 1)),
      maxRowBytes: info.limit - 1,
    },
    ...rowBytesRange(varying, (lens) => clusteredRecord(info, lens, 0).bytes),
    logicalMaxBytes,
    fixedNotNullBytes,
    ...(clustered ? { clusteredIndex: clustered } : {}),
    innodb: info,
  };
}

/** A value's stored length in the row store (NULL_LEN: NULL), or its fixed bytes. */
function valueLength(c: InnodbColumn, lens: Uint16Array, base: number): number {
  return c.varIndex < 0 ? c.fixedBytes : lens[base + c.varIndex]!;
}

/**
 * A clustered index record (rem0rec.cc rec_get_converted_size_comp / _old): COMPACT and DYNAMIC, a
 * 5-byte header, the NULL bitmap, a 1- or 2-byte length for every non-NULL variable-length value
 * (2 from 128 bytes on where the column is "big"), the key, DB_TRX_ID 6, DB_ROLL_PTR 7 (DB_ROW_ID 6
 * first without a key), the other columns; REDUNDANT, a 6-byte header and a 1- or 2-byte end offset for
 * every field, a NULL fixed-length value taking its bytes. While the record reaches the limit, the
 * longest eligible value goes off-page (btr0cur.cc dtuple_convert_big_rec): whole, behind a 20-byte
 * pointer, under DYNAMIC (only "big" columns longer than 40 bytes); all but a 768-byte prefix under
 * COMPACT and REDUNDANT. Returns the record's bytes and the off-page bytes of each value moved.
 */
export function clusteredRecord(info: InnodbLayoutInfo, lens: Uint16Array, base: number): { bytes: number; offPage: number[] } {
  const local = info.format === 'dynamic' ? EXTERN_REF_BYTES : ANTELOPE_PREFIX_BYTES + EXTERN_REF_BYTES;
  const offPage: number[] = [];
  const moved = new Set<number>();
  let bytes = recordBytes(info, lens, base, moved, local);
  while (bytes >= info.limit) {
    let best = -1;
    let bestSaving = 0;
    info.columns.forEach((c, i) => {
      const len = valueLength(c, lens, base);
      if (!c.big || c.key || moved.has(i) || len === NULL_LEN || len <= local || len <= LOCAL_STORED_MAX_BYTES) return;
      if (len - local > bestSaving) {
        best = i;
        bestSaving = len - local;
      }
    });
    if (best < 0) break;
    moved.add(best);
    const len = valueLength(info.columns[best]!, lens, base);
    offPage.push(info.format === 'dynamic' ? len : len - ANTELOPE_PREFIX_BYTES);
    bytes = recordBytes(info, lens, base, moved, local);
  }
  return { bytes, offPage };
}

function recordBytes(info: InnodbLayoutInfo, lens: Uint16Array, base: number, moved: ReadonlySet<number>, local: number): number {
  let data = info.systemBytes;
  let lengths = 0;
  info.columns.forEach((c, i) => {
    const len = valueLength(c, lens, base);
    if (len === NULL_LEN) {
      // REDUNDANT keeps a NULL fixed-length value's bytes (dtype_get_sql_null_size).
      if (info.format === 'redundant' && !c.variable) data += c.fixedBytes;
      return;
    }
    const stored = moved.has(i) ? local : len;
    data += stored;
    if (c.variable) lengths += moved.has(i) || (c.big && len >= 128) ? 2 : 1;
  });
  if (info.format !== 'redundant') return NEW_HEADER_BYTES + info.nullBitmapBytes + lengths + data;
  const fields = info.columns.length + info.systemFields;
  return OLD_HEADER_BYTES + fields * (moved.size === 0 && data <= ONE_BYTE_OFFSETS_LIMIT ? 1 : 2) + data;
}

/** Off-page pages of a row's moved values: each value on pages of its own, a page's payload at a time. */
export function offPagePages(info: InnodbLayoutInfo, lens: Uint16Array, base: number): number {
  const { offPage } = clusteredRecord(info, lens, base);
  const payload = blobPagePayload(info.pageBytes);
  return offPage.reduce((sum, bytes) => sum + Math.ceil(bytes / payload), 0);
}

/**
 * A secondary index record (its key fields, then the primary key's columns it has not got) or a node
 * pointer (the fields that order the level: a clustered index's key, a secondary index's key and
 * primary key; and the 4-byte child page number), sized as rem0rec.cc sizes any record.
 */
export function indexRecordBytes(
  info: InnodbLayoutInfo,
  columns: readonly number[],
  pointer: boolean,
): (lens: Uint16Array, base: number) => number {
  const fields = columns.length === 0 ? [] : columns;
  const rowId = columns.length === 0 || info.clusteredColumns.length === 0;
  const nullBitmap = Math.ceil(fields.filter((ci) => info.columns[ci]!.nullable).length / 8);
  const extra = (rowId ? ROW_ID_BYTES : 0) + (pointer ? CHILD_PAGE_NO_BYTES : 0);
  const nFields = fields.length + (rowId ? 1 : 0) + (pointer ? 1 : 0);
  return (lens, base) => {
    let data = extra;
    let lengths = 0;
    for (const ci of fields) {
      const c = info.columns[ci]!;
      const len = valueLength(c, lens, base);
      if (len === NULL_LEN) {
        if (info.format === 'redundant' && !c.variable) data += c.fixedBytes;
        continue;
      }
      data += len;
      if (c.variable) lengths += c.big && len >= 128 ? 2 : 1;
    }
    if (info.format !== 'redundant') return NEW_HEADER_BYTES + nullBitmap + lengths + data;
    return OLD_HEADER_BYTES + nFields * (data <= ONE_BYTE_OFFSETS_LIMIT ? 1 : 2) + data;
  };
}

/**
 * The CREATE TABLE check (dict0dict.cc dict_index_too_big_for_tree, under innodb_strict_mode): the
 * longest record the definition allows, a "big" column counted at what stays in the record when it goes
 * off-page (its 20-byte pointer under DYNAMIC, 788 bytes under COMPACT and REDUNDANT), with a 1-byte
 * length, must stay under the limit. A live MariaDB 10.11 takes 385 TEXT NOT NULL columns and an INT key
 * under DYNAMIC (5 + 13 + 4 + 385 × 21 = 8,107 bytes) and refuses 386, takes 10 under COMPACT and refuses 11.
 */
export function createTableMaxRecord(info: InnodbLayoutInfo, layout: TableLayout): number {
  const local = info.format === 'dynamic' ? EXTERN_REF_BYTES : ANTELOPE_PREFIX_BYTES + EXTERN_REF_BYTES;
  let size =
    info.format === 'redundant'
      ? OLD_HEADER_BYTES + 2 * (info.columns.length + info.systemFields)
      : NEW_HEADER_BYTES + info.nullBitmapBytes;
  size += info.systemBytes;
  info.columns.forEach((c, i) => {
    const max = layout.columns[i]!.maxBytes;
    if (!c.variable) {
      size += c.fixedBytes;
      return;
    }
    const counted = c.big && !c.key && max > LOCAL_STORED_MAX_BYTES ? local : max;
    size += counted + (info.format === 'redundant' ? 0 : max > 255 && counted === max ? 2 : 1);
  });
  return size;
}
