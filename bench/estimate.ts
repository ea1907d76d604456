/**
 * Estimate benchmark: `rowsim estimate` on the titles example (100,000 rows, sampled) and on the same
 * table at 1,000,000,000 rows, on the worker pool as the CLI runs it (one pool for all the estimate's
 * rounds, started and destroyed inside each run: a warm-up run warms this thread, not the next pool's);
 * the 1e9-row estimate as a whole process (start-up, charts and files included); and the CPU of every
 * shipped estimate config as the golden tests run it (test/helpers/golden.ts), whole processes, summed.
 * Prints; never asserts.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { loadEstimateConfig } from '../src/loader/config.js';
import { runEstimate, type EstimateOutcome } from '../src/estimate/estimate.js';
import { poolRunner } from '../src/run/estimate-pool.js';
import { measureCommand, timeCommand } from './cli.js';
import { measure, measureEach, timingNote, type BenchLine } from './harness.js';
import type { SuiteContext } from './suite.js';
import { groupedNumber } from '../src/util/numbers.js';
import { join } from 'node:path';
import { ROOT, simConfig } from './paths.js';

const TITLES = simConfig('estimate-titles.yaml');

/** The issue's target for the 1e9-row estimate, wall seconds. */
const TARGET_1E9_S = 2;

export async function* benchEstimate(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  for (const [name, rows] of [
    ['estimate: titles (100,000 rows), runEstimate on the pool', undefined],
    ['estimate: titles at 1,000,000,000 rows (sampled), runEstimate on the pool', 1e9],
  ] as const) {
    const cfg = loadEstimateConfig(TITLES, rows ? { rows } : {});
    let tasks = 0;
    let rounds = 0;
    let out: EstimateOutcome | undefined;
    const m = await measure(
      async () => {
        tasks = 0;
        rounds = 0;
        const pool = poolRunner();
        out = await runEstimate(cfg, async (t) => {
          tasks += t.length;
          rounds += 1;
          return pool(t);
        }).finally(() => pool.close());
      },
      { runs: ctx.runs, warmup: 1 },
    );
    const s = out!.sample;
    yield {
      name,
      value: Math.round(m.wall.median * 100) / 100,
      unit: 's wall',
      note:
        `${rows ? `target < ${TARGET_1E9_S} s: ${m.wall.median < TARGET_1E9_S ? 'met' : 'not met'}; ` : ''}CPU of all threads; ${timingNote(m)}; ` +
        `${rounds} rounds, ${tasks} candidates × ${s.seeds} seeds × ${groupedNumber(s.rows_per_seed)} rows${s.sampled ? ' (sampled)' : ''}; recommends exp_row_size ${out!.formats[0]!.forwarding_target.value}`,
      measurement: m,
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-bench-estimate-'));
  try {
    const m = await measureCommand(['estimate', TITLES, '--rows', '1000000000', '--quiet', '--out', join(dir, 'out')], ctx.runs);
    yield {
      name: 'estimate: rowsim estimate sim-configs/estimate-titles.yaml --rows 1000000000, whole process',
      value: Math.round(m.wall.median * 100) / 100,
      unit: 's wall',
      note: `start-up, the estimate, its charts and files; CPU of all threads; ${timingNote(m)}`,
      measurement: m,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  yield await goldenEstimates(ctx);
}

/**
 * `rowsim estimate <config> --out <dir> --quiet` for every sim-configs/estimate-*.yaml, as the golden tests
 * run them (exit status 3, nothing to apply, is an estimate too): the sum of each config's median CPU.
 */
async function goldenEstimates(ctx: SuiteContext): Promise<BenchLine> {
  const configs = readdirSync(join(ROOT, 'sim-configs')).filter((f) => f.startsWith('estimate-') && f.endsWith('.yaml'));
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-bench-estimate-'));
  try {
    const m = await measureEach(
      () =>
        Object.fromEntries(
          configs.map((c, i) => [
            c,
            timeCommand(['estimate', simConfig(c), '--out', join(dir, String(i)), '--quiet'], undefined, {}, [0, 3]),
          ]),
        ),
      { runs: ctx.runs, warmup: 0 },
    );
    const cpu = configs.map((c) => m[c]!.cpu!.median);
    return {
      name: `estimate: the ${configs.length} shipped estimate configs (the golden runs), CPU of the whole processes, summed`,
      value: Math.round(cpu.reduce((a, b) => a + b, 0) * 10) / 10,
      unit: 's CPU',
      note: `median of ${ctx.runs} run${ctx.runs === 1 ? '' : 's'} each, no warm-up: ${configs.map((c, i) => `${c.replace(/^estimate-|\.yaml$/g, '')} ${cpu[i]!.toFixed(1)}`).join(', ')}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
