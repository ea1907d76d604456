/**
 * The discrete-event simulation of one point: U users, N engines, one buffer manager. Pure and
 * deterministic: same model and seed, same numbers. See README.md in this folder for what is modelled.
 *
 * Hot-path rules: struct-of-arrays state (one slot per task), an EventQueue on typed arrays, at most one
 * pending event per task, no allocation per event. Time is a double in nanoseconds.
 *
 * Task states (the state says what the task's pending event means, or that it has none):
 *   THINK  event = end of think time → the transaction starts and asks for an engine
 *   SEG    event = end of a CPU segment on its engine → next look-up, or commit after the last segment
 *   HOLD   event = end of a lock hold (hand-off included) → release, hand the lock on, continue
 *   CAS    event = end of a compare-and-swap attempt → success continues, conflict retries
 *   RUNQ   no event: in the run queue, waiting for an engine
 *   WAIT   no event: in a lock's waiter list (spinning on its engine, or blocked off it)
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

export interface SimStats {
  window_ns: number;
  transactions: number;
  /** Response times of the transactions that committed in the window, ascending. */
  response_ns_sorted: Float64Array;
  response_sum_ns: number;
  think_sum_ns: number;
  thinks: number;
  /** Engine time in the window, by use. busy = work + spin + cas_retry (an invariant). */
  engine_busy_ns: number;
  engine_work_ns: number;
  engine_spin_ns: number;
  engine_cas_retry_ns: number;
  /** Time tasks spent waiting for a spinlock or latch (spinning or blocked), hand-off included. */
  lock_wait_ns: number;
  /** Time tasks spent in the run queue. */
  run_queue_ns: number;
  /** Time integral of the number of users inside a transaction. */
  in_transaction_ns: number;
  lookups: number;
  cas_attempts: number;
  cas_retries: number;
  /** Busy time (held or in hand-off) of the busiest lock. */
  hottest_lock_busy_ns: number;
  /** 'spinlock' or 'latch'. */
  hottest_lock_kind: string;
  events: number;
}

/** Walker alias table for O(1) sampling of data pages by Zipf popularity. */
class AliasTable {
  readonly prob: Float64Array;
  readonly alias: Int32Array;
  readonly n: number;
  constructor(weights: Float64Array) {
    const n = weights.length;
    this.n = n;
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
}

export function simulatePoint(m: PointModel, seed: number): SimStats {
  return new Simulator(m, seed).run();
}

class Simulator {
  private readonly m: PointModel;
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
  private readonly step: Int32Array;
  private readonly page: Int32Array;
  private readonly lockOf: Int32Array;
  private readonly casSnap: Int32Array;
  private readonly nextWaiter: Int32Array;
  private readonly segNs: Float64Array;
  private readonly txStart: Float64Array;
  private readonly thinkStart: Float64Array;
  private readonly since: Float64Array; // start of the current wait (run queue or lock)
  private readonly engineSince: Float64Array;

  // locks
  private readonly nLocks: number;
  private readonly holder: Int32Array;
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  private readonly count: Int32Array;
  private readonly lockSince: Float64Array;
  private readonly lockBusy: Float64Array;
  private readonly casVersion: Int32Array;

  // engines and run queue
  private freeEngines: number;
  private readonly runq: Int32Array;
  private rqHead = 0;
  private rqCount = 0;

  // the event being processed
  private now = 0;
  private handoffPart = 0;
  private current = -1;
  private selfNext = -1;

  private readonly w0: number;
  private readonly w1: number;

  // statistics
  private responses: Float64Array;
  private nResp = 0;
  private respSum = 0;
  private thinkSum = 0;
  private thinks = 0;
  private busyNs = 0;
  private workNs = 0;
  private spinNs = 0;
  private casRetryNs = 0;
  private lockWaitNs = 0;
  private runqNs = 0;
  private inTxNs = 0;
  private lookups = 0;
  private casAttempts = 0;
  private casRetries = 0;

