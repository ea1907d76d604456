/**
 * The charts over a run's sweep points are one `run-render` task (src/run/render-task.ts): one thread
 * draws them all, and each file gets its own chart's PNG, the same bytes as drawing that chart alone.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/loader/config.js';
import { storageChartPngs } from '../src/run/merge.js';
import { runPoint } from '../src/run/point-task.js';
import runInWorker from '../src/run/task-worker.js';
import { render } from '../src/run/render-task.js';
import { PRIORITY, runShard } from '../src/run/execute.js';
import { runUnits } from '../src/run/plan.js';
import { recordChartConfigs } from '../src/report/charts.js';
import { TASKS } from '../src/run/tasks.js';
import { inProcessRunner } from '../src/pool/scheduler.js';
import type { Task } from '../src/pool/pool.js';
import { storageCharts } from '../src/report/storage.js';
import { renderStorageChart } from '../src/report/storage-charts.js';
import { growingBodyConfig } from './helpers/growing-body.js';

describe('the charts over the sweep points', () => {
  it('are drawn in one task, each file with its own chart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-render-'));
    const file = join(dir, 'tiny.yaml');
    writeFileSync(file, growingBodyConfig({ name: 'tiny', seed: 3, rows: 300, sweep: { 'engine.exp_row_size': '[1, 0, max]' } }));
    const cfg = loadConfig(file);
    const entries = cfg.storage.map((point) => runPoint({ point, title: cfg.name, pageMapMaxCells: 2000, checkInvariants: false }).entry);
    const inner = inProcessRunner(TASKS);
    const tasks: Task[] = [];
    const runner = { ...inner, run: <R>(task: Task, priority?: number) => (tasks.push(task), inner.run<R>(task, priority)) };
    const drawn = await storageChartPngs(entries, cfg.name, 1, runner);
    const charts = storageCharts(entries);
    expect(charts.length).toBeGreaterThan(1);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]!.kind).toBe('run-render');
    expect(drawn.map((d) => d.file)).toEqual(charts.map((c) => `charts/${c.file}`));
    drawn.forEach((d, i) => expect(Buffer.from(d.png).equals(renderStorageChart(entries, cfg.name, charts[i]!))).toBe(true));
  });
});

describe("the charts' warm-up", () => {
  it('draws the first chart over the first point and returns nothing; once the charts are queued (late), draws nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-render-'));
    const file = join(dir, 'tiny.yaml');
    writeFileSync(file, growingBodyConfig({ name: 'tiny', seed: 3, rows: 300, sweep: { 'engine.exp_row_size': '[1, 0]' } }));
    const cfg = loadConfig(file);
    const entry = runPoint({ point: cfg.storage[0]!, title: cfg.name, pageMapMaxCells: 2000, checkInvariants: false }).entry;
    const late = new Int32Array(new SharedArrayBuffer(4));
    const warmUp = () => recordChartConfigs(() => render({ what: 'warm-up', entry, title: cfg.name, scale: 1, late }));
    const early = warmUp();
    expect(early.result).toEqual([]);
    expect(early.charts).toHaveLength(1);
    Atomics.store(late, 0, 1);
    expect(warmUp().charts).toHaveLength(0);
  });

  it('is queued once, after the first point and its page maps, when the charts will be drawn on two threads or more', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-render-'));
    const file = join(dir, 'tiny.yaml');
    writeFileSync(file, growingBodyConfig({ name: 'tiny', seed: 3, rows: 300, sweep: { 'engine.exp_row_size': '[1, 0, max]' } }));
    const cfg = loadConfig(file);
    const units = await runUnits(cfg);
    const queued = async (threads: number, warmUpCharts: boolean) => {
      const inner = inProcessRunner(TASKS);
      const tasks: string[] = [];
      const runner = {
        ...inner,
        threads,
        run: <R>(task: Task, priority?: number) => {
          tasks.push(`${(task.payload as { what?: string }).what ?? task.kind}@${priority}`);
          return inner.run<R>(task, priority);
        },
      };
      const shard = { index: 1, count: 1 };
      await runShard(cfg, shard, units, { runner, write: () => {}, checkInvariants: false, scale: 1, quiet: true, warmUpCharts });
      return tasks;
    };
    const two = await queued(2, true);
    expect(two.filter((t) => t.startsWith('warm-up'))).toEqual([`warm-up@${PRIORITY.warmUp}`]);
    expect(two.indexOf(`warm-up@${PRIORITY.warmUp}`)).toBe(two.indexOf(`page-map@${PRIORITY.pageMap}`) + 2); // the first point's two maps
    expect((await queued(1, true)).some((t) => t.startsWith('warm-up'))).toBe(false);
    expect((await queued(2, false)).some((t) => t.startsWith('warm-up'))).toBe(false);
  });
});

describe('a task of the pool', () => {
  // The canvas gives back the memory of the pixels it read on the event loop: a pool thread that went from
  // task to task without a turn kept them all (about 1 MB a map).
  it("ends after a turn of its thread's event loop, where the canvas's buffers are given back (a page map)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-render-'));
    const file = join(dir, 'tiny.yaml');
    writeFileSync(file, growingBodyConfig({ name: 'tiny', seed: 3, rows: 300, sweep: { 'engine.exp_row_size': '[1]' } }));
    const cfg = loadConfig(file);
    const point = runPoint({ point: cfg.storage[0]!, title: cfg.name, pageMapMaxCells: 2000, checkInvariants: false });
    let turned = false;
    setImmediate(() => (turned = true));
    const png = await runInWorker({ kind: 'run-render', payload: { what: 'page-map', spec: point.pageMaps[0]!, scale: 1 } });
    expect(turned).toBe(true);
    expect(png).toBeInstanceOf(Uint8Array);
  });
});
