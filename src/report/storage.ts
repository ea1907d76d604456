/**
 * Storage results: the results.json entries, summary.md sections, which charts a run draws and the terminal
 * table. Nothing here draws (src/report/storage-charts.ts draws on canvas), so the process that only
 * gathers a sweep's results loads no canvas.
 */
import type { ReadResult } from '../workload/reads.js';
import { readsMarkdown, readsTerminal } from './reads.js';
import { slug } from '../util/units.js';
import type { SweepPoint } from '../config/spec.js';
import { getFormat } from '../formats/registry.js';
import type { StorageFormat } from '../formats/format.js';
import { metric, type EngineMetrics } from '../heap/metrics.js';
import type { IndexPages } from '../btree/geometry.js';
import type { AllocationPages, StorageRunResult } from '../workload/runner.js';
import type { PageMapSpec } from './page-map-png.js';
import { mdTable, fmt } from './tables.js';
import { terminalTable, type TableOptions } from './terminal.js';
import { engineMarkdown } from './summary-parts.js';

export interface StorageEntry {
  label: string;
  params: Record<string, string | number | boolean>;
  engine: StorageRunResult['engine'];
  notes: string[];
  row_bytes: StorageRunResult['row_bytes'];
  phases: { op: string; label: string; rows_affected: number; metrics: EntryMetrics; reads?: ReadResult }[];
  final: EntryMetrics;
}

/** Metrics as results.json has them: the engine's counters, `index_pages` and `allocation_pages`. */
export type EntryMetrics = EngineMetrics & { index_pages: IndexPages; allocation_pages: AllocationPages };

export function storageEntry(point: SweepPoint, r: StorageRunResult): StorageEntry {
  return {
    label: point.label,
    params: point.params,
    engine: r.engine,
    notes: r.notes,
    row_bytes: r.row_bytes,
    phases: r.phases.map((p) => ({
      op: p.op,
      label: p.label,
      rows_affected: p.rows_affected,
      metrics: { ...p.metrics, index_pages: p.index_pages, allocation_pages: p.allocation_pages },
      ...(p.reads ? { reads: p.reads } : {}),
    })),
    final: { ...r.final, index_pages: r.index_pages, allocation_pages: r.allocation_pages },
  };
}

/** Pages of an entry's engine in MiB, to compare engines whose page sizes differ. */
export function mib(pages: number, e: StorageEntry): number {
  return Math.round(((pages * e.engine.page_size) / 1048576) * 100) / 100;
}

/** The most forwarded (migrated) rows seen after any phase (before a reorg cures them). */
export function peakMoved(e: StorageEntry): number {
  return Math.max(0, ...e.phases.map((p) => p.metrics.forwarded_rows));
}

function pct(part: number, whole: number): number {
  return whole > 0 ? Math.round((10000 * part) / whole) / 100 : 0;
}

// ---------------------------------------------------------------------------------------------
// What each engine calls things: asked of the format routines, never of a format's name
// ---------------------------------------------------------------------------------------------

export function formatOf(e: StorageEntry): StorageFormat {
  return getFormat(e.engine.format);
}

/** Points whose format counts rows that moved away with a forwarding address (ASE, SQL Server, Oracle). */
export function movesRows(e: StorageEntry): boolean {
  const f = formatOf(e);
  return !f.words.keptUpdates && f.words.movedRows.metric === 'forwarded_rows';
}

/** What the formats of `entries` call a row that moved away ("forwarded", "migrated"; "forwarded/migrated" for both). */
export function movedWord(entries: StorageEntry[]): string {
  const words = [...new Set(entries.filter(movesRows).map((e) => formatOf(e).words.movedRows.word))];
  return words.length ? words.join('/') : 'forwarded';
}

/** The same in a narrow column ("fwd", "migr."). */
function movedShort(entries: StorageEntry[]): string {
  const words = [...new Set(entries.filter(movesRows).map((e) => formatOf(e).words.movedRows.short))];
  return words.length ? words.join('/') : 'fwd';
}

/** The name of the updates that stayed on their page (PostgreSQL: HOT), when every such point's format says the same. */
export function keptWord(entries: StorageEntry[]): string {
  const words = [...new Set(entries.map((e) => formatOf(e).words.keptUpdates?.word).filter((w): w is string => !!w))];
  return words.join('/');
}

