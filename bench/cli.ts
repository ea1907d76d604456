/**
 * Start-up of the command line: `rowsim --help` and `rowsim --version` as whole processes (Node.js's own
 * start included), beside `node -e ""` alone (the floor). The child reports its own CPU time at exit
 * (process.cpuUsage: user + system since it started); the wall time is read around it. 15 runs after a
 * warm-up (--runs N for another count). The aim is under 150 ms of CPU; test/startup.test.ts checks what
 * start-up loads, this only times it. And `rowsim validate` of the quickstart (start-up and loading a
 * config, what every refusal of bad input costs) from the bundle (dist/bundle/, the default) and from the
 * compiled sources (ROWSIM_BUNDLE=0), run in turn pair by pair, with their ratio.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureEach, stat, timingNote, type BenchLine, type Measurement, type Sample } from './harness.js';
import type { SuiteContext } from './suite.js';
import { ROOT } from './paths.js';

const CLI_RUNS = 15;
const BIN = join(ROOT, 'bin', 'rowsim.js');
/** Loaded first into the measured process: at exit it reports the process's CPU time (getrusage: user + system, since it started). */
const REPORT_CPU = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('rowsim-bench-cpu-us '+(u.user+u.system)+'\\n')})`;

/**
 * CPU and wall seconds of one run of `node [script] args…` (rowsim's bin by default), whole process; `env`:
 * more environment; `statuses`: the exit statuses that are a run (others throw).
 */
export function timeCommand(
  args: string[],
  script: string[] = [BIN],
  env: Record<string, string> = {},
  statuses: readonly number[] = [0],
): Sample {
  return timeCommandOutput(args, script, env, statuses).sample;
}

/** timeCommand, with what the command wrote on standard error. */
export function timeCommandOutput(
  args: string[],
  script: string[] = [BIN],
  env: Record<string, string> = {},
  statuses: readonly number[] = [0],
): { sample: Sample; stderr: string } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', REPORT_CPU, ...script, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const m = /rowsim-bench-cpu-us (\d+)/.exec(r.stderr);
  if (r.status === null || !statuses.includes(r.status) || !m)
    throw new Error(`${[...script, ...args].join(' ')} failed (status ${r.status}): ${r.stderr}`);
  return { sample: { cpu: Number(m[1]) / 1e6, wall }, stderr: r.stderr };
}

/** A command timed as a whole process, `runs` times after a warm-up (which also warms the file cache). */
export function measureCommand(args: string[], runs: number, script: string[] = [BIN]): Promise<Measurement> {
  return measureEach(() => ({ run: timeCommand(args, script) }), { runs, warmup: 1 }).then((m) => m.run);
}

const ms = (s: number) => Math.round(s * 1000);

export async function* benchCli(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  const runs = ctx.runsGiven ? ctx.runs : CLI_RUNS;
  const floor = await measureCommand([], runs, ['-e', '']);
  yield {
    name: 'cli: node -e "" CPU time (Node.js start and exit alone, the floor)',
    value: ms(floor.cpu!.median),
    unit: 'ms',
    note: timingNote(floor),
    measurement: floor,
  };
  for (const args of [['--help'], ['--version']]) {
    const m = await measureCommand(args, runs);
    yield {
      name: `cli: rowsim ${args.join(' ')} CPU time, whole process`,
      value: ms(m.cpu!.median),
      unit: 'ms',
      note: `aim < 150; ${timingNote(m)}`,
      measurement: m,
    };
  }
  const validate = ['validate', join(ROOT, 'sim-configs', 'quickstart.yaml')];
  const ratios: number[] = [];
  const pair = await measureEach(
    (run) => {
      const bundle = timeCommand(validate);
      const plain = timeCommand(validate, [BIN], { ROWSIM_BUNDLE: '0' });
      if (run >= 0) ratios.push(bundle.cpu! / plain.cpu!);
      return { bundle, plain };
    },
    { runs, warmup: 1 },
  );
  const mid = stat(ratios).median;
  yield {
    name: 'cli: rowsim validate sim-configs/quickstart.yaml CPU time, whole process, from the bundle',
    value: ms(pair.bundle!.cpu!.median),
    unit: 'ms',
    note: timingNote(pair.bundle!),
    measurement: pair.bundle!,
  };
  yield {
    name: 'cli: the same from the compiled sources (ROWSIM_BUNDLE=0)',
    value: ms(pair.plain!.cpu!.median),
    unit: 'ms',
    note: `bundle ÷ compiled sources, CPU, median of the pairs' ratios: ${mid.toFixed(2)}; ${timingNote(pair.plain!)}`,
    measurement: pair.plain!,
  };
  yield* benchRowsize(Math.min(runs, 5));
}

/**
 * `rowsim rowsize` of wide tables at its default million rows, every format, as whole processes: 1,000
 * int columns and 100 × char(255) (PostgreSQL compresses and toasts every row). The aim is about a
 * second of CPU: rowsize sizes a wide table from a sample (src/cli/rowsize.ts sampleRows).
 */
async function* benchRowsize(runs: number): AsyncGenerator<BenchLine> {
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-bench-rowsize-'));
  const tables: [string, string][] = [
    ['1,000 int columns', 'int NOT NULL'],
    ['100 × char(255)', 'char(255) NOT NULL'],
  ];
  try {
    for (const [i, [what, type]] of tables.entries()) {
      const count = type.startsWith('int') ? 1000 : 100;
      const file = join(dir, `t${i}.sql`);
      writeFileSync(file, `CREATE TABLE t${i} (${Array.from({ length: count }, (_, c) => `c${c} ${type}`).join(', ')});\n`);
      const m = await measureCommand(['rowsize', file, '--json'], runs);
      yield {
        name: `cli: rowsim rowsize of ${what}, 1,000,000 rows, every format: CPU time, whole process`,
        value: ms(m.cpu!.median),
        unit: 'ms',
        note: `aim ≈ 1,000; ${timingNote(m)}`,
        measurement: m,
      };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
