/**
 * `npm run bench -- [SUITE …] [--json] [--runs N] [--timeout S] [--pg URL [--pg-rows N]]`: every figure
 * of merit, one line each (docs/performance.md says how each is taken). It prints the machine's cores
 * and load average first and the load average again at the end. Benchmarks print numbers; tests never
 * assert timings. Bad arguments, a bad --pg URL or an unreachable server: a message and exit status 2.
 */
import { execFileSync } from 'node:child_process';
import { PgConnectionError } from '../src/pgcheck/connection.js';
import { tuneCompiler } from '../src/cli/compiler.js';
import { UserError } from '../src/config/errors.js';
import { BenchUsageError, parseBenchArgs, SUITES, USAGE, type BenchArgs } from './args.js';
import { benchCli } from './cli.js';
import { benchContention, benchContentionRuns } from './contention.js';
import { benchEstimate } from './estimate.js';
import { benchJson, formatLine, machineInfo, machineLine, speedProbeInChild, type BenchLine, type BenchReport } from './harness.js';
import { benchMechanism } from './mechanism.js';
import { benchMemory, benchScale } from './memory.js';
import { benchPg, checkPgReachable, PgBenchError } from './pg.js';
import { benchReport } from './report.js';
import { benchStorage } from './storage.js';
import { benchSweep } from './sweep.js';
import { benchSweepScale } from './sweep-scale.js';
import type { Suite, SuiteContext } from './suite.js';
import { ROOT } from './paths.js';

const RUN: Record<string, Suite> = {
  cli: benchCli,
  storage: benchStorage,
  memory: benchMemory,
  scale: benchScale,
  pg: benchPg,
  contention: benchContention,
  'contention-runs': benchContentionRuns,
  estimate: benchEstimate,
  mechanism: benchMechanism,
  report: benchReport,
  sweep: benchSweep,
  'sweep-scale': benchSweepScale,
};
for (const s of SUITES) if (!RUN[s.name]) throw new Error(`bench suite ${s.name} has no runner`);

/** `git describe --always --dirty` of the checkout, or null where git cannot tell. */
function commitOf(): string | null {
  try {
    return (
      execFileSync('git', ['describe', '--always', '--dirty'], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() || null
    );
  } catch {
    return null;
  }
}

// `npm run bench | head` closes the pipe early: that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

/**
 * What must hold before anything is measured: the arguments, ROWSIM_INLINING, a reachable --pg server.
 * The arguments, or the exit status when the bench ends here (after --help, or a refusal said on stderr).
 */
async function ready(argv: string[]): Promise<BenchArgs | number> {
  let args;
  try {
    args = parseBenchArgs(argv);
  } catch (err) {
    if (err instanceof BenchUsageError) {
      process.stderr.write(`npm run bench: ${err.message}\n(npm run bench -- --help for usage)\n`);
      return 2;
    }
    throw err;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  // ROWSIM_INLINING checked before anything is measured (`wide`: the lines timed in this process too; the
  // children and the commands choose by their own work, src/cli/compiler.ts).
  try {
    tuneCompiler(0);
  } catch (err) {
    if (err instanceof UserError) {
      process.stderr.write(`npm run bench: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (args.pg) {
    try {
      await checkPgReachable(args.pg.url);
    } catch (err) {
      if (err instanceof PgConnectionError) {
        process.stderr.write(`npm run bench: --pg: ${err.message}\n`);
        return 2;
      }
      throw err;
    }
  }
  return args;
}

async function main(): Promise<number> {
  const args = await ready(process.argv.slice(2));
  if (typeof args === 'number') return args;
  // The lines as text: on stdout, or on stderr as progress when stdout carries the JSON document.
  const print = (text: string) => (args.json ? process.stderr : process.stdout).write(`${text}\n`);
  const report: BenchReport = {
    started: new Date().toISOString(),
    commit: commitOf(),
    argv: process.argv.slice(2),
    machine: machineInfo(),
    machine_at_end: machineInfo(),
    lines: [],
  };
  const add = (suite: string, line: BenchLine) => {
    report.lines.push({ suite, ...line });
    print(formatLine(line));
  };
  const probe = speedProbeInChild();
  if (probe) report.machine.probe = probe;
  add('machine', machineLine(report.machine, 'start'));
  const ctx: SuiteContext = { runs: args.runs, runsGiven: args.runsGiven, timeoutS: args.timeoutS, ...(args.pg ? { pg: args.pg } : {}) };
  try {
    for (const suite of args.suites) {
      for await (const line of RUN[suite]!(ctx)) add(suite, line);
    }
  } catch (err) {
    if (err instanceof PgConnectionError || err instanceof PgBenchError) {
      process.stderr.write(`npm run bench: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (args.suitesNamed.length === 0) {
    for (const s of SUITES.filter((x) => !x.byDefault && x.name !== 'pg'))
      print(`${s.name}: skipped by default (${s.what}): npm run bench -- ${s.name}`);
  }
  const probeAtEnd = speedProbeInChild();
  report.machine_at_end = { ...machineInfo(), ...(probeAtEnd ? { probe: probeAtEnd } : {}) };
  add('machine', machineLine(report.machine_at_end, 'end'));
  if (args.json) process.stdout.write(benchJson(report));
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err);
    process.exitCode = 1;
  },
);
