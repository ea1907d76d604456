/**
 * The rowsim command line. Thin: parse arguments, call the core, print. Each command's module is
 * loaded only when that command runs, so `rowsim --help` loads commander (with require(), see
 * commander.ts) and nothing else; bin/rowsim.js answers `--version` alone without loading this. Exit
 * status: 0 success, 2 bad input (config, CSV, DDL, arguments, output folder), 3 `rowsim estimate`
 * recommends nothing (the measurements cannot be reproduced, or no setting meets the target: the
 * output says why and prints no command), 1 an internal error, 130 / 143
 * interrupted.
 */
import { Command, CommanderError } from './commander.js';
import { errorText, UserError } from '../config/errors.js';
import { ROWSIM_VERSION } from '../version.js';
import {
  parseDurationMs,
  parseFormat,
  parseDeckScale,
  parseImageScale,
  parsePageNumber,
  parsePageOutput,
  parsePhase,
  parseRowId,
  parseRowRange,
  parseSteps,
  parseShard,
  parseFormatList,
  parseMaxPoints,
  parsePageSize,
  parseRepeats,
  parseRowCount,
  parseRowsizeRows,
  parseSampleRows,
  parseSeeds,
  parseTarget,
  parseThreadList,
  parseWorkers,
} from './args.js';

import { EXIT_INPUT, EXIT_INTERNAL, EXIT_OK } from './exit-codes.js';
import { tuneCompiler } from './compiler.js';
import { CALIBRATE_DEFAULTS, RUN_DEFAULTS } from '../config/defaults.js';
import { ESTIMATE_DEFAULTS } from '../estimate/types.js';

export { EXIT_INPUT, EXIT_INTERNAL, EXIT_NOT_APPLICABLE, EXIT_OK } from './exit-codes.js';

/** Where a command's action leaves its exit status. */
type SetCode = (code: number) => void;

function buildProgram(setCode: SetCode): Command {
  const program = new Command();
  program
    .name('rowsim')
    .description(
      'Row-storage simulator: how rows live on pages, get forwarded, and what exp_row_size, fillfactor and PCTFREE buy; buffer-manager contention.',
    )
    .version(ROWSIM_VERSION)
    .exitOverride()
    .showHelpAfterError('(run rowsim --help for usage)')
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  addRunCommand(program, setCode);
  addMergeCommand(program, setCode);
  addValidateCommand(program, setCode);
  addEstimateCommand(program, setCode);
  addRowsizeCommand(program, setCode);
  addPgCheckCommand(program, setCode);
  addMysqlCheckCommand(program, setCode);
  addCalibrateCommand(program, setCode);
  addPageCommand(program, setCode);
  addTraceCommand(program, setCode);
  addPlaygroundCommand(program, setCode);
  return program;
}

function addRunCommand(program: Command, setCode: SetCode): void {
  program
    .command('run')
    .description('run a config: storage workload (with its sweep) and/or the contention model; write out/<name>/')
    .argument('<config>', 'config YAML file')
    .option('--out <dir>', 'results folder (default: out/<name>); rowsim refuses a non-empty folder it did not write')
    .option('--workers <n>', 'worker threads (default: the number of cores)', parseWorkers)
    .option('--max-points <n>', `refuse sweeps of more points than this (default ${RUN_DEFAULTS.maxSweepPoints})`, parseMaxPoints)
    .option('--quiet', 'print nothing but errors')
    .option('--check', "check the page engines' invariants after every phase (slower; also ROWSIM_CHECK=1)")
    .option('--wide', 'show every column of the tables, whatever the terminal width (COLUMNS)')
    .option('--json', 'print results.json on standard output instead of the tables')
    .option(
      '--scale <n>',
      `multiply the charts' pixel size by n, 1 to 4, for projectors (default ${RUN_DEFAULTS.chartScale})`,
      parseImageScale,
    )
    .option(
      '--shard <K/N>',
      'run only part K of N of the sweep (and contention grid) and write it to out/<name>/part-K-of-N; rowsim merge puts the parts together',
      parseShard,
    )
    .option('--timings', 'print where the wall time went (load, simulate, charts, report, write) and the CPU time, on standard error')
    .action(async (config: string, opts) => {
      const { runCommand } = await import('./run.js');
      setCode(await runCommand(config, opts));
    });
}

