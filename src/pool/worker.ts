import { workerData } from 'node:worker_threads';

/**
 * Worker entry: runs one task. Each kind names a module with `runTask(payload)`; the module is loaded
 * on first use in each worker thread.
 */
/**
 * `run-point`: a storage sweep point of rowsim run, with its results.json entry, the report's page maps and
 * the page maps to draw; `run-render`: one PNG of a run (a page map or a chart over the sweep points).
 */
export type TaskKind = 'storage' | 'run-point' | 'run-render' | 'contention' | 'estimate';

/** Each kind's module, imported by a literal path so that the bundle of dist/bundle/ (scripts/bundle.mjs) carries it. */
const MODULES: Record<TaskKind, () => Promise<unknown>> = {
  storage: () => import('../workload/task.js'),
  'run-point': () => import('../run/point-task.js'),
  'run-render': () => import('../run/render-task.js'),
  contention: () => import('../contention/task.js'),
  estimate: () => import('../estimate/task.js'),
};

interface TaskModule {
  runTask(payload: unknown): unknown;
}

const loaded = new Map<TaskKind, Promise<TaskModule>>();

/** What a pool gives its threads (piscina's workerData): the task kinds whose modules to load at start. */
export interface WorkerData {
  preload: TaskKind[];
}

function load(kind: TaskKind): Promise<TaskModule> {
  let mod = loaded.get(kind);
  if (!mod) {
    mod = MODULES[kind]() as Promise<TaskModule>;
    loaded.set(kind, mod);
  }
  return mod;
}

// In a pool's thread: load what its tasks will need before the thread says it is ready (piscina then
// waits for tasks in Atomics.wait, where a pending import would stand still). A failure is reported by
// the first task that needs the module.
const preload = (workerData as WorkerData | null)?.preload ?? [];
await Promise.all(preload.filter((kind) => MODULES[kind]).map((kind) => load(kind).catch(() => undefined)));

/** Run one task (in a worker thread, or on the calling thread: src/pool/scheduler.ts inProcessRunner). */
export default async function run(task: { kind: TaskKind; payload: unknown }): Promise<unknown> {
  if (!MODULES[task.kind]) throw new Error(`unknown task kind ${String(task.kind)}`);
  return (await load(task.kind)).runTask(task.payload);
}
