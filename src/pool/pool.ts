/**
 * The worker pool: one task per grid point (storage sweep point, contention point, estimate candidate)
 * on a piscina pool. Results come back in task order whatever the finishing order, so a run gives the
 * same results for any worker count. piscina is loaded when the first pool starts, so commands that only
 * ask how many workers there would be (validate, rowsize) do not load it.
 *
 * A pool knows no task kind: it is handed a TaskWorker, the module its threads load, which runs a task
 * by its kind (rowsim's: TASKS of src/run/tasks.ts).
 */
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError, WORKER_USER_ERROR_PREFIX } from '../config/errors.js';

export interface Task<P = unknown> {
  kind: string;
  payload: P;
}

/**
 * What a pool's tasks run on: `file()`, the worker entry its threads load (piscina's filename: a module
 * whose default export runs one task), and `run`, the same for a task run on the calling thread.
 */
export interface TaskWorker {
  file(): string;
  run(task: Task): Promise<unknown>;
}

/** What a pool gives its threads (piscina's workerData): the task kinds whose modules to load at start. */
export interface WorkerData {
  preload: string[];
}

interface PoolOptions {
  /** Worker threads; default: the number of cores. */
  workers?: number;
  /** Called after each finished task with the number done and the total. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * The file a pool's threads load for the worker entry `entry`, beside the module whose import.meta.url is
 * `moduleUrl`. Under vitest that module is TypeScript source: the build in dist/. In the bundle (dist/bundle/,
 * scripts/bundle.mjs) the entry is `bundled`, beside it. From dist/, the bundle's when it is as new as this
 * build (a thread then loads a few files instead of hundreds of modules), else the compiled entry.
 */
export function compiledWorker(moduleUrl: string, entry: string, bundled: string): string {
  const here = fileURLToPath(moduleUrl);
  const dir = dirname(here);
  if (here.endsWith('.ts')) {
    const src = dir.lastIndexOf(`${sep}src`);
    return join(dir.slice(0, src), 'dist', dir.slice(src + 4), entry);
  }
  if (basename(dir) === 'bundle') return resolve(dir, bundled);
  const own = resolve(dir, entry);
  const bundle = resolve(dir, '..', 'bundle', bundled);
  try {
    if (process.env.ROWSIM_BUNDLE !== '0' && statSync(bundle).mtimeMs >= statSync(own).mtimeMs) return bundle;
  } catch {
    // No bundle.
  }
  return own;
}

export function defaultWorkers(): number {
  return Math.max(1, availableParallelism());
}

/** Run every task on a pool of `workers` threads loading `worker`; resolve with the results in task order. */
export async function runTasks<R>(worker: TaskWorker, tasks: readonly Task[], options: PoolOptions = {}): Promise<R[]> {
  const results: R[] = new Array<R>(tasks.length);
  await runTasksEach<R>(worker, tasks, (i, r) => (results[i] = r), options);
  return results;
}

/**
 * Run every task on a pool and hand each result to `onResult(index, result)` as it arrives, without
 * keeping it: a large sweep is written out point by point instead of held in memory.
 */
export async function runTasksEach<R>(
  worker: TaskWorker,
  tasks: readonly Task[],
  onResult: (index: number, result: R) => void,
  options: PoolOptions = {},
): Promise<void> {
  if (tasks.length === 0) return;
  const threads = Math.max(1, Math.min(options.workers ?? defaultWorkers(), tasks.length));
  const { Piscina } = await import('piscina');
  const pool = new Piscina({ filename: worker.file(), minThreads: threads, maxThreads: threads, idleTimeout: 1000 });
  let done = 0;
  try {
    await Promise.all(
      tasks.map(async (task, i) => {
        let result: R;
        try {
          result = (await pool.run(task)) as R;
        } catch (err) {
          throw fromWorker(err);
        }
        done += 1;
        onResult(i, result);
        options.onProgress?.(done, tasks.length);
      }),
    );
  } finally {
    await pool.destroy();
  }
}

/** A task's error as the command reports it: a user's mistake found in a worker (WORKER_USER_ERROR_PREFIX) is a UserError, exit 2. */
export function fromWorker(err: unknown): unknown {
  const message = (err as Error)?.message ?? '';
  return typeof message === 'string' && message.startsWith(WORKER_USER_ERROR_PREFIX)
    ? new UserError(message.slice(WORKER_USER_ERROR_PREFIX.length))
    : err;
}

/**
 * A pool that runs several batches of tasks and is destroyed once (rowsim estimate's rounds): its
 * threads start with the first batch and keep their loaded modules and warm code for the next ones.
 * Results come back in task order, as with runTasks. `close()` destroys it; a closed pool refuses work.
 */
export interface TaskPool {
  /**
   * Run one batch; resolve with its results in task order. `onProgress` sees this batch's tasks done,
   * `onTask` the index of each task as it finishes.
   */
  run<R>(tasks: readonly Task[], onProgress?: (done: number, total: number) => void, onTask?: (index: number) => void): Promise<R[]>;
  close(): Promise<void>;
}

/**
 * A reusable pool of `workers` threads (default: the number of cores) loading `worker`, started when the
 * first batch comes, or at once with `start`: its threads then boot and load the modules of the `preload`
 * task kinds while the caller gets its first batch ready.
 */
export function openPool(
  worker: TaskWorker,
  options: Pick<PoolOptions, 'workers'> & { start?: boolean; preload?: readonly string[] } = {},
): TaskPool {
  const threads = Math.max(1, options.workers ?? defaultWorkers());
  const workerData: WorkerData = { preload: [...(options.preload ?? [])] };
  let started: Promise<{ run(task: Task): Promise<unknown>; destroy(): Promise<void> }> | undefined;
  let closed = false;
  const start = () =>
    (started ??= import('piscina').then(
      ({ Piscina }) => new Piscina({ filename: worker.file(), minThreads: threads, maxThreads: threads, idleTimeout: 1000, workerData }),
    ));
  if (options.start) start().catch(() => {}); // a failure to start is the first batch's (or close()'s) to report
  return {
    async run<R>(
      tasks: readonly Task[],
      onProgress?: (done: number, total: number) => void,
      onTask?: (index: number) => void,
    ): Promise<R[]> {
      if (closed) throw new Error('openPool: run() after close()');
      const results: R[] = new Array<R>(tasks.length);
      if (tasks.length === 0) return results;
      const pool = await start();
      let done = 0;
      await Promise.all(
        tasks.map(async (task, i) => {
          try {
            results[i] = (await pool.run(task)) as R;
          } catch (err) {
            throw fromWorker(err);
          }
          done += 1;
          onTask?.(i);
          onProgress?.(done, tasks.length);
        }),
      );
      return results;
    },
    async close(): Promise<void> {
      closed = true;
      if (started) await (await started).destroy();
    },
  };
}
