/**
 * `rowsim pg-check config.yaml --url postgres://…`: the config's table and workload on a live
 * PostgreSQL, prediction beside observation (src/pgcheck/check.ts), one section per storage point
 * (every postgres-heap point of a sweep, every document of a multi-document file). Exit status 2 for a
 * bad config, a statement the server refuses (one line: the point, the phase, the row, the server's
 * error), a connection that cannot be made or is lost, 130 / 143 / 129 when stopped by SIGINT / SIGTERM / SIGHUP; what
 * it created on the server is dropped in every case it can be (src/pgcheck/guard.ts).
 */
import type { RefusalCheck } from '../pgcheck/refusal.js';
import type pg from 'pg';
import { errorText, InputError } from '../config/errors.js';
import { configDocuments } from '../loader/source.js';
import { loadConfig } from '../loader/config.js';
import { postgresHeap } from '../formats/postgres.js';
import { engineForFormat } from '../formats/registry.js';
import type { SweepPoint } from '../config/spec.js';
import { PgCheckError, PgServerError, pgCheck, planCheck, type Comparison, type PgCheckResult, type PlanCheck } from '../pgcheck/check.js';
import { EXIT_EXTERNAL, EXIT_INPUT, EXIT_OK } from './exit-codes.js';
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

const signed = (n: number, text: string) => `${n > 0 ? '+' : ''}${text}`;

/** One line on a point's figures: how many were compared, how many exactly, the largest relative error; the select phases' plans. */
function pointSummary(cs: Comparison[], plans: PlanCheck[]): string {
  const compared = cs.filter((c) => c.diff !== null);
  const exact = compared.filter((c) => c.diff === 0).length;
  const worst = compared
    .filter((c) => c.diff_pct !== null && c.diff !== 0)
    .sort((a, b) => Math.abs(b.diff_pct!) - Math.abs(a.diff_pct!))[0];
  const notModelled = cs.filter((c) => c.predicted === null).length;
  const missing = cs.filter((c) => c.predicted !== null && c.observed === null).length;
  const parts = [`${compared.length} figures compared, ${exact} exact`];
  if (worst)
    parts.push(`largest error ${signed(worst.diff_pct!, worst.diff_pct!.toFixed(2))}% (${worst.metric} after phase ${worst.phase + 1})`);
  if (notModelled > 0) parts.push(`${notModelled} observed but not modelled`);
  if (missing > 0) parts.push(`${missing} not observed (n/a)`);
  if (plans.length > 0) {
    const differ = plans.filter((p) => !p.agree);
    parts.push(
      `${plans.length - differ.length} of ${plans.length} select plans as predicted${differ.length > 0 ? ` (not: phase ${differ.map((p) => p.phase + 1).join(', ')})` : ''}`,
    );
  }
  return parts.join('; ');
}

/** Each phase's replay: the config's statement or an approximation, what was sent, and why; runs of phases alike told once. */
function replayLines(r: PgCheckResult): string[] {
  const text = (x: PgCheckResult['replays'][number]) =>
    `${x.replay === 'statement' ? 'the statement the config describes' : `an approximation (${x.why.join('; ')})`}: ${x.sends.join('; ')}`;
  const out: string[] = [];
  for (let i = 0; i < r.replays.length;) {
    const t = text(r.replays[i]!);
    let j = i + 1;
    while (j < r.replays.length && text(r.replays[j]!) === t) j++;
    const phases = j - i > 1 ? `phases ${r.replays[i]!.phase + 1}–${r.replays[j - 1]!.phase + 1}` : `phase ${r.replays[i]!.phase + 1}`;
    out.push(`replay, ${phases} (${r.replays[i]!.op}): ${t}`);
    i = j;
  }
  return out;
}

