/**
 * PostgreSQL heap tuple format (`postgres-heap`). Every figure cites the PostgreSQL source file it comes from
 * (docs/sources.md, "PostgreSQL source code"):
 * [bufpage.h] src/include/storage/bufpage.h, [itemid.h], [htup_details.h], [heaptoast.h], [pg_type.h],
 * [nbtree.h]. Sizes are computed the way heap_compute_data_size() and heap_form_tuple() do: a 23-byte
 * header, a null bitmap only when the row has a NULL, t_hoff MAXALIGNed, each attribute aligned to its
 * type's typalign, varlena values with a 1-byte header (and no alignment) when they fit in 127 bytes.
 */
import { fillfactorKnob, PG_DEFAULT_FILLFACTOR, postgresDdl, postgresSettings } from './postgres-settings.js';
import type { ColumnDef, EngineSpec, IndexDef, TableDef } from '../config/spec.js';
import { columnBytes, indexGeometry, type IndexGeometry } from '../btree/geometry.js';
import {
  PG_CHURN_ROW_BYTES,
  PG_PRUNE_FREE_DIVISOR,
  PG_READ_STATE_ROW_BYTES,
  POSTGRES_HEAP_ROW_BYTES,
  PostgresHeap,
} from '../heap/postgres-heap.js';
import { metric } from '../heap/metrics.js';
import { pgToastStore } from './lob.js';
import { CompressedSizes } from './pg-compression.js';
import {
  PG_MAXALIGN,
  PG_HEAP_TUPLE_HEADER_BYTES,
  PG_KIND_FIXED,
  PG_STORAGE_EXTENDED,
  PG_STORAGE_MAIN,
  PG_STORAGE_NAMES,
  PG_STORAGE_PLAIN,
  PG_TOAST_TUPLE_TARGET_MIN,
  PG_VARHDRSZ,
  PG_VARHDRSZ_SHORT,
  PG_VARLENA_SHORT_MAX,
  PgToaster,
  PgToastRelation,
  maxalign,
  pgToastMaxChunkBytes,
  pgToastTargetMain,
  pgToastThreshold,
  type PgToastInfo,
} from './postgres-toast.js';

export { PG_TOAST_POINTER_BYTES, pgToastThreshold } from './postgres-toast.js';
import { COMMON_DEFAULTS, withoutUtf16, type PageAnatomy, type StorageFormat } from './format.js';
import type { ColumnType } from '../config/column-types.js';
import { postgresComparison } from './postgres-comparison.js';
import { intBytes, isCharacterType, isVariableType } from '../config/column-types.js';
import {
  EngineSettingError,
  NULL_LEN,
  charsetBytesPerChar,
  utf8MostBytesPerChar,
  utf8WidthShares,
  checkPageSize,
  columnLayout,
  indexVaryingColumns,
  logicalDataBytes,
  rowBytesRange,
  type ColumnLayout,
  type PageGeometry,
  type ResolvedEngine,
  type TableLayout,
} from '../layout/table-layout.js';

/** BLCKSZ default [bufpage.h]. */
const PG_BLCKSZ = 8192;
/** Page sizes PostgreSQL can be built with (BLCKSZ, configure --with-blocksize) [bufpage.h]. */
const PG_PAGE_SIZES = [1024, 2048, 4096, 8192, 16384, 32768] as const;
/** SizeOfPageHeaderData [bufpage.h]. */
const PG_PAGE_HEADER_BYTES = 24;
/** sizeof(ItemIdData), the line pointer [itemid.h]. */
const PG_LINE_POINTER_BYTES = 4;
/** SizeofHeapTupleHeader is in postgres-toast.ts with the other tuple constants the toaster shares. */
/**
 * numeric [PG-NUMERIC]: NUMERIC_SHORT, a 2-byte header (sign, display scale, weight: every numeric(p, s)
 * of p ≤ 38 fits it), then one 2-byte NBASE (10,000) digit for every group of 4 decimal digits, the
 * groups aligned on the decimal point; make_result strips leading and trailing zero groups, so zero is
 * the header alone. NUMERIC_HDRSZ (8) and numeric_maximum_size bound a column's largest value.
 */
const PG_NUMERIC_SHORT_HEADER_BYTES = 2;
const PG_NUMERIC_DIGITS_PER_GROUP = 4;
const PG_NUMERIC_GROUP_BYTES = 2;
const PG_NUMERIC_HDRSZ = 8;
/** pg_encoding_max_length: the most bytes a character takes (UTF8 4, LATIN1 1) [PG-ENCODINGS]. */
const PG_UTF8_MAX_CHAR_BYTES = 4;

const alignTo = (n: number, a: number): number => (n + a - 1) & ~(a - 1);

/** MaxHeapTupleSize = BLCKSZ − MAXALIGN(page header + one line pointer): 8160 on 8k [htup_details.h]. */
export function pgMaxHeapTupleBytes(pageBytes: number): number {
  return pageBytes - maxalign(PG_PAGE_HEADER_BYTES + PG_LINE_POINTER_BYTES);
}

/** MaxHeapTuplesPerPage = (BLCKSZ − header) / (MAXALIGN(23) + 4): 291 on 8k [htup_details.h]. */
export function pgMaxHeapTuplesPerPage(pageBytes: number): number {
  return Math.floor((pageBytes - PG_PAGE_HEADER_BYTES) / (maxalign(PG_HEAP_TUPLE_HEADER_BYTES) + PG_LINE_POINTER_BYTES));
}

