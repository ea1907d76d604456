/**
 * `rowsim rowsize config.yaml | table.sql`: one row per engine format: row bytes (min/avg/max over the
 * generated rows), rows per page, heap pages and bytes for N rows, index entry bytes and index pages.
 * The rows are the config's first insert phase (its value distributions), or declared maximum lengths
 * for a .sql file; the table is loaded by the same runner as `rowsim run`.
 */
import { readInputText } from '../config/read.js';
import { errorText, InputError, UserError } from '../config/errors.js';
import { configDocuments } from '../loader/source.js';
import { loadConfig } from '../loader/config.js';
import { checkRunLimits } from './limits.js';
import type { FormatId } from '../config/schema.js';
import type { EngineSpec, PhaseSpec, StorageSpec, TableDef, ValueSpec } from '../config/spec.js';
import { engineForFormat, FORMAT_IDS, getFormat, indexGeometries } from '../formats/registry.js';
import type { TableLayout } from '../layout/table-layout.js';
import { textTable, fmt } from '../report/tables.js';
import { terminalTable, type TableColumn, type TableOptions } from '../report/terminal.js';
import { DdlError, parseDdl } from '../table/ddl.js';
import { runStorage, type StorageRunResult } from '../workload/runner.js';
import { IndexEntryRefusal, serverText } from '../workload/index-refusal.js';
import type { IndexPages } from '../btree/geometry.js';
import type { AllocationPages } from '../workload/runner.js';
import { groupedNumber } from '../util/numbers.js';
import { scaledRun } from './rowsize-scale.js';

interface RowsizeRow {
  format: FormatId;
  page_size: number;
  row_bytes: { min: number; avg: number; max: number; schema_min: number; schema_max: number };
  rows_per_page: number;
  rows: number;
  pages: number;
  bytes: number;
  index_entry_bytes: Record<string, number>;
  index_pages: IndexPages;
  index_bytes: number;
  /** Allocation overhead apart from data and index pages (OAM, IAM/PFS/GAM/SGAM, FSM/VM, segment headers and bitmap blocks), not in total_bytes. */
  allocation_pages: AllocationPages;
  allocation_bytes: number;
  total_bytes: number;
  /** What row_bytes measure in this format. */
  row_bytes_are: string;
  notes: string[];
}

interface RowsizeOptions {
  rows?: number;
  json?: boolean;
  formats?: FormatId[];
  /** Every column of the table, whatever the terminal width. */
  wide?: boolean;
}

const DEFAULT_ROWS = 1_000_000;

/**
 * The rows rowsize simulates at most: a table of n rows is sized from a sample when n rows would be more
 * than this many column values (rows × columns) or, for rows over 1 KiB, data bytes (rows × its longest
 * row's, before any compression: the work a format's toaster does), then scaled to n
 * (scaledRun). Narrow tables up to a few million rows are simulated whole; a wide one answers in about a
 * second whatever n is (docs/engines.md, rowsim rowsize).
 */
const SAMPLE_CELLS = 4_000_000;
const SAMPLE_BYTES = 32 * 1024 * 1024;
const MIN_SAMPLE_ROWS = 200;
/** Rows up to this many data bytes cost by their values, not their bytes (no toaster, no overflow pages). */
const SHORT_ROW_BYTES = 1024;

/** The rows to simulate for n rows of a table of `columns` columns whose longest row holds `maxDataBytes`. */
export function sampleRows(n: number, columns: number, maxDataBytes: number): number {
  const byCells = Math.floor(SAMPLE_CELLS / Math.max(1, columns));
  const budget = maxDataBytes <= SHORT_ROW_BYTES ? byCells : Math.min(byCells, Math.floor(SAMPLE_BYTES / maxDataBytes));
  return Math.min(n, Math.max(MIN_SAMPLE_ROWS, budget));
}

interface Source {
  name: string;
  seed: number;
  table: TableDef;
  engine?: EngineSpec;
  values: Record<string, ValueSpec>;
  rows?: number;
}