function pgCheckText(results: PgCheckResult[]): string {
  const out: string[] = [];
  results.forEach((r, i) => {
    out.push(
      `== ${results.length > 1 ? `${i + 1}/${results.length} ` : ''}${r.label}: table ${r.table}, ${r.settings} (PostgreSQL ${r.server_version})`,
    );
    const replayOf = (phase: number) => r.replays.find((x) => x.phase === phase)?.replay ?? '';
    out.push(
      textTable(
        ['phase', 'replay', 'metric', 'predicted', 'observed', 'error', 'error %'],
        r.comparisons.map((c) => [
          `${c.phase + 1}. ${c.label}`,
          replayOf(c.phase),
          c.metric,
          c.predicted === null ? 'not modelled' : fmt(c.predicted),
          c.observed === null ? 'n/a' : fmt(c.observed),
          c.diff === null ? '' : signed(c.diff, fmt(c.diff)),
          c.diff_pct === null ? '' : signed(c.diff_pct, c.diff_pct.toFixed(2)),
        ]),
      ),
    );
    for (const p of r.plans) {
      out.push(
        `plan, phase ${p.phase + 1}. ${p.label}: rowsim ${p.predicted}; server ${p.observed}${p.agree ? '' : ' (NOT the predicted plan)'}`,
      );
      out.push(`  for ${p.statement}`);
    }
    out.push(...replayLines(r));
    if (r.refusal) out.push(refusalLine(r.refusal));
    out.push(pointSummary(r.comparisons, r.plans));
    for (const n of r.notes) out.push(`note: ${n}`);
    out.push('');
  });
  return out.join('\n');
}

/** The statement the simulation stops at, beside the server's error. */
function refusalLine(f: RefusalCheck): string {
  const verdict = f.agree ? 'the server refused it as predicted' : 'NOT as predicted';
  return `stopped, phase ${f.phase + 1}: ${f.statement}: rowsim predicts ERROR: ${f.predicted}; ${verdict}: ${f.observed}`;
}

/** An input problem of pg-check's own: printed on stderr, and its exit status. */
class CheckRefused extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The points to check: every storage point of every document of the file, each one pg-check can replay. */
function checkPoints(file: string): { points: SweepPoint[]; note: string | undefined } {
  let note: string | undefined;
  const points: SweepPoint[] = [];
  try {
    // A file of several configs separated by `---` (as rowsize reads them): every document is checked.
    const docs = configDocuments(file);
    const texts: (string | undefined)[] = docs.length > 1 ? docs : [undefined];
    for (const text of texts) {
      const cfg = loadConfig(file, text);
      const got = pgPoints(cfg.storage);
      points.push(...got.points.map((p) => (texts.length > 1 ? { ...p, label: `${cfg.name}: ${p.label}` } : p)));
      note ??= got.note;
    }
  } catch (err) {
    if (err instanceof InputError) throw new CheckRefused(err.message, EXIT_INPUT);
    throw err;
  }
  if (points.length === 0) throw new CheckRefused(`${file}: expected a storage config (table, engine, workload), found none`, EXIT_INPUT);
  // What cannot be replayed faithfully is refused before connecting (the simulation runs again in the check).
  for (const p of points) {
    try {
      planCheck(p.spec);
    } catch (err) {
      if (!(err instanceof PgCheckError)) throw err;
      throw new CheckRefused(`${file}: ${points.length > 1 ? `${p.label}: ` : ''}${err.message}`, EXIT_INPUT);
    }
  }
  return { points, note };
}

