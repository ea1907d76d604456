/**
 * MySQL / MariaDB InnoDB tables (`innodb`): the table is its clustered B+tree, rows live in its leaves in
 * key order, a row that grows splits its page and is never forwarded (src/innodb, the engine). Records
 * and pages: innodb-records.ts. Sources: the MariaDB server source (storage/innobase) and the MySQL and
 * MariaDB manuals, listed in docs/sources.md ("InnoDB"); docs/engines/innodb.md says what is modelled.
 */
import type { SettingsOf, Zod } from '../config/format-ids.js';
import { HARMLESS, type DdlClauses } from '../config/ddl-clauses.js';
import type { EngineSpec, IndexDef, TableDef } from '../config/spec.js';
import { keyColumns, type IndexGeometry } from '../btree/geometry.js';
import { InnodbEngine } from '../innodb/engine.js';
import { COMMON_DEFAULTS, withoutUtf16, type PageAnatomy, type StorageFormat } from './format.js';
import { INNODB_CHARSET_NAMES, innodbComparison } from './innodb-comparison.js';
import { greedyIndexGeometry } from './forwarding.js';
import { checkPageSize, logicalDataBytes, type ResolvedEngine, type TableLayout } from '../layout/table-layout.js';
import {
  clusteredRecord,
  createTableMaxRecord,
  EMPTY_DIRECTORY_BYTES,
  extentPages,
  FIL_HEADER_BYTES,
  FIL_TRAILER_BYTES,
  freeSpaceOfEmpty,
  FSEG_HEADERS_BYTES,
  indexRecordBytes,
  INNODB_PAGE_SIZES,
  innodbLayout,
  offPagePages,
  PAGE_HEADER_BYTES,
  type InnodbTableLayout,
  type RowFormat,
} from './innodb-records.js';

/** The settings InnoDB declares: the row format, MERGE_THRESHOLD, innodb_fill_factor, the table's default character set. */
const innodbSettings = (z: Zod) => ({
  charset: z.enum(INNODB_CHARSET_NAMES as [string, ...string[]]).optional(),
  row_format: z.enum(['dynamic', 'compact', 'redundant']).optional(),
  merge_threshold: z.number().int().min(1).max(50).optional(),
  innodb_fill_factor: z.number().int().min(10).max(100).optional(),
  innodb_strict_mode: z.enum(['on', 'off']).optional(),
});

/**
 * SHOW CREATE TABLE's and mysqldump's table options: ENGINE=InnoDB shows the DDL is MySQL's (other engines
 * are refused), ROW_FORMAT=… and a COMMENT='MERGE_THRESHOLD=N' are engine settings; COMPRESSED rows and
 * KEY_BLOCK_SIZE are not modelled; the rest does not change how rows are stored.
 */
const innodbDdl: DdlClauses = {
  assignments: {
    ENGINE: { kind: 'word', key: 'storage_engine', values: ['innodb'], why: 'rowsim models InnoDB tables', sign: 'ENGINE=InnoDB' },
    ROW_FORMAT: {
      kind: 'word',
      key: 'row_format',
      values: ['dynamic', 'compact', 'redundant'],
      why: 'ROW_FORMAT=COMPRESSED is not modelled',
      engine: true,
    },
    COMMENT: { kind: 'comment', settings: { MERGE_THRESHOLD: { kind: 'setting', key: 'merge_threshold', min: 1, max: 50, engine: true } } },
    KEY_BLOCK_SIZE: { kind: 'only', values: ['0'], why: 'KEY_BLOCK_SIZE makes pages compressed, which rowsim does not model' },
    AUTO_INCREMENT: HARMLESS,
    // DEFAULT CHARSET=utf8mb4: the character set of the columns that do not name one (innodb-comparison.ts).
    CHARSET: {
      kind: 'word',
      key: 'charset',
      values: INNODB_CHARSET_NAMES,
      why: 'the character sets rowsim models; others are not',
      engine: true,
    },
    COLLATE: HARMLESS,
    STATS_PERSISTENT: HARMLESS,
    STATS_AUTO_RECALC: HARMLESS,
    STATS_SAMPLE_PAGES: HARMLESS,
    PAGE_CHECKSUM: HARMLESS,
    TRANSACTIONAL: HARMLESS,
  },
  nullableByDefault: true,
  charsets: INNODB_CHARSET_NAMES,
};

declare module '../config/format-ids.js' {
  interface DbmsIds {
    mysql: true;
  }
  interface FormatIds {
    innodb: true;
  }
  interface FormatSettings extends SettingsOf<typeof innodbSettings> {}
  interface DdlTableOptions {
    /** ENGINE=InnoDB (the only engine rowsim models). */
    storage_engine?: DdlSetting<string>;
    /** ROW_FORMAT=DYNAMIC | COMPACT | REDUNDANT. */
    row_format?: DdlSetting<string>;
    /** COMMENT='MERGE_THRESHOLD=N'. */
    merge_threshold?: DdlSetting<number>;
    /** DEFAULT CHARSET=utf8mb4. */
    charset?: DdlSetting<string>;
  }
}

