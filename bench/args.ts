/**
 * `npm run bench -- [SUITE …] [--json] [--runs N] [--timeout S] [--pg URL [--pg-rows N]]`: the suites
 * and the arguments. Bad arguments are a BenchUsageError: the bench prints it and exits with status 2
 * before it measures anything. A bad --pg URL is refused here (its password never printed); a server
 * that cannot be reached is found when the pg suite connects, before any other suite runs.
 */
import { parseArgs } from 'node:util';
import { PgConnectionError, pgTarget } from '../src/pgcheck/connection.js';
import { groupedNumber } from '../src/util/numbers.js';

export interface SuiteInfo {
  name: string;
  /** Run by `npm run bench` without a suite named. */
  byDefault: boolean;
  what: string;
}

/** Every suite, in the order they run. docs/performance.md describes each. */
export const SUITES: readonly SuiteInfo[] = [
  { name: 'cli', byDefault: true, what: 'start-up: rowsim --help and --version, whole processes' },
  {
    name: 'storage',
    byDefault: true,
    what: 'inserts, random and sequential growing updates per second on 1M rows, every format, one core',
  },
  { name: 'memory', byDefault: true, what: 'resident memory growth per row between 1e6 and 1e7 rows, every format, fresh processes' },
  { name: 'scale', byDefault: false, what: 'a 1e8-row insert and random growing update per format: CPU seconds and peak memory (minutes)' },
  { name: 'pg', byDefault: false, what: 'the storage workload on a live PostgreSQL beside the simulator (with --pg URL)' },
  { name: 'contention', byDefault: true, what: 'the repairman model beside SimPy, the simulation core on two xoltp points' },
  { name: 'contention-runs', byDefault: false, what: 'the shipped xoltp-80-engines and xoltp-phase-diagram runs on 2 workers (minutes)' },
  { name: 'estimate', byDefault: true, what: 'rowsim estimate on titles at 100,000 and 1e9 rows' },
  {
    name: 'mechanism',
    byDefault: true,
    what: "rowsim page and rowsim trace, whole processes and in process; pg-check's values a CPU-second",
  },
  { name: 'report', byDefault: true, what: 'report.html size and open time in headless Chromium (skipped without /usr/bin/chromium)' },
  {
    name: 'sweep',
    byDefault: true,
    what: 'rowsim run whole processes: a 7-point sweep on 1 and 2 workers in turn, the quickstart, one point without a pool',
  },
  {
    name: 'sweep-scale',
    byDefault: false,
    what: "a 10,000-point sweep's peak memory and CPU; 1,000 points in 8 shards merged against the single run (minutes)",
  },
];

export const DEFAULT_RUNS = 3;
/** Rows of the PostgreSQL comparison: a row-by-row run of this size takes seconds, not minutes. */
export const DEFAULT_PG_ROWS = 100_000;
/** A child process of the memory and scale suites is killed after this. */
export const DEFAULT_CHILD_TIMEOUT_S = 600;

export interface BenchArgs {
  /** The suites to run, in SUITES order. */
  suites: string[];
  /** The suites named on the command line (none: the default ones run). */
  suitesNamed: string[];
  json: boolean;
  runs: number;
  /** --runs was given (cli and scale have defaults of their own otherwise). */
  runsGiven: boolean;
  /** Seconds a child process may take before it is killed. */
  timeoutS: number;
  pg?: { url: string; rows: number };
  help: boolean;
}

export class BenchUsageError extends Error {}

export const USAGE = `usage: npm run bench -- [SUITE …] [--json] [--runs N] [--timeout SECONDS] [--pg URL [--pg-rows N]]

Without a suite: every suite but scale and contention-runs (and pg, which needs --pg URL).
  --json         print one JSON document (machine, date, commit, every line with its runs) on stdout;
                 the lines as text go to stderr as they come
  --runs N       counted runs of each timed line (default ${DEFAULT_RUNS}; after an uncounted warm-up, or
                 four for the storage suite's inserts and updates)
  --timeout S    kill a child process of the storage, memory and scale suites after S seconds (default ${DEFAULT_CHILD_TIMEOUT_S})
  --pg URL       also run the storage workload on this PostgreSQL (postgres://user[:password]@host:port/db)
                 in a scratch schema it creates and drops
  --pg-rows N    rows of that comparison (default ${groupedNumber(DEFAULT_PG_ROWS)})

Suites:
${SUITES.map((s) => `  ${s.name.padEnd(17)}${s.what}${s.byDefault ? '' : ' [not by default]'}`).join('\n')}
`;

