/**
 * The simulator's state in typed arrays (a record per task, an array per lock and page-line field),
 * and what every mechanism uses: the clock, the clip to the measuring window and the scheduling of a
 * task's one pending event. The mechanisms are layered on it as subclasses, one file each: sim-engines.ts (users
 * and engines), sim-locks.ts (spinlocks and latches), sim-lines.ts (lockless page lines), sim.ts (the
 * event loop). Only Simulator (sim.ts) is ever instantiated, so every call stays monomorphic.
 *
 * Task states (the state says what the task's pending event means, or that it has none):
 *   THINK    event = end of think time → the transaction starts and asks for an engine
 *   SEG      event = end of a CPU segment on its engine → next look-up, or commit after the last segment
 *   HOLD     event = end of a lock hold (hand-off included) → release, hand the lock on, continue
 *   CAS      event = end of a compare-and-swap on a page's line (after any wait and failed attempt)
 *   WHOLD    event = end of a write's hold of the page (lockless writes) → continue
 *   OPT      event = end of an optimistic read → validate the version: continue or restart
 *   BACKOFF  event = end of a back-off delay (ttas_backoff) → probe the lock again
 *   SPIN     event = spin limit reached (spin_yield, spin_sleep), while in the lock's waiter list → yield the engine or sleep
 *   SLEEP    event = end of a sleep (spin_sleep), off its engine → queue for an engine, then try the lock again
 *   RUNQ     no event: in the run queue, waiting for an engine
 *   WAIT     no event: in a lock's waiter list (spinning on its engine, or blocked off it)
 */
import { EventQueue } from './event-queue.js';
import { AliasTable } from './alias-table.js';
import { PageDraws } from './page-draws.js';
import { zipfWeights, type PointModel } from './model.js';
import { Prng } from '../util/prng.js';
import { BATCHES, TRACE_BUCKETS } from './sim-window.js';
import { WORKER_USER_ERROR_PREFIX } from '../config/errors.js';

export const THINK = 0;
export const SEG = 1;
export const HOLD = 2;
export const CAS = 3;
export const RUNQ = 4;
export const WAIT = 5;
export const BACKOFF = 6;
export const SPIN = 7;
export const OPT = 8;
export const WHOLD = 9;
export const SLEEP = 10;

/**
 * A task's record: TASK_BYTES bytes at byte 64 × task (one cache line when the buffer is line-aligned).
 * Float64 slots (index 8 × task + slot): the length of its CPU segments; the start of its current CAS or optimistic read; the end of the
 * wasted part of that CAS; the start of its current wait (run queue or lock); when it got its engine;
 * ttas_backoff's current back-off bound or spin_sleep's current sleep (0 before the first). Int32 slots
 * (16 × task + slot): its look-up (step), the page of it, the lock it takes or waits for. Byte slots
 * (64 × task + slot): its state (above), the part of the look-up (0 the page, 1 its index latch), on an
 * engine (1), the look-up is a write (1).
 */
export const TASK_BYTES = 64;
export const T_SEG_NS = 0;
export const T_OP_BEGIN = 1;
export const T_CAS_WASTE_END = 2;
export const T_SINCE = 3;
export const T_ENGINE_SINCE = 4;
export const T_BACKOFF_NS = 5;
export const T_STEP = 12;
export const T_PAGE = 13;
export const T_LOCK_OF = 14;
export const T_STATE = 60;
export const T_PART = 61;
export const T_ON_ENGINE = 62;
export const T_IS_WRITE = 63;

/** The Zipf tables built last in this thread, by (pages, skew): a worker's replications share them (read-only). */
const tables = new Map<string, AliasTable>();
const TABLES_KEPT = 4;

function zipfTable(pages: number, skew: number): AliasTable {
  const key = `${pages}:${skew}`;
  let table = tables.get(key);
  if (!table) {
    if (tables.size >= TABLES_KEPT) tables.delete(tables.keys().next().value!);
    table = new AliasTable(zipfWeights(pages, skew));
    tables.set(key, table);
  }
  return table;
}

