/**
 * The discrete-event simulation of one point: U users, N engines, one buffer manager. Pure and
 * deterministic: same model and seed, same numbers. See README.md in this folder for what is modelled.
 *
 * Hot-path rules: struct-of-arrays state (one slot per task), an EventQueue on typed arrays, at most one
 * pending event per task, no allocation per event. Time is a double in nanoseconds.
 *
 * Task states (the state says what the task's pending event means, or that it has none):
 *   THINK    event = end of think time → the transaction starts and asks for an engine
 *   SEG      event = end of a CPU segment on its engine → next look-up, or commit after the last segment
 *   HOLD     event = end of a lock hold (hand-off included) → release, hand the lock on, continue
 *   CAS      event = end of a compare-and-swap on a page's line (after any wait and failed attempt)
 *   WHOLD    event = end of a write's hold of the page (lockless writes) → continue
 *   OPT      event = end of an optimistic read → validate the version: continue or restart
 *   BACKOFF  event = end of a back-off delay (ttas_backoff) → probe the lock again
 *   SPIN     event = spin limit reached (spin_yield), while in the lock's waiter list → yield the engine
 *   RUNQ     no event: in the run queue, waiting for an engine
 *   WAIT     no event: in a lock's waiter list (spinning on its engine, or blocked off it)
 *
 * Thinking users have no events of their own: think times are exponential, so the think completions
 * of k thinking users form a Poisson process of rate k/Z whose next completion is a uniformly chosen
 * thinking user (memorylessness). One aggregate event (thinkNext) stands for it and is redrawn whenever
 * k changes; it is kept beside the heap, not in it. This is exact in distribution and keeps the heap as small as the set of busy tasks, which
 * is what makes the event loop fast with thousands of users. With think_time 0 a committing task
 * starts its next transaction at once (an event at the same instant).
 *
 * The measuring window is [warmup, warmup + duration]. When the point is not stationary at its end
 * (Little's law or the drift between the window's halves past the tolerance), the run goes on: the old
 * window becomes warm-up and a window twice as long is measured, at most max_extensions times.
 */
import { EventQueue } from './event-queue.js';
import { spinlockOfPage, zipfWeights, type PointModel } from './model.js';
import { Prng } from '../util/prng.js';
import { WORKER_USER_ERROR_PREFIX } from '../config/errors.js';

const THINK = 0;
const SEG = 1;
const HOLD = 2;
const CAS = 3;
const RUNQ = 4;
const WAIT = 5;
const BACKOFF = 6;
const SPIN = 7;
const OPT = 8;
const WHOLD = 9;

/** z of the counting-noise band of the half-window drift (99%, two-sided). */
const DRIFT_NOISE_Z = 2.576;

interface SimStats {
  window_ns: number;
  warmup_ns: number;
  transactions: number;
  /** Commits in the first and the second half of the window. */
  half_transactions: [number, number];
  /** 95th and 99th percentile of the response times of the transactions committed in the window (exact). */
  response_ns_p95: number;
  response_ns_p99: number;
  response_sum_ns: number;
  think_sum_ns: number;
  thinks: number;
  /** Engine time in the window, by use. busy = work + spin + cas_retry + restart (an invariant). */
  engine_busy_ns: number;
  engine_work_ns: number;
  engine_spin_ns: number;
  engine_cas_retry_ns: number;
  engine_restart_ns: number;
  /** Time tasks spent waiting for a spinlock or latch (spinning, backing off or blocked), hand-off included. */
  lock_wait_ns: number;
  /** Time tasks spent in the run queue. */
  run_queue_ns: number;
  /** Time integral of the number of users inside a transaction. */
  in_transaction_ns: number;
  lookups: number;
  cas_attempts: number;
  cas_retries: number;
  optimistic_reads: number;
  optimistic_restarts: number;
  /** spin_yield: times a spinner gave its engine up. */
  yields: number;
  /** Busy time (held or in hand-off) of the busiest lock. */
  hottest_lock_busy_ns: number;
  /** 'spinlock' or 'latch'. */
  hottest_lock_kind: string;
  events: number;
  /** Window extensions made; the checks of the last window. */
  extensions: number;
  little_law_error_pct: number;
  drift_pct: number;
  /** The drift the window's commit count alone would explain (99%), percent. */
  drift_noise_pct: number;
  stationary: boolean;
  /** An extension was due but would have passed max_events. */
  budget_stopped: boolean;
}