/** How a column is stored: a fixed-length type with its typalign (PG_KIND_FIXED, postgres-toast.ts), or a varlena. */
/** varlena with storage 'x' (extended: may be compressed or moved out of line: text, varchar, bpchar, bytea). */
const PG_KIND_VARLENA_X = 1;
/** varlena with storage 'm' (main: kept inline as long as possible: numeric). */
const PG_KIND_VARLENA_M = 2;

export interface PgType {
  kind: typeof PG_KIND_FIXED | typeof PG_KIND_VARLENA_X | typeof PG_KIND_VARLENA_M;
  /**
   * The type's default B-tree operator class is "equalimage" (equal values are bytewise equal), so an
   * index on it may deduplicate: its opfamily has btequalimage or btvarstrequalimage (deterministic
   * collations) as support function 4 [pg_amproc.dat]; float4, float8 and numeric have none.
   */
  equalImage: boolean;
  /** Fixed types: typlen. Varlenas of a fixed data length (char(n), numeric): the data bytes; else 0. */
  bytes: number;
  /** typalign in bytes: c = 1, s = 2, i = 4, d = 8 [pg_type.h]. Varlenas: i (applies to 4-byte headers). */
  align: number;
  /** The PostgreSQL type name used by rowsize and pg-check. */
  sql: string;
}

/**
 * Data bytes of a numeric(p, s) value of `digits` digits, its last at the s-th decimal place and neither
 * its first nor its last digit zero (1234.56 in numeric(12,2): 6 digits): 2 + 2 × the NBASE groups from
 * its first digit's to its last digit's (1234.56: [1234][5600], 6 bytes); 0 digits is zero, 2 bytes.
 * With all p digits: 2 + 2 × (⌈(p − s)/4⌉ + ⌈s/4⌉).
 */
export function pgNumericBytes(digits: number, scale: number): number {
  if (digits <= 0) return PG_NUMERIC_SHORT_HEADER_BYTES;
  const first = Math.floor((digits - scale - 1) / PG_NUMERIC_DIGITS_PER_GROUP);
  const last = Math.floor(-scale / PG_NUMERIC_DIGITS_PER_GROUP);
  return PG_NUMERIC_SHORT_HEADER_BYTES + PG_NUMERIC_GROUP_BYTES * (first - last + 1);
}

/** numeric_maximum_size: NUMERIC_HDRSZ + 2 × ((p + 6) / 4), what needs_toast_table counts for a numeric(p, s) column. */
function pgNumericMaximumSize(precision: number): number {
  return (
    PG_NUMERIC_HDRSZ +
    PG_NUMERIC_GROUP_BYTES * Math.floor((precision + 2 * (PG_NUMERIC_DIGITS_PER_GROUP - 1)) / PG_NUMERIC_DIGITS_PER_GROUP)
  );
}

/** What a utf8 config's characters take, for the notes ('' when every character takes 1 byte). */
export function utf8Note(engine: EngineSpec): string {
  if (engine.encoding !== 'utf8') return '';
  const [s2, s3, s4] = utf8WidthShares(engine);
  const parts = (
    [
      [s2, 2],
      [s3, 3],
      [s4, 4],
    ] as const
  )
    .filter(([s]) => s > 0)
    .map(([s, w]) => `${Math.round(s * 1000) / 10}% ${w}`);
  if (parts.length === 0) return '';
  const drawn = engine.multibyte_vary ? ' on average, a share drawn for every value' : '';
  return s3 === 0 && s4 === 0
    ? `utf8: ${Math.round(s2 * 100)}% of characters take 2 bytes${drawn}`
    : `utf8: of the characters ${parts.join(', ')} bytes${drawn}`;
}

/** Bytes per character of char/varchar/text under the database encoding. */
const pgBytesPerChar: (engine: EngineSpec) => number = charsetBytesPerChar;

/** MaxHeapAttributeNumber: CREATE TABLE refuses more columns [htup_details.h][PG-LIMITS]. */
const PG_MAX_COLUMNS = 1600;

/** The PostgreSQL type of a column type, with typlen/typalign [pg_type.h, reference]. */
function pgType(t: ColumnType, bytesPerChar: number): PgType {
  switch (t.family) {
    case 'int':
      if (intBytes(t) === 8) return { kind: PG_KIND_FIXED, bytes: 8, align: 8, sql: 'bigint', equalImage: true };
      if (intBytes(t) <= 2) return { kind: PG_KIND_FIXED, bytes: 2, align: 2, sql: 'smallint', equalImage: true };
      return { kind: PG_KIND_FIXED, bytes: 4, align: 4, sql: 'integer', equalImage: true };
    case 'float':
      if (t.name === 'real' || (t.name === 'float' && t.length <= 24))
        return { kind: PG_KIND_FIXED, bytes: 4, align: 4, sql: 'real', equalImage: false };
      return { kind: PG_KIND_FIXED, bytes: 8, align: 8, sql: 'double precision', equalImage: false };
    case 'numeric':
      return {
        kind: PG_KIND_VARLENA_M,
        bytes: pgNumericBytes(t.precision, t.scale),
        align: 4,
        sql: `numeric(${t.precision},${t.scale})`,
        equalImage: false,
      };
    case 'money':
      return { kind: PG_KIND_FIXED, bytes: 8, align: 8, sql: 'money', equalImage: true };
    case 'datetime':
      if (t.name === 'date') return { kind: PG_KIND_FIXED, bytes: 4, align: 4, sql: 'date', equalImage: true };
      if (t.name === 'time' || t.name === 'bigtime') return { kind: PG_KIND_FIXED, bytes: 8, align: 8, sql: 'time', equalImage: true };
      if (t.name === 'timestamptz') return { kind: PG_KIND_FIXED, bytes: 8, align: 8, sql: 'timestamptz', equalImage: true };
      // time with time zone: typlen 12, typalign d [pg_type.h].
      if (t.name === 'timetz') return { kind: PG_KIND_FIXED, bytes: 12, align: 8, sql: 'timetz', equalImage: true };
      return { kind: PG_KIND_FIXED, bytes: 8, align: 8, sql: 'timestamp', equalImage: true };
    case 'bool':
      return { kind: PG_KIND_FIXED, bytes: 1, align: 1, sql: 'boolean', equalImage: true };
    case 'uuid':
      return { kind: PG_KIND_FIXED, bytes: 16, align: 1, sql: 'uuid', equalImage: true };
    case 'char':
      // bpchar is a varlena, blank-padded to n characters: the padding is stored [pg_type.h].
      return { kind: PG_KIND_VARLENA_X, bytes: Math.round(t.length * bytesPerChar), align: 4, sql: `char(${t.length})`, equalImage: true };
    case 'varchar':
      return { kind: PG_KIND_VARLENA_X, bytes: 0, align: 4, sql: `varchar(${t.length})`, equalImage: true };
    case 'text':
      return { kind: PG_KIND_VARLENA_X, bytes: 0, align: 4, sql: 'text', equalImage: true };
    case 'binary':
      return { kind: PG_KIND_VARLENA_X, bytes: t.length, align: 4, sql: 'bytea', equalImage: true };
    case 'varbinary':
    case 'blob':
      return { kind: PG_KIND_VARLENA_X, bytes: 0, align: 4, sql: 'bytea', equalImage: true };
  }
}

