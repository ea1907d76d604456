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
import { InputError, UserError, type KeyPath } from '../config/errors.js';
import type { YamlLocator } from '../config/locate.js';
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
import { processCpuSeconds, RunTimings } from './timings.js';

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
  /** Print where the wall time went (load, simulate, charts, report, write) on standard error (timings.ts). */
  timings?: boolean;
}

/**
 * Work (row operations, once more for each index they maintain: threadWork) up to which a run of one
 * unit runs on the calling thread (no pool: a thread's start and module loads cost more than such a run,
 * 0.2 s of CPU on the quickstart's point). A larger one runs on a thread of its own so that this thread,
 * the one signals come to, stays free: SIGINT, SIGTERM and SIGHUP stop the run at once
 * (src/util/cleanup.ts), not when the simulation ends. At this size the calling thread is busy for about
 * a second at most on a loaded machine (1e6 row operations on four indexes took 9.5 s of CPU).
 */
export const IN_PROCESS_MAX_WORK = 200_000;

/** A storage point's work, for where it runs: its row operations, once more for each index; a large-object read (its chunks not counted) as large. */
function threadWork(spec: RunConfig['storage'][number]['spec']): number {
  if (spec.workload.some((p) => p.op === 'read_lob')) return Infinity;
  return plannedRowOperations(spec.workload) * (1 + spec.table.indexes.length);
}

/**
 * Where a run's tasks go: on the calling thread for one small unit (`work`: threadWork; an
 * unknown count is taken as large), else on min(workers, units) threads.
 */
function runnerFor(units: number, workers: number | undefined, storage: boolean, work = Infinity): Promise<TaskRunner> {
  if (units <= 1 && work <= IN_PROCESS_MAX_WORK) return Promise.resolve(inProcessRunner(TASKS));
  return poolRunner(
    TASKS,
    Math.max(1, Math.min(workers ?? defaultWorkers(), units)),
    storage ? ['run-point', 'run-render'] : ['contention'],
  );
}

/**
 * The task runner as it starts: early, on the sweep's size the YAML states, and again when the loaded
 * config says otherwise. A runner that failed to start is reported by whatever awaits it first.
 */
class StartingRunner {
  private starting: Promise<TaskRunner> | undefined;

  constructor(private readonly workers: number | undefined) {}

  start(units: number, storage: boolean, work?: number): void {
    this.starting = runnerFor(units, this.workers, storage, work);
    this.starting.catch(() => {}); // awaited later; a failure before that is reported by whatever failed first
  }

  async close(): Promise<void> {
    const runner = await this.starting?.catch(() => undefined);
    this.starting = undefined;
    await runner?.close();
  }

  get(): Promise<TaskRunner> {
    return this.starting!;
  }

  get started(): boolean {
    return this.starting !== undefined;
  }
}

/**
 * The planned row operations of a part's storage points, and how to start its runner: a contention
 * replication's length is not counted in rows, so a part with one runs on threads whatever its size.
 */
function runnerStart(cfg: RunConfig, slice: ReturnType<typeof shardSlice>, runner: StartingRunner) {
  const rowOps = slice.storage.reduce((ops, i) => ops + plannedRowOperations(cfg.storage[i]!.spec.workload), 0);
  const work = slice.storage.reduce((w, i) => w + threadWork(cfg.storage[i]!.spec), 0);
  const storage = slice.contention.length === 0;
  const count = slice.storage.length + slice.contention.length;
  return { rowOps, start: () => runner.start(count, storage, storage ? work : Infinity) };
}

/**
 * Large tables: the same command again in a process whose malloc asks for 2 MB pages (huge-pages.ts), and
 * its exit status; if it cannot be started, undefined, and the run goes on here with 4 kB pages.
 */
async function withHugePages(tableBytes: number, runner: StartingRunner, start: () => void): Promise<number | undefined> {
  if (!startedAsCli() || !wantsHugePages(tableBytes, hugePagesContext())) return undefined;
  await runner.close();
  const code = await runAgainWithHugePages().catch(() => undefined);
  if (code !== undefined) return code;
  start();
  return undefined;
}

