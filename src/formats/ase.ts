/**
 * SAP ASE data-only-locked (DOL: datarows/datapages) and allpages-locked (APL) row formats.
 * Every figure cites its source by the key in brackets: docs/sources.md lists them with their addresses.
 */
import type { SettingsOf, Zod } from '../config/format-ids.js';
import { HARMLESS, type DdlClauses } from '../config/ddl-clauses.js';
import type { ColumnDef, EngineSpec, IndexDef, TableDef } from '../config/spec.js';
import { aplIndexGeometry, aseFillReserve, dolIndexGeometry } from './ase-index.js';
import { FORWARDING_HEAP_ROW_BYTES, ForwardingHeap } from '../heap/forwarding-heap.js';
import { ClusteredHeap } from '../heap/clustered-heap.js';
import type { StorageEngine } from '../heap/engine.js';
import {
  COMMON_DEFAULTS,
  KnobError,
  type AlternativesInput,
  type AllocationInput,
  type AllocationPageCounts,
  type ComparisonRule,
  type FormatIndexes,
  type FormatKnob,
  type FormatRows,
  type PageAnatomy,
  type ReserveKnob,
  type StorageFormat,
} from './format.js';
import { unconverted } from './comparison.js';
import { groupedNumber } from '../util/numbers.js';
import { aseTextStore } from './lob.js';
import { FORWARDING_PHASE_METRICS, forwardingReorgNote } from './forwarding.js';
import { intBytes, isCharacterType, isVariableType, type ColumnType } from '../config/column-types.js';
import {
  EngineSettingError,
  checkPageSize,
  columnLayout,
  indexVaryingColumns,
  logicalDataBytes,
  utf8BytesPerChar,
  type ColumnLayout,
  type PageGeometry,
  type ResolvedEngine,
  type TableLayout,
} from '../layout/table-layout.js';

/** The settings both ASE formats declare (docs/config.md): the reserve knob exp_row_size and what it defaults from [I][K]. */
const aseSettings = (z: Zod) => ({
  exp_row_size: z
    .union([z.number().int().min(0), z.literal('max')], { error: '0 (server default), 1 (pack fully), a number of bytes, or max' })
    .optional(),
  default_exp_row_size_percent: z.number().min(0).max(100).optional(),
  exp_row_size_basis: z.enum(['physical', 'logical']).optional(),
  enable_housekeeper_gc: z.number().int().min(0).max(5).optional(),
});

/**
 * ASE's `create table … with …` options [R9]: exp_row_size, reservepagegap, max_rows_per_page and fillfactor
 * are kept (exp_row_size is the engine setting); identity_gap and the logging and allocation options are
 * harmless; compression is refused unless none.
 */
const aseDdl: DdlClauses = {
  with: {
    exp_row_size: { kind: 'setting', key: 'exp_row_size', min: 0, max: 65535, engine: true, sign: 'exp_row_size' },
    reservepagegap: { kind: 'setting', key: 'reservepagegap', min: 0, max: 255, sign: 'reservepagegap' },
    max_rows_per_page: { kind: 'setting', key: 'max_rows_per_page', min: 0, max: 256, sign: 'max_rows_per_page' },
    fillfactor: { kind: 'setting', key: 'ase_fillfactor', min: 0, max: 100 },
    identity_gap: HARMLESS,
    dml_logging: HARMLESS,
    deferred_allocation: HARMLESS,
    immediate_allocation: HARMLESS,
    compression: { kind: 'only', values: ['none'], why: 'rowsim does not model compressed rows or pages' },
    lob_compression: { kind: 'only', values: ['0', 'off'], why: 'rowsim does not model compressed LOB values' },
  },
};

declare module '../config/format-ids.js' {
  interface DdlTableOptions {
    /** ASE `with exp_row_size = N` (0 = server default, 1 = pack fully). */
    exp_row_size?: DdlSetting<number>;
    /** ASE `with reservepagegap = N`: one empty page per N pages allocated by extent-allocating commands. */
    reservepagegap?: DdlSetting<number>;
    /** ASE `with max_rows_per_page = N`. */
    max_rows_per_page?: DdlSetting<number>;
    /** ASE `with fillfactor = N`: how full index and data pages are made when they are rebuilt. */
    ase_fillfactor?: DdlSetting<number>;
  }
  interface DbmsIds {
    ase: true;
  }
  interface FormatIds {
    'ase-dol': true;
    'ase-apl': true;
  }
  interface FormatSettings extends SettingsOf<typeof aseSettings> {}
}

