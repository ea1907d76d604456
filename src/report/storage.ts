/**
 * Storage results: the results.json entries, summary.md sections, charts and the terminal table.
 */
import { formatSize } from '../util/units.js';
import type { SweepPoint } from '../config/spec.js';
import { getFormat } from '../formats/registry.js';
import { metric, type EngineMetrics } from '../heap/metrics.js';
import type { IndexPages } from '../btree/geometry.js';
import type { AllocationPages, StorageRunResult } from '../workload/runner.js';
import { renderBarChart, renderLineChart, renderPageMap } from './charts.js';
import { mdTable, fmt } from './tables.js';
import { terminalTable, type TableOptions } from './terminal.js';

export interface StorageEntry {
  label: string;
  params: Record<string, string | number | boolean>;
  engine: StorageRunResult['engine'];
  notes: string[];
  row_bytes: StorageRunResult['row_bytes'];
  phases: { op: string; label: string; rows_affected: number; metrics: EntryMetrics }[];
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
    phases: r.phases.map((p) => ({ op: p.op, label: p.label, rows_affected: p.rows_affected, metrics: { ...p.metrics, index_pages: p.index_pages, allocation_pages: p.allocation_pages } })),
    final: { ...r.final, index_pages: r.index_pages, allocation_pages: r.allocation_pages },
  };
}

/** Pages of an entry's engine in MiB, to compare engines whose page sizes differ. */
function mib(pages: number, e: StorageEntry): number {
  return Math.round(((pages * e.engine.page_size) / 1048576) * 100) / 100;
}

/** The most forwarded rows seen after any phase (before a reorg cures them). */
function peakForwarded(e: StorageEntry): number {
  return Math.max(0, ...e.phases.map((p) => p.metrics.forwarded_rows));
}


function pct(part: number, whole: number): number {
  return whole > 0 ? Math.round((10000 * part) / whole) / 100 : 0;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'base';
}

/** Writes one file of the results folder (a path relative to it). */
type WriteFile = (rel: string, data: string | Uint8Array) => void;

/** Write the charts that compare the sweep points; return their paths relative to the results folder. */
export function writeStorageCharts(entries: StorageEntry[], writeFile: WriteFile, title: string): string[] {
  const charts: string[] = [];
  const write = (name: string, png: Buffer) => {
    writeFile(`charts/${name}`, png);
    charts.push(`charts/${name}`);
  };
  const labels = entries.map((e) => e.label);
  if (entries.length >= 2) {
    write(
      'forwarding.png',
      renderLineChart({
        title: `${title}: forwarded rows and pages`,
        subtitle: 'peak forwarded rows over the phases; pages and scan reads after the whole workload',
        xLabel: 'sweep point',
        yLabel: 'forwarded rows',
        y2Label: 'pages',
        xCategories: labels,
        series: [
          { label: 'forwarded rows (peak, before any reorg)', points: entries.map((e, i) => [i, peakForwarded(e)]) },
          { label: 'forwarded rows (final)', points: entries.map((e, i) => [i, e.final.forwarded_rows]), dashed: true },
          { label: 'pages', points: entries.map((e, i) => [i, e.final.pages]), yAxis: 'right' },
          { label: 'table-scan page reads', points: entries.map((e, i) => [i, e.final.table_scan_page_reads]), yAxis: 'right', dashed: true },
        ],
      }),
    );
  }
  const formats = new Set(entries.map((e) => e.engine.format));
  if (formats.size >= 2) {
    // One run, many engines: the same workload's storage side by side.
    write(
      'engines.png',
      renderBarChart({
        title: `${title}: engines side by side`,
        subtitle: 'after the whole workload, in MiB (page sizes differ between engines); scan = pages + forwarded/migrated-row hops (+ chained pieces)',
        categories: labels.map((l, i) => `${l} (${formatSize(entries[i]!.engine.page_size)} pages)`),
        yLabel: 'MiB',
        series: [
          { label: 'heap', values: entries.map((e) => mib(e.final.pages, e)) },
          { label: 'indexes', values: entries.map((e) => mib(e.final.index_pages.total, e)) },
          { label: 'read by a table scan', values: entries.map((e) => mib(e.final.table_scan_page_reads, e)) },
        ],
      }),
    );
    write(
      'engines-updates.png',
      renderBarChart({
        title: `${title}: what updates did, per engine`,
        subtitle: 'forwarded/migrated rows at their peak; PostgreSQL: HOT and new-page updates',
        categories: labels,
        yLabel: 'rows',
        series: [
          { label: 'forwarded rows (peak)', values: entries.map((e) => peakForwarded(e)) },
          { label: 'HOT updates', values: entries.map((e) => e.final.hot_updates) },
          { label: 'new-page updates', values: entries.map((e) => metric(e.final, 'newpage_updates')) },
        ],
      }),
    );
  }
  const phaseLabels = entries[0]?.phases.map((p, i) => `${i + 1}. ${p.op}${p.op === 'reorg' ? ` ${p.label.replace('reorg ', '')}` : ''}`) ?? [];
  if (phaseLabels.length >= 1) {
    for (const [file, name, yLabel] of [
      ['phases-forwarded.png', 'forwarded_rows', 'forwarded rows'],
      ['phases-pages.png', 'pages', 'pages'],
    ] as const) {
      write(
        file,
        renderLineChart({
          title: `${title}: ${yLabel} after each phase`,
          xLabel: 'phase',
          yLabel,
          xCategories: phaseLabels,
          series: entries.map((e) => ({ label: e.label, points: e.phases.map((p, i) => [i, metric(p.metrics, name)] as [number, number]) })),
        }),
      );
    }
  }
  return charts;
}

