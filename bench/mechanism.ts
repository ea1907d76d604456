/**
 * The teaching commands: `rowsim page` (one page drawn, SVG and PNG) and `rowsim trace` (50 steps and
 * the slide deck) on a config of sim-configs/teaching/, whole processes with their start-up, CPU and wall
 * time, the median and the fastest of several runs after a warm-up; and the same work alone, in this
 * process. The aim: ready in under a second. Then pg-check's value generator in process (pg-values.ts).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureCommand } from './cli.js';
import { measure, timingNote, type BenchLine } from './harness.js';
import type { SuiteContext } from './suite.js';
import { loadConfig } from '../src/loader/config.js';
import { captureAfter, interestingPage } from '../src/mechanism/capture.js';
import { traceDeck } from '../src/mechanism/deck.js';
import { svgToPng } from '../src/mechanism/png.js';
import { renderPageSvg } from '../src/mechanism/svg.js';
import { pageText } from '../src/mechanism/text.js';
import { traceRun } from '../src/mechanism/trace.js';
import { simConfig } from './paths.js';
import { benchPgValues } from './pg-values.js';

const RUNS = 5;
const TEACHING = simConfig('teaching');

export async function* benchMechanism(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  const runs = ctx.runsGiven ? ctx.runs : RUNS;
  const configs = readdirSync(TEACHING)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  if (configs.length === 0) return;
  const config = join(TEACHING, configs[0]!);
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-bench-'));
  try {
    const cases: [string, string[]][] = [
      ['validate (the same config loaded and checked: the start-up both pay)', ['validate', config]],
      ['page drawing (SVG + PNG + text)', ['page', config, '--out', join(dir, 'pages')]],
      ['trace 50 steps (text + slide deck)', ['trace', config, '--steps', '50', '--quiet', '--out', join(dir, 'trace')]],
    ];
    for (const [name, args] of cases) {
      const m = await measureCommand(args, runs);
      yield {
        name: `mechanism: rowsim ${name}, ${configs[0]}, wall time, whole process`,
        value: Math.round(m.wall.median * 1000),
        unit: 'ms',
        note: `${name.startsWith('validate') ? 'the floor' : 'aim < 1000'}; ${timingNote(m)}`,
        measurement: m,
      };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cfg = loadConfig(config);
  const spec = cfg.storage[0]!.spec;
  const page = () => {
    const cap = captureAfter(spec, 'final');
    const d = cap.draw(interestingPage(cap.inspector));
    svgToPng(renderPageSvg(d));
    pageText(d);
  };
  const trace = () => traceDeck('bench', configs[0]!, traceRun(spec, { steps: 50 }));
  for (const [what, fn] of [
    ['page drawing (SVG + PNG + text)', page],
    ['trace 50 steps + slide deck', trace],
  ] as const) {
    const m = await measure(fn, { runs, warmup: 1 });
    yield {
      name: `mechanism: ${what}, ${configs[0]}, in process`,
      value: Math.round(m.cpu!.median * 10000) / 10,
      unit: 'ms CPU',
      note: `the work without start-up; ${timingNote(m)}`,
      measurement: m,
    };
  }
  yield* benchPgValues(ctx);
}
