/**
 * The worker entry of rowsim's pools (src/run/tasks.ts hands it to them): runs one task. Each kind names a
 * module with `runTask(payload)`; the module is loaded on first use in each worker thread, or at a
 * thread's start for the kinds its pool asks it to preload.
 */
import { isMainThread, workerData } from 'node:worker_threads';
import type { WorkerData } from '../pool/pool.js';
import { UserError, WORKER_USER_ERROR_PREFIX } from '../config/errors.js';

/**
 * `storage`: one storage run (bench, tests); `run-point`: a storage sweep point of rowsim run, with its
 * results.json entry, the report's page maps and the page maps to draw; `run-render`: one PNG of a run (a
 * page map or a chart over the sweep points); `contention`: one replication of a contention point;
 * `estimate`: replicates of an estimate's candidate.
 */
export type TaskKind = 'storage' | 'run-point' | 'run-render' | 'contention' | 'estimate';

/** Each kind's module, imported by a literal path so that the bundle of dist/bundle/ (scripts/bundle.mjs) carries it. */
const MODULES: Record<TaskKind, () => Promise<unknown>> = {
  storage: () => import('../workload/task.js'),
  'run-point': () => import('./point-task.js'),
  'run-render': () => import('./render-task.js'),
  contention: () => import('../contention/task.js'),
  estimate: () => import('../estimate/task.js'),
};

interface TaskModule {
  runTask(payload: unknown): unknown;
  /** What a thread at home for the kind sets up as it starts (render-task.ts: chart.js). */
  preload?(): void;
}

const loaded = new Map<TaskKind, Promise<TaskModule>>();

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
const preload = ((workerData as WorkerData | null)?.preload ?? []) as TaskKind[];
await Promise.all(
  preload
    .filter((kind) => MODULES[kind])
    .map((kind) =>
      load(kind)
        .then((mod) => mod.preload?.())
        .catch(() => undefined),
    ),
);

/**
 * One turn of the thread's event loop, after each task. What the canvas hands to JavaScript (the pixels a
 * page map reads back) is given back by finalizers that run on the event loop, after the garbage
 * collector; a pool thread waits for its next task without turning its loop (piscina's Atomics wait), so
 * without this turn a sweep's page maps kept every strip they read: about 1 MB a map, 1.4 GB resident at
 * 1,000 points.
 */
function turnOfTheLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Run one task (in a worker thread, or on the calling thread: TASKS.run of src/run/tasks.ts). */
export default async function run(task: { kind: string; payload: unknown }): Promise<unknown> {
  const kind = task.kind as TaskKind;
  if (!MODULES[kind]) throw new Error(`unknown task kind ${String(task.kind)}`);
  const mod = await load(kind);
  try {
    const result = await mod.runTask(task.payload);
    await turnOfTheLoop();
    return result;
  } catch (err) {
    // A user's error (a statement the server refuses, workload/index-refusal.ts) crosses the thread as a plain
    // Error: its prefix makes it one again (pool.ts fromWorker).
    if (!isMainThread && err instanceof UserError) throw new Error(`${WORKER_USER_ERROR_PREFIX}${err.message}`);
    throw err;
  }
}