/** Logical page sizes ASE supports [A1][A2]. */
const ASE_PAGE_SIZES = [2048, 4096, 8192, 16384] as const;
/** DOL page header bytes: 2002 usable on 2K [A]. */
const ASE_DOL_HEADER_BYTES = 46;
/** APL page header bytes: 2016 usable on 2K [A]. */
const ASE_APL_HEADER_BYTES = 32;
/** Row offset table entry [G]. */
const ASE_ROW_OFFSET_BYTES = 2;
/** Every DOL row is at least 10 bytes so it can become a forwarding stub [B][E]. */
const ASE_DOL_MIN_ROW_BYTES = 10;
/** The stub a forwarded DOL row leaves at home: 10 bytes (+ its 2-byte slot, kept) [E] (inference). */
const ASE_DOL_STUB_BYTES = 10;
/** DOL row overhead: 6 bytes for all-fixed NOT NULL rows, 8 otherwise; 2 per variable column [E]. */
const ASE_DOL_FIXED_ROW_OVERHEAD = 6;
const ASE_DOL_VAR_ROW_OVERHEAD = 8;
const ASE_DOL_VAR_COLUMN_OFFSET_BYTES = 2;
/** Max DOL row = page − 84: 1964 / 4012 / 8108 / 16300 [C]. */
const ASE_DOL_ROW_LIMIT_OVERHEAD = 84;
/** Max APL row: 1962 / 4010 / 8096 / 16298 [D]. */
const ASE_APL_MAX_ROW_BYTES: Record<number, number> = { 2048: 1962, 4096: 4010, 8192: 8096, 16384: 16298 };
/** Max APL rows per page [B]. */
const ASE_APL_MAX_ROWS_PER_PAGE = 256;
/** APL row: 4 bytes of overhead; variable rows add adjust table, offset table and 2 bytes [F]. */
const ASE_APL_ROW_OVERHEAD = 4;
/**
 * `enable housekeeper GC`: 1 (default) lazy, 4 and 5 aggressive garbage collection, which deallocates the
 * pages of a data-only-locked table that deletes leave empty; 0 leaves them for `reorg reclaim_space`;
 * 2 and 3 are reserved [HK-GC].
 */
const ASE_DEFAULT_HOUSEKEEPER_GC = 1;
/** Server default `default exp_row_size percent` [I][K]. */
const ASE_DEFAULT_EXP_ROW_SIZE_PERCENT = 5;
/** Text/image columns keep a 16-byte text pointer in the row. */
const ASE_TEXT_POINTER_BYTES = 16;

/** Bytes of a non-NULL value of a fixed-length ASE type. */
function aseFixedTypeBytes(t: ColumnType): number {
  switch (t.family) {
    case 'int':
      return intBytes(t);
    case 'float':
      if (t.name === 'real') return 4;
      if (t.name === 'float') return t.length <= 15 ? 4 : 8;
      return 8;
    case 'numeric':
      // numeric/decimal take 2..17 bytes: one sign byte plus the bytes for the precision's digits.
      return 1 + Math.ceil((t.precision * Math.log2(10)) / 8);
    case 'money':
      return t.name === 'smallmoney' ? 4 : 8;
    case 'datetime':
      return { date: 4, time: 4, smalldatetime: 4 }[t.name] ?? 8;
    case 'bool':
      return 1;
    case 'uuid':
      return 16;
    case 'char':
    case 'binary':
      return t.length;
    case 'text':
    case 'blob':
      return ASE_TEXT_POINTER_BYTES;
    case 'varchar':
    case 'varbinary':
      return 0;
  }
}

/** Bytes per character: unichar/univarchar are UTF-16; others follow the server character set. */
function aseBytesPerChar(t: ColumnType, engine: EngineSpec): number {
  if (t.national) return 2;
  switch (engine.encoding) {
    case 'latin1':
      return 1;
    case 'utf16':
      return 2;
    case 'utf8':
      return utf8BytesPerChar(engine);
  }
}

function aseColumnLayout(col: ColumnDef, index: number, table: TableDef, engine: EngineSpec): ColumnLayout {
  const t = col.type;
  const variableType = isVariableType(t) && t.family !== 'text' && t.family !== 'blob';
  const character = isCharacterType(t) && t.family !== 'text';
  const bpc = character ? aseBytesPerChar(t, engine) : 1;
  // In ASE, char(n)/varchar(n) declare bytes; unichar(n)/univarchar(n) declare characters.
  const maxBytes = variableType
    ? t.national
      ? 2 * t.length
      : t.length
    : t.family === 'char' && t.national
      ? 2 * t.length
      : aseFixedTypeBytes(t);
  return columnLayout(table, col, index, { variableType, character, bytesPerChar: bpc, maxBytes });
}