const INNODB_DEFAULT_PAGE_BYTES = 16384;

function info(layout: TableLayout): InnodbTableLayout['innodb'] {
  return (layout as InnodbTableLayout).innodb;
}

/** The columns an index's records hold: its key, then the clustered key's columns it has not got (a secondary index carries the primary key). */
function secondaryColumns(table: TableDef, layout: TableLayout, idx: IndexDef): number[] {
  const own = keyColumns(table, idx);
  return [...own, ...info(layout).clusteredColumns.filter((c) => !own.includes(c))];
}

/** Is `idx` the index InnoDB clusters the table on? */
function isClustered(layout: TableLayout, idx: IndexDef): boolean {
  return info(layout).clusteredName === idx.name;
}

/** For the runner's index model (results' index_entries); the engine keeps the indexes' real pages. */
function innodbIndexGeometry(table: TableDef, layout: TableLayout, idx: IndexDef, columns: number[]): IndexGeometry {
  const i = info(layout);
  const clustered = isClustered(layout, idx);
  const entry = indexRecordBytes(i, clustered ? columns : secondaryColumns(table, layout, idx), false);
  const pointer = indexRecordBytes(i, clustered ? columns : secondaryColumns(table, layout, idx), true);
  return greedyIndexGeometry({
    name: idx.name,
    columns,
    unique: idx.unique,
    slotBytes: 1,
    pageRoomBytes: freeSpaceOfEmpty(i.pageBytes, i.format),
    leafTupleBytes: clustered ? pointer : entry,
    pivotBytes: pointer,
    leafReserveBytes: 0,
    nonLeafReserveBytes: 0,
    leafIsData: clustered,
  });
}

/** An InnoDB index page: FIL header, page header and file segment headers, infimum and supremum, records, the page directory, FIL trailer. */
function innodbPageAnatomy(layout: TableLayout): PageAnatomy {
  const format = info(layout).format;
  return {
    title: `InnoDB index page (${format.toUpperCase()}; the leaf level of ${info(layout).clusteredName})`,
    header: [
      { label: 'FIL header', bytes: FIL_HEADER_BYTES },
      { label: 'index page header', bytes: PAGE_HEADER_BYTES },
      { label: 'file segment headers', bytes: FSEG_HEADERS_BYTES },
      // page0page.h PAGE_NEW_INFIMUM … PAGE_NEW_SUPREMUM_END (13 + 13), PAGE_OLD_* (15 + 16, with the end offsets).
      { label: 'infimum', bytes: format === 'redundant' ? 15 : 13 },
      { label: 'supremum', bytes: format === 'redundant' ? 16 : 13 },
      { label: 'their directory slots', bytes: EMPTY_DIRECTORY_BYTES },
    ],
    // A 2-byte slot per 4–8 records: InnoDB reserves ⌈2n / 4⌉ bytes for n records (page_dir_calc_reserved_space).
    slotArray: { name: 'page directory (a 2-byte slot per 4–8 records)', entryBytes: 2, at: 'end', firstSlot: 0, recordsPerSlot: 4 },
    trailer: { label: 'FIL trailer', bytes: FIL_TRAILER_BYTES },
    words: {
      stub: 'none: InnoDB splits the page instead',
      forwarded: 'moved by a page split',
      entries: 'records in key order',
      holes: 'PAGE_GARBAGE (freed records, reused after a reorganisation)',
      holesShort: 'in PAGE_GARBAGE',
    },
    notes: ['Rows stay in key order: a row that no longer fits is rewritten after a reorganisation, or the page splits.'],
  };
}

/** ER_TOO_BIG_ROWSIZE (1118) in the server's words (the MariaDB Knowledge Base, "Troubleshooting Row Size Too Large Errors"). */
function rowSizeTooLarge(layout: TableLayout): string {
  const i = info(layout);
  const prefix = i.format === 'dynamic' ? 0 : 768;
  const advice = i.format === 'dynamic' ? '' : ' or using ROW_FORMAT=DYNAMIC or ROW_FORMAT=COMPRESSED';
  return `ERROR 1118 (42000): Row size too large (> ${i.limit}). Changing some columns to TEXT or BLOB${advice} may help. In current row format, BLOB prefix of ${prefix} bytes is stored inline.`;
}