/**
 * Page maps' base64 a single run keeps for report.html: a sweep of thousands of points reads the rest
 * back from the files as report.html is written, rather than holding them all.
 */
export const KEEP_BASE64_CHARS = 8 * 1024 * 1024;

/**
 * Sweep points up to which a single run makes its text while the threads draw; a larger sweep makes it
 * once they have stopped, so that its text (tens of megabytes, and the garbage of making it) and the
 * threads' memory are not resident at once.
 */
export const PREPARE_BESIDE_DRAWING_MAX_POINTS = 100;

/** The output folder's staging, and the single run's page maps in base64 for report.html as each is written. */
function stagedWriter(staged: InstanceType<typeof import('../report/output.js').StagedOutput>, keepBase64: boolean) {
  // Encoded as each comes (this thread waits on the workers then) rather than read back at the end.
  const base64 = new Map<string, string>();
  let kept = 0;
  return {
    write: (rel: string, data: Uint8Array) => {
      staged.write(rel, data);
      if (!keepBase64 || kept > KEEP_BASE64_CHARS) return;
      const text = base64Of(data);
      kept += text.length;
      base64.set(rel, text);
    },
    chartBase64: (rel: string) => base64.get(rel),
    readChart: (rel: string) => readFileSync(join(staged.dir, ...rel.split('/'))),
  };
}

/** Options that do not go together: a UserError. */
function checkOptions(opts: RunOptions): void {
  if (opts.shard && opts.json)
    throw new UserError(
      "--json: expected no --shard (a part writes part.json, not results.json; rowsim merge --json prints the run's results)",
    );
}

export async function runCommand(file: string, opts: RunOptions): Promise<number> {
  // Bad input throws InputError (a config) or UserError (an argument, the output folder): main() prints it, exit 2.
  checkOptions(opts);
  const shard = opts.shard ?? { index: 1, count: 1 };
  // A storage sweep's pool starts on the sweep's size read from the YAML, while the schema checks the
  // config (a config that fails them ends the pool, writes nothing and exits 2). One point: no pool.
  const source = parseConfigSource(file);
  const early = rawStoragePoints(source.raw);
  const earlyUnits = early === undefined ? undefined : shardSlice({ storage: early, contention: 0 }, shard).storage.length;
  const runner = new StartingRunner(opts.workers);
  const timings = new RunTimings();
  // One point: where it runs depends on its size, known once the config is loaded.
  if (earlyUnits !== undefined && earlyUnits > 1) runner.start(earlyUnits, true);
  let lines: string[] = [];
  let out: { discard(): void } | undefined;
  try {
    const { checkedSections, loadConfig } = await import('../loader/config.js');
    const cfg: RunConfig = loadConfig(file, undefined, { maxPoints: opts.maxPoints, source, ...checkedSections(source.raw, false) });
    const units = await runUnits(cfg);
    const slice = shardSlice(units, shard);
    const count = slice.storage.length + slice.contention.length;
    const { rowOps, start } = runnerStart(cfg, slice, runner);
    if (!runner.started || count !== earlyUnits) {
      // Not known from the YAML (a contention section, one point), or (never for a valid config) not what it said.
      await runner.close();
      start();
    }
    const [{ checkRunLimits }, { checkOutputFolder, StagedOutput }, execute, { PART_FILE, partJson }] = await Promise.all([
      import('./limits.js'),
      import('../report/output.js'),
      import('../run/execute.js'),
      import('../run/part.js'),
    ]);
    const again = await withHugePages(checkRunLimits(cfg, { workers: opts.workers }), runner, start);
    if (again !== undefined) return again;
    // A large run compiles its hot paths with a wider inlining budget (compiler.ts), set before they are hot.
    tuneCompiler(rowOps);
    const folder = checkOutputFolder(
      opts.out ?? join('out', cfg.name, ...(opts.shard ? [partFolderName(shard)] : [])),
      opts.shard ? 'part' : 'run',
    );
    // Files go to a temporary folder as they are made (a sweep's page maps point by point), then are
    // published into the results folder; an error or an interrupt removes the temporary folder.
    const staged = new StagedOutput(folder);
    out = staged;
    const ctx: RunContext = {
      file,
      opts,
      cfg,
      shard,
      units,
      folder,
      staged,
      io: stagedWriter(staged, !opts.shard),
      runner: await runner.get(),
      execute,
      timings,
    };
    lines = opts.shard ? await runPart(ctx, slice, PART_FILE, partJson) : await runWhole(ctx);
    if (opts.quiet === true || opts.json === true) lines = [];
  } catch (err) {
    throw positioned(err, source.loc);
  } finally {
    await runner.close();
    out?.discard();
  }
  printOutcome(lines, opts.timings ? timings : undefined);
  return 0;
}