/** Updates that kept the row on its page, in % of the updates (NaN when there were none). */
export function keptSharePct(e: StorageEntry, m: EntryMetrics): number {
  const kept = formatOf(e).words.keptUpdates;
  if (!kept || !(m.updates > 0)) return NaN;
  return Math.round((10000 * metric(m, kept.metric)) / m.updates) / 100;
}

/** The metrics after the phase before the first reorg, and that reorg's label; undefined without one. */
export function beforeReorg(e: StorageEntry): { metrics: EntryMetrics; label: string } | undefined {
  const k = e.phases.findIndex((p) => p.op === 'reorg');
  return k > 0 ? { metrics: e.phases[k - 1]!.metrics, label: e.phases[k]!.label } : undefined;
}

/** A unit as a column or axis says it: "bytes", "%". */
function unitText(unit: 'bytes' | '%'): string {
  return unit;
}

/** A reserve value with its unit: "100 bytes", "90%". */
function withUnit(v: string | number, unit: 'bytes' | '%'): string {
  return unit === '%' ? `${v}%` : `${v} bytes`;
}

interface Knob {
  setting: string;
  unit: 'bytes' | '%';
}

/** The reserve setting every point's format shares (exp_row_size, fillfactor, pctfree), with its unit. */
function sharedKnob(entries: StorageEntry[]): Knob | undefined {
  const formats = new Set(entries.map((e) => e.engine.format));
  if (formats.size !== 1) return undefined;
  const f = formatOf(entries[0]!);
  return f.knob.reserveSetting && f.knob.reserveUnit ? { setting: f.knob.reserveSetting, unit: f.knob.reserveUnit } : undefined;
}

/**
 * The x axis of a chart over the sweep points: the knob in its unit when the sweep varies nothing else
 * ("fillfactor (%)" with ticks 100, 95 …; a setting the format resolves to another value says both:
 * "0 (= 100 bytes)"), else the points' labels.
 */
export function sweepAxis(entries: StorageEntry[]): { xLabel: string; categories: string[] } {
  const knob = sharedKnob(entries);
  const key = knob ? `engine.${knob.setting}` : '';
  if (knob && entries.every((e) => Object.keys(e.params).length === 1 && key in e.params)) {
    return {
      xLabel: `${knob.setting} (${unitText(knob.unit)})`,
      categories: entries.map((e) => {
        const given = String(e.params[key]);
        const resolved = String(e.engine[knob.setting] ?? '');
        return resolved === given || resolved === '' ? given : `${given} (= ${withUnit(resolved, knob.unit)})`;
      }),
    };
  }
  return { xLabel: 'sweep point', categories: entries.map((e) => e.label) };
}

// ---------------------------------------------------------------------------------------------
// Charts: which files a run draws (the drawing is src/report/storage-charts.ts, on canvas)
// ---------------------------------------------------------------------------------------------

/** What a chart over the sweep points draws; storage-charts.ts draws each kind. */
export type StorageChartKind =
  | 'moved'
  | 'kept'
  | 'pages'
  | 'engines'
  | 'engines-updates'
  | 'phases-moved'
  | 'phases-kept'
  | 'phases-pages'
  | 'reads'
  | 'read-cache'
  | 'lob-reads';

/** A chart that compares the sweep points: its file name (in charts/) and what it draws. */
export interface StorageChart {
  file: string;
  kind: StorageChartKind;
}

/** The charts that compare the sweep points, in the order a run writes and lists them. */
export function storageCharts(entries: StorageEntry[]): StorageChart[] {
  const list: StorageChart[] = [];
  const moving = entries.filter(movesRows);
  const keeping = entries.filter((e) => formatOf(e).words.keptUpdates);
  const anyUpdates = keeping.some((e) => e.final.updates > 0);
  if (entries.length >= 2) {
    if (moving.length) list.push({ file: movedChartFile(moving), kind: 'moved' });
    if (keeping.length && anyUpdates) list.push({ file: 'hot-updates.png', kind: 'kept' });
    if (keeping.length) list.push({ file: 'pages.png', kind: 'pages' });
  }
  if (new Set(entries.map((e) => e.engine.format)).size >= 2)
    list.push({ file: 'engines.png', kind: 'engines' }, { file: 'engines-updates.png', kind: 'engines-updates' });
  if (phaseLabels(entries).length >= 1) {
    if (moving.length) list.push({ file: `phases-${slug(movedWord(moving))}.png`, kind: 'phases-moved' });
    if (keeping.length && anyUpdates) list.push({ file: 'phases-hot.png', kind: 'phases-kept' });
    list.push({ file: 'phases-pages.png', kind: 'phases-pages' });
  }
  const reads = entries.flatMap((e) => e.phases.flatMap((p) => (p.reads ? [p.reads] : [])));
  if (reads.some((r) => !r.lob)) list.push({ file: 'reads.png', kind: 'reads' });
  if (reads.some((r) => !r.lob && r.cache)) list.push({ file: 'reads-hit-ratio.png', kind: 'read-cache' });
  if (reads.some((r) => r.lob)) list.push({ file: 'lob-reads.png', kind: 'lob-reads' });
  return list;
}