/** Row bytes from data bytes and the number of variable (incl. nullable) columns: DOL or APL. */
type AseRowBytes = (dataBytes: number, varColumns: number) => number;

function buildLayout(
  table: TableDef,
  engine: EngineSpec,
  geometry: PageGeometry,
  rowBytes: AseRowBytes,
  keepsClustered: boolean,
): TableLayout {
  const clustered = keepsClustered ? table.indexes.find((i) => i.clustered) : undefined;
  const columns = table.columns.map((c, i) => aseColumnLayout(c, i, table, engine));
  const { varying, fixedNotNullBytes, logicalMaxBytes } = indexVaryingColumns(columns);
  const nVar = varying.length;
  return {
    columns,
    varying,
    geometry,
    // The shortest row holds only the fixed NOT NULL columns; the longest every column at its maximum.
    minRowBytes: rowBytes(fixedNotNullBytes, nVar),
    maxRowBytes: rowBytes(logicalMaxBytes, nVar),
    logicalMaxBytes,
    fixedNotNullBytes,
    ...(clustered ? { clusteredIndex: clustered } : {}),
  };
}

/** The layout and row-size answers of an ASE format, from its page geometry and its row size. */
function aseRowFormat(
  geometry: (pageBytes: number) => PageGeometry,
  rowBytes: AseRowBytes,
  keepsClustered: boolean,
): Pick<FormatRows, 'layout' | 'rowBytes' | 'logicalBytes'> {
  return {
    layout: (table, engine) => buildLayout(table, engine, geometry(engine.page_size), rowBytes, keepsClustered),
    rowBytes: (layout, lens, base, logical) => rowBytes(logical ?? logicalDataBytes(layout, lens, base), layout.varying.length),
    logicalBytes: logicalDataBytes,
  };
}

/** DOL row bytes from data bytes and the number of variable (incl. nullable) columns [E][I]. */
export function dolRowBytes(dataBytes: number, varColumns: number): number {
  const raw =
    varColumns === 0
      ? ASE_DOL_FIXED_ROW_OVERHEAD + dataBytes
      : ASE_DOL_VAR_ROW_OVERHEAD + dataBytes + ASE_DOL_VAR_COLUMN_OFFSET_BYTES * varColumns;
  return Math.max(ASE_DOL_MIN_ROW_BYTES, raw);
}

/** APL row bytes [F]: 4 + fixed + variable, then adjust table, offset table and 2 bytes. */
export function aplRowBytes(dataBytes: number, varColumns: number): number {
  const subtotal = ASE_APL_ROW_OVERHEAD + dataBytes;
  if (varColumns === 0) return subtotal;
  return subtotal + Math.floor(subtotal / 256) + 1 + (varColumns + 1) + 2;
}

export function dolGeometry(pageBytes: number): PageGeometry {
  const usable = pageBytes - ASE_DOL_HEADER_BYTES;
  return {
    pageBytes,
    headerBytes: ASE_DOL_HEADER_BYTES,
    usableBytes: usable,
    slotBytes: ASE_ROW_OFFSET_BYTES,
    maxRowsPerPage: Math.floor(usable / (ASE_DOL_MIN_ROW_BYTES + ASE_ROW_OFFSET_BYTES)),
    maxRowBytes: pageBytes - ASE_DOL_ROW_LIMIT_OVERHEAD,
  };
}

export function aplGeometry(pageBytes: number): PageGeometry {
  return {
    pageBytes,
    headerBytes: ASE_APL_HEADER_BYTES,
    usableBytes: pageBytes - ASE_APL_HEADER_BYTES,
    slotBytes: ASE_ROW_OFFSET_BYTES,
    maxRowsPerPage: ASE_APL_MAX_ROWS_PER_PAGE,
    maxRowBytes: ASE_APL_MAX_ROW_BYTES[pageBytes] ?? pageBytes - 86,
  };
}

function checkAsePageSize(engine: EngineSpec): void {
  checkPageSize(engine, ASE_PAGE_SIZES, 'one of 2k, 4k, 8k, 16k for ASE');
}

/**
 * Resolve exp_row_size: 0 → default percent of the usable page, 1 → pack fully, N, or max [I][J][N].
 * A table of fixed-length NOT NULL columns only takes 0 or 1, and the server default does not apply to it:
 * "default exp_row_size percent … is only applied to pages for tables that have variable-length columns"
 * [K][I1]; "You cannot specify an expected row size for tables that have fixed-length columns only" [I][N].
 */
