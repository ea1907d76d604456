/**
 * Result sets as psql prints them, for pgstattuple and pg_stat_user_tables:
 *
 * - aligned (the default):  ` table_len | tuple_count | …`, a `----+----` rule, rows, `(1 row)`;
 * - expanded (`\x`):        `-[ RECORD 1 ]----`, then `table_len          | 458752` per column;
 * - unaligned (`-A`) or CSV (`--csv`): a header line and rows separated by `|` or `,`.
 *
 * Each value keeps its line and column. Pure.
 */
import type { InputProblem } from '../../config/errors.js';
import { parseCsv, type Cell } from './csv.js';
import { at, numberedLines, parseFigure } from './types.js';

/** One result row: column name (lower case) → its cell. */
export type PsqlRecord = Map<string, Cell>;

/** Split a line on `|` keeping each trimmed cell's column. */
function pipeCells(text: string, line: number): Cell[] {
  const out: Cell[] = [];
  let start = 0;
  for (const part of text.split('|')) {
    const lead = part.length - part.trimStart().length;
    out.push({ text: part.trim(), line, column: start + lead + 1 });
    start += part.length + 1;
  }
  return out;
}

function expanded(lines: { line: number; text: string }[]): PsqlRecord[] {
  const out: PsqlRecord[] = [];
  let cur: PsqlRecord | undefined;
  for (const l of lines) {
    if (/^-\[ RECORD \d+ \]/.test(l.text)) {
      cur = new Map();
      out.push(cur);
      continue;
    }
    if (!cur || !l.text.includes('|')) continue;
    const [k, ...rest] = pipeCells(l.text, l.line);
    const v = rest.length === 1 ? rest[0]! : { text: rest.map((c) => c.text).join('|'), line: l.line, column: rest[0]!.column };
    cur.set(k!.text.toLowerCase(), v);
  }
  return out;
}

function aligned(lines: { line: number; text: string }[], headerAt: number): PsqlRecord[] {
  const header = pipeCells(lines[headerAt]!.text, lines[headerAt]!.line).map((c) => c.text.toLowerCase());
  const out: PsqlRecord[] = [];
  for (const l of lines.slice(headerAt + 1)) {
    if (/^[-+\s]+$/.test(l.text) || l.text.trim() === '' || /^\(\d+ rows?\)$/.test(l.text.trim())) continue;
    const cells = pipeCells(l.text, l.line);
    const rec: PsqlRecord = new Map();
    header.forEach((h, i) => {
      if (cells[i]) rec.set(h, cells[i]!);
    });
    out.push(rec);
  }
  return out;
}

/**
 * The records of psql output. `expect` names a column the header must have (to find the header line
 * among a prompt, the query echoed and notices).
 */
export function parsePsql(text: string, file: string, expect: string): { records?: PsqlRecord[]; problems: InputProblem[] } {
  const lines = numberedLines(text);
  if (lines.some((l) => /^-\[ RECORD \d+ \]/.test(l.text))) return { records: expanded(lines), problems: [] };
  const headerAt = lines.findIndex((l) => l.text.split(/[|,]/).some((c) => c.trim().toLowerCase() === expect));
  if (headerAt < 0)
    return {
      problems: [at(file, 1, 1, `expected psql output with a ${expect} column (aligned, expanded \\x, unaligned or --csv), found none`)],
    };
  const h = lines[headerAt]!.text;
  if (h.includes('|')) return { records: aligned(lines, headerAt), problems: [] };
  const { table, problems } = parseCsv(
    lines
      .slice(headerAt)
      .map((l) => l.text)
      .join('\n'),
    file,
  );
  if (!table) return { problems };
  const shift = headerAt;
  const names = table.header.map((c) => c.text.toLowerCase());
  const records = table.rows.map((row) => {
    const rec: PsqlRecord = new Map();
    names.forEach((n, i) => {
      if (row[i]) rec.set(n, { ...row[i]!, line: row[i]!.line + shift });
    });
    return rec;
  });
  return { records, problems: [] };
}

/** A whole number ≥ 0 from a record, or a problem at its cell (or at `where` when the column is missing). */
export function recordNumber(
  rec: PsqlRecord,
  name: string,
  file: string,
  where: { line: number },
  problems: InputProblem[],
  optional = false,
): { value: number; line: number } | undefined {
  const cell = rec.get(name);
  if (!cell) {
    if (!optional) problems.push(at(file, where.line, 1, `expected a ${name} column, found none`));
    return undefined;
  }
  const v = parseFigure(cell.text);
  if (v === undefined || v < 0) {
    problems.push(at(file, cell.line, cell.column, `expected a number ≥ 0 for ${name}, found "${cell.text}"`));
    return undefined;
  }
  return { value: v, line: cell.line };
}
