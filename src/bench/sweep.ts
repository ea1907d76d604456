/**
 * `rowsim run` as a user runs it, whole processes (start-up, pool, drawing, report.html included): a
 * 7-point sweep (sim-configs/ase-exp-row-size.yaml) with 1 and 2 worker threads, run in turn so that the
 * machine's drift hits both alike, and the speed-up as the median of the pairs' ratios (aim ≥ 1.8 on
 * two idle cores); the quickstart (5 points, default workers; aim < 1 s of wall time on an idle machine);
 * a run of one point, which starts no pool. CPU time is the whole process's, every thread's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../contention/stats.js';
import { timeCommand } from './cli.js';
import type { BenchLine } from './storage.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNS = 5;

function config(name: string): string {
  return join(ROOT, 'sim-configs', name);
}

const ms = (v: number): number => Math.round(v);

export async function benchSweep(): Promise<BenchLine[]> {
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-bench-sweep-'));
  const run = (cfg: string, ...args: string[]) => timeCommand(['run', config(cfg), '--out', join(dir, 'out'), '--quiet', ...args]);
  try {
    const out: BenchLine[] = [];
    const one: { cpuMs: number; wallMs: number }[] = [];
    const two: { cpuMs: number; wallMs: number }[] = [];
    run('ase-exp-row-size.yaml', '--workers', '2'); // warm the file cache
    for (let i = 0; i < RUNS; i++) {
      one.push(run('ase-exp-row-size.yaml', '--workers', '1'));
      two.push(run('ase-exp-row-size.yaml', '--workers', '2'));
    }
    const speedup = median(one.map((a, i) => a.wallMs / two[i]!.wallMs));
    const spread = (xs: number[]) => `${ms(Math.min(...xs))}–${ms(Math.max(...xs))}`;
    out.push(
      { name: 'sweep: ase-exp-row-size (7 points) --workers 1, wall / CPU time, whole process', value: ms(median(one.map((r) => r.wallMs))), unit: 'ms', note: `CPU ${ms(median(one.map((r) => r.cpuMs)))} ms; wall ${spread(one.map((r) => r.wallMs))}; median of ${RUNS}` },
      { name: 'sweep: ase-exp-row-size (7 points) --workers 2, wall / CPU time, whole process', value: ms(median(two.map((r) => r.wallMs))), unit: 'ms', note: `CPU ${ms(median(two.map((r) => r.cpuMs)))} ms; wall ${spread(two.map((r) => r.wallMs))}; median of ${RUNS}` },
      { name: 'sweep: speed-up of 2 workers over 1 (wall time, median of the pairs)', value: Math.round(speedup * 100) / 100, unit: '×', note: 'aim ≥ 1.8 on two idle cores' },
    );
    const quick = Array.from({ length: RUNS }, () => run('quickstart.yaml'));
    out.push({ name: 'sweep: quickstart (5 points) end to end, wall time, whole process', value: ms(median(quick.map((r) => r.wallMs))), unit: 'ms', note: `CPU ${ms(median(quick.map((r) => r.cpuMs)))} ms; aim < 1000 ms wall on an idle machine; median of ${RUNS}` });
    const single = Array.from({ length: RUNS }, () => run(join('teaching', 'ase-reorg.yaml')));
    out.push({ name: 'sweep: one point (teaching/ase-reorg), no pool, wall time, whole process', value: ms(median(single.map((r) => r.wallMs))), unit: 'ms', note: `CPU ${ms(median(single.map((r) => r.cpuMs)))} ms; median of ${RUNS}` });
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