export function resolveExpRowSize(engine: EngineSpec, layout: TableLayout): { exp_row_size: number; setting: string } {
  const min = Math.max(2, layout.fixedNotNullBytes);
  const max = layout.logicalMaxBytes;
  const v = engine.exp_row_size;
  const fixedOnly = layout.varying.length === 0;
  if (fixedOnly && v !== 0 && v !== 1) {
    throw new EngineSettingError(
      'exp_row_size',
      `0 or 1 for this table: its columns are all fixed-length and NOT NULL, and ASE takes no expected row size for such a table, found ${v}`,
    );
  }
  if (v === 'max') return { exp_row_size: max, setting: 'max' };
  if (v === 0) {
    if (fixedOnly) return { exp_row_size: 0, setting: '0' };
    const bytes = Math.floor((layout.geometry.usableBytes * engine.default_exp_row_size_percent) / 100);
    return { exp_row_size: bytes, setting: '0' };
  }
  if (v === 1) return { exp_row_size: 0, setting: '1' };
  if (v < min || v > max) {
    throw new EngineSettingError(
      'exp_row_size',
      `a value from ${min} to ${max} for this table (0 = server default, 1 = pack fully, max = ${max}, the maximum data row length), found ${v}`,
    );
  }
  return { exp_row_size: v, setting: String(v) };
}

/** The settings both ASE formats own, with their defaults [I][K]. */
const ASE_DEFAULTS = {
  ...COMMON_DEFAULTS,
  exp_row_size: 0,
  default_exp_row_size_percent: ASE_DEFAULT_EXP_ROW_SIZE_PERCENT,
  exp_row_size_basis: 'physical',
  compaction: 'on',
  enable_housekeeper_gc: ASE_DEFAULT_HOUSEKEEPER_GC,
} as const satisfies StorageFormat['defaults'];

/** An ASE data page: its header, the row offset table growing from the page's end, the rows after the header [A][G]. */
function asePageAnatomy(dol: boolean, layout: TableLayout, engine: EngineSpec): PageAnatomy {
  const clustered = layout.clusteredIndex !== undefined;
  return {
    title: dol
      ? 'SAP ASE data-only-locked data page'
      : clustered
        ? `SAP ASE allpages-locked data page (clustered on ${layout.clusteredIndex!.name})`
        : 'SAP ASE allpages-locked data page',
    header: [{ label: dol ? 'DOL page header' : 'APL page header', bytes: dol ? ASE_DOL_HEADER_BYTES : ASE_APL_HEADER_BYTES }],
    slotArray: { name: 'row offset table', entryBytes: ASE_ROW_OFFSET_BYTES, at: 'end', firstSlot: 0 },
    words: dol
      ? {
          stub: `forwarding stub (${ASE_DOL_STUB_BYTES} bytes: where the row now lives; its row id does not change)`,
          forwarded: 'forwarded row',
          reservation: 'exp_row_size reservation',
          move: 'forwarded',
          stubShort: 'stub',
        }
      : { stub: 'none: allpages-locked rows move and get a new row id', forwarded: 'moved row' },
    notes: dol
      ? engine.exp_row_size === 1
        ? ['exp_row_size 1: no room is reserved for growth, rows are packed.']
        : [
            'A row shorter than exp_row_size is charged the difference when it is inserted: the page keeps it free (hatched, from the start of the free space). Updates may use any free space of the page, reserved or not.',
          ]
      : ['Allpages-locked rows are never forwarded: a row that no longer fits moves and every index entry for it is updated.'],
  };
}

/**
 * ASE's datatype hierarchy (systypes.hierarchy; a lower value precedes) for the types the 12.5
 * Performance and Tuning manual lists with their values: intn 14, int 15, smallint 16, tinyint 17, bit 18,
 * univarchar 19, unichar 20, varchar 22, char 23, varbinary 24, binary 25, text 26, image 27 [ASE-HIER].
 * The values of float, real, numeric, money and the datetime types (1–13) are ASE's systypes values as
 * rowsim assumes them: not checked against a manual page (docs/sources.md). Types with no value here
 * (bigint, date, time, unitext, uniqueidentifier …) are compared as the same type only.
 */
const ASE_HIERARCHY: Record<string, number> = {
  float: 2,
  'double precision': 2,
  datetime: 4,
  real: 5,
  numeric: 7,
  decimal: 9,
  number: 7,
  money: 11,
  smallmoney: 12,
  smalldatetime: 13,
  int: 15,
  integer: 15,
  smallint: 16,
  tinyint: 17,
  bit: 18,
  univarchar: 19,
  unichar: 20,
  nvarchar: 22,
  varchar: 22,
  nchar: 23,
  char: 23,
  varbinary: 24,
  binary: 25,
  text: 26,
  image: 27,
};