/** Write one sweep point's page maps as soon as its result arrives; return their paths. */
export function writePageMapCharts(entry: StorageEntry, result: StorageRunResult, writeFile: WriteFile, title: string): string[] {
  const charts: string[] = [];
  for (const pm of result.pageMaps) {
    const name = `charts/pagemap-${slug(entry.label)}-${slug(pm.label)}.png`;
    writeFile(
      name,
      renderPageMap({
        title: `${title} — ${entry.label}: page map ${pm.label}`,
        subtitle: `after phase ${pm.after_phase + 1} (${entry.phases[pm.after_phase]?.label ?? ''}); ${result.final.rows} rows`,
        fill: pm.map.fill,
        stubs: pm.map.stubs,
        forwardedIn: pm.map.forwardedIn,
      }),
    );
    charts.push(name);
  }
  return charts;
}

/** A counter as a table cell: empty when the engine does not keep it (compactions on PostgreSQL). */
function cell(m: EntryMetrics, key: string): string {
  return key in m ? fmt(metric(m, key)) : '';
}

const FINAL_COLUMNS: [string, string][] = [
  ['rows', 'rows'],
  ['pages', 'pages'],
  ['forwarded_rows', 'fwd at end'],
  ['table_scan_page_reads', 'scan reads'],
  ['space_used_pct', 'used %'],
  ['exclusive_table_locks', 'excl. locks'],
  ['compactions', 'compactions'],
  ['hot_updates', 'HOT upd.'],
  ['index_pages', 'index pages'],
];

function finalRow(e: StorageEntry): string[] {
  const f = e.final;
  const reserve = getFormat(e.engine.format).reserveSetting;
  const cells = [e.label, e.engine.format, reserve ? String(e.engine[reserve] ?? '') : ''];
  for (const [key] of FINAL_COLUMNS) cells.push(key === 'index_pages' ? fmt(f.index_pages.total) : cell(f, key));
  const peak = peakForwarded(e);
  cells.splice(5, 0, fmt(peak), `${pct(peak, f.rows)}%`);
  return cells;
}

function finalHeader(): string[] {
  const h = ['point', 'format', 'reserve', ...FINAL_COLUMNS.map(([, t]) => t)];
  h.splice(5, 0, 'peak fwd', 'peak fwd %');
  return h;
}

export function storageMarkdown(entries: StorageEntry[], charts: string[]): string {
  const out: string[] = ['## Storage', ''];
  out.push(
    'One row per sweep point. `peak fwd`: the most forwarded rows after any phase (before a reorg cures them); the other figures are the state after the whole workload. `scan reads` = pages + forwarded-row hops. `reserve`: the resolved exp_row_size (ASE), fillfactor or PCTFREE.',
    '',
  );
  out.push(mdTable(finalHeader(), entries.map(finalRow)), '');
  for (const e of entries) {
    out.push(`### ${e.label}`, '');
    const eng = Object.entries(e.engine)
      .map(([k, v]) => `${k} = ${v}`)
      .join(', ');
    out.push(`Engine: ${eng}.`, '');
    const rb = e.row_bytes;
    out.push(
      `Row bytes (physical) at the end: min ${rb.min}, avg ${rb.avg}, max ${rb.max}. The schema allows ${rb.schema_min}–${rb.schema_max} physical bytes; ` +
        `the maximum data row length (logical, what ASE accepts as the largest exp_row_size) is ${rb.logical_max}.`,
      '',
    );
    if (e.notes.length) out.push(...e.notes.map((n) => `- ${n}`), '');
    const keys = getFormat(e.engine.format).phaseMetrics;
    out.push(
      mdTable(
        ['phase', 'affected', ...keys],
        e.phases.map((p) => [p.label, fmt(p.rows_affected), ...keys.map((k) => cell(p.metrics, k))]),
      ),
      '',
    );
  }
  const storageCharts = charts.filter((c) => !c.includes('contention'));
  if (storageCharts.length) {
    out.push('### Charts', '');
    for (const c of storageCharts) out.push(`![${c}](${c})`, '');
  }
  return out.join('\n');
}

/** How soon each summary column is left out of a narrow terminal (1: never). */
const TERMINAL_PRIORITY: Record<string, number> = {
  point: 1,
  format: 2,
  'reserve': 1,
  rows: 3,
  pages: 1,
  'peak fwd': 2,
  'peak fwd %': 1,
  'fwd at end': 1,
  'scan reads': 1,
  'used %': 3,
  'excl. locks': 2,
  compactions: 4,
  'HOT upd.': 2,
  'index pages': 3,
};

export function storageTerminal(entries: StorageEntry[], options: TableOptions = {}): string {
  const columns = finalHeader().map((title, i) => ({ title, align: i < 2 ? ('left' as const) : ('right' as const), priority: TERMINAL_PRIORITY[title] ?? 2 }));
  return terminalTable(columns, entries.map(finalRow), options);
}
