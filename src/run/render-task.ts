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

/**
 * The drawing, then one turn of the thread's event loop before the task ends. The canvas hands pixels
 * read back (getImageData) to JavaScript as buffers whose memory is given back by a finalizer that runs
 * on the event loop, after the garbage collector; a pool thread waits for its next task without turning
 * its loop (piscina's Atomics wait), so without this turn a sweep's page maps kept every strip they read:
 * about 1 MB a map, 1.4 GB resident at 1,000 points.
 */
export async function runTask(payload: unknown): Promise<Uint8Array | Uint8Array[]> {
  const png = render(payload as RenderTask);
  await new Promise<void>((resolve) => setImmediate(resolve));
  return png;
}