/** Types ASE treats as one for this rule: char and varchar, unichar and univarchar, binary and varbinary [ASE-HIER]. */
function aseHierarchyGroup(name: string): number | undefined {
  const h = ASE_HIERARCHY[name];
  if (h === undefined) return undefined;
  if (h === 22 || h === 23) return 22;
  if (h === 19 || h === 20) return 19;
  if (h === 24 || h === 25) return 24;
  return h;
}

/**
 * `column = @p` in ASE: "for search arguments, the index is considered when the column's datatype is
 * same as, or precedes, the hierarchy value of the parameter" [ASE-HIER]. A varchar column compared with
 * a univarchar value (the analogue of SQL Server's varchar and nvarchar) is not sought. ASE 15 says it
 * selects indexes better for "mismatched but compatible" types without stating the new rule; rowsim
 * applies the 12.5 rule (an assumption, said in docs/engines.md).
 */
function aseComparison(column: ColumnDef, parameter: ColumnType): ComparisonRule {
  const c = aseHierarchyGroup(column.type.name);
  const p = aseHierarchyGroup(parameter.name);
  if (column.type.name === parameter.name || (c !== undefined && c === p)) return unconverted(column.name, '[ASE-HIER]');
  if (c === undefined || p === undefined) {
    return {
      access: 'scan',
      converted: 'column',
      expression: `convert(${parameter.sql}, ${column.name}) = @p`,
      why: `rowsim has no hierarchy value for ${c === undefined ? column.type.name : parameter.name} and assumes the column is converted (an assumption: docs/engines.md)`,
      source: '[ASE-HIER]',
    };
  }
  if (c < p) {
    return {
      access: 'seek',
      converted: 'parameter',
      expression: `${column.name} = convert(${column.type.sql}, @p)`,
      why: `the column's ${column.type.name} precedes ${parameter.name} in the datatype hierarchy: the index is considered`,
      source: '[ASE-HIER]',
    };
  }
  const expression = `convert(${parameter.sql}, ${column.name}) = @p`;
  return {
    access: 'scan',
    converted: 'column',
    expression,
    why: `${parameter.name} precedes the column's ${column.type.name} in the datatype hierarchy, so the column is converted and its index is not considered`,
    source: '[ASE-HIER]',
  };
}

/** What the two ASE formats answer alike: pages, defaults, the heap engine, index rows. */
function aseCommon(id: 'ase-dol' | 'ase-apl'): Pick<
  StorageFormat,
  'defaultPageBytes' | 'pageSizes' | 'defaults' | 'encodingFor' | 'pages' | 'reads' | 'allocation' | 'words'
> & {
  indexes: Pick<FormatIndexes, 'indexGeometry' | 'versionedIndexes'>;
  knob: Pick<FormatKnob, 'reserveSetting' | 'reserveUnit'>;
} {
  const dol = id === 'ase-dol';
  return {
    defaultPageBytes: 2048,
    pageSizes: ASE_PAGE_SIZES,
    defaults: ASE_DEFAULTS,
    // ASE keeps char/varchar in the server's character set, whichever it is (utf16 included).
    encodingFor: (encoding) => encoding,
    pages: {
      createEngine: (layout, resolved, spec, rowCapacity) =>
        layout.clusteredIndex
          ? aplClusteredEngine(layout, layout.clusteredIndex, spec.table.indexes.length - 1, rowCapacity)
          : new ForwardingHeap({
              geometry: layout.geometry,
              // DOL rows are forwarded; APL rows move and their index entries follow [Q][U1].
              forwarding: dol,
              stubBytes: ASE_DOL_STUB_BYTES,
              expRowSizeBytes: dol ? Number(resolved.exp_row_size) : 0,
              expRowSizeBasis: spec.engine.exp_row_size_basis,
              compaction: spec.engine.compaction === 'on',
              indexCount: spec.table.indexes.length,
              rowCapacity,
              // A page whose last row leaves is deallocated: at once on APL [PT-DEL]; on DOL by the housekeeper's
              // garbage collection (reorg forwarded_rows moving the rows of a page home included) [HK-GC].
              deallocateEmptyPages: !dol || spec.engine.enable_housekeeper_gc !== 0,
            }),
      engineRowBytes: FORWARDING_HEAP_ROW_BYTES,
      pageAnatomy: (layout, engine) => asePageAnatomy(dol, layout, engine),
      reorgNote: forwardingReorgNote(id),
    },
    reads: {
      comparison: (column, parameter) => aseComparison(column, parameter),
      // ASE counts forwarded rows (optdiag, systabstats.forwrowcnt), not reads of them: rowsim names the reads.
      readCounters: (reads) => ({ forwarded_row_reads: reads.forwardedHops }),
      readRowBytes: 0,
      lobStore: (layout) => aseTextStore(layout.geometry.pageBytes),
    },
    indexes: {
      indexGeometry: (_table, layout, idx, columns) =>
        dol ? dolIndexGeometry(layout, idx, columns) : aplIndexGeometry(layout, idx, columns),
      versionedIndexes: false,
    },
    allocation: {
      allocationPages: aseAllocationPages,
    },
    knob: {
      reserveSetting: 'exp_row_size',
      reserveUnit: 'bytes',
    },
    words: {
      rowIdName: 'row ID (RID)',
      phaseMetrics: dol ? FORWARDING_PHASE_METRICS : [...FORWARDING_PHASE_METRICS, 'page_splits'],
      movedRows: { metric: 'forwarded_rows', word: dol ? 'forwarded' : 'moved', short: dol ? 'fwd' : 'moved' },
      rowBytesAre: 'physical',
    },
  };
}

