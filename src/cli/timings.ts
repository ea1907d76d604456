/**
 * `rowsim run --timings`: where a run's wall time went, printed on standard error once the files are
 * written. The phases are spans of the main thread's clock, in seconds from the process's start
 * (performance.now(): Node.js starting, loading rowsim and the config are in `load`):
 *
 *   load      the process's start → the tasks queued (config loaded and checked, the pool starting)
 *   simulate  → every storage point simulated (or the contention replications done)
 *   charts    → every PNG drawn (the page maps and the charts over the sweep points)
 *   report    summary.md's and report.html's text made: on the main thread beside the drawing, so its
 *             span overlaps `charts` and is not part of the sum
 *   write     → the files written and published
 *
 * and the whole process's CPU time so far, every thread's (process.cpuUsage()). Drawing runs beside the
 * simulation (a point's page maps as soon as it is simulated), so `charts` is what drawing adds after
 * the last point, not all it costs.
 */
import { performance } from 'node:perf_hooks';

export type Phase = 'load' | 'simulate' | 'charts' | 'report' | 'write';

/** The phases in order; `report` runs beside `charts`. */
export const PHASES: readonly Phase[] = ['load', 'simulate', 'charts', 'report', 'write'];

/** What each phase is, as the printout says it. */
const WHAT: Record<Phase, string> = {
  load: 'start-up, config loaded, tasks queued',
  simulate: 'every point simulated',
  charts: 'every PNG drawn',
  report: "summary.md and report.html's text (beside the drawing)",
  write: 'files written and published',
};

export class RunTimings {
  private readonly spans = new Map<Phase, { from: number; to: number }>();
  private last = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The phase `phase` ends now; it began where the phase before it ended. */
  end(phase: Phase): void {
    const to = this.now();
    this.spans.set(phase, { from: this.last, to });
    this.last = to;
  }

  /** `fn`'s span as `phase`, beside the sequence (the sequence's clock does not move). */
  async beside<T>(phase: Phase, fn: () => T | Promise<T>): Promise<T> {
    const from = this.now();
    try {
      return await fn();
    } finally {
      this.spans.set(phase, { from, to: this.now() });
    }
  }

  /** The lines --timings prints; CPU seconds of every thread (process.cpuUsage()). */
  lines(cpuSeconds: number): string[] {
    const s = (ms: number) => (ms / 1000).toFixed(3);
    const out = ['timings (seconds from the process start; wall, the main thread):'];
    for (const phase of PHASES) {
      const span = this.spans.get(phase);
      if (!span) continue;
      out.push(`  ${phase.padEnd(9)} ${s(span.from)}–${s(span.to)}  ${s(span.to - span.from).padStart(6)}  ${WHAT[phase]}`);
    }
    out.push(`  ${'total'.padEnd(9)} ${' '.repeat(11)}  ${s(this.last).padStart(6)}  wall; CPU ${cpuSeconds.toFixed(3)} s, every thread`);
    return out;
  }
}

/** CPU seconds the process has used, every thread's, user and system. */
export function processCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}
