/**
 * One routine per storage format, after PostgreSQL's table access methods (tableam.h: a routine struct
 * per access method, filled once; callers never ask which method they hold). Everything that differs
 * between SAP ASE, SQL Server, PostgreSQL and Oracle is answered here; the config loader, the workload
 * runner, the estimator and the reports ask the routine and never test a format's name.
 *
 * Adding a format: one module that exports a StorageFormat, and one line in registry.ts.
 */
import type { FormatId, IndexOptionKey } from '../config/schema.js';
import type { SettingsFragment } from '../config/format-ids.js';
import type { DdlClauses } from '../config/ddl-clauses.js';
import type { ColumnDef, EngineSettings, EngineSpec, IndexDef, StorageSpec, TableDef, DdlDbms } from '../config/spec.js';
import type { IndexGeometry } from '../btree/geometry.js';
import type { EngineMetrics, ReorgKind, StorageEngine } from '../heap/engine.js';
import type { Encoding } from '../config/schema.js';
import type { EvidenceKind } from '../config/evidence-kinds.js';
import type { ResolvedEngine, TableLayout } from '../layout/table-layout.js';
import type { PageDetail } from '../heap/inspect.js';
import type { ColumnType, TypeInfo } from '../config/column-types.js';
import type { ComparisonRule } from './comparison.js';
import type { LobStore } from './lob.js';
import type { PageReads } from '../heap/page-reads.js';

export type { ComparisonRule };

/** A format, or a table in a format, has no reserve knob the estimator can tune: why, as "expected …". */
export class KnobError extends Error {}

/** A value of the reserve knob as written in a config or a DBMS command. */
export type Setting = number | 'max';
export type SpecialName = 'pack' | 'default' | 'max' | 'current';

export interface SpecialSetting {
  name: SpecialName;
  /** What is written in the config / the DBMS command. */
  setting: Setting;
  /** Where it sits on the knob's numeric axis (ASE: the resolved bytes). */
  value: number;
  label: string;
}

/** The one setting of a format that leaves room on a page for rows to grow (exp_row_size, fillfactor, PCTFREE). */
export interface ReserveKnob {
  format: FormatId;
  /** The engine setting the knob is (exp_row_size, fillfactor, pctfree …); `none`: a format with no reserve setting the estimate can only describe (SQL Server heaps). */
  key: keyof EngineSettings | 'none';
  /** Smallest and largest value the DBMS accepts for this table. */
  min: number;
  max: number;
  /** true: a larger value reserves more room (exp_row_size, pctfree); false: less (fillfactor). */
  moreReserveWhenLarger: boolean;
  specials: SpecialSetting[];
  /** The value that packs pages full where no special is named `pack` (PostgreSQL: fillfactor 100, its default). */
  packValue?: number;
  /** The engine settings with this knob set. */
  engineWith(base: EngineSpec, setting: Setting): EngineSpec;
  /** Commands that apply `value` to table `table`, and what they do and do not change. */
  commands(table: string, value: number): { commands: string[]; note: string };
  /** The reorganisation whose cost is reported (ASE: reorg forwarded_rows and its exclusive table locks). */
  reorg?: ReorgKind;
  /** How a row that no longer fits is counted: "forwarded" (ASE, SQL Server), "migrated" (Oracle), … */
  movedWord: string;
  /** The engine metric the target applies to: forwarded_rows (ASE; migrated rows on Oracle) or, on
   *  PostgreSQL, newpage_updates (updates whose new version went to another page: not HOT). */
  movedMetric: 'forwarded_rows' | 'newpage_updates';
}

/**
 * The pages a format spends on keeping track of pages (results.json `allocation_pages.by_kind`): ASE's
 * OAM and allocation pages; SQL Server's IAM, PFS, GAM and SGAM pages; PostgreSQL's free space map and
 * visibility map forks; Oracle's segment header and ASSM bitmap blocks.
 */
type AllocationPageKind = 'oam' | 'allocation' | 'iam' | 'pfs' | 'gam' | 'sgam' | 'fsm' | 'vm' | 'segment_header' | 'bitmap_blocks';
export type AllocationPageCounts = Partial<Record<AllocationPageKind, number>>;

/** What a format's allocation overhead is computed from: the table's data pages, each index's pages, the engine's counters. */
export interface AllocationInput {
  pageBytes: number;
  dataPages: number;
  indexPages: Readonly<Record<string, number>>;
  metrics: EngineMetrics;
}

