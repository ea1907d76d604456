/**
 * sp_spaceused's output for one table, as isql or sqlcmd prints it (SAP ASE and SQL Server):
 *
 *   name     rowtotal  reserved  data     index_size  unused        (SQL Server: rows)
 *   -------- --------- --------- -------- ----------- --------
 *   titles   4959      1424 KB   1310 KB  48 KB       66 KB
 *
 * Columns may be separated by blanks, tabs, `|` or commas; each size carries its unit (KB; MB and GB
 * are accepted). `sp_spaceused titles, 1` prints an index block first: it is read past. The data size
 * becomes pages with the config's page size (src/estimate/evidence/merge.ts). The rows column's name
 * tells whose output it is: rowtotal (ASE) or rows (SQL Server).
 */
import type { InputProblem } from '../../config/errors.js';
import { at, emptyEvidence, numberedLines, parseFigure, type ReadOutcome } from './types.js';

const SIZE_COLUMNS = ['reserved', 'data', 'index_size', 'unused'] as const;
const UNIT_KB: Record<string, number> = { KB: 1, MB: 1024, GB: 1024 * 1024 };

/** Cells of a line with their 1-based columns; a size (`1310 KB`) is one cell. */
function cells(text: string): { text: string; column: number }[] {
  const out: { text: string; column: number }[] = [];
  const re = /[^\s|,]+(?:\s+(?:KB|MB|GB)\b)?/gi;
  for (const m of text.matchAll(re)) out.push({ text: m[0], column: m.index + 1 });
  return out;
}

export function parseSpaceused(text: string, file: string, _table?: string): ReadOutcome {
  const lines = numberedLines(text);
  const headerAt = lines.findIndex((l) => {
    const words = l.text
      .toLowerCase()
      .split(/[\s|,]+/)
      .filter(Boolean);
    return words[0] === 'name' && (words.includes('rowtotal') || words.includes('rows')) && SIZE_COLUMNS.every((c) => words.includes(c));
  });
  if (headerAt < 0) {
    const db = lines.find((l) => /\bdatabase_name\b/i.test(l.text));
    const msg = db
      ? 'expected sp_spaceused of one table (sp_spaceused titles), found the database summary (database_name, database_size)'
      : 'expected the output of sp_spaceused <table>: a header line with name, rowtotal (or rows), reserved, data, index_size, unused, found none';
    return { problems: [at(file, db?.line ?? 1, 1, msg)] };
  }
  const header = lines[headerAt]!;
  const names = header.text
    .toLowerCase()
    .split(/[\s|,]+/)
    .filter(Boolean);
  const row = lines.slice(headerAt + 1).find((l) => l.text.trim() !== '' && !/^[\s\-|+=]+$/.test(l.text));
  if (!row) return { problems: [at(file, header.line, 1, 'expected a line of figures under the sp_spaceused header, found none')] };
  const values = cells(row.text);
  if (values.length !== names.length) {
    return {
      problems: [
        at(
          file,
          row.line,
          values[Math.min(values.length, names.length) - 1]?.column ?? 1,
          `expected ${names.length} values (${names.join(', ')}), found ${values.length}: "${row.text.trim()}"`,
        ),
      ],
    };
  }
  const problems: InputProblem[] = [];
  const ev = emptyEvidence();
  const cell = (name: string) => values[names.indexOf(name)]!;
  const nameCell = cell('name');
  // Another table's name is refused by the cross-checks (consistency.ts), which name the table's DDL too.
  ev.table = { name: nameCell.text.replace(/^.*\./, ''), kind: 'sp_spaceused', file, line: row.line };
  const rowsName = names.includes('rowtotal') ? 'rowtotal' : 'rows';
  ev.server =
    rowsName === 'rowtotal' ? { dbms: 'ase', sign: 'rowtotal', line: header.line } : { dbms: 'sqlserver', sign: 'rows', line: header.line };
  const rowsCell = cell(rowsName);
  const rows = parseFigure(rowsCell.text);
  if (rows === undefined || rows < 0 || !Number.isInteger(rows))
    problems.push(at(file, row.line, rowsCell.column, `expected a whole number of rows in ${rowsName}, found "${rowsCell.text}"`));
  else ev.rows = { value: rows, kind: 'sp_spaceused', label: rowsName, file, line: row.line };
  for (const col of SIZE_COLUMNS) {
    const c = cell(col);
    const m = /^(\d+(?:\.\d+)?)\s*(KB|MB|GB)$/i.exec(c.text);
    if (!m) {
      problems.push(at(file, row.line, c.column, `expected ${col} as a size such as 1310 KB, found "${c.text}"`));
      continue;
    }
    const kb = Number(m[1]) * UNIT_KB[m[2]!.toUpperCase()]!;
    const fig = { value: kb, kind: 'sp_spaceused' as const, label: col, file, line: row.line };
    if (col === 'data') ev.dataKB = fig;
    else if (col === 'reserved') ev.reservedKB = fig;
    else if (col === 'unused') ev.unusedKB = fig;
    else ev.indexKB = fig;
  }
  if (problems.length) return { problems };
  return { evidence: ev, problems: [] };
}
