/**
 * The charts of read phases: which a run writes (reads.png with any select phase, reads-hit-ratio.png with
 * a cache, lob-reads.png with a read_lob phase), and what they draw, checked by the colours of their bars
 * and lines: a forwarded hop is drawn only where the phase had one, a bar of one page read still shows on
 * a log axis, and the large-object chart has a line for every value size and reposition.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/loader/config.js';
import { runStorage } from '../src/workload/runner.js';
import { storageCharts, storageEntry, type StorageEntry } from '../src/report/storage.js';
import { lobReadsChart, readCacheChart, readsChart } from '../src/report/reads-charts.js';
import { PALETTE, renderBarChart } from '../src/report/charts.js';
import type { ReadResult } from '../src/workload/reads.js';
import { ROOT } from './helpers/cli.js';

/** A shipped sim-config with its row counts replaced (`rows: N` → `rows: rows`), run point by point. */
function entriesOf(config: string, rows?: number, replace: [RegExp, string][] = []): StorageEntry[] {
  let text = readFileSync(join(ROOT, 'sim-configs', config), 'utf8');
  if (rows !== undefined) text = text.replace(/rows: \d+/g, `rows: ${rows}`);
  for (const [from, to] of replace) text = text.replace(from, to);
  const file = join(mkdtempSync(join(tmpdir(), 'rowsim-reads-charts-')), config);
  writeFileSync(file, text);
  return loadConfig(file, undefined, {}).storage.map((p) => storageEntry(p, runStorage(p.spec)));
}

async function pixels(png: Buffer): Promise<{ width: number; height: number; data: Uint8ClampedArray }> {
  const img = await loadImage(png);
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  return { width: img.width, height: img.height, data: ctx.getImageData(0, 0, img.width, img.height).data };
}

/** The legend's swatches are above this line; the plot area below it. */
const BELOW_LEGEND = 130;

/** Pixels of exactly this colour (#rrggbb) in the columns x0 … x1 (the whole width by default), below the legend. */
async function count(png: Buffer, hex: string, x0 = 0, x1 = Infinity): Promise<number> {
  const p = await pixels(png);
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  let n = 0;
  for (let y = BELOW_LEGEND; y < p.height; y++) {
    for (let x = Math.max(0, x0); x < Math.min(p.width, x1); x++) {
      const i = (y * p.width + x) * 4;
      if (p.data[i] === r && p.data[i + 1] === g && p.data[i + 2] === b) n++;
    }
  }
  return n;
}

/** A select phase's reads: 3 index pages, 1 data page and `hops` forwarded hops a statement. */
function reads(hops: number, cache?: number): ReadResult {
  const statements = 100;
  return {
    via: 'index',
    plan: 'index seek on pk',
    statements,
    rows_returned: statements,
    logical_reads: statements * (4 + hops),
    data_page_reads: statements * (1 + hops),
    index_page_reads: statements * 3,
    lob_page_reads: 0,
    forwarded_hops: statements * hops,
    chained_piece_reads: 0,
    engine_counters: { forwarded_row_reads: statements * hops },
    ...(cache !== undefined
      ? {
          cache: {
            pages: 100,
            policy: 'lru',
            hits: cache,
            physical_reads: statements * (4 + hops) - cache,
            hit_ratio: cache / (statements * (4 + hops)),
          },
        }
      : {}),
  };
}

function entry(label: string, phases: ReadResult[]): StorageEntry {
  const real = entriesOf('quickstart.yaml', 50)[0]!;
  return {
    ...real,
    label,
    phases: phases.map((r, i) => ({ op: 'select', label: `select ${i + 1}`, rows_affected: 100, metrics: real.final, reads: r })),
  };
}

const [INDEX, DATA, HOPS] = [PALETTE[0]!, PALETTE[1]!, PALETTE[2]!];

