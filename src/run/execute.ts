/**
 * Run the units of one part of a run (all of them for a plain run) on a task runner and keep what a merge
 * needs: each storage point's entry, page-map PNGs (written as they come) and report maps, and each
 * contention task's replication. Every storage point is a `run-point` task, each of its page maps a
 * `run-render` task queued ahead of the points not yet started: the threads draw while they simulate, and
 * the main thread only writes files. Results are placed by index, so they do not depend on the number of
 * threads or the order the tasks finish in.
 */
import { RUN_DEFAULTS } from '../config/defaults.js';
import type { RunConfig } from '../loader/config.js';
import type { Replication } from '../contention/task.js';
import type { TaskRunner } from '../pool/scheduler.js';
import { progressBar } from '../report/progress.js';
import { ROWSIM_VERSION } from '../version.js';
import { PART_FORMAT, shardHeader, type PointRecord, type ReplicationRecord, type RunPart } from './part.js';
import { configDigest, shardSlice, type RunUnits, type Shard } from './plan.js';
import type { PointResult, PointTask } from './point-task.js';
import type { RenderTask } from './render-task.js';

/** Task priorities: a PNG of a point already simulated goes before the next point. */
export const PRIORITY = Object.freeze({ unit: 0, pageMap: 1, chart: 2 });

export interface ExecuteOptions {
  runner: TaskRunner;
  /** Write a file of the output (a page map's PNG). */
  write(rel: string, data: Uint8Array): void;
  checkInvariants: boolean;
  /** The charts' pixel scale. */
  scale: number;
  /** No progress bars. */
  quiet: boolean;
  /**
   * Called once every storage point of the part is simulated (their page maps may still be drawing), with
   * their records in sweep order: the charts over the sweep points can be queued then, and a single run's
   * text made while the threads draw.
   */
  onSimulated?(records: PointRecord[]): void;
}

/** The header of part `shard` of `cfg`'s run. */
export function partHeaderOf(cfg: RunConfig, shard: Shard, units: RunUnits, scale: number): RunPart['header'] {
  return {
    rowsim_part: PART_FORMAT,
    rowsim_version: ROWSIM_VERSION,
    config: { file: cfg.file, sha256: configDigest(cfg) },
    name: cfg.name,
    seed: cfg.seed,
    shard: shardHeader(shard),
    units,
    scale,
  };
}

/** Run part `shard` of `cfg` (units: runUnits(cfg)); returns the part, its PNGs written with opts.write. */
export async function runShard(cfg: RunConfig, shard: Shard, units: RunUnits, opts: ExecuteOptions): Promise<RunPart> {
  const slice = shardSlice(units, shard);
  const points = runPoints(cfg, slice.storage, opts); // the tasks go out first; the header is made while they run
  const part: RunPart = {
    header: partHeaderOf(cfg, shard, units, opts.scale),
    ...(cfg.sections.contention ? { contention_spec: cfg.sections.contention } : {}),
    storage: await points,
    contention: [],
  };
  part.contention = await runReplications(cfg, slice.contention, opts);
  return part;
}

async function runPoints(cfg: RunConfig, indexes: number[], opts: ExecuteOptions): Promise<PointRecord[]> {
  if (indexes.length === 0) return [];
  const records: PointRecord[] = new Array(indexes.length);
  const bar = opts.quiet ? undefined : progressBar('storage');
  bar?.update(0, indexes.length);
  let done = 0;
  let simulated = 0;
  await Promise.all(
    indexes.map(async (index, k) => {
      const task: PointTask = {
        point: cfg.storage[index]!,
        title: cfg.name,
        pageMapMaxCells: RUN_DEFAULTS.pageMapMaxCells,
        checkInvariants: opts.checkInvariants,
      };
      const r = await opts.runner.run<PointResult>({ kind: 'run-point', payload: task }, PRIORITY.unit);
      records[k] = { index, entry: r.entry, charts: r.charts, report_maps: r.reportMaps };
      if (++simulated === indexes.length) {
        // The thread that simulated may now help draw (src/pool/scheduler.ts, lanes).
        opts.runner.done('run-point');
        opts.onSimulated?.(records);
      }
      const pngs = await Promise.all(
        r.pageMaps.map((spec) =>
          opts.runner.run<Uint8Array>(
            { kind: 'run-render', payload: { what: 'page-map', spec, scale: opts.scale } satisfies RenderTask },
            PRIORITY.pageMap,
          ),
        ),
      );
      pngs.forEach((png, j) => opts.write(r.charts[j]!, png));
      bar?.update(++done, indexes.length);
    }),
  );
  bar?.finish();
  return records;
}

async function runReplications(cfg: RunConfig, tasks: number[], opts: ExecuteOptions): Promise<ReplicationRecord[]> {
  const spec = cfg.sections.contention;
  if (!spec || tasks.length === 0) return [];
  const { contentionJobs } = await import('../contention/run.js');
  const { payloads } = contentionJobs(spec, cfg.seed);
  const bar = opts.quiet ? undefined : progressBar('contention');
  bar?.update(0, tasks.length);
  let done = 0;
  const records = await Promise.all(
    tasks.map(async (task) => {
      const replication = await opts.runner.run<Replication>({ kind: 'contention', payload: payloads[task] }, PRIORITY.unit);
      bar?.update(++done, tasks.length);
      return { task, replication };
    }),
  );
  bar?.finish();
  return records;
}
