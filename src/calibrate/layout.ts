/**
 * The shared memory of one calibration run: an Int32Array over a SharedArrayBuffer, laid out in
 * 64-byte cache lines (16 words) so that unrelated words never share a line.
 *
 *   line 0                      control: start flag, stop flag, ready count
 *   lines 1 … 2P                per partition: its lock line (TTAS word; ticket next/serving; MCS tail),
 *                               then its data line (a counter the lock protects, an occupancy word)
 *   next MAX_THREADS lines      MCS queue nodes, one per thread: locked flag, next
 *   next H lines                buffer headers: tag, usage (CAS-incremented), version, 8 payload words
 */
const LINE = 16;
const MAX_THREADS = 256;

export const CTRL_START = 0;
export const CTRL_STOP = 1;
export const CTRL_READY = 2;

/** Words of a buffer header: 0 the page tag (never written by the benchmark), 1 the usage count, 2 the version, 4… the payload. */
export const H_USAGE = 1;
export const H_VERSION = 2;
export const H_PAYLOAD = 4;
export const PAYLOAD_WORDS = 8;

export const Q_LOCKED = 0;
export const Q_NEXT = 1;

interface Layout {
  partitions: number;
  headers: number;
  words: number;
}

export function layout(partitions: number, headers: number): Layout {
  return { partitions, headers, words: LINE * (1 + 2 * partitions + MAX_THREADS + headers) };
}

/** Word index of partition p's lock line. */
export const lockLine = (p: number): number => LINE * (1 + 2 * p);
/** Word index of partition p's data line (the counter its lock protects, then an occupancy word). */
export const dataLine = (p: number): number => LINE * (2 + 2 * p);
/** Word index of thread i's MCS queue node. */
export const qnode = (L: Layout, i: number): number => LINE * (1 + 2 * L.partitions + i);
/** Word index of header h. */
export const header = (L: Layout, h: number): number => LINE * (1 + 2 * L.partitions + MAX_THREADS + h);

/** The benchmark's workload, as the main thread plans it and every benchmark thread receives it. */
export interface Workload {
  partitions: number;
  headers: number;
  skew: number;
  outsideIters: number;
  csIters: number;
  writeShare: number;
}
