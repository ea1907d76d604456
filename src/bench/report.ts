/**
 * report.html of sim-configs/ase-exp-row-size.yaml: its size and how long it takes to open in headless
 * Chromium (Debian's /usr/bin/chromium, driven by playwright-core: a devDependency, so only here and in
 * the tests). Aims: under 5 MB, under 2 s. Skipped, saying so, where chromium is not installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { summarize, timingNote, type BenchLine, type Sample } from './harness.js';
import type { SuiteContext } from './suite.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = '/usr/bin/chromium';
const RUNS = 5;

export async function* benchReport(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  const runs = ctx.runsGiven ? ctx.runs : RUNS;
  if (!existsSync(CHROMIUM)) {
    yield { name: 'report: ase-exp-row-size report.html open time in headless Chromium', value: null, unit: 's', note: `skipped: ${CHROMIUM} not found (apt-get install chromium; .ci/run does)` };
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-bench-report-'));
  try {
    const out = join(dir, 'out');
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'rowsim.js'), 'run', join(ROOT, 'sim-configs', 'ase-exp-row-size.yaml'), '--out', out, '--quiet'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`rowsim run failed (status ${r.status}): ${r.stderr}`);
    const file = join(out, 'report.html');
    const mb = statSync(file).size / 1e6;
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM });
    const samples: Sample[] = [];
    try {
      for (let i = 0; i <= runs; i++) {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        const t0 = performance.now();
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
        // Opened: loaded (every image, every page map's grid: the script runs before load) and painted.
        await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
        const wall = (performance.now() - t0) / 1000;
        if (i > 0) samples.push({ wall }); // the first warms the browser's caches; the browser's CPU is not read
        await page.close();
      }
    } finally {
      await browser.close();
    }
    const m = summarize(samples, { runs, warmup: 1 });
    yield { name: 'report: ase-exp-row-size report.html size', value: Math.round(mb * 100) / 100, unit: 'MB', note: 'aim < 5 MB' };
    yield {
      name: 'report: ase-exp-row-size report.html open time in headless Chromium',
      value: Math.round(m.wall.median * 100) / 100,
      unit: 's wall',
      note: `aim < 2 s; open = navigation to the load event and the first frame after it, in a new page of one browser; ${timingNote(m)}`,
      measurement: m,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
