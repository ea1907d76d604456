/**
 * Tables for the terminal: as wide as the terminal (COLUMNS, else the terminal's width, else 100
 * characters). Columns that do not fit are left out, the least important first (a column whose cells are
 * all zero or empty before any other), and the table says how many with `--wide` to show them all. A
 * cell too long for its share of the width wraps (cli-table3).
 */
import { createRequire } from 'node:module';

type TableClass = typeof import('cli-table3');

/**
 * cli-table3 (CommonJS), required on the first table: the worker threads of a run import the report
 * modules for their figures and drawings and never print a table, so they do not load it.
 */
let TableCtor: TableClass | undefined;
function tableClass(): TableClass {
  return (TableCtor ??= createRequire(import.meta.url)('cli-table3') as TableClass);
}

export interface TableColumn {
  title: string;
  align?: 'left' | 'right';
  /** 1: always shown; larger: left out sooner when the table is too wide. */
  priority?: number;
  /** The title may take several lines, a word a line, where the cells are narrower ("exp_row_size (bytes)"). */
  wrapTitle?: boolean;
}

/** The width a column's title needs: all of it, or its longest word when it may wrap. */
function titleWidth(c: TableColumn): number {
  return c.wrapTitle ? Math.max(...c.title.split(' ').map((w) => w.length)) : c.title.length;
}

export interface TableOptions {
  /** Characters available (default: terminalWidth()). */
  width?: number;
  /** Show every column, whatever the width. */
  wide?: boolean;
}

const DEFAULT_TERMINAL_WIDTH = 100;
const GAP = 2;
/** The narrowest a wrapped column gets. */
const MIN_WRAP_WIDTH = 12;

/** COLUMNS when set, else the terminal's width, else 100. */
function terminalWidth(): number {
  const env = Number(process.env.COLUMNS);
  if (Number.isInteger(env) && env > 20) return env;
  const tty = process.stdout.isTTY ? process.stdout.columns : undefined;
  return tty && tty > 20 ? tty : DEFAULT_TERMINAL_WIDTH;
}

const BLANK = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: ' '.repeat(GAP),
};

/** Which columns to show: all with `wide`; else the priority-1 columns, then others by priority (all-empty ones last) while they fit. */
function chooseColumns(columns: TableColumn[], rows: string[][], width: number, wide: boolean): number[] {
  if (wide) return columns.map((_, i) => i);
  const natural = columns.map((c, i) => Math.max(titleWidth(c), ...rows.map((r) => (r[i] ?? '').length)));
  const empty = (i: number) => rows.every((r) => /^(0|0%|)$/.test((r[i] ?? '').trim()));
  const rank = (i: number) => (columns[i]!.priority ?? 1) + (empty(i) ? 100 : 0);
  const chosen = columns.map((_, i) => i).filter((i) => (columns[i]!.priority ?? 1) === 1);
  let used = chosen.reduce((s, i) => s + natural[i]!, 0) + GAP * Math.max(0, chosen.length - 1);
  const rest = columns
    .map((_, i) => i)
    .filter((i) => !chosen.includes(i))
    .sort((a, b) => rank(a) - rank(b) || a - b);
  for (const i of rest) {
    if (used + GAP + natural[i]! > width) continue;
    chosen.push(i);
    used += GAP + natural[i]!;
  }
  return chosen.sort((a, b) => a - b);
}

/** A borderless table: header, a rule of dashes, rows; fitted to the width unless `wide`. */
export function terminalTable(columns: TableColumn[], rows: string[][], options: TableOptions = {}): string {
  const width = options.width ?? terminalWidth();
  const wide = options.wide ?? false;
  const shown = chooseColumns(columns, rows, width, wide);
  const natural = shown.map((i) =>
    Math.max(wide ? columns[i]!.title.length : titleWidth(columns[i]!), ...rows.map((r) => (r[i] ?? '').length)),
  );
  // Wrap the widest columns when the shown ones still exceed the width (a long label, a list in a cell).
  const colWidths = [...natural];
  if (!wide) {
    let total = colWidths.reduce((s, w) => s + w, 0) + GAP * (colWidths.length - 1);
    while (total > width) {
      const widest = colWidths.indexOf(Math.max(...colWidths));
      if (colWidths[widest]! <= MIN_WRAP_WIDTH) break;
      const cut = Math.min(total - width, colWidths[widest]! - MIN_WRAP_WIDTH);
      colWidths[widest]! -= cut;
      total -= cut;
    }
  }
  const Table = tableClass();
  const table = new Table({
    chars: BLANK,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    colWidths,
    colAligns: shown.map((i) => columns[i]!.align ?? (i === 0 ? 'left' : 'right')),
    wordWrap: true,
  });
  table.push(shown.map((i) => columns[i]!.title));
  table.push(colWidths.map((w) => '-'.repeat(w)));
  for (const r of rows) table.push(shown.map((i) => r[i] ?? ''));
  const lines = table
    .toString()
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''));
  const hidden = columns.length - shown.length;
  if (hidden > 0)
    lines.push(
      `(${hidden} more column${hidden > 1 ? 's' : ''}: ${columns
        .filter((_, i) => !shown.includes(i))
        .map((c) => c.title)
        .join(', ')}; --wide shows them)`,
    );
  return lines.join('\n');
}