/** The PostgreSQL type name of a column type (a parameter's type as a cast names it: `numeric(18,0)`, `bigint`). */
export function pgTypeName(t: ColumnType): string {
  return pgType(t, 1).sql;
}

/** Per-column storage facts in struct-of-arrays form, for the per-row size loop, and what the toaster reads. */
interface PgLayoutInfo extends PgToastInfo {
  types: PgType[];
  /**
   * The leading columns whose stored bytes never vary (NOT NULL, no length kept a row: fixed-length
   * types, char(n)) and the data offset after them: pgStoredBytes starts there.
   */
  prefixCols: number;
  prefixOff: number;
  /** Sizes tuples that need the toaster (pgTupleSize), as an insert would. */
  toaster: PgToaster;
  /** TOAST_INDEX_TARGET: index keys above it are compressed where they compress. */
  toastIndexTarget: number;
  /**
   * Data bytes of column ci's value of `len` bytes in the row whose lengths start at `base`, compressed
   * with the column's compressibility (undefined: it does not compress; the key is stored as it is).
   */
  compressedBytes?: (ci: number, len: number, base: number) => number | undefined;
}

export interface PgTableLayout extends TableLayout {
  pg: PgLayoutInfo;
}

/** One tuple's sizes: header, data, t_len, bytes on the page (MAXALIGN(t_len)), values moved to TOAST. */
interface PgTupleSize {
  hoff: number;
  data: number;
  t_len: number;
  stored: number;
  toasted: number;
  hasNull: boolean;
}

/**
 * The size of the tuple whose varying lengths are lens[base …], as an insert forms it: heap_compute_data_size()
 * with the short-varlena rule, then, above TOAST_TUPLE_THRESHOLD, the toaster's passes (postgres-toast.ts)
 * with every value incompressible (no compressibility: the runner's TOAST relation sizes its rows itself).
 */
export function pgTupleSize(info: PgLayoutInfo, lens: Uint16Array, base: number): PgTupleSize {
  const t = info.toaster;
  t.load(lens, base, null, 0, null);
  const t_len = t.run();
  const hoff = t.hoff();
  let toasted = 0;
  for (let i = 0; i < info.natts; i++) if (t.outBytes[i]! > 0) toasted++;
  return { hoff, data: t_len - hoff, t_len, stored: maxalign(t_len), toasted, hasNull: t.hasNull };
}

/** The data offset after a value of `len` bytes (not NULL) of a column of `kind` and `align` placed at `off`: heap_compute_data_size with the short-varlena rule. */
function pgPlaceValue(off: number, kind: number, align: number, len: number): number {
  if (kind === PG_KIND_FIXED) return alignTo(off, align) + len;
  if (len + PG_VARHDRSZ_SHORT <= PG_VARLENA_SHORT_MAX) return off + len + PG_VARHDRSZ_SHORT;
  return alignTo(off, 4) + len + PG_VARHDRSZ;
}

/**
 * MAXALIGN(t_len) of the tuple, the bytes it takes on the page: pgTupleSize(…).stored in one pass with no
 * allocation when the tuple needs no TOAST (the usual case), else pgTupleSize itself.
 */
export function pgStoredBytes(info: PgLayoutInfo, lens: Uint16Array, base: number): number {
  const n = info.natts;
  const varIndex = info.varIndex;
  const kind = info.kind;
  let off = info.prefixOff;
  let hasNull = false;
  for (let i = info.prefixCols; i < n; i++) {
    const v = varIndex[i]!;
    const len = v >= 0 ? lens[base + v]! : info.bytes[i]!;
    if (len === NULL_LEN) {
      hasNull = true;
      continue;
    }
    off = pgPlaceValue(off, kind[i]!, info.align[i]!, len);
  }
  const t_len = maxalign(PG_HEAP_TUPLE_HEADER_BYTES + (hasNull ? (n + 7) >> 3 : 0)) + off;
  if (t_len > info.toastThreshold) return pgTupleSize(info, lens, base).stored;
  return maxalign(t_len);
}