/** Walker alias table for O(1) sampling of data pages by Zipf popularity. */
export class AliasTable {
  readonly prob: Float64Array;
  readonly alias: Int32Array;
  readonly size: number;
  constructor(weights: Float64Array) {
    const n = weights.length;
    this.size = n;
    this.prob = new Float64Array(n);
    this.alias = new Int32Array(n);
    const scaled = new Float64Array(n);
    const small = new Int32Array(n);
    const large = new Int32Array(n);
    let ns = 0;
    let nl = 0;
    for (let i = 0; i < n; i++) {
      scaled[i] = weights[i]! * n;
      if (scaled[i]! < 1) small[ns++] = i;
      else large[nl++] = i;
    }
    while (ns > 0 && nl > 0) {
      const s = small[--ns]!;
      const l = large[nl - 1]!;
      this.prob[s] = scaled[s]!;
      this.alias[s] = l;
      scaled[l] = scaled[l]! + scaled[s]! - 1;
      if (scaled[l]! < 1) {
        nl--;
        small[ns++] = l;
      }
    }
    while (nl > 0) {
      const l = large[--nl]!;
      this.prob[l] = 1;
      this.alias[l] = l;
    }
    while (ns > 0) {
      const s = small[--ns]!;
      this.prob[s] = 1;
      this.alias[s] = s;
    }
  }

  /** A draw from a uniform u in [0, 1). */
  sample(u: number): number {
    const x = u * this.size;
    const j = x | 0;
    return x - j < this.prob[j]! ? j : this.alias[j]!;
  }
}

/** Little's law check: (X·(R + Z̄) − U)/U in percent, with the measured mean think time. */
function littleLawErrorPct(
  s: Pick<SimStats, 'transactions' | 'window_ns' | 'response_sum_ns' | 'think_sum_ns' | 'thinks'>,
  users: number,
  thinkNs: number,
): number {
  const x = s.transactions / s.window_ns;
  const r = s.transactions > 0 ? s.response_sum_ns / s.transactions : 0;
  const z = s.thinks > 0 ? s.think_sum_ns / s.thinks : thinkNs;
  return (100 * (x * (r + z) - users)) / users;
}

/** Drift of throughput between the halves of the window, and the drift counting noise alone explains. */
export function halfDrift(half: readonly [number, number]): { drift_pct: number; noise_pct: number } {
  const n = half[0] + half[1];
  if (n === 0) return { drift_pct: 0, noise_pct: 0 };
  return { drift_pct: (200 * (half[1] - half[0])) / n, noise_pct: (100 * DRIFT_NOISE_Z * 2) / Math.sqrt(n) };
}

/**
 * Is a window stationary? Little's law holds within the tolerance, and the drift between its halves is
 * within the tolerance or within what the commit count's noise explains.
 */
export function isStationary(little_pct: number, drift_pct: number, noise_pct: number, tolerance_pct: number): boolean {
  return Math.abs(little_pct) <= tolerance_pct && (Math.abs(drift_pct) <= tolerance_pct || Math.abs(drift_pct) <= noise_pct);
}

/**
 * The q-quantile by the nearest-rank rule (the ⌈q·n⌉-th smallest), found by selection (Hoare's
 * quickselect with a median-of-three pivot) instead of a full sort; reorders `a`. 0 when empty.
 */
