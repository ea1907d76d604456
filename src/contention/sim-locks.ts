/**
 * The latched buffer manager's spinlocks and the index latches: the occupancy of an acquisition
 * (hand-off and hold), the wait (spinning, blocked, backing off, spin-then-yield) and the hand-over to
 * the next owner (FIFO or a random spinner). README.md, "Latched buffer manager".
 */
import { EngineCycle } from './sim-engines.js';
import { BACKOFF, HOLD, RUNQ, SLEEP, SPIN, T_BACKOFF_NS, T_LOCK_OF, T_ON_ENGINE, T_SINCE, T_STATE, WAIT } from './sim-state.js';

/** PostgreSQL's s_lock (REL_15 src/backend/storage/lmgr/s_lock.c): the first sleep, and the largest before it wraps back to the first. */
export const PG_MIN_DELAY_NS = 1e6;
export const PG_MAX_DELAY_NS = 1e9;

export abstract class LockModels extends EngineCycle {
  /**
   * Occupancy of one acquisition: the hand-off (the lock word's cache line moving to the new owner:
   * handoff_per_waiter once for mcs and ttas_backoff, × the waiters spinning on the word for ttas,
   * spin_yield, spin_sleep and ticket, at least once: [LOCKS], [MCS]; × (2w − 1) for plain tas, whose
   * spinners write the line on every spin: [ANDERSON]) plus the hold. Exponential service draws the whole occupancy
   * as one exponential, so a queue lock is an exponential server. Sets this.handoffPart to the hand-off
   * share of the returned occupancy.
   */
  protected occupancy(lock: number, waiters: number): number {
    const m = this.model;
    const hold = lock < m.spinlocks ? m.hold_ns : m.latch_hold_ns;
    const handoff = m.ttas && waiters > 1 ? m.handoff_ns * (m.tas ? 2 * waiters - 1 : waiters) : m.handoff_ns;
    const mean = hold + handoff;
    const occ = m.exponential ? this.rngLock.exp32(mean) : mean;
    this.handoffPart = mean > 0 ? (occ * handoff) / mean : 0;
    return occ;
  }

  /**
   * Take a free lock now: the first hand-off and the hold are work on the engine. When a segment follows
   * on the engine (spinning waits), the hold's end and the segment are one event: the release is left
   * pending in lockRelease (nobody waits yet) and made by `settle` when the next task comes to the lock,
   * or by an event of the lock's own when that task must wait.
   */
  protected take(t: number, lock: number): void {
    const now = this.now;
    this.holder[lock] = t;
    this.lockSince[lock] = now;
    this.taskF64[8 * t + T_BACKOFF_NS] = 0;
    const occ = this.occupancy(lock, 1);
    if (this.taskU8[64 * t + T_ON_ENGINE] === 1) this.workNs += this.clip(now, now + occ);
    if (!this.model.block && this.segmentNext(t)) {
      this.lockRelease[lock] = now + occ;
      this.accessEndThenSegment(t, now + occ);
    } else this.schedule(t, now + occ, HOLD);
  }

  /** A pending release (take) whose time has come: the lock is free (a hold's end comes before others at its instant). */
  protected settle(lock: number): void {
    const at = this.lockRelease[lock]!;
    if (at >= 0 && at <= this.now) {
      this.lockRelease[lock] = -1;
      this.lockBusy[lock]! += this.clip(this.lockSince[lock]!, at);
      this.holder[lock] = -1;
    }
  }

  /** The lock's first waiter: a pending release becomes an event (id users + lock; sim.ts calls release). */
  private releaseEvent(lock: number): void {
    const at = this.lockRelease[lock]!;
    if (at < 0) return;
    this.lockRelease[lock] = -1;
    this.events.push(at, this.model.users + lock);
  }

  protected override acquire(t: number, lock: number): void {
    const m = this.model;
    const now = this.now;
    if (m.block && this.taskU8[64 * t + T_ON_ENGINE] === 1) this.releaseEngine(t);
    this.taskI32[16 * t + T_LOCK_OF] = lock;
    this.settle(lock);
    if (this.holder[lock]! < 0) {
      this.take(t, lock);
      return;
    }
    this.taskF64[8 * t + T_SINCE] = now;
    if (m.lock === 'ttas_backoff' && !m.block) {
      this.taskF64[8 * t + T_BACKOFF_NS] = m.backoff_min_ns;
      this.schedule(t, now + this.backoffDelay(t), BACKOFF);
      return;
    }
    this.nextWaiter[t] = -1;
    this.releaseEvent(lock);
    if (this.count[lock] === 0) this.head[lock] = t;
    else this.nextWaiter[this.tail[lock]!] = t;
    this.tail[lock] = t;
    this.count[lock]!++;
    if (m.give_up !== 'none' && !m.block) this.schedule(t, now + m.spin_limit_ns, SPIN);
    else this.taskU8[64 * t + T_STATE] = WAIT;
  }

