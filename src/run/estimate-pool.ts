/**
 * Candidate tasks on the piscina pool: a candidate value whole or in runs of its replicates (task kind 'estimate').
 * One pool serves every round of an estimate (calibration, coarse grid, refinement): its threads load the
 * simulator once and keep their compiled code, instead of a new pool, cold, for each round.
 */
import { defaultWorkers, openPool } from '../pool/pool.js';
import type { CandidateRunner } from '../estimate/estimate.js';
import type { ReplicateFigures } from '../estimate/simulate.js';
import { TASKS } from './tasks.js';

/** A CandidateRunner that owns a pool: `close()` it when the estimate is done (or failed). */
export interface PoolCandidateRunner extends CandidateRunner {
  close(): Promise<void>;
}

/** A round of at least this many candidates a thread goes to the threads a candidate at a time. */
const WHOLE_PER_THREAD = 4;

/**
 * The parts a round's candidates go to the threads in, as [candidate, first replicate, end]: a candidate
 * whole when the round has enough of them to share out evenly, else its replicates in up to `threads`
 * runs (a replicate depends on its candidate and its number alone), so that a round of a few candidates
 * still keeps every thread busy to its end. A part is a message each way: one per replicate cost the
 * threads a tenth of their time.
 */
export function candidateParts(replicates: readonly number[], threads: number): [number, number, number][] {
  const out: [number, number, number][] = [];
  const whole = replicates.length >= WHOLE_PER_THREAD * threads;
  replicates.forEach((n, i) => {
    const parts = whole ? 1 : Math.max(1, Math.min(n, threads));
    for (let k = 0; k < parts; k++) out.push([i, Math.floor((k * n) / parts), Math.floor(((k + 1) * n) / parts)]);
  });
  return out;
}

/**
 * A runner on `workers` threads; `onProgress` sees the candidates done and known so far over all rounds.
 * The pool starts at once, its threads loading the simulator while the caller loads the config. A
 * candidate goes to the threads whole or in parts (candidateParts); its figures come back in replicate
 * order, as simulateCandidate gives them.
 */
export function poolRunner(opts: { workers?: number; onProgress?: (done: number, total: number) => void } = {}): PoolCandidateRunner {
  const threads = Math.max(1, opts.workers ?? defaultWorkers());
  const pool = openPool(TASKS, { workers: threads, start: true, preload: ['estimate'] });
  let done = 0;
  let total = 0;
  const runner = async (tasks: Parameters<CandidateRunner>[0]) => {
    total += tasks.length;
    const parts = candidateParts(
      tasks.map((t) => t.replicates),
      threads,
    );
    const left = tasks.map(() => 0);
    for (const [i] of parts) left[i]!++;
    const results = await pool.run<ReplicateFigures[]>(
      parts.map(([i, from, end]) => ({ kind: 'estimate', payload: { ...tasks[i]!, replicate: from, replicateEnd: end } })),
      undefined,
      (k) => {
        if (--left[parts[k]![0]]! === 0) opts.onProgress?.(++done, total);
      },
    );
    const out: ReplicateFigures[][] = tasks.map(() => []);
    parts.forEach(([i], k) => out[i]!.push(...results[k]!));
    return out;
  };
  return Object.assign(runner, { close: () => pool.close() });
}
