/**
 * Charts a class reads right, checked on the chart.js configurations every chart draws (recordChartConfigs):
 * the charts of every shipped sim-config (their storage entries and contention results as test/golden
 * holds them), a teaching config run here, and two estimates. Every value axis starts at zero (a log axis
 * says "log scale" in its title instead); no chart has a second y axis (unlike quantities are panels of
 * their own); every axis has a title and a numeric one names its unit in parentheses; the estimate's
 * forwarded-rows panel draws the target across. A degenerate range (all values equal, all zero) still
 * draws from zero with a span.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChartConfiguration } from 'chart.js';
import { recordChartConfigs, REFERENCE_PLUGIN, renderBarChart, renderLineChart } from '../src/report/charts.js';
import { renderStorageChart } from '../src/report/storage-charts.js';
import { storageCharts, storageEntry, type StorageEntry } from '../src/report/storage.js';
import { writeContentionCharts } from '../src/contention/report.js';
import type { ContentionResults } from '../src/contention/run.js';
import { loadConfig, loadEstimateConfig } from '../src/loader/config.js';
import { runStorage } from '../src/workload/runner.js';
import { runEstimate } from '../src/estimate/estimate.js';
import { estimateChart, maintenanceChart } from '../src/estimate/report.js';
import { ROOT } from './helpers/cli.js';

type Axis = {
  type?: string;
  beginAtZero?: boolean;
  min?: number;
  max?: number;
  position?: string;
  title?: { display?: boolean; text?: string };
};

/** The axes of one chart.js configuration, by id. */
function axesOf(config: ChartConfiguration): Record<string, Axis> {
  return ((config.options as { scales?: Record<string, Axis> }).scales ?? {}) as Record<string, Axis>;
}

/** The axis the values are measured on: y, or x for horizontal bars. */
function valueAxisId(config: ChartConfiguration): string {
  return (config.options as { indexAxis?: string }).indexAxis === 'y' ? 'x' : 'y';
}

/** What is wrong with one chart (its panels, top to bottom); empty when it reads right. */
function problems(name: string, panels: ChartConfiguration[]): string[] {
  const out: string[] = [];
  panels.forEach((config, p) => {
    const at = `${name}${panels.length > 1 ? ` panel ${p + 1}` : ''}`;
    const axes = axesOf(config);
    const valueId = valueAxisId(config);
    const others = Object.keys(axes).filter((id) => id !== 'x' && id !== 'y');
    if (others.length) out.push(`${at}: a second value axis (${others.join(', ')})`);
    for (const [id, axis] of Object.entries(axes)) {
      if (axis.position === 'right') out.push(`${at}: axis ${id} on the right`);
      const text = axis.title?.display ? (axis.title.text ?? '') : '';
      // In a stack only the bottom panel names the shared x axis.
      const sharedX = id === 'x' && p < panels.length - 1;
      if (!text && !sharedX) out.push(`${at}: axis ${id} has no title`);
      // A line chart over categories draws them on a linear axis of their indexes (afterBuildTicks places one tick a category).
      const categories = axis.type === 'category' || typeof (axis as { afterBuildTicks?: unknown }).afterBuildTicks === 'function';
      const numeric = !categories && (axis.type === 'linear' || axis.type === 'logarithmic');
      if (text && numeric && !/\([^()]+\)$/.test(text)) out.push(`${at}: axis ${id} "${text}" names no unit in parentheses`);
      if (id !== valueId) continue;
      if (axis.type === 'logarithmic') {
        if (!text.includes('log scale')) out.push(`${at}: log axis "${text}" does not say so`);
      } else if (!(axis.beginAtZero === true && (axis.min === undefined || axis.min <= 0))) {
        out.push(`${at}: value axis "${text}" does not start at zero (beginAtZero ${axis.beginAtZero}, min ${axis.min})`);
      }
    }
  });
  return out;
}

/** Every chart of `entries` drawn, with the configurations it drew. */
function storageChartConfigs(entries: StorageEntry[], title: string): { file: string; panels: ChartConfiguration[] }[] {
  return storageCharts(entries).map((chart) => {
    const { charts } = recordChartConfigs(() => renderStorageChart(entries, title, chart));
    expect(charts.length, chart.file).toBe(1);
    return { file: chart.file, panels: charts[0]! };
  });
}

const GOLDEN = join(ROOT, 'test', 'golden');