/** The run's lines on standard output, then (--timings) where its time went on standard error. */
function printOutcome(lines: readonly string[], timings: RunTimings | undefined): void {
  for (const line of lines) process.stdout.write(`${line}\n`);
  if (timings) process.stderr.write(`${timings.lines(processCpuSeconds()).join('\n')}\n`);
}

/**
 * A user's error found while the run simulates (the server's refusal of a statement, btree/entry-limit.ts)
 * names its phase as `workload[i]…: …`; it is shown as the config's problems are, with the file, line and
 * column of that phase.
 */
function positioned(err: unknown, loc: YamlLocator): unknown {
  if (!(err instanceof UserError) || err instanceof InputError) return err;
  const m = /^workload\[(\d+)\](?:\.(\w+))?: ([\s\S]*)$/.exec(err.message);
  if (!m) return err;
  const path: KeyPath = ['workload', Number(m[1]), ...(m[2] ? [m[2]] : [])];
  return new InputError([loc.problem(path, m[3]!)]);
}

/** What the two ways to finish a run share: the config, its units, the staged folder and the runner. */
interface RunContext {
  file: string;
  opts: RunOptions;
  cfg: RunConfig;
  shard: Shard;
  units: Awaited<ReturnType<typeof runUnits>>;
  folder: { dir: string };
  staged: InstanceType<typeof import('../report/output.js').StagedOutput>;
  io: ReturnType<typeof stagedWriter>;
  runner: TaskRunner;
  execute: typeof import('../run/execute.js');
  timings: RunTimings;
}

function shardOptions(ctx: RunContext, onSimulated?: (records: PointRecord[]) => void) {
  const { opts } = ctx;
  return {
    runner: ctx.runner,
    write: ctx.io.write,
    checkInvariants: opts.check === true || process.env.ROWSIM_CHECK === '1',
    scale: opts.scale ?? RUN_DEFAULTS.chartScale,
    quiet: opts.quiet === true || opts.json === true,
    ...(onSimulated ? { onSimulated } : {}),
  };
}

/** --shard K/N: run this part's units and write part.json; the lines say what the part holds and what comes next. */
async function runPart(
  ctx: RunContext,
  slice: ReturnType<typeof shardSlice>,
  partFile: string,
  partJson: (part: Awaited<ReturnType<RunContext['execute']['runShard']>>) => Uint8Array | string,
): Promise<string[]> {
  const { cfg, shard, units, opts } = ctx;
  ctx.timings.end('load');
  const part = await ctx.execute.runShard(cfg, shard, units, shardOptions(ctx));
  ctx.timings.end('simulate');
  await ctx.runner.close();
  ctx.staged.write(partFile, partJson(part));
  await ctx.staged.publish();
  ctx.timings.end('write');
  const dir = relative(process.cwd(), ctx.folder.dir) || ctx.folder.dir;
  const labels = slice.storage.map((i) => cfg.storage[i]!.label);
  const points = slice.storage.length
    ? `${slice.storage.length} of ${units.storage} storage points (${labels.slice(0, 6).join('; ')}${labels.length > 6 ? '; …' : ''})`
    : '';
  const tasks = slice.contention.length ? `${slice.contention.length} of ${units.contention} contention tasks` : '';
  return [
    `${cfg.name}: part ${shard.index} of ${shard.count}: ${[points, tasks].filter(Boolean).join(', ') || `nothing (the run has ${units.storage + units.contention} units for ${shard.count} parts)`}`,
    `part: ${join(dir, partFile)}; when every part is done: rowsim merge ${opts.out === undefined ? join('out', cfg.name, `part-*-of-${shard.count}`) : `<the ${shard.count} part folders>`}`,
  ];
}

