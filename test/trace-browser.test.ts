/**
 * The trace's slide decks in a real browser (Debian's chromium through playwright-core, as
 * test/report-browser.test.ts): every slide of every teaching config's deck fits one 16:9 screen at
 * 1280×720 and at 1920×1080 (nothing scrolls: the document is no taller or wider than the window, and
 * every drawing lies inside it, before and after side by side); every drawing fills its panel (≥ 90% of
 * its width or height, ≥ 80% of the other), its row ids are ≥ 16 px at 1280×720, its stubs carry their
 * row's id and it outlines the rows the step changed that it holds; the keys a presenter's clicker sends, the
 * arrows, Home / End, a click and an edited #N move as docs/teaching.md says, and a slide always opens at
 * its top. It opens from file:// with no console or page error and no request but itself. Screenshots go to
 * out/browser/. Skipped without /usr/bin/chromium unless CI or ROWSIM_REQUIRE_BROWSER=1 is set.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { loadConfig } from '../src/loader/config.js';
import { ROOT, rowsim } from './helpers/cli.js';
import { CHROMIUM, SHOTS, browserOrReason, browserPresent, openInChromium, type OpenedPage } from './helpers/browser.js';

const TEACHING = join(ROOT, 'sim-configs', 'teaching');
/** Every teaching config's every sweep point: its deck's file. */
const decks: { name: string; file: string }[] = [];
/** Two decks lettered for the back row (--scale 1.4): three drawings a slide, and four. */
const scaled: { name: string; file: string }[] = [];
/** Slides worth a screenshot: config, point, step (the lesson's key moments). */
const SHOT_STEPS: Record<string, number[]> = {
  'trace-exp-row-size-1': [14, 15],
  'trace-exp-row-size-252': [14, 15],
  'trace-fillfactor-70': [21, 25, 26],
  'trace-fillfactor-100': [21],
  'trace-pfs-bands-on': [9, 11],
  'trace-pctfree-0': [25],
  'trace-base': [22],
};

browserOrReason('the trace decks in a browser');