/**
 * The tables of a file: a .sql file, a config, or a YAML file of several configs separated by `---`
 * (one table each; rowsize sums the documents whose names share the part before the first dot).
 */
function readSources(file: string, options: RowsizeOptions): Source[] {
  if (/\.sql$/i.test(file)) return [readSource(file)];
  return configDocuments(file).map((text) => readSource(file, text, options));
}

function readSource(file: string, text?: string, options: RowsizeOptions = {}): Source {
  if (/\.sql$/i.test(file)) {
    const read = readInputText(file);
    if (!read.ok) throw new InputError([{ file, message: `expected ${read.problem}` }]);
    const sql = read.text;
    try {
      const t = parseDdl(sql);
      return { name: t.name, seed: 42, table: { name: t.name, columns: t.columns, indexes: t.indexes }, values: {} };
    } catch (err) {
      if (err instanceof DdlError) throw new InputError([{ file, line: err.line, column: err.column, message: err.message }]);
      throw err;
    }
  }
  const cfg = loadConfig(file, text);
  // The config's row count is simulated unless --rows says otherwise: it must fit in memory.
  if (options.rows === undefined) checkRunLimits(cfg, { workers: 1 });
  const point = cfg.storage[0];
  if (!point)
    throw new InputError([{ file, message: 'expected a storage config (table, engine, workload) or a .sql file, found neither' }]);
  const ins = point.spec.workload.find((p): p is Extract<PhaseSpec, { op: 'insert' }> => p.op === 'insert');
  return {
    name: point.spec.name,
    seed: point.spec.seed,
    table: point.spec.table,
    engine: point.spec.engine,
    values: ins?.values ?? {},
    rows: ins && ins.rows.kind === 'count' ? ins.rows.n : undefined,
  };
}

/** A format the table's rows cannot be stored in, and why. */
interface RowsizeSkipped {
  format: FormatId;
  reason: string;
}

function rowsizeRows(src: Source, options: RowsizeOptions): { rows: RowsizeRow[]; skipped: RowsizeSkipped[]; requested: number } {
  const n = options.rows ?? src.rows ?? DEFAULT_ROWS;
  const rows: RowsizeRow[] = [];
  const skipped: RowsizeSkipped[] = [];
  for (const format of options.formats ?? [...FORMAT_IDS]) {
    const r = rowsizeOf(src, format, n);
    if ('reason' in r) skipped.push(r);
    else rows.push(r);
  }
  if (rows.length === 0) {
    throw new UserError(`${src.name}: ${skipped.map((k) => `${k.format}: ${k.reason}`).join('; ')}`);
  }
  return { rows, skipped, requested: n };
}

/** The table's n rows inserted in one format: its row, page and index sizes, or why it has none there. */
function rowsizeOf(src: Source, format: FormatId, n: number): RowsizeRow | RowsizeSkipped {
  const engine = engineForFormat(src.engine, format);
  const f = getFormat(format);
  const layout = f.rows.layout(src.table, engine);
  const simulated = sampleRows(n, layout.columns.length, Math.max(layout.logicalMaxBytes, layout.maxRowBytes));
  const spec: StorageSpec = {
    name: src.name,
    seed: src.seed,
    table: src.table,
    engine,
    workload: [{ op: 'insert', rows: { kind: 'count', n: simulated }, values: src.values, transaction: 'statement', rollback: false }],
  };
  const page = layout.geometry.pageBytes;
  // A table whose shortest row is longer than a page takes has no size in this format: say so
  // instead of simulating a million refused inserts.
  if (layout.minRowBytes > layout.geometry.maxRowBytes) {
    return {
      format,
      reason: `no row of table ${src.table.name} fits a ${page}-byte page: the shortest row takes ${layout.minRowBytes} bytes, a page at most ${layout.geometry.maxRowBytes}`,
    };
  }
  let r: StorageRunResult;
  try {
    r = scaledRun(runStorage(spec), simulated, n, { format: f, layout, geoms: indexGeometries(f, spec.table, layout) });
  } catch (err) {
    // The rows load, then CREATE INDEX fails on an entry over the index's limit: no size in this format.
    if (!(err instanceof IndexEntryRefusal)) throw err;
    const e = err.refusal;
    return { format, reason: `CREATE INDEX ${e.index} fails after the load: ${serverText(e)} (row ${e.row})` };
  }
  const geoms = indexGeometries(f, spec.table, layout);
  const rejected = r.final.rows_rejected;
  if (n > 0 && rejected === n)
    return {
      format,
      reason: `every row of table ${src.table.name} is longer than a ${page}-byte page takes (at most ${layout.geometry.maxRowBytes} bytes)`,
    };
  const notes = [...refusedNotes(format, n, rejected, layout.geometry.maxRowBytes), ...r.notes];
  return rowsizeRow(format, f.words.rowBytesAre, layout, r, indexEntryBytes(layout, geoms), notes);
}