export function pgGeometry(pageBytes: number): PageGeometry {
  const usable = pageBytes - PG_PAGE_HEADER_BYTES;
  return {
    pageBytes,
    headerBytes: PG_PAGE_HEADER_BYTES,
    usableBytes: usable,
    slotBytes: PG_LINE_POINTER_BYTES,
    maxRowsPerPage: pgMaxHeapTuplesPerPage(pageBytes),
    maxRowBytes: pgMaxHeapTupleBytes(pageBytes),
  };
}

function pgColumnLayout(col: ColumnDef, index: number, table: TableDef, t: PgType, bpc: number, mostBpc: number): ColumnLayout {
  if (col.type.family === 'numeric') {
    // numeric is sized by the digits of its values: the workload's length, else all p digits [PG-NUMERIC].
    const scale = col.type.scale;
    return columnLayout(table, col, index, {
      variableType: true,
      character: false,
      bytesPerChar: 1,
      maxBytes: t.bytes,
      declaredLength: col.type.precision,
      bytesOfLength: (digits) => pgNumericBytes(digits, scale),
    });
  }
  const variableType = isVariableType(col.type) && t.bytes === 0;
  const character = isCharacterType(col.type);
  // Values whose shares of multi-byte characters differ (multibyte_vary) reach the most bytes a character can take in one.
  const maxBytes = variableType ? Math.round(col.type.length * (character ? mostBpc : 1)) : t.bytes;
  return columnLayout(table, col, index, { variableType, character, bytesPerChar: character ? bpc : 1, maxBytes });
}

/** A column's attstorage: the config's `storage`, else its type's (text, varchar, char, bytea extended; numeric main; fixed-length plain) [pg_type.h]. */
function pgStorage(col: ColumnDef, t: PgType): number {
  if (t.kind === PG_KIND_FIXED) return PG_STORAGE_PLAIN;
  if (col.storage !== undefined) return PG_STORAGE_NAMES.indexOf(col.storage);
  return t.kind === PG_KIND_VARLENA_M ? PG_STORAGE_MAIN : PG_STORAGE_EXTENDED;
}

/**
 * needs_toast_table (heapam_relation_needs_toast_table): a table gets a TOAST relation when a varlena
 * column is not plain and its rows could exceed TOAST_TUPLE_THRESHOLD: a column of no maximum (text,
 * bytea), or the largest row (varchar(n) and char(n) at n × the encoding's longest character + 4,
 * numeric at numeric_maximum_size, every column aligned, the null bitmap counted) above it [PG-TOAST].
 */
function pgNeedsToastTable(table: TableDef, types: PgType[], storage: Uint8Array, engine: EngineSpec): boolean {
  if (!types.some((t, i) => t.kind !== PG_KIND_FIXED && storage[i] !== PG_STORAGE_PLAIN)) return false;
  const maxChar = engine.encoding === 'utf8' ? PG_UTF8_MAX_CHAR_BYTES : 1;
  let data = 0;
  for (let i = 0; i < types.length; i++) {
    const t = types[i]!;
    const ct = table.columns[i]!.type;
    data = alignTo(data, t.align);
    if (t.kind === PG_KIND_FIXED) data += t.bytes;
    else if (ct.family === 'numeric') data += pgNumericMaximumSize(ct.precision);
    else if ((ct.family === 'char' || ct.family === 'varchar') && !ct.lob) data += ct.length * maxChar + PG_VARHDRSZ;
    else return true;
  }
  return maxalign(PG_HEAP_TUPLE_HEADER_BYTES + ((types.length + 7) >> 3)) + maxalign(data) > pgToastThreshold(engine.page_size);
}

/**
 * The row-format facts as one literal, every field named (not spread from `info`): a spread object's map
 * changes after a few layouts (V8's slack tracking), and every run's hot paths would then see a new map
 * (test/object-shapes.test.ts).
 */
function pgLayoutInfo(info: PgToastInfo, types: PgType[], prefixCols: number, prefixOff: number, pageBytes: number): PgLayoutInfo {
  return {
    natts: info.natts,
    kind: info.kind,
    bytes: info.bytes,
    align: info.align,
    varIndex: info.varIndex,
    storage: info.storage,
    toastThreshold: info.toastThreshold,
    toastTarget: info.toastTarget,
    toastTargetMain: info.toastTargetMain,
    hasToastRelation: info.hasToastRelation,
    compression: info.compression,
    types,
    prefixCols,
    prefixOff,
    toaster: new PgToaster(info),
    toastIndexTarget: pgToastIndexTarget(pageBytes),
    compressedBytes: undefined,
  };
}