export function nearestRank(a: Float64Array, q: number): number {
  const n = a.length;
  if (n === 0) return 0;
  const k = Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1));
  let lo = 0;
  let hi = n - 1;
  while (hi > lo) {
    const mid = (lo + hi) >> 1;
    // median of three to the middle
    if (a[mid]! < a[lo]!) swap(a, mid, lo);
    if (a[hi]! < a[lo]!) swap(a, hi, lo);
    if (a[hi]! < a[mid]!) swap(a, hi, mid);
    const pivot = a[mid]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

export function simulatePoint(m: PointModel, seed: number): SimStats {
  return new Simulator(m, seed).run();
}

class Simulator {
  private readonly model: PointModel;
  private readonly events: EventQueue;
  private readonly rngThink: Prng;
  private readonly rngPage: Prng;
  private readonly rngWork: Prng;
  private readonly rngLock: Prng;
  private readonly table: AliasTable | null;
  private readonly levelOfStep: Int32Array;

  // task state (struct of arrays)
  private readonly state: Uint8Array;
  private readonly part: Uint8Array;
  private readonly onEngine: Uint8Array;
  private readonly isWrite: Uint8Array;
  private readonly retryLock: Uint8Array;
  private readonly step: Int32Array;
  private readonly page: Int32Array;
  private readonly lockOf: Int32Array;
  private readonly snap: Int32Array;
  private readonly nextWaiter: Int32Array;
  private readonly segNs: Float64Array;
  private readonly txStart: Float64Array;
  private readonly thinkStart: Float64Array;
  private readonly since: Float64Array; // start of the current wait (run queue or lock)
  private readonly engineSince: Float64Array;
  private readonly opBegin: Float64Array; // start of the current CAS or optimistic read
  private readonly casWasteEnd: Float64Array; // end of the wasted part of the current CAS
  private readonly backoff: Float64Array;

  // locks
  private readonly nLocks: number;
  private readonly holder: Int32Array;
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  private readonly count: Int32Array;
  private readonly lockSince: Float64Array;
  private readonly lockBusy: Float64Array;

  // page lines (lockless)
  private readonly version: Int32Array;
  private readonly lineFree: Float64Array;
  private readonly lineReq: Int32Array;

  // engines and run queue
  private freeEngines: number;
  private readonly runq: Int32Array;
  private rqHead = 0;
  private rqCount = 0;

  // thinking users (aggregate think-completion event, id = users)
  private readonly thinkers: Int32Array;
  private readonly thinkIdx: Int32Array;
  private nThink = 0;
  /** Time of the next think completion (Infinity when nobody thinks or think_time is 0). */
  private thinkNext = Infinity;

  // the event being processed
  private now = 0;
  private handoffPart = 0;
  private current = -1;
  private selfNext = -1;
  private nEvents = 0;

  private windowStartNs: number;
  private windowEndNs: number;
  private windowMidNs: number;

  // statistics of the current window
  private responses: Float64Array;
  private nResp = 0;
  private half1 = 0;
  private respSum = 0;
  private thinkSum = 0;
  private thinks = 0;
  private busyNs = 0;
  private workNs = 0;
  private spinNs = 0;
  private casRetryNs = 0;
  private restartNs = 0;
  private lockWaitNs = 0;
  private runqNs = 0;
  private inTxNs = 0;
  private lookups = 0;
  private casAttempts = 0;
  private casRetries = 0;
  private optReads = 0;
  private optRestarts = 0;
  private yields = 0;

  constructor(m: PointModel, seed: number) {
    this.model = m;
    const u = m.users;
    this.events = new EventQueue(u);
    this.thinkers = new Int32Array(u);
    this.thinkIdx = new Int32Array(u);
    this.rngThink = Prng.derive(seed, 'think');
    this.rngPage = Prng.derive(seed, 'page');
    this.rngWork = Prng.derive(seed, 'work');
    this.rngLock = Prng.derive(seed, 'lock');
    this.table = m.data_reads > 0 ? new AliasTable(zipfWeights(m.data_pages, m.skew)) : null;
    this.levelOfStep = new Int32Array(m.lookups);
    for (let s = 0; s < m.lookups; s++) this.levelOfStep[s] = s < m.index_reads ? s % m.index_levels : -1;
    this.state = new Uint8Array(u);
    this.part = new Uint8Array(u);
    this.onEngine = new Uint8Array(u);
    this.isWrite = new Uint8Array(u);
    this.retryLock = new Uint8Array(u);
    this.step = new Int32Array(u);
    this.page = new Int32Array(u);
    this.lockOf = new Int32Array(u);
    this.snap = new Int32Array(u);
    this.nextWaiter = new Int32Array(u).fill(-1);
    this.segNs = new Float64Array(u);
    this.txStart = new Float64Array(u);
    this.thinkStart = new Float64Array(u);
    this.since = new Float64Array(u);
    this.engineSince = new Float64Array(u);
    this.opBegin = new Float64Array(u);
    this.casWasteEnd = new Float64Array(u);
    this.backoff = new Float64Array(u);
    this.nLocks = m.spinlocks + (m.index_latches ? m.index_pages : 0);
    this.holder = new Int32Array(this.nLocks).fill(-1);
    this.head = new Int32Array(this.nLocks).fill(-1);
    this.tail = new Int32Array(this.nLocks).fill(-1);
    this.count = new Int32Array(this.nLocks);
    this.lockSince = new Float64Array(this.nLocks);
    this.lockBusy = new Float64Array(this.nLocks);
    const lines = m.buffer_manager === 'lockless' ? m.data_pages + m.index_pages : 0;
    this.version = new Int32Array(lines);
    this.lineFree = new Float64Array(lines);
    this.lineReq = new Int32Array(lines);
    this.freeEngines = m.engines;
    this.runq = new Int32Array(u);
    this.windowStartNs = m.warmup_ns;
    this.windowEndNs = m.warmup_ns + m.duration_ns;
    this.windowMidNs = (this.windowStartNs + this.windowEndNs) / 2;
    // room for the commits the window can hold (the lesser of the users' and the engines' bound), so
    // the array rarely grows; at most 4M entries up front
    const demand = m.work_ns > 0 ? m.work_ns : 0;
    const rate = demand > 0 ? Math.min(m.users / (m.think_ns + demand), m.engines / demand) : 0;
    this.responses = new Float64Array(Math.max(1024, Math.min(4 << 20, Math.ceil(rate * m.duration_ns * 1.05))));
  }

  /** Length of [a, b] inside the measurement window. */
  private clip(a: number, b: number): number {
    const lo = a > this.windowStartNs ? a : this.windowStartNs;
    const hi = b < this.windowEndNs ? b : this.windowEndNs;
    return hi > lo ? hi - lo : 0;
  }

  private inWindow(): boolean {
    return this.now >= this.windowStartNs && this.now <= this.windowEndNs;
  }

  private schedule(t: number, time: number, state: number): void {
    this.state[t] = state;
    if (t === this.current) this.selfNext = time;
    else this.events.push(time, t);
  }

  run(): SimStats {
    const m = this.model;
    for (let t = 0; t < m.users; t++) {
      this.thinkStart[t] = -1; // the first think is a residual: not a think-time sample
      this.state[t] = THINK;
      if (m.think_ns > 0) this.addThinker(t);
      else this.events.push(0, t);
    }
    if (m.think_ns > 0) this.thinkNext = this.rngThink.exp32(m.think_ns / this.nThink);
    let extensions = 0;
    for (;;) {
      this.loop();
      const stats = this.finish();
      const little = littleLawErrorPct(stats, m.users, m.think_ns);
      const { drift_pct, noise_pct } = halfDrift(stats.half_transactions);
      const stationary = isStationary(little, drift_pct, noise_pct, m.tolerance_pct);
      const out = {
        ...stats,
        extensions,
        little_law_error_pct: little,
        drift_pct,
        drift_noise_pct: noise_pct,
        stationary,
        budget_stopped: false,
      };
      if (stationary || extensions >= m.max_extensions) return out;
      const length = 2 * (this.windowEndNs - this.windowStartNs);
      if ((this.nEvents * (this.windowEndNs + length)) / this.windowEndNs > m.max_events) return { ...out, budget_stopped: true };
      extensions++;
      this.resetWindow(this.windowEndNs, this.windowEndNs + length);
    }
  }

  private loop(): void {
    const m = this.model;
    const queue = this.events;
    const end = this.windowEndNs;
    const maxEvents = m.max_events;
    for (;;) {
      const now = queue.size > 0 ? queue.topTime() : Infinity;
      const tn = this.thinkNext;
      if (tn <= now) {
        // the next think completion comes first (ties: before the heap's event)
        if (tn > end) break;
        if (++this.nEvents > maxEvents) this.tooManyEvents();
        this.now = tn;
        this.current = -1;
        this.onAggregateThink();
        continue;
      }
      if (now > end) break;
      const t = queue.topId();
      if (++this.nEvents > maxEvents) this.tooManyEvents();
      this.now = now;
      this.current = t;
      this.selfNext = -1;
      switch (this.state[t]) {
        case THINK:
          this.onThinkEnd(t);
          break;
        case SEG:
          if (this.step[t] === m.lookups) this.commit(t);
          else this.beginAccess(t);
          break;
        case HOLD:
          this.release(this.lockOf[t]!);
          this.afterAccess(t);
          break;
        case CAS:
          this.onCasEnd(t);
          break;
        case WHOLD:
          this.onWriteHoldEnd(t);
          break;
        case OPT:
          this.onOptimisticEnd(t);
          break;
        case BACKOFF:
          this.onBackoffEnd(t);
          break;
        case SPIN:
          this.onSpinLimit(t);
          break;
        default:
          throw new Error(`task ${t} has an event in state ${this.state[t]}`);
      }
      if (this.selfNext >= 0) queue.replaceTop(this.selfNext);
      else queue.pop();
    }
  }

  private tooManyEvents(): never {
    const m = this.model;
    throw new Error(
      `${WORKER_USER_ERROR_PREFIX}a contention point (${m.buffer_manager}, ${m.engines} engines, ${m.users} users) needed more than max_events (${m.max_events}) events: shorten contention.duration or raise contention.max_events`,
    );
  }

  /** Measure a new window [w0, w1]: the statistics start again (intervals are clipped to it). */
  private resetWindow(w0: number, w1: number): void {
    this.windowStartNs = w0;
    this.windowEndNs = w1;
    this.windowMidNs = (w0 + w1) / 2;
    this.nResp = 0;
    this.half1 = 0;
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

  private addThinker(t: number): void {
    this.thinkers[this.nThink] = t;
    this.thinkIdx[t] = this.nThink;
    this.nThink++;
  }

  /** The next think completion: a uniformly chosen thinking user starts its transaction. */
  private onAggregateThink(): void {
    const k = this.rngThink.index(this.nThink);
    const u = this.thinkers[k]!;
    const last = this.thinkers[--this.nThink]!;
    this.thinkers[k] = last;
    this.thinkIdx[last] = k;
    this.thinkNext = this.nThink > 0 ? this.now + this.rngThink.exp32(this.model.think_ns / this.nThink) : Infinity;
    this.onThinkEnd(u); // current is −1: u has no event, its schedules are pushes
  }

  private onThinkEnd(t: number): void {
    const now = this.now;
    const m = this.model;
    if (now >= this.windowStartNs && now <= this.windowEndNs && this.thinkStart[t]! >= 0) {
      this.thinkSum += now - this.thinkStart[t]!;
      this.thinks++;
    }
    this.txStart[t] = now;
    this.step[t] = 0;
    this.part[t] = 0;
    const segments = m.lookups + 1;
    this.segNs[t] = (m.exponential ? this.rngWork.exp32(m.work_ns) : m.work_ns) / segments;
    this.requestEngine(t);
  }

  private requestEngine(t: number): void {
    if (this.freeEngines > 0) {
      this.freeEngines--;
      this.onEngine[t] = 1;
      this.engineSince[t] = this.now;
      this.dispatch(t);
    } else {
      this.state[t] = RUNQ;
      this.since[t] = this.now;
      const m = this.model;
      let tail = this.rqHead + this.rqCount;
      if (tail >= m.users) tail -= m.users;
      this.runq[tail] = t;
      this.rqCount++;
    }
  }

  /** A task got an engine: its next CPU segment, or (after a yield) another try at its lock. */
  private dispatch(t: number): void {
    if (this.retryLock[t] === 1) {
      this.retryLock[t] = 0;
      this.acquire(t, this.lockOf[t]!);
    } else this.startSegment(t);
  }

  private releaseEngine(t: number): void {
    const now = this.now;
    this.onEngine[t] = 0;
    this.busyNs += this.clip(this.engineSince[t]!, now);
    if (this.rqCount > 0) {
      const u = this.runq[this.rqHead]!;
      this.rqHead++;
      if (this.rqHead === this.model.users) this.rqHead = 0;
      this.rqCount--;
      this.runqNs += this.clip(this.since[u]!, now);
      this.onEngine[u] = 1;
      this.engineSince[u] = now;
      this.dispatch(u);
    } else {
      this.freeEngines++;
    }
  }

  private startSegment(t: number): void {
    const m = this.model;
    const now = this.now;
    let len: number;
    if (m.block && m.exponential && m.buffer_manager === 'latched') len = this.rngWork.exp32(m.work_ns / (m.lookups + 1));
    else len = this.segNs[t]!;
    this.workNs += this.clip(now, now + len);
    this.schedule(t, now + len, SEG);
  }

  private commit(t: number): void {
    const now = this.now;
    const m = this.model;
    if (now >= this.windowStartNs && now <= this.windowEndNs) {
      const r = now - this.txStart[t]!;
      if (this.nResp === this.responses.length) {
        const grown = new Float64Array(this.responses.length * 2);
        grown.set(this.responses);
        this.responses = grown;
      }
      this.responses[this.nResp++] = r;
      this.respSum += r;
      if (now < this.windowMidNs) this.half1++;
    }
    this.inTxNs += this.clip(this.txStart[t]!, now);
    this.thinkStart[t] = now;
    if (m.think_ns > 0) {
      // t joins the thinking users and has no event of its own; the aggregate event is redrawn
      this.state[t] = THINK;
      this.addThinker(t);
      this.thinkNext = now + this.rngThink.exp32(m.think_ns / this.nThink);
    } else this.schedule(t, now, THINK);
    this.releaseEngine(t);
  }

  /** The look-up of step[t] starts: pick its page, then the buffer manager's path. */
  private beginAccess(t: number): void {
    const m = this.model;
    const s = this.step[t]!;
    const level = this.levelOfStep[s]!;
    let page: number;
    if (level >= 0) page = m.data_pages + m.level_base[level]! + this.rngPage.index(m.level_pages[level]!);
    else page = this.table!.sample(this.rngPage.float32());
    this.page[t] = page;
    if (this.inWindow()) this.lookups++;
    if (m.buffer_manager === 'latched') {
      this.acquire(t, spinlockOfPage(page, m.spinlocks));
      return;
    }
    const write = m.write_share > 0 && (m.write_share >= 1 || this.rngLock.float32() < m.write_share);
    this.isWrite[t] = write ? 1 : 0;
    if (write || (!m.optimistic && this.needsCas(page))) this.beginCas(t, page);
    else if (m.optimistic) this.beginOptimistic(t);
    else this.afterAccess(t);
  }

  /** A page of the engine-local cache (lockless: no pin, no validation). */
  private cached(page: number): boolean {
    const m = this.model;
    if (page < m.data_pages) return page < m.cached_data_pages;
    const rel = page - m.data_pages;
    for (let j = 0; j < m.index_levels; j++) {
      const base = m.level_base[j]!;
      if (rel >= base && rel < base + m.level_pages[j]!) return rel - base < m.cached_level_pages[j]!;
    }
    return false;
  }

  private needsCas(page: number): boolean {
    const m = this.model;
    if (m.cas_ns <= 0 || m.update_share <= 0) return false;
    if (this.cached(page)) return false;
    return m.update_share >= 1 || this.rngLock.float32() < m.update_share;
  }

  /**
   * A compare-and-swap on the page's line. Successful CASes on one line are serialised (the line is
   * exclusively owned by one engine at a time, FIFO). An attempt that finds the line busy read a value
   * that the CAS ahead of it changes: it waits for the line, fails (one attempt of cas + line_transfer
   * per other engine writing the line), and retries at once on the line it now owns (cas, succeeds).
   */
  private beginCas(t: number, line: number): void {
    const m = this.model;
    const now = this.now;
    const free = this.lineFree[line]!;
    const writers = ++this.lineReq[line]!;
    let end: number;
    if (free > now) {
      const failedEnd = free + m.cas_ns + m.line_transfer_ns * (writers - 1);
      this.casWasteEnd[t] = failedEnd;
      end = failedEnd + m.cas_ns;
    } else {
      this.casWasteEnd[t] = now;
      end = now + m.cas_ns;
    }
    this.opBegin[t] = now;
    this.lineFree[line] = m.optimistic && this.isWrite[t] === 1 ? end + m.write_hold_ns : end;
    // engine time: the wait for the line and the failed attempt are lost to the conflict, the rest is work
    this.casRetryNs += this.clip(now, this.casWasteEnd[t]!);
    this.workNs += this.clip(this.casWasteEnd[t]!, end);
    this.schedule(t, end, CAS);
  }

  private onCasEnd(t: number): void {
    const now = this.now;
    const m = this.model;
    const line = this.page[t]!;
    this.lineReq[line]!--;
    const waste = this.casWasteEnd[t]!;
    const failed = waste > this.opBegin[t]!;
    if (this.inWindow()) {
      this.casAttempts += failed ? 2 : 1;
      if (failed) this.casRetries++;
    }
    this.version[line] = (this.version[line]! + 1) | 0; // optimistic write: odd = locked
    if (this.isWrite[t] === 1) {
      this.workNs += this.clip(now, now + m.write_hold_ns);
      this.schedule(t, now + m.write_hold_ns, WHOLD);
    } else this.afterAccess(t);
  }

  private onWriteHoldEnd(t: number): void {
    if (this.model.optimistic) {
      const line = this.page[t]!;
      this.version[line] = (this.version[line]! + 1) | 0; // unlocked
    }
    this.afterAccess(t);
  }

  /** An optimistic read ([LEANSTORE], [OLC]): note the page's version, read for `lookup`, then validate. */
  private beginOptimistic(t: number): void {
    this.snap[t] = this.version[this.page[t]!]!;
    this.opBegin[t] = this.now;
    this.schedule(t, this.now + this.model.lookup_ns, OPT);
  }

  private onOptimisticEnd(t: number): void {
    const page = this.page[t]!;
    const now = this.now;
    const inWindow = this.inWindow();
    if (inWindow) this.optReads++;
    const s = this.snap[t]!;
    if (this.cached(page) || ((s & 1) === 0 && this.version[page] === s)) {
      this.workNs += this.clip(this.opBegin[t]!, now);
      this.afterAccess(t);
      return;
    }
    // locked when read, or written since: the read is wasted; read again
    if (inWindow) this.optRestarts++;
    this.restartNs += this.clip(this.opBegin[t]!, now);
    this.beginOptimistic(t);
  }

  /** The buffer part (or the latch part) of a look-up is done: latch next, or the next segment. */
  private afterAccess(t: number): void {
    const m = this.model;
    if (this.part[t] === 0 && m.index_latches && this.page[t]! >= m.data_pages) {
      this.part[t] = 1;
      this.acquire(t, m.spinlocks + (this.page[t]! - m.data_pages));
      return;
    }
    this.part[t] = 0;
    this.step[t]!++;
    if (this.onEngine[t] === 1) this.startSegment(t);
    else this.requestEngine(t);
  }

  /**
   * Occupancy of one acquisition: the hand-off (the lock word's cache line moving to the new owner:
   * handoff_per_waiter once for mcs and ttas_backoff, × the waiters spinning on the word for ttas,
   * spin_yield and ticket, at least once: [LOCKS], [MCS]) plus the hold. Exponential service draws the whole occupancy
   * as one exponential, so a queue lock is an exponential server. Sets this.handoffPart to the hand-off
   * share of the returned occupancy.
   */
  private occupancy(lock: number, waiters: number): number {
    const m = this.model;
    const hold = lock < m.spinlocks ? m.hold_ns : m.latch_hold_ns;
    const handoff = m.ttas && waiters > 1 ? m.handoff_ns * waiters : m.handoff_ns;
    const mean = hold + handoff;
    const occ = m.exponential ? this.rngLock.exp32(mean) : mean;
    this.handoffPart = mean > 0 ? (occ * handoff) / mean : 0;
    return occ;
  }

  /** Take a free lock now: the first hand-off and the hold are work on the engine. */
  private take(t: number, lock: number): void {
    const now = this.now;
    this.holder[lock] = t;
    this.lockSince[lock] = now;
    const occ = this.occupancy(lock, 1);
    if (this.onEngine[t] === 1) this.workNs += this.clip(now, now + occ);
    this.schedule(t, now + occ, HOLD);
  }

  private acquire(t: number, lock: number): void {
    const m = this.model;
    const now = this.now;
    if (m.block && this.onEngine[t] === 1) this.releaseEngine(t);
    this.lockOf[t] = lock;
    if (this.holder[lock]! < 0) {
      this.take(t, lock);
      return;
    }
    this.since[t] = now;
    if (m.lock === 'ttas_backoff' && !m.block) {
      this.backoff[t] = m.backoff_min_ns;
      this.schedule(t, now + this.backoffDelay(t), BACKOFF);
      return;
    }
    this.nextWaiter[t] = -1;
    if (this.count[lock] === 0) this.head[lock] = t;
    else this.nextWaiter[this.tail[lock]!] = t;
    this.tail[lock] = t;
    this.count[lock]!++;
    if (m.lock === 'spin_yield' && !m.block) this.schedule(t, now + m.spin_limit_ns, SPIN);
    else this.state[t] = WAIT;
  }

  /** Exponential back-off [ANDERSON]: a delay between half and all of the current bound, which then doubles. */
  private backoffDelay(t: number): number {
    const cur = this.backoff[t]!;
    const next = cur * 2;
    this.backoff[t] = next < this.model.backoff_max_ns ? next : this.model.backoff_max_ns;
    return cur * (0.5 + 0.5 * this.rngLock.float32());
  }

  /** ttas_backoff: the back-off is over: probe the lock (one line read), take it if free, else back off longer. */
  private onBackoffEnd(t: number): void {
    const lock = this.lockOf[t]!;
    const now = this.now;
    if (this.holder[lock]! >= 0) {
      this.schedule(t, now + this.backoffDelay(t), BACKOFF);
      return;
    }
    this.holder[lock] = t;
    this.lockSince[lock] = now;
    const occ = this.occupancy(lock, 1);
    const start = now + this.handoffPart;
    const waited = this.clip(this.since[t]!, start);
    this.lockWaitNs += waited;
    this.spinNs += waited;
    this.workNs += this.clip(start, now + occ);
    this.schedule(t, now + occ, HOLD);
  }

  /** spin_yield ([PG-SLOCK] spins, then gives up): the spin limit is reached: leave the waiter list, give the engine up, queue for one again. */
  private onSpinLimit(t: number): void {
    const lock = this.lockOf[t]!;
    let prev = -1;
    let u = this.head[lock]!;
    while (u !== t) {
      prev = u;
      u = this.nextWaiter[u]!;
    }
    const next = this.nextWaiter[t]!;
    if (prev < 0) this.head[lock] = next;
    else this.nextWaiter[prev] = next;
    if (this.tail[lock] === t) this.tail[lock] = prev;
    this.nextWaiter[t] = -1;
    this.count[lock]!--;
    const waited = this.clip(this.since[t]!, this.now);
    this.lockWaitNs += waited;
    this.spinNs += waited;
    if (this.inWindow()) this.yields++;
    this.retryLock[t] = 1;
    this.state[t] = RUNQ;
    this.releaseEngine(t);
    this.requestEngine(t);
  }

  private release(lock: number): void {
    const m = this.model;
    const now = this.now;
    this.lockBusy[lock]! += this.clip(this.lockSince[lock]!, now);
    const waiters = this.count[lock]!;
    if (waiters === 0) {
      this.holder[lock] = -1;
      return;
    }
    // pick the next owner: FIFO, or (ttas, spin_yield while spinning) whichever spinner wins the race
    let u: number;
    if (m.random_handoff && !m.block && waiters > 1) {
      const k = this.rngLock.index(waiters);
      let prev = -1;
      u = this.head[lock]!;
      for (let i = 0; i < k; i++) {
        prev = u;
        u = this.nextWaiter[u]!;
      }
      const next = this.nextWaiter[u]!;
      if (prev < 0) this.head[lock] = next;
      else this.nextWaiter[prev] = next;
      if (this.tail[lock] === u) this.tail[lock] = prev;
    } else {
      u = this.head[lock]!;
      this.head[lock] = this.nextWaiter[u]!;
      if (this.tail[lock] === u) this.tail[lock] = -1;
    }
    this.nextWaiter[u] = -1;
    this.count[lock] = waiters - 1;
    const occ = this.occupancy(lock, waiters);
    const start = now + this.handoffPart;
    this.holder[lock] = u;
    this.lockSince[lock] = now;
    const waited = this.clip(this.since[u]!, start);
    this.lockWaitNs += waited;
    if (this.onEngine[u] === 1) {
      this.spinNs += waited;
      this.workNs += this.clip(start, now + occ);
    }
    if (this.state[u] === SPIN) {
      // its spin-limit event is pending: move it to the end of the hold
      this.state[u] = HOLD;
      this.events.update(u, now + occ);
    } else this.schedule(u, now + occ, HOLD);
  }

  private finish(): Omit<
    SimStats,
    'extensions' | 'little_law_error_pct' | 'drift_pct' | 'drift_noise_pct' | 'stationary' | 'budget_stopped'
  > {
    const m = this.model;
    const end = this.windowEndNs;
    let busy = this.busyNs;
    let inTx = this.inTxNs;
    let runq = this.runqNs;
    let lockWait = this.lockWaitNs;
    let spin = this.spinNs;
    let work = this.workNs;
    // close the intervals still open at the end of the window
    for (let t = 0; t < m.users; t++) {
      const st = this.state[t]!;
      if (this.onEngine[t] === 1) busy += this.clip(this.engineSince[t]!, end);
      if (st !== THINK) inTx += this.clip(this.txStart[t]!, end);
      if (st === RUNQ) runq += this.clip(this.since[t]!, end);
      // an optimistic read still running: work so far (whether it validates is not known yet)
      if (st === OPT) work += this.clip(this.opBegin[t]!, end);
      if (st === WAIT || st === BACKOFF || st === SPIN) {
        const w = this.clip(this.since[t]!, end);
        lockWait += w;
        if (this.onEngine[t] === 1) spin += w;
      }
    }
    let hottest = 0;
    let hottestLock = 0;
    for (let l = 0; l < this.nLocks; l++) {
      let b = this.lockBusy[l]!;
      if (this.holder[l]! >= 0) b += this.clip(this.lockSince[l]!, end);
      if (b > hottest) {
        hottest = b;
        hottestLock = l;
      }
    }
    const responses = this.responses.subarray(0, this.nResp); // reordered in place: the window is over
    const p95 = nearestRank(responses, 0.95);
    const p99 = nearestRank(responses, 0.99);
    return {
      window_ns: this.windowEndNs - this.windowStartNs,
      warmup_ns: this.windowStartNs,
      transactions: this.nResp,
      half_transactions: [this.half1, this.nResp - this.half1],
      response_ns_p95: p95,
      response_ns_p99: p99,
      response_sum_ns: this.respSum,
      think_sum_ns: this.thinkSum,
      thinks: this.thinks,
      engine_busy_ns: busy,
      engine_work_ns: work,
      engine_spin_ns: spin,
      engine_cas_retry_ns: this.casRetryNs,
      engine_restart_ns: this.restartNs,
      lock_wait_ns: lockWait,
      run_queue_ns: runq,
      in_transaction_ns: inTx,
      lookups: this.lookups,
      cas_attempts: this.casAttempts,
      cas_retries: this.casRetries,
      optimistic_reads: this.optReads,
      optimistic_restarts: this.optRestarts,
      yields: this.yields,
      hottest_lock_busy_ns: hottest,
      hottest_lock_kind: hottestLock < m.spinlocks ? 'spinlock' : 'latch',
      events: this.nEvents,
    };
  }
}