/**
 * The URL with everything between its first ':' and its last '@' masked, for a URL too malformed for
 * redactUrl (postgres:/user:pw@host, user:pw@host): a message never shows what may be a password.
 */
export function maskLoosely(url: string): string {
  const at = url.lastIndexOf('@');
  const colon = url.indexOf(':');
  if (at < 0 || colon < 0 || colon > at) return url;
  return `${url.slice(0, colon + 1)}***${url.slice(at)}`;
}

function wholeNumber(flag: string, text: string | undefined, min: number, max: number): number {
  if (text === undefined || text.startsWith('--'))
    throw new BenchUsageError(`${flag}: expected a whole number from ${groupedNumber(min)} to ${groupedNumber(max)}, found nothing`);
  const n = /^\d+$/.test(text.replace(/_/g, '')) ? Number(text.replace(/_/g, '')) : /^\d+(\.\d+)?e\d+$/i.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new BenchUsageError(
      `${flag}: expected a whole number from ${groupedNumber(min)} to ${groupedNumber(max)}, found ${JSON.stringify(text)}`,
    );
  return n;
}

/** The options, as node:util parseArgs reads them (every value a string: wholeNumber and pgTarget judge it). */
const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  runs: { type: 'string' },
  timeout: { type: 'string' },
  pg: { type: 'string' },
  'pg-rows': { type: 'string' },
} as const;

/** --pg's URL, refused here when it is no PostgreSQL URL (its password masked in the message). */
function pgUrlArg(url: string | undefined): string {
  if (url === undefined || url === '' || url.startsWith('--'))
    throw new BenchUsageError('--pg: expected a URL postgres://user[:password]@host:port/database, found nothing');
  try {
    pgTarget(url);
  } catch (err) {
    if (err instanceof PgConnectionError) throw new BenchUsageError(`--pg: ${err.message.split(url).join(maskLoosely(url))}`);
    throw err;
  }
  return url;
}

/** A suite named on the command line (anything else there is refused). */
function suiteArg(raw: string): string {
  if (raw.startsWith('-'))
    throw new BenchUsageError(`expected a suite or an option (--json, --runs, --timeout, --pg, --pg-rows), found ${JSON.stringify(raw)}`);
  if (!SUITES.some((s) => s.name === raw))
    throw new BenchUsageError(`expected a suite (${SUITES.map((s) => s.name).join(', ')}), found ${JSON.stringify(raw)}`);
  return raw;
}

/** Parse the bench's arguments (what follows `npm run bench --`). Throws BenchUsageError. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const { tokens } = parseArgs({ args: [...argv], options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const named: string[] = [];
  const a = { json: false, help: false, runs: DEFAULT_RUNS, runsGiven: false, timeoutS: DEFAULT_CHILD_TIMEOUT_S };
  let pgUrl: string | undefined;
  let pgRows: number | undefined;
  for (const t of tokens) {
    if (t.kind !== 'option') {
      named.push(suiteArg(t.kind === 'positional' ? t.value : argv[t.index]!));
      continue;
    }
    const value = typeof t.value === 'string' ? t.value : undefined;
    if (t.name === 'json' || t.name === 'help') a[t.name] = true;
    else if (t.name === 'runs') [a.runs, a.runsGiven] = [wholeNumber('--runs', value, 1, 100), true];
    else if (t.name === 'timeout') a.timeoutS = wholeNumber('--timeout', value, 1, 86_400);
    else if (t.name === 'pg-rows') pgRows = wholeNumber('--pg-rows', value, 1_000, 10_000_000);
    else if (t.name === 'pg') pgUrl = pgUrlArg(value);
    else suiteArg(argv[t.index]!);
  }
  if (pgRows !== undefined && pgUrl === undefined) throw new BenchUsageError('--pg-rows: expected --pg URL with it, found none');
  if (named.includes('pg') && pgUrl === undefined)
    throw new BenchUsageError('pg: expected --pg URL (the PostgreSQL to compare with), found none');
  const wanted = new Set(named.length > 0 ? named : SUITES.filter((s) => s.byDefault).map((s) => s.name));
  if (pgUrl !== undefined) wanted.add('pg');
  return {
    suites: SUITES.map((s) => s.name).filter((n) => wanted.has(n)),
    suitesNamed: named,
    ...a,
    ...(pgUrl !== undefined ? { pg: { url: pgUrl, rows: pgRows ?? DEFAULT_PG_ROWS } } : {}),
  };
}