export abstract class SimState {
  protected readonly model: PointModel;
  /** model.buffer_manager === 'latched', asked once a look-up. */
  protected readonly latched: boolean;
  protected readonly events: EventQueue;
  protected readonly rngThink: Prng;
  /** The page stream (page-draws.ts): one draw a look-up. */
  protected readonly pageDraws: PageDraws;
  protected readonly rngWork: Prng;
  protected readonly rngLock: Prng;
  protected readonly levelOfStep: Int32Array;

  // task state: each task's hot fields in one 64-byte record (TASK_BYTES), read through three views of
  // one buffer, so that an event touches one 64-byte record of its task; the rest one array each
  protected readonly taskF64: Float64Array;
  protected readonly taskI32: Int32Array;
  protected readonly taskU8: Uint8Array;
  protected readonly retryLock: Uint8Array;
  protected readonly snap: Int32Array;
  protected readonly nextWaiter: Int32Array;
  protected readonly txStart: Float64Array;
  protected readonly thinkStart: Float64Array;

  // locks
  protected readonly nLocks: number;
  protected readonly holder: Int32Array;
  protected readonly head: Int32Array;
  protected readonly tail: Int32Array;
  protected readonly count: Int32Array;
  protected readonly lockSince: Float64Array;
  protected readonly lockBusy: Float64Array;
  /**
   * The end of the holder's hold when no event stands for it (a hold merged with the segment after it,
   * sim-locks.ts `take`): the lock is free from then on; −1 otherwise. A waiter that comes before it
   * gives the release an event of its own (id users + lock).
   */
  protected readonly lockRelease: Float64Array;

  // page lines (lockless)
  protected readonly version: Int32Array;
  protected readonly lineFree: Float64Array;

  // engines and run queue
  protected freeEngines: number;
  protected readonly runq: Int32Array;
  protected rqHead = 0;
  protected rqCount = 0;

  // thinking users (aggregate think-completion event, id = users)
  protected readonly thinkers: Int32Array;
  protected readonly thinkIdx: Int32Array;
  protected nThink = 0;
  /** Time of the next think completion (Infinity when nobody thinks or think_time is 0). */
  protected thinkNext = Infinity;

  // the event being processed
  protected now = 0;
  protected handoffPart = 0;
  protected current = -1;
  protected selfNext = -1;
  protected nEvents = 0;

  protected windowStartNs: number;
  protected windowEndNs: number;
  protected windowMidNs: number;

  // statistics of the current window
  protected responses: Float64Array;
  protected nResp = 0;
  protected half1 = 0;
  protected readonly batches: Int32Array;
  protected batchNs: number;
  protected trace: Int32Array;
  protected readonly traceNs: number;
  protected respSum = 0;
  protected thinkSum = 0;
  protected thinks = 0;
  protected busyNs = 0;
  protected workNs = 0;
  protected spinNs = 0;
  protected casRetryNs = 0;
  protected restartNs = 0;
  protected lockWaitNs = 0;
  protected runqNs = 0;
  protected inTxNs = 0;
  protected lookups = 0;
  protected casAttempts = 0;
  protected casRetries = 0;
  protected optReads = 0;
  protected optRestarts = 0;
  protected yields = 0;