export function pgLayout(table: TableDef, engine: EngineSpec): PgTableLayout {
  const bpc = pgBytesPerChar(engine);
  const types = table.columns.map((c) => pgType(c.type, bpc));
  const mostBpc = engine.encoding === 'utf8' ? utf8MostBytesPerChar(engine) : bpc;
  const columns = table.columns.map((c, i) => pgColumnLayout(c, i, table, types[i]!, bpc, mostBpc));
  const { varying, fixedNotNullBytes, logicalMaxBytes } = indexVaryingColumns(columns);
  const n = columns.length;
  const storage = Uint8Array.from(table.columns, (c, i) => pgStorage(c, types[i]!));
  const info: PgToastInfo = {
    kind: Uint8Array.from(types, (t) => t.kind),
    bytes: Int32Array.from(types, (t) => t.bytes),
    align: Uint8Array.from(types, (t) => t.align),
    varIndex: Int32Array.from(columns, (c) => c.varIndex),
    natts: n,
    storage,
    toastThreshold: pgToastThreshold(engine.page_size),
    toastTarget: engine.toast_tuple_target > 0 ? engine.toast_tuple_target : pgToastThreshold(engine.page_size),
    toastTargetMain: pgToastTargetMain(engine.page_size),
    hasToastRelation: pgNeedsToastTable(table, types, storage, engine),
    compression: new CompressedSizes(engine.default_toast_compression ?? 'pglz'),
  };
  // The leading columns every row stores alike (no length kept a row, not NULL), placed once: pgStoredBytes starts after them.
  let prefixCols = 0;
  let prefixOff = 0;
  while (prefixCols < n && info.varIndex[prefixCols]! < 0 && info.bytes[prefixCols] !== NULL_LEN) {
    prefixOff = pgPlaceValue(prefixOff, info.kind[prefixCols]!, info.align[prefixCols]!, info.bytes[prefixCols]!);
    prefixCols++;
  }
  const pg = pgLayoutInfo(info, types, prefixCols, prefixOff, engine.page_size);
  // index_form_tuple compresses a key value over TOAST_INDEX_TARGET of an extended or main column with
  // the default compression (toast_compress_datum) where that makes it smaller [indextuple.c]: by the
  // row's compressibility, which the run binds.
  const bound: { levels: (() => Uint8Array | null) | null; width: number; ncols: number } = { levels: null, width: 1, ncols: n };
  pg.compressedBytes = (ci, len, base) => {
    const st = storage[ci];
    if (bound.levels === null || (st !== PG_STORAGE_EXTENDED && st !== PG_STORAGE_MAIN)) return undefined;
    const levels = bound.levels();
    if (levels === null) return undefined;
    const size = info.compression.bytes(len, levels[(base / bound.width) * bound.ncols + ci]!);
    return size < 0 ? undefined : size - PG_VARHDRSZ;
  };
  const geometry = pgGeometry(engine.page_size);
  return {
    columns,
    varying,
    geometry,
    ...rowBytesRange(varying, (lens) => pgTupleSize(pg, lens, 0).stored),
    logicalMaxBytes,
    fixedNotNullBytes,
    pg,
    bindRowLevels: (levels, width, ncols) => Object.assign(bound, { levels, width: Math.max(1, width), ncols }),
  };
}

// ---- B-tree indexes (nbtree) --------------------------------------------------------------------

/** nbtree: BTPageOpaqueData special space 16 bytes; IndexTupleData 8 bytes; IndexAttributeBitMapData 4 bytes [nbtree.h][itup.h]. */
const PG_BTREE_SPECIAL_BYTES = 16;
const PG_INDEX_TUPLE_HEADER_BYTES = 8;
const PG_INDEX_NULL_BITMAP_BYTES = 4;
/** BTREE_DEFAULT_FILLFACTOR 90 (leaves on build), BTREE_NONLEAF_FILLFACTOR 70, BTREE_MIN_FILLFACTOR 10, BTREE_SINGLEVAL_FILLFACTOR 96 [nbtree.h]. */
const PG_BTREE_LEAF_FILLFACTOR = 90;
const PG_BTREE_NONLEAF_FILLFACTOR = 70;
const PG_BTREE_MIN_FILLFACTOR = 10;
const PG_BTREE_SINGLEVAL_FILLFACTOR = 96;
const PG_BTREE_META_PAGES = 1;
/** sizeof(ItemPointerData): a heap TID, 6 bytes [itemptr.h]; a leaf keeps MAXALIGN(6) = 8 bytes to append one to a high key (nbtsort.c). */
const PG_ITEM_POINTER_BYTES = 6;
const PG_BTREE_LEAF_TID_SLACK = maxalign(PG_ITEM_POINTER_BYTES);
/** INDEX_SIZE_MASK: an index tuple's size field holds at most 8191 [itup.h]. */
const PG_INDEX_SIZE_MASK = 0x1fff;
/** nbtsort.c: CREATE INDEX caps a posting list at MAXALIGN_DOWN(BLCKSZ × 10 / 100) − sizeof(ItemIdData). */
const PG_BTREE_BUILD_POSTING_PCT = 10;
/** nbtdedup.c: bottom-up deletion aims to free BLCKSZ / 16 and skips deduplication when BLCKSZ / 24 is free after it. */
const PG_BOTTOMUP_TARGET_DIVISOR = 16;
const PG_BOTTOMUP_ENOUGH_DIVISOR = 24;
/** heapam.c: BOTTOMUP_MAX_NBLOCKS 6 heap blocks a bottom-up pass visits, BOTTOMUP_TOLERANCE_NBLOCKS 3. */
const PG_BOTTOMUP_MAX_NBLOCKS = 6;
const PG_BOTTOMUP_TOLERANCE_NBLOCKS = 3;
/** nbtsplitloc.c LEAF_SPLIT_DISTANCE: split points within 5% of the space-optimal one are weighed for truncation. */
const PG_LEAF_SPLIT_DISTANCE = 0.05;
/** nbtdedup.c: the single-value strategy after 5 full-size posting lists (posting lists of more than 50 TIDs count). */
const PG_SINGLEVAL_MAX_ITEMS = 5;
const PG_SINGLEVAL_TIDS = 50;
/** TOAST_INDEX_TARGET = MaxHeapTupleSize / 16: index_form_tuple tries to compress a varlena key larger than this [heaptoast.h][indextuple.c]. */
export function pgToastIndexTarget(pageBytes: number): number {
  return Math.floor(pgMaxHeapTupleBytes(pageBytes) / 16);
}

const maxalignDown = (n: number): number => n & ~(PG_MAXALIGN - 1);

/**
 * BTMaxItemSize: MAXALIGN_DOWN((BLCKSZ − MAXALIGN(page header + 3 line pointers + 3 heap TIDs) −
 * MAXALIGN(special)) / 3), 2704 bytes on 8k pages: a larger index tuple is an error [nbtree.h].
 */
