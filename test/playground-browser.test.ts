/**
 * The playground page in a real browser (Debian's chromium through playwright-core), opened from
 * file:// offline (the context is offline and every request but the file is refused): for every teaching
 * config the counters it shows are the cells `rowsim run --wide` prints and its results are the CLI's
 * results.json; stepping forward and back moves the narration; an edit (the knob, an added phase) gives
 * what `rowsim run` gives for the YAML the page then shows; a second format side by side; and the
 * address's #state opens the same moment in a new page. Screenshots in out/browser/ (playground-*.png).
 * Skipped without /usr/bin/chromium unless CI or ROWSIM_REQUIRE_BROWSER=1 is set.
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ROOT, rowsim, terminalRows } from './helpers/cli.js';
import { CHROMIUM, SHOTS, browserOrReason, browserPresent } from './helpers/browser.js';

const TEACHING = join(ROOT, 'sim-configs', 'teaching');
const configs = readdirSync(TEACHING)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

browserOrReason('the playground in a browser');

/** `rowsim run --wide` of a config file: its results.json entries and its table's rows. */
function cliRun(file: string, out: string): { entries: unknown[]; rows: string[][] } {
  const r = rowsim(['run', file, '--out', out, '--wide'], ROOT, { COLUMNS: '400' });
  expect(r.code, r.stderr).toBe(0);
  return {
    entries: (JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { storage: unknown[] }).storage,
    rows: terminalRows(r.stdout),
  };
}

describe.skipIf(!browserPresent)(`the playground in a browser${browserPresent ? '' : ` (skipped: ${CHROMIUM} not found)`}`, () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let dir = '';
  let url = '';
  const errors: string[] = [];
  const refused: string[] = [];

  async function open(address: string): Promise<Page> {
    const p = await context.newPage();
    p.on('pageerror', (e) => errors.push(e.message));
    p.on('console', (m) => (m.type() === 'error' ? errors.push(m.text()) : undefined));
    await p.goto(address, { waitUntil: 'load' });
    await p.waitForSelector('#pane-a');
    return p;
  }
  /** The shown counters' rows, empty cells left out (the terminal shows them as blanks). */
  const counters = (p: Page, id: string) =>
    p.$$eval(`#counters-${id} tbody tr`, (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '').filter((c) => c !== '')),
    );
  const entries = (p: Page) =>
    p.evaluate(() => {
      const r = (
        window as unknown as { rowsimPlayground: { results(): { ok: boolean; points?: { entry: unknown }[] }[] } }
      ).rowsimPlayground.results()[0]!;
      return r.ok ? r.points!.map((x) => x.entry) : null;
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rowsim-playground-browser-'));
    const r = rowsim(['playground', '--out', join(dir, 'site'), '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    url = pathToFileURL(join(dir, 'site', 'index.html')).href;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM });
    context = await browser.newContext({ viewport: { width: 1500, height: 1000 }, offline: true });
    await context.route(
      (u) => u.protocol !== 'file:',
      (route) => (refused.push(route.request().url()), route.abort()),
    );
    page = await open(url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    expect(errors).toEqual([]);
    expect(refused).toEqual([]);
  });

  it.each(configs)(
    '%s: the counters and results are rowsim run’s',
    async (f) => {
      const cli = cliRun(join(TEACHING, f), join(dir, f));
      await page.selectOption('#config', `teaching/${f}`);
      await page.waitForFunction((name) => document.querySelector('#pane-a h2')?.textContent?.startsWith(name), `teaching/${f}`);
      expect(await counters(page, 'a')).toEqual(cli.rows);
      expect(await entries(page)).toEqual(cli.entries);
      await page.click('#next-a');
      await page.screenshot({ path: join(SHOTS, `playground-${f.replace('.yaml', '')}.png`) });
    },
    120_000,
  );

  it('steps forward and back, and an edit gives what rowsim run gives for the YAML shown', async () => {
    await page.selectOption('#config', 'teaching/ase-forwarding.yaml');
    await page.click('#first-a');
    const first = await page.textContent('#what-a');
    await page.click('#next-a');
    expect(await page.textContent('#step-a')).toMatch(/^step 2 \/ 19$/);
    expect(await page.textContent('#what-a')).not.toBe(first);
    await page.click('#back-a');
    expect(await page.textContent('#what-a')).toBe(first);
    // The knob, then a phase: delete two rows.
    await page.fill('#knob', '252');
    await page.dispatchEvent('#knob', 'change');
    await page.fill('#op-rows', '2');
    await page.click('#op-delete');
    await page.waitForFunction(() => (document.querySelector('#config') as HTMLSelectElement | null)?.value === 'custom');
    expect(await page.textContent('#pane-a .steps')).toContain('phase 3: delete');
    const yaml = await page.inputValue('#yaml');
    expect(yaml).toContain('exp_row_size: 252');
    const file = join(dir, 'edited.yaml');
    writeFileSync(file, yaml);
    const cli = cliRun(file, join(dir, 'edited'));
    expect(await counters(page, 'a')).toEqual(cli.rows);
    expect(await entries(page)).toEqual(cli.entries);
    await page.screenshot({ path: join(SHOTS, 'playground-edited.png') });
  }, 120_000);

  it('compares two formats side by side, and #state opens the same moment elsewhere', async () => {
    await page.selectOption('#config', 'teaching/ase-forwarding.yaml');
    await page.selectOption('#compare', 'postgres-heap');
    await page.click('#last-a');
    await page.waitForSelector('#counters-b');
    expect(await page.textContent('#pane-b h2')).toContain('postgres-heap');
    const b = await counters(page, 'b');
    expect(b).toHaveLength(1);
    expect(b[0]).toContain('postgres-heap');
    await page.screenshot({ path: join(SHOTS, 'playground-compare.png'), fullPage: true });
    const shared = page.url();
    expect(shared).toMatch(/#state=[A-Za-z0-9_-]+$/);
    const other = await open(shared);
    for (const id of ['#step-a', '#what-a', '#step-b', '#what-b']) expect(await other.textContent(id)).toBe(await page.textContent(id));
    expect(await other.inputValue('#compare')).toBe('postgres-heap');
    await other.close();
  }, 120_000);
});
