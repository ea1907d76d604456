/**
 * The report's pictures and page: a page map drawn as a PNG (bench/pagemap-child.ts, fresh processes:
 * its first six maps and the later ones, CPU time), and report.html of sim-configs/ase-exp-row-size.yaml:
 * its size and how long it takes to open in headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core: a devDependency, so only here and in the tests). Aims: under 5 MB, under 2 s. The
 * Chromium lines are skipped, saying so, where chromium is not installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stat, summarize, timingNote, type BenchLine, type Sample } from './harness.js';
import { FIRST_MAPS, PAGEMAP_MARK, WARM_MAPS, type PageMapChildReport } from './pagemap-child.js';
import type { SuiteContext } from './suite.js';
import { BENCH_DIST, ROOT } from './paths.js';

const CHROMIUM = '/usr/bin/chromium';
const RUNS = 5;

/** One fresh process drawing the bench's page map (pagemap-child.ts). */
function pageMapChild(): PageMapChildReport {
  const r = spawnSync(process.execPath, [join(BENCH_DIST, 'pagemap-child.js')], { encoding: 'utf8' });
  const line = r.stdout.split('\n').find((l) => l.startsWith(PAGEMAP_MARK));
  if (r.status !== 0 || !line) throw new Error(`the page map child failed (status ${r.status}): ${r.stderr}`);
  return JSON.parse(line.slice(PAGEMAP_MARK.length)) as PageMapChildReport;
}

const ms1 = (v: number): number => Math.round(v * 10) / 10;

export async function* benchReport(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  const runs = ctx.runsGiven ? ctx.runs : RUNS;
  pageMapChild(); // warm-up: the file cache
  const children = Array.from({ length: runs }, pageMapChild);
  const firsts = stat(children.map((c) => c.first.reduce((a, b) => a + b, 0)));
  const each = Array.from({ length: FIRST_MAPS }, (_, i) => ms1(stat(children.map((c) => c.first[i]!)).median));
  const warm = stat(children.map((c) => c.warm));
  yield {
    name: `report: a page map of 1,849 pages with marks drawn as a PNG, its first ${FIRST_MAPS} in a fresh process, CPU time in all`,
    value: Math.round(firsts.median),
    unit: 'ms',
    note: `median of ${runs} processes, min ${Math.round(firsts.min)}; each map's median ${each.join(', ')} ms; a rowsim run's drawing thread pays these first`,
    detail: { children },
  };
  yield {
    name: `report: the same page map drawn once warm (the ${WARM_MAPS} after the first ${FIRST_MAPS}), CPU time a map`,
    value: ms1(warm.median),
    unit: 'ms',
    note: `median of ${runs} processes, min ${ms1(warm.min)}; PNG ${Math.round(children[0]!.bytes / 1000)} kB`,
  };
  if (!existsSync(CHROMIUM)) {
    yield {
      name: 'report: ase-exp-row-size report.html open time in headless Chromium',
      value: null,
      unit: 's',
      note: `skipped: ${CHROMIUM} not found (apt-get install chromium; .ci/run does)`,
    };
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-bench-report-'));
  try {
    const out = join(dir, 'out');
    const r = spawnSync(
      process.execPath,
      [join(ROOT, 'bin', 'rowsim.js'), 'run', join(ROOT, 'sim-configs', 'ase-exp-row-size.yaml'), '--out', out, '--quiet'],
      { encoding: 'utf8' },
    );
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
