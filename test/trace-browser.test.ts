/**
 * The trace's slide deck in a real browser (Debian's chromium through playwright-core, as
 * test/report-browser.test.ts): it opens from file:// with no console or page error and no request but
 * itself; the arrow keys (and Home / End) move one slide; every drawing on a slide is drawn (a non-empty
 * box). Screenshots go to out/browser/. Skipped without /usr/bin/chromium unless CI or
 * ROWSIM_REQUIRE_BROWSER=1 is set, where it fails.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ROOT, rowsim } from './helpers/cli.js';

const CHROMIUM = '/usr/bin/chromium';
const ci = process.env.CI !== undefined && !['', '0', 'false'].includes(process.env.CI);
const required = ci || process.env.ROWSIM_REQUIRE_BROWSER === '1';
const present = existsSync(CHROMIUM);
const SHOTS = join(ROOT, 'out', 'browser');

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

describe.runIf(!present && required)('the trace deck in a browser', () => {
  it(`needs ${CHROMIUM} (CI or ROWSIM_REQUIRE_BROWSER=1 is set)`, () => {
    expect.fail(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium (.ci/run does)`);
  });
});

describe.skipIf(!present)(`the trace deck in a browser${present ? '' : ` (skipped: ${CHROMIUM} not found)`}`, () => {
  let browser: Browser;
  let page: Page;
  let slides = 0;
  const errors: string[] = [];
  const foreign: string[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-deck-'));
    writeFileSync(join(dir, 'deck.yaml'), CONFIG);
    const r = rowsim(['trace', join(dir, 'deck.yaml'), '--out', join(dir, 'trace'), '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const file = join(dir, 'trace', 'trace.html');
    mkdirSync(SHOTS, { recursive: true });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM });
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    const self = pathToFileURL(file).href;
    page.on('request', (req) => {
      if (req.url().split('#')[0] !== self && !req.url().startsWith('data:')) foreign.push(req.url());
    });
    await page.goto(self);
    slides = await page.locator('section.slide').count();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  const visible = () => page.evaluate(() => Array.from(document.querySelectorAll('section.slide')).findIndex((s) => s.classList.contains('on')));

  it('opens on the title slide with no error and no request but itself', async () => {
    expect(slides).toBeGreaterThan(4);
    expect(await visible()).toBe(0);
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
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
    expect(errors).toEqual([]);
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
