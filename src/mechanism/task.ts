/**
 * Worker task of `rowsim run`: one storage sweep point, with the drawings report.html opens from its page
 * maps (the first page of every report cell), read where the runner keeps the maps: before each
 * reorganisation and at the end.
 */
import { runStorage, type StorageRunResult } from '../workload/runner.js';
import type { StorageTask } from '../workload/task.js';
import type { PageDrawing } from './drawing.js';
import { pageMapPhases, reportDrawings } from './report-pages.js';

export type DrawnPageMap = StorageRunResult['pageMaps'][number] & { drawings: PageDrawing[] };
export type DrawnStorageResult = Omit<StorageRunResult, 'pageMaps'> & { pageMaps: DrawnPageMap[] };

export function runTask(payload: unknown): DrawnStorageResult {
  const task = payload as StorageTask;
  const phases = pageMapPhases(task.spec);
  const drawn = new Map<number, PageDrawing[]>();
  const result = runStorage(task.spec, {
    pageMapMaxCells: task.pageMapMaxCells,
    checkInvariants: task.checkInvariants,
    afterPhase: (engine, index) => {
      if (phases.has(index)) drawn.set(index, reportDrawings(task.spec, engine));
    },
  });
  return { ...result, pageMaps: result.pageMaps.map((pm) => ({ ...pm, drawings: drawn.get(pm.after_phase) ?? [] })) };
}
