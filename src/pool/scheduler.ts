/**
 * Task runners: where rowsim run's tasks go. A pool runner sends them to worker threads, at most one a
 * thread at a time, highest priority first and in the order given among equals: a sweep point's drawings
 * (priority above the points) are made as soon as its simulation is done, not after every other point, so
 * the threads stay busy to the end and the drawings in flight stay few. An in-process runner runs the
 * same tasks, one after the other, on the calling thread: a run of one point starts no pool and loads no
 * piscina. Either way a task is `{ kind, payload }` of src/pool/worker.ts and its result is the same
 * plain data, so the results never depend on which thread ran what.
 *
 * **Lanes.** A thread runs its first tasks of a kind before V8 has optimised their code: a sweep point's
 * simulation and a page map's drawing each cost several times their later runs the first time in a
 * thread (about 0.3 s against 10–80 ms), and each thread loads the modules of what it runs (the engines;
 * the canvas and chart.js). When every thread ran every kind, a second thread paid all of that again and a
 * two-thread sweep of a few points took as long as one thread. So each thread is a lane with a home kind
 * (the kinds the runner is told of, dealt round: with two threads and points and drawings, one thread
 * simulates and the other draws, a pipeline) and loads only its home kinds' modules. A lane takes a task
 * of another kind only (a) when no lane has that kind at home, or (b) once the caller has said no more
 * tasks of the lane's home kinds will come (`done`) and at least two of the other kind are waiting (the
 * lane at home for them is still busy with one, and more are queued behind it). One thread, or one
 * kind: every lane takes everything, as a plain pool.
 */
import type { Task } from './pool.js';
import { fromWorker, workerFile } from './pool.js';
import type { TaskKind, WorkerData } from './worker.js';

export interface TaskRunner {
  /** Worker threads; 0 when the tasks run on the calling thread. */
  readonly threads: number;
  /** Queue a task; higher `priority` goes first (default 0). Resolves with its result. */
  run<R>(task: Task, priority?: number): Promise<R>;
  /** No more tasks of `kind` will be queued: the lanes at home for it may help with other kinds. */
  done(kind: TaskKind): void;
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
  size = 0;

  push(job: Job, priority: number): void {
    let list = this.byPriority.get(priority);
    if (!list) {
      this.byPriority.set(priority, (list = []));
      this.priorities = [...this.byPriority.keys()].sort((a, b) => b - a);
    }
    list.push(job);
    this.size++;
  }

  /** The job shift() would return, left in the queue. */
  peek(): Job | undefined {
    for (const p of this.priorities) {
      const job = this.byPriority.get(p)!.at(0);
      if (job) return job;
    }
    return undefined;
  }

  /** The priority of the job shift() would return (−Infinity when empty). */
  top(): number {
    for (const p of this.priorities) if (this.byPriority.get(p)!.length > 0) return p;
    return -Infinity;
  }

  shift(): Job | undefined {
    for (const p of this.priorities) {
      const job = this.byPriority.get(p)!.shift();
      if (job) {
        this.size--;
        return job;
      }
    }
    return undefined;
  }

  clear(): void {
    this.byPriority.clear();
    this.priorities = [];
    this.size = 0;
  }
}

/** A waiting job of `kind`, with the order it was queued in (ties of priority across kinds go to the earlier). */
interface Queued extends Job {
  seq: number;
}

/**
 * The waiting jobs of a pool runner and which lane may take which (see the header): `take(lane)` is the
 * job the lane runs next, or undefined when it should wait.
 */
export class LaneQueues {
  private readonly queues = new Map<TaskKind, JobQueue>();
  private readonly homes: ReadonlySet<TaskKind>[];
  private readonly homed: ReadonlySet<TaskKind>;
  private readonly finished = new Set<TaskKind>();
  private seq = 0;

  private readonly shared: boolean;

