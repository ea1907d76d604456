/**
 * The browser tests' common ground: Debian's chromium (/usr/bin/chromium) driven by playwright-core, which
 * downloads no browser. Without chromium a browser test is skipped and says why, unless CI or
 * ROWSIM_REQUIRE_BROWSER=1 is set (as .ci/run does): then it fails.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ROOT } from './cli.js';

export const CHROMIUM = '/usr/bin/chromium';
/** Screenshots, kept by CI as artifacts. */
export const SHOTS = join(ROOT, 'out', 'browser');
const ci = process.env.CI !== undefined && !['', '0', 'false'].includes(process.env.CI);
export const browserRequired = ci || process.env.ROWSIM_REQUIRE_BROWSER === '1';
export const browserPresent = existsSync(CHROMIUM);

/** Say why `what` is skipped, or fail it where a browser is required; call once at the top of a browser test file. */
export function browserOrReason(what: string): void {
  if (browserPresent) return;
  process.stderr.write(
    `${what}: ${CHROMIUM} not found (apt-get install chromium); ${browserRequired ? 'required here (CI or ROWSIM_REQUIRE_BROWSER=1): failing' : 'skipped (CI=1 or ROWSIM_REQUIRE_BROWSER=1 makes this a failure)'}\n`,
  );
  describe.runIf(browserRequired)(what, () => {
    it(`needs ${CHROMIUM} (CI or ROWSIM_REQUIRE_BROWSER=1 is set)`, () => {
      expect.fail(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium (.ci/run does)`);
    });
  });
}

export interface OpenedPage {
  browser: Browser;
  page: Page;
  consoleErrors: string[];
  pageErrors: string[];
  /** Requests for anything but the file itself (any #fragment) and data: URIs. */
  foreign: string[];
}

/** Open a local HTML file in chromium, recording console errors, page errors and foreign requests. */
export async function openInChromium(file: string, viewport: { width: number; height: number }): Promise<OpenedPage> {
  mkdirSync(SHOTS, { recursive: true });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  const page = await browser.newPage({ viewport });
  const opened: OpenedPage = { browser, page, consoleErrors: [], pageErrors: [], foreign: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') opened.consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => opened.pageErrors.push(e.message));
  const self = pathToFileURL(file).href;
  page.on('request', (req) => {
    if (req.url().split('#')[0] !== self && !req.url().startsWith('data:')) opened.foreign.push(req.url());
  });
  await page.goto(self, { waitUntil: 'load' });
  return opened;
}
