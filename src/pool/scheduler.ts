/**
 * Task runners: where rowsim run's tasks go. A pool runner sends them to worker threads, at most one a
 * thread at a time, highest priority first and in the order given among equals: a sweep point's drawings
 * (priority above the points) are made as soon as its simulation is done, not after every other point, so
 * the threads stay busy to the end and the drawings in flight stay few. An in-process runner runs the
 * same tasks, one after the other, on the calling thread: a run of one point starts no pool and loads no
 * piscina. Either way a task is `{ kind, payload }`, run by the TaskWorker the runner is given (rowsim's:
 * src/run/tasks.ts), and its result is the same plain data, so the results never depend on which thread
 * ran what.
 *
 * **Lanes.** A thread runs its first tasks of a kind before V8 has optimised their code: a sweep point's
 * simulation and a page map's drawing each cost several times their later runs the first time in a
 * thread (about 0.3 s against 10–80 ms), and each thread loads the modules of what it runs (the engines;
 * the canvas and chart.js). When every thread ran every kind, a second thread paid all of that again and a
 * two-thread sweep of a few points took as long as one thread. So each thread is a lane with a home kind
 * (the kinds the runner is told of, dealt round: with two threads and points and drawings, one thread
 * simulates and the other draws, a pipeline) and loads only its home kinds' modules. A lane with nothing
 * of its own to do takes a task of another kind when
 *
 *   (a) no lane has that kind at home (a contention replication in a storage run);
 *   (b) the caller has said no more tasks of the lane's home kinds will come (`done`), at least two of
 *       the other kind are waiting (its home lane is busy with one, and more are queued behind it), and
 *       they would keep the home lane at least WARM_UP_MS (their number times the shortest warm run of
 *       the kind), so that the helper's cold start is worth it: a few page maps left at the end of a
 *       small sweep are drawn by the thread that has drawn the others, the backlog of a large one shared.
 *       The helper takes the second in line and leaves the first to the home lane, warm for the kind
 *       (the charts over a sweep's points, queued ahead of its last page maps, are drawn where chart.js
 *       is loaded and its code compiled, not in a thread that would load it for them); or
 *   (c) a task of that kind takes at least WARM_UP_MS once warm, so that a cold start is worth it: the
 *       shortest run of the kind that was not its thread's first, or, before there is one, the longest
 *       a first run has taken or been running so far less WARM_UP_MS (a sweep of large points shares them
 *       out as soon as the first one has run that long; the runner looks again every POLL_MS while a lane
 *       idles and work waits).
 *
 * One thread, or one kind: every lane takes everything, as a plain pool.
 */
import type { Task, TaskWorker, WorkerData } from './pool.js';
import { fromWorker } from './pool.js';

