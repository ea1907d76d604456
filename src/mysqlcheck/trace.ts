/**
 * What rowsim's run of a config did, for the replay to do the same (the runner's WorkloadObserver, as
 * pg-check records it): per phase the rows it inserted, updated or deleted, in the order the engine saw
 * them, and each keyed column's key as a whole-number code: the key's rank among all the column's keys of
 * the run (equal keys, equal codes; NULL: none). The replay then inserts the same keys in the same order
 * and changes the same rows, so the server's pages split where the model's do.
 */
import type { StorageSpec } from '../config/spec.js';
import { runStorage, type StorageRunResult } from '../workload/runner.js';

/** One row operation: the model's row id, and the codes of its keyed columns after it (NaN: not keyed or unchanged; −1: NULL). */
export interface TracedRow {
  row: number;
  codes: Float64Array | null;
}

export interface ModelTrace {
  /** Per phase index, its row operations in order (inserts, updates or deletes). */
  phases: TracedRow[][];
}

/** Run the config and record its row operations, keys ranked per column; and the run's result. */
export function recordTrace(spec: StorageSpec): { trace: ModelTrace; run: StorageRunResult } {
  const ncols = spec.table.columns.length;
  const phases: TracedRow[][] = spec.workload.map(() => []);
  let current = -1;
  const keep = (keys: Float64Array): Float64Array | null => {
    let any = false;
    for (let c = 0; c < ncols; c++) if (!Number.isNaN(keys[c]!)) any = true;
    return any ? Float64Array.from(keys.subarray(0, ncols)) : null;
  };
  const run = runStorage(spec, {
    observer: {
      phaseStart: (index) => (current = index),
      insert: (row, _lens, _base, keys) => phases[current]!.push({ row, codes: keep(keys) }),
      update: (row, _columns, _lens, _base, keys) => phases[current]!.push({ row, codes: keep(keys) }),
      delete: (row) => phases[current]!.push({ row, codes: null }),
    },
  });
  rankKeys(phases, ncols);
  return { trace: { phases }, run };
}

/** Replace every finite key by its rank + 1 among its column's distinct keys; NULL keys (Infinity) by −1. */
export function rankKeys(phases: TracedRow[][], ncols: number): void {
  for (let c = 0; c < ncols; c++) {
    const keys: number[] = [];
    for (const ops of phases) for (const op of ops) if (op.codes && Number.isFinite(op.codes[c]!)) keys.push(op.codes[c]!);
    if (keys.length === 0) continue;
    keys.sort((a, b) => a - b);
    const rank = new Map<number, number>();
    for (const k of keys) if (!rank.has(k)) rank.set(k, rank.size + 1);
    for (const ops of phases)
      for (const op of ops) {
        const k = op.codes?.[c];
        if (k === undefined || Number.isNaN(k)) continue;
        op.codes![c] = k === Infinity ? -1 : rank.get(k)!;
      }
  }
}