function addMergeCommand(program: Command, setCode: SetCode): void {
  program
    .command('merge')
    .description(
      'put the parts of a sharded run (rowsim run --shard K/N) together: write the results.json, summary.md, report.html and charts a single run writes, to out/<name>/',
    )
    .argument('<part...>', 'the part folders, all N of them (such as out/<name>/part-*-of-N)')
    .option('--out <dir>', 'results folder (default: out/<name>); rowsim refuses a non-empty folder it did not write')
    .option('--quiet', 'print nothing but errors')
    .option('--wide', 'show every column of the tables, whatever the terminal width (COLUMNS)')
    .option('--json', 'print results.json on standard output instead of the tables')
    .action(async (parts: string[], opts) => {
      const { mergeCommand } = await import('./merge.js');
      setCode(await mergeCommand(parts, opts));
    });
}

function addPageCommand(program: Command, setCode: SetCode): void {
  program
    .command('page')
    .description("draw one page of a config's table to scale (SVG and PNG, or text / JSON): slots, rows, reservation, free space, stubs")
    .argument('<config>', 'config YAML file')
    .option('--point <label>', 'the sweep point, by its label as `rowsim run` prints it (default: the first)')
    .option('--after <phase>', 'after which phase of the workload: its number from 1, or final (default: final)', parsePhase)
    .option('--page <n>', 'the page, from 0 (default: the first page with a forwarding stub or a dead version, else 0)', parsePageNumber)
    .option('--row <id>', "the page of this row's slot (rows are numbered from 0 in insert order)", parseRowId)
    .option('--format <kind>', 'files (SVG and PNG, the text on the terminal), svg, png, text or json (default: files)', parsePageOutput)
    .option('--scale <n>', 'PNG pixels per SVG pixel, 1 to 4, for projectors (default 1)', parseImageScale)
    .option('--out <dir>', 'folder for the drawings (default: out/<name>/pages)')
    .action(async (config: string, opts) => {
      const { pageCommand } = await import('./page.js');
      setCode(await pageCommand(config, opts));
    });
}

function addTraceCommand(program: Command, setCode: SetCode): void {
  program
    .command('trace')
    .description(
      'narrate the workload one row operation at a time, as the page engine does it, with the pages before and after (terminal text and an HTML slide deck)',
    )
    .argument('<config>', 'config YAML file')
    .option('--point <label>', 'the sweep point, by its label as `rowsim run` prints it (default: the first)')
    .option('--rows <a..b>', 'only the operations on these rows (row ids from 0 in insert order)', parseRowRange)
    .option('--page <n>', 'only the operations that change this page', parsePageNumber)
    .option('--steps <k>', 'stop after this many steps (default 50)', parseSteps)
    .option('--out <dir>', 'folder for the slide deck, trace-<point>.html (default: out/<name>/trace)')
    .option('--scale <n>', "the deck's lettering, 1 to 1.5, for the back row (default 1)", parseDeckScale)
    .option('--quiet', 'write the deck, print nothing but errors')
    .action(async (config: string, opts) => {
      const { traceCommand } = await import('./trace.js');
      setCode(await traceCommand(config, opts));
    });
}

function addPlaygroundCommand(program: Command, setCode: SetCode): void {
  program
    .command('playground')
    .description(
      'write a page (one HTML file, no server, no network) that runs the page engines in the browser: teaching configs, edits, steps, two formats side by side',
    )
    .option('--out <dir>', 'folder for index.html (default: out/playground)')
    .option('--quiet', 'write the page, print nothing but errors')
    .action(async (opts) => {
      const { playgroundCommand } = await import('./playground.js');
      setCode(await playgroundCommand(opts));
    });
}

function addValidateCommand(program: Command, setCode: SetCode): void {
  program
    .command('validate')
    .description('check a config without running it (the same checks as run, memory included)')
    .argument('<config>', 'config YAML file')
    .option('--workers <n>', 'worker threads the run would use (for the memory check; default: the number of cores)', parseWorkers)
    .option('--max-points <n>', `refuse sweeps of more points than this (default ${RUN_DEFAULTS.maxSweepPoints})`, parseMaxPoints)
    .action(async (config: string, opts) => {
      const { validateCommand } = await import('./validate.js');
      setCode(validateCommand(config, opts));
    });
}

