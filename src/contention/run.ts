/**
 * A contention run: one pool task per (buffer manager, engines, users) point, merged into one result
 * entry per (buffer manager, engines) with a USL fit. Each point's seed is derived from (seed,
 * buffer manager, engines, users), so results do not depend on the worker count or finishing order.
 */
import { Prng } from '../util/prng.js';
import { runTasks, type Task } from '../pool/pool.js';
import type { BufferManagerKind, ContentionSpec } from './schema.js';
import { runPoint, type ContentionPoint, type ContentionTaskPayload } from './task.js';
import { buildPointModel, pointNetwork } from './model.js';
import { fitUsl } from './usl.js';

export interface ContentionResult {
  buffer_manager: BufferManagerKind;
  engines: number;
  points: ContentionPoint[];
  /** USL fit of throughput against users (several populations) or engines (one population). */
  usl: { lambda: number; sigma: number; kappa: number; over: 'users' | 'engines'; rms_error_pct: number };
  /** Per-transaction service demands of this network (µs) and whether it is product-form. */
  network: {
    engine_demand_us: number;
    hottest_lock_demand_us: number;
    total_demand_us: number;
    cas_per_transaction: number;
    product_form: boolean;
  };
  /** Throughput relative to the smallest engine count at the same users (engine scaling only). */
  speedup?: number;
}

/** The point seed: a stream derived from the run seed and the point's coordinates. */
export function pointSeed(seed: number, bm: BufferManagerKind, engines: number, users: number): number {
  return Prng.derive(seed, 'contention', bm, engines, users).nextU32();
}

export function contentionPayloads(spec: ContentionSpec, seed: number): ContentionTaskPayload[] {
  const payloads: ContentionTaskPayload[] = [];
  for (const bm of spec.buffer_managers)
    for (const engines of spec.engines)
      for (const users of spec.users) payloads.push({ spec, buffer_manager: bm, engines, users, seed: pointSeed(seed, bm, engines, users) });
  return payloads;
}

export async function runContention(
  spec: ContentionSpec,
  seed: number,
  opts: { workers?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<ContentionResult[]> {
  const payloads = contentionPayloads(spec, seed);
  const tasks: Task[] = payloads.map((payload) => ({ kind: 'contention', payload }));
  const poolOpts: { workers?: number; onProgress?: (done: number, total: number) => void } = {};
  if (opts.workers !== undefined) poolOpts.workers = opts.workers;
  if (opts.onProgress) poolOpts.onProgress = opts.onProgress;
  const points = await runTasks<ContentionPoint>(tasks, poolOpts);
  return assembleResults(spec, points);
}

/** The same run on the calling thread (tests, benchmarks): identical results. */
export function runContentionInProcess(spec: ContentionSpec, seed: number): ContentionResult[] {
  return assembleResults(spec, contentionPayloads(spec, seed).map(runPoint));
}

/** Group points (in payload order) into result entries and fit the USL. */
export function assembleResults(spec: ContentionSpec, points: readonly ContentionPoint[]): ContentionResult[] {
  const expected = spec.buffer_managers.length * spec.engines.length * spec.users.length;
  if (points.length !== expected) throw new Error(`contention: expected ${expected} points, got ${points.length}`);
  const results: ContentionResult[] = [];
  let i = 0;
  for (const bm of spec.buffer_managers) {
    for (const engines of spec.engines) {
      const pts = points.slice(i, i + spec.users.length);
      i += spec.users.length;
      const net = pointNetwork(buildPointModel(spec, bm, engines, spec.users[0]!));
      const fit = fitUsl(pts.map((p) => p.users), pts.map((p) => p.throughput_tps));
      results.push({
        buffer_manager: bm,
        engines,
        points: pts,
        usl: { lambda: fit.lambda, sigma: fit.sigma, kappa: fit.kappa, over: 'users', rms_error_pct: fit.rms_error_pct },
        network: {
          engine_demand_us: net.engine_demand_ns / 1e3,
          hottest_lock_demand_us: net.lock_demands_ns.reduce((a, b) => Math.max(a, b), 0) / 1e3,
          total_demand_us: net.total_demand_ns / 1e3,
          cas_per_transaction: net.cas_per_transaction,
          product_form: net.product_form,
        },
      });
    }
  }
  // engine scaling: one population, several engine counts → fit over engines, speed-up per entry
  if (spec.users.length === 1 && spec.engines.length >= 2) {
    for (const bm of spec.buffer_managers) {
      const entries = results.filter((r) => r.buffer_manager === bm).sort((a, b) => a.engines - b.engines);
      const fit = fitUsl(entries.map((r) => r.engines), entries.map((r) => r.points[0]!.throughput_tps));
      const base = entries[0]!.points[0]!.throughput_tps;
      for (const r of entries) {
        r.usl = { lambda: fit.lambda, sigma: fit.sigma, kappa: fit.kappa, over: 'engines', rms_error_pct: fit.rms_error_pct };
        r.speedup = base > 0 ? r.points[0]!.throughput_tps / base : 0;
      }
    }
  }
  return results;
}
