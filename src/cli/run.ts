/**
 * rowsim run: load the config, start the task runner (a pool of worker threads for a sweep, the calling
 * thread for one point), run the units (all of them, or part K of N with --shard), then merge (the same
 * code as rowsim merge) into results.json, summary.md, report.html and the charts, or write the part.
 *
 * Start-up order matters for a sweep: the pool starts as soon as the config says how many units there
 * are, so its threads boot and load their modules while this thread loads the rest of the command and
 * checks the memory and the output folder. A check that fails there still writes nothing (exit 2).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { RUN_DEFAULTS } from '../config/defaults.js';
import { UserError } from '../config/errors.js';
import type { RunConfig } from '../loader/config.js';
import type { PreparedRun } from '../run/merge.js';
import type { PointRecord } from '../run/part.js';
import { parseConfigSource } from '../loader/source.js';
import { defaultWorkers } from '../pool/pool.js';
import { inProcessRunner, poolRunner, type TaskRunner } from '../pool/scheduler.js';
import { TASKS } from '../run/tasks.js';
import { partFolderName, rawStoragePoints, runUnits, shardSlice, type Shard } from '../run/plan.js';
import { base64Of } from '../util/arrays.js';
import { hugePagesContext, runAgainWithHugePages, startedAsCli, wantsHugePages } from './huge-pages.js';
import { tuneCompiler } from './compiler.js';
import { plannedRowOperations } from '../workload/planned-work.js';

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
function runnerFor(units: number, workers: number | undefined, storage: boolean): Promise<TaskRunner> {
  if (units <= 1) return Promise.resolve(inProcessRunner(TASKS));
  return poolRunner(TASKS, Math.min(workers ?? defaultWorkers(), units), storage ? ['run-point', 'run-render'] : ['contention']);
}

export async function runCommand(file: string, opts: RunOptions): Promise<number> {
  // Bad input throws InputError (a config) or UserError (an argument, the output folder): main() prints it, exit 2.
  if (opts.shard && opts.json)
    throw new UserError(
      "--json: expected no --shard (a part writes part.json, not results.json; rowsim merge --json prints the run's results)",
    );
  const shard = opts.shard ?? { index: 1, count: 1 };
  // A storage sweep's pool starts on the sweep's size read from the YAML, while the schema checks the
  // config (a config that fails them ends the pool, writes nothing and exits 2). One point: no pool.
  const source = parseConfigSource(file);
  const early = rawStoragePoints(source.raw);
  const earlyUnits = early === undefined ? undefined : shardSlice({ storage: early, contention: 0 }, shard).storage.length;
  let starting = earlyUnits === undefined ? undefined : runnerFor(earlyUnits, opts.workers, true);
  starting?.catch(() => {}); // awaited below; a failure before that is reported by whatever failed first
  let lines: string[] = [];
  let out: { discard(): void } | undefined;
  try {
    const { loadConfig } = await import('../loader/config.js');
    const cfg: RunConfig = loadConfig(file, undefined, { maxPoints: opts.maxPoints, source });
    const units = await runUnits(cfg);
    const slice = shardSlice(units, shard);
    const count = slice.storage.length + slice.contention.length;
    if (starting === undefined || count !== earlyUnits) {
      // Not known from the YAML (a contention section), or (never for a valid config) not what it said.
      await (await starting?.catch(() => undefined))?.close();
      starting = runnerFor(count, opts.workers, slice.contention.length === 0);
      starting.catch(() => {});
    }
    const [{ checkRunLimits }, { checkOutputFolder, StagedOutput }, { runShard, partHeaderOf }, { PART_FILE, partJson }] =
      await Promise.all([import('./limits.js'), import('../report/output.js'), import('../run/execute.js'), import('../run/part.js')]);
    const tableBytes = checkRunLimits(cfg, { workers: opts.workers });
    if (startedAsCli() && wantsHugePages(tableBytes, hugePagesContext())) {
      // Large tables: the same command again in a process whose malloc asks for 2 MB pages (huge-pages.ts);
      // if it cannot be started, the run goes on here with 4 kB pages.
      await (await starting?.catch(() => undefined))?.close();
      starting = undefined;
      const code = await runAgainWithHugePages().catch(() => undefined);
      if (code !== undefined) return code;
      starting = runnerFor(count, opts.workers, slice.contention.length === 0);
      starting.catch(() => {});
    }
    // A large run compiles its hot paths with a wider inlining budget (compiler.ts), set before they are hot.
    tuneCompiler(slice.storage.reduce((ops, i) => ops + plannedRowOperations(cfg.storage[i]!.spec.workload), 0));
    const folder = checkOutputFolder(
      opts.out ?? join('out', cfg.name, ...(opts.shard ? [partFolderName(shard)] : [])),
      opts.shard ? 'part' : 'run',
    );
    const quiet = opts.quiet === true || opts.json === true;
    const checkInvariants = opts.check === true || process.env.ROWSIM_CHECK === '1';
    const scale = opts.scale ?? RUN_DEFAULTS.chartScale;
    // Files go to a temporary folder as they are made (a sweep's page maps point by point), then are
    // published into the results folder; an error or an interrupt removes the temporary folder.
    const staged = new StagedOutput(folder);
    out = staged;
    const runner = await starting;
    // What only the end needs is loaded once the tasks are out.
    const merging = opts.shard ? undefined : import('../run/merge.js');
    merging?.catch(() => {});
    // A single run's page maps in base64 for report.html, encoded as each comes (this thread waits on the
    // workers then) rather than read back and encoded at the end.
    const base64 = new Map<string, string>();
    const write = (rel: string, data: Uint8Array) => {
      staged.write(rel, data);
      if (!opts.shard) base64.set(rel, base64Of(data));
    };
    const chartBase64 = (rel: string) => base64.get(rel);
    const readChart = (rel: string) => readFileSync(join(staged.dir, ...rel.split('/')));
    // A single run queues the charts over the sweep points as soon as every point is simulated and, when
    // the points are the whole run (no contention section), makes its text and lays out report.html while
    // the threads draw: only the charts' bytes are left for the end.
    let charts: Promise<{ file: string; png: Uint8Array }[]> | undefined;
    let prepared: Promise<PreparedRun> | undefined;
    const onSimulated = merging
      ? (records: PointRecord[]) => {
          const entries = records.map((r) => r.entry);
          charts = merging.then((m) => m.storageChartPngs(entries, cfg.name, scale, runner));
          charts.catch(() => {}); // awaited by writeRun; a failure elsewhere first is the one reported
          if (cfg.sections.contention) return;
          const header = partHeaderOf(cfg, shard, units, scale);
          prepared = merging.then((m) =>
            m.prepareRun(m.mergeParts([{ header, storage: records, contention: [], source: file, staged: true, readChart }]), staged, {
              wide: opts.wide,
              chartBase64,
            }),
          );
          prepared.catch(() => {}); // awaited below
        }
      : undefined;
    const part = await runShard(cfg, shard, units, { runner, write, checkInvariants, scale, quiet, onSimulated });
    if (opts.shard) {
      await runner.close();
      staged.write(PART_FILE, partJson(part));
      staged.publish();
      const dir = relative(process.cwd(), folder.dir) || folder.dir;
      const points = slice.storage.length
        ? `${slice.storage.length} of ${units.storage} storage points (${slice.storage
            .map((i) => cfg.storage[i]!.label)
            .slice(0, 6)
            .join('; ')}${slice.storage.length > 6 ? '; …' : ''})`
        : '';
      const tasks = slice.contention.length ? `${slice.contention.length} of ${units.contention} contention tasks` : '';
      lines = [
        `${cfg.name}: part ${shard.index} of ${shard.count}: ${[points, tasks].filter(Boolean).join(', ') || `nothing (the run has ${units.storage + units.contention} units for ${shard.count} parts)`}`,
        `part: ${join(dir, PART_FILE)}; when every part is done: rowsim merge ${opts.out === undefined ? join('out', cfg.name, `part-*-of-${shard.count}`) : `<the ${shard.count} part folders>`}`,
      ];
    } else {
      // A single run is its own one part: the same merge as rowsim merge's.
      const { mergeParts, writeRun } = await merging!;
      // The charts over the sweep points are the last tasks: once they are drawn, the threads stop
      // while this thread writes the report.
      const closing = (charts ?? Promise.resolve()).then(
        () => runner.close(),
        () => {},
      );
      const written = prepared
        ? (await prepared).finish(await charts!)
        : await writeRun(mergeParts([{ ...part, source: file, staged: true, readChart }]), staged, runner, {
            wide: opts.wide,
            storageCharts: charts,
            chartBase64,
          });
      await closing;
      await runner.close();
      staged.publish();
      if (opts.json) process.stdout.write(written.json);
      if (!quiet)
        lines = [
          ...written.terminal,
          `results: ${relative(process.cwd(), join(folder.dir, 'results.json')) || join(folder.dir, 'results.json')}, summary.md, report.html and charts/ beside it`,
        ];
    }
    if (quiet) lines = [];
  } finally {
    const runner = await starting?.catch(() => undefined);
    await runner?.close();
    out?.discard();
  }
  for (const line of lines) process.stdout.write(`${line}\n`);
  return 0;
}
