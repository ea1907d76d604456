/**
 * `rowsim estimate [config]`: recommend exp_row_size (and fillfactor, PCTFREE) for a table. Writes
 * out/<name>/estimate.json, estimate.md and charts/estimate*.png, prints a summary. The table and the
 * DBA's measurements may come from the config or from files on the command line (--ddl, --optdiag …);
 * without a config, --ddl is required. Exit status 3 when the estimate recommends nothing (the evidence
 * cannot be reproduced, or no setting meets the target): the summary says why and prints no command.
 */
import { basename, join, relative, resolve } from 'node:path';
import { UserError } from '../config/errors.js';
import { type FormatId } from '../config/schema.js';
import { type EstimateConfig } from '../estimate/types.js';
import type { CandidateRunner, EstimateOutcome } from '../estimate/estimate.js';
import type { EvidenceKind } from '../estimate/evidence/types.js';
import type { MeasuredFiles } from '../estimate/types.js';
import { poolRunner, type PoolCandidateRunner } from '../run/estimate-pool.js';
import { formatForEvidence } from '../formats/registry.js';
import { checkOutputFolder, StagedOutput } from '../report/output.js';
import { EXIT_NOT_APPLICABLE, EXIT_OK } from './exit-codes.js';

interface EstimateCliOptions {
  target?: number;
  out?: string;
  workers?: number;
  json?: boolean;
  quiet?: boolean;
  seeds?: number;
  sampleRows?: number;
  rows?: number;
  formats?: FormatId[];
  force?: boolean;
  ddl?: string;
  format?: FormatId;
  pageSize?: number;
  optdiag?: string;
  spSpaceused?: string;
  indexPhysicalStats?: string;
  pgstattuple?: string;
  pgStatUserTables?: string;
}

/** The tool outputs given on the command line, by their estimate.measured key. */
function measuredFiles(opts: EstimateCliOptions): MeasuredFiles {
  const files: MeasuredFiles = {};
  const given: [EvidenceKind, string | undefined][] = [
    ['optdiag', opts.optdiag],
    ['sp_spaceused', opts.spSpaceused],
    ['index_physical_stats', opts.indexPhysicalStats],
    ['pgstattuple', opts.pgstattuple],
    ['pg_stat_user_tables', opts.pgStatUserTables],
  ];
  for (const [k, v] of given) if (v !== undefined) files[k] = v;
  return files;
}

/**
 * A config for a table given by --ddl alone: named after the DDL file, its format from --format or
 * guessed from the inputs (PostgreSQL's for pgstattuple / pg_stat_user_tables, SQL Server's for the
 * DMV, SAP ASE datarows otherwise), the page size from --page-size or the format's default.
 */
function commandLineConfig(opts: EstimateCliOptions, files: MeasuredFiles): { file: string; text: string } {
  if (!opts.ddl)
    throw new UserError(
      'rowsim estimate: expected a config file, or --ddl <file> with the table (and --optdiag or other measurements), found neither',
    );
  const ddl = resolve(opts.ddl);
  const format: FormatId = opts.format ?? formatForEvidence(Object.keys(files) as EvidenceKind[]);
  const name =
    basename(ddl)
      .replace(/\..*$/, '')
      .replace(/[^A-Za-z0-9_-]/g, '_') || 'estimate';
  const engine = [`format: ${format}`, ...(opts.pageSize ? [`page_size: ${opts.pageSize}`] : [])].join(', ');
  return {
    file: '(command line)',
    text: `name: ${JSON.stringify(name)}\ntable: { ddl: ${JSON.stringify(ddl)} }\nengine: { ${engine} }\nestimate: {}\n`,
  };
}

/** The estimate's config: the file's, or one made from --ddl and the measurement files; the command line's overrides applied. */
function estimateConfig(
  file: string | undefined,
  opts: EstimateCliOptions,
  load: typeof import('../loader/config.js').loadEstimateConfig,
): EstimateConfig {
  const files = measuredFiles(opts);
  const overrides = {
    target_pct: opts.target,
    seeds: opts.seeds,
    sample_rows: opts.sampleRows,
    rows: opts.rows,
    formats: opts.formats,
    measured: files,
  };
  if (file !== undefined) return load(file, overrides);
  const cl = commandLineConfig(opts, files);
  return load(cl.file, overrides, cl.text);
}

