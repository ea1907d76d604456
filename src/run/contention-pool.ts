/**
 * A contention run on the worker pool, outside rowsim run (bench, tests): one task per replication
 * (task kind 'contention'), the results as runContentionInProcess gives them.
 */
import { assembleResults, contentionJobs, type ContentionResults } from '../contention/run.js';
import type { ContentionSpec } from '../contention/spec.js';
import { attachMetastability, metastabilityProbes } from '../contention/metastability.js';
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
  const results = assembleResults(spec, jobs, reps);
  // the start-state probes of the bimodal points: a second round, once every replication is known
  const { probes, payloads: probePayloads } = metastabilityProbes(spec, results);
  if (probes.length) {
    const probeReps = await runTasks<Replication>(
      TASKS,
      probePayloads.map((payload) => ({ kind: 'contention', payload })),
      opts.workers !== undefined ? { workers: opts.workers } : {},
    );
    attachMetastability(results, probes, probeReps);
  }
  return results;
}