  /**
   * `lanes` lanes whose home kinds are `kinds` dealt round: lane i is at home for kinds[i mod k] when there
   * are at least as many lanes as kinds (k), else for every kinds[j] with j mod lanes = i. One lane, or
   * fewer than two kinds: every lane is at home for every kind.
   */
  constructor(readonly lanes: number, kinds: readonly TaskKind[]) {
    this.shared = lanes < 2 || kinds.length < 2;
    const k = kinds.length;
    this.homes = Array.from({ length: lanes }, (_, lane) =>
      new Set(this.shared ? kinds : k <= lanes ? [kinds[lane % k]!] : kinds.filter((_kind, j) => j % lanes === lane)),
    );
    this.homed = new Set(kinds);
  }

  /** The kinds `lane` is at home for (the modules its thread loads at start). */
  home(lane: number): TaskKind[] {
    return [...this.homes[lane]!];
  }

  push(job: Job, priority: number): void {
    let q = this.queues.get(job.task.kind);
    if (!q) this.queues.set(job.task.kind, (q = new JobQueue()));
    q.push(Object.assign(job, { seq: this.seq++ }) as Queued, priority);
  }

  done(kind: TaskKind): void {
    this.finished.add(kind);
  }

  /** Whether `lane` may take a job of `kind` now. */
  private may(lane: number, kind: TaskKind, waiting: number): boolean {
    const home = this.homes[lane]!;
    if (this.shared || home.has(kind) || !this.homed.has(kind)) return true;
    for (const k of home) if (!this.finished.has(k)) return false;
    return waiting >= 2;
  }

  take(lane: number): Job | undefined {
    let best: JobQueue | undefined;
    let bestPriority = -Infinity;
    let bestSeq = Infinity;
    for (const [kind, q] of this.queues) {
      if (q.size === 0 || !this.may(lane, kind, q.size)) continue;
      const p = q.top();
      const seq = (q.peek() as Queued).seq;
      if (p > bestPriority || (p === bestPriority && seq < bestSeq)) {
        best = q;
        bestPriority = p;
        bestSeq = seq;
      }
    }
    return best?.shift();
  }

  clear(): void {
    this.queues.clear();
  }
}

/**
 * A runner on `threads` worker threads (piscina, loaded here), one lane each (see the header) for the task
 * kinds in `kinds`. The threads start at once and load their home kinds' modules while the caller gets its
 * tasks ready.
 */
export async function poolRunner(threads: number, kinds: readonly TaskKind[] = []): Promise<TaskRunner> {
  const n = Math.max(1, Math.floor(threads));
  const { Piscina } = await import('piscina');
  const queues = new LaneQueues(n, kinds);
  const lanes = Array.from({ length: n }, (_, lane) => ({
    pool: new Piscina({ filename: workerFile(), minThreads: 1, maxThreads: 1, idleTimeout: 1000, workerData: { preload: queues.home(lane) } satisfies WorkerData }),
    busy: false,
  }));
  let closed = false;
  let destroyed: Promise<void> = Promise.resolve();
  const pump = (): void => {
    lanes.forEach((lane, i) => {
      if (closed || lane.busy) return;
      const job = queues.take(i);
      if (!job) return;
      lane.busy = true;
      // The next task is chosen after what the finished one's caller queues in answer to it (a point's
      // page maps, queued when its result arrives, go before the next point): setImmediate runs after
      // those continuations.
      lane.pool.run(job.task).then(
        (result: unknown) => {
          lane.busy = false;
          job.resolve(result);
          setImmediate(pump);
        },
        (err: unknown) => {
          lane.busy = false;
          job.reject(fromWorker(err));
          setImmediate(pump);
        },
      );
    });
  };
  return {
    threads: n,
    run<R>(task: Task, priority = 0): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        if (closed) return;
        queues.push({ task, resolve: resolve as (r: unknown) => void, reject }, priority);
        pump();
      });
    },
    done(kind: TaskKind) {
      queues.done(kind);
      pump();
    },
    close() {
      if (!closed) {
        closed = true;
        queues.clear();
        destroyed = Promise.all(lanes.map((l) => l.pool.destroy())).then(() => undefined);
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
    done() {},
    async close() {
      closed = true;
      queue.clear();
    },
  };
}
