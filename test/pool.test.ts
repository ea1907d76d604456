/**
 * The reusable pool (openPool) and the estimate's runner on it: several batches on one pool, results in
 * task order, the same estimate as in this thread, and a closed pool refuses work.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEstimateConfig } from '../src/loader/config.js';
import { inProcessRunner, runEstimate } from '../src/estimate/estimate.js';
import { candidateParts, poolRunner } from '../src/run/estimate-pool.js';
import { TASKS } from '../src/run/tasks.js';
import { openPool, type Task } from '../src/pool/pool.js';
import { repairmanSpec } from '../bench/repairman.js';
import { ROOT } from './helpers/cli.js';

const TITLES = join(ROOT, 'sim-configs', 'estimate-titles.yaml');

describe('openPool', () => {
  it('runs several batches on one pool, each batch in task order', async () => {
    const pool = openPool(TASKS, { workers: 2 });
    try {
      const spec = repairmanSpec(5);
      const batch = (seeds: number[]): Task[] =>
        seeds.map((seed) => ({ kind: 'contention', payload: { spec, buffer_manager: 'lockless', engines: 80, users: 500, seed } }));
      const seen: number[] = [];
      const a = await pool.run<{ events: number }>(batch([1, 2, 3]), (done, total) => seen.push(done / total));
      const b = await pool.run<{ events: number }>(batch([3, 2, 1]));
      expect(a.map((r) => r.events)).toEqual([...b].reverse().map((r) => r.events));
      expect(seen).toEqual([1 / 3, 2 / 3, 1]);
      expect(await pool.run([])).toEqual([]);
    } finally {
      await pool.close();
    }
    await expect(pool.run([{ kind: 'contention', payload: {} }])).rejects.toThrow(/after close/);
  });

  it('the estimate on one pool for all its rounds gives the in-thread estimate, byte for byte', async () => {
    const cfg = loadEstimateConfig(TITLES, { sample_rows: 2000, seeds: 2 });
    const rounds: number[] = [];
    const runner = poolRunner({ workers: 2 });
    let pooled;
    try {
      pooled = await runEstimate(cfg, async (tasks) => {
        rounds.push(tasks.length);
        return runner(tasks);
      });
    } finally {
      await runner.close();
    }
    expect(rounds.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(pooled)).toBe(JSON.stringify(await runEstimate(cfg, inProcessRunner)));
  });
});

describe("the estimate runner's parts", () => {
  it('a round of many candidates goes whole; a few are split into runs of replicates, one per thread, covering each once in order', () => {
    expect(candidateParts([5, 5, 5, 5, 5, 5, 5, 5], 2)).toEqual(Array.from({ length: 8 }, (_, i) => [i, 0, 5]));
    expect(candidateParts([5], 2)).toEqual([
      [0, 0, 2],
      [0, 2, 5],
    ]);
    expect(candidateParts([2, 1], 4)).toEqual([
      [0, 0, 1],
      [0, 1, 2],
      [1, 0, 1],
    ]);
    expect(candidateParts([5, 5], 1)).toEqual([
      [0, 0, 5],
      [1, 0, 5],
    ]);
  });
});
