/**
 * `rowsim calibrate`: run the worker-thread latch benchmark, fit the contention model's costs, print the
 * measurement beside the model's prediction, and write calibration.json (for `contention.calibration`)
 * and calibration.md into the output folder.
 */
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { calibrate, DEFAULT_WORKLOAD } from '../calibrate/bench.js';
import { calibrationMarkdown, calibrationTerminal } from '../calibrate/report.js';
import { CALIBRATE_DEFAULTS } from '../config/defaults.js';
import { UserError } from '../config/errors.js';
import { checkOutputFolder, StagedOutput } from '../report/output.js';
import { progressBar } from '../report/progress.js';

interface CalibrateCliOptions {
  out?: string;
  durationMs?: number;
  threads?: number[];
  oversubscribe?: boolean;
  repeats?: number;
  json?: boolean;
  quiet?: boolean;
}

export async function calibrateCommand(opts: CalibrateCliOptions): Promise<number> {
  const cores = availableParallelism();
  let threads = opts.threads ?? Array.from({ length: cores }, (_v, i) => i + 1);
  if (opts.oversubscribe) threads = [...new Set([...threads, cores + 1, 2 * cores])].sort((a, b) => a - b);
  const over = threads.filter((t) => t > cores);
  if (over.length && !opts.oversubscribe)
    throw new UserError(
      `--threads ${threads.join(',')}: more threads than the ${cores} cores of this machine (${over.join(', ')}); add --oversubscribe to run them (they are measured but marked time-sliced, and no cost is fitted from them)`,
    );
  const folder = checkOutputFolder(opts.out ?? join('out', 'calibrate'), 'calibrate');
  const quiet = opts.quiet || opts.json;
  const bar = quiet ? undefined : progressBar('calibrate');
  const report = await calibrate({
    threads,
    durationMs: opts.durationMs ?? CALIBRATE_DEFAULTS.durationMs,
    workload: DEFAULT_WORKLOAD,
    repeats: opts.repeats ?? CALIBRATE_DEFAULTS.repeats,
    onProgress: (d, t) => bar?.update(d, t),
  });
  bar?.finish();
  const text = `${JSON.stringify(report, null, 2)}\n`;
  const out = new StagedOutput(folder);
  try {
    out.write('calibration.json', text);
    out.write('calibration.md', `${calibrationMarkdown(report)}\n`);
    await out.publish();
  } finally {
    out.discard();
  }
  if (opts.json) process.stdout.write(text);
  else if (!opts.quiet) {
    process.stdout.write(`${calibrationTerminal(report)}\n`);
    const where = relative(process.cwd(), join(folder.dir, 'calibration.json')) || join(folder.dir, 'calibration.json');
    process.stdout.write(`calibration: ${where} (use it with contention.calibration: ${where}), calibration.md beside it\n`);
  }
  return report.checks_passed ? 0 : 1;
}
