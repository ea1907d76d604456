/**
 * One storage sweep point of `rowsim run` with the drawings report.html opens from its page maps (the
 * first page of every report cell), read where the runner keeps the maps: before each reorganisation and
 * at the end. Run inside rowsim run's point task (src/run/point-task.ts).
 */
import { runStorage, type StorageRunResult } from '../workload/runner.js';
import type { StorageTask } from '../workload/task.js';
import type { PageDrawing } from './drawing.js';
import { reportDrawings } from './report-pages.js';

export type DrawnPageMap = StorageRunResult['pageMaps'][number] & { drawings: PageDrawing[] };
export type DrawnStorageResult = Omit<StorageRunResult, 'pageMaps'> & { pageMaps: DrawnPageMap[] };

export function runDrawnStorage(task: StorageTask): DrawnStorageResult {
  const drawn = new Map<number, PageDrawing[]>();
  const result = runStorage(task.spec, {
    pageMapMaxCells: task.pageMapMaxCells,
    checkInvariants: task.checkInvariants,
    onPageMap: (engine, pm) => drawn.set(pm.after_phase, reportDrawings(task.spec, engine, pm.map.pages)),
  });
  return { ...result, pageMaps: result.pageMaps.map((pm) => ({ ...pm, drawings: drawn.get(pm.after_phase) ?? [] })) };
}
