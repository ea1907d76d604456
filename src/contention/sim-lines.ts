/**
 * The lockless buffer manager's page lines: compare-and-swap on a page's line (serialised per line),
 * optimistic reads validated by the page's version, the hold of a write, and the engine-local cache
 * that needs neither. README.md, "Lockless buffer manager".
 */
import { LockModels } from './sim-locks.js';
import { CAS, OPT, T_CAS_WASTE_END, T_IS_WRITE, T_OP_BEGIN, T_PAGE, WHOLD } from './sim-state.js';

export abstract class LineModels extends LockModels {
  /** The buffer part of a look-up is done (sim.ts). */
  protected abstract afterAccess(t: number): void;

  /** A page of the engine-local cache (lockless: no pin, no validation). */
  protected cached(page: number): boolean {
    const m = this.model;
    if (page < m.data_pages) return page < m.cached_data_pages;
    const rel = page - m.data_pages;
    for (let j = 0; j < m.index_levels; j++) {
      const base = m.level_base[j]!;
      if (rel >= base && rel < base + m.level_pages[j]!) return rel - base < m.cached_level_pages[j]!;
    }
    return false;
  }

  protected needsCas(page: number): boolean {
    const m = this.model;
    if (m.cas_ns <= 0 || m.update_share <= 0) return false;
    if (this.cached(page)) return false;
    return m.update_share >= 1 || this.rngLock.float32() < m.update_share;
  }

  /**
   * A compare-and-swap on the page's line. Successful CASes on one line are serialised (the line is
   * exclusively owned by one engine at a time, FIFO). An attempt that finds the line busy read a value
   * that the CAS ahead of it changes: it waits for the line, fails (one line transfer: the line comes to
   * it and the compare fails), and retries at once on the line it now owns (cas, succeeds). The wait is
   * the queue; the failure costs one transfer, not one per other writer. A fetch-and-add pin (read: faa)
   * waits for the line the same way but never fails: cas once the line is free.
   */
  protected beginCas(t: number, line: number): void {
    const m = this.model;
    const now = this.now;
    const free = this.lineFree[line]!;
    let end: number;
    if (free > now) {
      const failedEnd = m.faa ? free : free + m.line_transfer_ns;
      this.taskF64[8 * t + T_CAS_WASTE_END] = failedEnd;
      end = failedEnd + m.cas_ns;
    } else {
      this.taskF64[8 * t + T_CAS_WASTE_END] = now;
      end = now + m.cas_ns;
    }
    this.taskF64[8 * t + T_OP_BEGIN] = now;
    this.lineFree[line] = m.optimistic && this.taskU8[64 * t + T_IS_WRITE] === 1 ? end + m.write_hold_ns : end;
    // engine time: the wait for the line and the failed attempt are lost to the conflict, the rest is work
    this.casRetryNs += this.clip(now, this.taskF64[8 * t + T_CAS_WASTE_END]!);
    this.workNs += this.clip(this.taskF64[8 * t + T_CAS_WASTE_END]!, end);
    if (!m.optimistic && this.taskU8[64 * t + T_IS_WRITE] === 0 && this.segmentNext(t))
      this.casEndThenSegment(t, end, free > now && !m.faa);
    else this.schedule(t, end, CAS);
  }

  /**
   * A pin that only reads (not optimistic, not a write) followed by a CPU segment on its engine: nothing
   * at its end touches shared state (the version word is only read by optimistic reads), so its end and
   * the next segment are one event in the queue (the segment's end). The CAS's end is still counted as
   * an event; its counts use its own time.
   */
  private casEndThenSegment(t: number, end: number, failed: boolean): void {
    if (end >= this.windowStartNs && end <= this.windowEndNs) {
      this.casAttempts += failed ? 2 : 1;
      if (failed) this.casRetries++;
    }
    this.accessEndThenSegment(t, end);
  }

  protected onCasEnd(t: number): void {
    const now = this.now;
    const m = this.model;
    const line = this.taskI32[16 * t + T_PAGE]!;
    const waste = this.taskF64[8 * t + T_CAS_WASTE_END]!;
    const failed = waste > this.taskF64[8 * t + T_OP_BEGIN]! && !m.faa;
    if (this.inWindow()) {
      this.casAttempts += failed ? 2 : 1;
      if (failed) this.casRetries++;
    }
    this.version[line] = (this.version[line]! + 1) | 0; // optimistic write: odd = locked
    if (this.taskU8[64 * t + T_IS_WRITE] === 1) {
      this.workNs += this.clip(now, now + m.write_hold_ns);
      this.schedule(t, now + m.write_hold_ns, WHOLD);
    } else this.afterAccess(t);
  }

  protected onWriteHoldEnd(t: number): void {
    if (this.model.optimistic) {
      const line = this.taskI32[16 * t + T_PAGE]!;
      this.version[line] = (this.version[line]! + 1) | 0; // unlocked
    }
    this.afterAccess(t);
  }

  /** An optimistic read ([LEANSTORE], [OLC]): note the page's version, read for `lookup`, then validate. */
  protected beginOptimistic(t: number): void {
    this.snap[t] = this.version[this.taskI32[16 * t + T_PAGE]!]!;
    this.taskF64[8 * t + T_OP_BEGIN] = this.now;
    this.schedule(t, this.now + this.model.lookup_ns, OPT);
  }

  protected onOptimisticEnd(t: number): void {
    const page = this.taskI32[16 * t + T_PAGE]!;
    const now = this.now;
    const inWindow = this.inWindow();
    if (inWindow) this.optReads++;
    const s = this.snap[t]!;
    if (this.cached(page) || ((s & 1) === 0 && this.version[page] === s)) {
      this.workNs += this.clip(this.taskF64[8 * t + T_OP_BEGIN]!, now);
      this.afterAccess(t);
      return;
    }
    // locked when read, or written since: the read is wasted; read again
    if (inWindow) this.optRestarts++;
    this.restartNs += this.clip(this.taskF64[8 * t + T_OP_BEGIN]!, now);
    this.beginOptimistic(t);
  }
}
