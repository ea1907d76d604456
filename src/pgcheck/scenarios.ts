/**
 * `npm run pg-scenarios`: every PostgreSQL scenario rowsim ships, checked against a live PostgreSQL with
 * `rowsim pg-check`, summed up as one table (per scenario and storage point, the largest error of each
 * kind of figure over its phases), written into docs/engines.md between its markers and, whole, to
 * out/pg-scenarios/results.json. One command regenerates the table the docs show.
 *
 *   npm run pg-scenarios                      a throw-away cluster (.ci/pg-cluster.sh), stopped at the end
 *   npm run pg-scenarios -- --url URL         a server of your own (pg-check touches only its scratch schema)
 *   npm run pg-scenarios -- --only NAME …     only the configs whose file name contains NAME
 *   npm run pg-scenarios -- --no-docs         print the table, leave docs/engines.md alone
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'bin', 'rowsim.js');
const DOC = join(ROOT, 'docs', 'engines.md');
const START = '<!-- generated: pg-scenarios -->';
const END = '<!-- end generated: pg-scenarios -->';

/** The kinds of figure the table shows, the metrics of pg-check each gathers, and the target the issue sets for it. */
export const KINDS = [
  { key: 'heap', title: 'heap pages', target: 0.5, match: (m: string) => m === 'heap_pages' },
  { key: 'toast', title: 'TOAST pages', target: 2, match: (m: string) => m === 'toast_pages' || m === 'toast_index_pages' },
  { key: 'index', title: 'index pages (worst index)', target: 3, match: (m: string) => m.startsWith('index_pages.') },
  { key: 'hot', title: 'HOT updates', target: 2, match: (m: string) => m === 'hot_updates' },
  { key: 'dead', title: 'dead tuples', target: 5, match: (m: string) => m === 'dead_tuples' },
  { key: 'free', title: 'free space', target: 5, match: (m: string) => m === 'free_bytes' },
] as const;

interface Comparison {
  phase: number;
  label: string;
  metric: string;
  predicted: number | null;
  observed: number | null;
  diff: number | null;
  diff_pct: number | null;
}

interface PointResult {
  label: string;
  table: string;
  comparisons: Comparison[];
  server_version?: string;
}

export interface ScenarioRow {
  config: string;
  point: string;
  /** Per kind: the largest |error %| over the phases, the phase it was after, and whether the model predicts it at all. */
  cells: Record<string, { worst: number | null; compared: number; notModelled: number; at?: string }>;
}

/** The summary row of one storage point's comparisons. */
export function summarise(config: string, point: PointResult): ScenarioRow {
  const cells: ScenarioRow['cells'] = {};
  for (const k of KINDS) {
    const rows = point.comparisons.filter((c) => k.match(c.metric));
    const compared = rows.filter((c) => c.predicted !== null && c.observed !== null);
    let worst: number | null = null;
    let at: string | undefined;
    for (const c of compared) {
      // An error relative to the observation; a figure of 0 on both sides is exact.
      const pct = c.observed === 0 ? (c.predicted === 0 ? 0 : 100) : Math.abs(((c.predicted! - c.observed!) / c.observed!) * 100);
      if (worst === null || pct > worst) {
        worst = pct;
        at = c.label;
      }
    }
    cells[k.key] = { worst, compared: compared.length, notModelled: rows.length - compared.length, ...(at ? { at } : {}) };
  }
  return { config, point: point.label, cells };
}

/**
 * Consecutive rows of one config whose cells are all the same, as one row: its point says how many
 * ("all 12 points", or "6 points: a; b; …" when the config has others).
 */
export function groupRows(
  rows: { config: string; point: string; cells: string[] }[],
): { config: string; point: string; cells: string[] }[] {
  const out: { config: string; point: string; cells: string[]; points: string[] }[] = [];
  for (const r of rows) {
    const last = out[out.length - 1];
    if (last && last.config === r.config && last.cells.join('|') === r.cells.join('|')) last.points.push(r.point);
    else out.push({ ...r, points: [r.point] });
  }
  return out.map((g) => {
    const ofConfig = rows.filter((r) => r.config === g.config).length;
    const point =
      g.points.length === 1
        ? g.points[0]!
        : g.points.length === ofConfig
          ? `all ${g.points.length} points`
          : `${g.points.length} points: ${g.points.join('; ')}`;
    return { config: g.config, point, cells: g.cells };
  });
}

type TableRow = { config: string; point: string; cells: string[] };

/**
 * Whole configs (a config's only row) with the same figures, as one row naming them all: each distinct
 * result is listed once. A config of several points says how many (`six-points.yaml (all 6 points)`).
 */
export function mergeConfigs(rows: TableRow[]): TableRow[] {
  const whole = (r: TableRow) => rows.filter((x) => x.config === r.config).length === 1;
  const name = (r: TableRow) => `\`${r.config}\`${r.point.startsWith('all ') ? ` (${r.point})` : ''}`;
  const out: { rows: TableRow[]; cells: string[] }[] = [];
  for (const r of rows) {
    const same = whole(r) ? out.find((o) => whole(o.rows[0]!) && o.cells.join('|') === r.cells.join('|')) : undefined;
    if (same) same.rows.push(r);
    else out.push({ rows: [r], cells: r.cells });
  }
  return out.map((o) =>
    o.rows.length === 1
      ? { config: `\`${o.rows[0]!.config}\``, point: o.rows[0]!.point, cells: o.cells }
      : { config: o.rows.map(name).join(', '), point: 'every point', cells: o.cells },
  );
}

