/**
 * A contention run on the worker pool, outside rowsim run (bench, tests): one task per replication
 * (task kind 'contention'), the results as runContentionInProcess gives them.
 */
import { assembleResults, contentionJobs, type ContentionResults } from '../contention/run.js';
import type { ContentionSpec } from '../contention/spec.js';
import type { Replication } from '../contention/task.js';
import { runTasks, type Task } from '../pool/pool.js';
import { TASKS } from './tasks.js';

export async function runContention(
  spec: ContentionSpec,
  seed: number,
  opts: { workers?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<ContentionResults> {
  const { payloads, jobs } = contentionJobs(spec, seed);
  const tasks: Task[] = payloads.map((payload) => ({ kind: 'contention', payload }));
  const poolOpts: { workers?: number; onProgress?: (done: number, total: number) => void } = {};
  if (opts.workers !== undefined) poolOpts.workers = opts.workers;
  if (opts.onProgress) poolOpts.onProgress = opts.onProgress;
  const reps = await runTasks<Replication>(TASKS, tasks, poolOpts);
  return assembleResults(spec, jobs, reps);
}
