/**
 * Sweeps at scale (suite `sweep-scale`, not by default: minutes). A 10,000-point storage sweep of small
 * tables (10 exp_row_size values × 1,000 seeds, 200 rows grown by an update) run whole by `rowsim run`:
 * its peak resident memory (the process's, every thread's; target < 1 GB) and CPU time; then 1,000 points
 * of it run whole and in 8 shards merged by `rowsim merge`: the two folders must hold the same files,
 * byte for byte (test/shard.test.ts checks it at a size the test suite can afford).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchLine } from './harness.js';
import type { SuiteContext } from './suite.js';
import { ROOT } from './paths.js';

const BIN = join(ROOT, 'bin', 'rowsim.js');
/** The target of the sweep's peak resident memory, bytes. */
export const SWEEP_RSS_TARGET = 1024 ** 3;
const SHARDS = 8;

/** Loaded first into the measured process: at exit its CPU time and peak resident memory (every thread's, getrusage). */
const REPORT = `data:text/javascript,import{isMainThread}from'node:worker_threads';if(isMainThread)process.on('exit',()=>{const r=process.resourceUsage();process.stderr.write('rowsim-bench-usage '+(r.userCPUTime+r.systemCPUTime)+' '+r.maxRSS+'\\n')})`;

/** A sweep of `seeds` × 10 points of a 200-row table whose rows grow. */
export function scaleSweepConfig(name: string, seeds: number): string {
  return `name: ${name}
seed: 42
table:
  name: case_notes
  columns:
    - { name: id, type: int }
    - { name: summary, type: varchar(200), null: true }
  indexes:
    - { name: case_notes_pk, columns: [id], unique: true }
engine: { format: ase-dol, page_size: 2k, exp_row_size: 1 }
workload:
  - insert: { rows: 200, values: { summary: { length: { uniform: [0, 20] } } } }
  - update: { rows: all, order: random, set: { summary: { length: { uniform: [80, 200] } } } }
sweep:
  engine.exp_row_size: [1, 0, 40, 60, 80, 100, 120, 140, 160, max]
  seed: [${Array.from({ length: seeds }, (_, i) => i + 1).join(', ')}]
`;
}

/** One `rowsim args…` as a whole process: CPU seconds, peak resident bytes, wall seconds. */
function usage(args: string[], timeoutS: number): { cpu: number; rss: number; wall: number } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', REPORT, BIN, ...args], { encoding: 'utf8', timeout: timeoutS * 1000 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const m = /rowsim-bench-usage (\d+) (\d+)/.exec(r.stderr ?? '');
  if (r.status !== 0 || !m) throw new Error(`rowsim ${args.join(' ')} failed (status ${r.status}): ${r.stderr}`);
  return { cpu: Number(m[1]) / 1e6, rss: Number(m[2]) * 1024, wall };
}

/** Every file under `dir`, relative, sorted. */
function files(dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(dir, join(rel, e.name)) : [join(rel, e.name)]))
    .sort();
}

/** The files of `a` that `b` does not hold byte for byte (or holds beside them). */
export function differingFiles(a: string, b: string): string[] {
  const fa = files(a);
  const fb = new Set(files(b));
  const differ = fa.filter((f) => !fb.has(f) || !readFileSync(join(a, f)).equals(readFileSync(join(b, f))));
  return [...differ, ...[...fb].filter((f) => !fa.includes(f))];
}

export async function* benchSweepScale(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-bench-sweep-scale-'));
  try {
    const big = join(dir, 'sweep10k.yaml');
    writeFileSync(big, scaleSweepConfig('sweep10k', 1000));
    const u = usage(['run', big, '--max-points', '10000', '--out', join(dir, 'out10k'), '--quiet'], ctx.timeoutS);
    rmSync(join(dir, 'out10k'), { recursive: true, force: true });
    yield {
      name: 'sweep-scale: 10,000-point storage sweep (200-row tables), peak resident memory, whole process',
      value: Math.round(u.rss / 2 ** 20),
      unit: 'MB',
      note: `target < ${SWEEP_RSS_TARGET / 2 ** 20}: ${u.rss < SWEEP_RSS_TARGET ? 'met' : 'not met'}; one run; wall ${u.wall.toFixed(1)} s`,
      detail: { max_rss_bytes: u.rss, cpu_s: u.cpu, wall_s: u.wall },
    };
    yield {
      name: 'sweep-scale: 10,000-point storage sweep (200-row tables), CPU time of every thread, whole process',
      value: Math.round(u.cpu * 10) / 10,
      unit: 's',
      note: `one run; ${((u.cpu / 10_000) * 1000).toFixed(1)} ms a point (its simulation, 1 or 2 page maps, its share of the report)`,
    };
    yield shardLine(dir, ctx.timeoutS);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 1,000 points whole and in SHARDS parts merged: the files that differ (none expected). */
function shardLine(dir: string, timeoutS: number): BenchLine {
  const config = join(dir, 'sweep1k.yaml');
  writeFileSync(config, scaleSweepConfig('sweep1k', 100));
  const single = join(dir, 'single');
  usage(['run', config, '--out', single, '--quiet'], timeoutS);
  const parts: string[] = [];
  let cpu = 0;
  for (let k = 1; k <= SHARDS; k++) {
    parts.push(join(dir, `part-${k}-of-${SHARDS}`));
    cpu += usage(['run', config, '--shard', `${k}/${SHARDS}`, '--out', parts[k - 1]!, '--quiet'], timeoutS).cpu;
  }
  const merged = join(dir, 'merged');
  cpu += usage(['merge', ...parts, '--out', merged, '--quiet'], timeoutS).cpu;
  const differ = differingFiles(single, merged);
  return {
    name: `sweep-scale: 1,000 points in ${SHARDS} shards merged, files that differ from the single run`,
    value: differ.length,
    unit: 'files',
    note: `${differ.length === 0 ? 'equal, byte for byte' : `differ: ${differ.slice(0, 5).join(', ')}`}; ${files(single).length} files; the parts and the merge ${cpu.toFixed(1)} s of CPU`,
  };
}
