/**
 * Storage results: the results.json entries, summary.md sections, charts and the terminal table.
 */
import type { ReadResult } from '../workload/reads.js';
import { readsMarkdown, readsTerminal } from './reads.js';
import { formatSize, slug } from '../util/units.js';
import type { SweepPoint } from '../config/spec.js';
import { getFormat } from '../formats/registry.js';
import type { StorageFormat } from '../formats/format.js';
import { metric, type EngineMetrics } from '../heap/metrics.js';
import type { IndexPages } from '../btree/geometry.js';
import type { AllocationPages, StorageRunResult } from '../workload/runner.js';
import { PALETTE, renderBarChart, renderLineChart, renderPageMap, type Series } from './charts.js';
import { mdTable, fmt } from './tables.js';
import { terminalTable, type TableOptions } from './terminal.js';

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
type EntryMetrics = EngineMetrics & { index_pages: IndexPages; allocation_pages: AllocationPages };

export function storageEntry(point: SweepPoint, r: StorageRunResult): StorageEntry {
  return {
    label: point.label,
    params: point.params,
    engine: r.engine,
    notes: r.notes,
    row_bytes: r.row_bytes,
    phases: r.phases.map((p) => ({ op: p.op, label: p.label, rows_affected: p.rows_affected, metrics: { ...p.metrics, index_pages: p.index_pages, allocation_pages: p.allocation_pages }, ...(p.reads ? { reads: p.reads } : {}) })),
    final: { ...r.final, index_pages: r.index_pages, allocation_pages: r.allocation_pages },
  };
}

/** Pages of an entry's engine in MiB, to compare engines whose page sizes differ. */
function mib(pages: number, e: StorageEntry): number {
  return Math.round(((pages * e.engine.page_size) / 1048576) * 100) / 100;
}

/** The most forwarded (migrated) rows seen after any phase (before a reorg cures them). */
function peakMoved(e: StorageEntry): number {
  return Math.max(0, ...e.phases.map((p) => p.metrics.forwarded_rows));
}


function pct(part: number, whole: number): number {
  return whole > 0 ? Math.round((10000 * part) / whole) / 100 : 0;
}


/** Writes one file of the results folder (a path relative to it). */
type WriteFile = (rel: string, data: string | Uint8Array) => void;

// ---------------------------------------------------------------------------------------------
// What each engine calls things: asked of the format routines, never of a format's name
// ---------------------------------------------------------------------------------------------

function formatOf(e: StorageEntry): StorageFormat {
  return getFormat(e.engine.format);
}

/** Points whose format counts rows that moved away with a forwarding address (ASE, SQL Server, Oracle). */
function movesRows(e: StorageEntry): boolean {
  const f = formatOf(e);
  return !f.keptUpdates && f.movedRows.metric === 'forwarded_rows';
}

/** What the formats of `entries` call a row that moved away ("forwarded", "migrated"; "forwarded/migrated" for both). */
function movedWord(entries: StorageEntry[]): string {
  const words = [...new Set(entries.filter(movesRows).map((e) => formatOf(e).movedRows.word))];
  return words.length ? words.join('/') : 'forwarded';
}

/** The same in a narrow column ("fwd", "migr."). */
function movedShort(entries: StorageEntry[]): string {
  const words = [...new Set(entries.filter(movesRows).map((e) => formatOf(e).movedRows.short))];
  return words.length ? words.join('/') : 'fwd';
}

/** The name of the updates that stayed on their page (PostgreSQL: HOT), when every such point's format says the same. */
function keptWord(entries: StorageEntry[]): string {
  const words = [...new Set(entries.map((e) => formatOf(e).keptUpdates?.word).filter((w): w is string => !!w))];
  return words.join('/');
}

/** Updates that kept the row on its page, in % of the updates (NaN when there were none). */
function keptSharePct(e: StorageEntry, m: EntryMetrics): number {
  const kept = formatOf(e).keptUpdates;
  if (!kept || !(m.updates > 0)) return NaN;
  return Math.round((10000 * metric(m, kept.metric)) / m.updates) / 100;
}