/** innodb_strict_mode's CREATE TABLE refusal (dict_index_too_big_for_tree); with it off, a warning, and the INSERT fails instead. */
function innodbTableLimit(table: TableDef, layout: TableLayout): string | undefined {
  const i = info(layout);
  if (!i.strict) return undefined;
  const max = createTableMaxRecord(i, layout);
  if (max < i.limit) return undefined;
  return `expected a table InnoDB can create, found table ${table.name} whose longest record would be ${max} bytes (${rowSizeTooLarge(layout)})`;
}

function innodbResolve(engine: EngineSpec, layout: TableLayout): ResolvedEngine {
  checkPageSize(engine, INNODB_PAGE_SIZES, 'innodb_page_size 4k, 8k, 16k, 32k or 64k');
  const i = info(layout);
  return {
    format: 'innodb',
    page_size: engine.page_size,
    row_format: i.format,
    merge_threshold: engine.merge_threshold,
    innodb_fill_factor: engine.innodb_fill_factor,
    encoding: engine.encoding,
    usable_page_bytes: freeSpaceOfEmpty(engine.page_size, i.format),
    max_record_bytes: i.limit - 1,
    extent_pages: extentPages(engine.page_size),
    clustered_index: i.clusteredName,
  };
}

function innodbNotes(engine: EngineSpec, resolved: ResolvedEngine): string[] {
  return [
    `the table is the clustered index ${resolved.clustered_index}: rows are never forwarded; a row that outgrows its page is rewritten after a reorganisation or splits the page`,
    'purge removes delete-marked records at each commit (a quiet server with no older read view); pages under MERGE_THRESHOLD merge with a sibling',
    `reorg rebuild, compact and forwarded_rows run OPTIMIZE TABLE (a sorted rebuild at innodb_fill_factor ${engine.innodb_fill_factor}); vacuum does nothing (purge is automatic)`,
    'old row versions live in the undo log, which is not modelled',
  ];
}

function createEngine(
  layout: TableLayout,
  resolved: ResolvedEngine,
  spec: { table: TableDef; engine: EngineSpec },
  rowCapacity: number,
): InnodbEngine {
  const i = info(layout);
  const table = spec.table;
  const clustered = table.indexes.find((x) => x.name === i.clusteredName);
  const clusteredColumns = clustered ? keyColumns(table, clustered) : [];
  return new InnodbEngine({
    pageBytes: spec.engine.page_size,
    freeSpaceOfEmpty: Number(resolved.usable_page_bytes),
    maxRecordBytes: i.limit - 1,
    mergeThresholdPct: spec.engine.merge_threshold,
    fillFactorPct: spec.engine.innodb_fill_factor,
    extentPages: extentPages(spec.engine.page_size),
    clustered: {
      name: i.clusteredName,
      keyColumn: clusteredColumns[0] ?? -1,
      entryBytes: () => 0,
      pointerBytes: indexRecordBytes(i, clusteredColumns, true),
      ...(clustered?.merge_threshold !== undefined ? { mergeThresholdPct: clustered.merge_threshold } : {}),
    },
    secondaries: table.indexes
      .filter((x) => x.name !== i.clusteredName)
      .map((x) => ({
        name: x.name,
        keyColumn: keyColumns(table, x)[0] ?? -1,
        entryBytes: indexRecordBytes(i, secondaryColumns(table, layout, x), false),
        pointerBytes: indexRecordBytes(i, secondaryColumns(table, layout, x), true),
        ...(x.merge_threshold !== undefined ? { mergeThresholdPct: x.merge_threshold } : {}),
      })),
    offPagePages: (lens, base) => offPagePages(i, lens, base),
    rowCapacity,
  });
}

/** MERGE_THRESHOLD for a rebuild at innodb_fill_factor `fill`: the current one, or half the fill where that is lower. */
function mergeBelow(engine: EngineSpec, fill: number): number {
  return Math.max(1, Math.min(engine.merge_threshold, Math.floor(fill / 2)));
}

