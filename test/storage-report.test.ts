/**
 * The storage report in each engine's words: the charts a sweep writes and the summary's wording come
 * from the format routines (src/formats), so a PostgreSQL fillfactor sweep shows HOT updates, an Oracle
 * PCTFREE sweep migrated rows, and every axis and column the knob's unit.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/loader/config.js';
import { runStorage } from '../src/workload/runner.js';
import { storageEntry, storageMarkdown, storageTerminal, TERMINAL_MAX_POINTS, type StorageEntry } from '../src/report/storage.js';
import { writePageMapCharts, writeStorageCharts } from '../src/report/storage-charts.js';
import { ROOT } from './helpers/cli.js';

/** A shipped sim-config with fewer rows, run point by point; the files it would write, by name. */
function run(
  config: string,
  rows: number,
  maxCells = 20_000,
): { entries: StorageEntry[]; files: Map<string, Buffer | string>; charts: string[] } {
  const text = readFileSync(join(ROOT, 'sim-configs', config), 'utf8').replace(/rows: \d+/g, `rows: ${rows}`);
  const file = join(mkdtempSync(join(tmpdir(), 'rowsim-report-')), config);
  writeFileSync(file, text);
  const cfg = loadConfig(file, undefined, {});
  const files = new Map<string, Buffer | string>();
  const write = (rel: string, data: string | Uint8Array) => files.set(rel, typeof data === 'string' ? data : Buffer.from(data));
  const charts: string[] = [];
  const entries = cfg.storage.map((p) => {
    const result = runStorage(p.spec, { pageMapMaxCells: maxCells });
    const e = storageEntry(p, result);
    charts.push(...writePageMapCharts(e, result, write, cfg.name));
    return e;
  });
  charts.unshift(...writeStorageCharts(entries, write, cfg.name));
  return { entries, files, charts };
}

/** The words of a PNG's text chunks are not there: what a chart says is checked through its spec's words in the summary and file names. */
const names = (charts: string[]) => charts.filter((c) => !c.includes('pagemap-'));

describe('a PostgreSQL fillfactor sweep', () => {
  const { entries, charts } = run('postgres-hot-fillfactor.yaml', 3000);
  const md = storageMarkdown(entries, charts);

  it('writes a HOT-share chart and new-page updates, and no forwarded-rows chart', () => {
    expect(names(charts)).toEqual(['charts/hot-updates.png', 'charts/pages.png', 'charts/phases-hot.png', 'charts/phases-pages.png']);
    expect(charts).not.toContain('charts/forwarding.png');
    expect(charts.some((c) => c.includes('forward'))).toBe(false);
  });

  it('says fillfactor in %, HOT and new-page updates, and no ASE word', () => {
    expect(md).toMatch(/\| fillfactor \(%\) \|/);
    expect(md).toMatch(/`HOT %`: HOT updates in % of all updates/);
    expect(md).toMatch(/new-page upd\./);
    expect(md).not.toMatch(/exp_row_size|forwarded|reserve \(bytes\)/);
    expect(storageTerminal(entries, { wide: true })).toMatch(/fillfactor \(%\).*HOT %/);
  });
});

describe('an Oracle PCTFREE sweep', () => {
  const { entries, charts } = run('oracle-pctfree.yaml', 3000);
  const md = storageMarkdown(entries, charts);

  it('says migrated: its chart, its columns, its per-phase table', () => {
    expect(names(charts)).toEqual(['charts/migrated.png', 'charts/phases-migrated.png', 'charts/phases-pages.png']);
    expect(md).toMatch(/\| pctfree \(%\) \| rows \| pages \| peak migr\. \| peak migr\. % \| migr\. at end \|/);
    expect(md).toMatch(/\| migrated rows \|/);
    expect(md).toMatch(/the most migrated rows after any phase/);
    expect(md).not.toMatch(/exp_row_size|forward|reserve \(bytes\)/);
  });
});

describe('an ASE exp_row_size sweep', () => {
  const { entries, charts } = run('quickstart.yaml', 2000);
  const md = storageMarkdown(entries, charts);

  it('keeps forwarding.png and says the knob in bytes, and nothing of HOT', () => {
    expect(names(charts)).toEqual(['charts/forwarding.png', 'charts/phases-forwarded.png', 'charts/phases-pages.png']);
    expect(md).toMatch(/\| exp_row_size \(bytes\) \|/);
    expect(md).toMatch(/the largest exp_row_size accepted/);
    expect(md).not.toMatch(/HOT/);
  });
});

describe('page maps of large tables', () => {
  it('are drawn reduced instead of skipped, and the kept data stays within its bound', () => {
    // 100 cells at most: every page map of this run is reduced.
    const { entries, charts, files } = run('quickstart.yaml', 2000, 100);
    const maps = charts.filter((c) => c.includes('pagemap-'));
    expect(maps).toHaveLength(2 * entries.length);
    for (const m of maps) expect(files.get(m)).toBeInstanceOf(Buffer);
  });

  it('keep at most maxCells cells whatever the pages', () => {
    const text = readFileSync(join(ROOT, 'sim-configs', 'quickstart.yaml'), 'utf8').replace(/rows: \d+/g, 'rows: 2000');
    const file = join(mkdtempSync(join(tmpdir(), 'rowsim-report-')), 'q.yaml');
    writeFileSync(file, text);
    const point = loadConfig(file, undefined, {}).storage[0]!;
    const r = runStorage(point.spec, { pageMapMaxCells: 50 });
    const final = r.pageMaps.at(-1)!.map;
    // The map spans the page numbers the table has used (pages the reorg deallocated are empty cells).
    expect(final.pages).toBeGreaterThanOrEqual(r.final.pages);
    expect(final.fill.length).toBeLessThanOrEqual(50);
    expect(final.pagesPerCell).toBe(Math.ceil(final.pages / 50));
    const before = r.pageMaps[0]!.map;
    // Stubs are counted, not lost, when pages share a cell.
    expect(before.stubs.reduce((a, b) => a + b, 0)).toBe(r.phases[1]!.metrics.forwarded_rows);
    expect(before.stubPages).toBeGreaterThan(0);
  });
});

describe("the terminal's table of a large sweep", () => {
  const { entries } = run('postgres-hot-fillfactor.yaml', 300);
  const many = Array.from({ length: TERMINAL_MAX_POINTS + 23 }, (_, i) => ({ ...entries[i % entries.length]!, label: `point ${i + 1}` }));

  it('shows its first points and says where every one is; a smaller sweep shows them all', () => {
    const text = storageTerminal(many);
    expect(text).toMatch(new RegExp(`point ${TERMINAL_MAX_POINTS}\\b`));
    expect(text).not.toMatch(new RegExp(`point ${TERMINAL_MAX_POINTS + 1}\\b`));
    expect(text).toContain(
      `(the first ${TERMINAL_MAX_POINTS} of ${TERMINAL_MAX_POINTS + 23} points; summary.md and results.json have every one)`,
    );
    const all = storageTerminal(many.slice(0, TERMINAL_MAX_POINTS));
    expect(all).toMatch(new RegExp(`point ${TERMINAL_MAX_POINTS}\\b`));
    expect(all).not.toContain('the first');
  });
});
