/**
 * Candidate tasks on the piscina pool: one task per replicate of each candidate value (task kind 'estimate').
 * One pool serves every round of an estimate (calibration, coarse grid, refinement): its threads load the
 * simulator once and keep their compiled code, instead of a new pool, cold, for each round.
 */
import { openPool } from '../pool/pool.js';
import type { CandidateRunner } from '../estimate/estimate.js';
import type { ReplicateFigures } from '../estimate/simulate.js';
import { TASKS } from './tasks.js';

/** A CandidateRunner that owns a pool: `close()` it when the estimate is done (or failed). */
export interface PoolCandidateRunner extends CandidateRunner {
  close(): Promise<void>;
}

/**
 * A runner on `workers` threads; `onProgress` sees the candidates done and known so far over all rounds.
 * The pool starts at once, its threads loading the simulator while the caller loads the config. Each
 * replicate of a candidate is a task of its own (a replicate depends on its candidate and its number
 * alone), so that the threads share a round's work evenly to its end; a candidate's figures come back
 * in replicate order, as simulateCandidate gives them.
 */
export function poolRunner(opts: { workers?: number; onProgress?: (done: number, total: number) => void } = {}): PoolCandidateRunner {
  const pool = openPool(TASKS, { workers: opts.workers, start: true, preload: ['estimate'] });
  let done = 0;
  let total = 0;
  const runner = async (tasks: Parameters<CandidateRunner>[0]) => {
    total += tasks.length;
    const units = tasks.flatMap((task, i) => Array.from({ length: task.replicates }, (_, r) => ({ i, task: { ...task, replicate: r } })));
    const left = tasks.map((t) => t.replicates);
    const results = await pool.run<ReplicateFigures[]>(
      units.map((u) => ({ kind: 'estimate', payload: u.task })),
      undefined,
      (k) => {
        if (--left[units[k]!.i]! === 0) opts.onProgress?.(++done, total);
      },
    );
    const out: ReplicateFigures[][] = tasks.map(() => []);
    units.forEach((u, k) => out[u.i]!.push(...results[k]!));
    return out;
  };
  return Object.assign(runner, { close: () => pool.close() });
}
