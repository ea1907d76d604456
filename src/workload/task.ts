/** Worker task: run one storage sweep point. */
import type { StorageSpec } from '../config/spec.js';
import { runStorage, type StorageRunResult } from './runner.js';
import type { PageDrawing } from '../mechanism/drawing.js';
import { pageMapPhases, reportDrawings } from '../mechanism/report-pages.js';

export interface StorageTask {
  spec: StorageSpec;
  /** Page maps of at most this many cells (RUN_DEFAULTS.pageMapMaxCells). */
  pageMapMaxCells: number;
  /** Check the page engine's invariants after every phase. */
  checkInvariants: boolean;
  /** Draw the pages report.html opens from its page maps (the first page of each report cell). */
  drawings?: boolean;
}

export function runTask(payload: unknown): StorageRunResult {
  const task = payload as StorageTask;
  if (!task.drawings) return runStorage(task.spec, { pageMapMaxCells: task.pageMapMaxCells, checkInvariants: task.checkInvariants });
  // The drawings report.html opens from its page maps, read where the runner keeps the maps.
  const phases = pageMapPhases(task.spec);
  const drawn = new Map<number, PageDrawing[]>();
  const result = runStorage(task.spec, {
    pageMapMaxCells: task.pageMapMaxCells,
    checkInvariants: task.checkInvariants,
    afterPhase: (engine, index) => {
      if (phases.has(index)) drawn.set(index, reportDrawings(task.spec, engine));
    },
  });
  for (const pm of result.pageMaps) pm.drawings = drawn.get(pm.after_phase) ?? [];
  return result;
}
