/**
 * report.html on a 1280 × 720 projector, in Debian's chromium (test/helpers/browser.ts): a teaching
 * config, run after `rowsim trace` and `rowsim page` wrote their files beside the results. In normal
 * type and in projector mode nothing scrolls sideways (the page, and every table in its own box: the
 * columns that do not fit are under each row), the engine settings are a list, and the report links the
 * slide deck and the page drawing that exist.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ROOT, rowsim } from './helpers/cli.js';
import { CHROMIUM, SHOTS, browserOrReason, browserPresent, openInChromium } from './helpers/browser.js';

const CONFIG = join(ROOT, 'sim-configs', 'teaching', 'ase-forwarding.yaml');

browserOrReason('report.html on a 1280 × 720 projector');

describe.skipIf(!browserPresent)(
  `report.html on a 1280 × 720 projector${browserPresent ? '' : ` (skipped: ${CHROMIUM} not found)`}`,
  () => {
    let browser: Browser;
    let page: Page;
    let foreign: string[] = [];

    beforeAll(async () => {
      const out = join(mkdtempSync(join(tmpdir(), 'rowsim-projector-')), 'out');
      for (const args of [
        ['run', CONFIG, '--out', out, '--quiet'],
        ['trace', CONFIG, '--out', join(out, 'trace')],
        ['page', CONFIG, '--out', join(out, 'pages')],
        ['run', CONFIG, '--out', out, '--quiet'],
      ]) {
        const r = rowsim(args);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      }
      ({ browser, page, foreign } = await openInChromium(join(out, 'report.html'), { width: 1280, height: 720 }));
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
    });

    /** The page's width, and every table box whose content is wider than the box. */
    const widths = () =>
      page.evaluate(() => ({
        page: document.documentElement.scrollWidth,
        tables: [...document.querySelectorAll('div.table')].filter((t) => t.scrollWidth > t.clientWidth + 1).length,
        count: document.querySelectorAll('div.table').length,
      }));

    it('scrolls no table sideways at 1280 px, in normal type and in projector mode', async () => {
      expect(await widths()).toEqual({ page: 1280, tables: 0, count: expect.any(Number) });
      expect((await widths()).count).toBeGreaterThanOrEqual(3);
      // The point table keeps its most important columns, the others under each row, named.
      const head = await page.locator('div.table').first().locator('th').allTextContents();
      expect(head).toEqual(expect.arrayContaining(['point', 'pages', 'peak fwd %', 'fwd at end', 'scan reads']));
      await page.keyboard.press('p');
      expect(await widths()).toEqual({ page: 1280, tables: 0, count: expect.any(Number) });
      expect(await page.locator('tr.more').first().textContent()).toMatch(/index pages 1/);
      await page.locator('div.table').first().scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, 'report-projector-1280x720.png') });
      await page.keyboard.press('p');
    });

    it('lists the engine settings, short and readable', async () => {
      const items = await page.locator('div.settings').first().locator('ul.inline li').allTextContents();
      expect(items).toEqual([
        'ase-dol',
        'page 2 KiB',
        'exp_row_size 0 bytes (given 1)',
        'exp_row_size_basis physical',
        'compaction on',
        'enable_housekeeper_gc 1',
      ]);
      expect(await page.locator('main').textContent()).not.toMatch(/page_size = /);
    });

    it('links the slide deck and the page drawing beside the results, and requests nothing', async () => {
      const links = await page.$$eval('main a[href]', (as) => as.map((a) => a.getAttribute('href')!).filter((h) => !h.startsWith('#')));
      expect(links).toEqual(['trace/trace-exp-row-size-1.html', 'pages/page-exp-row-size-1-after-2-p0.svg']);
      expect(foreign).toEqual([]);
    });
  },
);
