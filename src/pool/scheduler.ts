/**
 * Task runners: where rowsim run's tasks go. A pool runner sends them to piscina worker threads, at most
 * one a thread at a time, highest priority first and in the order given among equals: a sweep point's
 * drawings (priority above the points) are made as soon as its simulation is done, not after every other
 * point, so the threads stay busy to the end and the drawings in flight stay few. An in-process runner
 * runs the same tasks, one after the other, on the calling thread: a run of one point starts no pool and
 * loads no piscina. Either way a task is `{ kind, payload }` of src/pool/worker.ts and its result is the
 * same plain data.
 */
import type { Task } from './pool.js';
import { fromWorker, workerFile } from './pool.js';
import type { TaskKind, WorkerData } from './worker.js';

export interface TaskRunner {
  /** Worker threads; 0 when the tasks run on the calling thread. */
  readonly threads: number;
  /** Queue a task; higher `priority` goes first (default 0). Resolves with its result. */
  run<R>(task: Task, priority?: number): Promise<R>;
  /** End the runner: tasks not started are dropped (their promises never settle), the threads stop. */
  close(): Promise<void>;
}

interface Job {
  task: Task;
  resolve(result: unknown): void;
  reject(err: unknown): void;
}

/** Jobs by priority, first in first out within one. */
class JobQueue {
  private readonly byPriority = new Map<number, Job[]>();
  private priorities: number[] = [];

  push(job: Job, priority: number): void {
    let list = this.byPriority.get(priority);
    if (!list) {
      this.byPriority.set(priority, (list = []));
      this.priorities = [...this.byPriority.keys()].sort((a, b) => b - a);
    }
    list.push(job);
  }

  shift(): Job | undefined {
    for (const p of this.priorities) {
      const job = this.byPriority.get(p)!.shift();
      if (job) return job;
    }
    return undefined;
  }

  clear(): void {
    this.byPriority.clear();
    this.priorities = [];
  }
}

/**
 * A runner on `threads` worker threads (piscina, loaded here). The threads start at once and load the
 * modules of the `preload` task kinds while the caller gets its tasks ready.
 */
export async function poolRunner(threads: number, preload: readonly TaskKind[] = []): Promise<TaskRunner> {
  const n = Math.max(1, Math.floor(threads));
  const { Piscina } = await import('piscina');
  const pool = new Piscina({ filename: workerFile(), minThreads: n, maxThreads: n, idleTimeout: 1000, workerData: { preload: [...preload] } satisfies WorkerData });
  const queue = new JobQueue();
  let busy = 0;
  let closed = false;
  let destroyed: Promise<void> = Promise.resolve();
  const pump = (): void => {
    while (!closed && busy < n) {
      const job = queue.shift();
      if (!job) return;
      busy++;
      // The next task is chosen after what the finished one's caller queues in answer to it (a point's
      // page maps, queued when its result arrives, go before the next point): setImmediate runs after
      // those continuations.
      pool.run(job.task).then(
        (result: unknown) => {
          busy--;
          job.resolve(result);
          setImmediate(pump);
        },
        (err: unknown) => {
          busy--;
          job.reject(fromWorker(err));
          setImmediate(pump);
        },
      );
    }
  };
  return {
    threads: n,
    run<R>(task: Task, priority = 0): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        if (closed) return;
        queue.push({ task, resolve: resolve as (r: unknown) => void, reject }, priority);
        pump();
      });
    },
    close() {
      if (!closed) {
        closed = true;
        queue.clear();
        destroyed = pool.destroy();
      }
      return destroyed;
    },
  };
}

/** A runner on the calling thread: each task in turn, the event loop served between two tasks. */
export function inProcessRunner(): TaskRunner {
  const queue = new JobQueue();
  let running = false;
  let closed = false;
  const drain = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      const { default: runTask } = await import('./worker.js');
      for (let job = queue.shift(); job && !closed; job = queue.shift()) {
        try {
          job.resolve(await runTask(job.task));
        } catch (err) {
          job.reject(fromWorker(err));
        }
        // Let I/O, timers and signals in before the next task.
        await new Promise<void>((r) => setImmediate(r));
      }
    } finally {
      running = false;
    }
  };
  return {
    threads: 0,
    run<R>(task: Task, priority = 0): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        if (closed) return;
        queue.push({ task, resolve: resolve as (r: unknown) => void, reject }, priority);
        void drain();
      });
    },
    async close() {
      closed = true;
      queue.clear();
    },
  };
}
