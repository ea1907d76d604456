import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { RUN_DEFAULTS } from '../config/defaults.js';
import { UserError } from '../config/errors.js';
import { loadConfig, type RunConfig } from '../loader/config.js';
import { defaultWorkers } from '../pool/pool.js';
import { inProcessRunner, poolRunner, type TaskRunner } from '../pool/scheduler.js';
import { checkOutputFolder, StagedOutput } from '../report/output.js';
import { runShard } from '../run/execute.js';
import { mergeParts, writeRun } from '../run/merge.js';
import { PART_FILE, partJson } from '../run/part.js';
import { partFolderName, runUnits, shardSlice, type Shard } from '../run/plan.js';
import { checkRunLimits } from './limits.js';

export interface RunOptions {
  out?: string;
  workers?: number;
  quiet?: boolean;
  maxPoints?: number;
  /** Check the page engines' invariants after every phase (also ROWSIM_CHECK=1). */
  check?: boolean;
  /** Every column of the terminal table, whatever the width. */
  wide?: boolean;
  /** Print results.json on standard output instead of the tables. */
  json?: boolean;
  /** The charts' pixel size is multiplied by this (1 to 4; default RUN_DEFAULTS.chartScale). */
  scale?: number;
  /** Run only this part of the run and write it as a partial result (rowsim merge puts the parts together). */
  shard?: Shard;
}

/** Where a run's tasks go: on the calling thread for one unit (no pool), else on min(workers, units) threads. */
async function runnerFor(units: number, workers: number | undefined): Promise<TaskRunner> {
  return units <= 1 ? inProcessRunner() : poolRunner(Math.min(workers ?? defaultWorkers(), units));
}

export async function runCommand(file: string, opts: RunOptions): Promise<number> {
  // Bad input throws InputError (a config) or UserError (an argument, the output folder): main() prints it, exit 2.
  if (opts.shard && opts.json) throw new UserError("--json: expected no --shard (a part writes part.json, not results.json; rowsim merge --json prints the run's results)");
  const cfg: RunConfig = loadConfig(file, undefined, { maxPoints: opts.maxPoints });
  checkRunLimits(cfg, { workers: opts.workers });
  const shard = opts.shard ?? { index: 1, count: 1 };
  const units = runUnits(cfg);
  const slice = shardSlice(units, shard);
  const folder = checkOutputFolder(opts.out ?? join('out', cfg.name, ...(opts.shard ? [partFolderName(shard)] : [])), opts.shard ? 'part' : 'run');
  const quiet = opts.quiet === true || opts.json === true;
  const say = (s: string) => {
    if (!quiet) process.stdout.write(`${s}\n`);
  };
  const checkInvariants = opts.check === true || process.env.ROWSIM_CHECK === '1';
  const scale = opts.scale ?? RUN_DEFAULTS.chartScale;
  // Files go to a temporary folder as they are made (a sweep's page maps point by point), then are
  // published into the results folder; an error or an interrupt removes the temporary folder.
  const out = new StagedOutput(folder);
  let runner: TaskRunner | undefined;
  let lines: string[];
  try {
    runner = await runnerFor(slice.storage.length + slice.contention.length, opts.workers);
    const part = await runShard(cfg, shard, units, { runner, write: (rel, data) => out.write(rel, data), checkInvariants, scale, quiet });
    if (opts.shard) {
      await runner.close();
      out.write(PART_FILE, partJson(part));
      out.publish();
      const dir = relative(process.cwd(), folder.dir) || folder.dir;
      const points = slice.storage.length ? `${slice.storage.length} of ${units.storage} storage points (${slice.storage.map((i) => cfg.storage[i]!.label).slice(0, 6).join('; ')}${slice.storage.length > 6 ? '; …' : ''})` : '';
      const tasks = slice.contention.length ? `${slice.contention.length} of ${units.contention} contention tasks` : '';
      lines = [
        `${cfg.name}: part ${shard.index} of ${shard.count}: ${[points, tasks].filter(Boolean).join(', ') || `nothing (the run has ${units.storage + units.contention} units for ${shard.count} parts)`}`,
        `part: ${join(dir, PART_FILE)}; when every part is done: rowsim merge ${opts.out === undefined ? join('out', cfg.name, `part-*-of-${shard.count}`) : `<the ${shard.count} part folders>`}`,
      ];
    } else {
      // A single run is its own one part: the same merge as rowsim merge's.
      const run = mergeParts([{ ...part, source: file, staged: true, readChart: (rel) => readFileSync(join(out.dir, ...rel.split('/'))) }]);
      const written = await writeRun(run, out, runner, { wide: opts.wide });
      await runner.close();
      out.publish();
      if (opts.json) process.stdout.write(written.json);
      lines = [...written.terminal, `results: ${relative(process.cwd(), join(folder.dir, 'results.json')) || join(folder.dir, 'results.json')}, summary.md, report.html and charts/ beside it`];
    }
  } finally {
    await runner?.close();
    out.discard();
  }
  for (const line of lines) say(line);
  return 0;
}