/** The x axis of the per-phase charts: "1. insert", "3. reorg forwarded_rows" … (the first point's phases). */
export function phaseLabels(entries: StorageEntry[]): string[] {
  return entries[0]?.phases.map((p, i) => `${i + 1}. ${p.op}${p.op === 'reorg' ? ` ${p.label.replace('reorg ', '')}` : ''}`) ?? [];
}

/** The file of the per-point chart of moved rows, named by what the engine calls them: forwarding.png (its name from
 *  before the words were the formats'), migrated.png (Oracle), and so on. */
function movedChartFile(entries: StorageEntry[]): string {
  const word = slug(movedWord(entries));
  return word === 'forwarded' ? 'forwarding.png' : `${word}.png`;
}

/** One page map to draw: its file (charts/pagemap-<point>-<when>.png) and the picture. */
export interface PageMapChart {
  file: string;
  spec: PageMapSpec;
}

/** One sweep point's page maps as renderPageMap draws them, in the order of `result.pageMaps`. */
export function pageMapCharts(entry: StorageEntry, result: Pick<StorageRunResult, 'pageMaps' | 'final'>, title: string): PageMapChart[] {
  const w = movedWord([entry]);
  const marks = movesRows(entry) ? { stubs: `stubs of ${w} rows`, movedIn: `${w} rows living here` } : null;
  return result.pageMaps.map((pm) => {
    const phase = entry.phases[pm.after_phase];
    return {
      file: `charts/pagemap-${slug(entry.label)}-${slug(pm.label)}.png`,
      spec: {
        title: `${title} — ${entry.label}: page map ${pm.label}`,
        subtitle: `after phase ${pm.after_phase + 1} (${phase?.label ?? ''}); ${fmt(phase?.metrics.pages ?? result.final.pages)} pages, ${fmt(phase?.metrics.rows ?? result.final.rows)} rows`,
        fill: pm.map.fill,
        stubs: pm.map.stubs,
        forwardedIn: pm.map.forwardedIn,
        pagesPerCell: pm.map.pagesPerCell,
        totalPages: pm.map.pages,
        stubPages: pm.map.stubPages,
        forwardedInPages: pm.map.forwardedInPages,
        marks,
      },
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Tables: summary.md and the terminal
// ---------------------------------------------------------------------------------------------

/** A counter as a table cell: empty when the engine does not keep it (compactions on PostgreSQL). */
function cell(m: EntryMetrics, key: string): string {
  return key in m ? fmt(metric(m, key)) : '';
}

/** A column of the table of sweep points: its title, how soon a narrow terminal leaves it out (1: never), its cells, what it means. */
interface Column {
  title: string;
  priority: number;
  /** On the terminal the title may wrap, a word a line. */
  wrapTitle?: boolean;
  cell(e: StorageEntry): string;
  means?: string;
}

/** A column of a final counter. */
function finalColumn(key: string, title: string, priority: number, means?: string): Column {
  return { title, priority, cell: (e) => cell(e.final, key), means };
}

/** The point, and its format (with one format for every point the column says nothing the title does not, and goes first on a narrow terminal). */
function pointColumns(entries: StorageEntry[]): Column[] {
  return [
    { title: 'point', priority: 1, cell: (e) => e.label },
    { title: 'format', priority: new Set(entries.map((e) => e.engine.format)).size > 1 ? 2 : 3, cell: (e) => e.engine.format },
  ];
}

/** The reserve setting: the one knob every point shares, by its name and unit, or each format's own. */
function reserveColumn(entries: StorageEntry[]): Column {
  const knob = sharedKnob(entries);
  if (knob)
    return {
      title: `${knob.setting} (${unitText(knob.unit)})`,
      priority: 1,
      wrapTitle: true,
      cell: (e) => String(e.engine[knob.setting] ?? ''),
      means: `the resolved ${knob.setting}, in ${knob.unit === '%' ? '% of the page' : 'bytes'}`,
    };
  return {
    title: 'reserve',
    priority: 1,
    cell: reserveCell,
    means: "each format's reserve setting, resolved, in its unit (exp_row_size in bytes, fillfactor and pctfree in % of the page)",
  };
}

/** Rows that moved (forwarded, migrated, …): the peak, the peak in %, at the end. */
function movedColumns(entries: StorageEntry[]): Column[] {
  const w = movedWord(entries);
  const sw = movedShort(entries);
  return [
    {
      title: `peak ${sw}`,
      priority: 2,
      cell: (e) => (movesRows(e) ? fmt(peakMoved(e)) : ''),
      means: `the most ${w} rows after any phase (before a reorg cures them)`,
    },
    {
      title: `peak ${sw} %`,
      priority: 1,
      cell: (e) => (movesRows(e) ? `${pct(peakMoved(e), e.final.rows)}%` : ''),
      means: 'the same in % of the rows at the end',
    },
    {
      title: `${sw} at end`,
      priority: 1,
      cell: (e) => (movesRows(e) ? fmt(e.final.forwarded_rows) : ''),
      means: `${w} rows after the whole workload`,
    },
  ];
}

/** Updates kept on their page (HOT, …) in % of all updates. */
function keptShareColumn(entries: StorageEntry[]): Column {
  const kw = keptWord(entries);
  return {
    title: `${kw} %`,
    priority: 1,
    cell: (e) => (formatOf(e).words.keptUpdates ? pctCell(keptSharePct(e, e.final)) : ''),
    means: `${kw} updates in % of all updates`,
  };
}

/** What a scan reads, the space used, the table locks, and compactions where an engine keeps them. */
function scanColumns(entries: StorageEntry[], moving: boolean): Column[] {
  const w = movedWord(entries);
  const cols = [
    finalColumn(
      'table_scan_page_reads',
      'scan reads',
      1,
      moving ? `pages a table scan reads: pages + ${w}-row hops` : 'pages a table scan reads',
    ),
    finalColumn('space_used_pct', 'used %', 3),
    finalColumn('exclusive_table_locks', 'excl. locks', 2),
  ];
  if (entries.some((e) => 'compactions' in e.final)) cols.push(finalColumn('compactions', 'compactions', 4));
  return cols;
}

/** Updates kept on their page and updates that moved the row, in the words of the first format that keeps updates. */
function keptUpdateColumns(entries: StorageEntry[]): Column[] {
  const kept = entries.filter((e) => formatOf(e).words.keptUpdates);
  const moved = formatOf(kept[0]!).words.movedRows;
  return [
    finalColumn('hot_updates', `${keptWord(entries)} upd.`, 2),
    {
      title: `${moved.short} upd.`,
      priority: 3,
      cell: (e) => (formatOf(e).words.keptUpdates ? fmt(metric(e.final, formatOf(e).words.movedRows.metric)) : ''),
      means: `updates ${moved.word}`,
    },
  ];
}

/** The columns, worded for the formats of `entries`: a column only where some point's format has the figure. */
function columns(entries: StorageEntry[]): Column[] {
  const moving = entries.some(movesRows);
  const keeping = entries.some((e) => formatOf(e).words.keptUpdates);
  const reserve = entries.some((e) => formatOf(e).knob.reserveSetting);
  return [
    ...pointColumns(entries),
    ...(reserve ? [reserveColumn(entries)] : []),
    finalColumn('rows', 'rows', 3),
    finalColumn('pages', 'pages', 1),
    ...(moving ? movedColumns(entries) : []),
    ...(keeping ? [keptShareColumn(entries)] : []),
    ...scanColumns(entries, moving),
    ...(keeping ? keptUpdateColumns(entries) : []),
    { title: 'index pages', priority: 3, cell: (e) => fmt(e.final.index_pages.total) },
  ];
}

function reserveCell(e: StorageEntry): string {
  const f = formatOf(e);
  const v = f.knob.reserveSetting ? e.engine[f.knob.reserveSetting] : undefined;
  return v === undefined || !f.knob.reserveUnit ? '' : withUnit(String(v), f.knob.reserveUnit);
}

function pctCell(v: number): string {
  return Number.isFinite(v) ? `${fmt(v)}%` : '';
}

/** A per-phase counter's column title in the format's words: `forwarded_rows` → "migrated rows" on Oracle. */
function metricTitle(key: string, f: StorageFormat): string {
  const w = f.words.movedRows.metric === 'forwarded_rows' ? f.words.movedRows.word : 'forwarded';
  return key
    .split('_')
    .map((part) => (part === 'forwarded' ? w : part === 'reforwarded' ? `re-${w}` : part))
    .join(' ');
}

export function storageMarkdown(entries: StorageEntry[], charts: string[]): string {
  const out: string[] = ['## Storage', ''];
  const cols = columns(entries);
  const means = cols.filter((c) => c.means).map((c) => `\`${c.title}\`: ${c.means}`);
  out.push(`One row per sweep point, the state after the whole workload. ${means.join('; ')}.`, '');
  out.push(
    mdTable(
      cols.map((c) => c.title),
      entries.map((e) => cols.map((c) => c.cell(e))),
    ),
    '',
  );
  for (const e of entries) {
    const f = formatOf(e);
    out.push(`### ${e.label}`, '');
    out.push(...engineMarkdown(e, f));
    const rb = e.row_bytes;
    // A knob in bytes is bounded by the longest row's data (ASE: the largest exp_row_size it accepts).
    const logical =
      f.knob.reserveSetting && f.knob.reserveUnit === 'bytes'
        ? `logical, the largest ${f.knob.reserveSetting} accepted`
        : 'logical: the data, without row overhead';
    out.push(
      `Row bytes (physical) at the end: min ${rb.min}, avg ${rb.avg}, max ${rb.max}. The schema allows ${rb.schema_min}–${rb.schema_max} physical bytes; ` +
        `the maximum data row length (${logical}) is ${rb.logical_max}.`,
      '',
    );
    if (e.notes.length) out.push(...e.notes.map((n) => `- ${n}`), '');
    const phases = phaseCounters(e);
    out.push(mdTable(phases.header, phases.rows), '');
  }
  const reads = readsMarkdown(entries);
  if (reads) out.push(reads);
  const storageCharts = charts.filter((c) => !c.includes('contention'));
  if (storageCharts.length) {
    out.push('### Charts', '');
    for (const c of storageCharts) out.push(`![${c}](${c})`, '');
  }
  return out.join('\n');
}

/** The terminal table's columns and cells (all of them, as `--wide` prints), as plain strings: the playground shows them. */
export function storageCounters(entries: StorageEntry[]): { header: string[]; rows: string[][] } {
  const cols = columns(entries);
  return { header: cols.map((c) => c.title), rows: entries.map((e) => cols.map((c) => c.cell(e))) };
}

/** One point's counters after each phase, as summary.md's table of the point has them. */
export function phaseCounters(e: StorageEntry): { header: string[]; rows: string[][] } {
  const f = formatOf(e);
  const keys = f.words.phaseMetrics;
  return {
    header: ['phase', 'affected', ...keys.map((k) => metricTitle(k, f))],
    rows: e.phases.map((p) => [p.label, fmt(p.rows_affected), ...keys.map((k) => cell(p.metrics, k))]),
  };
}

/** Each column title of the point table with its priority (1 first): report.html moves the last ones under each row when the table is too wide. */
export function storageColumnPriority(entries: StorageEntry[]): Record<string, number> {
  return Object.fromEntries(columns(entries).map((c) => [c.title, c.priority]));
}

/**
 * Sweep points the terminal's table shows, the first ones (summary.md and results.json have every one):
 * laying out a table costs milliseconds a row, and more for each row already there (86 s for 10,000).
 */
export const TERMINAL_MAX_POINTS = 100;

export function storageTerminal(entries: StorageEntry[], options: TableOptions = {}): string {
  const cols = columns(entries);
  const shown = entries.slice(0, TERMINAL_MAX_POINTS);
  const more = entries.length - shown.length;
  const table = cols.map((c, i) => ({
    title: c.title,
    align: i < 2 ? ('left' as const) : ('right' as const),
    priority: c.priority,
    wrapTitle: c.wrapTitle,
  }));
  return [
    terminalTable(
      table,
      shown.map((e) => cols.map((c) => c.cell(e))),
      options,
    ),
    ...(more > 0 ? [`(the first ${shown.length} of ${fmt(entries.length)} points; summary.md and results.json have every one)`] : []),
    ...readsTerminal(entries),
  ].join('\n');
}