export const innodb: StorageFormat = {
  id: 'innodb',
  dbms: 'mysql',
  dbmsName: 'MySQL/MariaDB',
  title: 'InnoDB (the table is its clustered B+tree)',
  evidence: [],
  defaultPageBytes: INNODB_DEFAULT_PAGE_BYTES,
  pageSizes: INNODB_PAGE_SIZES,
  settingsShape: innodbSettings,
  ddl: innodbDdl,
  settings: [
    'page_size',
    'encoding',
    'charset',
    'multibyte_share',
    'multibyte_widths',
    'row_format',
    'merge_threshold',
    'innodb_fill_factor',
    'innodb_strict_mode',
  ],
  defaults: { ...COMMON_DEFAULTS, row_format: 'dynamic', merge_threshold: 50, innodb_fill_factor: 100, innodb_strict_mode: 'on' },
  // MySQL's types beyond the common ones (manual, "Data Type Storage Requirements"); ENUM and SET by their member counts.
  columnTypes: {
    mediumint: { family: 'int', params: 'none' },
    year: { family: 'int', params: 'none' },
    double: { family: 'float', params: 'none' },
    enum: { family: 'int', params: 'length' },
    set: { family: 'int', params: 'length' },
    tinytext: { family: 'text', params: 'none' },
    mediumtext: { family: 'text', params: 'none' },
    longtext: { family: 'text', params: 'none' },
    json: { family: 'text', params: 'none' },
    tinyblob: { family: 'blob', params: 'none' },
    mediumblob: { family: 'blob', params: 'none' },
    longblob: { family: 'blob', params: 'none' },
  },
  encodingFor: withoutUtf16,
  resolve: innodbResolve,
  notes: innodbNotes,
  rows: {
    tableLimit: innodbTableLimit,
    // An INSERT or UPDATE whose record stays at the limit after its long values went off-page fails (DB_TOO_BIG_RECORD).
    refusal: (layout, bytes) =>
      `${rowSizeTooLarge(layout)} (a record of ${bytes} bytes; expected records under ${info(layout).limit} bytes)`,
    layout: innodbLayout,
    rowBytes: (layout, lens, base) => clusteredRecord(info(layout), lens, base).bytes,
    logicalBytes: logicalDataBytes,
  },
  pages: {
    pageAnatomy: innodbPageAnatomy,
    createEngine,
    // Per row and index: key, tie, bytes, page (24 bytes) and its place in a page's record list (8), with the row state.
    engineRowBytes: 64,
    reorgNote: (kind) => (kind === 'vacuum' ? 'vacuum does nothing on innodb: purge removes delete-marked records by itself' : undefined),
  },
  reads: {
    comparison: innodbComparison,
    readCounters: () => ({}),
    readRowBytes: 0,
  },
  indexes: {
    indexSettings: ['merge_threshold'],
    indexGeometry: innodbIndexGeometry,
    versionedIndexes: false,
    indexNotes: (table) =>
      table.indexes.some((x) => x.clustered) || table.indexes.some((x) => x.unique)
        ? []
        : ['no primary key and no unique NOT NULL index: InnoDB clusters the table on a hidden 6-byte DB_ROW_ID (GEN_CLUST_INDEX)'],
  },
  allocation: {
    // Segments reserve their pages in fragments and extents: innodb.indexes and data_length count them.
    allocationPages: () => ({}),
  },
  knob: {
    noKnob:
      'InnoDB has no setting that keeps room on a page for rows to grow: inserts always fill leaves to 15/16 (or split them), innodb_fill_factor applies only to sorted index builds and is lost at the first split, and MERGE_THRESHOLD decides when emptied pages merge',
    rebuild: (table) => ({
      command: `OPTIMIZE TABLE ${table}`,
      needs: 'space for a copy of the table and its indexes while it is rebuilt (ALTER TABLE … FORCE)',
      indexesToo: true,
    }),
    // MySQL manual, "Sorted Index Builds" (innodb_fill_factor, a global; OPTIMIZE TABLE rebuilds sorted) and
    // "Configuring the Merge Threshold for Index Pages" (COMMENT 'MERGE_THRESHOLD=N').
    rebuildFill: {
      key: 'innodb_fill_factor',
      min: 10,
      max: 100,
      step: 5,
      overflowMetric: 'page_splits',
      // A page under MERGE_THRESHOLD merges when a record on it changes: a rebuild emptier than it is undone by the growth.
      engineWith: (engine, value) => ({ ...engine, innodb_fill_factor: value, merge_threshold: mergeBelow(engine, value) }),
      apply: (table, value, engine) => [
        ...(mergeBelow(engine, value) !== engine.merge_threshold
          ? [`ALTER TABLE ${table} COMMENT='MERGE_THRESHOLD=${mergeBelow(engine, value)}';`]
          : []),
        `SET GLOBAL innodb_fill_factor=${value};`,
        `OPTIMIZE TABLE ${table};`,
        'SET GLOBAL innodb_fill_factor=100;',
      ],
      source: 'MySQL 8.0 Reference Manual, "Sorted Index Builds" (https://dev.mysql.com/doc/refman/8.0/en/sorted-index-builds.html)',
    },
    keyOrderColumn: (table) => {
      const k = table.indexes.find((x) => x.clustered) ?? table.indexes.find((x) => x.unique);
      return k?.columns[0];
    },
  },
  words: {
    rowIdName: 'primary key',
    rowBytesAre: 'physical (the clustered index record: header, key, DB_TRX_ID, DB_ROLL_PTR, columns)',
    phaseMetrics: ['rows', 'pages', 'page_splits', 'page_merges', 'leaf_fill_pct', 'updates_in_place', 'data_length', 'index_length'],
    movedRows: { metric: 'forwarded_rows', word: 'forwarded', short: 'fwd' },
  },
};

export type { RowFormat };
