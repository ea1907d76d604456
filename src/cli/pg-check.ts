/**
 * `rowsim pg-check config.yaml --url postgres://…`: the config's table and workload on a live
 * PostgreSQL, prediction beside observation (src/pgcheck/check.ts). Exit status 2 for a bad config, a
 * connection that cannot be made or is lost, 130 / 143 when stopped by SIGINT / SIGTERM; what it
 * created on the server is dropped in every case it can be (src/pgcheck/guard.ts).
 */
import type pg from 'pg';
import { InputError } from '../config/errors.js';
import { configDocuments } from '../loader/source.js';
import { loadConfig } from '../loader/config.js';
import { postgresHeap } from '../formats/postgres.js';
import { engineForFormat } from '../formats/registry.js';
import type { SweepPoint } from '../config/spec.js';
import { PgCheckError, pgCheck, type PgCheckResult } from '../pgcheck/check.js';
import { closeClient, connect, isConnectionLost, PgConnectionError, pgTarget, type PgTarget } from '../pgcheck/connection.js';
import { CheckGuard } from '../pgcheck/guard.js';
import { fmt, textTable } from '../report/tables.js';

interface PgCheckCliOptions {
  url?: string;
  json?: boolean;
}

/** The points pg-check runs: the postgres-heap points of the sweep, or the base config as postgres-heap. */
function pgPoints(points: SweepPoint[]): { points: SweepPoint[]; note?: string } {
  const pg = postgresHeap.id;
  const pgp = points.filter((p) => p.spec.engine.format === pg);
  if (pgp.length > 0) return { points: pgp };
  const first = points[0];
  if (!first) return { points: [] };
  return {
    points: [{ ...first, label: `${first.label} as ${pg}`, spec: { ...first.spec, engine: engineForFormat(first.spec.engine, pg) } }],
    note: `the config's format is ${first.spec.engine.format}: checked as ${pg}`,
  };
}

function pgCheckText(results: PgCheckResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    out.push(`${r.label} (PostgreSQL ${r.server_version})`);
    out.push(
      textTable(
        ['phase', 'metric', 'predicted', 'observed', 'diff %'],
        r.comparisons.map((c) => [`${c.phase + 1}. ${c.label}`, c.metric, fmt(c.predicted), c.observed === null ? 'n/a' : fmt(c.observed), c.diff_pct === null ? '' : `${c.diff_pct > 0 ? '+' : ''}${c.diff_pct.toFixed(2)}`]),
      ),
    );
    for (const n of r.notes) out.push(`note: ${n}`);
    out.push('');
  }
  return out.join('\n');
}

export async function pgCheckCommand(file: string, options: PgCheckCliOptions): Promise<number> {
  const url = options.url ?? process.env.ROWSIM_PG_URL;
  if (!url) {
    process.stderr.write('rowsim pg-check: expected --url postgres://user@host:port/db (or ROWSIM_PG_URL), found neither\n');
    return 2;
  }
  let points: SweepPoint[];
  let note: string | undefined;
  try {
    // A file of several configs separated by `---` (as rowsize reads them): every document is checked.
    const docs = configDocuments(file);
    const texts: (string | undefined)[] = docs.length > 1 ? docs : [undefined];
    points = [];
    for (const text of texts) {
      const cfg = loadConfig(file, text);
      const got = pgPoints(cfg.storage);
      points.push(...got.points.map((p) => (texts.length > 1 ? { ...p, label: `${cfg.name}: ${p.label}` } : p)));
      note ??= got.note;
    }
  } catch (err) {
    if (err instanceof InputError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (points.length === 0) {
    process.stderr.write(`${file}: expected a storage config (table, engine, workload), found none\n`);
    return 2;
  }
  let target: PgTarget;
  try {
    target = pgTarget(url);
  } catch (err) {
    if (err instanceof PgConnectionError) {
      process.stderr.write(`rowsim pg-check: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const guard = new CheckGuard(target);
  guard.listen();
  try {
    const results = await checkAll(guard, target, points, note);
    if (!results) return await guard.stopped!;
    if (options.json) process.stdout.write(`${JSON.stringify({ config: file, results }, null, 2)}\n`);
    else process.stdout.write(`${pgCheckText(results)}\n`);
    return 0;
  } catch (err) {
    if (guard.stopped) return await guard.stopped;
    if (err instanceof PgCheckError || err instanceof PgConnectionError) {
      process.stderr.write(`rowsim pg-check: ${err.message}\n`);
      return 2;
    }
    if (isConnectionLost(err)) {
      const line = await guard.lost(err);
      // A signal during the reconnect: its own cleanup has the last word.
      if (guard.stopped) return await guard.stopped;
      process.stderr.write(`rowsim pg-check: ${line}\n`);
      return 2;
    }
    throw redacted(err, target);
  } finally {
    if (guard.client) await closeClient(guard.client);
    guard.unlisten();
  }
}

/** Check every point over one connection; undefined when a signal stopped the run. */
async function checkAll(guard: CheckGuard, target: PgTarget, points: SweepPoint[], note: string | undefined): Promise<PgCheckResult[] | undefined> {
  const client: pg.Client = await connect(target, { onError: (err) => (guard.lostReason ??= target.redact(err.message)) });
  guard.client = client;
  guard.backendPid = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  const results: PgCheckResult[] = [];
  for (const p of points) {
    // A signal's cleanup runs between statements: stop before starting anything new.
    if (guard.stopped) return undefined;
    const r = await pgCheck(client, p.spec, { label: p.label, backendPid: guard.backendPid, onSchema: (s) => (guard.schema = s) });
    if (note) r.notes.unshift(note);
    results.push(r);
  }
  return guard.stopped ? undefined : results;
}

/** An unexpected error, rethrown with the password masked in its message and stack. */
function redacted(err: unknown, target: PgTarget): unknown {
  if (err instanceof Error) {
    err.message = target.redact(err.message);
    if (err.stack) err.stack = target.redact(err.stack);
  }
  return err;
}