export async function estimateCommand(file: string | undefined, opts: EstimateCliOptions): Promise<number> {
  // Bad input throws InputError: main() prints it and exits with status 2.
  if (file !== undefined && (opts.ddl || opts.format || opts.pageSize))
    throw new UserError(
      'rowsim estimate: --ddl, --format and --page-size are for an estimate without a config file; with one, set table.ddl and engine in the config',
    );
  const quiet = opts.quiet || opts.json;
  // The pool starts first: its threads boot and load the simulator while this thread loads the config
  // and the estimate's modules (an input error then closes it). The charts' modules are loaded while
  // the threads simulate.
  let bar: { update(done: number, total: number): void; finish(): void } | undefined;
  const pool: PoolCandidateRunner | undefined =
    opts.workers === 0 ? undefined : poolRunner({ workers: opts.workers, onProgress: (d, t) => bar?.update(d, t) });
  let done: Estimated;
  try {
    const [{ loadEstimateConfig }, { inProcessRunner, runEstimate }, { progressBar }] = await Promise.all([
      import('../loader/config.js'),
      import('../estimate/estimate.js'),
      import('../report/progress.js'),
    ]);
    const cfg = estimateConfig(file, opts, loadEstimateConfig);
    const folder = checkOutputFolder(opts.out ?? join('out', cfg.name), 'estimate');
    bar = quiet ? undefined : progressBar('estimate');
    const runner: CandidateRunner = pool ?? inProcessRunner;
    const started = process.hrtime.bigint();
    const estimating = runEstimate(cfg, runner);
    const reporting = Promise.all([import('../estimate/report.js'), import('../report/charts.js')]).then(([report, charts]) => {
      charts.loadChartJs();
      return report;
    });
    reporting.catch(() => {}); // awaited below, once the estimate is done
    const outcome = await estimating;
    done = { cfg, folder, outcome, reporting, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
  } finally {
    await pool?.close();
  }
  bar?.finish();
  await writeEstimate(done, opts);
  if (opts.quiet && done.outcome.verdict.exit_status !== 0) process.stderr.write(`rowsim estimate: ${done.outcome.verdict.headline}\n`);
  return done.outcome.verdict.exit_status === 0 ? EXIT_OK : EXIT_NOT_APPLICABLE;
}

/** An estimate done: its config, the output folder, the outcome, the report's modules (loading) and its time. */
interface Estimated {
  cfg: EstimateConfig;
  folder: ReturnType<typeof checkOutputFolder>;
  outcome: EstimateOutcome;
  reporting: Promise<typeof import('../estimate/report.js')>;
  seconds: number;
}

/** estimate.json, estimate.md and the charts, published together; then the summary (or the JSON) on stdout. */
async function writeEstimate(done: Estimated, opts: EstimateCliOptions): Promise<void> {
  const { cfg, folder, outcome } = done;
  const { estimateChart, estimateJson, estimateMarkdown, estimateTerminal, maintenanceChart } = await done.reporting;
  const charts = outcome.formats.map((f, i) => (i === 0 ? 'charts/estimate.png' : `charts/estimate-${f.format}.png`));
  if (outcome.maintenance) charts.push('charts/estimate-maintenance.png');
  const text = `${JSON.stringify(estimateJson(cfg, outcome, charts), null, 2)}\n`;
  const out = new StagedOutput(folder);
  try {
    outcome.formats.forEach((f, i) => out.write(charts[i]!, estimateChart(cfg, f)));
    if (outcome.maintenance) out.write('charts/estimate-maintenance.png', maintenanceChart(cfg, outcome));
    out.write('estimate.md', `${estimateMarkdown(cfg, outcome, charts, !!opts.force)}\n`);
    out.write('estimate.json', text);
    await out.publish();
  } finally {
    out.discard();
  }
  if (opts.json) {
    process.stdout.write(text);
  } else if (!opts.quiet) {
    process.stdout.write(`${estimateTerminal(cfg, outcome, !!opts.force)}\n`);
    const where = relative(process.cwd(), join(folder.dir, 'estimate.json')) || join(folder.dir, 'estimate.json');
    process.stdout.write(`estimate: ${where}, estimate.md and ${charts.join(', ')} beside it (${done.seconds.toFixed(1)} s)\n`);
  }
}
