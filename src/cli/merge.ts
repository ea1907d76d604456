/**
 * rowsim merge DIR…: put the parts that `rowsim run --shard K/N` wrote together into the files a single
 * run writes (docs/scale.md). The parts are checked first (src/run/merge.ts mergeParts): a missing,
 * duplicated or foreign part is exit 2 with nothing written. The charts are drawn on this thread.
 */
import { resolve, join, relative } from 'node:path';
import { UserError } from '../config/errors.js';
import { inProcessRunner, poolRunner } from '../pool/scheduler.js';
import { defaultWorkers } from '../pool/pool.js';
import { TASKS } from '../run/tasks.js';
import { checkOutputFolder, StagedOutput } from '../report/output.js';
import { mergeParts, pendingProbes, probeMetastability, writeRun, type MergedRun } from '../run/merge.js';
import { readPart } from '../run/part.js';

export interface MergeOptions {
  out?: string;
  quiet?: boolean;
  wide?: boolean;
  json?: boolean;
}

export async function mergeCommand(dirs: string[], opts: MergeOptions): Promise<number> {
  const run = mergeParts(dirs.map(readPart));
  const target = opts.out ?? join('out', run.header.name);
  const clash = run.parts.find((p) => resolve(p.source) === resolve(target));
  if (clash)
    throw new UserError(
      `--out ${target}: expected a folder other than the parts', found part ${clash.header.shard.index} of ${clash.header.shard.count} there`,
    );
  const folder = checkOutputFolder(target, 'run');
  const quiet = opts.quiet === true || opts.json === true;
  const out = new StagedOutput(folder);
  const runner = inProcessRunner(TASKS);
  let lines: string[];
  try {
    await probesOnThreads(run);
    const written = await writeRun(run, out, runner, { wide: opts.wide });
    await out.publish();
    if (opts.json) process.stdout.write(written.json);
    lines = [
      `merged ${run.parts.length} part${run.parts.length > 1 ? 's' : ''} of ${run.header.name}`,
      ...written.terminal,
      `results: ${relative(process.cwd(), join(folder.dir, 'results.json')) || join(folder.dir, 'results.json')}, summary.md, report.html and charts/ beside it`,
    ];
  } finally {
    await runner.close();
    out.discard();
  }
  if (!quiet) for (const line of lines) process.stdout.write(`${line}\n`);
  return 0;
}

/** The start-state probes of the merged run's bimodal points, on worker threads (one per probe at most). */
async function probesOnThreads(run: MergedRun): Promise<void> {
  const pending = pendingProbes(run);
  if (pending.probes.length === 0) return;
  const pool = await poolRunner(TASKS, Math.min(defaultWorkers(), pending.probes.length), ['contention']);
  try {
    await probeMetastability(run, pool, pending);
  } finally {
    await pool.close();
  }
}
