/**
 * What rowsim's run of a config did, for the replay to do the same (the runner's WorkloadObserver, as
 * pg-check records it): per phase the rows it inserted, updated or deleted, in the order the engine saw
 * them, and each keyed column's key as a whole-number code: the key's rank among all the column's keys of
 * the run (equal keys, equal codes; NULL: none). The replay then inserts the same keys in the same order
 * and changes the same rows, so the server's pages split where the model's do. Each row's varying
 * lengths come with it (bytes, the whole value's where a large object's is longer than the row store
 * keeps), so the replay sends values of the lengths the model drew, not a draw of its own.
 */
import type { StorageSpec } from '../config/spec.js';
import { getFormat } from '../formats/registry.js';
import { MAX_STORED_LEN, NULL_LEN } from '../layout/table-layout.js';
import { runStorage, type StorageRunResult } from '../workload/runner.js';
import { lowerBound, sortedDistinct } from '../util/arrays.js';

/**
 * One row operation: the model's row id, the codes of its keyed columns after it (NaN: not keyed or
 * unchanged; −1: NULL), and per column its value's length in bytes after it (NaN: a column of fixed
 * length the model does not vary; −1: NULL); null for a delete.
 */
export interface TracedRow {
  row: number;
  codes: Float64Array | null;
  lens: Float64Array | null;
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
  const varIndex = getFormat(spec.engine.format)
    .rows.layout(spec.table, spec.engine)
    .columns.map((c) => c.varIndex);
  const lengths = (row: number, lens: Uint16Array, base: number, whole?: ReadonlyMap<number, Uint32Array> | null): Float64Array =>
    Float64Array.from(varIndex, (v) => {
      if (v < 0) return NaN;
      const len = lens[base + v]!;
      if (len === NULL_LEN) return -1;
      const arr = whole?.get(v);
      const w = arr && row < arr.length ? arr[row]! : 0;
      return w > MAX_STORED_LEN ? w : len;
    });
  const run = runStorage(spec, {
    observer: {
      phaseStart: (index) => (current = index),
      insert: (row, lens, base, keys, _levels, _at, whole) =>
        phases[current]!.push({ row, codes: keep(keys), lens: lengths(row, lens, base, whole) }),
      update: (row, _columns, lens, base, keys, _levels, _at, whole) =>
        phases[current]!.push({ row, codes: keep(keys), lens: lengths(row, lens, base, whole) }),
      delete: (row) => phases[current]!.push({ row, codes: null, lens: null }),
    },
  });
  rankKeys(phases, ncols);
  return { trace: { phases }, run };
}

/** Replace every finite key by its rank + 1 among its column's distinct keys; NULL keys (Infinity) by −1. */
export function rankKeys(phases: TracedRow[][], ncols: number): void {
  for (let c = 0; c < ncols; c++) {
    let n = 0;
    for (const ops of phases) for (const op of ops) if (op.codes && Number.isFinite(op.codes[c]!)) n++;
    if (n === 0) continue;
    // Ranked by binary search among the distinct keys (a Map of 200,000 float keys took half a second).
    const keys = new Float64Array(n);
    n = 0;
    for (const ops of phases) for (const op of ops) if (op.codes && Number.isFinite(op.codes[c]!)) keys[n++] = op.codes[c]!;
    const distinct = sortedDistinct(keys, n);
    for (const ops of phases)
      for (const op of ops) {
        const k = op.codes?.[c];
        if (k === undefined || Number.isNaN(k)) continue;
        op.codes![c] = k === Infinity ? -1 : Number.isFinite(k) ? lowerBound(distinct, k) + 1 : NaN;
      }
  }
}
