/** Candidate tasks on the piscina pool: one task per candidate value (src/pool/worker.ts kind 'estimate'). */
import { runTasks } from '../pool/pool.js';
import type { CandidateRunner } from './estimate.js';
import type { ReplicateFigures } from './simulate.js';

/** A runner on `workers` threads; `onProgress` sees the tasks done and known so far over all rounds. */
export function poolRunner(opts: { workers?: number; onProgress?: (done: number, total: number) => void } = {}): CandidateRunner {
  let done = 0;
  let total = 0;
  return async (tasks) => {
    total += tasks.length;
    const base = done;
    return runTasks<ReplicateFigures[]>(
      tasks.map((payload) => ({ kind: 'estimate', payload })),
      { workers: opts.workers, onProgress: (d) => opts.onProgress?.((done = base + d), total) },
    );
  };
}
