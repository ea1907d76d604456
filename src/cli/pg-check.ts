/**
 * `rowsim pg-check config.yaml --url postgres://…`: the config's table and workload on a live
 * PostgreSQL, prediction beside observation (src/pgcheck/check.ts).
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { parseAllDocuments } from 'yaml';
import { InputError } from '../config/errors.js';
import { loadConfig } from '../config/load.js';
import type { SweepPoint } from '../config/spec.js';
import { PgCheckError, pgCheck, type PgCheckResult } from '../pgcheck/check.js';
import { fmt, textTable } from '../report/tables.js';

export interface PgCheckCliOptions {
  url?: string;
  json?: boolean;
}

/** The points pg-check runs: the postgres-heap points of the sweep, or the base config as postgres-heap. */
export function pgPoints(points: SweepPoint[]): { points: SweepPoint[]; note?: string } {
  const pgp = points.filter((p) => p.spec.engine.format === 'postgres-heap');
  if (pgp.length > 0) return { points: pgp };
  const first = points[0];
  if (!first) return { points: [] };
  return {
    points: [{ ...first, label: `${first.label} as postgres-heap`, spec: { ...first.spec, engine: { ...first.spec.engine, format: 'postgres-heap', page_size: 8192 } } }],
    note: `the config's format is ${first.spec.engine.format}: checked as postgres-heap`,
  };
}

export function pgCheckText(results: PgCheckResult[]): string {
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
    let texts: (string | undefined)[] = [undefined];
    try {
      const docs = parseAllDocuments(readFileSync(file, 'utf8'));
      if (Array.isArray(docs) && docs.length > 1) texts = docs.map((d) => d.toString());
    } catch {
      // unreadable: loadConfig reports it
    }
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
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (err) {
    process.stderr.write(`rowsim pg-check: cannot connect to ${url}: ${(err as Error).message}\n`);
    return 2;
  }
  const results: PgCheckResult[] = [];
  try {
    for (const p of points) {
      const r = await pgCheck(client, p.spec, { label: p.label });
      if (note) r.notes.unshift(note);
      results.push(r);
    }
  } catch (err) {
    if (err instanceof PgCheckError) {
      process.stderr.write(`rowsim pg-check: ${err.message}\n`);
      return 2;
    }
    throw err;
  } finally {
    await client.end();
  }
  if (options.json) process.stdout.write(`${JSON.stringify({ config: file, results }, null, 2)}\n`);
  else process.stdout.write(`${pgCheckText(results)}\n`);
  return 0;
}