export function pgBtreeMaxItemBytes(pageBytes: number): number {
  return maxalignDown(
    Math.floor(
      (pageBytes -
        maxalign(PG_PAGE_HEADER_BYTES + 3 * PG_LINE_POINTER_BYTES + 3 * PG_ITEM_POINTER_BYTES) -
        maxalign(PG_BTREE_SPECIAL_BYTES)) /
        3,
    ),
  );
}

/** Bytes a varlena key of `len` data bytes takes in an index tuple: index_form_tuple compresses one whose varlena is above TOAST_INDEX_TARGET when that makes it smaller (`compressed`: its compressed data bytes, or undefined when the value does not compress). */
function pgIndexVarlenaBytes(len: number, target: number, compressed: number | undefined): number {
  if (len + PG_VARHDRSZ > target && compressed !== undefined && compressed < len) return compressed;
  return len;
}

function pgKeyData(layout: PgTableLayout, cols: readonly number[], lens: Uint16Array, base: number): { data: number; hasNull: boolean } {
  let off = 0;
  let hasNull = false;
  for (const ci of cols) {
    let len = columnBytes(layout, ci, lens, base);
    if (len < 0) {
      hasNull = true;
      continue;
    }
    if (layout.pg.kind[ci] === PG_KIND_FIXED) {
      off = alignTo(off, layout.pg.align[ci]!) + len;
      continue;
    }
    len = pgIndexVarlenaBytes(len, layout.pg.toastIndexTarget, layout.pg.compressedBytes?.(ci, len, base));
    if (len + PG_VARHDRSZ_SHORT <= PG_VARLENA_SHORT_MAX) {
      off += len + PG_VARHDRSZ_SHORT;
    } else {
      off = alignTo(off, 4) + len + PG_VARHDRSZ;
    }
  }
  return { data: off, hasNull };
}

/** PostgreSQL index tuple bytes: MAXALIGN(8 [+ 4 null bitmap, MAXALIGNed] + key data). */
export function pgIndexTupleBytes(layout: PgTableLayout, cols: readonly number[], lens: Uint16Array, base: number): number {
  const { data, hasNull } = pgKeyData(layout, cols, lens, base);
  const hdr = hasNull ? maxalign(PG_INDEX_TUPLE_HEADER_BYTES + PG_INDEX_NULL_BITMAP_BYTES) : PG_INDEX_TUPLE_HEADER_BYTES;
  return maxalign(hdr + data);
}

/**
 * An nbtree: built as nbtsort.c builds it (leaves to the index's fillfactor, default 90, upper levels to
 * 70, one metapage), then simulated entry by entry (btree/nbtree.ts) by these rules [nbtree.h], with
 * deduplication where `deduplicate_items` is on (the default) and every key column's type is
 * equalimage [pg_amproc.dat].
 */
function pgIndexGeometry(_table: TableDef, layout: TableLayout, idx: IndexDef, columns: number[]): IndexGeometry {
  const pl = layout as PgTableLayout;
  const first = columns.slice(0, 1);
  const pageBytes = layout.geometry.pageBytes;
  // A value below nbtree's minimum comes from another format's config (rowsize, pg-check): the default then.
  const leafFill = idx.fillfactor !== undefined && idx.fillfactor >= PG_BTREE_MIN_FILLFACTOR ? idx.fillfactor : PG_BTREE_LEAF_FILLFACTOR;
  const maxItem = pgBtreeMaxItemBytes(pageBytes);
  const pageRoom = pageBytes - PG_PAGE_HEADER_BYTES - PG_BTREE_SPECIAL_BYTES;
  return indexGeometry({
    name: idx.name,
    columns,
    unique: idx.unique,
    leafTupleBytes: (lens: Uint16Array, base: number) => pgIndexTupleBytes(pl, columns, lens, base),
    // Suffix truncation keeps the first key column when the keys differ there (distinct keys).
    pivotBytes: (lens: Uint16Array, base: number) => pgIndexTupleBytes(pl, first, lens, base),
    slotBytes: PG_LINE_POINTER_BYTES,
    pageRoomBytes: pageRoom,
    leafReserveBytes: Math.floor((pageBytes * (100 - leafFill)) / 100),
    nonLeafReserveBytes: Math.floor((pageBytes * (100 - PG_BTREE_NONLEAF_FILLFACTOR)) / 100),
    metaPages: PG_BTREE_META_PAGES,
    nbtsort: true,
    minusInfinityBytes: PG_INDEX_TUPLE_HEADER_BYTES,
    leafTidSlackBytes: PG_BTREE_LEAF_TID_SLACK,
    maxTupleBytes: maxItem,
    nbtree: {
      blockBytes: pageBytes,
      pageRoomBytes: pageRoom,
      lineBytes: PG_LINE_POINTER_BYTES,
      maxalign: PG_MAXALIGN,
      tidBytes: PG_ITEM_POINTER_BYTES,
      pivotTidBytes: PG_BTREE_LEAF_TID_SLACK,
      leafFillfactor: leafFill,
      nonLeafFillfactor: PG_BTREE_NONLEAF_FILLFACTOR,
      minusInfinityBytes: PG_INDEX_TUPLE_HEADER_BYTES,
      singleValueFillfactor: PG_BTREE_SINGLEVAL_FILLFACTOR,
      maxItemBytes: maxItem,
      maxPostingBytes: Math.min(Math.floor(maxItem / 2), PG_INDEX_SIZE_MASK),
      buildPostingBytes: maxalignDown(Math.floor((pageBytes * PG_BTREE_BUILD_POSTING_PCT) / 100)) - PG_LINE_POINTER_BYTES,
      dedup: idx.deduplicate_items !== false && columns.every((c) => pl.pg.types[c]!.equalImage),
      unique: idx.unique,
      bottomUpTargetBytes: Math.floor(pageBytes / PG_BOTTOMUP_TARGET_DIVISOR),
      bottomUpEnoughBytes: Math.floor(pageBytes / PG_BOTTOMUP_ENOUGH_DIVISOR),
      bottomUpMaxBlocks: PG_BOTTOMUP_MAX_NBLOCKS,
      bottomUpToleranceBlocks: PG_BOTTOMUP_TOLERANCE_NBLOCKS,
      leafSplitDistance: PG_LEAF_SPLIT_DISTANCE,
      singleValueMaxItems: PG_SINGLEVAL_MAX_ITEMS,
      singleValueTids: PG_SINGLEVAL_TIDS,
    },
  });
}

