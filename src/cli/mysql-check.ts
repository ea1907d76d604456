/**
 * `rowsim mysql-check config.yaml --url mysql://user:password@host:port/`: the config's table and phases
 * on a live MariaDB or MySQL, rowsim's figures beside the server's (src/mysqlcheck/check.ts), one section
 * per storage point of the innodb format. Exit status 2 for a bad config or URL, a config of another
 * format, a statement the server refuses, a connection that cannot be made or is lost; 130 / 143 / 129
 * when stopped by SIGINT / SIGTERM / SIGHUP, after the scratch database is dropped from a second
 * connection. No message carries the password.
 */
import { errorText, InputError } from '../config/errors.js';
import type { SweepPoint } from '../config/spec.js';
import { configDocuments } from '../loader/source.js';
import { loadConfig } from '../loader/config.js';
import { checkFormat, MysqlCheckError, mysqlCheck, planMysqlCheck, type MysqlCheckResult } from '../mysqlcheck/check.js';
import {
  closeConnection,
  connect,
  isConnectionLost,
  MysqlConnectionError,
  mysqlTarget,
  type MysqlConnection,
  type MysqlTarget,
} from '../mysqlcheck/connection.js';
import type { ScratchDatabase } from '../mysqlcheck/scratch.js';
import { fmt, textTable } from '../report/tables.js';
import { onInterrupt } from '../util/cleanup.js';
import { EXIT_EXTERNAL, EXIT_INPUT, EXIT_OK } from './exit-codes.js';

interface MysqlCheckCliOptions {
  url?: string;
  json?: boolean;
}

/** The storage points to check: every innodb point of every document of the file. */
function checkPoints(file: string): SweepPoint[] {
  const points: SweepPoint[] = [];
  let other: SweepPoint | undefined;
  const docs = configDocuments(file);
  const texts: (string | undefined)[] = docs.length > 1 ? docs : [undefined];
  for (const text of texts) {
    const cfg = loadConfig(file, text);
    for (const p of cfg.storage) {
      try {
        checkFormat(p.spec);
        points.push(texts.length > 1 ? { ...p, label: `${cfg.name}: ${p.label}` } : p);
      } catch (err) {
        if (!(err instanceof MysqlCheckError)) throw err;
        other ??= p;
      }
    }
  }
  if (points.length === 0 && other) checkFormat(other.spec);
  if (points.length === 0) throw new MysqlCheckError('expected a storage config (table, engine, workload), found none');
  for (const p of points) planMysqlCheck(p.spec);
  return points;
}

const signed = (n: number, text: string) => `${n > 0 ? '+' : ''}${text}`;

export function mysqlCheckText(results: MysqlCheckResult[]): string {
  const out: string[] = [];
  results.forEach((r, i) => {
    out.push(`== ${results.length > 1 ? `${i + 1}/${results.length} ` : ''}${r.label}: table ${r.table} (${r.server_version})`);
    out.push(r.create_sql);
    out.push(
      textTable(
        ['phase', 'metric', 'rowsim', 'server', 'error', 'error %'],
        r.comparisons.map((c) => [
          `${c.phase + 1}. ${c.label}`,
          c.metric,
          c.predicted === null ? 'not modelled' : fmt(c.predicted),
          c.observed === null ? 'n/a' : fmt(c.observed),
          c.diff === null ? '' : signed(c.diff, fmt(c.diff)),
          c.diff_pct === null ? '' : signed(c.diff_pct, c.diff_pct.toFixed(2)),
        ]),
      ),
    );
    for (const p of r.replays) {
      for (const s of p.sends) out.push(`replay, phase ${p.phase + 1} (${p.op}): ${s}`);
      for (const n of p.notes) out.push(`note, phase ${p.phase + 1}: ${n}`);
    }
    for (const n of r.notes) out.push(`note: ${n}`);
    out.push('');
  });
  return out.join('\n');
}

/** What a signal's clean-up needs: the busy connection, the scratch database; and whether it is under way. */
export interface StopState {
  connectionId?: number;
  db?: ScratchDatabase;
  stopping?: boolean;
}

/** A stop by signal: kill the busy connection from a second one, then drop the scratch database there. */
export function dropOnInterrupt(target: MysqlTarget, state: StopState): () => void {
  return onInterrupt(async () => {
    state.stopping = true;
    const db = state.db;
    if (!db) return;
    // A CREATE DATABASE on the wire is let finish: killed, its outcome (whose database it is) would be lost.
    await db.settled(5000);
    const second = await connect(target, { timeoutMs: 5000 });
    try {
      if (state.connectionId !== undefined) await second.query(`KILL ${Number(state.connectionId)}`).catch(() => undefined);
      const status = await db.drop(second);
      process.stderr.write(
        `rowsim mysql-check: stopped; scratch database ${db.ident} ${status === 'dropped' ? 'dropped' : `${status}, left alone`}\n`,
      );
    } finally {
      await closeConnection(second);
    }
  });
}

/** After a failure: when a signal's clean-up is under way (it killed the connection), it ends the process. */
export async function awaitStop(state: StopState): Promise<void> {
  if (state.stopping) await new Promise(() => {});
}

export async function mysqlCheckCommand(file: string, options: MysqlCheckCliOptions): Promise<number> {
  const url = options.url ?? process.env.ROWSIM_MYSQL_URL;
  let points: SweepPoint[];
  let target: MysqlTarget;
  try {
    if (!url) throw new MysqlCheckError('expected --url mysql://user:password@host:port/ (or ROWSIM_MYSQL_URL), found neither');
    target = mysqlTarget(url);
    points = checkPoints(file);
  } catch (err) {
    if (!(err instanceof MysqlCheckError || err instanceof MysqlConnectionError || err instanceof InputError)) throw err;
    const where = err instanceof MysqlCheckError && url ? `${file}: ` : '';
    process.stderr.write(`${errorText(`mysql-check: ${where}${err.message}`)}\n`);
    return EXIT_INPUT;
  }
  const state: StopState = {};
  const unregister = dropOnInterrupt(target, state);
  let conn: MysqlConnection | undefined;
  try {
    conn = await connect(target);
    state.connectionId = Number(((await conn.query('SELECT CONNECTION_ID() AS id'))[0] as { id: number }[])[0]!.id);
    const results: MysqlCheckResult[] = [];
    for (const p of points) {
      results.push(
        await mysqlCheck(conn, p.spec, { label: p.label, connectionId: state.connectionId, onDatabase: (d) => (state.db = d), target }),
      );
    }
    process.stdout.write(options.json ? `${JSON.stringify({ config: file, results }, null, 2)}\n` : `${mysqlCheckText(results)}\n`);
    return EXIT_OK;
  } catch (err) {
    await awaitStop(state);
    const left = state.db ? `; scratch database ${state.db.ident} is left behind: drop it with ${state.db.dropSql}` : '';
    const message = target.redact(err instanceof Error ? err.message : String(err));
    if (err instanceof MysqlCheckError) process.stderr.write(`error: mysql-check: ${file}: ${message}${left}\n`);
    else if (isConnectionLost(err)) process.stderr.write(`error: mysql-check: lost the connection to ${target.shown}: ${message}${left}\n`);
    else if (err instanceof MysqlConnectionError || (err as { sqlMessage?: string }).sqlMessage !== undefined)
      process.stderr.write(`error: mysql-check: ${message}${left}\n`);
    else throw err;
    return err instanceof MysqlCheckError ? EXIT_INPUT : EXIT_EXTERNAL;
  } finally {
    if (conn) await closeConnection(conn);
    unregister();
  }
}
