/**
 * Worker task of rowsim run and merge (`run-render`): a sweep point's page map as a PNG, or the charts
 * that compare the sweep points (report/storage.ts says which a run has), all of them in one task. One
 * thread then draws every chart: chart.js is loaded and its code compiled in that thread only (a
 * thread's first chart costs two to three times the later ones). The chart scale (`--scale`) travels
 * with the task: a worker thread has its own.
 */
import { loadChartJs, setChartScale } from '../report/charts.js';
import { renderPageMap, type PageMapSpec } from '../report/page-map-png.js';
import { storageCharts, type StorageChart, type StorageEntry } from '../report/storage.js';
import { renderStorageChart } from '../report/storage-charts.js';

export type RenderTask =
  | { what: 'page-map'; spec: PageMapSpec; scale: number }
  | { what: 'storage-charts'; entries: StorageEntry[]; title: string; charts: StorageChart[]; scale: number }
  | {
      what: 'warm-up';
      entry: StorageEntry;
      title: string;
      scale: number;
      /** Shared with the caller, who sets it to 1 as the run's charts are queued: a warm-up that starts later does nothing. */
      late: Int32Array;
    };

/**
 * A thread whose pool has it draw (src/run/task-worker.ts, its home kinds) loads chart.js as it starts,
 * rather than on the charts over the sweep points, which come at the end of the run. A thread that only
 * helps with page maps never loads it.
 */
export function preload(): void {
  loadChartJs();
}

/**
 * `warm-up`: the first chart over one point, drawn and thrown away, so that a thread's first chart, two to
 * three times as costly as the later ones, is not one of the run's (src/run/execute.ts queues it behind
 * the page maps as the first point comes: the drawing thread has time then, and none once every point is
 * simulated and the charts are what the run waits for; one that has not started by then is skipped). Its
 * PNG is not returned.
 */
function warmUp(entry: StorageEntry, title: string, late: Int32Array): Uint8Array[] {
  if (Atomics.load(late, 0) !== 0) return [];
  const first = storageCharts([entry])[0];
  if (first) renderStorageChart([entry], title, first);
  return [];
}

/** A page map's PNG, or the PNGs of the charts, in the order of `charts` (none for a warm-up). */
export function render(task: RenderTask): Uint8Array | Uint8Array[] {
  const before = setChartScale(task.scale);
  try {
    if (task.what === 'warm-up') return warmUp(task.entry, task.title, task.late);
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