/** The table in Markdown: a cell is the worst error over the phases, marked when it misses the target. */
export function markdownTable(rows: ScenarioRow[], server: string, date: string): string {
  const head = `| scenario | point | ${KINDS.map((k) => `${k.title} (target ≤ ${k.target}%)`).join(' | ')} |`;
  const sep = `|---|---|${KINDS.map(() => '---:').join('|')}|`;
  const cell = (c: ScenarioRow['cells'][string]) => {
    if (c.compared === 0) return c.notModelled > 0 ? 'not modelled' : '–';
    const v = c.worst!;
    return v === 0 ? 'exact' : `${v < 0.01 ? v.toExponential(1) : v.toFixed(2)}%`;
  };
  const grouped = groupRows(
    rows.map((r) => ({
      config: r.config,
      point: r.point,
      cells: KINDS.map((k) => {
        const c = r.cells[k.key]!;
        const t = cell(c);
        return c.worst !== null && c.worst > k.target ? `**${t}**` : t;
      }),
    })),
  );
  const lines = mergeConfigs(grouped).map((r) => `| ${r.config} | ${r.point} | ${r.cells.join(' | ')} |`);
  return [
    `Measured on ${server}, ${date}, by \`npm run pg-scenarios\`: the largest error of each kind over a scenario's phases, relative to the observation; **bold** misses the target; points and configs with the same figures share a row.`,
    '',
    head,
    sep,
    ...lines,
  ].join('\n');
}

/** The configs the table covers: every config of sim-configs/pg-check and every shipped one with a postgres-heap point. */
export function scenarioConfigs(only: string[] = []): string[] {
  const dir = join(ROOT, 'sim-configs');
  const own = readdirSync(join(dir, 'pg-check'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(dir, 'pg-check', f));
  const shipped = [
    ...readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(dir, f)),
    ...readdirSync(join(dir, 'teaching'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(dir, 'teaching', f)),
  ].filter((f) => {
    const text = readFileSync(f, 'utf8');
    return /postgres-heap/.test(text) && !/^contention:/m.test(text) && !/^estimate:/m.test(text);
  });
  const all = [...shipped, ...own].sort();
  return only.length ? all.filter((f) => only.some((o) => basename(f).includes(o))) : all;
}

function startCluster(): { url: string; stop: () => void } {
  const env = { ...process.env, ROWSIM_PG_STATE: join(tmpdir(), `rowsim-pg-scenarios.${process.pid}.state`) };
  const script = join(ROOT, '.ci', 'pg-cluster.sh');
  const out = execFileSync('bash', [script, 'start'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const m = /ROWSIM_PG_URL=(\S+)/.exec(out);
  if (!m) throw new Error('.ci/pg-cluster.sh start printed no ROWSIM_PG_URL');
  return { url: m[1]!, stop: () => execFileSync('bash', [script, 'stop'], { env, stdio: ['ignore', 'ignore', 'inherit'] }) };
}

function parseArgs(argv: string[]): { url?: string; only: string[]; docs: boolean } {
  const out: { url?: string; only: string[]; docs: boolean } = { only: [], docs: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--url' && argv[i + 1]) out.url = argv[++i]!;
    else if (a === '--only' && argv[i + 1]) out.only.push(argv[++i]!);
    else if (a === '--no-docs') out.docs = false;
    else {
      process.stderr.write(`npm run pg-scenarios: unknown argument ${JSON.stringify(a)} (expected --url URL, --only NAME, --no-docs)\n`);
      process.exit(2);
    }
  }
  return out;
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const cluster = (args.url ?? process.env.ROWSIM_PG_URL) ? null : startCluster();
  const url = args.url ?? process.env.ROWSIM_PG_URL ?? cluster!.url;
  const rows: ScenarioRow[] = [];
  const raw: unknown[] = [];
  let server = 'PostgreSQL';
  try {
    for (const file of scenarioConfigs(args.only)) {
      const rel = relative(join(ROOT, 'sim-configs'), file);
      process.stderr.write(`pg-check ${rel} …\n`);
      const r = spawnSync(process.execPath, [BIN, 'pg-check', file, '--url', url, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
      if (r.status !== 0) {
        process.stderr.write(`  ${rel}: exit ${r.status}: ${r.stderr.trim().split('\n')[0]}\n`);
        continue;
      }
      const doc = JSON.parse(r.stdout) as { results: PointResult[] };
      raw.push({ config: rel, ...doc });
      for (const point of doc.results) {
        if (point.server_version) server = `PostgreSQL ${point.server_version.split(' (')[0]!.replace(/^PostgreSQL /, '')}`;
        rows.push(summarise(rel, point));
      }
    }
  } finally {
    cluster?.stop();
  }
  const date = new Date().toISOString().slice(0, 10);
  const table = markdownTable(rows, server, date);
  mkdirSync(join(ROOT, 'out', 'pg-scenarios'), { recursive: true });
  writeFileSync(join(ROOT, 'out', 'pg-scenarios', 'results.json'), `${JSON.stringify({ server, date, scenarios: raw }, null, 2)}\n`);
  process.stdout.write(`${table}\n`);
  if (args.docs) {
    const doc = readFileSync(DOC, 'utf8');
    const a = doc.indexOf(START);
    const b = doc.indexOf(END);
    if (a < 0 || b < a) throw new Error(`docs/engines.md has no ${START} … ${END} markers`);
    writeFileSync(DOC, `${doc.slice(0, a + START.length)}\n${table}\n${doc.slice(b)}`);
    process.stderr.write(`docs/engines.md: the table between the pg-scenarios markers rewritten\n`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