function addEstimateCommand(program: Command, setCode: SetCode): void {
  program
    .command('estimate')
    .description(
      'recommend exp_row_size (and fillfactor, PCTFREE) for a table from its row lengths or its measurements; write out/<name>/estimate.json; exit 3 when nothing should be applied',
    )
    .argument(
      '[config]',
      'config YAML file with table, engine, an estimate section and a workload or estimate.measured (optional with --ddl)',
    )
    .option(
      '--target <pct>',
      `forwarded rows to stay under, % of rows (default: estimate.target_pct or ${ESTIMATE_DEFAULTS.target_pct})`,
      parseTarget,
    )
    .option(
      '--rows <n>',
      'rows of the table the estimate is for, e.g. 1e9 (default: estimate.rows, or what the workload or measurements hold)',
      parseRowCount,
    )
    .option('--seeds <n>', `replicates per candidate (default: estimate.seeds or ${ESTIMATE_DEFAULTS.seeds})`, parseSeeds)
    .option(
      '--sample-rows <n>',
      `rows simulated per seed (default: estimate.sample_rows or ${ESTIMATE_DEFAULTS.sample_rows})`,
      parseSampleRows,
    )
    .option('--formats <list>', 'also estimate these formats, e.g. postgres-heap,oracle-heap', parseFormatList)
    .option('--ddl <file>', "the table's DDL (a ddlgen script or CREATE TABLE), for an estimate without a config file")
    .option(
      '--format <format>',
      'the storage format with --ddl (default: ase-dol; postgres-heap with PostgreSQL inputs, sqlserver-heap with the DMV)',
      parseFormat,
    )
    .option('--page-size <size>', "the server's page size with --ddl, e.g. 2k, 4k, 8k, 16k (default: the format's)", parsePageSize)
    .option('--optdiag <file>', "optdiag's text output for the table (estimate.measured.optdiag)")
    .option('--sp-spaceused <file>', 'the output of sp_spaceused <table> (estimate.measured.sp_spaceused)')
    .option(
      '--index-physical-stats <file>',
      'sys.dm_db_index_physical_stats rows of the heap as CSV (estimate.measured.index_physical_stats)',
    )
    .option('--pgstattuple <file>', "psql's output of pgstattuple('<table>') (estimate.measured.pgstattuple)")
    .option('--pg-stat-user-tables <file>', "psql's output of pg_stat_user_tables for the table (estimate.measured.pg_stat_user_tables)")
    .option('--force', "print the best setting's command even when the estimate recommends nothing (exit status stays 3)")
    .option('--out <dir>', 'output folder (default: out/<name>)')
    .option('--workers <n>', 'worker threads (default: the number of cores)', parseWorkers)
    .option('--json', 'print estimate.json instead of the summary')
    .option('--quiet', 'print nothing but errors (and, with exit status 3, the reason)')
    .action(async (config: string | undefined, opts, cmd: Command) => {
      await checkFormatNames(cmd, '--formats <list>', opts.formats);
      await checkFormatNames(cmd, '--format <format>', opts.format);
      const { estimateCommand } = await import('./estimate.js');
      setCode(await estimateCommand(config, opts));
    });
}

function addRowsizeCommand(program: Command, setCode: SetCode): void {
  program
    .command('rowsize')
    .description('row bytes, rows per page, pages and index sizes of a table in every engine format')
    .argument('<table>', 'config YAML file (table, engine, first insert phase) or a CREATE TABLE .sql file')
    .option('--rows <n>', 'rows to size the table for (default: the first insert phase, or 1000000)', parseRowsizeRows)
    .option('--formats <list>', 'formats to show, e.g. postgres-heap,sqlserver-heap (default: all)', parseFormatList)
    .option('--wide', 'show every column of the table, whatever the terminal width (COLUMNS)')
    .option('--json', 'print JSON instead of the table')
    .action(async (table: string, opts, cmd: Command) => {
      await checkFormatNames(cmd, '--formats <list>', opts.formats);
      const { rowsizeCommand } = await import('./rowsize.js');
      setCode(rowsizeCommand(table, opts));
    });
}

function addPgCheckCommand(program: Command, setCode: SetCode): void {
  program
    .command('pg-check')
    .description('run the config on a live PostgreSQL and print prediction and observation side by side')
    .argument('<config>', 'config YAML file')
    .option('--url <url>', 'postgres://user@host:port/database (default: $ROWSIM_PG_URL)')
    .option('--json', 'print JSON instead of the table')
    .action(async (config: string, opts) => {
      const { pgCheckCommand } = await import('./pg-check.js');
      setCode(await pgCheckCommand(config, opts));
    });
}

