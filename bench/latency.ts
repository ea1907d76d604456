/**
 * The memory-latency probe of the storage suite: how long one load takes that must wait for the load
 * before it and misses every cache, on the machine the bench runs on. A random update of a large table
 * touches rows, pages and index leaves that are seldom in the cache, so its rate is bounded by the misses
 * it waits for: an engine whose update costs one such miss runs at the probe's loads a second. The
 * storage lines print their rate against it ("close to the limit" as a figure).
 *
 * The probe walks one cycle through every 64-byte line of an Int32Array (a random permutation that is a
 * single cycle), each line holding the index of the next, so that no load can start before the one
 * before it ends and the processor's prefetching cannot guess the next address.
 */
import { sig3, stat, type BenchLine } from './harness.js';
import type { SuiteContext } from './suite.js';

/** Bytes the probe walks: far past the last-level cache (32 MB on the bench machine) and the TLB's reach. */
export const PROBE_BYTES = 256 * 1024 * 1024;
/** Dependent loads timed in each round. */
const PROBE_LOADS = 2_000_000;

/** Int32 elements in a 64-byte cache line: the probe keeps one pointer a line, so every step is a line of its own. */
const LINE = 16;

/**
 * An array of `n` elements (a multiple of LINE) whose first element of every cache line holds the index
 * of the next line's in one random cycle through all the lines (Sattolo's shuffle of the lines, from a
 * seeded xorshift: the same cycle every time); the other elements are 0.
 */
export function pointerCycle(n: number, seed = 0x9e3779b9): Int32Array {
  const lines = Math.floor(n / LINE);
  const order = new Int32Array(lines);
  for (let i = 0; i < lines; i++) order[i] = i;
  let x = seed | 0 || 1;
  // Sattolo: j drawn below i (never i itself), so the permutation is one cycle of length `lines`.
  for (let i = lines - 1; i > 0; i--) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const j = Math.floor((x >>> 0) * 2 ** -32 * i);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  const a = new Int32Array(n);
  for (let i = 0; i < lines; i++) a[i * LINE] = order[i]! * LINE;
  return a;
}

/** Walk `loads` steps of the cycle from `start`: where it ends (so the walk is not optimised away). */
export function chase(a: Int32Array, start: number, loads: number): number {
  let p = start;
  for (let i = 0; i < loads; i++) p = a[p]!;
  return p;
}

/** Nanoseconds of CPU time per dependent load over `bytes` of memory: the median of `rounds` rounds after one unmeasured one. */
export function probeLatency(bytes = PROBE_BYTES, rounds = 3, loads = PROBE_LOADS): { ns: number[]; median: number } {
  const a = pointerCycle(bytes >> 2);
  let p = chase(a, 0, Math.min(loads, a.length));
  const ns: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.cpuUsage();
    p = chase(a, p, loads);
    const t = process.cpuUsage(t0);
    ns.push(((t.user + t.system) * 1000) / loads);
  }
  if (p < 0) throw new Error('latency probe: the cycle left the array');
  return { ns, median: stat(ns).median };
}

/** What a storage line's note says of its rate against the probe: ops a second per dependent miss a second. */
export function limitNote(opsPerS: number, nsPerMiss: number): string {
  const missesPerS = 1e9 / nsPerMiss;
  return `${sig3(opsPerS / missesPerS)}× the probe's ${sig3(missesPerS / 1e6)}M dependent misses a second (an op ≈ ${sig3(1e9 / opsPerS / nsPerMiss)} misses' time)`;
}

/** The probe's line: ns a dependent load over PROBE_BYTES, one core. */
export function latencyLine(ctx: SuiteContext): { line: BenchLine; ns: number } {
  const r = probeLatency(PROBE_BYTES, Math.max(3, ctx.runs));
  const line: BenchLine = {
    name: 'storage: memory latency probe, a random pointer chase over 256 MB (a cycle through its 64-byte lines), one core',
    value: sig3(r.median),
    unit: 'ns/load',
    note: `${sig3(1e3 / r.median)}M dependent loads a CPU-second, the bound of an op that waits for one miss; rounds ${r.ns.map((x) => sig3(x)).join(', ')} ns`,
  };
  return { line, ns: r.median };
}
