/**
 * Candidate tasks on the piscina pool: one task per candidate value (src/pool/worker.ts kind 'estimate').
 * One pool serves every round of an estimate (calibration, coarse grid, refinement): its threads load the
 * simulator once and keep their compiled code, instead of a new pool, cold, for each round.
 */
import { openPool } from '../pool/pool.js';
import type { CandidateRunner } from './estimate.js';
import type { ReplicateFigures } from './simulate.js';

/** A CandidateRunner that owns a pool: `close()` it when the estimate is done (or failed). */
export interface PoolCandidateRunner extends CandidateRunner {
  close(): Promise<void>;
}

/** A runner on `workers` threads; `onProgress` sees the tasks done and known so far over all rounds. */
export function poolRunner(opts: { workers?: number; onProgress?: (done: number, total: number) => void } = {}): PoolCandidateRunner {
  const pool = openPool({ workers: opts.workers });
  let done = 0;
  let total = 0;
  const runner = async (tasks: Parameters<CandidateRunner>[0]) => {
    total += tasks.length;
    const base = done;
    return pool.run<ReplicateFigures[]>(
      tasks.map((payload) => ({ kind: 'estimate', payload })),
      (d) => opts.onProgress?.((done = base + d), total),
    );
  };
  return Object.assign(runner, { close: () => pool.close() });
}
