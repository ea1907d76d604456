/**
 * The storage charts drawn: the charts that compare the sweep points (storage.ts says which a run has) and
 * each point's page maps. Drawn on canvas, the charts with chart.js (src/report/charts.ts), the page maps
 * by src/report/page-map-png.ts; a worker thread of
 * rowsim run draws them one a task, so the process that gathers the results loads no canvas.
 */
import { formatSize } from '../util/units.js';
import { metric } from '../heap/metrics.js';
import type { StorageRunResult } from '../workload/runner.js';
import { PALETTE, renderBarChart, renderLineChart, renderStackedLineChart, type Series } from './charts.js';
import { renderPageMap } from './page-map-png.js';
import { lobReadsChart, readCacheChart, readsChart } from './reads-charts.js';
import {
  beforeReorg,
  formatOf,
  keptSharePct,
  keptWord,
  mib,
  movedWord,
  movesRows,
  pageMapCharts,
  peakMoved,
  phaseLabels,
  storageCharts,
  sweepAxis,
  type EntryMetrics,
  type StorageChart,
  type StorageEntry,
} from './storage.js';

/** Writes one file of the results folder (a path relative to it). */
type WriteFile = (rel: string, data: string | Uint8Array) => void;

/** Draw one chart of storageCharts(entries) as a PNG. */
export function renderStorageChart(entries: StorageEntry[], title: string, chart: StorageChart): Buffer {
  const moving = entries.filter(movesRows);
  const keeping = entries.filter((e) => formatOf(e).words.keptUpdates);
  const perPhase = (what: string, yLabel: string, list: StorageEntry[], value: (e: StorageEntry, m: EntryMetrics) => number): Buffer =>
    renderLineChart({
      title: `${title}: ${what} after each phase`,
      xLabel: 'phase (in workload order)',
      yLabel,
      xCategories: phaseLabels(entries),
      series: list.map((e) => ({ label: e.label, points: e.phases.map((p, i) => [i, value(e, p.metrics)] as [number, number]) })),
    });
  const kw = keptWord(keeping);
  switch (chart.kind) {
    case 'moved':
      return movedChart(moving, title);
    case 'kept':
      return keptChart(keeping, title);
    case 'pages':
      return pagesChart(keeping, title);
    case 'engines':
      return enginesChart(entries, title);
    case 'engines-updates':
      return enginesUpdatesChart(entries, title);
    case 'phases-moved':
      return perPhase(`${movedWord(moving)} rows`, `${movedWord(moving)} (rows)`, moving, (_e, m) => m.forwarded_rows);
    case 'phases-kept':
      return perPhase(`${kw} updates (% of the updates so far)`, `${kw} updates (% of updates)`, keeping, keptSharePct);
    case 'phases-pages':
      return perPhase('pages', 'table size (pages)', entries, (_e, m) => m.pages);
    case 'reads':
      return readsChart(entries, title);
    case 'read-cache':
      return readCacheChart(entries, title);
    case 'lob-reads':
      return lobReadsChart(entries, title);
  }
}

/** Write the charts that compare the sweep points; return their paths relative to the results folder. */
export function writeStorageCharts(entries: StorageEntry[], writeFile: WriteFile, title: string): string[] {
  return storageCharts(entries).map((chart) => {
    writeFile(`charts/${chart.file}`, renderStorageChart(entries, title, chart));
    return `charts/${chart.file}`;
  });
}

/** Write one sweep point's page maps; return their paths. */
export function writePageMapCharts(entry: StorageEntry, result: StorageRunResult, writeFile: WriteFile, title: string): string[] {
  return pageMapCharts(entry, result, title).map(({ file, spec }) => {
    writeFile(file, renderPageMap(spec));
    return file;
  });
}

/** Table-scan reads before the first reorg (where there is one) and at the end: series counted in pages. */
function scanReadSeries(entries: StorageEntry[]): Series[] {
  const before = entries.map((e) => beforeReorg(e));
  const label = before.find((b) => b)?.label;
  const series: Series[] = [];
  if (label)
    series.push({
      label: `table-scan page reads before ${label}`,
      points: entries.map((_e, i) => [i, before[i]?.metrics.table_scan_page_reads ?? NaN]),
      dashed: true,
      color: PALETTE[3],
    });
  series.push({
    label: `table-scan page reads${label ? ' at the end' : ''}`,
    points: entries.map((e, i) => [i, e.final.table_scan_page_reads]),
    color: PALETTE[2],
    pointStyle: 'rectRot',
    pointRadius: 7,
  });
  // Large diamonds: where the scan reads only the pages, this line lies under the pages' and its points still show.
  return series;
}

