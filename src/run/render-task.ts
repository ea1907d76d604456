/**
 * Worker task of rowsim run and merge (`run-render`): a sweep point's page map as a PNG, or the charts
 * that compare the sweep points (report/storage.ts says which a run has), all of them in one task. One
 * thread then draws every chart: chart.js is loaded and its code compiled in that thread only (a
 * thread's first chart costs two to three times the later ones). The chart scale (`--scale`) travels
 * with the task: a worker thread has its own.
 */
import { loadChartJs, setChartScale } from '../report/charts.js';
import { renderPageMap, type PageMapSpec } from '../report/page-map-png.js';
import type { StorageChart, StorageEntry } from '../report/storage.js';
import { renderStorageChart } from '../report/storage-charts.js';

export type RenderTask =
  | { what: 'page-map'; spec: PageMapSpec; scale: number }
  | { what: 'storage-charts'; entries: StorageEntry[]; title: string; charts: StorageChart[]; scale: number };

/**
 * A thread whose pool has it draw (src/run/task-worker.ts, its home kinds) loads chart.js as it starts,
 * rather than on the charts over the sweep points, which come at the end of the run. A thread that only
 * helps with page maps never loads it.
 */
export function preload(): void {
  loadChartJs();
}

/** A page map's PNG, or the PNGs of the charts, in the order of `charts`. */
export function render(task: RenderTask): Uint8Array | Uint8Array[] {
  const before = setChartScale(task.scale);
  try {
    return task.what === 'page-map'
      ? renderPageMap(task.spec)
      : task.charts.map((chart) => renderStorageChart(task.entries, task.title, chart));
  } finally {
    setChartScale(before);
  }
}

export function runTask(payload: unknown): Uint8Array | Uint8Array[] {
  return render(payload as RenderTask);
}