function addMysqlCheckCommand(program: Command, setCode: SetCode): void {
  program
    .command('mysql-check')
    .description('run an innodb config on a live MariaDB or MySQL and print rowsim beside the server')
    .argument('<config>', 'config YAML file')
    .option('--url <url>', 'mysql://user:password@host:port/ (default: $ROWSIM_MYSQL_URL)')
    .option('--json', 'print JSON instead of the table')
    .action(async (config: string, opts) => {
      const { mysqlCheckCommand } = await import('./mysql-check.js');
      setCode(await mysqlCheckCommand(config, opts));
    });
}

function addCalibrateCommand(program: Command, setCode: SetCode): void {
  program
    .command('calibrate')
    .description(
      'measure latch and CAS costs on worker threads (SharedArrayBuffer, Atomics), fit the contention model, print the model beside the measurement; write out/calibrate/calibration.json',
    )
    .option('--out <dir>', 'output folder (default: out/calibrate)')
    .option('--threads <list>', 'thread counts of the table runs, e.g. 1,2 (default: 1 … the number of cores)', parseThreadList)
    .option('--oversubscribe', 'also run more threads than cores (measured, marked time-sliced, never fitted)')
    .option('--duration <ms>', `milliseconds each run lasts (default ${CALIBRATE_DEFAULTS.durationMs})`, parseDurationMs)
    .option('--repeats <n>', `repeats of each fitting run, the median is used (default ${CALIBRATE_DEFAULTS.repeats})`, parseRepeats)
    .option('--json', 'print calibration.json instead of the table')
    .option('--quiet', 'print nothing but errors')
    .action(async (opts) => {
      const { calibrateCommand } = await import('./calibrate.js');
      setCode(await calibrateCommand({ ...opts, durationMs: opts.duration }));
    });
}

/**
 * The format names an option was given, against the registry (loaded here, only when the option is
 * given): a name no format has is commander's error for the option, exit status 2.
 */
async function checkFormatNames(cmd: Command, option: string, given: string | string[] | undefined): Promise<void> {
  if (given === undefined) return;
  const { FORMAT_IDS, isFormatId } = await import('../formats/registry.js');
  const names = [given].flat();
  const bad = names.find((name) => !isFormatId(name));
  if (bad === undefined) return;
  const expected = Array.isArray(given) ? `formats from ${FORMAT_IDS.join(', ')}, separated by commas` : `one of ${FORMAT_IDS.join(', ')}`;
  cmd.error(`error: option '${option}' argument '${names.join(',')}' is invalid. expected ${expected}, found "${bad}"`, {
    exitCode: EXIT_INPUT,
    code: 'commander.invalidArgument',
  });
}

export async function main(argv: string[]): Promise<number> {
  let code = EXIT_OK;
  const program = buildProgram((c) => (code = c));
  try {
    // ROWSIM_INLINING checked before anything runs; `wide` sets the budget here, `rowsim run` by its size.
    tuneCompiler(0);
    await program.parseAsync(argv);
  } catch (err) {
    return exitCodeFor(err);
  }
  return code;
}

/**
 * The exit status for an error that reached the top, after saying what it was: a user's mistake is one
 * clear message and status 2; anything else is a bug of rowsim's, said in one line (the stack only
 * with ROWSIM_DEBUG=1) with status 1.
 */
function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    // --help and --version exit 0; `rowsim` without a command prints help and exits 2 (no command is bad arguments, as an unknown one is).
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT_OK;
    if (err.code === 'commander.help') return err.exitCode === 0 ? EXIT_OK : EXIT_INPUT;
    return EXIT_INPUT;
  }
  if (err instanceof UserError) {
    process.stderr.write(`${errorText(err.message)}\n`);
    return EXIT_INPUT;
  }
  reportInternalError(err);
  return EXIT_INTERNAL;
}

export function reportInternalError(err: unknown): void {
  const e = err as Error | undefined;
  const what =
    e && typeof e === 'object' && 'message' in e
      ? `${e.name && e.name !== 'Error' ? `${e.name}: ` : ''}${String(e.message).split('\n')[0]}`
      : String(err);
  process.stderr.write(`error: internal error: ${what}; please report it (run again with ROWSIM_DEBUG=1 for the details)\n`);
  if (process.env.ROWSIM_DEBUG === '1' && e?.stack) process.stderr.write(`${e.stack}\n`);
}
