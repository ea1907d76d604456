/**
 * The row-length model from the DBA's measurements (src/estimate/length-model.ts), most specific first:
 * optdiag's per-column statistics, the average row the tools report (optdiag's Data row size, the DMV's
 * avg_record_size_in_bytes, pgstattuple's tuple_len ÷ tuple_count, each less the format's row overhead),
 * the DMV's smallest and largest records, and the DDL's range. Every input is listed with where it came
 * from, so the estimate can say what was measured and what was assumed. Figures that cannot all be true
 * (column widths that add up to more than the average row) are problems naming both places.
 */
import type { InputProblem } from '../config/errors.js';
import type { TableDef } from '../config/spec.js';
import type { StorageFormat } from '../formats/format.js';
import type { TableLayout } from '../layout/table-layout.js';
import type { Measurements } from '../estimate/evidence/merge.js';
import type { ColumnFigure, Figure } from '../estimate/evidence/types.js';
import { columnModel, type LengthModel } from '../estimate/length-model.js';
import { dataLengthFor, dataLengthRange } from '../estimate/rows.js';
import type { EstimateSource, ModelInput } from '../estimate/types.js';
import { groupedNumber } from '../util/numbers.js';

/** Column widths may add up to this much more than the average data row (rounding of each width, the overhead model) before they contradict it. */
const WIDTH_SLACK_BYTES = 2;
const WIDTH_SLACK_SHARE = 0.02;

interface Ctx {
  table: TableDef;
  layout: TableLayout;
  format: StorageFormat;
}

type Outcome = { source: Extract<EstimateSource, { kind: 'evidence' }>; notes: string[] } | { problems: InputProblem[] };

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

function where(f: { file: string; line: number }): string {
  return `${f.file}:${f.line}`;
}

/** The file the column statistics were read from: optdiag's (every column figure has its line there). */
function columnsFile(ev: Measurements): string {
  const f = [ev.avgRowBytes, ev.rows, ev.pages].find((x) => x?.kind === 'optdiag');
  return f?.file ?? 'optdiag';
}

/** Column statistics for varying columns, and those for the table's fixed NOT NULL columns (checked, not modelled). */
function usableColumns(ev: Measurements, layout: TableLayout): ColumnFigure[] {
  const names = new Set(layout.columns.map((c) => c.name.toLowerCase()));
  return (ev.columns ?? []).filter((c) => c.avgWidth !== undefined && names.has(c.name.toLowerCase()));
}

/** The average data row: Σ Average column width when every column has one, else the average row less the overhead. */
function averageRow(ev: Measurements, ctx: Ctx, cols: ColumnFigure[], inputs: ModelInput[], notes: string[]): number {
  const phys = ev.avgRowBytes!;
  const fromRow = dataLengthFor(ctx.format, ctx.layout, phys.value);
  const all = ctx.table.columns.every((c) => cols.some((x) => x.name.toLowerCase() === c.name.toLowerCase()));
  if (all && cols.length) {
    const sum = cols.reduce((s, c) => s + c.avgWidth!, 0);
    notes.push(
      `the average data row (${round1(sum)} bytes) is the sum of optdiag's Average column width of every column; ${phys.label} ${round1(phys.value)} less the row overhead gives ${round1(fromRow)}`,
    );
    inputs.push({
      name: 'average row now',
      value: `${round1(sum)} data bytes`,
      how: 'measured',
      from: `the sum of every column's Average column width (${columnsFile(ev)})`,
    });
    return sum;
  }
  inputs.push({
    name: 'average row now',
    value: `${round1(fromRow)} data bytes (${phys.label} ${round1(phys.value)} less ${ctx.format.id}'s row overhead)`,
    how: 'measured',
    from: `${phys.kind} ${where(phys)}`,
  });
  return fromRow;
}

/** Column widths that add up to more than the average row cannot all be true. */
function widthsFit(ev: Measurements, ctx: Ctx, cols: ColumnFigure[], avg: number): InputProblem[] {
  const fixedNames = new Set(ctx.layout.columns.filter((c) => !c.varying).map((c) => c.name.toLowerCase()));
  const varying = cols.filter((c) => !fixedNames.has(c.name.toLowerCase()));
  const sum = ctx.layout.fixedNotNullBytes + varying.reduce((s, c) => s + c.avgWidth!, 0);
  if (sum <= avg * (1 + WIDTH_SLACK_SHARE) + WIDTH_SLACK_BYTES) return [];
  const phys = ev.avgRowBytes!;
  const file = columnsFile(ev);
  const first = varying.reduce((a, b) => (b.line < a.line ? b : a));
  return [
    {
      file,
      line: first.line,
      column: 1,
      message:
        `expected Average column widths that fit in the average row, found ${varying.map((c) => `${c.name} ${round1(c.avgWidth!)}`).join(', ')} ` +
        `(with the fixed-length NOT NULL columns' ${ctx.layout.fixedNotNullBytes} bytes: ${round1(sum)} data bytes), but ${phys.label} ${round1(phys.value)} (${where(phys)}) ` +
        `leaves ${round1(avg)} data bytes a row on ${ctx.format.id}: the two cannot both be true (statistics of another time or table?)`,
    },
  ];
}

