/**
 * rowsim's task kinds for a pool (src/pool/): the worker entry its threads load (src/run/task-worker.ts,
 * worker.js in the bundle) and the same function for tasks run on the calling thread. A pool is handed
 * TASKS and knows nothing of what its tasks do.
 */
import { compiledWorker, type TaskWorker } from '../pool/pool.js';

export type { TaskKind } from './task-worker.js';

export const TASKS: TaskWorker = {
  file: () => compiledWorker(import.meta.url, 'task-worker.js', 'worker.js'),
  run: async (task) => (await import('./task-worker.js')).default(task),
};
