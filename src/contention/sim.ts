/**
 * The discrete-event simulation of one point: U users, N engines, one buffer manager. Pure and
 * deterministic: same model and seed, same numbers. See README.md in this folder for what is modelled.
 *
 * Hot-path rules: typed-array state (a 64-byte record per task, sim-state.ts), an EventQueue on typed
 * arrays, at most one pending event per task, no allocation per event. Time is a double in nanoseconds.
 *
 * The measuring window is [warmup, warmup + duration]. When the point is not stationary at its end
 * (Little's law or the drift between the window's halves past the tolerance), the run goes on: the old
 * window becomes warm-up and a window twice as long is measured, at most max_extensions times.
 *
 * The simulator is layered by mechanism, one file each: sim-state.ts (the state, the task states),
 * sim-engines.ts (users and engines), sim-locks.ts (spinlocks and latches), sim-lines.ts (lockless page
 * lines), this file (the event loop, a look-up's path, the window's end), sim-window.ts (the window's
 * checks and percentiles).
 */
import { spinlockOfPage, type PointModel } from './model.js';
import {
  BACKOFF,
  CAS,
  HOLD,
  OPT,
  RUNQ,
  SEG,
  SLEEP,
  SPIN,
  THINK,
  T_ENGINE_SINCE,
  T_IS_WRITE,
  T_LOCK_OF,
  T_ON_ENGINE,
  T_OP_BEGIN,
  T_PAGE,
  T_PART,
  T_SINCE,
  T_STATE,
  T_STEP,
  WAIT,
  WHOLD,
} from './sim-state.js';
import { LineModels } from './sim-lines.js';
import { halfDrift, isStationary, littleLawErrorPct, nearestRank, type SimStats, type WindowStats } from './sim-window.js';

export { AliasTable } from './alias-table.js';
export { halfDrift, isStationary, nearestRank } from './sim-window.js';

/**
 * The state a run starts from: `idle`, every user thinking (a residual think); `backlog`, every user
 * submitting a transaction at time 0 (all of them in the system at once, the run queue full).
 */
export type StartState = 'idle' | 'backlog';

export function simulatePoint(m: PointModel, seed: number, start: StartState = 'idle'): SimStats {
  return new Simulator(m, seed).run(start);
}

class Simulator extends LineModels {
  run(start: StartState): SimStats {
    const m = this.model;
    for (let t = 0; t < m.users; t++) {
      this.thinkStart[t] = -1; // the first think is a residual: not a think-time sample
      this.taskU8[64 * t + T_STATE] = THINK;
      if (start === 'backlog')
        this.onThinkEnd(t); // current is −1: its schedules are pushes
      else if (m.think_ns > 0) this.addThinker(t);
      else this.events.push(0, t);
    }
    if (m.think_ns > 0 && this.nThink > 0) this.thinkNext = this.rngThink.exp32(m.think_ns / this.nThink);
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
    const users = m.users;
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
      this.now = now;
      if (t >= users) {
        // a lock's pending release (sim-locks.ts take; counted as an event there)
        this.current = -1;
        this.release(t - users);
        queue.pop();
        continue;
      }
      if (++this.nEvents > maxEvents) this.tooManyEvents();
      this.current = t;
      this.selfNext = -1;
      switch (this.taskU8[64 * t + T_STATE]) {
        case THINK:
          this.onThinkEnd(t);
          break;
        case SEG:
          if (this.taskI32[16 * t + T_STEP] === m.lookups) this.commit(t);
          else this.beginAccess(t);
          break;
        case HOLD:
          this.release(this.taskI32[16 * t + T_LOCK_OF]!);
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
        case SLEEP:
          this.onSleepEnd(t);
          break;
        default:
          throw new Error(`task ${t} has an event in state ${this.taskU8[64 * t + T_STATE]}`);
      }
      if (this.selfNext >= 0) queue.replaceTop(this.selfNext);
      else queue.pop();
    }
  }

  /** The look-up of step[t] starts: pick its page, then the buffer manager's path. */
  private beginAccess(t: number): void {
    const m = this.model;
    const s = this.taskI32[16 * t + T_STEP]!;
    const level = this.levelOfStep[s]!;
    let page: number;
    if (level >= 0) page = m.data_pages + m.level_base[level]! + this.pageDraws.index(m.level_pages[level]!);
    else page = this.pageDraws.dataPage();
    this.taskI32[16 * t + T_PAGE] = page;
    if (this.inWindow()) this.lookups++;
    if (this.latched) {
      this.acquire(t, spinlockOfPage(page, m.spinlocks));
      return;
    }
    const write = m.write_share > 0 && (m.write_share >= 1 || this.rngLock.float32() < m.write_share);
    this.taskU8[64 * t + T_IS_WRITE] = write ? 1 : 0;
    if (write || (!m.optimistic && this.needsCas(page))) this.beginCas(t, page);
    else if (m.optimistic) this.beginOptimistic(t);
    else this.afterAccess(t);
  }

  /** The buffer part (or the latch part) of a look-up is done: latch next, or the next segment. */
  protected override afterAccess(t: number): void {
    const m = this.model;
    if (this.taskU8[64 * t + T_PART] === 0 && m.index_latches && this.taskI32[16 * t + T_PAGE]! >= m.data_pages) {
      this.taskU8[64 * t + T_PART] = 1;
      this.acquire(t, m.spinlocks + (this.taskI32[16 * t + T_PAGE]! - m.data_pages));
      return;
    }
    this.taskU8[64 * t + T_PART] = 0;
    this.taskI32[16 * t + T_STEP]!++;
    if (this.taskU8[64 * t + T_ON_ENGINE] === 1) this.startSegment(t);
    else this.requestEngine(t);
  }

  private finish(): WindowStats {
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
      const st = this.taskU8[64 * t + T_STATE]!;
      if (this.taskU8[64 * t + T_ON_ENGINE] === 1) busy += this.clip(this.taskF64[8 * t + T_ENGINE_SINCE]!, end);
      if (st !== THINK) inTx += this.clip(this.txStart[t]!, end);
      if (st === RUNQ) runq += this.clip(this.taskF64[8 * t + T_SINCE]!, end);
      // an optimistic read still running: work so far (whether it validates is not known yet)
      if (st === OPT) work += this.clip(this.taskF64[8 * t + T_OP_BEGIN]!, end);
      if (st === WAIT || st === BACKOFF || st === SPIN || st === SLEEP) {
        const w = this.clip(this.taskF64[8 * t + T_SINCE]!, end);
        lockWait += w;
        if (this.taskU8[64 * t + T_ON_ENGINE] === 1) spin += w;
      }
    }
    let hottest = 0;
    let hottestLock = 0;
    for (let l = 0; l < this.nLocks; l++) {
      let b = this.lockBusy[l]!;
      if (this.holder[l]! >= 0) b += this.clip(this.lockSince[l]!, this.lockRelease[l]! >= 0 ? this.lockRelease[l]! : end);
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
      batch_transactions: Array.from(this.batches),
      trace: Array.from(this.trace.subarray(0, Math.min(this.trace.length, Math.ceil(end / this.traceNs)))),
      trace_bucket_ns: this.traceNs,
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
