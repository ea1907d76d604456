/**
 * optdiag's text output (`optdiag statistics db..table -U… -o file`): the table-level statistics
 * ("Statistics for table:": Data page count, Empty data page count, Data row count, Forwarded row
 * count, Deleted row count, Data row size …) and, where present, per-column statistics ("Statistics
 * for column:" with Average column width, and the histogram's NULL step) [U][V][R10]. Partitions
 * ("Statistics for partition:") are summed when the table block lacks a figure. Other sections
 * (indexes, histograms' other steps, derived statistics) are read past.
 *
 * "Data row size" is the average data row length including the row overhead [V]: the caller turns it
 * into data bytes with the format's own row model.
 */
import type { InputProblem } from '../../config/errors.js';
import {
  at,
  emptyEvidence,
  numberedLines,
  parseFigure,
  type ColumnFigure,
  type Evidence,
  type Figure,
  type PartitionFigures,
  type ReadOutcome,
} from './types.js';

/** Table-level rows optdiag prints, by the Evidence field they fill. */
const TABLE_FIGURES: Record<string, keyof Pick<Evidence, 'pages' | 'emptyPages' | 'rows' | 'forwarded' | 'deleted' | 'avgRowBytes'>> = {
  'data page count': 'pages',
  'empty data page count': 'emptyPages',
  'data row count': 'rows',
  'forwarded row count': 'forwarded',
  'deleted row count': 'deleted',
  'data row size': 'avgRowBytes',
};

interface Block {
  kind: 'table' | 'partition' | 'column' | 'other';
  name: string;
  line: number;
  figures: Map<string, { text: string; line: number; column: number }>;
  /** Histogram steps whose value is NULL: their weights. */
  nullWeight?: number;
}

/** `Label:   value` with the value's column; labels are compared in lower case. */
function labelled(text: string): { label: string; value: string; column: number } | undefined {
  const m = /^\s*([A-Za-z][A-Za-z0-9 +/().'-]*?):\s+(\S.*?)\s*$/.exec(text);
  if (!m) return undefined;
  return { label: m[1]!.trim().toLowerCase(), value: m[2]!, column: text.indexOf(m[2]!, text.indexOf(':')) + 1 };
}

function quoted(value: string): string {
  const m = /^"([^"]*)"/.exec(value.trim());
  return m ? m[1]! : value.trim();
}

/** The blocks of the output: one per "Table name:" / "Statistics for …:" header. */
function blocks(text: string): { tables: { name: string; line: number; blocks: Block[] }[] } {
  const tables: { name: string; line: number; blocks: Block[] }[] = [];
  let current: Block | undefined;
  const table = () => {
    if (tables.length === 0) tables.push({ name: '', line: 1, blocks: [] });
    return tables[tables.length - 1]!;
  };
  for (const { line, text: raw } of numberedLines(text)) {
    const l = labelled(raw);
    if (l?.label === 'table name') {
      tables.push({ name: quoted(l.value), line, blocks: [] });
      current = undefined;
      continue;
    }
    const header = l && /^statistics for (table|partition|column|column group|index)$/.exec(l.label);
    if (header) {
      const kind = header[1] === 'table' ? 'table' : header[1] === 'partition' ? 'partition' : header[1] === 'column' ? 'column' : 'other';
      current = { kind, name: quoted(l.value), line, figures: new Map() };
      table().blocks.push(current);
      continue;
    }
    if (l?.label === 'histogram for column' || (l && /^no statistics for/.test(l.label))) {
      // A histogram belongs to the column block of the same name; "No statistics" ends the blocks.
      const col = table().blocks.find((b) => b.kind === 'column' && b.name === quoted(l.value));
      current = col ?? { kind: 'other', name: '', line, figures: new Map() };
      continue;
    }
    if (!current) continue;
    if (l) {
      if (!current.figures.has(l.label)) current.figures.set(l.label, { text: l.value, line, column: l.column });
      continue;
    }
    // A histogram step: `  1   0.10000000   =   NULL`.
    const step = /^\s*\d+\s+([0-9.]+)\s+(<=|<|=)\s+NULL\s*$/i.exec(raw);
    if (step && current.kind === 'column') current.nullWeight = (current.nullWeight ?? 0) + Number(step[1]);
  }
  return { tables };
}