describe('every chart of every shipped config reads right', () => {
  const results = readdirSync(GOLDEN).filter((f) => f.endsWith('.results.json'));

  it.each(results)('%s', { timeout: 120_000 }, (file) => {
    const r = JSON.parse(readFileSync(join(GOLDEN, file), 'utf8')) as {
      name: string;
      storage?: StorageEntry[];
      contention?: ContentionResults;
    };
    const found: string[] = [];
    if (r.storage?.length) {
      for (const c of storageChartConfigs(r.storage, r.name)) {
        found.push(...problems(c.file, c.panels));
      }
    }
    if (r.contention) {
      const { charts } = recordChartConfigs(() => writeContentionCharts(r.contention!, () => {}));
      charts.forEach((panels, i) => found.push(...problems(`contention chart ${i + 1}`, panels)));
    }
    expect(found).toEqual([]);
  });

  it('a teaching config (13 rows, two points of equal figures) draws from zero, rows above pages in two panels', () => {
    const entries = loadConfig(join(ROOT, 'sim-configs', 'teaching', 'ase-forwarding.yaml'), undefined, {}).storage.map((p) =>
      storageEntry(p, runStorage(p.spec)),
    );
    const charts = storageChartConfigs(entries, 'teach');
    expect(charts.flatMap((c) => problems(c.file, c.panels))).toEqual([]);
    const forwarding = charts.find((c) => c.file === 'forwarding.png')!;
    expect(forwarding.panels.map((c) => axesOf(c).y!.title!.text)).toEqual(['forwarded (rows)', 'table size and scan (pages)']);
    // Counts: whole-number ticks only.
    for (const c of forwarding.panels) expect((axesOf(c).y as { ticks: { precision?: number } }).ticks.precision).toBe(0);
  });
});

describe('the value axis of a degenerate range', () => {
  const yOf = (draw: () => Buffer): Axis => axesOf(recordChartConfigs(draw).charts[0]![0]!).y!;
  const line = (values: number[]) => () =>
    renderLineChart({
      title: 't',
      xLabel: 'x (n)',
      yLabel: 'y (rows)',
      series: [{ label: 's', points: values.map((v, i) => [i, v] as [number, number]) }],
    });

  it('draws a share in % up to 100 at most', () => {
    const share = (values: number[]) =>
      yOf(() =>
        renderLineChart({
          title: 't',
          xLabel: 'x (n)',
          yLabel: 'HOT updates (% of updates)',
          series: [{ label: 's', points: values.map((v, i) => [i, v] as [number, number]) }],
        }),
      );
    expect(share([88, 99.7])).toMatchObject({ min: 0, max: 100 });
    expect(share([10, 40])).toMatchObject({ min: 0, suggestedMax: 42 });
  });

  it('starts at zero and spans something when every value is equal or zero', () => {
    expect(yOf(line([3, 3, 3]))).toMatchObject({ min: 0, beginAtZero: true });
    expect(yOf(line([2.9, 3.0, 3.1]))).toMatchObject({ min: 0 });
    expect(yOf(line([0, 0]))).toMatchObject({ min: 0, max: 1 });
    expect(
      yOf(() =>
        renderBarChart({ title: 't', categories: ['a', 'b'], xLabel: 'c', yLabel: 'y (tps)', series: [{ label: 's', values: [7, 7] }] }),
      ),
    ).toMatchObject({
      min: 0,
      beginAtZero: true,
    });
  });
});

describe('the estimate charts', () => {
  it('draw the target across the forwarded rows, pages in a panel of their own, the knob with its unit', { timeout: 300_000 }, async () => {
    const cfg = loadEstimateConfig(join(ROOT, 'sim-configs', 'estimate-titles.yaml'), { sample_rows: 2000, seeds: 2 });
    const outcome = await runEstimate(cfg);
    for (const f of outcome.formats) {
      const { charts } = recordChartConfigs(() => estimateChart(cfg, f));
      expect(charts.length).toBe(1);
      const panels = charts[0]!;
      expect(problems(`estimate ${f.format}`, panels)).toEqual([]);
      expect(panels.length).toBe(2);
      const top = panels[0]!;
      const lines = (top.options!.plugins as Record<string, { lines?: { y: number; label: string }[] }>)[REFERENCE_PLUGIN]!.lines!;
      expect(lines).toEqual([expect.objectContaining({ y: cfg.target_pct, label: expect.stringMatching(/target/) })]);
      expect(axesOf(top).y!.title!.text).toBe('forwarded rows (% of rows)');
      expect(axesOf(panels[1]!).y!.title!.text).toMatch(/pages/);
      expect(axesOf(panels[1]!).x!.title!.text).toMatch(/^\S+ \((bytes|% of the page)\)$/);
    }
  });

  it('a table with no reserve setting and its maintenance what-if read right too', { timeout: 300_000 }, async () => {
    const cfg = loadEstimateConfig(join(ROOT, 'sim-configs', 'estimate-case-notes.yaml'), { sample_rows: 2000, seeds: 2 });
    const outcome = await runEstimate(cfg);
    const { charts } = recordChartConfigs(() => {
      for (const f of outcome.formats) estimateChart(cfg, f);
      if (outcome.maintenance) maintenanceChart(cfg, outcome);
    });
    expect(charts.length).toBe(outcome.formats.length + (outcome.maintenance ? 1 : 0));
    expect(charts.flatMap((panels, i) => problems(`chart ${i + 1}`, panels))).toEqual([]);
  });
});