describe.skipIf(!browserPresent)(`the trace decks in a browser${browserPresent ? '' : ` (skipped: ${CHROMIUM} not found)`}`, () => {
  let browser: Browser;
  let page: Page;
  let opened: OpenedPage;
  /** Requests for anything but the decks themselves (the test opens one deck after another). */
  const foreign = () => opened.foreign.filter((u) => ![...decks, ...scaled].some((d) => u.split('#')[0] === `file://${d.file}`));
  const errors = () => [...opened.consoleErrors, ...opened.pageErrors];

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-decks-'));
    for (const f of readdirSync(TEACHING).filter((x) => x.endsWith('.yaml'))) {
      const out = join(dir, f.replace('.yaml', ''));
      for (const p of loadConfig(join(TEACHING, f)).storage) {
        const r = rowsim(['trace', join(TEACHING, f), '--point', p.label, '--out', out, '--quiet']);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
      }
      for (const d of readdirSync(out).filter((x) => x.endsWith('.html')))
        decks.push({ name: `${f.replace('.yaml', '')}/${d}`, file: join(out, d) });
    }
    for (const [f, point] of [
      ['ase-forwarding.yaml', 'exp_row_size=1'],
      ['postgres-hot.yaml', 'fillfactor=100'],
    ] as const) {
      const out = join(dir, 'scaled');
      const r = rowsim(['trace', join(TEACHING, f), '--point', point, '--out', out, '--scale', '1.4', '--quiet']);
      expect(r.code, r.stderr).toBe(0);
      const name = `trace-${point.replace(/[=_]/g, '-')}.html`;
      scaled.push({ name: `scaled/${name}`, file: join(out, name) });
    }
    opened = await openInChromium(decks[0]!.file, { width: 1280, height: 720 });
    ({ browser, page } = opened);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
  });

  const visible = () =>
    page.evaluate(() => Array.from(document.querySelectorAll('section.slide')).findIndex((s) => s.classList.contains('on')));

  /**
   * Each of a deck's first `count` slides in turn, from the slide shown, moved to by the deck's own key handler
   * (an ArrowRight keydown, as a presenter's key sends it; one round trip for the deck): what overflows the
   * window, the document or a drawing outside it; and each drawing: its box, the part the viewBox fills and its
   * panel (the figure), the smallest row id in CSS pixels, the rows its stubs hold and the rows their ids name,
   * and the highlighted rows it holds without an outline.
   */
  const fits = (count: number) =>
    page.evaluate((n) => {
      const measure = () => {
        const d = document.documentElement;
        const on = document.querySelector('section.slide.on')!;
        const lit = (on.getAttribute('data-rows') ?? '').split(',').filter((x) => x !== '');
        const boxes = Array.from(on.querySelectorAll('figure svg')).map((s) => {
          const r = s.getBoundingClientRect();
          const panel = s.closest('figure')!.getBoundingClientRect();
          // The drawing as drawn: the viewBox fitted into the element's box.
          const vb = (s as SVGSVGElement).viewBox.baseVal;
          const k = Math.min(r.width / vb.width, r.height / vb.height);
          const ids = Array.from(s.querySelectorAll('text.rid')) as SVGTextElement[];
          const px = ids.map((t) => Number(t.getAttribute('font-size')) * t.getScreenCTM()!.a);
          const titles = Array.from(s.querySelectorAll('rect > title')).map((t) => t.textContent ?? '');
          const rowsHeld = new Set(titles.flatMap((t) => /^(?:stub of )?row (\d+):/.exec(t)?.[1] ?? []));
          const stubs = [...new Set(titles.flatMap((t) => /^stub of row (\d+):/.exec(t)?.[1] ?? []))].sort();
          const stubIds = [
            ...new Set(ids.filter((t) => t.classList.contains('stub')).map((t) => (t.textContent ?? '').replace('→', ''))),
          ].sort();
          const outlined = s.querySelectorAll('rect[stroke="#ffd400"]').length;
          return {
            left: r.left,
            top: r.top,
            right: r.right,
            bottom: r.bottom,
            w: vb.width * k,
            h: vb.height * k,
            panelW: panel.width,
            panelH: panel.height,
            rects: s.querySelectorAll('rect').length,
            idPx: px.length ? Math.min(...px) : Infinity,
            stubs,
            stubIds,
            unlit: lit.some((row) => rowsHeld.has(row)) && outlined === 0,
          };
        });
        const shown = Array.from(document.querySelectorAll('section.slide')).indexOf(on);
        return { shown, sh: d.scrollHeight, sw: d.scrollWidth, ih: window.innerHeight, iw: window.innerWidth, sy: window.scrollY, boxes };
      };
      const out: ReturnType<typeof measure>[] = [];
      for (let i = 0; i < n; i++) {
        if (i > 0) document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight' }));
        out.push(measure());
      }
      return out;
    }, count);
  type Fit = Awaited<ReturnType<typeof fits>>[number];

  /** The figures of one slide at one window size that break the rules: fit, size, row ids, outlines. */
  function drawingProblems(where: string, f: Fit, width: number, minPx = 16): string[] {
    const bad: string[] = [];
    for (const b of f.boxes) {
      if (b.bottom > f.ih + 0.5 || b.right > f.iw + 0.5) bad.push(`${where}: a drawing reaches ${b.right}×${b.bottom}`);
      if (b.w < 200 || b.h < 200 || b.rects < 5)
        bad.push(`${where}: a drawing drawn ${b.w.toFixed(0)}×${b.h.toFixed(0)} with ${b.rects} rects`);
      // The drawing fills its panel: nearly its whole width or height, and most of the other.
      const fw = b.w / b.panelW;
      const fh = b.h / b.panelH;
      fills.push(Math.max(fw, fh), Math.min(fw, fh));
      if (Math.max(fw, fh) < 0.9 || Math.min(fw, fh) < 0.8)
        bad.push(`${where}: a drawing fills ${(fw * 100).toFixed(0)}% × ${(fh * 100).toFixed(0)}% of its panel`);
      // Row ids the back row reads: 16 px at 1280×720 (24 at 1920×1080).
      idPx.push((b.idPx * 1280) / width);
      if (b.idPx < (minPx * width) / 1280) bad.push(`${where}: a row id ${b.idPx.toFixed(1)} px high`);
      if (b.stubs.join() !== b.stubIds.join()) bad.push(`${where}: stubs of rows ${b.stubs} labelled ${b.stubIds}`);
      if (b.unlit) bad.push(`${where}: a drawing holds a row the step changed but outlines none`);
    }
    return bad;
  }
  /** Every drawing's fill of its panel (the larger and the smaller side) and its smallest row id at 1280×720. */
  const fills: number[] = [];
  const idPx: number[] = [];

  /**
   * Every slide of a deck in turn (→ from #0), measured: the problems of its fit and drawings at `width`
   * (row ids at least `minPx` at 1280×720), and `visit` for what a test checks beside them.
   */
  async function slideProblems(
    deck: { name: string; file: string },
    width: number,
    minPx: number,
    visit: (i: number, f: Fit, where: string) => Promise<string[]> | string[] = () => [],
  ): Promise<string[]> {
    const bad: string[] = [];
    await page.goto(`file://${deck.file}#0`);
    const slides = await page.locator('section.slide').count();
    const all = await fits(slides);
    expect(all).toHaveLength(slides);
    for (let i = 0; i < slides; i++) {
      const f = all[i]!;
      const where = `${deck.name} slide ${i}`;
      if (f.shown !== i) bad.push(`${where}: slide ${f.shown} is shown`);
      if (f.sh > f.ih || f.sw > f.iw) bad.push(`${where}: the document is ${f.sw}×${f.sh} in a ${f.iw}×${f.ih} window`);
      bad.push(...drawingProblems(where, f, width, minPx), ...(await visit(i, f, where)));
    }
    return bad;
  }

  for (const size of [
    { width: 1280, height: 720 },
    { width: 1920, height: 1080 },
  ])
    it(`every slide of every teaching deck fits ${size.width}×${size.height} without scrolling`, { timeout: 300_000 }, async () => {
      await page.setViewportSize(size);
      const bad: string[] = [];
      for (const deck of decks) {
        const stem = deck.name.split('/')[1]!.replace('.html', '');
        const found = await slideProblems(deck, size.width, 16, async (i, f, where) => {
          if (size.width === 1280 && (SHOT_STEPS[stem] ?? []).includes(i)) {
            await page.evaluate((at) => {
              location.hash = `#${at}`;
            }, i);
            await page.waitForFunction((at) => document.querySelector('section.slide.on')?.getAttribute('data-step') === String(at), i);
            await page.screenshot({ path: join(SHOTS, `${deck.name.split('/')[0]}-${stem}-step-${i}.png`) });
          }
          // Before and after side by side: a slide's drawings share their top edge (one row of them).
          const tops = new Set(f.boxes.map((b) => Math.round(b.top)));
          return f.boxes.length > 0 && f.boxes.length <= 3 && tops.size !== 1 ? [`${where}: its drawings are not side by side`] : [];
        });
        bad.push(...found);
      }
      process.stdout.write(
        `${size.width}×${size.height}: ${fills.length / 2} drawings fill ≥ ${(Math.min(...fills.filter((_, i) => i % 2 === 0)) * 100).toFixed(0)}% of their panel one way and ≥ ${(Math.min(...fills.filter((_, i) => i % 2 === 1)) * 100).toFixed(0)}% the other; row ids ≥ ${Math.min(...idPx).toFixed(1)} px at 1280×720\n`,
      );
      fills.length = 0;
      idPx.length = 0;
      expect(bad, bad.slice(0, 20).join('\n')).toEqual([]);
      expect(errors()).toEqual([]);
      expect(foreign()).toEqual([]);
    });

  it('letters --scale 1.4 decks larger, and they still fit 1280×720 and fill their panels', { timeout: 120_000 }, async () => {
    await page.setViewportSize({ width: 1280, height: 720 });
    const bad: string[] = [];
    for (const deck of scaled) {
      expect(existsSync(deck.file), deck.file).toBe(true);
      bad.push(...(await slideProblems(deck, 1280, 20)));
    }
    fills.length = 0;
    idPx.length = 0;
    expect(bad, bad.slice(0, 20).join('\n')).toEqual([]);
  });

  it('moves as a presenter expects: arrows, Space, Page Up / Down, Home / End, a click, an edited #N; every slide opens at its top', async () => {
    await page.setViewportSize({ width: 1280, height: 720 });
    const deck = decks.find((d) => d.name.endsWith('trace-exp-row-size-1.html'))!;
    await page.goto(`file://${deck.file}#0`);
    const slides = await page.locator('section.slide').count();
    expect(await visible()).toBe(0);
    for (const [key, want] of [
      ['ArrowRight', 1],
      ['Space', 2],
      ['PageDown', 3],
      ['Enter', 4],
      ['PageUp', 3],
      ['ArrowLeft', 2],
      ['Backspace', 1],
    ] as const) {
      await page.keyboard.press(key);
      expect(await visible(), key).toBe(want);
    }
    await page.mouse.click(640, 400);
    expect(await visible()).toBe(2);
    await page.keyboard.press('End');
    expect(await visible()).toBe(slides - 1);
    await page.keyboard.press('ArrowRight');
    expect(await visible()).toBe(slides - 1);
    await page.keyboard.press('Home');
    expect(await visible()).toBe(0);
    // The address names the step shown; editing it moves there (hashchange).
    await page.keyboard.press('ArrowRight');
    expect(new URL(page.url()).hash).toBe('#1');
    await page.evaluate(() => {
      location.hash = '#14';
    });
    await page.waitForFunction(() => document.querySelector('section.slide.on')?.getAttribute('data-step') === '14');
    expect(await page.locator('section.slide.on h2, section.slide.on .bar').first().textContent()).toContain('Step 14');
    // A slide opens at its top even when the window had been scrolled.
    await page.evaluate(() => window.scrollTo(0, 500));
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    // Opened at #15 from the start.
    await page.goto(`file://${deck.file}#15`);
    expect(await visible()).toBe(15);
    expect(errors()).toEqual([]);
  });

  it('outlines the rows a step changed, before and after', async () => {
    const deck = decks.find((d) => d.name.endsWith('trace-exp-row-size-1.html'))!;
    await page.goto(`file://${deck.file}#14`);
    const outlined = await page.evaluate(() =>
      Array.from(document.querySelectorAll('section.slide.on figure svg')).map((s) => s.querySelectorAll('rect[stroke="#ffd400"]').length),
    );
    // Page 0 before (the row), after (its stub), page 1 after (the forwarded row).
    expect(outlined.length).toBe(3);
    for (const n of outlined) expect(n).toBeGreaterThan(0);
  });
});