/** Why some rows were refused, as the DBMS would: too long for a page. */
function refusedNotes(format: FormatId, n: number, rejected: number, maxRowBytes: number): string[] {
  if (rejected === 0) return [];
  return [
    `${fmt(rejected)} of ${fmt(n)} rows are longer than a ${format} page takes (${maxRowBytes} bytes) and were refused, as the DBMS would`,
  ];
}

/** Entry bytes of an average-shaped row in each index: the first generated row's key (keys are usually fixed-size). */
function indexEntryBytes(layout: TableLayout, geoms: ReturnType<typeof indexGeometries>): Record<string, number> {
  const probe = new Uint16Array(Math.max(1, layout.varying.length));
  layout.varying.forEach((c, i) => (probe[i] = c.variableType ? Math.min(c.maxBytes, 0xfffe) : c.fixedBytes));
  const entry: Record<string, number> = Object.create(null);
  for (const g of geoms) entry[g.name] = g.leafTupleBytes(probe, 0) + g.slotBytes;
  return entry;
}

function rowsizeRow(
  format: FormatId,
  rowBytesAre: RowsizeRow['row_bytes_are'],
  layout: TableLayout,
  r: ReturnType<typeof runStorage>,
  entry: Record<string, number>,
  notes: string[],
): RowsizeRow {
  const page = layout.geometry.pageBytes;
  const pages = r.final.pages;
  const indexBytes = r.index_pages.total * page;
  const bytes = pages * page;
  const { min, avg, max, schema_min, schema_max } = r.row_bytes;
  return {
    format,
    page_size: page,
    row_bytes: { min, avg, max, schema_min, schema_max },
    rows_per_page: pages > 0 ? Math.round((r.final.rows / pages) * 100) / 100 : 0,
    rows: r.final.rows,
    pages,
    bytes,
    index_entry_bytes: entry,
    index_pages: r.index_pages,
    index_bytes: indexBytes,
    allocation_pages: r.allocation_pages,
    allocation_bytes: r.allocation_pages.total * page,
    total_bytes: bytes + indexBytes,
    row_bytes_are: rowBytesAre,
    notes,
  };
}

function mb(bytes: number): string {
  return `${groupedNumber(bytes / (1024 * 1024), 1)} MiB`;
}

/** The table's columns, and how soon each is left out of a narrow terminal (1: never). */
const ROWSIZE_COLUMNS: TableColumn[] = [
  { title: 'format', align: 'left', priority: 1 },
  { title: 'page', priority: 3 },
  { title: 'row min', priority: 3 },
  { title: 'row avg', priority: 2 },
  { title: 'row max', priority: 3 },
  { title: 'rows/page', priority: 1 },
  { title: 'pages', priority: 1 },
  { title: 'heap', priority: 1 },
  { title: 'index entry bytes', align: 'left', priority: 4 },
  { title: 'index pages', priority: 2 },
  { title: 'index levels', align: 'left', priority: 4 },
  { title: 'indexes', priority: 2 },
  { title: 'allocation', priority: 3 },
  { title: 'total', priority: 1 },
];

