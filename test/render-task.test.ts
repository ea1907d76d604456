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
