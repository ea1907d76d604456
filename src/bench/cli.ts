/**
 * Start-up of the command line: `rowsim --help` and `rowsim --version` as whole processes (Node.js's own
 * start included), beside `node -e ""` alone (the floor). The child reports its own CPU time at exit
 * (process.cpuUsage: user + system since it started); the wall time is read around it. 15 runs after a
 * warm-up (--runs N for another count). The aim is under 150 ms of CPU; test/startup.test.ts checks what
 * start-up loads, this only times it.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureEach, timingNote, type BenchLine, type Measurement, type Sample } from './harness.js';
import type { SuiteContext } from './suite.js';

const CLI_RUNS = 15;
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'rowsim.js');
/** Loaded first into the measured process: at exit it reports the process's CPU time (getrusage: user + system, since it started). */
const REPORT_CPU = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('rowsim-bench-cpu-us '+(u.user+u.system)+'\\n')})`;

/** CPU and wall seconds of one run of `node [script] args…` (rowsim's bin by default), whole process. */
export function timeCommand(args: string[], script: string[] = [BIN]): Sample {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', REPORT_CPU, ...script, ...args], { encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const m = /rowsim-bench-cpu-us (\d+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`${[...script, ...args].join(' ')} failed (status ${r.status}): ${r.stderr}`);
  return { cpu: Number(m[1]) / 1e6, wall };
}

/** A command timed as a whole process, `runs` times after a warm-up (which also warms the file cache). */
export function measureCommand(args: string[], runs: number, script: string[] = [BIN]): Promise<Measurement> {
  return measureEach(() => ({ run: timeCommand(args, script) }), { runs, warmup: 1 }).then((m) => m.run);
}

const ms = (s: number) => Math.round(s * 1000);

export async function* benchCli(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  const runs = ctx.runsGiven ? ctx.runs : CLI_RUNS;
  const floor = await measureCommand([], runs, ['-e', '']);
  yield { name: 'cli: node -e "" CPU time (Node.js start and exit alone, the floor)', value: ms(floor.cpu!.median), unit: 'ms', note: timingNote(floor), measurement: floor };
  for (const args of [['--help'], ['--version']]) {
    const m = await measureCommand(args, runs);
    yield { name: `cli: rowsim ${args.join(' ')} CPU time, whole process`, value: ms(m.cpu!.median), unit: 'ms', note: `aim < 150; ${timingNote(m)}`, measurement: m };
  }
}