function rowsizeText(table: string, rows: RowsizeRow[], skipped: RowsizeSkipped[] = [], options: TableOptions = {}, requested = 0): string {
  const body = rows.map((r) => [
    r.format,
    fmt(r.page_size),
    fmt(r.row_bytes.min),
    fmt(r.row_bytes.avg),
    fmt(r.row_bytes.max),
    fmt(r.rows_per_page),
    fmt(r.pages),
    mb(r.bytes),
    Object.entries(r.index_entry_bytes)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
    fmt(r.index_pages.total),
    Object.entries(r.index_pages.levels)
      .map(([k, v]) => `${k} ${v}`)
      .join(', '),
    mb(r.index_bytes),
    `${fmt(r.allocation_pages.total)} p.`,
    mb(r.total_bytes),
  ]);
  const n = Math.max(0, ...rows.map((r) => r.rows));
  const lines = [
    `${table}: ${fmt(n)} rows; row bytes are physical (with row overhead, without the slot/line pointer); index entry bytes include it; total is heap + indexes, allocation pages (OAM, IAM/PFS/GAM/SGAM, FSM/VM, segment headers) apart`,
    terminalTable(ROWSIZE_COLUMNS, body, options),
  ];
  for (const r of rows) if (r.row_bytes_are !== 'physical') lines.push(`${r.format}: row bytes are ${r.row_bytes_are}`);
  for (const k of skipped) lines.push(`${k.format}: not shown: ${k.reason}`);
  // Rows a format refused (too long for its page): its first notes say so.
  for (const r of rows)
    if (r.rows < Math.max(n, requested)) lines.push(...r.notes.filter((x) => x.includes('were refused')).map((x) => `${r.format}: ${x}`));
  return lines.join('\n');
}

interface RowsizeTotal {
  group: string;
  format: FormatId;
  heap_bytes: number;
  index_bytes: number;
  total_bytes: number;
}

/** Sum heap and index bytes per format over the tables of a group (the name before its first dot). */
function rowsizeTotals(tables: { name: string; rows: RowsizeRow[] }[]): RowsizeTotal[] {
  const out = new Map<string, RowsizeTotal>();
  for (const t of tables) {
    const group = t.name.split('.')[0]!;
    for (const r of t.rows) {
      const key = `${group}\u0000${r.format}`;
      const cur = out.get(key) ?? { group, format: r.format, heap_bytes: 0, index_bytes: 0, total_bytes: 0 };
      cur.heap_bytes += r.bytes;
      cur.index_bytes += r.index_bytes;
      cur.total_bytes += r.total_bytes;
      out.set(key, cur);
    }
  }
  return [...out.values()];
}

export function rowsizeCommand(file: string, options: RowsizeOptions): number {
  try {
    const sources = readSources(file, options);
    const tables = sources.map((src) => {
      const { rows, skipped, requested } = rowsizeRows(src, options);
      return { name: src.name, table: src.table.name, rows, skipped, requested };
    });
    const totals = tables.length > 1 ? rowsizeTotals(tables) : [];
    if (options.json) {
      const body =
        tables.length === 1
          ? { table: tables[0]!.table, rows: tables[0]!.rows, skipped: tables[0]!.skipped }
          : { tables: tables.map(({ requested: _, ...t }) => t), totals };
      process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    } else {
      const parts = tables.map((t) =>
        rowsizeText(tables.length > 1 ? `${t.name} (${t.table})` : t.table, t.rows, t.skipped, { wide: options.wide }, t.requested),
      );
      if (totals.length) {
        parts.push(
          'totals (heap + indexes, per group of documents):',
          textTable(
            ['group', 'format', 'heap', 'indexes', 'total'],
            totals.map((t) => [t.group, t.format, mb(t.heap_bytes), mb(t.index_bytes), mb(t.total_bytes)]),
          ),
        );
      }
      process.stdout.write(`${parts.join('\n\n')}\n`);
    }
    return 0;
  } catch (err) {
    if (err instanceof InputError) {
      process.stderr.write(`${errorText(err.message)}\n`);
      return 2;
    }
    throw err;
  }
}
