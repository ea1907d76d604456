/**
 * A bench child process of the report suite: `node bench/dist/bench/pagemap-child.js`. Draws one page map as a
 * PNG, FIRST_MAPS times and then WARM_MAPS times more, in this fresh process, and prints one line,
 * PAGEMAP_MARK + JSON: the CPU milliseconds of each of the first maps (what a `rowsim run` thread pays:
 * its first maps load the fonts and compile the code) and the mean of the later ones.
 *
 * The map is shaped like the quickstart's before its reorg (1,849 pages of 2 kB, 20,000 rows): pages
 * 80–100% full, forwarding stubs on the first 1,053 pages and forwarded rows on the pages after page
 * 1,000 (both corner marks on some), the same fills every run (a fixed PRNG stream).
 */
import { renderPageMap, type PageMapSpec } from '../src/report/page-map-png.js';
import { Prng } from '../src/util/prng.js';

export const PAGEMAP_MARK = 'rowsim-bench-pagemap ';
export const FIRST_MAPS = 6;
export const WARM_MAPS = 20;

export interface PageMapChildReport {
  /** CPU ms of each of the first FIRST_MAPS maps. */
  first: number[];
  /** Mean CPU ms of the WARM_MAPS maps after them. */
  warm: number;
  /** Bytes of the PNG. */
  bytes: number;
}

/** The map the child draws. */
export function benchPageMap(): PageMapSpec {
  const pages = 1849;
  const rng = Prng.derive(1, 'bench', 'pagemap');
  const fill = Float64Array.from({ length: pages }, () => 0.8 + 0.2 * rng.float());
  const stubs = Uint32Array.from({ length: pages }, (_, i) => (i < 1053 ? 1 + (i % 9) : 0));
  const forwardedIn = Uint32Array.from({ length: pages }, (_, i) => (i > 1000 ? 1 + (i % 11) : 0));
  return {
    title: 'quickstart — exp_row_size=0: page map before reorg forwarded_rows',
    subtitle: 'after phase 2 (update 20000 rows (random, summary)); 1,849 pages, 20,000 rows',
    fill,
    stubs,
    forwardedIn,
    marks: { stubs: 'stubs of forwarded rows', movedIn: 'forwarded rows living here' },
  };
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

// Run as a child (not when a test imports benchPageMap).
if (process.argv[1] && /pagemap-child\.js$/.test(process.argv[1])) {
  const spec = benchPageMap();
  const first: number[] = [];
  let bytes = 0;
  for (let i = 0; i < FIRST_MAPS; i++) {
    const t = cpuMs();
    bytes = renderPageMap(spec).length;
    first.push(cpuMs() - t);
  }
  const t = cpuMs();
  for (let i = 0; i < WARM_MAPS; i++) renderPageMap(spec);
  const report: PageMapChildReport = { first, warm: (cpuMs() - t) / WARM_MAPS, bytes };
  process.stdout.write(`${PAGEMAP_MARK}${JSON.stringify(report)}\n`);
}
