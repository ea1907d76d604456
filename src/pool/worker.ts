/**
 * Worker entry: runs one task. Each kind names a module with `runTask(payload)`; the module is loaded
 * on first use in each worker thread.
 */
/**
 * `run-point`: a storage sweep point of rowsim run, with its results.json entry, the report's page maps and
 * the page maps to draw; `run-render`: one PNG of a run (a page map or a chart over the sweep points).
 */
export type TaskKind = 'storage' | 'run-point' | 'run-render' | 'contention' | 'estimate';

const MODULES: Record<TaskKind, string> = {
  storage: '../workload/task.js',
  'run-point': '../run/point-task.js',
  'run-render': '../run/render-task.js',
  contention: '../contention/task.js',
  estimate: '../estimate/task.js',
};

interface TaskModule {
  runTask(payload: unknown): unknown;
}

const loaded = new Map<TaskKind, Promise<TaskModule>>();

/** Run one task (in a worker thread, or on the calling thread: src/pool/scheduler.ts inProcessRunner). */
export default async function run(task: { kind: TaskKind; payload: unknown }): Promise<unknown> {
  const path = MODULES[task.kind];
  if (!path) throw new Error(`unknown task kind ${String(task.kind)}`);
  let mod = loaded.get(task.kind);
  if (!mod) {
    mod = import(path) as Promise<TaskModule>;
    loaded.set(task.kind, mod);
  }
  return (await mod).runTask(task.payload);
}