/** Read optdiag's text; `table` picks the table when the output holds several. */
export function parseOptdiag(text: string, file: string, table?: string): ReadOutcome {
  const { tables } = blocks(text);
  const withStats = tables.filter((t) => t.blocks.some((b) => b.kind === 'table' || b.kind === 'partition'));
  if (withStats.length === 0) {
    return {
      problems: [
        at(
          file,
          1,
          1,
          'expected optdiag statistics output (a "Statistics for table:" block with Data page count, Data row count, Forwarded row count …), found none',
        ),
      ],
    };
  }
  let chosen = withStats[0]!;
  // One table of another name is taken: the cross-checks (consistency.ts) refuse it, naming the DDL too.
  if (withStats.length > 1) {
    const match = withStats.find((t) => (t.name || t.blocks[0]!.name).toLowerCase() === table?.toLowerCase());
    if (!match) {
      const names = withStats.map((t) => `"${t.name || t.blocks[0]!.name}"`).join(', ');
      return { problems: [at(file, chosen.line, 1, `expected the statistics of table ${table ?? '(one table)'}, found ${names}`)] };
    }
    chosen = match;
  }
  return tableEvidence(chosen, file);
}

function tableEvidence(t: { name: string; line: number; blocks: Block[] }, file: string): ReadOutcome {
  const problems: InputProblem[] = [];
  const ev = emptyEvidence();
  const tableBlock = t.blocks.find((b) => b.kind === 'table');
  const parts = t.blocks.filter((b) => b.kind === 'partition');
  const name = t.name || tableBlock?.name || parts[0]?.name || '';
  const first = tableBlock ?? parts[0]!;
  if (name) ev.table = { name, kind: 'optdiag', file, line: t.name ? t.line : first.line };
  for (const [label, field] of Object.entries(TABLE_FIGURES)) {
    const fig = figureOf(tableBlock, parts, label, file, problems);
    if (fig) ev[field] = fig;
  }
  if (tableBlock === undefined && parts.length > 1)
    ev.notes.push(`optdiag: the table figures are the sums of ${parts.length} partitions (Data row size: their row-weighted average)`);
  if (problems.length) return { problems };
  const need = ['rows', 'pages', 'avgRowBytes'] as const;
  const missing = need.filter((k) => ev[k] === undefined).map((k) => Object.keys(TABLE_FIGURES).find((l) => TABLE_FIGURES[l] === k)!);
  if (missing.length) {
    return {
      problems: [
        at(
          file,
          first.line,
          1,
          `expected optdiag's table statistics to give ${missing.map((m) => `"${m.replace(/^./, (c) => c.toUpperCase())}"`).join(', ')}, found none in the block that starts here`,
        ),
      ],
    };
  }
  const rows = ev.rows!;
  if (ev.forwarded && ev.forwarded.value > rows.value)
    problems.push(
      at(
        file,
        ev.forwarded.line,
        1,
        `expected a Forwarded row count of at most the Data row count (${rows.value}, line ${rows.line}), found ${ev.forwarded.value}`,
      ),
    );
  if (rows.value > 0 && ev.avgRowBytes!.value <= 0)
    problems.push(
      at(
        file,
        ev.avgRowBytes!.line,
        1,
        `expected a Data row size above 0 for a table of ${rows.value} rows, found ${ev.avgRowBytes!.value}`,
      ),
    );
  if (rows.value > 0 && ev.pages!.value <= 0)
    problems.push(
      at(file, ev.pages!.line, 1, `expected a Data page count above 0 for a table of ${rows.value} rows, found ${ev.pages!.value}`),
    );
  if (problems.length) return { problems };
  const columns = columnFigures(t.blocks, file, problems);
  if (problems.length) return { problems };
  if (columns.length) ev.columns = columns;
  if (parts.length > 1) {
    const partitions = partitionFigures(parts, ev, file, problems);
    if (problems.length) return { problems };
    if (partitions) ev.partitions = partitions;
  }
  return { evidence: ev, problems: [] };
}

