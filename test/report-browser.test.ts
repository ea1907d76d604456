/**
 * report.html in a real browser: Debian's chromium (/usr/bin/chromium), driven by playwright-core, which
 * downloads no browser of its own. The page opens from file:// with no console error, no page error and no
 * request but the file itself (and its data: URIs); every image is decoded; every chart of results.json is
 * there; a click on a page-map cell draws that page; projector mode enlarges the type; the print style
 * shows the page maps' PNGs. Screenshots go to out/browser/ (CI keeps them as artifacts).
 *
 * Without /usr/bin/chromium the tests are skipped and say why, unless CI or ROWSIM_REQUIRE_BROWSER=1 is
 * set: then they fail (.ci/run installs chromium and sets ROWSIM_REQUIRE_BROWSER=1).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { rowsim } from './helpers/cli.js';
import { growingBodyConfig } from './helpers/growing-body.js';
import { CHROMIUM, SHOTS, browserOrReason, browserPresent, openInChromium } from './helpers/browser.js';

/** Two points, a reorg (so a page map before it and one at the end), tables of more pages than a report map has cells (several pages a cell). */
const CONFIG = growingBodyConfig({
  name: 'browser',
  seed: 7,
  rows: 40000,
  order: 'random',
  grow: [40, 120],
  sweep: { 'engine.exp_row_size': '[1, max]' },
});

browserOrReason('report.html in a browser');

describe.skipIf(!browserPresent)(`report.html in a browser${browserPresent ? '' : ` (skipped: ${CHROMIUM} not found)`}`, () => {
  let browser: Browser;
  let page: Page;
  let file: string;
  let results: { charts: string[] };
  let consoleErrors: string[] = [];
  let pageErrors: string[] = [];
  let foreign: string[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-browser-'));
    writeFileSync(join(dir, 'browser.yaml'), CONFIG);
    const r = rowsim(['run', join(dir, 'browser.yaml'), '--out', join(dir, 'out'), '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    file = join(dir, 'out', 'report.html');
    results = JSON.parse(readFileSync(join(dir, 'out', 'results.json'), 'utf8')) as { charts: string[] };
    ({ browser, page, consoleErrors, pageErrors, foreign } = await openInChromium(file, { width: 1280, height: 900 }));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('opens with no console error, no page error and no request but the file and its data: URIs', async () => {
    await page.screenshot({ path: join(SHOTS, 'report.png') });
    expect(await page.title()).toBe('rowsim: browser');
    expect(consoleErrors).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(foreign).toEqual([]);
  });

  it('decodes every image, and every chart of results.json is in the page', async () => {
    const images = await page.$$eval('img', (imgs) =>
      imgs.map((i) => ({
        chart: i.getAttribute('data-chart'),
        src: i.getAttribute('src')!.slice(0, 22),
        width: i.naturalWidth,
        height: i.naturalHeight,
      })),
    );
    expect(images.length).toBeGreaterThanOrEqual(results.charts.length);
    for (const img of images) {
      expect(img.src, String(img.chart)).toBe('data:image/png;base64,');
      expect(img.width, String(img.chart)).toBeGreaterThan(0);
      expect(img.height, String(img.chart)).toBeGreaterThan(0);
    }
    expect(new Set(images.map((i) => i.chart))).toEqual(new Set(results.charts));
    // Every page map (one per PNG of one) is a grid of cells.
    const maps = await page.$$eval('section.pagemap', (s) =>
      s.map((m) => ({ chart: m.getAttribute('data-chart'), cells: m.querySelectorAll('.pm-grid rect.cell').length })),
    );
    expect(maps.map((m) => m.chart)).toEqual(results.charts.filter((c) => c.startsWith('charts/pagemap-')));
    for (const m of maps) {
      expect(m.cells).toBeGreaterThan(0);
      expect(m.cells).toBeLessThanOrEqual(1000);
    }
    // The glossary's terms are tooltips on the column names.
    expect(await page.locator('th abbr.term[title^="forwarded row:"]').count()).toBeGreaterThan(0);
  });

  it('a click on a page-map cell (or an arrow key) draws that page in the panel', async () => {
    const map = page.locator('section.pagemap').first();
    const data = JSON.parse((await page.locator('#pagemap-0-cells').textContent())!) as { cellPages: number; pages: number };
    expect(data.cellPages).toBeGreaterThan(1); // several pages a cell
    const cell = 7;
    await map.locator(`rect.cell[data-cell="${cell}"]`).click();
    const first = cell * data.cellPages;
    await expect.poll(() => map.locator('.pm-panel .cellinfo').getAttribute('data-page')).toBe(String(first));
    const drawing = map.locator('.pm-panel .drawing svg');
    await drawing.waitFor({ timeout: 10_000 });
    expect(await drawing.getAttribute('aria-label')).toMatch(new RegExp(`\\b${first}\\b`));
    const box = await drawing.boundingBox();
    expect(box!.width).toBeGreaterThan(100);
    expect(await map.locator('rect.cell.sel').getAttribute('data-cell')).toBe(String(cell));
    await map.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'report-page-drawing.png') });
    // Another cell replaces the drawing.
    await map.locator('rect.cell[data-cell="0"]').click();
    await expect.poll(() => map.locator('.pm-panel .cellinfo').getAttribute('data-page')).toBe('0');
    await map.locator('.pm-panel .drawing svg').waitFor({ timeout: 10_000 });
    // The keyboard: the arrow keys move from cell to cell.
    await map.locator('.pm-grid svg').press('ArrowRight');
    await expect.poll(() => map.locator('.pm-panel .cellinfo').getAttribute('data-page')).toBe(String(data.cellPages));
    expect(consoleErrors).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('projector mode (the p key, the button) enlarges the type', async () => {
    const size = () => page.evaluate(() => parseFloat(getComputedStyle(document.querySelector('main p')!).fontSize));
    const normal = await size();
    await page.keyboard.press('p');
    const large = await size();
    expect(large).toBeGreaterThan(normal * 1.3);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(SHOTS, 'report-projector.png') });
    await page.click('#projector');
    expect(await size()).toBe(normal);
    expect(await page.getAttribute('#projector', 'aria-pressed')).toBe('false');
  });

  it('prints the page maps as their PNGs, without the buttons', async () => {
    await page.emulateMedia({ media: 'print' });
    const shown = (sel: string) => page.$$eval(sel, (els) => els.map((e) => e.checkVisibility()));
    expect(new Set(await shown('.pm-png'))).toEqual(new Set([true]));
    expect(new Set(await shown('.pm-body'))).toEqual(new Set([false]));
    expect(await shown('#projector')).toEqual([false]);
    await page.emulateMedia({ media: 'screen' });
  });
});
