/**
 * A small CSV reader for result sets saved from a client (SSMS "Save Results As", sqlcmd -s ",",
 * psql --csv): a header line of column names, then rows; fields may be "quoted" (with "" for a quote);
 * `,`, `;` or tab separate them (the header's separator is used throughout). Each cell keeps its
 * 1-based line and column.
 */
import type { InputProblem } from '../../config/errors.js';
import { at } from './types.js';

export interface Cell {
  text: string;
  line: number;
  column: number;
}

interface CsvTable {
  header: Cell[];
  rows: Cell[][];
}

function splitLine(text: string, line: number, sep: string): Cell[] {
  const cells: Cell[] = [];
  let i = 0;
  for (;;) {
    while (text[i] === ' ') i++;
    const start = i;
    let value = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) break;
        if (text[i] === '"' && text[i + 1] === '"') {
          value += '"';
          i += 2;
        } else if (text[i] === '"') {
          i++;
          break;
        } else value += text[i++];
      }
      while (i < text.length && text[i] !== sep) i++;
    } else {
      while (i < text.length && text[i] !== sep) value += text[i++];
    }
    cells.push({ text: value.trim(), line, column: start + 1 });
    if (i >= text.length) return cells;
    i++;
  }
}

/** Parse CSV text; blank lines and `#` comments are skipped. */
export function parseCsv(text: string, file: string): { table?: CsvTable; problems: InputProblem[] } {
  const lines = text.split(/\r?\n/);
  let headerLine = lines.findIndex((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  if (headerLine < 0) return { problems: [at(file, 1, 1, 'expected a header line of column names, found an empty file')] };
  const raw = lines[headerLine]!;
  const sep = [',', ';', '\t'].map((s) => ({ s, n: raw.split(s).length })).sort((a, b) => b.n - a.n)[0]!.s;
  const header = splitLine(raw, headerLine + 1, sep);
  const rows: Cell[][] = [];
  for (let i = headerLine + 1; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() === '' || l.trim().startsWith('#') || /^\(\d+ rows? affected\)$/i.test(l.trim())) continue;
    rows.push(splitLine(l, i + 1, sep));
  }
  headerLine++;
  return { table: { header, rows }, problems: [] };
}

/** The index of a column by name (case-insensitive, surrounding brackets ignored). */
export function columnIndex(header: Cell[], name: string): number {
  return header.findIndex((c) => c.text.replace(/^\[|\]$/g, '').toLowerCase() === name);
}