/**
 * Each partition's own figures, when every partition block gives its rows, pages and row size. Their
 * rows, pages and forwarded rows must add up to the table's (a table block of another time would not).
 */
function partitionFigures(parts: Block[], ev: Evidence, file: string, problems: InputProblem[]): PartitionFigures[] | undefined {
  const out: PartitionFigures[] = [];
  for (const b of parts) {
    const fig = (label: string) => figureOf(b, [], label, file, problems);
    const rows = fig('data row count');
    const pages = fig('data page count');
    const avgRowBytes = fig('data row size');
    if (!rows || !pages || !avgRowBytes) return undefined;
    const p: PartitionFigures = { name: b.name, line: b.line, rows, pages, avgRowBytes };
    const forwarded = fig('forwarded row count');
    const emptyPages = fig('empty data page count');
    if (forwarded) p.forwarded = forwarded;
    if (emptyPages) p.emptyPages = emptyPages;
    out.push(p);
  }
  for (const key of ['rows', 'pages', 'forwarded'] as const) {
    const total = ev[key];
    if (!total || out.some((p) => p[key] === undefined)) continue;
    const sum = out.reduce((s, p) => s + p[key]!.value, 0);
    if (Math.abs(sum - total.value) > Math.max(1, 1e-6 * total.value)) {
      problems.push(
        at(
          file,
          total.line,
          1,
          `expected the table's ${total.label} to be the sum of its ${out.length} partitions' (lines ${out.map((p) => p[key]!.line).join(', ')}): ${sum}, found ${total.value}: the two cannot both be true (blocks of different times?)`,
        ),
      );
    }
  }
  return out;
}

/** One table figure: from the table block, else summed over the partitions (Data row size: row-weighted). */
function figureOf(
  tableBlock: Block | undefined,
  parts: Block[],
  label: string,
  file: string,
  problems: InputProblem[],
): Figure | undefined {
  const read = (b: Block): { value: number; line: number } | undefined => {
    const f = b.figures.get(label);
    if (!f) return undefined;
    const v = parseFigure(f.text);
    if (v === undefined || v < 0) {
      problems.push(
        at(file, f.line, f.column, `expected a number ≥ 0 for ${label.replace(/^./, (c) => c.toUpperCase())}, found "${f.text}"`),
      );
      return undefined;
    }
    return { value: v, line: f.line };
  };
  const nice = label.replace(/^./, (c) => c.toUpperCase());
  const own = tableBlock ? read(tableBlock) : undefined;
  if (own) return { value: own.value, kind: 'optdiag', label: nice, file, line: own.line };
  const values = parts.map(read);
  if (values.length === 0 || values.some((v) => v === undefined)) return undefined;
  if (label === 'data row size') {
    const rows = parts.map((b) => parseFigure(b.figures.get('data row count')?.text ?? '') ?? 0);
    const total = rows.reduce((s, r) => s + r, 0);
    const avg = total > 0 ? values.reduce((s, v, i) => s + v!.value * rows[i]!, 0) / total : 0;
    return { value: avg, kind: 'optdiag', label: nice, file, line: values[0]!.line };
  }
  return { value: values.reduce((s, v) => s + v!.value, 0), kind: 'optdiag', label: nice, file, line: values[0]!.line };
}

function columnFigures(all: Block[], file: string, problems: InputProblem[]): ColumnFigure[] {
  const out: ColumnFigure[] = [];
  for (const b of all) {
    if (b.kind !== 'column') continue;
    const c: ColumnFigure = { name: b.name, line: b.line };
    const w = b.figures.get('average column width');
    if (w) {
      const v = parseFigure(w.text);
      if (v === undefined || v < 0)
        problems.push(at(file, w.line, w.column, `expected a number ≥ 0 for Average column width, found "${w.text}"`));
      else c.avgWidth = v;
    }
    if (b.nullWeight !== undefined) c.nullShare = Math.min(1, b.nullWeight);
    if (c.avgWidth !== undefined || c.nullShare !== undefined) out.push(c);
  }
  return out;
}
