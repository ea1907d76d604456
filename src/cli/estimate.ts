/**
 * `rowsim estimate <config>`: recommend exp_row_size (and fillfactor, PCTFREE) for a table. Writes
 * out/<name>/estimate.json, estimate.md and charts/estimate*.png, prints a summary.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { FORMAT_IDS, type FormatId } from '../config/schema.js';
import { loadEstimateConfig, type EstimateConfig } from '../estimate/config.js';
import { inProcessRunner, runEstimate, type CandidateRunner } from '../estimate/estimate.js';
import { estimateChart, estimateJson, estimateMarkdown, estimateTerminal } from '../estimate/report.js';
import { poolRunner } from '../estimate/pool-runner.js';
import { progressBar } from '../report/progress.js';
import { writeFolderAtomically } from '../report/output.js';

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

export function parseTarget(value: string): number {
  const n = Number(value.trim().replace(/%$/, ''));
  if (!Number.isFinite(n) || n <= 0 || n > 100) throw new InvalidArgumentError(`expected a percentage of rows above 0 and at most 100, such as 1 or 0.5, found "${value}"`);
  return n;
}

export function parseRowCount(value: string): number {
  const n = Number(value.trim().replace(/_/g, ''));
  if (!Number.isFinite(n) || !Number.isInteger(n) || n < 1 || n > 1e15) throw new InvalidArgumentError(`expected a whole number of rows such as 1000000 or 1e9, found "${value}"`);
  return n;
}

export function parseSeeds(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1 || n > 30) throw new InvalidArgumentError(`expected a whole number of seeds from 1 to 30, found "${value}"`);
  return n;
}

export function parseSampleRows(value: string): number {
  const n = parseRowCount(value);
  if (n < 100 || n > 5_000_000) throw new InvalidArgumentError(`expected sample rows from 100 to 5,000,000, found "${value}"`);
  return n;
}

export function parseFormats(value: string): FormatId[] {
  const list = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const f of list) {
    if (!(FORMAT_IDS as readonly string[]).includes(f)) throw new InvalidArgumentError(`expected formats from ${FORMAT_IDS.join(', ')}, separated by commas, found "${f}"`);
  }
  return list as FormatId[];
}

/**
 * Put estimate files into `outDir` without touching the other files there (results.json of `rowsim
 * run` lives in the same folder): stage in a temporary folder, then rename file by file.
 */
function writeEstimateFiles(outDir: string, write: (dir: string) => void): void {
  if (!existsSync(outDir)) {
    writeFolderAtomically(outDir, write);
    return;
  }
  const stage = mkdtempSync(join(resolve(outDir), '.estimate-tmp-'));
  try {
    mkdirSync(join(stage, 'charts'), { recursive: true });
    write(stage);
    mkdirSync(join(outDir, 'charts'), { recursive: true });
    for (const f of readdirSync(join(stage, 'charts'))) renameSync(join(stage, 'charts', f), join(outDir, 'charts', f));
    for (const f of readdirSync(stage)) if (f !== 'charts') renameSync(join(stage, f), join(outDir, f));
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

export async function estimateCommand(file: string, opts: EstimateCliOptions): Promise<number> {
  // Bad input throws InputError: main() prints it and exits with status 2.
  const cfg: EstimateConfig = loadEstimateConfig(file, { target_pct: opts.target, seeds: opts.seeds, sample_rows: opts.sampleRows, rows: opts.rows, formats: opts.formats });
  const quiet = opts.quiet || opts.json;
  const bar = quiet ? undefined : progressBar('estimate');
  const runner: CandidateRunner = opts.workers === 0 ? inProcessRunner : poolRunner({ workers: opts.workers, onProgress: (d, t) => bar?.update(d, t) });
  const started = process.hrtime.bigint();
  const outcome = await runEstimate(cfg, runner);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  bar?.finish();

  const outDir = opts.out ?? join('out', cfg.name);
  const charts = outcome.formats.map((f, i) => (i === 0 ? 'charts/estimate.png' : `charts/estimate-${f.format}.png`));
  const json = estimateJson(cfg, outcome, charts);
  const text = `${JSON.stringify(json, null, 2)}\n`;
  mkdirSync(dirname(resolve(outDir)), { recursive: true });
  writeEstimateFiles(outDir, (dir) => {
    outcome.formats.forEach((f, i) => writeFileSync(join(dir, charts[i]!), estimateChart(cfg, f)));
    writeFileSync(join(dir, 'estimate.md'), `${estimateMarkdown(cfg, outcome, charts)}\n`);
    writeFileSync(join(dir, 'estimate.json'), text);
  });
  if (opts.json) {
    process.stdout.write(text);
  } else if (!opts.quiet) {
    process.stdout.write(`${estimateTerminal(cfg, outcome)}\n`);
    const where = relative(process.cwd(), join(outDir, 'estimate.json')) || join(outDir, 'estimate.json');
    process.stdout.write(`estimate: ${where}, estimate.md and ${charts.join(', ')} beside it (${seconds.toFixed(1)} s)\n`);
  }
  return 0;
}