/** The prepared run's files written once its charts are drawn (--timings: `charts` ends when they are). */
async function drawnThenFinished(
  prepared: Promise<PreparedRun>,
  charts: Promise<{ file: string; png: Uint8Array }[]>,
  timings: RunTimings,
): Promise<ReturnType<PreparedRun['finish']>> {
  const run = await prepared;
  const drawn = await charts;
  timings.end('charts');
  return run.finish(drawn);
}

/**
 * A single run is its own one part, merged by the same code as rowsim merge's. It queues the charts over
 * the sweep points as soon as every point is simulated and, when the points are the whole run (no
 * contention section), makes its text and lays out report.html while the threads draw: only the charts'
 * bytes are left for the end.
 */
async function runWhole(ctx: RunContext): Promise<string[]> {
  const { cfg, opts, shard, units, staged, io, runner, file, timings } = ctx;
  timings.end('load');
  const scale = opts.scale ?? RUN_DEFAULTS.chartScale;
  // What only the end needs is loaded once the tasks are out.
  const merging = import('../run/merge.js');
  merging.catch(() => {});
  let charts: Promise<{ file: string; png: Uint8Array }[]> | undefined;
  let prepared: Promise<PreparedRun> | undefined;
  const onSimulated = (records: PointRecord[]) => {
    if (!cfg.sections.contention) timings.end('simulate');
    const entries = records.map((r) => r.entry);
    charts = merging.then((m) => m.storageChartPngs(entries, cfg.name, scale, runner));
    charts.catch(() => {}); // awaited by writeRun; a failure elsewhere first is the one reported
    if (cfg.sections.contention || records.length > PREPARE_BESIDE_DRAWING_MAX_POINTS) return;
    const header = ctx.execute.partHeaderOf(cfg, shard, units, scale);
    const merged = (m: typeof import('../run/merge.js')) =>
      m.mergeParts([{ header, storage: records, contention: [], source: file, staged: true, readChart: io.readChart }]);
    prepared = merging.then((m) =>
      timings.beside('report', () => m.prepareRun(merged(m), staged, { wide: opts.wide, chartBase64: io.chartBase64 })),
    );
    prepared.catch(() => {}); // awaited below
  };
  const part = await ctx.execute.runShard(cfg, shard, units, shardOptions(ctx, onSimulated));
  if (cfg.sections.contention) timings.end('simulate');
  const { mergeParts, probeMetastability, writeRun } = await merging;
  const whole = prepared ? undefined : mergeParts([{ ...part, source: file, staged: true, readChart: io.readChart }]);
  // the start-state probes of the bimodal contention points: on the threads, once every replication is in
  if (whole) await probeMetastability(whole, runner);
  // The charts over the sweep points are the last tasks: once they are drawn, the threads stop while
  // this thread writes the report.
  const closing = (charts ?? Promise.resolve()).then(
    () => runner.close(),
    () => {},
  );
  if (!prepared && !cfg.sections.contention) await closing; // a large sweep: its text once the threads have stopped
  const written = prepared
    ? await drawnThenFinished(prepared, charts!, timings)
    : await writeRun(whole!, staged, runner, {
        wide: opts.wide,
        storageCharts: charts,
        chartBase64: io.chartBase64,
      });
  if (!prepared) timings.end('charts'); // the contention charts and the report's text, with writeRun's files
  await closing;
  await runner.close();
  await staged.publish();
  timings.end('write');
  if (opts.json) process.stdout.write(written.json);
  const results = join(ctx.folder.dir, 'results.json');
  return [...written.terminal, `results: ${relative(process.cwd(), results) || results}, summary.md, report.html and charts/ beside it`];
}