/**
 * Values a format moves out of the row into a relation of its own (PostgreSQL's TOAST relation), and
 * compresses on the way: it decides how many bytes each row takes on its page, given what the row's
 * values were stored as before, and keeps that relation's pages. The runner sizes a row with it, tells
 * it when the engine took the row (apply), and passes on deletes, transaction ends and reorganisations.
 */
export interface OutOfLineStore {
  /**
   * Bytes a new row takes on its page, its varying lengths lens[base …] and each column's value's
   * compressibility (in 64ths, src/config/spec.ts) levels[levelBase + column] (null: nothing compresses).
   * What happens to its values is kept until apply().
   */
  sizeInsert(row: number, lens: Uint16Array, base: number, levels: Uint8Array | null, levelBase: number): number;
  /** Bytes the row takes after an update that gave the columns flagged in `changed` (by column position) new values. */
  sizeUpdate(row: number, lens: Uint16Array, base: number, levels: Uint8Array | null, levelBase: number, changed: Uint8Array): number;
  /** The engine took the row as last sized: its values move out of line (and those it replaced are deleted). */
  apply(): void;
  delete(row: number): void;
  commit(): void;
  /** After the engine's reorganisation of the table; `liveRows` lists the live rows in the order it left them on its pages. */
  reorg(kind: ReorgKind, liveRows: () => Int32Array): void;
  /**
   * Before a rebuild: the rows in the order the rewrite reads them, their values saved afresh into a new
   * relation (PostgreSQL's rewrite runs the toaster on each row again); `resize(row, bytes)` gets each
   * row's new size on its page. reorg('rebuild') then does nothing more.
   */
  rebuild?(
    rows: Int32Array,
    lens: Uint16Array,
    width: number,
    levels: Uint8Array | null,
    ncols: number,
    resize: (row: number, bytes: number) => void,
  ): void;
  /**
   * The whole lengths of large-object values, by varying column and row, where the runner keeps them
   * (the row store caps lengths at 65,534 bytes): out-of-line values are stored whole.
   */
  useWholeLengths?(lobs: ReadonlyMap<number, Uint32Array>): void;
  /** The relation's figures, added to a phase's metrics (docs/results.md). */
  metrics(): Record<string, number>;
  memoryBytes(): number;
}

/** Values a format keeps off the row's page (SQL Server ROW_OVERFLOW_DATA). */
export interface OffRowStore {
  /** Bytes the row's off-row records take (0 when the row fits in-row). */
  recordBytes(lens: Uint16Array, base: number): number;
  /** Pages those records take in all. */
  pages(recordBytes: number): number;
}

/** The periodic cure and the change of setting, with what they cost (each cost cites its source). */
export interface MaintenanceCommands {
  periodic: string;
  /** The periodic cure rewrites the table (one lock) rather than moving forwarded rows home. */
  periodicRebuilds: boolean;
  change: string[];
  costs: string[];
}

/** A part of the page header, as the format's documentation names it. */
export interface HeaderPart {
  label: string;
  bytes: number;
}

/** What a format's page is made of, apart from its rows. */
export interface PageAnatomy {
  /** "SAP ASE data-only-locked data page", "PostgreSQL heap page" … */
  title: string;
  header: HeaderPart[];
  /** The slot array's name ("row offset table", "line pointers", "slot array", "row directory"), its entry size and where it is. */
  /** The slot array: `entryBytes` a slot, a slot per `recordsPerSlot` records (InnoDB's page directory: 2 bytes per 4–8 records, counted at 4); default 1. */
  slotArray: { name: string; entryBytes: number; at: 'end' | 'after-header'; firstSlot: number; recordsPerSlot?: number };
  /** Bytes at the end of the page that are not rows (PostgreSQL special space, Oracle's tail). */
  trailer?: HeaderPart;
  /** The line inserts stop at (PostgreSQL fillfactor, Oracle PCTFREE): free bytes kept for updates. */
  fillLine?: { label: string; keepFreeBytes: number };
  /** What a row that moved away from home leaves behind, and is called ("forwarding stub", "forwarding pointer", "migrated row" …). */
  words: {
    stub: string;
    forwarded: string;
    reservation?: string;
    /** What the trace says a row that no longer fits does: forwarded, migrated. */ move?: string;
    /** The stub, short: stub, head piece. */ stubShort?: string;
    /** What the slot entries are, when not the slot array's ("records in key order"). */ entries?: string;
    /** The free bytes between rows, when the DBMS names them (InnoDB PAGE_GARBAGE): in the legend, and short ("in PAGE_GARBAGE"). */
    holes?: string;
    holesShort?: string;
    /** A new version of a row takes a slot entry of its own (PostgreSQL's line pointer): the trace quotes a page's room after it. */
    versionTakesSlot?: boolean;
  };
  /** The engine's page band as the DBMS's tools show it (SQL Server PFS). */
  band?: (detail: PageDetail) => string;
  notes: string[];
}

