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
import { median } from '../contention/stats.js';
import type { BenchLine } from './storage.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHROMIUM = '/usr/bin/chromium';
const RUNS = 5;

export async function benchReport(): Promise<BenchLine[]> {
  if (!existsSync(CHROMIUM)) {
    process.stdout.write(`report: skipped: ${CHROMIUM} not found (apt-get install chromium; .ci/run does)\n`);
    return [];
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
    const samples: number[] = [];
    try {
      for (let i = 0; i <= RUNS; i++) {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        const t0 = performance.now();
        await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
        // Opened: loaded (every image, every page map's grid: the script runs before load) and painted.
        await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
        const ms = performance.now() - t0;
        if (i > 0) samples.push(ms); // the first warms the browser's caches
        await page.close();
      }
    } finally {
      await browser.close();
    }
    const s = median(samples) / 1000;
    return [
      {
        name: 'report: ase-exp-row-size report.html size / open time in headless Chromium',
        value: Math.round(mb * 100) / 100,
        unit: `MB / ${s.toFixed(2)} s`,
        note: `aim < 5 MB / < 2 s; open = navigation to the load event and the first frame after it, median of ${RUNS} after a warm-up, ${(Math.min(...samples) / 1000).toFixed(2)}–${(Math.max(...samples) / 1000).toFixed(2)} s`,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
