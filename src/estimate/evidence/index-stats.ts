/**
 * SQL Server's sys.dm_db_index_physical_stats rows for a heap, saved as CSV with a header line:
 *
 *   SELECT OBJECT_NAME(object_id) AS table_name, * FROM sys.dm_db_index_physical_stats
 *     (DB_ID(), OBJECT_ID('dbo.titles'), 0, NULL, 'DETAILED');
 *
 * The heap is index_id 0 (index_type_desc HEAP), its rows in the IN_ROW_DATA allocation unit, one per
 * partition: their page_count, record_count and forwarded_record_count are summed; the record sizes
 * are record-weighted. On a heap, record_count counts a forwarded row twice (the forwarding stub at
 * home and the forwarded record) [heaps][fwd]: the live rows are record_count − forwarded_record_count,
 * and the average record size includes the 9-byte stubs [fwd], which are taken out [dmv]. In LIMITED mode
 * the record figures are NULL: the reader asks for SAMPLED or DETAILED.
 */
import type { InputProblem } from '../../config/errors.js';
import { columnIndex, parseCsv, type Cell } from './csv.js';
import { at, emptyEvidence, parseFigure, type Figure, type ReadOutcome } from './types.js';

/** The forwarding stub SQL Server leaves at home: 9 bytes [fwd] (src/formats/sqlserver.ts has the same figure). */
const DMV_FORWARDING_STUB_BYTES = 9;

const NEEDED = ['page_count', 'record_count', 'forwarded_record_count', 'avg_record_size_in_bytes'] as const;
const OPTIONAL = ['min_record_size_in_bytes', 'max_record_size_in_bytes', 'ghost_record_count', 'compressed_page_count'] as const;

type Sums = Map<string, { sum: number; weighted: number; min: number; max: number; first: Cell }>;
type Csv = NonNullable<ReturnType<typeof parseCsv>['table']>;

export function parseIndexPhysicalStats(text: string, file: string, table?: string): ReadOutcome {
  const { table: csv, problems } = parseCsv(text, file);
  if (!csv) return { problems };
  const col = (name: string) => columnIndex(csv.header, name);
  const missing = NEEDED.filter((n) => col(n) < 0);
  if (missing.length) {
    const message = `expected a header naming the columns of sys.dm_db_index_physical_stats (${NEEDED.join(', ')}, and index_id), found none of ${missing.join(', ')}`;
    return { problems: [at(file, csv.header[0]!.line, 1, message)] };
  }
  const heapRows = heapRowsOf(csv, col);
  if (heapRows.length === 0) {
    const ids = [...new Set(csv.rows.map((r) => r[col('index_id')]?.text ?? '?'))].join(', ');
    const line = csv.rows[0]?.[0]?.line ?? csv.header[0]!.line;
    const found = csv.rows.length ? `only index_id ${ids} (a table with a clustered index has no forwarded records)` : 'no rows';
    return { problems: [at(file, line, 1, `expected a row of the heap (index_id 0, IN_ROW_DATA), found ${found}`)] };
  }
  const nameCol = ['table_name', 'object_name', 'name'].map(col).find((i) => i >= 0);
  const out: InputProblem[] = nameCol === undefined ? [] : oneTable(heapRows, nameCol, file);
  const sums: Sums = new Map();
  for (const r of heapRows) {
    if (r.length !== csv.header.length) {
      const c = r[Math.min(r.length, csv.header.length) - 1]!;
      out.push(at(file, c.line, c.column, `expected ${csv.header.length} values as the header names, found ${r.length}`));
      continue;
    }
    addRow(r, col, sums, file, out);
  }
  if (out.length) return { problems: out };
  return heapEvidence(sums, heapRows.length, file, table, nameCol === undefined ? undefined : heapRows[0]![nameCol]);
}

/** The heap's in-row rows (index_id 0, IN_ROW_DATA), one per partition. */
function heapRowsOf(csv: Csv, col: (name: string) => number): Cell[][] {
  const idxId = col('index_id');
  const unit = col('alloc_unit_type_desc');
  return csv.rows.filter(
    (r) => (idxId < 0 || r[idxId]?.text === '0') && (unit < 0 || (r[unit]?.text ?? '').toUpperCase() === 'IN_ROW_DATA'),
  );
}

/** Rows of two tables; one other table's name is refused by the cross-checks (consistency.ts), which name the DDL too. */
function oneTable(heapRows: Cell[][], nameCol: number, file: string): InputProblem[] {
  const key = (r: Cell[]) => (r[nameCol]?.text ?? '').replace(/^.*\./, '').toLowerCase();
  const other = heapRows.find((r) => key(r) !== key(heapRows[0]!));
  if (!other) return [];
  const first = heapRows[0]![nameCol]!;
  const cell = other[nameCol]!;
  return [
    at(file, cell.line, cell.column, `expected the heap rows of one table (${first.text}, line ${first.line}), found "${cell.text}"`),
  ];
}