/**
 * An allpages-locked table with a clustered index: rows in key order on data pages that are the index's
 * leaf level; a page that overflows splits and the moved rows get new row ids, so every nonclustered
 * index entry for them is updated [PT-SPLIT]; fillfactor, max_rows_per_page and reservepagegap of the
 * clustered index apply to the data pages [PT-FILL][ASE-IDXPROP]. reorg forwarded_rows and compact need a
 * data-only-locked table [R3]: nothing to do here.
 */
function aplClusteredEngine(layout: TableLayout, index: IndexDef, nonclustered: number, rowCapacity: number): StorageEngine {
  return new ClusteredHeap({
    geometry: layout.geometry,
    buildReserveBytes: aseFillReserve(layout.geometry.usableBytes, index.fillfactor),
    maxRowsPerPage: index.max_rows_per_page ?? 0,
    reservePageGap: index.reservepagegap ?? 0,
    ridIndexes: nonclustered,
    compactRebuilds: false,
    forwardedRowsRebuilds: false,
    rowCapacity,
  });
}

/** An OAM page maps 2,000 to 63,750 pages of its object; the guide's estimate uses the most (OAM pages close to their minimum) [PT-APL6][PT-DOL3]. */
const ASE_OAM_PAGES_MAPPED_MAX = 63_750;
/** An allocation unit is 256 pages, the first its allocation page [A2]. */
const ASE_ALLOCATION_UNIT_PAGES = 256;

/**
 * ASE allocation overhead [PT-APL6][PT-DOL3]: one OAM page per 63,750 pages of the table and of each index
 * (the guide's minimum, "in most cases … close to the minimum value": 750,000 data pages take 12), and
 * the allocation pages of the allocation units those pages fill (one in 256 [A2]; the database's pages,
 * counted as if the table's objects filled whole units, an upper estimate).
 */
export function aseAllocationPages(input: AllocationInput): AllocationPageCounts {
  const objects = [input.dataPages, ...Object.values(input.indexPages)];
  const oam = objects.reduce((sum, pages) => sum + Math.ceil(pages / ASE_OAM_PAGES_MAPPED_MAX), 0);
  const all = objects.reduce((sum, pages) => sum + pages, 0) + oam;
  return { oam, allocation: Math.ceil(all / (ASE_ALLOCATION_UNIT_PAGES - 1)) };
}

/** exp_row_size as the estimator tunes it: max(2, fixed NOT NULL bytes) .. the maximum data row length [I][J][N]. */
function expRowSizeKnob(layout: TableLayout, engine: EngineSpec): ReserveKnob {
  if (layout.varying.length === 0) {
    throw new KnobError(
      'a table with a variable-length or nullable column (ASE takes no exp_row_size but 0 and 1 on a table of fixed-length NOT NULL columns only, whose rows cannot grow)',
    );
  }
  const min = Math.max(2, layout.fixedNotNullBytes);
  const max = layout.logicalMaxBytes;
  const defaultBytes = resolveExpRowSize({ ...engine, exp_row_size: 0 }, layout).exp_row_size;
  return {
    format: 'ase-dol',
    key: 'exp_row_size',
    min,
    max,
    moreReserveWhenLarger: true,
    specials: [
      { name: 'pack', setting: 1, value: 1, label: '1 (pack fully)' },
      {
        name: 'default',
        setting: 0,
        value: defaultBytes,
        label: `0 (server default ${engine.default_exp_row_size_percent}% = ${defaultBytes})`,
      },
      { name: 'max', setting: 'max', value: max, label: `max (${max})` },
    ],
    engineWith: (base, setting) => ({ ...base, format: 'ase-dol', exp_row_size: setting }),
    commands: (table, value) => ({
      commands: [`sp_chgattribute '${table}', 'exp_row_size', ${value}`],
      note: `only pages allocated from now on use exp_row_size ${value}; existing pages keep their rows and reservations until \`reorg rebuild ${table}\` (an exclusive table lock for its whole run)`,
    }),
    reorg: 'forwarded_rows',
    movedWord: 'forwarded',
    movedMetric: 'forwarded_rows',
  };
}

