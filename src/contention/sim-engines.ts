/**
 * The user/engine cycle: think, ask for an engine (one FIFO run queue), CPU segments between the
 * look-ups, commit and give the engine up.
 *
 * Thinking users have no events of their own: think times are exponential, so the think completions
 * of k thinking users form a Poisson process of rate k/Z whose next completion is a uniformly chosen
 * thinking user (memorylessness). One aggregate event (thinkNext) stands for it and is redrawn whenever
 * k changes; it is kept beside the heap, not in it. This is exact in distribution and keeps the heap as small as the set of busy tasks, which
 * is what makes the event loop fast with thousands of users. With think_time 0 a committing task
 * starts its next transaction at once (an event at the same instant).
 */
import {
  SimState,
  RUNQ,
  SEG,
  THINK,
  T_ENGINE_SINCE,
  T_LOCK_OF,
  T_ON_ENGINE,
  T_PAGE,
  T_PART,
  T_SEG_NS,
  T_SINCE,
  T_STATE,
  T_STEP,
} from './sim-state.js';
import { BATCHES } from './sim-window.js';

export abstract class EngineCycle extends SimState {
  /** Take the lock (sim-locks.ts); here: another try after a yield. */
  protected abstract acquire(t: number, lock: number): void;

  protected addThinker(t: number): void {
    this.thinkers[this.nThink] = t;
    this.thinkIdx[t] = this.nThink;
    this.nThink++;
  }

  /** The next think completion: a uniformly chosen thinking user starts its transaction. */
  protected onAggregateThink(): void {
    const k = this.rngThink.index(this.nThink);
    const u = this.thinkers[k]!;
    const last = this.thinkers[--this.nThink]!;
    this.thinkers[k] = last;
    this.thinkIdx[last] = k;
    this.thinkNext = this.nThink > 0 ? this.now + this.rngThink.exp32(this.model.think_ns / this.nThink) : Infinity;
    this.onThinkEnd(u); // current is −1: u has no event, its schedules are pushes
  }

  protected onThinkEnd(t: number): void {
    const now = this.now;
    const m = this.model;
    if (now >= this.windowStartNs && now <= this.windowEndNs && this.thinkStart[t]! >= 0) {
      this.thinkSum += now - this.thinkStart[t]!;
      this.thinks++;
    }
    this.txStart[t] = now;
    this.taskI32[16 * t + T_STEP] = 0;
    this.taskU8[64 * t + T_PART] = 0;
    const segments = m.lookups + 1;
    this.taskF64[8 * t + T_SEG_NS] = (m.exponential ? this.rngWork.exp32(m.work_ns) : m.work_ns) / segments;
    this.requestEngine(t);
  }

  protected requestEngine(t: number): void {
    if (this.freeEngines > 0) {
      this.freeEngines--;
      this.taskU8[64 * t + T_ON_ENGINE] = 1;
      this.taskF64[8 * t + T_ENGINE_SINCE] = this.now;
      this.dispatch(t);
    } else {
      this.taskU8[64 * t + T_STATE] = RUNQ;
      this.taskF64[8 * t + T_SINCE] = this.now;
      const m = this.model;
      let tail = this.rqHead + this.rqCount;
      if (tail >= m.users) tail -= m.users;
      this.runq[tail] = t;
      this.rqCount++;
    }
  }

  /** A task got an engine: its next CPU segment, or (after a yield) another try at its lock. */
  protected dispatch(t: number): void {
    if (this.retryLock[t] === 1) {
      this.retryLock[t] = 0;
      this.acquire(t, this.taskI32[16 * t + T_LOCK_OF]!);
    } else this.startSegment(t);
  }

  protected releaseEngine(t: number): void {
    const now = this.now;
    this.taskU8[64 * t + T_ON_ENGINE] = 0;
    this.busyNs += this.clip(this.taskF64[8 * t + T_ENGINE_SINCE]!, now);
    if (this.rqCount > 0) {
      const u = this.runq[this.rqHead]!;
      this.rqHead++;
      if (this.rqHead === this.model.users) this.rqHead = 0;
      this.rqCount--;
      this.runqNs += this.clip(this.taskF64[8 * u + T_SINCE]!, now);
      this.taskU8[64 * u + T_ON_ENGINE] = 1;
      this.taskF64[8 * u + T_ENGINE_SINCE] = now;
      this.dispatch(u);
    } else {
      this.freeEngines++;
    }
  }

  protected startSegment(t: number): void {
    this.segmentAt(t, this.now);
  }

  private segmentAt(t: number, start: number): void {
    const m = this.model;
    let len: number;
    if (m.block && m.exponential && m.buffer_manager === 'latched') len = this.rngWork.exp32(m.work_ns / (m.lookups + 1));
    else len = this.taskF64[8 * t + T_SEG_NS]!;
    this.workNs += this.clip(start, start + len);
    this.schedule(t, start + len, SEG);
  }

  /**
   * Does a CPU segment follow the current access of t at once (t on its engine, and no index latch to
   * take after a page's spinlock)? Then the access's end and the segment can be one event (sim.ts
   * afterAccess does the same at the access's end).
   */
  protected segmentNext(t: number): boolean {
    const m = this.model;
    return (
      this.taskU8[64 * t + T_ON_ENGINE] === 1 &&
      !(this.taskU8[64 * t + T_PART] === 0 && m.index_latches && this.taskI32[16 * t + T_PAGE]! >= m.data_pages)
    );
  }

  /** The access of t ends at `end` and its next segment starts then: one event in the queue (the segment's end), two counted. */
  protected accessEndThenSegment(t: number, end: number): void {
    if (++this.nEvents > this.model.max_events) this.tooManyEvents();
    this.taskU8[64 * t + T_PART] = 0;
    this.taskI32[16 * t + T_STEP]!++;
    this.segmentAt(t, end);
  }

  protected commit(t: number): void {
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
      const b = ((now - this.windowStartNs) / this.batchNs) | 0;
      this.batches[b < BATCHES ? b : BATCHES - 1]!++;
    }
    this.traceCommit(now);
    this.inTxNs += this.clip(this.txStart[t]!, now);
    this.thinkStart[t] = now;
    if (m.think_ns > 0) {
      // t joins the thinking users and has no event of its own; the aggregate event is redrawn
      this.taskU8[64 * t + T_STATE] = THINK;
      this.addThinker(t);
      this.thinkNext = now + this.rngThink.exp32(m.think_ns / this.nThink);
    } else this.schedule(t, now, THINK);
    this.releaseEngine(t);
  }
}
