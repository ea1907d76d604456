/**
 * Worker task of rowsim run and merge (`run-render`): one PNG. A sweep point's page map, or one of the
 * charts that compare the sweep points (report/storage.ts says which a run has). The chart scale
 * (`--scale`) travels with the task: a worker thread has its own.
 */
import { loadChartJs, setChartScale } from '../report/charts.js';
import { renderPageMap, type PageMapSpec } from '../report/page-map-png.js';
import type { StorageChart, StorageEntry } from '../report/storage.js';
import { renderStorageChart } from '../report/storage-charts.js';

export type RenderTask =
  | { what: 'page-map'; spec: PageMapSpec; scale: number }
  | { what: 'storage-chart'; entries: StorageEntry[]; title: string; chart: StorageChart; scale: number };

// A run's threads load this module as they start (src/cli/run.ts): chart.js with it, rather than on the
// first chart over the sweep points, which comes at the end of the run, when the last maps are drawn.
loadChartJs();

export function render(task: RenderTask): Uint8Array {
  const before = setChartScale(task.scale);
  try {
    return task.what === 'page-map' ? renderPageMap(task.spec) : renderStorageChart(task.entries, task.title, task.chart);
  } finally {
    setChartScale(before);
  }
}

export function runTask(payload: unknown): Uint8Array {
  return render(payload as RenderTask);
}
