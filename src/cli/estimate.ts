/**
 * `rowsim estimate <config>`: recommend exp_row_size (and fillfactor, PCTFREE) for a table. Writes
 * out/<name>/estimate.json, estimate.md and charts/estimate*.png, prints a summary.
 */
import { join, relative } from 'node:path';
import { type FormatId } from '../config/schema.js';
import { type EstimateConfig } from '../estimate/config.js';
import { loadEstimateConfig } from '../loader/config.js';
import { inProcessRunner, runEstimate, type CandidateRunner } from '../estimate/estimate.js';
import { estimateChart, estimateJson, estimateMarkdown, estimateTerminal } from '../estimate/report.js';
import { poolRunner } from '../estimate/pool-runner.js';
import { progressBar } from '../report/progress.js';
import { checkOutputFolder, StagedOutput } from '../report/output.js';

export interface EstimateCliOptions {
  target?: number;
  out?: string;
  workers?: number;
  json?: boolean;
  quiet?: boolean;
  seeds?: number;
  sampleRows?: number;
  rows?: number;
  formats?: FormatId[];
}

export async function estimateCommand(file: string, opts: EstimateCliOptions): Promise<number> {
  // Bad input throws InputError: main() prints it and exits with status 2.
  const cfg: EstimateConfig = loadEstimateConfig(file, { target_pct: opts.target, seeds: opts.seeds, sample_rows: opts.sampleRows, rows: opts.rows, formats: opts.formats });
  const folder = checkOutputFolder(opts.out ?? join('out', cfg.name), 'estimate');
  const quiet = opts.quiet || opts.json;
  const bar = quiet ? undefined : progressBar('estimate');
  const runner: CandidateRunner = opts.workers === 0 ? inProcessRunner : poolRunner({ workers: opts.workers, onProgress: (d, t) => bar?.update(d, t) });
  const started = process.hrtime.bigint();
  const outcome = await runEstimate(cfg, runner);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  bar?.finish();

  const charts = outcome.formats.map((f, i) => (i === 0 ? 'charts/estimate.png' : `charts/estimate-${f.format}.png`));
  const json = estimateJson(cfg, outcome, charts);
  const text = `${JSON.stringify(json, null, 2)}\n`;
  const out = new StagedOutput(folder);
  try {
    outcome.formats.forEach((f, i) => out.write(charts[i]!, estimateChart(cfg, f)));
    out.write('estimate.md', `${estimateMarkdown(cfg, outcome, charts)}\n`);
    out.write('estimate.json', text);
    out.publish();
  } finally {
    out.discard();
  }
  if (opts.json) {
    process.stdout.write(text);
  } else if (!opts.quiet) {
    process.stdout.write(`${estimateTerminal(cfg, outcome)}\n`);
    const where = relative(process.cwd(), join(folder.dir, 'estimate.json')) || join(folder.dir, 'estimate.json');
    process.stdout.write(`estimate: ${where}, estimate.md and ${charts.join(', ')} beside it (${seconds.toFixed(1)} s)\n`);
  }
  return 0;
}