/** A PostgreSQL heap page: PageHeaderData, the line pointers after it, tuples from the page's end down; no special space on a heap page [bufpage.h]. */
function postgresPageAnatomy(engine: EngineSpec): PageAnatomy {
  const keep = Math.floor((engine.page_size * (100 - engine.fillfactor)) / 100);
  return {
    title: 'PostgreSQL heap page',
    header: [{ label: 'PageHeaderData', bytes: PG_PAGE_HEADER_BYTES }],
    slotArray: { name: 'line pointers (ItemIdData)', entryBytes: PG_LINE_POINTER_BYTES, at: 'after-header', firstSlot: 1 },
    ...(keep > 0 ? { fillLine: { label: `fillfactor ${engine.fillfactor}: inserts leave ${keep} bytes free`, keepFreeBytes: keep } } : {}),
    words: { stub: 'none: an update writes a new version', forwarded: 'new version on another page (not HOT)', versionTakesSlot: true },
    notes: [
      'Tuples are MAXALIGNed and stored from the end of the page down, line pointers after the header (bufpage.h); an old version points to its new one (t_ctid), a HOT chain from its root.',
    ],
  };
}

export const postgresHeap: StorageFormat = {
  id: 'postgres-heap',
  dbms: 'postgres',
  dbmsName: 'PostgreSQL',
  title: 'PostgreSQL heap (MVCC, HOT, fillfactor)',
  evidence: ['pgstattuple', 'pg_stat_user_tables'],
  defaultPageBytes: PG_BLCKSZ,
  pageSizes: PG_PAGE_SIZES,
  settingsShape: postgresSettings,
  ddl: postgresDdl,
  settings: [
    'page_size',
    'fillfactor',
    'encoding',
    'multibyte_share',
    'multibyte_widths',
    'toast_tuple_target',
    'default_toast_compression',
  ],
  defaults: { ...COMMON_DEFAULTS, fillfactor: PG_DEFAULT_FILLFACTOR, toast_tuple_target: 0, default_toast_compression: 'pglz' },
  encodingFor: withoutUtf16,
  resolve(engine, layout): ResolvedEngine {
    checkPageSize(engine, PG_PAGE_SIZES, 'a PostgreSQL block size (1k, 2k, 4k, 8k, 16k or 32k; 8k unless built otherwise)');
    if (engine.encoding === 'utf16') {
      throw new EngineSettingError('encoding', 'latin1 or utf8 for postgres-heap (PostgreSQL has no UTF-16 server encoding), found utf16');
    }
    const g = layout.geometry;
    const pg = (layout as PgTableLayout).pg;
    const target = engine.toast_tuple_target;
    if (target !== 0 && (target < PG_TOAST_TUPLE_TARGET_MIN || target > pg.toastTargetMain)) {
      throw new EngineSettingError(
        'toast_tuple_target',
        `a toast_tuple_target from ${PG_TOAST_TUPLE_TARGET_MIN} to ${pg.toastTargetMain} bytes for ${engine.page_size / 1024}k pages (0: TOAST_TUPLE_TARGET, ${pg.toastThreshold}), found ${target}`,
      );
    }
    return {
      format: 'postgres-heap',
      page_size: engine.page_size,
      fillfactor: engine.fillfactor,
      fillfactor_reserve_bytes: Math.floor((engine.page_size * (100 - engine.fillfactor)) / 100),
      prune_below_free_bytes: Math.max(
        Math.floor((engine.page_size * (100 - engine.fillfactor)) / 100),
        Math.floor(engine.page_size / PG_PRUNE_FREE_DIVISOR),
      ),
      encoding: engine.encoding,
      usable_page_bytes: g.usableBytes,
      max_rows_per_page: g.maxRowsPerPage,
      max_row_bytes: g.maxRowBytes,
      toast_threshold_bytes: pg.toastThreshold,
      toast_tuple_target: pg.toastTarget,
      default_toast_compression: engine.default_toast_compression,
      toast_relation: pg.hasToastRelation,
    };
  },
  notes(engine, resolved) {
    const notes = [
      "row bytes are MAXALIGN(t_len), what a tuple takes on the page (pgstattuple's tuple_len and pageinspect's lp_len report t_len); each tuple also takes a 4-byte line pointer",
      resolved.toast_relation
        ? `rows over the TOAST threshold have their values compressed (${engine.default_toast_compression}, as far as their compressibility allows) and moved out of line (18-byte pointers) as PostgreSQL does; the TOAST relation's pages and its index's are toast_pages and toast_index_pages`
        : 'the table has no TOAST relation (no row of its columns can exceed the TOAST threshold)',
    ];
    const utf8 = utf8Note(engine);
    if (utf8) notes.push(utf8);
    return notes;
  },
  rows: {
    tableLimit: (table) =>
      table.columns.length > PG_MAX_COLUMNS
        ? `expected at most ${PG_MAX_COLUMNS} columns (MaxHeapAttributeNumber: "tables can have at most ${PG_MAX_COLUMNS} columns") [htup_details.h][PG-LIMITS], found table ${table.name} with ${table.columns.length}`
        : undefined,
    columnStorage: true,
    checkColumn(col) {
      const t = pgType(col.type, 1);
      if (col.storage !== undefined && col.storage !== 'plain' && t.kind === PG_KIND_FIXED) {
        throw new EngineSettingError(
          'storage',
          `plain for column ${col.name} on postgres-heap (PostgreSQL stores ${t.sql}, a fixed-length type, in the row: "column data type ${t.sql} can only have storage PLAIN"), found ${col.storage}`,
        );
      }
    },
    layout: pgLayout,
    rowBytes(layout, lens, base) {
      return pgStoredBytes((layout as PgTableLayout).pg, lens, base);
    },
    logicalBytes: logicalDataBytes,
  },
  pages: {
    pageAnatomy: (_layout, engine) => postgresPageAnatomy(engine),
    createEngine: (layout, _resolved, spec, rowCapacity) =>
      new PostgresHeap({
        geometry: layout.geometry,
        fillfactor: spec.engine.fillfactor,
        indexCount: spec.table.indexes.length,
        rowCapacity,
        readState: spec.workload.some((ph) => ph.op === 'select'),
      }),
    engineRowBytes: POSTGRES_HEAP_ROW_BYTES,
    churnRowBytes: PG_CHURN_ROW_BYTES,
    reorgNote: (kind) =>
      kind === 'forwarded_rows' ? 'reorg forwarded_rows does nothing on postgres-heap (no forwarded rows; use vacuum)' : undefined,
  },
  reads: {
    comparison: (column, parameter) => postgresComparison(column, parameter),
    readCounters: (reads) => ({
      ...(reads.cache !== null
        ? {
            heap_blks_read: reads.dataMisses,
            heap_blks_hit: reads.dataPages - reads.dataMisses,
            idx_blks_read: reads.indexMisses,
            idx_blks_hit: reads.indexPages - reads.indexMisses,
          }
        : { heap_blks_fetched: reads.dataPages, idx_blks_fetched: reads.indexPages }),
      tuples_visited: reads.tuplesVisited,
      hot_chain_hops: reads.hotChainHops,
      dead_versions_visited: reads.deadVersions,
      pages_pruned: reads.pagesPruned,
    }),
    readRowBytes: PG_READ_STATE_ROW_BYTES,
    // TOAST_MAX_CHUNK_SIZE = EXTERN_TUPLE_MAX_SIZE − MAXALIGN(SizeofHeapTupleHeader) − sizeof(Oid) − sizeof(int32) − VARHDRSZ [heaptoast.h].
    lobStore: (layout) => pgToastStore(layout.geometry.pageBytes, pgToastMaxChunkBytes(layout.geometry.pageBytes)),
  },
  indexes: {
    indexSettings: ['fillfactor', 'deduplicate_items'],
    checkIndex(idx) {
      if (idx.fillfactor !== undefined && idx.fillfactor < PG_BTREE_MIN_FILLFACTOR) {
        throw new EngineSettingError(
          'fillfactor',
          `a B-tree fillfactor from ${PG_BTREE_MIN_FILLFACTOR} to 100 for postgres-heap, found ${idx.fillfactor}`,
        );
      }
    },
    // CLUSTER rewrites the heap once in index order; PostgreSQL does not keep the order afterwards.
    indexNotes: (table) =>
      table.indexes.some((i) => i.clustered)
        ? [
            'clustered on postgres-heap means CLUSTER: a one-time reorder of the heap, which PostgreSQL does not maintain; rows are loaded in key order anyway, so pages and index sizes are those of an unclustered table',
          ]
        : [],
    indexGeometry: pgIndexGeometry,
    versionedIndexes: true,
  },
  allocation: {
    // The TOAST relation, when the table has one: compression, out-of-line values, its heap and index [PG-TOAST].
    outOfLine: (layout, _spec, rowCapacity) => {
      const pg = (layout as PgTableLayout).pg;
      return pg.hasToastRelation ? new PgToastRelation(pg, layout.geometry, rowCapacity) : undefined;
    },
    // The heap's free space map and visibility map forks, as the engine has them [freespace.c][visibilitymap.c].
    allocationPages: ({ metrics }) => ({ fsm: metric(metrics, 'fsm_pages'), vm: metric(metrics, 'vm_pages') }),
  },
  knob: {
    reserveKnob: fillfactorKnob,
    rebuild: (table) => ({
      command: `VACUUM FULL ${table}`,
      needs: 'free space for a new copy of the table and its indexes until it completes [PG-VACUUM-FULL]',
      indexesToo: true,
    }),
    reserveSetting: 'fillfactor',
    reserveUnit: '%',
  },
  words: {
    rowIdName: 'ctid (TID)',
    movedRows: { metric: 'newpage_updates', word: 'moved to a new page (not HOT)', short: 'new-page' },
    keptUpdates: { metric: 'hot_updates', word: 'HOT' },
    phaseMetrics: [
      'rows',
      'pages',
      'table_scan_page_reads',
      'space_used_pct',
      'updates',
      'hot_updates',
      'newpage_updates',
      'dead_tuples',
      'prunes',
      'index_entries',
      'exclusive_table_locks',
    ],
    // pgstattuple's tuple_len and pageinspect's lp_len are t_len; the page takes MAXALIGN(t_len) [htup_details.h].
    rowBytesAre:
      'MAXALIGN(t_len), the bytes a tuple takes on the page; pgstattuple (tuple_len) and pageinspect (lp_len) report t_len, up to 7 bytes less',
  },
};