const aseDolCommon = aseCommon('ase-dol');

export const aseDol: StorageFormat = {
  id: 'ase-dol',
  dbms: 'ase',
  dbmsName: 'SAP ASE',
  title: 'SAP ASE data-only-locked (datarows)',
  evidence: ['optdiag', 'sp_spaceused'],
  settingsShape: aseSettings,
  ddl: aseDdl,
  settings: [
    'page_size',
    'exp_row_size',
    'default_exp_row_size_percent',
    'exp_row_size_basis',
    'compaction',
    'enable_housekeeper_gc',
    'encoding',
    'multibyte_share',
    'multibyte_widths',
  ],
  ...aseDolCommon,
  ddlLocks: ['datarows', 'datapages'],
  resolve(engine, layout): ResolvedEngine {
    checkAsePageSize(engine);
    if (engine.enable_housekeeper_gc === 2 || engine.enable_housekeeper_gc === 3) {
      throw new EngineSettingError('enable_housekeeper_gc', `0, 1, 4 or 5 (2 and 3 are reserved), found ${engine.enable_housekeeper_gc}`);
    }
    const { exp_row_size, setting } = resolveExpRowSize(engine, layout);
    return {
      format: 'ase-dol',
      page_size: engine.page_size,
      exp_row_size,
      exp_row_size_setting: setting,
      exp_row_size_basis: engine.exp_row_size_basis,
      compaction: engine.compaction,
      enable_housekeeper_gc: engine.enable_housekeeper_gc,
      usable_page_bytes: layout.geometry.usableBytes,
      max_rows_per_page: layout.geometry.maxRowsPerPage,
      max_row_bytes: layout.geometry.maxRowBytes,
      exp_row_size_min: Math.max(2, layout.fixedNotNullBytes),
      exp_row_size_max: layout.logicalMaxBytes,
      fixed_length_only: layout.varying.length === 0,
    };
  },
  notes(engine, resolved) {
    const notes: string[] = [];
    if (engine.exp_row_size === 0 && resolved.fixed_length_only === true) {
      notes.push(
        "exp_row_size 0: the server default applies only to tables with variable-length or nullable columns; this table's pages are packed full",
      );
    } else if (engine.exp_row_size === 0) {
      notes.push(
        `exp_row_size 0 uses the server default: ${engine.default_exp_row_size_percent}% of ${resolved.usable_page_bytes} usable bytes = ${resolved.exp_row_size} bytes`,
      );
    }
    notes.push(
      `exp_row_size is compared with each row's ${engine.exp_row_size_basis} length (exp_row_size_basis; ASE does not document which)`,
    );
    return notes;
  },
  rows: {
    // A DOL clustered index only places rows near their key [PT-DOLCI]: the rows are a heap.
    ...aseRowFormat(dolGeometry, dolRowBytes, false),
  },
  indexes: {
    ...aseDolCommon.indexes,
    // max_rows_per_page applies only to allpages-locked tables [ASE-IDXPROP].
    indexSettings: ['fillfactor', 'reservepagegap'],
    indexNotes: (table) =>
      table.indexes.some((i) => i.clustered)
        ? [
            'clustered on ase-dol is a placement index: a leaf row per data row, sized as a nonclustered index; it directs inserts to the page of the key before, which for rows arriving in key order is the last page, so the rows are placed and forwarded as in a heap',
          ]
        : [],
  },
  knob: {
    ...aseDolCommon.knob,
    reserveKnob: expRowSizeKnob,
    maintenance: (table, value) => ({
      periodic: `reorg forwarded_rows ${table}`,
      periodicRebuilds: false,
      change: [`sp_chgattribute '${table}', 'exp_row_size', ${value}`, `reorg rebuild ${table}`],
      costs: [
        'reorg forwarded_rows runs as transactions of at most 8 pages; one that meets a forwarded row takes an exclusive table lock [R3][S-ASE-BET]',
        'reorg rebuild copies every row to new pages and rebuilds every index under one exclusive table lock for its whole run [R3][R5]',
        'it needs free space for a complete copy of the table and its indexes on their segments [R6]',
        'it needs the database option select into/bulkcopy/pllsort, and after it dump transaction is refused until a dump database [R7]',
      ],
    }),
    rebuild: (table) => ({
      command: `reorg rebuild ${table}`,
      needs: 'free space for a complete copy of the table and its indexes on their segments [R6]',
      indexesToo: true,
    }),
    estimateAlternatives: aseAlternatives,
  },
};

