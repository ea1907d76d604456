/**
 * Start-up of the command line: the CPU time of `rowsim --help` and `rowsim --version`, whole processes
 * (Node.js's own start included), the median of several runs. The aim is under 150 ms of CPU on the
 * 2-core development machine; test/startup.test.ts checks what start-up loads, this only times it.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../contention/stats.js';
import type { BenchLine } from './storage.js';

const RUNS = 15;
const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'rowsim.js');
/** Loaded first into the measured process: at exit it reports the process's CPU time (getrusage: user + system, since it started). */
const REPORT_CPU = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('rowsim-bench-cpu-us '+(u.user+u.system)+'\\n')})`;

/** CPU and wall milliseconds of one run of `node [script] args…` (rowsim's bin by default), whole process. */
export function timeCommand(args: string[], script: string[] = [BIN]): { cpuMs: number; wallMs: number } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', REPORT_CPU, ...script, ...args], { encoding: 'utf8' });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const m = /rowsim-bench-cpu-us (\d+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`${[...script, ...args].join(' ')} failed (status ${r.status}): ${r.stderr}`);
  return { cpuMs: Number(m[1]) / 1000, wallMs };
}

function cpuMs(args: string[], script: string[] = [BIN]): number {
  return timeCommand(args, script).cpuMs;
}

export async function benchCli(): Promise<BenchLine[]> {
  const out: BenchLine[] = [];
  const floor = Array.from({ length: RUNS }, () => cpuMs([], ['-e', '']));
  out.push({ name: 'cli: node -e "" CPU time (Node.js start and exit alone, the floor)', value: Math.round(median(floor)), unit: 'ms', note: `median of ${RUNS} runs` });
  for (const args of [['--help'], ['--version']]) {
    cpuMs(args); // warm the file cache
    const samples = Array.from({ length: RUNS }, () => cpuMs(args));
    out.push({
      name: `cli: rowsim ${args.join(' ')} CPU time, whole process`,
      value: Math.round(median(samples)),
      unit: 'ms',
      note: `aim < 150; median of ${RUNS} runs, ${Math.round(Math.min(...samples))}–${Math.round(Math.max(...samples))} ms`,
    });
  }
  return out;
}