  /** Exponential back-off [ANDERSON]: a delay between half and all of the current bound, which then doubles. */
  protected backoffDelay(t: number): number {
    const cur = this.taskF64[8 * t + T_BACKOFF_NS]!;
    const next = cur * 2;
    this.taskF64[8 * t + T_BACKOFF_NS] = next < this.model.backoff_max_ns ? next : this.model.backoff_max_ns;
    return cur * (0.5 + 0.5 * this.rngLock.float32());
  }

  /** ttas_backoff: the back-off is over: probe the lock (one line read), take it if free, else back off longer. */
  protected onBackoffEnd(t: number): void {
    const lock = this.taskI32[16 * t + T_LOCK_OF]!;
    const now = this.now;
    this.settle(lock);
    if (this.holder[lock]! >= 0) {
      this.schedule(t, now + this.backoffDelay(t), BACKOFF);
      return;
    }
    this.holder[lock] = t;
    this.lockSince[lock] = now;
    const occ = this.occupancy(lock, 1);
    const start = now + this.handoffPart;
    const waited = this.clip(this.taskF64[8 * t + T_SINCE]!, start);
    this.lockWaitNs += waited;
    this.spinNs += waited;
    this.workNs += this.clip(start, now + occ);
    this.schedule(t, now + occ, HOLD);
  }

  /**
   * The spin limit is reached: leave the waiter list and give the engine up. spin_yield: queue for an
   * engine again at once (sched_yield). spin_sleep ([PG-SLOCK]'s perform_spin_delay): sleep off the
   * engine — 1 ms the first time, then each sleep grows by a random 1× to 2× and wraps back to 1 ms past
   * 1 s — then queue for an engine and spin again. (s_lock's adaptive spins_per_delay is not modelled:
   * spin_limit is the time of one round of spins.)
   */
  protected onSpinLimit(t: number): void {
    const lock = this.taskI32[16 * t + T_LOCK_OF]!;
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
    const waited = this.clip(this.taskF64[8 * t + T_SINCE]!, this.now);
    this.lockWaitNs += waited;
    this.spinNs += waited;
    if (this.inWindow()) this.yields++;
    this.retryLock[t] = 1;
    if (this.model.give_up === 'sleep') {
      const cur = this.taskF64[8 * t + T_BACKOFF_NS]! > 0 ? this.taskF64[8 * t + T_BACKOFF_NS]! : PG_MIN_DELAY_NS;
      let next = cur + Math.round((cur * this.rngLock.float32()) / 1000) * 1000; // + a random fraction, in whole µs
      if (next > PG_MAX_DELAY_NS) next = PG_MIN_DELAY_NS;
      this.taskF64[8 * t + T_BACKOFF_NS] = next;
      this.taskF64[8 * t + T_SINCE] = this.now;
      this.releaseEngine(t);
      this.schedule(t, this.now + cur, SLEEP);
      return;
    }
    this.taskU8[64 * t + T_STATE] = RUNQ;
    this.releaseEngine(t);
    this.requestEngine(t);
  }

  /** spin_sleep: the sleep is over (lock wait off the engine): queue for an engine, then try the lock again. */
  protected onSleepEnd(t: number): void {
    this.lockWaitNs += this.clip(this.taskF64[8 * t + T_SINCE]!, this.now);
    this.requestEngine(t);
  }

  protected release(lock: number): void {
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
    this.taskF64[8 * u + T_BACKOFF_NS] = 0;
    const occ = this.occupancy(lock, waiters);
    const start = now + this.handoffPart;
    this.holder[lock] = u;
    this.lockSince[lock] = now;
    const waited = this.clip(this.taskF64[8 * u + T_SINCE]!, start);
    this.lockWaitNs += waited;
    if (this.taskU8[64 * u + T_ON_ENGINE] === 1) {
      this.spinNs += waited;
      this.workNs += this.clip(start, now + occ);
    }
    if (this.taskU8[64 * u + T_STATE] === SPIN) {
      // its spin-limit event is pending: move it to the end of the hold
      this.taskU8[64 * u + T_STATE] = HOLD;
      this.events.update(u, now + occ);
    } else this.schedule(u, now + occ, HOLD);
  }
}