function columnInputs(model: LengthModel, ev: Measurements, cols: ColumnFigure[], inputs: ModelInput[]): void {
  const file = columnsFile(ev);
  for (const c of model.columns ?? []) {
    const stat = cols.find((x) => x.name.toLowerCase() === c.name.toLowerCase());
    const value = `${round1((1 - c.nullShare) * c.mean)} bytes a row on average${c.nullShare > 0 ? ` (NULL in ${round1(100 * c.nullShare)}% of rows)` : ''}, at most ${c.hi}`;
    if (stat)
      inputs.push({
        name: `column ${c.name}`,
        value,
        how: 'measured',
        from: `optdiag Average column width${stat.nullShare !== undefined ? " and its histogram's NULL step" : ''} (${file}:${stat.line})`,
      });
    else
      inputs.push({
        name: `columns ${c.name} (no statistics)`,
        value: `${round1(c.mean)} bytes a row together (what the average row leaves), at most ${c.hi}`,
        how: 'measured',
        from: 'the average row less the columns with statistics; their lengths spread as one',
      });
  }
  if (cols.length)
    inputs.push({
      name: 'NULL in Average column width',
      value: 'counted as 0 bytes',
      how: 'assumed',
      from: 'optdiag does not say; the widths of every column then add up to the average data row',
    });
}

/** The shortest and longest rows of the length model, as the estimate's inputs: measured where the evidence gives them, else from the DDL. */
function rangeInputs(ev: Measurements, min: number, max: number): ModelInput[] {
  const out: ModelInput[] = [];
  for (const [f, v, what] of [
    [ev.minRowBytes, min, 'shortest row'],
    [ev.maxRowBytes, max, 'longest row'],
  ] as const) {
    out.push(
      f
        ? { name: what, value: `${v} data bytes`, how: 'measured', from: `${f.kind} ${f.label} (${where(f)})` }
        : {
            name: what,
            value: `${v} data bytes`,
            how: 'from the DDL',
            from: what === 'shortest row' ? 'the fixed-length NOT NULL columns' : 'every column at its declared length',
          },
    );
  }
  return out;
}

/** The row-length model from the merged measurements, with every input and where it came from. */
export function lengthsFromEvidence(ev: Measurements, ctx: Ctx): Outcome {
  const { table, layout, format } = ctx;
  const range = dataLengthRange(layout);
  const inputs: ModelInput[] = [
    {
      name: 'rows',
      value: groupedNumber(ev.rows!.value),
      how: 'measured',
      from: `${ev.rows!.kind} ${ev.rows!.label} (${where(ev.rows!)})`,
    },
  ];
  const notes: string[] = [];
  const cols = usableColumns(ev, layout);
  let avg = averageRow(ev, ctx, cols, inputs, notes);
  const phys = ev.avgRowBytes!;
  if (avg < range.min - 0.5 || avg > range.max + 0.5) {
    return {
      problems: [
        {
          file: phys.file,
          line: phys.line,
          column: 1,
          message: `expected an average row a row of table ${table.name} can have (data ${range.min} to ${range.max} bytes on ${format.id}), found ${phys.label} ${round1(phys.value)} (data ${round1(avg)}): is it the same table?`,
        },
      ],
    };
  }
  avg = Math.min(range.max, Math.max(range.min, avg));
  if (cols.length) {
    const problems = widthsFit(ev, ctx, cols, avg);
    if (problems.length) return { problems };
  }
  const toData = (f: Figure) => dataLengthFor(format, layout, f.value);
  const min = Math.round(ev.minRowBytes ? Math.min(avg, toData(ev.minRowBytes)) : range.min);
  const max = Math.round(ev.maxRowBytes ? Math.max(avg, toData(ev.maxRowBytes)) : range.max);
  inputs.push(...rangeInputs(ev, min, max));
  const byColumn = ev.minRowBytes || ev.maxRowBytes ? undefined : columnModel(layout, avg, cols);
  const model: LengthModel = byColumn ?? { fixedBytes: layout.fixedNotNullBytes, min, max, mean: avg };
  if (byColumn) columnInputs(byColumn, ev, cols, inputs);
  notes.push(
    byColumn
      ? `row lengths now: each column's own lengths (${cols.length} with optdiag's column statistics, the rest sharing what the average row leaves), each column with statistics drawn independently, the others as one length; how widely they spread around their averages is the spread`
      : `row lengths now: ${round1(avg)} data bytes on average on [${min}, ${max}] (${phys.kind} ${phys.label} ${round1(phys.value)} bytes, less ${format.id}'s row overhead${ev.minRowBytes || ev.maxRowBytes ? '; the range from its smallest and largest records' : "; the range: the table's shortest and longest rows"}); how widely they spread is the spread`,
  );
  return {
    source: {
      kind: 'evidence',
      rows: ev.rows!.value,
      min,
      avg: byColumn ? byColumn.mean : avg,
      max,
      model,
      from: ev.kinds.join(' + '),
      inputs,
    },
    notes,
  };
}
