/**
 * The work a workload plans, counted before it runs (cheap: no engine is built).
 */
import type { PhaseSpec } from '../config/spec.js';
import { resolveCount } from '../util/units.js';

/** Rows a workload inserts in total (percentages resolved against the rows at that point). */
export function plannedInserts(workload: readonly PhaseSpec[]): number {
  let live = 0;
  let inserted = 0;
  for (const ph of workload) {
    if (ph.op === 'insert') {
      const n = resolveCount(ph.rows, live);
      live += n;
      inserted += n;
    } else if (ph.op === 'delete') {
      live -= Math.min(live, resolveCount(ph.rows, live));
    }
  }
  return inserted;
}

/**
 * Row operations a workload plans: each phase's rows (an update's, delete's or read's, resolved against
 * the live rows at that point; a read as often as it repeats), a reorg's live rows. What decides the
 * compiler's inlining budget (src/cli/compiler.ts): the work a process does, not the memory it needs.
 */
export function plannedRowOperations(workload: readonly PhaseSpec[]): number {
  let live = 0;
  let ops = 0;
  for (const ph of workload) {
    if (ph.op === 'reorg') {
      ops += live;
      continue;
    }
    if (ph.op === 'snapshot') continue;
    const n = Math.min(resolveCount(ph.rows, live), ph.op === 'insert' ? Infinity : live);
    ops += ph.op === 'select' ? n * ph.repeat : n;
    if (ph.op === 'insert') live += n;
    else if (ph.op === 'delete') live -= n;
  }
  return ops;
}