/** What the estimator knows of a table when a format advises on its other space settings. */
export interface AlternativesInput {
  table: string;
  pageBytes: number;
  /** Data pages at the current setting and at the recommendation, with the forwarded rows at each. */
  current: { setting: string; pages: number; forwarded: number };
  recommended: { setting: string; value: number; pages: number; forwarded: number };
  /** Rows a page holds at the recommendation while rows are shorter than it (the reservation's step). */
  rowsPerPage: number;
  /** The table's own reservepagegap, where its DDL states one. */
  reservepagegap?: number;
}

/**
 * A storage format: who it is, what it declares to the registry, and its mechanics in named groups
 * (src/formats/README.md). A new format supplies every group; an optional member left out means the
 * format has not got the thing (no reserve knob, no off-row pages …).
 */
export interface StorageFormat {
  // ---- who it is ----------------------------------------------------------------------------------
  readonly id: FormatId;
  readonly title: string;
  /** The DBMS whose tables this format models (the DDL dialect and the evidence files of that DBMS belong to it). */
  readonly dbms: DdlDbms;
  /** The DBMS's name in messages: SAP ASE, SQL Server, PostgreSQL, Oracle (formats of one DBMS agree). */
  readonly dbmsName: string;
  /** The DBA's tool outputs of this format's DBMS the estimator reads (optdiag, the DMV, pgstattuple …). */
  readonly evidence: readonly EvidenceKind[];

  // ---- what it declares: the registry merges these across formats (settings, DDL, column types) -----
  readonly defaultPageBytes: number;
  /** Page sizes the format accepts. */
  readonly pageSizes: readonly number[];
  /**
   * The engine settings this format declares, as a zod fragment of `engine:` (the config loader joins the
   * formats' fragments with src/config/schema.ts commonEngineSettingsShape). Two formats that read one
   * setting share one fragment; the module adds the fragment's output to FormatSettings.
   */
  readonly settingsShape?: SettingsFragment;
  /** Engine keys this format uses; other given keys are ignored with a note. */
  readonly settings: readonly (keyof EngineSettings)[];
  /** Defaults of the settings this format owns (the registry checks that no two formats disagree). */
  readonly defaults: Partial<EngineSettings>;
  /** The storage clauses of this format's DDL (src/config/ddl-clauses.ts): the DDL reader reads every format's. */
  readonly ddl?: DdlClauses;
  /** The `lock` schemes of an ASE DDL that mean this format (a DDL's lock clause must name one of them). */
  readonly ddlLocks?: readonly string[];
  /** Column types this format's DBMS has beyond the common ones of src/config/column-types.ts (the registry adds them). */
  readonly columnTypes?: Readonly<Record<string, TypeInfo>>;
  /** The encoding this format stores a config's `encoding` in (rowsize and estimate carry one table
   *  across formats; an encoding a format has not got maps to the nearest it has). */
  encodingFor(encoding: Encoding): Encoding;
  /** Check and resolve format-specific settings; throws EngineSettingError. */
  resolve(engine: EngineSpec, layout: TableLayout): ResolvedEngine;
  /** Notes for the output: settings that are accepted but have no effect, assumptions. */
  notes(engine: EngineSpec, resolved: ResolvedEngine): string[];

  // ---- its mechanics and its words, in groups ------------------------------------------------------
  /** The table's rows: their layout and bytes, and the checks on its columns. */
  readonly rows: FormatRows;
  /** The page engine: pages, what a page is made of, the memory a row's state takes. */
  readonly pages: FormatPages;
  /** Reads: comparisons, counters, large objects. */
  readonly reads: FormatReads;
  /** The table's indexes: their geometry and settings. */
  readonly indexes: FormatIndexes;
  /** Pages beside the data and index pages: allocation maps, off-row and out-of-line values. */
  readonly allocation: FormatAllocation;
  /** The reserve knob the estimator tunes, and what a DBA runs to change it or cure the table. */
  readonly knob: FormatKnob;
  /** What the reports call things, and the counters they show. */
  readonly words: FormatWords;
}

