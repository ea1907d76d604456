/**
 * What report.html shows of a sweep point's page maps, made where the point runs (a worker thread of
 * rowsim run): the report's cells of each map and the drawings of their first pages, gzipped. The page
 * itself is put together by html.ts.
 */
import { gzipSync } from 'node:zlib';
import type { PageDrawing } from '../mechanism/drawing.js';
import type { PageMapCells } from '../workload/page-map.js';
import type { DrawnStorageResult } from '../mechanism/task.js';
import type { StorageEntry } from './storage.js';
import type { ReportPageMap } from './html.js';
import { reportCellPages } from '../mechanism/report-pages.js';
import { groupedNumber } from '../util/numbers.js';

/**
 * The report's cells of a page map: `cellPages` pages each (reportCellPages: a bounded number of cells, REPORT_MAP_CELLS), their
 * mean fill and their stubs and forwarded rows summed. The run's map may already hold several pages a cell
 * (page-map.ts, for the PNG); each of its cells counts in the report cell that holds its first page.
 */
export function pageMapCells(map: PageMapCells): Pick<ReportPageMap, 'pages' | 'cellPages' | 'fill' | 'stubs' | 'forwardedIn'> {
  const pages = map.pages;
  const cellPages = reportCellPages(pages);
  const cells = Math.ceil(pages / cellPages);
  const sum = new Float64Array(cells);
  const known = new Float64Array(cells);
  const stubs: number[] = new Array<number>(cells).fill(0);
  const forwardedIn: number[] = new Array<number>(cells).fill(0);
  for (let m = 0; m < map.fill.length; m++) {
    const first = m * map.pagesPerCell;
    const c = Math.min(cells - 1, Math.floor(first / cellPages));
    const n = Math.min(pages, first + map.pagesPerCell) - first;
    const v = map.fill[m]!;
    if (Number.isFinite(v)) {
      sum[c] = sum[c]! + v * n;
      known[c] = known[c]! + n;
    }
    stubs[c] = stubs[c]! + (map.stubs[m] ?? 0);
    forwardedIn[c] = forwardedIn[c]! + (map.forwardedIn[m] ?? 0);
  }
  const fill = Array.from(sum, (v, c) => (known[c]! > 0 ? Math.round((100 * v) / known[c]!) : -1));
  return { pages, cellPages, fill, stubs, forwardedIn };
}

/**
 * The drawings of a map, small: what every drawing has alike (the format's title, header, slot array,
 * words, notes) once as `common`, each page's own fields in `pages`; JSON, gzipped, base64.
 */
export function packDrawings(drawings: readonly (PageDrawing | null | undefined)[]): string {
  const present = drawings.filter((d): d is PageDrawing => d != null) as unknown as Record<string, unknown>[];
  const common: Record<string, unknown> = {};
  const first = present[0];
  if (first) {
    for (const key of Object.keys(first)) {
      const v = JSON.stringify(first[key]);
      if (present.every((d) => JSON.stringify(d[key]) === v)) common[key] = first[key];
    }
  }
  const pages = drawings.map((d) => {
    if (d == null) return null;
    const own: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(d)) if (!(k in common)) own[k] = v;
    return own;
  });
  return gzipSync(JSON.stringify({ common, pages }), { level: 6 }).toString('base64');
}

/** One sweep point's page maps for the report; `charts` are their PNGs, in the order of `result.pageMaps`. */
export function reportPageMaps(entry: StorageEntry, result: DrawnStorageResult, charts: readonly string[]): ReportPageMap[] {
  return result.pageMaps.map((pm, j) => {
    const phase = entry.phases[pm.after_phase];
    const cells = pageMapCells(pm.map);
    // One drawing a cell (its first page), or none: a drawing is never shown for another cell's page.
    const drawings = pm.drawings?.length === cells.fill.length ? pm.drawings : undefined;
    return {
      chart: charts[j]!,
      title: `${entry.label}: page map ${pm.label}`,
      subtitle: `after phase ${pm.after_phase + 1} (${phase?.label ?? ''}); ${groupedNumber(phase?.metrics.rows ?? result.final.rows)} rows`,
      ...cells,
      ...(drawings ? { drawings: packDrawings(drawings) } : {}),
    };
  });
}