/** The metrics after the phase before the first reorg, and that reorg's label; undefined without one. */
function beforeReorg(e: StorageEntry): { metrics: EntryMetrics; label: string } | undefined {
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
  return f.reserveSetting && f.reserveUnit ? { setting: f.reserveSetting, unit: f.reserveUnit } : undefined;
}

/**
 * The x axis of a chart over the sweep points: the knob in its unit when the sweep varies nothing else
 * ("fillfactor (%)" with ticks 100, 95 …; a setting the format resolves to another value says both:
 * "0 (= 100 bytes)"), else the points' labels.
 */
function sweepAxis(entries: StorageEntry[]): { xLabel: string; categories: string[] } {
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
// Charts
// ---------------------------------------------------------------------------------------------

/** Write the charts that compare the sweep points; return their paths relative to the results folder. */
export function writeStorageCharts(entries: StorageEntry[], writeFile: WriteFile, title: string): string[] {
  const charts: string[] = [];
  const write = (name: string, png: Buffer) => {
    writeFile(`charts/${name}`, png);
    charts.push(`charts/${name}`);
  };
  const moving = entries.filter(movesRows);
  const keeping = entries.filter((e) => formatOf(e).keptUpdates);
  const anyUpdates = keeping.some((e) => e.final.updates > 0);
  if (entries.length >= 2) {
    if (moving.length) write(movedChartFile(moving), movedChart(moving, title));
    if (keeping.length && anyUpdates) write('hot-updates.png', keptChart(keeping, title));
    if (keeping.length) write('pages.png', pagesChart(keeping, title));
  }
  if (new Set(entries.map((e) => e.engine.format)).size >= 2) {
    write('engines.png', enginesChart(entries, title));
    write('engines-updates.png', enginesUpdatesChart(entries, title));
  }
  const phaseLabels = entries[0]?.phases.map((p, i) => `${i + 1}. ${p.op}${p.op === 'reorg' ? ` ${p.label.replace('reorg ', '')}` : ''}`) ?? [];
  if (phaseLabels.length >= 1) {
    const perPhase = (file: string, what: string, yLabel: string, list: StorageEntry[], value: (e: StorageEntry, m: EntryMetrics) => number) =>
      write(
        file,
        renderLineChart({
          title: `${title}: ${what} after each phase`,
          xLabel: 'phase',
          yLabel,
          xCategories: phaseLabels,
          series: list.map((e) => ({ label: e.label, points: e.phases.map((p, i) => [i, value(e, p.metrics)] as [number, number]) })),
        }),
      );
    if (moving.length) perPhase(`phases-${slug(movedWord(moving))}.png`, `${movedWord(moving)} rows`, 'rows', moving, (_e, m) => m.forwarded_rows);
    const kw = keptWord(keeping);
    if (keeping.length && anyUpdates) perPhase('phases-hot.png', `${kw} updates (% of the updates so far)`, `${kw} updates (% of updates)`, keeping, keptSharePct);
    perPhase('phases-pages.png', 'pages', 'pages', entries, (_e, m) => m.pages);
  }
  return charts;
}

/** The file of the per-point chart of moved rows, named by what the engine calls them: forwarding.png (its name from
 *  before the words were the formats'), migrated.png (Oracle), and so on. */
function movedChartFile(entries: StorageEntry[]): string {
  const word = slug(movedWord(entries));
  return word === 'forwarded' ? 'forwarding.png' : `${word}.png`;
}

/** Table-scan reads before the first reorg (where there is one) and at the end: series for the right axis. */
function scanReadSeries(entries: StorageEntry[]): Series[] {
  const before = entries.map((e) => beforeReorg(e));
  const label = before.find((b) => b)?.label;
  const series: Series[] = [];
  if (label) series.push({ label: `table-scan page reads before ${label}`, points: entries.map((_e, i) => [i, before[i]?.metrics.table_scan_page_reads ?? NaN]), yAxis: 'right', dashed: true, color: PALETTE[3] });
  series.push({ label: `table-scan page reads${label ? ' at the end' : ''}`, points: entries.map((e, i) => [i, e.final.table_scan_page_reads]), yAxis: 'right', color: PALETTE[2], pointStyle: 'rectRot', pointRadius: 7 });
  // Large diamonds: where the scan reads only the pages, this line lies under the pages' and its points still show.
  return series;
}

/** Rows that moved away (forwarded, migrated) at their peak and at the end; pages and scan reads on the right. */
function movedChart(entries: StorageEntry[], title: string): Buffer {
  const w = movedWord(entries);
  const { xLabel, categories } = sweepAxis(entries);
  return renderLineChart({
    title: `${title}: ${w} rows and pages`,
    subtitle: `peak ${w} rows over the phases; pages at the end; a table scan reads the pages and one more for each ${w} row`,
    xLabel,
    yLabel: `${w} rows`,
    y2Label: 'pages',
    xCategories: categories,
    series: [
      { label: `${w} rows (peak, before any reorg)`, points: entries.map((e, i) => [i, peakMoved(e)]), color: PALETTE[0] },
      { label: `${w} rows (at the end)`, points: entries.map((e, i) => [i, e.final.forwarded_rows]), dashed: true, color: PALETTE[5] },
      { label: 'pages (at the end)', points: entries.map((e, i) => [i, e.final.pages]), yAxis: 'right', color: PALETTE[1] },
      ...scanReadSeries(entries),
    ],
  });
}

/** The share of updates that stayed on their page (PostgreSQL: HOT) and the updates that went to a new page. */
function keptChart(entries: StorageEntry[], title: string): Buffer {
  const kw = keptWord(entries);
  const moved = formatOf(entries[0]!).movedRows;
  const { xLabel, categories } = sweepAxis(entries);
  return renderLineChart({
    title: `${title}: ${kw} updates`,
    subtitle: `over the whole workload: ${kw} updates in % of all updates (left); updates ${moved.word} (right)`,
    xLabel,
    yLabel: `${kw} updates (% of updates)`,
    y2Label: 'updates',
    xCategories: categories,
    series: [
      { label: `${kw} updates (% of updates)`, points: entries.map((e, i) => [i, keptSharePct(e, e.final)]), color: PALETTE[2] },
      { label: `updates ${moved.word}`, points: entries.map((e, i) => [i, metric(e.final, moved.metric)]), yAxis: 'right', dashed: true, color: PALETTE[1] },
    ],
  });
}

/** Pages and what a table scan reads, before the first reorg and at the end (formats with no forwarded rows). */
function pagesChart(entries: StorageEntry[], title: string): Buffer {
  const { xLabel, categories } = sweepAxis(entries);
  const series = scanReadSeries(entries).map((s) => ({ ...s, yAxis: 'left' as const }));
  return renderLineChart({
    title: `${title}: pages and table-scan reads`,
    subtitle: 'pages a table scan reads, before the first reorg and after the whole workload',
    xLabel,
    yLabel: 'pages',
    xCategories: categories,
    series,
  });
}

function enginesChart(entries: StorageEntry[], title: string): Buffer {
  return renderBarChart({
    title: `${title}: engines side by side`,
    subtitle: `after the whole workload, in MiB (page sizes differ between engines); scan = pages + ${movedWord(entries)}-row hops (+ chained pieces)`,
    categories: entries.map((e) => `${e.label} (${formatSize(e.engine.page_size)} pages)`),
    yLabel: 'MiB',
    series: [
      { label: 'heap', values: entries.map((e) => mib(e.final.pages, e)) },
      { label: 'indexes', values: entries.map((e) => mib(e.final.index_pages.total, e)) },
      { label: 'read by a table scan', values: entries.map((e) => mib(e.final.table_scan_page_reads, e)) },
    ],
  });
}

function enginesUpdatesChart(entries: StorageEntry[], title: string): Buffer {
  const w = movedWord(entries);
  const kw = keptWord(entries);
  const series = [{ label: `${w} rows (peak)`, values: entries.map((e) => (movesRows(e) ? peakMoved(e) : NaN)) }];
  if (kw) {
    series.push(
      { label: `${kw} updates`, values: entries.map((e) => (formatOf(e).keptUpdates ? e.final.hot_updates : NaN)) },
      { label: 'updates to a new page', values: entries.map((e) => (formatOf(e).keptUpdates ? metric(e.final, formatOf(e).movedRows.metric) : NaN)) },
    );
  }
  return renderBarChart({
    title: `${title}: what updates did, per engine`,
    subtitle: `${w} rows at their peak${kw ? `; ${kw} and new-page updates where the engine has them` : ''}`,
    categories: entries.map((e) => e.label),
    yLabel: 'rows',
    series,
  });
}

/** Write one sweep point's page maps as soon as its result arrives; return their paths. */
export function writePageMapCharts(entry: StorageEntry, result: StorageRunResult, writeFile: WriteFile, title: string): string[] {
  const charts: string[] = [];
  const w = movedWord([entry]);
  const marks = movesRows(entry) ? { stubs: `stubs of ${w} rows`, movedIn: `${w} rows living here` } : null;
  for (const pm of result.pageMaps) {
    const name = `charts/pagemap-${slug(entry.label)}-${slug(pm.label)}.png`;
    const phase = entry.phases[pm.after_phase];
    writeFile(
      name,
      renderPageMap({
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
      }),
    );
    charts.push(name);
  }
  return charts;
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

/** The columns, worded for the formats of `entries`: a column only where some point's format has the figure. */
function columns(entries: StorageEntry[]): Column[] {
  const moving = entries.some(movesRows);
  const keeping = entries.some((e) => formatOf(e).keptUpdates);
  const w = movedWord(entries);
  const sw = movedShort(entries);
  const kw = keptWord(entries);
  const knob = sharedKnob(entries);
  const final = (key: string, title: string, priority: number, means?: string): Column => ({ title, priority, cell: (e) => cell(e.final, key), means });
  const cols: Column[] = [
    { title: 'point', priority: 1, cell: (e) => e.label },
    // One format for every point: the column says nothing the title does not, and goes first on a narrow terminal.
    { title: 'format', priority: new Set(entries.map((e) => e.engine.format)).size > 1 ? 2 : 3, cell: (e) => e.engine.format },
  ];
  if (entries.some((e) => formatOf(e).reserveSetting)) {
    cols.push(
      knob
        ? { title: `${knob.setting} (${unitText(knob.unit)})`, priority: 1, wrapTitle: true, cell: (e) => String(e.engine[knob.setting] ?? ''), means: `the resolved ${knob.setting}, in ${knob.unit === '%' ? '% of the page' : 'bytes'}` }
        : { title: 'reserve', priority: 1, cell: reserveCell, means: "each format's reserve setting, resolved, in its unit (exp_row_size in bytes, fillfactor and pctfree in % of the page)" },
    );
  }
  cols.push(final('rows', 'rows', 3), final('pages', 'pages', 1));
  if (moving) {
    cols.push(
      { title: `peak ${sw}`, priority: 2, cell: (e) => (movesRows(e) ? fmt(peakMoved(e)) : ''), means: `the most ${w} rows after any phase (before a reorg cures them)` },
      { title: `peak ${sw} %`, priority: 1, cell: (e) => (movesRows(e) ? `${pct(peakMoved(e), e.final.rows)}%` : ''), means: 'the same in % of the rows at the end' },
      { title: `${sw} at end`, priority: 1, cell: (e) => (movesRows(e) ? fmt(e.final.forwarded_rows) : ''), means: `${w} rows after the whole workload` },
    );
  }
  if (keeping) {
    cols.push({ title: `${kw} %`, priority: 1, cell: (e) => (formatOf(e).keptUpdates ? pctCell(keptSharePct(e, e.final)) : ''), means: `${kw} updates in % of all updates` });
  }
  cols.push(
    final('table_scan_page_reads', 'scan reads', 1, moving ? `pages a table scan reads: pages + ${w}-row hops` : 'pages a table scan reads'),
    final('space_used_pct', 'used %', 3),
    final('exclusive_table_locks', 'excl. locks', 2),
  );
  if (entries.some((e) => 'compactions' in e.final)) cols.push(final('compactions', 'compactions', 4));
  if (keeping) {
    const kept = entries.filter((e) => formatOf(e).keptUpdates);
    const moved = formatOf(kept[0]!).movedRows;
    cols.push(final('hot_updates', `${kw} upd.`, 2), { title: `${moved.short} upd.`, priority: 3, cell: (e) => (formatOf(e).keptUpdates ? fmt(metric(e.final, formatOf(e).movedRows.metric)) : ''), means: `updates ${moved.word}` });
  }
  cols.push({ title: 'index pages', priority: 3, cell: (e) => fmt(e.final.index_pages.total) });
  return cols;
}

function reserveCell(e: StorageEntry): string {
  const f = formatOf(e);
  const v = f.reserveSetting ? e.engine[f.reserveSetting] : undefined;
  return v === undefined || !f.reserveUnit ? '' : withUnit(String(v), f.reserveUnit);
}

function pctCell(v: number): string {
  return Number.isFinite(v) ? `${fmt(v)}%` : '';
}

/** A per-phase counter's column title in the format's words: `forwarded_rows` → "migrated rows" on Oracle. */
function metricTitle(key: string, f: StorageFormat): string {
  const w = f.movedRows.metric === 'forwarded_rows' ? f.movedRows.word : 'forwarded';
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
  out.push(mdTable(cols.map((c) => c.title), entries.map((e) => cols.map((c) => c.cell(e)))), '');
  for (const e of entries) {
    const f = formatOf(e);
    out.push(`### ${e.label}`, '');
    const eng = Object.entries(e.engine)
      .map(([k, v]) => `${k} = ${v}`)
      .join(', ');
    out.push(`Engine: ${eng}.`, '');
    const rb = e.row_bytes;
    // A knob in bytes is bounded by the longest row's data (ASE: the largest exp_row_size it accepts).
    const logical = f.reserveSetting && f.reserveUnit === 'bytes' ? `logical, the largest ${f.reserveSetting} accepted` : 'logical: the data, without row overhead';
    out.push(
      `Row bytes (physical) at the end: min ${rb.min}, avg ${rb.avg}, max ${rb.max}. The schema allows ${rb.schema_min}–${rb.schema_max} physical bytes; ` +
        `the maximum data row length (${logical}) is ${rb.logical_max}.`,
      '',
    );
    if (e.notes.length) out.push(...e.notes.map((n) => `- ${n}`), '');
    const keys = f.phaseMetrics;
    out.push(
      mdTable(
        ['phase', 'affected', ...keys.map((k) => metricTitle(k, f))],
        e.phases.map((p) => [p.label, fmt(p.rows_affected), ...keys.map((k) => cell(p.metrics, k))]),
      ),
      '',
    );
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

export function storageTerminal(entries: StorageEntry[], options: TableOptions = {}): string {
  const cols = columns(entries);
  const table = cols.map((c, i) => ({ title: c.title, align: i < 2 ? ('left' as const) : ('right' as const), priority: c.priority, wrapTitle: c.wrapTitle }));
  return [terminalTable(table, entries.map((e) => cols.map((c) => c.cell(e))), options), ...readsTerminal(entries)].join('\n');
}