/** One heap row's figures added to the sums (and record-weighted sums) across partitions; a bad needed figure is a problem. */
function addRow(r: Cell[], col: (name: string) => number, sums: Sums, file: string, out: InputProblem[]): void {
  const records = parseFigure(r[col('record_count')]!.text) ?? 0;
  for (const name of [...NEEDED, ...OPTIONAL]) {
    const i = col(name);
    if (i < 0) continue;
    const cell = r[i]!;
    const v = parseFigure(cell.text);
    if (v === undefined || v < 0) {
      const hint =
        /^null$/i.test(cell.text) || cell.text === '' ? ' (NULL in LIMITED mode: run the function with mode SAMPLED or DETAILED)' : '';
      if ((NEEDED as readonly string[]).includes(name))
        out.push(at(file, cell.line, cell.column, `expected a number ≥ 0 for ${name}, found "${cell.text}"${hint}`));
      continue;
    }
    const s = sums.get(name) ?? { sum: 0, weighted: 0, min: Infinity, max: 0, first: cell };
    s.sum += v;
    s.weighted += v * records;
    s.min = Math.min(s.min, v);
    s.max = Math.max(s.max, v);
    sums.set(name, s);
  }
}

function heapEvidence(
  sums: Map<string, { sum: number; weighted: number; min: number; max: number; first: Cell }>,
  partitions: number,
  file: string,
  table: string | undefined,
  nameCell: Cell | undefined,
): ReadOutcome {
  const ev = emptyEvidence();
  const fig = (name: string, value: number): Figure => ({
    value,
    kind: 'index_physical_stats',
    label: name,
    file,
    line: sums.get(name)!.first.line,
  });
  const records = sums.get('record_count')!.sum;
  const forwarded = sums.get('forwarded_record_count')!.sum;
  const rows = records - forwarded;
  if (rows < 0) {
    const c = sums.get('forwarded_record_count')!.first;
    return {
      problems: [at(file, c.line, c.column, `expected forwarded_record_count at most record_count (${records}), found ${forwarded}`)],
    };
  }
  ev.rows = fig('record_count', rows);
  ev.rows.label = 'record_count − forwarded_record_count';
  ev.pages = fig('page_count', sums.get('page_count')!.sum);
  ev.forwarded = fig('forwarded_record_count', forwarded);
  // The average over all records includes the stubs: take them out to get the average row.
  const avgAll = records > 0 ? sums.get('avg_record_size_in_bytes')!.weighted / records : 0;
  ev.avgRowBytes = fig('avg_record_size_in_bytes', rows > 0 ? (avgAll * records - DMV_FORWARDING_STUB_BYTES * forwarded) / rows : 0);
  const min = sums.get('min_record_size_in_bytes');
  const max = sums.get('max_record_size_in_bytes');
  // With forwarded records, the smallest record is a stub: not a row's size.
  if (min && forwarded === 0) ev.minRowBytes = fig('min_record_size_in_bytes', min.min);
  if (max) ev.maxRowBytes = fig('max_record_size_in_bytes', max.max);
  ev.records = fig('record_count', records);
  ev.recordBytes = {
    avg: fig('avg_record_size_in_bytes', avgAll),
    ...(min ? { min: fig('min_record_size_in_bytes', min.min) } : {}),
    ...(max ? { max: fig('max_record_size_in_bytes', max.max) } : {}),
  };
  const compressed = sums.get('compressed_page_count');
  if (compressed) ev.compressedPages = fig('compressed_page_count', compressed.sum);
  const ghosts = sums.get('ghost_record_count');
  if (ghosts && ghosts.sum > 0)
    ev.notes.push(`sys.dm_db_index_physical_stats: ${ghosts.sum} ghost records (deleted, not yet cleaned up) are not counted as rows`);
  if (partitions > 1) ev.notes.push(`sys.dm_db_index_physical_stats: the heap's ${partitions} partitions are summed`);
  ev.notes.push(
    'sys.dm_db_index_physical_stats: live rows = record_count − forwarded_record_count (a forwarded row is two records: the stub at home and the row)',
  );
  if (nameCell) ev.table = { name: nameCell.text.replace(/^.*\./, ''), kind: 'index_physical_stats', file, line: nameCell.line };
  else if (table) ev.notes.push(`sys.dm_db_index_physical_stats: the CSV names no table (no table_name column): taken as table ${table}`);
  return { evidence: ev, problems: [] };
}
