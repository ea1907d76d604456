/**
 * Estimate benchmark: wall time of `rowsim estimate` on the titles example (100,000 rows, sampled) and
 * on the same table at 1,000,000,000 rows, on the worker pool as the CLI runs it. Prints; never asserts.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEstimateConfig } from '../loader/config.js';
import { runEstimate } from '../estimate/estimate.js';
import { poolRunner } from '../estimate/pool-runner.js';

const TITLES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'sim-configs', 'estimate-titles.yaml');

export async function benchEstimate(): Promise<Array<{ name: string; value: number; unit: string; note?: string }>> {
  const lines: Array<{ name: string; value: number; unit: string; note?: string }> = [];
  for (const [name, rows] of [
    ['estimate titles (100,000 rows)', undefined],
    ['estimate titles at 1,000,000,000 rows', 1e9],
  ] as const) {
    const cfg = loadEstimateConfig(TITLES, rows ? { rows } : {});
    let tasks = 0;
    const pool = poolRunner();
    const t0 = process.hrtime.bigint();
    const out = await runEstimate(cfg, async (t) => {
      tasks += t.length;
      return pool(t);
    }).finally(() => pool.close());
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const s = out.sample;
    lines.push({
      name,
      value: Math.round(seconds * 100) / 100,
      unit: 's',
      note: `${tasks} candidates × ${s.seeds} seeds × ${s.rows_per_seed.toLocaleString('en-US')} rows${s.sampled ? ' (sampled)' : ''}; recommends exp_row_size ${out.formats[0]!.forwarding_target.value}`,
    });
  }
  return lines;
}