/** Rows that moved away (forwarded, migrated) at their peak and at the end; below them, pages and scan reads. */
function movedChart(entries: StorageEntry[], title: string): Buffer {
  const w = movedWord(entries);
  const { xLabel, categories } = sweepAxis(entries);
  return renderStackedLineChart({
    title: `${title}: ${w} rows and pages`,
    subtitle: `top: peak ${w} rows over the phases and at the end; bottom: pages at the end, and what a table scan reads (the pages and one more for each ${w} row)`,
    panels: [
      {
        xLabel,
        yLabel: `${w} (rows)`,
        xCategories: categories,
        series: [
          { label: `${w} rows (peak, before any reorg)`, points: entries.map((e, i) => [i, peakMoved(e)]), color: PALETTE[0] },
          { label: `${w} rows (at the end)`, points: entries.map((e, i) => [i, e.final.forwarded_rows]), dashed: true, color: PALETTE[5] },
        ],
      },
      {
        xLabel,
        yLabel: 'table size and scan (pages)',
        xCategories: categories,
        series: [
          { label: 'pages (at the end)', points: entries.map((e, i) => [i, e.final.pages]), color: PALETTE[1] },
          ...scanReadSeries(entries),
        ],
      },
    ],
  });
}

/** The share of updates that stayed on their page (PostgreSQL: HOT) and, below, the updates that went to a new page. */
function keptChart(entries: StorageEntry[], title: string): Buffer {
  const kw = keptWord(entries);
  const moved = formatOf(entries[0]!).words.movedRows;
  const { xLabel, categories } = sweepAxis(entries);
  return renderStackedLineChart({
    title: `${title}: ${kw} updates`,
    subtitle: `over the whole workload: ${kw} updates in % of all updates (top); updates ${moved.word} (bottom)`,
    panels: [
      {
        xLabel,
        yLabel: `${kw} updates (% of updates)`,
        xCategories: categories,
        series: [
          { label: `${kw} updates (% of updates)`, points: entries.map((e, i) => [i, keptSharePct(e, e.final)]), color: PALETTE[2] },
        ],
      },
      {
        xLabel,
        yLabel: `${moved.short} updates (count)`,
        xCategories: categories,
        series: [
          {
            label: `updates ${moved.word}`,
            points: entries.map((e, i) => [i, metric(e.final, moved.metric)]),
            dashed: true,
            color: PALETTE[1],
          },
        ],
      },
    ],
  });
}

/** Pages and what a table scan reads, before the first reorg and at the end (formats with no forwarded rows). */
function pagesChart(entries: StorageEntry[], title: string): Buffer {
  const { xLabel, categories } = sweepAxis(entries);
  return renderLineChart({
    title: `${title}: pages and table-scan reads`,
    subtitle: 'pages a table scan reads, before the first reorg and after the whole workload',
    xLabel,
    yLabel: 'table scan (pages)',
    xCategories: categories,
    series: scanReadSeries(entries),
  });
}

function enginesChart(entries: StorageEntry[], title: string): Buffer {
  return renderBarChart({
    title: `${title}: engines side by side`,
    subtitle: `after the whole workload, in MiB (page sizes differ between engines); scan = pages + ${movedWord(entries)}-row hops (+ chained pieces)`,
    categories: entries.map((e) => `${e.label} (${formatSize(e.engine.page_size)} pages)`),
    xLabel: 'engine (page size)',
    yLabel: 'size (MiB)',
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
      { label: `${kw} updates`, values: entries.map((e) => (formatOf(e).words.keptUpdates ? e.final.hot_updates : NaN)) },
      {
        label: 'updates to a new page',
        values: entries.map((e) => (formatOf(e).words.keptUpdates ? metric(e.final, formatOf(e).words.movedRows.metric) : NaN)),
      },
    );
  }
  return renderBarChart({
    title: `${title}: what updates did, per engine`,
    subtitle: `${w} rows at their peak${kw ? `; ${kw} and new-page updates where the engine has them` : ''}`,
    categories: entries.map((e) => e.label),
    xLabel: 'engine',
    yLabel: 'rows and updates (count)',
    series,
  });
}