describe('which read charts a run writes', () => {
  it('forwarded-reads: page reads and the hit ratio beside the storage charts', () => {
    const files = storageCharts(entriesOf('forwarded-reads.yaml', 2000)).map((c) => c.file);
    expect(files).toContain('reads.png');
    expect(files).toContain('reads-hit-ratio.png');
    expect(files).not.toContain('lob-reads.png');
  });

  it('without a cache there is no hit-ratio chart; without read phases no read chart at all', () => {
    const noCache = storageCharts(
      entriesOf('forwarded-reads.yaml', 2000, [
        [/^cache: .*\n/m, ''],
        [/^costs: .*\n/m, ''],
      ]),
    ).map((c) => c.file);
    expect(noCache).toContain('reads.png');
    expect(noCache).not.toContain('reads-hit-ratio.png');
    const none = storageCharts(entriesOf('quickstart.yaml', 2000)).map((c) => c.file);
    expect(none.filter((f) => f.includes('read'))).toEqual([]);
  });

  it('lob-chunked-read: the large-object chart only', () => {
    const files = storageCharts(entriesOf('lob-chunked-read.yaml', undefined, [[/67108864\]/, '2097152]']])).map((c) => c.file);
    expect(files).toContain('lob-reads.png');
    expect(files).not.toContain('reads.png');
  });
});

describe('what the read charts draw', () => {
  it('forwarded hops are drawn for the phase that had them and not for the one after the reorg', async () => {
    const left = readsChart([entry('p', [reads(1), reads(0)])], 't');
    const right = readsChart([entry('p', [reads(0), reads(1)])], 't');
    // Two categories: the left half holds the first phase's bar, the right half the second's.
    const half = 600;
    expect(await count(left, HOPS, 0, half)).toBeGreaterThan(500);
    expect(await count(left, HOPS, half)).toBe(0);
    expect(await count(right, HOPS, 0, half)).toBe(0);
    expect(await count(right, HOPS, half)).toBeGreaterThan(500);
    // Index and data pages in both.
    for (const png of [left, right]) for (const c of [INDEX, DATA]) expect(await count(png, c, half)).toBeGreaterThan(500);
  });

  it('no forwarded hops anywhere: no such series, not even a legend swatch of its colour', async () => {
    const png = readsChart([entry('p', [reads(0), reads(0)])], 't');
    const all = await pixels(png);
    const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(HOPS.slice(i, i + 2), 16));
    let n = 0;
    for (let i = 0; i < all.data.length; i += 4) if (all.data[i] === r && all.data[i + 1] === g && all.data[i + 2] === b) n++;
    expect(n).toBe(0);
  });

  it('phases that differ by more than 30× go on a log axis where a bar of one page read still shows', async () => {
    // 4 reads a statement against 4 + 400: the data bar of 1 a statement must not sit on the axis' floor.
    const png = readsChart([entry('p', [reads(0), reads(400)])], 't');
    const leftData = await count(png, DATA, 0, 600);
    expect(leftData).toBeGreaterThan(1000);
    // The same bars, stacked on a linear axis, would leave the left phase a sliver: the log axis is what shows it.
    const linear = renderBarChart({
      title: 't',
      categories: ['a', 'b'],
      yLabel: 'y',
      stacked: true,
      series: [{ label: 'data', values: [1, 401], color: DATA }],
    });
    expect(await count(linear, DATA, 0, 600)).toBeLessThan(leftData / 5);
  });

  it('a log-axis bar chart starts a decade below its smallest bar', async () => {
    const png = renderBarChart({
      title: 't',
      categories: ['a', 'b'],
      yLabel: 'y',
      yLog: true,
      series: [{ label: 's', values: [1, 1000], color: DATA }],
    });
    expect(await count(png, DATA, 0, 600)).toBeGreaterThan(2000);
  });

  it('the hit-ratio chart has a bar for each phase with a cache, tallest where the ratio is highest', async () => {
    const png = readCacheChart([entry('p', [reads(0, 100), reads(0, 300)])], 't');
    const low = await count(png, HOPS, 0, 600);
    const high = await count(png, HOPS, 600);
    expect(low).toBeGreaterThan(500);
    expect(high / low).toBeGreaterThan(2.5);
    expect(high / low).toBeLessThan(3.5);
  });

  it('the large-object chart: a line for every value size and reposition over the chunk sizes', async () => {
    const png = lobReadsChart(entriesOf('lob-chunked-read.yaml', undefined, [[/67108864\]/, '2097152]']]), 't');
    for (const c of PALETTE.slice(0, 4)) expect(await count(png, c)).toBeGreaterThan(200);
    expect(await count(png, PALETTE[4]!)).toBe(0);
  });
});