export async function pgCheckCommand(file: string, options: PgCheckCliOptions): Promise<number> {
  const url = options.url ?? process.env.ROWSIM_PG_URL;
  let work: { points: SweepPoint[]; note: string | undefined; target: PgTarget };
  try {
    if (!url) throw new CheckRefused('pg-check: expected --url postgres://user@host:port/db (or ROWSIM_PG_URL), found neither', EXIT_INPUT);
    work = { ...checkPoints(file), target: pgTargetOf(url) };
  } catch (err) {
    if (!(err instanceof CheckRefused)) throw err;
    process.stderr.write(`${errorText(err.message)}\n`);
    return err.status;
  }
  const { target } = work;
  const guard = new CheckGuard(target);
  guard.listen();
  try {
    const results = await checkAll(guard, target, work.points, work.note);
    if (!results) return await guard.stopped!;
    if (options.json) process.stdout.write(`${JSON.stringify({ config: file, results }, null, 2)}\n`);
    else process.stdout.write(`${pgCheckText(results)}\n`);
    // A point the server stops (an index entry over its limit): the config asks for what the server refuses.
    return results.some((r) => r.refusal) ? EXIT_INPUT : EXIT_OK;
  } catch (err) {
    return await checkFailed(err, guard, target);
  } finally {
    if (guard.client) await closeClient(guard.client);
    guard.unlisten();
  }
}

/** The server's address, or a refusal with exit status EXIT_EXTERNAL when the URL cannot be used. */
function pgTargetOf(url: string): PgTarget {
  try {
    return pgTarget(url);
  } catch (err) {
    if (err instanceof PgConnectionError) throw new CheckRefused(`pg-check: ${err.message}`, EXIT_EXTERNAL);
    throw err;
  }
}

/** A check that failed: what is printed, and the exit status (a signal's cleanup has the last word). */
async function checkFailed(err: unknown, guard: CheckGuard, target: PgTarget): Promise<number> {
  if (guard.stopped) return await guard.stopped;
  const at = err instanceof PointFailure && err.label ? `${err.label}: ` : '';
  const cause = err instanceof PointFailure ? err.cause : err;
  if (cause instanceof PgConnectionError) {
    process.stderr.write(`error: pg-check: ${at}${cause.message}\n`);
    return EXIT_EXTERNAL;
  }
  if (isConnectionLost(cause)) {
    const line = await guard.lost(cause);
    // A signal during the reconnect: its own cleanup has the last word.
    if (guard.stopped) return await guard.stopped;
    process.stderr.write(`error: pg-check: ${at}${line}\n`);
    return EXIT_EXTERNAL;
  }
  if (cause instanceof PgCheckError || cause instanceof PgServerError) {
    // The check dropped its schema unless the drop failed too: then it says what is left.
    const left = guard.schema ? `; ${guard.leftBehind()}` : '';
    process.stderr.write(`error: pg-check: ${at}${target.redact(cause.message)}${left}\n`);
    return cause instanceof PgCheckError ? EXIT_INPUT : EXIT_EXTERNAL;
  }
  throw redacted(cause, target);
}

/** Check every point over one connection; undefined when a signal stopped the run. */
async function checkAll(
  guard: CheckGuard,
  target: PgTarget,
  points: SweepPoint[],
  note: string | undefined,
): Promise<PgCheckResult[] | undefined> {
  const client: pg.Client = await connect(target, { onError: (err) => (guard.lostReason ??= target.redact(err.message)) });
  guard.client = client;
  guard.backendPid = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  const results: PgCheckResult[] = [];
  for (const p of points) {
    // A signal's cleanup runs between statements: stop before starting anything new.
    if (guard.stopped) return undefined;
    let r: PgCheckResult;
    try {
      r = await pgCheck(client, p.spec, { label: p.label, backendPid: guard.backendPid, onSchema: (s) => (guard.schema = s) });
    } catch (err) {
      // With several points the message names the one that failed.
      throw new PointFailure(points.length > 1 ? p.label : '', err);
    }
    if (note) r.notes.unshift(note);
    results.push(r);
  }
  return guard.stopped ? undefined : results;
}

/** A point's check failed: the error, and the point to name in its message. */
class PointFailure extends Error {
  constructor(
    readonly label: string,
    override readonly cause: unknown,
  ) {
    super(`${label}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** An unexpected error, rethrown with the password masked in its message and stack. */
function redacted(err: unknown, target: PgTarget): unknown {
  if (err instanceof Error) {
    err.message = target.redact(err.message);
    if (err.stack) err.stack = target.redact(err.stack);
  }
  return err;
}
