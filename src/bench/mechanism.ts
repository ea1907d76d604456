/**
 * The teaching commands: `rowsim page` (one page drawn, SVG and PNG) and `rowsim trace` (50 steps and
 * the slide deck) on a config of sim-configs/teaching/, whole processes with their start-up, CPU and wall
 * time, the median and the fastest of several runs after a warm-up. The aim: ready in under a second.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../contention/stats.js';
import { timeCommand } from './cli.js';
import type { BenchLine } from './storage.js';
import { loadConfig } from '../loader/config.js';
import { captureAfter, interestingPage } from '../mechanism/capture.js';
import { traceDeck } from '../mechanism/deck.js';
import { svgToPng } from '../mechanism/png.js';
import { renderPageSvg } from '../mechanism/svg.js';
import { pageText } from '../mechanism/text.js';
import { traceRun } from '../mechanism/trace.js';

const RUNS = 5;
const TEACHING = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'sim-configs', 'teaching');

export async function benchMechanism(): Promise<BenchLine[]> {
  const configs = readdirSync(TEACHING).filter((f) => f.endsWith('.yaml')).sort();
  if (configs.length === 0) return [];
  const config = join(TEACHING, configs[0]!);
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-bench-'));
  const out: BenchLine[] = [];
  try {
    const cases: [string, string[]][] = [
      ['validate (the same config loaded and checked: the start-up both pay)', ['validate', config]],
      ['page drawing (SVG + PNG + text)', ['page', config, '--out', join(dir, 'pages')]],
      ['trace 50 steps (text + slide deck)', ['trace', config, '--steps', '50', '--quiet', '--out', join(dir, 'trace')]],
    ];
    for (const [name, args] of cases) {
      timeCommand(args); // warm-up
      const runs = Array.from({ length: RUNS }, () => timeCommand(args));
      const cpu = runs.map((r) => r.cpuMs);
      const wall = runs.map((r) => r.wallMs);
      out.push({
        name: `mechanism: rowsim ${name}, ${configs[0]}, wall time`,
        value: Math.round(median(wall)),
        unit: 'ms',
        note: `${name.startsWith('validate') ? 'the floor' : 'aim < 1000'}; CPU ${Math.round(median(cpu))} ms; median of ${RUNS} runs, fastest ${Math.round(Math.min(...wall))} ms; whole process with start-up`,
      });
    }
    out.push(...inProcess(config, configs[0]!));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

/** The work alone, in this process after a warm-up: the run to the phase, the drawing (SVG, PNG, text); the 50-step trace and its deck. */
function inProcess(config: string, name: string): BenchLine[] {
  const cfg = loadConfig(config);
  const spec = cfg.storage[0]!.spec;
  const page = () => {
    const cap = captureAfter(spec, 'final');
    const d = cap.draw(interestingPage(cap.inspector));
    svgToPng(renderPageSvg(d));
    pageText(d);
  };
  const trace = () => traceDeck('bench', name, traceRun(spec, { steps: 50 }));
  const lines: BenchLine[] = [];
  for (const [what, fn] of [['page drawing (SVG + PNG + text)', page], ['trace 50 steps + slide deck', trace]] as const) {
    fn();
    const ms = Array.from({ length: RUNS }, () => {
      const t0 = process.cpuUsage();
      fn();
      const u = process.cpuUsage(t0);
      return (u.user + u.system) / 1000;
    });
    lines.push({ name: `mechanism: ${what}, ${name}, in process`, value: Math.round(median(ms) * 10) / 10, unit: 'ms CPU', note: `the work without start-up; median of ${RUNS} runs after a warm-up, fastest ${Math.round(Math.min(...ms) * 10) / 10} ms` });
  }
  return lines;
}