  constructor(m: PointModel, seed: number) {
    this.m = m;
    const u = m.users;
    this.events = new EventQueue(u);
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
    this.step = new Int32Array(u);
    this.page = new Int32Array(u);
    this.lockOf = new Int32Array(u);
    this.casSnap = new Int32Array(u);
    this.nextWaiter = new Int32Array(u).fill(-1);
    this.segNs = new Float64Array(u);
    this.txStart = new Float64Array(u);
    this.thinkStart = new Float64Array(u);
    this.since = new Float64Array(u);
    this.engineSince = new Float64Array(u);
    this.nLocks = m.spinlocks + (m.index_latches ? m.index_pages : 0);
    this.holder = new Int32Array(this.nLocks).fill(-1);
    this.head = new Int32Array(this.nLocks).fill(-1);
    this.tail = new Int32Array(this.nLocks).fill(-1);
    this.count = new Int32Array(this.nLocks);
    this.lockSince = new Float64Array(this.nLocks);
    this.lockBusy = new Float64Array(this.nLocks);
    this.casVersion = new Int32Array(m.buffer_manager === 'lockless' ? m.data_pages + m.index_pages : 0);
    this.freeEngines = m.engines;
    this.runq = new Int32Array(u);
    this.w0 = m.warmup_ns;
    this.w1 = m.warmup_ns + m.duration_ns;
    this.responses = new Float64Array(1024);
  }

  /** Length of [a, b] inside the measurement window. */
  private clip(a: number, b: number): number {
    const lo = a > this.w0 ? a : this.w0;
    const hi = b < this.w1 ? b : this.w1;
    return hi > lo ? hi - lo : 0;
  }

  private schedule(t: number, time: number, state: number): void {
    this.state[t] = state;
    if (t === this.current) this.selfNext = time;
    else this.events.push(time, t);
  }

  run(): SimStats {
    const m = this.m;
    const queue = this.events;
    for (let t = 0; t < m.users; t++) {
      this.thinkStart[t] = -1; // the first think is a residual: not a think-time sample
      this.state[t] = THINK;
      queue.push(m.think_ns > 0 ? this.rngThink.exp(m.think_ns) : 0, t);
    }
    const end = this.w1;
    const maxEvents = m.max_events;
    let events = 0;
    while (queue.size > 0) {
      const now = queue.topTime();
      if (now > end) break;
      const t = queue.topId();
      events++;
      if (events > maxEvents) throw new Error(`${WORKER_USER_ERROR_PREFIX}a contention point (${m.buffer_manager}, ${m.engines} engines, ${m.users} users) needed more than max_events (${maxEvents}) events: shorten contention.duration or raise contention.max_events`);
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
        default:
          throw new Error(`task ${t} has an event in state ${this.state[t]}`);
      }
      if (this.selfNext >= 0) queue.replaceTop(this.selfNext);
      else queue.pop();
    }
    return this.finish(events);
  }

  private onThinkEnd(t: number): void {
    const now = this.now;
    const m = this.m;
    if (now >= this.w0 && now <= this.w1 && this.thinkStart[t]! >= 0) {
      this.thinkSum += now - this.thinkStart[t]!;
      this.thinks++;
    }
    this.txStart[t] = now;
    this.step[t] = 0;
    this.part[t] = 0;
    const segments = m.lookups + 1;
    this.segNs[t] = (m.exponential ? this.rngWork.exp(m.work_ns) : m.work_ns) / segments;
    this.requestEngine(t);
  }

  private requestEngine(t: number): void {
    if (this.freeEngines > 0) {
      this.freeEngines--;
      this.onEngine[t] = 1;
      this.engineSince[t] = this.now;
      this.startSegment(t);
    } else {
      this.state[t] = RUNQ;
      this.since[t] = this.now;
      const m = this.m;
      let tail = this.rqHead + this.rqCount;
      if (tail >= m.users) tail -= m.users;
      this.runq[tail] = t;
      this.rqCount++;
    }
  }