/** A task's kind, as its TaskWorker knows it. */
type TaskKind = string;

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

  /** The job shift() would return second, taken out of the queue (undefined with fewer than two). */
  shiftSecond(): Job | undefined {
    let skip = 1;
    for (const p of this.priorities) {
      const list = this.byPriority.get(p)!;
      if (list.length > skip) {
        this.size--;
        return list.splice(skip, 1)[0];
      }
      skip -= list.length;
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

/** About what a thread's first tasks of a kind cost over their later runs (module loading and compilation). */
export const WARM_UP_MS = 300;
/** How often a runner with an idle lane and waiting work of another kind looks again (rule (c)). */
const POLL_MS = 50;

/**
 * The waiting jobs of a pool runner and which lane may take which (see the header): `take(lane, now)` is
 * the job the lane runs next, or undefined when it should wait; `finish(lane, now)` when its job is done.
 * Times are milliseconds of any clock that only goes forward.
 */
export class LaneQueues {
  private readonly queues = new Map<TaskKind, JobQueue>();
  private readonly homes: ReadonlySet<TaskKind>[];
  private readonly homed: ReadonlySet<TaskKind>;
  private readonly shared: boolean;
  private readonly finished = new Set<TaskKind>();
  /** Kinds each lane has run (or is running). */
  private readonly ran: Set<TaskKind>[];
  /** What each lane is running: its kind, when it started, and whether it is the lane's first of the kind. */
  private readonly running: ({ kind: TaskKind; start: number; first: boolean } | undefined)[];
  /** The shortest run of each kind that was not its lane's first. */
  private readonly warm = new Map<TaskKind, number>();
  /** The longest first run of each kind. */
  private readonly cold = new Map<TaskKind, number>();
  private seq = 0;

  /**
   * `lanes` lanes whose home kinds are `kinds` dealt round: lane i is at home for kinds[i mod k] when there
   * are at least as many lanes as kinds (k), else for every kinds[j] with j mod lanes = i. One lane, or
   * fewer than two kinds: every lane is at home for every kind.
   */
  constructor(
    readonly lanes: number,
    kinds: readonly TaskKind[],
  ) {
    this.shared = lanes < 2 || kinds.length < 2;
    const k = kinds.length;
    this.homes = Array.from(
      { length: lanes },
      (_, lane) => new Set(this.shared ? kinds : k <= lanes ? [kinds[lane % k]!] : kinds.filter((_kind, j) => j % lanes === lane)),
    );
    this.homed = new Set(kinds);
    this.ran = Array.from({ length: lanes }, () => new Set<TaskKind>());
    this.running = new Array(lanes).fill(undefined);
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

  /** Whether jobs wait that some lane may take later without any job finishing (rule (c) over time). */
  waitingForTime(): boolean {
    for (const q of this.queues.values()) if (q.size > 0) return this.running.some((r) => r === undefined);
    return false;
  }

  /** How long a warm run of `kind` takes at least, as far as is known at `now` (0: nothing known). */
  private warmMs(kind: TaskKind, now: number): number {
    const w = this.warm.get(kind);
    if (w !== undefined) return w;
    let longest = this.cold.get(kind) ?? 0;
    for (const r of this.running)
      if (r && r.kind === kind) longest = Math.max(longest, r.first ? now - r.start : now - r.start + WARM_UP_MS);
    return longest - WARM_UP_MS;
  }

  /** Whether `lane` may take a job of `kind` now, with `waiting` of them queued: the first in line, the second (rule (b)) or none. */
  private may(lane: number, kind: TaskKind, waiting: number, now: number): 'first' | 'second' | false {
    const home = this.homes[lane]!;
    if (this.shared || home.has(kind) || !this.homed.has(kind)) return 'first';
    const warm = this.warmMs(kind, now);
    if (warm >= WARM_UP_MS) return 'first';
    let homeDone = true;
    for (const k of home) if (!this.finished.has(k)) homeDone = false;
    return homeDone && waiting >= 2 && waiting * warm >= WARM_UP_MS ? 'second' : false;
  }

  /** The job `lane` runs next (its home kinds first, then what it may take of others), or undefined. */
  take(lane: number, now: number): Job | undefined {
    const home = this.homes[lane]!;
    let best: JobQueue | undefined;
    let bestKind: TaskKind | undefined;
    let bestRank = -1;
    let bestPriority = -Infinity;
    let bestSeq = Infinity;
    let bestWhich: 'first' | 'second' = 'first';
    for (const [kind, q] of this.queues) {
      const which = q.size === 0 ? false : this.may(lane, kind, q.size, now);
      if (!which) continue;
      // Its own kinds before another's; then priority; then the order queued.
      const rank = this.shared || home.has(kind) ? 1 : 0;
      const p = q.top();
      const seq = (q.peek() as Queued).seq;
      if (rank > bestRank || (rank === bestRank && (p > bestPriority || (p === bestPriority && seq < bestSeq)))) {
        best = q;
        bestKind = kind;
        bestRank = rank;
        bestPriority = p;
        bestSeq = seq;
        bestWhich = which;
      }
    }
    if (!best || bestKind === undefined) return undefined;
    const first = !this.ran[lane]!.has(bestKind);
    this.ran[lane]!.add(bestKind);
    this.running[lane] = { kind: bestKind, start: now, first };
    return bestWhich === 'first' ? best.shift() : best.shiftSecond();
  }

  /** Whether `lane` is running a job (taken and not finished). */
  busy(lane: number): boolean {
    return this.running[lane] !== undefined;
  }

  /** `lane`'s job is done (or failed) at `now`. */
  finish(lane: number, now: number): void {
    const r = this.running[lane];
    if (!r) return;
    this.running[lane] = undefined;
    const ms = now - r.start;
    const table = r.first ? this.cold : this.warm;
    const known = table.get(r.kind);
    if (r.first) table.set(r.kind, Math.max(known ?? 0, ms));
    else table.set(r.kind, Math.min(known ?? Infinity, ms));
  }

  clear(): void {
    this.queues.clear();
  }
}

/** A piscina pool of one thread a lane, each loading its home kinds' modules at start (piscina is loaded here). */
async function startLanes(
  worker: TaskWorker,
  queues: LaneQueues,
): Promise<{ pool: { run(task: Task): Promise<unknown>; destroy(): Promise<void> } }[]> {
  const { Piscina } = await import('piscina');
  return Array.from({ length: queues.lanes }, (_, lane) => ({
    pool: new Piscina({
      filename: worker.file(),
      minThreads: 1,
      maxThreads: 1,
      idleTimeout: 1000,
      workerData: { preload: queues.home(lane) } satisfies WorkerData,
    }),
  }));
}

/**
 * A runner on `threads` worker threads (piscina, loaded here), one lane each (see the header) for the task
 * kinds in `kinds`. The threads start at once and load their home kinds' modules while the caller gets its
 * tasks ready.
 */
export async function poolRunner(worker: TaskWorker, threads: number, kinds: readonly TaskKind[] = []): Promise<TaskRunner> {
  const n = Math.max(1, Math.floor(threads));
  const queues = new LaneQueues(n, kinds);
  const lanes = await startLanes(worker, queues);
  let closed = false;
  let destroyed: Promise<void> = Promise.resolve();
  let poll: NodeJS.Timeout | undefined;
  const pump = (): void => {
    if (closed) return;
    const now = performance.now();
    lanes.forEach((lane, i) => {
      if (queues.busy(i)) return;
      const job = queues.take(i, now);
      if (!job) return;
      // The next task is chosen after what the finished one's caller queues in answer to it (a point's
      // page maps, queued when its result arrives, go before the next point): setImmediate runs after
      // those continuations.
      lane.pool.run(job.task).then(
        (result: unknown) => {
          queues.finish(i, performance.now());
          job.resolve(result);
          setImmediate(pump);
        },
        (err: unknown) => {
          queues.finish(i, performance.now());
          job.reject(fromWorker(err));
          setImmediate(pump);
        },
      );
    });
    // A lane idles while work of another kind waits: look again soon (rule (c) of the header).
    if (!poll && queues.waitingForTime()) {
      poll = setTimeout(() => {
        poll = undefined;
        pump();
      }, POLL_MS);
    }
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
        if (poll) clearTimeout(poll);
        queues.clear();
        destroyed = Promise.all(lanes.map((l) => l.pool.destroy())).then(() => undefined);
      }
      return destroyed;
    },
  };
}

/** A runner on the calling thread: each task in turn (`worker.run`), the event loop served between two tasks. */
export function inProcessRunner(worker: TaskWorker): TaskRunner {
  const queue = new JobQueue();
  let running = false;
  let closed = false;
  const drain = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      for (let job = queue.shift(); job && !closed; job = queue.shift()) {
        try {
          job.resolve(await worker.run(job.task));
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