const aseAplCommon = aseCommon('ase-apl');

export const aseApl: StorageFormat = {
  id: 'ase-apl',
  dbms: 'ase',
  dbmsName: 'SAP ASE',
  title: 'SAP ASE allpages-locked',
  evidence: ['optdiag', 'sp_spaceused'],
  settingsShape: aseSettings,
  ddl: aseDdl,
  settings: [
    'page_size',
    'exp_row_size',
    'default_exp_row_size_percent',
    'exp_row_size_basis',
    'encoding',
    'multibyte_share',
    'multibyte_widths',
  ],
  ...aseAplCommon,
  ddlLocks: ['allpages'],
  resolve(engine, layout): ResolvedEngine {
    checkAsePageSize(engine);
    // exp_row_size is checked as ASE would and stored, but APL pages ignore it [P][R1].
    const { setting } = resolveExpRowSize(engine, layout);
    return {
      format: 'ase-apl',
      page_size: engine.page_size,
      exp_row_size: 0,
      exp_row_size_setting: setting,
      usable_page_bytes: layout.geometry.usableBytes,
      max_rows_per_page: layout.geometry.maxRowsPerPage,
      max_row_bytes: layout.geometry.maxRowBytes,
      ...(layout.clusteredIndex ? { clustered_index: layout.clusteredIndex.name } : {}),
    };
  },
  notes(engine, resolved) {
    const notes =
      resolved.clustered_index !== undefined
        ? [
            `a clustered table: the rows are kept in the order of ${resolved.clustered_index}, whose leaf level is the data pages; a row that no longer fits splits its page (page_splits), and the rows moved get new row ids, so every nonclustered index entry for them is updated`,
          ]
        : ['APL rows are never forwarded: a row that no longer fits moves, and every index entry for it is updated'];
    if (engine.exp_row_size !== 0) notes.push('exp_row_size is accepted and ignored on allpages-locked tables');
    return notes;
  },
  rows: {
    // An APL clustered index keeps the rows in key order: its leaf level is the data pages [PT-APL4].
    ...aseRowFormat(aplGeometry, aplRowBytes, true),
  },
  indexes: {
    ...aseAplCommon.indexes,
    indexSettings: ['fillfactor', 'max_rows_per_page', 'reservepagegap'],
  },
  knob: {
    ...aseAplCommon.knob,
    noKnob: 'allpages-locked tables store exp_row_size but ignore it',
  },
};

/** The estimator's word on ASE's other space settings for a data-only-locked table. */
function aseAlternatives(input: AlternativesInput): string[] {
  const mb = (pages: number) => `${((pages * input.pageBytes) / (1024 * 1024)).toFixed(1)} MB`;
  const rec = input.recommended;
  const cur = input.current;
  const gap = input.reservepagegap && input.reservepagegap > 1 ? input.reservepagegap : 10;
  const empty = Math.ceil(cur.pages / (gap - 1));
  return [
    `max_rows_per_page: no alternative on this table: ASE applies it to allpages-locked tables only and ignores it on data-only-locked ones [ASE-IDXPROP][L]; exp_row_size ${rec.value} already holds a page to ${input.rowsPerPage} rows while they are new`,
    `reservepagegap ${gap} (${input.reservepagegap ? "the table's own" : "the manual's example value; the table has none"}): does not keep rows from being forwarded: it leaves one page empty for every ${gap - 1} that \`reorg rebuild\` (or another extent-allocating command) fills, and forwarded rows and inserts later go to those pages, near their home pages [AC][ASE-IDXPROP]; at ${cur.setting} that is about ${groupedNumber(empty)} empty pages (${mb(empty)}) and still about ${groupedNumber(cur.forwarded)} forwarded rows, where ${rec.setting} forwards ${groupedNumber(rec.forwarded)} for ${groupedNumber(Math.max(0, rec.pages - cur.pages))} more pages (${mb(Math.max(0, rec.pages - cur.pages))})`,
  ];
}