/** StorageFormat.rows: the table's rows, their layout and bytes, and the checks on its columns. */
export interface FormatRows {
  layout(table: TableDef, engine: EngineSpec): TableLayout;
  /**
   * The layout with the given varying columns (column index → bytes) fixed at those sizes, for a run
   * that never changes their lengths (workload/constant-columns.ts): only where rowBytes, logicalBytes
   * and the index entries count a column the same whether its length is stored per row or fixed.
   */
  constantLayout?(table: TableDef, engine: EngineSpec, constant: ReadonlyMap<number, number>): TableLayout;
  /**
   * Physical bytes of the row whose varying lengths are lens[base .. base + varying.length).
   * `logical`, when given, is logicalBytes() of the same row, for formats that can reuse it.
   */
  rowBytes(layout: TableLayout, lens: Uint16Array, base: number, logical?: number): number;
  /** Logical bytes: data only, without row overhead. */
  logicalBytes(layout: TableLayout, lens: Uint16Array, base: number): number;
  /** The format reads a column's `storage` (PostgreSQL's SET STORAGE); elsewhere it is ignored with a note. */
  readonly columnStorage?: boolean;
  /** Check a column's `storage` against the column's type; throws EngineSettingError naming the key. */
  checkColumn?(column: ColumnDef): void;
  /**
   * A limit the server enforces at CREATE TABLE beyond rows fitting a page (SQL Server's minimum row
   * size, the most columns a table may have): what it refuses, as "expected …, found …"; undefined when
   * the server creates the table.
   */
  tableLimit?(table: TableDef, layout: TableLayout): string | undefined;
  /**
   * A row of `bytes` the engine refused (longer than a page takes) where the server fails the statement
   * rather than skipping the row: the server's error in its words, and the run stops there (exit 2);
   * undefined: the row is counted rejected (rows_rejected, updates_rejected).
   */
  refusal?(layout: TableLayout, bytes: number): string | undefined;
}

/** StorageFormat.pages: the page engine. */
export interface FormatPages {
  createEngine(layout: TableLayout, resolved: ResolvedEngine, spec: StorageSpec, rowCapacity: number): StorageEngine;
  /** What the format's data page is made of, for the page drawings (rowsim page, trace, report.html). */
  pageAnatomy(layout: TableLayout, engine: EngineSpec): PageAnatomy;
  /** Bytes of engine state per simulated row (the memory check before a run). */
  readonly engineRowBytes: number;
  /** Bytes more a row when versions die (updates or deletes): PostgreSQL's line pointer arrays and chain roots. */
  readonly churnRowBytes?: number;
  /** A reorganisation that does nothing on this format: the note that says so (else undefined). */
  reorgNote(kind: ReorgKind): string | undefined;
}

/** StorageFormat.reads: what reads cost and count. */
export interface FormatReads {
  /** `column = @parameter` with a parameter of type `parameter`: which side the DBMS converts, and whether an index on the column can still be sought. */
  comparison(column: ColumnDef, parameter: ColumnType, engine: EngineSpec): ComparisonRule;
  /** A read phase's counters under the names the DBMS's own statistics use (forwarded_fetch_count, table fetch continued row, heap_blks_read …). */
  readCounters(reads: PageReads): Record<string, number>;
  /** Where the format keeps large-object values out of row, for read_lob phases; undefined: not modelled for this format. */
  lobStore?(layout: TableLayout, engine: EngineSpec): LobStore;
  /** Bytes a row of state the engine keeps in addition when the workload has read phases (the memory check). */
  readonly readRowBytes: number;
}

/** StorageFormat.indexes: the table's indexes. */
export interface FormatIndexes {
  /** How entries of `index` are sized and paged (columns: the key columns' positions in the table). */
  indexGeometry(table: TableDef, layout: TableLayout, index: IndexDef, columns: number[]): IndexGeometry;
  /** MVCC: every update that is not heap-only adds an entry to every index, VACUUM removes dead ones. */
  readonly versionedIndexes: boolean;
  /** The per-index settings this format reads; an index's other settings are ignored with a note. */
  readonly indexSettings: readonly IndexOptionKey[];
  /** Check an index's settings against the format's own ranges; throws EngineSettingError naming the key. */
  checkIndex?(index: IndexDef): void;
  /** What the format does with the table's indexes, where it is not the obvious (a clustered index it does not keep). */
  indexNotes?(table: TableDef): string[];
}

