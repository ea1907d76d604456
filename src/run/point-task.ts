/**
 * Worker task of rowsim run (`run-point`): one storage sweep point, all that a run keeps of it. The
 * simulation with the page drawings report.html opens, the point's results.json entry, the report's page
 * maps (cells and gzipped drawings) and the page maps to draw as PNGs (each a `run-render` task of its
 * own, src/run/render-task.ts, so that the threads share the drawing). Everything returned is plain data.
 */
import type { SweepPoint } from '../config/spec.js';
import { runDrawnStorage } from '../mechanism/task.js';
import type { PageMapSpec } from '../report/page-map-png.js';
import type { ReportPageMap } from '../report/html.js';
import { reportPageMaps } from '../report/report-maps.js';
import { pageMapCharts, storageEntry, type StorageEntry } from '../report/storage.js';

export interface PointTask {
  point: SweepPoint;
  /** The run's name: the page maps' titles begin with it. */
  title: string;
  /** Page maps of at most this many cells (RUN_DEFAULTS.pageMapMaxCells). */
  pageMapMaxCells: number;
  /** Check the page engine's invariants after every phase. */
  checkInvariants: boolean;
}

export interface PointResult {
  entry: StorageEntry;
  /** The page maps' PNG paths in the results folder (charts/pagemap-….png), in the runner's order. */
  charts: string[];
  /** What report.html shows of each page map. */
  reportMaps: ReportPageMap[];
  /** The page maps to draw, in the order of `charts`. */
  pageMaps: PageMapSpec[];
}

export function runPoint(task: PointTask): PointResult {
  const result = runDrawnStorage({ spec: task.point.spec, pageMapMaxCells: task.pageMapMaxCells, checkInvariants: task.checkInvariants });
  const entry = storageEntry(task.point, result);
  const maps = pageMapCharts(entry, result, task.title);
  const charts = maps.map((m) => m.file);
  return { entry, charts, reportMaps: reportPageMaps(entry, result, charts), pageMaps: maps.map((m) => m.spec) };
}

export function runTask(payload: unknown): PointResult {
  return runPoint(payload as PointTask);
}