  private releaseEngine(t: number): void {
    const now = this.now;
    this.onEngine[t] = 0;
    this.busyNs += this.clip(this.engineSince[t]!, now);
    if (this.rqCount > 0) {
      const u = this.runq[this.rqHead]!;
      this.rqHead++;
      if (this.rqHead === this.m.users) this.rqHead = 0;
      this.rqCount--;
      this.runqNs += this.clip(this.since[u]!, now);
      this.onEngine[u] = 1;
      this.engineSince[u] = now;
      this.startSegment(u);
    } else {
      this.freeEngines++;
    }
  }

  private startSegment(t: number): void {
    const m = this.m;
    const now = this.now;
    let len: number;
    if (m.block && m.exponential && m.buffer_manager === 'latched') len = this.rngWork.exp(m.work_ns / (m.lookups + 1));
    else len = this.segNs[t]!;
    this.workNs += this.clip(now, now + len);
    this.schedule(t, now + len, SEG);
  }

  private commit(t: number): void {
    const now = this.now;
    const m = this.m;
    if (now >= this.w0 && now <= this.w1) {
      const r = now - this.txStart[t]!;
      if (this.nResp === this.responses.length) {
        const grown = new Float64Array(this.responses.length * 2);
        grown.set(this.responses);
        this.responses = grown;
      }
      this.responses[this.nResp++] = r;
      this.respSum += r;
    }
    this.inTxNs += this.clip(this.txStart[t]!, now);
    this.thinkStart[t] = now;
    this.schedule(t, m.think_ns > 0 ? now + this.rngThink.exp(m.think_ns) : now, THINK);
    this.releaseEngine(t);
  }

  /** The look-up of step[t] starts: pick its page, then the buffer manager's path. */
  private beginAccess(t: number): void {
    const m = this.m;
    const s = this.step[t]!;
    const level = this.levelOfStep[s]!;
    let page: number;
    if (level >= 0) {
      page = m.data_pages + m.level_base[level]! + this.rngPage.int(m.level_pages[level]!);
    } else {
      const table = this.table!;
      const u = this.rngPage.float() * table.n;
      const j = u | 0;
      page = u - j < table.prob[j]! ? j : table.alias[j]!;
    }
    this.page[t] = page;
    if (this.now >= this.w0 && this.now <= this.w1) this.lookups++;
    if (m.buffer_manager === 'latched') {
      this.acquire(t, spinlockOfPage(page, m.spinlocks));
    } else if (this.needsCas(page)) {
      this.casSnap[t] = this.casVersion[page]!;
      this.schedule(t, this.now + m.cas_ns, CAS);
    } else {
      this.afterAccess(t);
    }
  }

  private needsCas(page: number): boolean {
    const m = this.m;
    if (m.cas_ns <= 0 || m.update_share <= 0) return false;
    if (page < m.data_pages) {
      if (page < m.cached_data_pages) return false;
    } else {
      const rel = page - m.data_pages;
      for (let j = 0; j < m.index_levels; j++) {
        const base = m.level_base[j]!;
        if (rel >= base && rel < base + m.level_pages[j]!) {
          if (rel - base < m.cached_level_pages[j]!) return false;
          break;
        }
      }
    }
    return m.update_share >= 1 || this.rngLock.float() < m.update_share;
  }

  private onCasEnd(t: number): void {
    const now = this.now;
    const page = this.page[t]!;
    const m = this.m;
    const inWindow = now >= this.w0 && now <= this.w1;
    if (inWindow) this.casAttempts++;
    if (this.casVersion[page] === this.casSnap[t]) {
      this.casVersion[page] = (this.casSnap[t]! + 1) | 0;
      this.workNs += this.clip(now - m.cas_ns, now);
      this.afterAccess(t);
    } else {
      if (inWindow) this.casRetries++;
      this.casRetryNs += this.clip(now - m.cas_ns, now);
      this.casSnap[t] = this.casVersion[page]!;
      this.schedule(t, now + m.cas_ns, CAS);
    }
  }

