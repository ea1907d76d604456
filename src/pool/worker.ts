/**
 * Worker entry: runs one task. Each kind names a module with `runTask(payload)`; the module is loaded
 * on first use in each worker thread.
 */
/** `drawn-storage`: a storage point with the page drawings report.html opens (rowsim run). */
export type TaskKind = 'storage' | 'drawn-storage' | 'contention' | 'estimate';

const MODULES: Record<TaskKind, string> = {
  storage: '../workload/task.js',
  'drawn-storage': '../mechanism/task.js',
  contention: '../contention/task.js',
  estimate: '../estimate/task.js',
};

interface TaskModule {
  runTask(payload: unknown): unknown;
}

const loaded = new Map<TaskKind, Promise<TaskModule>>();

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
