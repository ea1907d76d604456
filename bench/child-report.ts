/**
 * What a bench child process (bench/child.ts) reports, and how the parent reads its end: a report
 * line, a refusal by the memory limits, or a failure (killed at the time limit, killed by the kernel,
 * out of memory, crashed). Pure: the parent hands in what spawnSync returned.
 */
import type { Sample } from './harness.js';
import type { FormatId } from '../src/config/format-ids.js';

/** The order a bench workload's update phase visits its rows in. */
export type BenchOrder = 'random' | 'sequential';

/** The child's one line of result on stdout starts with this; the rest of the line is JSON. */
export const CHILD_MARK = 'rowsim-bench-child ';

export interface ChildRequest {
  rows: number;
  format: FormatId;
  order: BenchOrder;
  /** Refuse, as `rowsim run` does (src/cli/limits.ts), a table that cannot fit in the memory available. */
  checkLimits: boolean;
  /** Run the workload this many times in the child, one after the other (default 1): the storage suite's warm-ups and counted runs. */
  repeat?: number;
}

export interface ChildReport {
  rows: number;
  format: FormatId;
  order: BenchOrder;
  /** CPU and wall seconds of each phase's row operations (onPhase), in the first run. */
  phases: Sample[];
  /** Every run's phases, the first run's first (`repeat` runs; absent from a child of one run). */
  runs?: Sample[][];
  /** CPU seconds of the whole child process, start-up included (process.cpuUsage at the end). */
  cpu_s: number;
  /** process.memoryUsage().rss after the run, the result still referenced. */
  rss_bytes: number;
  /** The peak: process.resourceUsage().maxRSS (kilobytes) × 1024. */
  max_rss_bytes: number;
  /** What the engine and the row store count of their own arrays (StorageRunResult.memory_bytes). */
  engine_bytes: number;
  /** Moved rows and pages at the end, in the format's words. */
  outcome: string;
}

export type ChildOutcome =
  { kind: 'report'; report: ChildReport } | { kind: 'refused'; message: string } | { kind: 'failed'; message: string };

/** What spawnSync gave back, and the time limit the child had. */
export interface ChildEnd {
  status: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** spawnSync's timeout fired (its error code ETIMEDOUT). */
  timedOut: boolean;
  timeoutS: number;
}

const OUT_OF_MEMORY =
  /JavaScript heap out of memory|Array buffer allocation failed|ERR_MEMORY_ALLOCATION_FAILED|Cannot allocate memory|Allocation failed/i;

function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines[lines.length - 1] ?? '';
}

function isReport(x: unknown): x is ChildReport {
  const r = x as ChildReport;
  return (
    typeof r === 'object' &&
    r !== null &&
    Number.isFinite(r.rows) &&
    typeof r.format === 'string' &&
    Array.isArray(r.phases) &&
    r.phases.every((p) => Number.isFinite(p?.wall) && Number.isFinite(p?.cpu)) &&
    [r.cpu_s, r.rss_bytes, r.max_rss_bytes, r.engine_bytes].every(Number.isFinite)
  );
}

/** The outcome of one child: its report, its refusal, or why it failed (one line, for the bench line). */
export function childOutcome(end: ChildEnd): ChildOutcome {
  if (end.timedOut) return { kind: 'failed', message: `killed at the time limit of ${end.timeoutS} s (--timeout)` };
  const oom = end.stderr.split('\n').find((l) => OUT_OF_MEMORY.test(l));
  if (oom) return { kind: 'failed', message: `out of memory: ${oom.trim()}` };
  if (end.signal === 'SIGKILL')
    return { kind: 'failed', message: 'killed by SIGKILL (not by the bench: most likely the kernel, out of memory)' };
  if (end.signal) return { kind: 'failed', message: `killed by ${end.signal}` };
  const line = end.stdout.split('\n').find((l) => l.startsWith(CHILD_MARK));
  if (end.status !== 0 || !line) {
    const why = lastLine(end.stderr) || 'no message';
    return { kind: 'failed', message: end.status !== 0 ? `exited with status ${end.status}: ${why}` : `printed no report: ${why}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(line.slice(CHILD_MARK.length));
  } catch {
    return { kind: 'failed', message: `printed a report that is not JSON: ${line.slice(0, 200)}` };
  }
  const p = parsed as { refused?: unknown };
  if (typeof p?.refused === 'string') return { kind: 'refused', message: p.refused };
  if (!isReport(parsed)) return { kind: 'failed', message: `printed a report without its figures: ${line.slice(0, 200)}` };
  return { kind: 'report', report: parsed };
}

/** Resident growth per row between two runs of the same workload at two sizes. */
export function growthPerRow(small: { rows: number; bytes: number }, large: { rows: number; bytes: number }): number {
  if (large.rows <= small.rows) throw new Error('growthPerRow: expected the second run to have more rows');
  return (large.bytes - small.bytes) / (large.rows - small.rows);
}