  /** The buffer part (or the latch part) of a look-up is done: latch next, or the next segment. */
  private afterAccess(t: number): void {
    const m = this.m;
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
   * handoff_per_waiter once for a queue lock, × the waiters for ttas, at least once) plus the hold.
   * Exponential service draws the whole occupancy as one exponential, so a queue lock is an
   * exponential server. Sets this.handoffPart to the hand-off share of the returned occupancy.
   */
  private occupancy(lock: number, waiters: number): number {
    const m = this.m;
    const hold = lock < m.spinlocks ? m.hold_ns : m.latch_hold_ns;
    const handoff = m.ttas && waiters > 1 ? m.handoff_ns * waiters : m.handoff_ns;
    const mean = hold + handoff;
    const occ = m.exponential ? this.rngLock.exp(mean) : mean;
    this.handoffPart = mean > 0 ? (occ * handoff) / mean : 0;
    return occ;
  }

  private acquire(t: number, lock: number): void {
    const m = this.m;
    const now = this.now;
    if (m.block && this.onEngine[t] === 1) this.releaseEngine(t);
    this.lockOf[t] = lock;
    if (this.holder[lock]! < 0) {
      this.holder[lock] = t;
      this.lockSince[lock] = now;
      const occ = this.occupancy(lock, 1);
      if (this.onEngine[t] === 1) this.workNs += this.clip(now, now + occ);
      this.schedule(t, now + occ, HOLD);
    } else {
      this.state[t] = WAIT;
      this.since[t] = now;
      this.nextWaiter[t] = -1;
      if (this.count[lock] === 0) this.head[lock] = t;
      else this.nextWaiter[this.tail[lock]!] = t;
      this.tail[lock] = t;
      this.count[lock]!++;
    }
  }

  private release(lock: number): void {
    const m = this.m;
    const now = this.now;
    this.lockBusy[lock]! += this.clip(this.lockSince[lock]!, now);
    const waiters = this.count[lock]!;
    if (waiters === 0) {
      this.holder[lock] = -1;
      return;
    }
    // pick the next owner: FIFO, or (ttas while spinning) whichever spinner wins the race
    let u: number;
    if (m.ttas && !m.block && waiters > 1) {
      const k = this.rngLock.int(waiters);
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
    this.schedule(u, now + occ, HOLD);
  }

  private finish(events: number): SimStats {
    const m = this.m;
    const end = this.w1;
    // close the intervals still open at the end of the window
    for (let t = 0; t < m.users; t++) {
      const st = this.state[t]!;
      if (this.onEngine[t] === 1) this.busyNs += this.clip(this.engineSince[t]!, end);
      if (st !== THINK) this.inTxNs += this.clip(this.txStart[t]!, end);
      if (st === RUNQ) this.runqNs += this.clip(this.since[t]!, end);
      if (st === WAIT) {
        const w = this.clip(this.since[t]!, end);
        this.lockWaitNs += w;
        if (this.onEngine[t] === 1) this.spinNs += w;
      }
    }
    let hottest = 0;
    let hottestLock = 0;
    for (let l = 0; l < this.nLocks; l++) {
      let busy = this.lockBusy[l]!;
      if (this.holder[l]! >= 0) busy += this.clip(this.lockSince[l]!, end);
      if (busy > hottest) {
        hottest = busy;
        hottestLock = l;
      }
    }
    const responses = this.responses.slice(0, this.nResp).sort();
    return {
      window_ns: m.duration_ns,
      transactions: this.nResp,
      response_ns_sorted: responses,
      response_sum_ns: this.respSum,
      think_sum_ns: this.thinkSum,
      thinks: this.thinks,
      engine_busy_ns: this.busyNs,
      engine_work_ns: this.workNs,
      engine_spin_ns: this.spinNs,
      engine_cas_retry_ns: this.casRetryNs,
      lock_wait_ns: this.lockWaitNs,
      run_queue_ns: this.runqNs,
      in_transaction_ns: this.inTxNs,
      lookups: this.lookups,
      cas_attempts: this.casAttempts,
      cas_retries: this.casRetries,
      hottest_lock_busy_ns: hottest,
      hottest_lock_kind: hottestLock < m.spinlocks ? 'spinlock' : 'latch',
      events,
    };
  }
}