/** StorageFormat.allocation: pages beside the data and index pages. */
export interface FormatAllocation {
  /**
   * Pages spent on keeping track of the table's and indexes' pages, by kind, apart from data and index
   * pages: ASE OAM and allocation pages, SQL Server IAM/PFS/GAM/SGAM, PostgreSQL's FSM and VM forks,
   * Oracle segment headers and ASSM bitmap blocks.
   */
  allocationPages(input: AllocationInput): AllocationPageCounts;
  /** Where the table's rows can put values off-row on pages of their own (SQL Server row-overflow): how they are counted. */
  offRow?(layout: TableLayout): OffRowStore | undefined;
  /** The relation the table's values move out of line to, where it has one (PostgreSQL's TOAST relation). */
  outOfLine?(layout: TableLayout, spec: StorageSpec, rowCapacity: number): OutOfLineStore | undefined;
}

/** StorageFormat.knob: the reserve knob and the estimator's maintenance advice. */
export interface FormatKnob {
  /** The knob the estimator tunes, or undefined with `noKnob` saying why. */
  reserveKnob?(layout: TableLayout, engine: EngineSpec): ReserveKnob;
  readonly noKnob?: string;
  /** The resolved engine setting shown as a point's reserve (exp_row_size, fillfactor, pctfree). */
  readonly reserveSetting?: string;
  /** The unit of that setting, as axes and columns show it: bytes (exp_row_size) or % of the page (fillfactor, PCTFREE). */
  readonly reserveUnit?: 'bytes' | '%';
  /** What a DBA runs to cure forwarding, and to change the setting: the estimator's maintenance what-if. */
  maintenance?(table: string, value: number): MaintenanceCommands;
  /** The command that rewrites the table so a new setting applies to its existing pages, and what space it needs, with its source. */
  rebuild?(table: string): { command: string; needs: string; indexesToo: boolean };
  /** The estimator's word on this DBMS's other space settings for a table (ASE reservepagegap, max_rows_per_page). */
  estimateAlternatives?(input: AlternativesInput): string[];
  /**
   * Where the format has no reserve knob but its sorted rebuild packs pages to a setting (InnoDB's
   * innodb_fill_factor): the estimator finds the fullest value after which the story's growth causes no
   * `overflowMetric` (page splits), and prints `apply`.
   */
  readonly rebuildFill?: RebuildFill;
  /** The column whose insert order decides how full pages stay (the clustered key): the estimator compares ascending and random. */
  keyOrderColumn?(table: TableDef): string | undefined;
}

/** StorageFormat.knob.rebuildFill: the setting a sorted rebuild fills pages to, its range and commands. */
export interface RebuildFill {
  readonly key: string;
  readonly min: number;
  readonly max: number;
  readonly step: number;
  readonly overflowMetric: string;
  /** The engine settings for a rebuild at `value` (a setting it needs beside it: InnoDB's MERGE_THRESHOLD below it). */
  engineWith(engine: EngineSpec, value: number): EngineSpec;
  apply(table: string, value: number, engine: EngineSpec): string[];
  /** The manual that says what the setting does. */
  readonly source: string;
}

/** StorageFormat.words: what the reports call things, and the counters they show. */
export interface FormatWords {
  /** What the DBMS calls a row's address: RID, ctid, ROWID … */
  readonly rowIdName: string;
  /** What rowBytes measures, for the reports: "physical" or how the format's length differs from what its tools report. */
  readonly rowBytesAre: string;
  /** The counters worth a column in the summary's per-phase table. */
  readonly phaseMetrics: readonly string[];
  /** How an update that no longer fits where the row was is counted, and called. */
  readonly movedRows: {
    metric: 'forwarded_rows' | 'newpage_updates';
    word: string;
    /** the word in a narrow column: "fwd", "migr." */ short: string;
  };
  /** Updates that kept the row on its page where the DBMS counts them under a name of its own (PostgreSQL's
   *  HOT updates): the reports show their share of all updates instead of forwarded rows the format has not got. */
  readonly keptUpdates?: { metric: 'hot_updates'; word: string };
}

/** Defaults of the settings every format reads the same way (the database character set). */
export const COMMON_DEFAULTS: Pick<EngineSettings, 'encoding' | 'multibyte_share' | 'multibyte_widths'> = Object.freeze({
  encoding: 'latin1',
  multibyte_share: 0,
  multibyte_widths: Object.freeze({}),
});

/** Engines with no UTF-16 database character set store a utf16 config's char/varchar as utf8. */
export function withoutUtf16(encoding: Encoding): Encoding {
  return encoding === 'utf16' ? 'utf8' : encoding;
}
