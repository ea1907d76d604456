/**
 * `rowsim run` as a user runs it, whole processes (start-up, pool, drawing, report.html included): a
 * 7-point sweep (sim-configs/ase-exp-row-size.yaml) with 1 and 2 worker threads, run in turn so that the
 * machine's drift hits both alike, and the speed-up as the median of the pairs' ratios (aim ≥ 1.8 on
 * two idle cores); the quickstart (5 points, default workers; aim < 1 s of wall time on an idle machine);
 * a run of one point, which starts no pool. CPU time is the whole process's, every thread's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timeCommand, timeCommandOutput } from './cli.js';
import { parallelCapacityInChild, sig3, stat, summarize, timingNote, type BenchLine, type ParallelProbe, type Sample } from './harness.js';
import type { SuiteContext } from './suite.js';
import { simConfig } from './paths.js';

/** Pairs and runs of each line when --runs is not given: whole sweeps take seconds each. */
const SWEEP_RUNS = 5;

const config = (name: string): string => simConfig(name);
const ms = (s: number): number => Math.round(s * 1000);

/**
 * How far a second worker can take a sweep on this machine. A run with one worker already keeps more than
 * one core busy (the main thread, the drawing beside the simulating, V8's compiler and garbage collector
 * threads): `busy` is its CPU ÷ wall time, the median over its runs. With the same CPU work, two threads
 * that get `capacity` cores' worth of the machine finish at best busy ÷ capacity of that time: the
 * speed-up's ceiling is capacity ÷ busy. Undefined when a run has no CPU time or the capacity is unknown.
 */
export function speedupCeiling(oneWorker: readonly Sample[], capacity: number): { busy: number; ceiling: number } | undefined {
  if (!(capacity > 0) || oneWorker.length === 0 || oneWorker.some((x) => x.cpu === undefined || !(x.wall > 0))) return undefined;
  const busy = stat(oneWorker.map((x) => x.cpu! / x.wall)).median;
  return { busy, ceiling: capacity / busy };
}

export async function* benchSweep(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  const runs = ctx.runsGiven ? ctx.runs : SWEEP_RUNS;
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-bench-sweep-'));
  const run = (cfg: string, ...args: string[]): Sample => timeCommand(['run', config(cfg), '--out', join(dir, 'out'), '--quiet', ...args]);
  try {
    yield* speedUp(run, runs);
    yield* plainRuns(run, runs, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Run = (cfg: string, ...args: string[]) => Sample;

/** The 7-point sweep on 1 and 2 workers in turn, the machine's parallel capacity, the speed-up. */
function* speedUp(run: Run, runs: number): Generator<BenchLine> {
  const opts = { runs, warmup: 1 };
  run('ase-exp-row-size.yaml', '--workers', '2'); // warm-up: the file cache, the compiled code on disk
  const one: Sample[] = [];
  const two: Sample[] = [];
  // What two threads get from the machine, before and after the pairs (the speed-up cannot beat it).
  const before = parallelCapacityInChild(2);
  for (let i = 0; i < runs; i++) {
    one.push(run('ase-exp-row-size.yaml', '--workers', '1'));
    two.push(run('ase-exp-row-size.yaml', '--workers', '2'));
  }
  const after = parallelCapacityInChild(2);
  const m1 = summarize(one, opts);
  const m2 = summarize(two, opts);
  yield {
    name: 'sweep: ase-exp-row-size (7 points) --workers 1, wall time, whole process',
    value: ms(m1.wall.median),
    unit: 'ms',
    note: timingNote(m1),
    measurement: m1,
  };
  yield {
    name: 'sweep: ase-exp-row-size (7 points) --workers 2, wall time, whole process',
    value: ms(m2.wall.median),
    unit: 'ms',
    note: timingNote(m2),
    measurement: m2,
  };
  const ratios = one.map((a, i) => a.wall / two[i]!.wall);
  const r = stat(ratios);
  const capacity = (p: ParallelProbe | undefined): string =>
    p ? `${p.capacity} (rounds ${p.rounds.join(', ')})` : 'not measured (the child failed)';
  yield {
    name: "sweep: the machine's parallel capacity, two threads of a fixed loop against one (before / after the pairs)",
    value: before && after ? sig3((before.capacity + after.capacity) / 2) : Number.NaN,
    unit: '×',
    note: `the mean of before and after; 2 on two idle cores, near 1 when other work holds a core; before ${capacity(before)}, after ${capacity(after)}`,
  };
  const bound = before && after ? speedupCeiling(one, (before.capacity + after.capacity) / 2) : undefined;
  const ceiling = bound
    ? `; the one-worker run already kept ${bound.busy.toFixed(2)} cores busy (CPU ÷ wall, median), so with the same CPU work the capacity allows at most ${bound.ceiling.toFixed(2)}×`
    : '';
  yield {
    name: 'sweep: speed-up of 2 workers over 1 (wall time, median of the pairs run in turn)',
    value: sig3(r.median),
    unit: '×',
    note: `aim ≥ 1.8 on two idle cores (read it against the parallel capacity above${ceiling}); pairs ${ratios.map((x) => x.toFixed(2)).join(', ')}`,
  };
}

/** The seconds of each phase `rowsim run --timings` printed (src/cli/timings.ts), by name. */
export function timingPhases(stderr: string): Record<string, number> {
  const phases: Record<string, number> = {};
  for (const m of stderr.matchAll(/^ {2}(\w+) +(?:\d+\.\d{3}–\d+\.\d{3})? +(\d+\.\d{3}) {2}/gm)) phases[m[1]!] = Number(m[2]);
  return phases;
}

/** The quickstart with the default workers (and --timings), and a run of one point (no pool). */
function* plainRuns(run: Run, runs: number, dir: string): Generator<BenchLine> {
  const opts = { runs, warmup: 1 };
  const quick: Sample[] = [];
  const phases: Record<string, number>[] = [];
  const timed = (): void => {
    const r = timeCommandOutput(['run', config('quickstart.yaml'), '--out', join(dir, 'quickstart'), '--quiet', '--timings']);
    quick.push(r.sample);
    phases.push(timingPhases(r.stderr));
  };
  timed();
  quick.length = phases.length = 0;
  for (let i = 0; i < runs; i++) timed();
  const mq = summarize(quick, opts);
  yield {
    name: 'sweep: quickstart (5 points) end to end, wall time, whole process',
    value: ms(mq.wall.median),
    unit: 'ms',
    note: `aim < 1000 on an idle machine; ${timingNote(mq)}`,
    measurement: mq,
  };
  yield {
    name: 'sweep: quickstart (5 points) end to end, CPU time of every thread, whole process',
    value: ms(mq.cpu!.median),
    unit: 'ms',
    note: `--timings, medians (s): ${Object.keys(phases[0] ?? {})
      .map((phase) => `${phase} ${stat(phases.map((p) => p[phase] ?? Number.NaN)).median.toFixed(3)}`)
      .join(', ')}`,
    measurement: mq,
  };
  const single: Sample[] = [];
  run(join('teaching', 'ase-reorg.yaml'));
  for (let i = 0; i < runs; i++) single.push(run(join('teaching', 'ase-reorg.yaml')));
  const ms1 = summarize(single, opts);
  yield {
    name: 'sweep: one point (teaching/ase-reorg), no pool, wall time, whole process',
    value: ms(ms1.wall.median),
    unit: 'ms',
    note: timingNote(ms1),
    measurement: ms1,
  };
}
