/**
 * The trace's slide deck in a real browser (Debian's chromium through playwright-core, as
 * test/report-browser.test.ts): it opens from file:// with no console or page error and no request but
 * itself; the arrow keys (and Home / End) move one slide; every drawing on a slide is drawn (a non-empty
 * box). Screenshots go to out/browser/. Skipped without /usr/bin/chromium unless CI or
 * ROWSIM_REQUIRE_BROWSER=1 is set, where it fails.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { rowsim } from './helpers/cli.js';
import { CHROMIUM, SHOTS, browserOrReason, browserPresent, openInChromium, type OpenedPage } from './helpers/browser.js';

const CONFIG = `name: deck
seed: 3
table:
  name: t
  columns:
    - { name: id, type: int }
    - { name: body, type: varchar(400), null: true }
engine: { format: ase-dol, page_size: 2k }
workload:
  - insert: { rows: 20, values: { body: { length: { uniform: [20, 60] } } } }
  - update: { rows: 8, order: random, set: { body: { length: { uniform: [200, 300] } } } }
  - reorg: forwarded_rows
`;

browserOrReason('the trace deck in a browser');

describe.skipIf(!browserPresent)(`the trace deck in a browser${browserPresent ? '' : ` (skipped: ${CHROMIUM} not found)`}`, () => {
  let browser: Browser;
  let page: Page;
  let slides = 0;
  let opened: OpenedPage;
  /** Errors so far, from the console and the page. */
  const errors = () => [...opened.consoleErrors, ...opened.pageErrors];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-deck-'));
    writeFileSync(join(dir, 'deck.yaml'), CONFIG);
    const r = rowsim(['trace', join(dir, 'deck.yaml'), '--out', join(dir, 'trace'), '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const file = join(dir, 'trace', 'trace.html');
    opened = await openInChromium(file, { width: 1600, height: 1000 });
    ({ browser, page } = opened);
    slides = await page.locator('section.slide').count();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  const visible = () =>
    page.evaluate(() => Array.from(document.querySelectorAll('section.slide')).findIndex((s) => s.classList.contains('on')));

  it('opens on the title slide with no error and no request but itself', async () => {
    expect(slides).toBeGreaterThan(4);
    expect(await visible()).toBe(0);
    expect(errors()).toEqual([]);
    expect(opened.foreign).toEqual([]);
  });

  it('moves one slide with each arrow key, to the ends with Home and End', async () => {
    for (let i = 1; i <= 3; i++) {
      await page.keyboard.press('ArrowRight');
      expect(await visible()).toBe(i);
    }
    await page.keyboard.press('ArrowLeft');
    expect(await visible()).toBe(2);
    await page.screenshot({ path: join(SHOTS, 'trace-deck-step.png') });
    await page.keyboard.press('End');
    expect(await visible()).toBe(slides - 1);
    await page.keyboard.press('ArrowRight');
    expect(await visible()).toBe(slides - 1);
    await page.keyboard.press('Home');
    expect(await visible()).toBe(0);
    expect(errors()).toEqual([]);
  });

  it('every slide of a step shows its drawings, before and after, with something drawn', async () => {
    for (let i = 1; i < slides - 1; i++) {
      await page.keyboard.press('ArrowRight');
      const boxes = await page.evaluate(() => {
        const on = document.querySelector('section.slide.on')!;
        return Array.from(on.querySelectorAll('svg')).map((s) => {
          const r = s.getBoundingClientRect();
          return { w: r.width, h: r.height, rects: s.querySelectorAll('rect').length };
        });
      });
      expect(boxes.length, `slide ${i}`).toBeGreaterThan(0);
      for (const b of boxes) {
        expect(b.w).toBeGreaterThan(100);
        expect(b.h).toBeGreaterThan(100);
        expect(b.rects).toBeGreaterThan(5);
      }
    }
    await page.screenshot({ path: join(SHOTS, 'trace-deck-last-step.png') });
  });
});