  constructor(m: PointModel, seed: number) {
    this.model = m;
    this.latched = m.buffer_manager === 'latched';
    const u = m.users;
    this.nLocks = m.spinlocks + (m.index_latches ? m.index_pages : 0);
    this.events = new EventQueue(u + this.nLocks);
    this.thinkers = new Int32Array(u);
    this.thinkIdx = new Int32Array(u);
    this.rngThink = Prng.derive(seed, 'think');
    this.rngWork = Prng.derive(seed, 'work');
    this.rngLock = Prng.derive(seed, 'lock');
    const table = m.data_reads > 0 ? zipfTable(m.data_pages, m.skew) : null;
    this.levelOfStep = new Int32Array(m.lookups);
    for (let s = 0; s < m.lookups; s++) this.levelOfStep[s] = s < m.index_reads ? s % m.index_levels : -1;
    const tasks = new ArrayBuffer(u * TASK_BYTES);
    this.taskF64 = new Float64Array(tasks);
    this.taskI32 = new Int32Array(tasks);
    this.taskU8 = new Uint8Array(tasks);
    this.retryLock = new Uint8Array(u);
    this.snap = new Int32Array(u);
    this.nextWaiter = new Int32Array(u).fill(-1);
    this.txStart = new Float64Array(u);
    this.thinkStart = new Float64Array(u);
    this.holder = new Int32Array(this.nLocks).fill(-1);
    this.head = new Int32Array(this.nLocks).fill(-1);
    this.tail = new Int32Array(this.nLocks).fill(-1);
    this.count = new Int32Array(this.nLocks);
    this.lockSince = new Float64Array(this.nLocks);
    this.lockBusy = new Float64Array(this.nLocks);
    this.lockRelease = new Float64Array(this.nLocks).fill(-1);
    const lines = m.buffer_manager === 'lockless' ? m.data_pages + m.index_pages : 0;
    this.version = new Int32Array(lines);
    this.lineFree = new Float64Array(lines);
    this.pageDraws = new PageDraws(Prng.derive(seed, 'page'), table, lines > 0 ? this.lineFree : null);
    this.freeEngines = m.engines;
    this.runq = new Int32Array(u);
    this.windowStartNs = m.warmup_ns;
    this.windowEndNs = m.warmup_ns + m.duration_ns;
    this.windowMidNs = (this.windowStartNs + this.windowEndNs) / 2;
    this.batches = new Int32Array(BATCHES);
    this.batchNs = m.duration_ns / BATCHES;
    this.traceNs = (m.warmup_ns + m.duration_ns) / TRACE_BUCKETS;
    this.trace = new Int32Array(TRACE_BUCKETS + 1);
    // room for the commits the window can hold (the lesser of the users' and the engines' bound), so
    // the array rarely grows; at most 4M entries up front
    const demand = m.work_ns > 0 ? m.work_ns : 0;
    const rate = demand > 0 ? Math.min(m.users / (m.think_ns + demand), m.engines / demand) : 0;
    this.responses = new Float64Array(Math.max(1024, Math.min(4 << 20, Math.ceil(rate * m.duration_ns * 1.05))));
  }

  /** A commit at `now`: counted in the run's history. */
  protected traceCommit(now: number): void {
    const b = (now / this.traceNs) | 0;
    if (b >= this.trace.length) {
      const grown = new Int32Array(Math.max(b + 1, this.trace.length * 2));
      grown.set(this.trace);
      this.trace = grown;
    }
    this.trace[b]!++;
  }

  protected tooManyEvents(): never {
    const m = this.model;
    throw new Error(
      `${WORKER_USER_ERROR_PREFIX}a contention point (${m.buffer_manager}, ${m.engines} engines, ${m.users} users) needed more than max_events (${m.max_events}) events: shorten contention.duration or raise contention.max_events`,
    );
  }

  /** Length of [a, b] inside the measurement window. */
  protected clip(a: number, b: number): number {
    const lo = a > this.windowStartNs ? a : this.windowStartNs;
    const hi = b < this.windowEndNs ? b : this.windowEndNs;
    return hi > lo ? hi - lo : 0;
  }

  protected inWindow(): boolean {
    return this.now >= this.windowStartNs && this.now <= this.windowEndNs;
  }

  protected schedule(t: number, time: number, state: number): void {
    this.taskU8[64 * t + T_STATE] = state;
    if (t === this.current) this.selfNext = time;
    else this.events.push(time, t);
  }

  /** Measure a new window [w0, w1]: the statistics start again (intervals are clipped to it). */
  protected resetWindow(w0: number, w1: number): void {
    this.windowStartNs = w0;
    this.windowEndNs = w1;
    this.windowMidNs = (w0 + w1) / 2;
    this.nResp = 0;
    this.half1 = 0;
    this.batches.fill(0);
    this.batchNs = (w1 - w0) / BATCHES;
    this.respSum = 0;
    this.thinkSum = 0;
    this.thinks = 0;
    this.busyNs = 0;
    this.workNs = 0;
    this.spinNs = 0;
    this.casRetryNs = 0;
    this.restartNs = 0;
    this.lockWaitNs = 0;
    this.runqNs = 0;
    this.inTxNs = 0;
    this.lookups = 0;
    this.casAttempts = 0;
    this.casRetries = 0;
    this.optReads = 0;
    this.optRestarts = 0;
    this.yields = 0;
    this.lockBusy.fill(0);
  }
}
