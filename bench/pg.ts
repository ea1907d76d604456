/**
 * The pg suite (`npm run bench -- --pg URL`): the storage suite's table and workload on a live
 * PostgreSQL beside the simulator, on the same number of rows (default 100,000: a row-by-row run takes
 * seconds there, not minutes). In a scratch schema it creates and drops (`rowsim_bench_<random>`):
 *
 * - row-by-row: one INSERT per row (a prepared statement, one round trip each), then one UPDATE per row
 *   by id in the simulator's random order, each phase in ONE transaction (BEGIN … COMMIT), as the
 *   simulator's phases commit once (transaction: statement). The rows and their lengths are the
 *   simulator's own, recorded by a WorkloadObserver;
 * - set-based: one INSERT … SELECT FROM generate_series, then one UPDATE of every row, each statement its
 *   own transaction, with lengths drawn by the server from the same distributions.
 *
 * The unique index on id is built between the phases and not timed, as the simulator builds its index
 * after the insert phase outside the phase's timing; ANALYZE likewise. The server's rows per wall-second
 * (the server's CPU cannot be read from here; the client's is in the note) beside the simulator's
 * (postgres-heap, the phases' wall time, one core), and simulator ÷ server for each.
 * Connecting and every message go through src/pgcheck/connection.ts (the password is never printed).
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { getFormat } from '../src/formats/registry.js';
import { closeClient, connect, isConnectionLost, PgConnectionError, pgTarget } from '../src/pgcheck/connection.js';
import { runStorage } from '../src/workload/runner.js';
import { measureEach, PhaseClock, sig3, timed, timingNote, type BenchLine, type Measurement, type Sample } from './harness.js';
import { storageBenchSpec } from './storage.js';
import type { SuiteContext } from './suite.js';
import { groupedNumber } from '../src/util/numbers.js';

/** The server refused the work (no right to create a schema, …): the bench prints it and exits 2. */
export class PgBenchError extends Error {}

/** The simulator's rows as the workload made them: body lengths at insert, then the update order and the grown lengths. */
export interface RecordedWorkload {
  insertLens: Uint16Array;
  updateRows: Int32Array;
  updateLens: Uint16Array;
}

const FORMAT = 'postgres-heap';
const STATUS = 'active  ';

/** Record the simulator's row operations on `rows` rows (the body column's stored length; it is never NULL here). */
export function recordWorkload(rows: number): RecordedWorkload {
  const spec = storageBenchSpec(rows, FORMAT, 'random');
  const layout = getFormat(FORMAT).rows.layout(spec.table, spec.engine);
  const body = layout.varying.findIndex((c) => c.name === 'body');
  const insertLens = new Uint16Array(rows);
  const updateRows = new Int32Array(rows);
  const updateLens = new Uint16Array(rows);
  let u = 0;
  runStorage(spec, {
    observer: {
      insert: (row, lens, base) => (insertLens[row] = lens[base + body]!),
      update: (row, _cols, lens, base) => {
        updateRows[u] = row;
        updateLens[u++] = lens[base + body]!;
      },
    },
  });
  if (u !== rows) throw new Error(`recordWorkload: expected ${rows} updates, found ${u}`);
  return { insertLens, updateRows, updateLens };
}

async function freshTable(client: pg.Client): Promise<void> {
  await client.query('DROP TABLE IF EXISTS bench');
  await client.query('CREATE TABLE bench (id int NOT NULL, status char(8) NOT NULL, body varchar(300)) WITH (fillfactor = 90)');
}

async function indexAndAnalyze(client: pg.Client): Promise<void> {
  await client.query('CREATE UNIQUE INDEX bench_pk ON bench (id)');
  await client.query('ANALYZE bench');
}

async function timedPhase(fn: () => Promise<void>): Promise<Sample> {
  return (await timed(fn)).sample;
}

async function rowByRow(client: pg.Client, w: RecordedWorkload): Promise<{ insert: Sample; update: Sample }> {
  await freshTable(client);
  const n = w.insertLens.length;
  const insert = await timedPhase(async () => {
    await client.query('BEGIN');
    for (let r = 0; r < n; r++) {
      await client.query({
        name: 'rowsim_bench_insert',
        text: `INSERT INTO bench (id, status, body) VALUES ($1, '${STATUS}', repeat('x', $2))`,
        values: [r, w.insertLens[r]],
      });
    }
    await client.query('COMMIT');
  });
  await indexAndAnalyze(client);
  const update = await timedPhase(async () => {
    await client.query('BEGIN');
    for (let i = 0; i < n; i++) {
      await client.query({
        name: 'rowsim_bench_update',
        text: `UPDATE bench SET body = repeat('y', $2) WHERE id = $1`,
        values: [w.updateRows[i], w.updateLens[i]],
      });
    }
    await client.query('COMMIT');
  });
  return { insert, update };
}

async function setBased(client: pg.Client, rows: number): Promise<{ insert: Sample; update: Sample }> {
  await freshTable(client);
  // The same distributions as the workload: body 0–40 characters, then grown by 20–150 up to its 300.
  const insert = await timedPhase(async () => {
    await client.query(
      `INSERT INTO bench (id, status, body) SELECT g, '${STATUS}', repeat('x', floor(random() * 41)::int) FROM generate_series(0, $1::int - 1) g`,
      [rows],
    );
  });
  await indexAndAnalyze(client);
  const update = await timedPhase(async () => {
    await client.query(`UPDATE bench SET body = left(body || repeat('y', 20 + floor(random() * 131)::int), 300)`);
  });
  return { insert, update };
}

function perWall(rows: number, m: Measurement): number {
  return rows / m.wall.median;
}

function wallLine(name: string, rows: number, m: Measurement, what: string): BenchLine {
  return {
    name,
    value: sig3(perWall(rows, m)),
    unit: 'rows/wall-s',
    note: `${what}; best run ${groupedNumber(sig3(rows / m.wall.min))}; ${timingNote(m)}`,
    measurement: m,
  };
}

export async function* benchPg(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  if (!ctx.pg) return;
  const { url, rows } = ctx.pg;
  // The simulator's JIT needs about a million rows to warm: small tables get more warm-up runs.
  const simOpts = { runs: ctx.runs, warmup: Math.max(1, Math.ceil(1e6 / rows)) };

  // The simulator on the same rows: its phases' wall time (one core).
  const spec = storageBenchSpec(rows, FORMAT, 'random');
  const sim = await measureEach(() => {
    const clock = new PhaseClock();
    runStorage(spec, { onPhase: clock.onPhase });
    return { insert: clock.phase(0), update: clock.phase(1) };
  }, simOpts);
  const server = await onServer(url, rows, { runs: ctx.runs, warmup: 1 });
  yield* pgLines(rows, sim, server);
}

interface ServerTimes {
  version: string;
  rowMs: Record<'insert' | 'update', Measurement>;
  setMs: Record<'insert' | 'update', Measurement>;
}

/** The workload row by row and set-based on the server at `url`, in a scratch schema dropped after. */
async function onServer(url: string, rows: number, opts: { runs: number; warmup: number }): Promise<ServerTimes> {
  const target = pgTarget(url);
  const client = await connect(target);
  const schema = `rowsim_bench_${randomBytes(6).toString('hex')}`;
  let created = false;
  let version = '';
  let rowMs: Record<'insert' | 'update', Measurement>;
  let setMs: Record<'insert' | 'update', Measurement>;
  try {
    version = String((await client.query('SHOW server_version')).rows[0]?.server_version ?? '').split(' ')[0]!;
    await client.query(`CREATE SCHEMA ${schema}`);
    created = true;
    await client.query(`SET search_path TO ${schema}`);
    const w = recordWorkload(rows);
    rowMs = await measureEach(() => rowByRow(client, w), opts);
    setMs = await measureEach(() => setBased(client, rows), opts);
  } catch (err) {
    const message = target.redact(
      `PostgreSQL at ${target.shown}: ${(err as Error).message}${created ? ` (if the scratch schema is left: DROP SCHEMA ${schema} CASCADE)` : ''}`,
    );
    throw isConnectionLost(err) ? new PgConnectionError(message) : new PgBenchError(message);
  } finally {
    if (created) {
      // A failure inside BEGIN … COMMIT leaves the transaction aborted: end it before the DROP.
      await client.query('ROLLBACK').catch(() => undefined);
      await client
        .query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
        .catch(() =>
          process.stderr.write(`npm run bench: could not drop the scratch schema; drop it by hand: DROP SCHEMA ${schema} CASCADE\n`),
        );
    }
    await closeClient(client);
  }
  return { version, rowMs, setMs };
}

/** The lines of the pg suite: the server's rates, the simulator's, and their ratios. */
function* pgLines(rows: number, sim: Record<'insert' | 'update', Measurement>, server: ServerTimes): Generator<BenchLine> {
  const { version, rowMs, setMs } = server;
  const size = `${groupedNumber(rows)} rows`;
  const pgName = `PostgreSQL ${version}`;
  const simName = `simulator (${FORMAT}, one core)`;
  const lines: [string, Measurement, string][] = [
    [
      `pg: ${pgName} row-by-row inserts, ${size}`,
      rowMs.insert,
      'one prepared INSERT per row, one round trip each, the phase in one transaction',
    ],
    [
      `pg: ${pgName} row-by-row random-order growing updates, ${size}`,
      rowMs.update,
      "one prepared UPDATE … WHERE id = $1 per row in the simulator's random order, the phase in one transaction",
    ],
    [`pg: ${pgName} set-based insert, ${size}`, setMs.insert, 'one INSERT … SELECT FROM generate_series (its own transaction)'],
    [`pg: ${pgName} set-based growing update of every row, ${size}`, setMs.update, 'one UPDATE of every row (its own transaction)'],
  ];
  // The CPU in these notes is the client's (this process): the server's is not read.
  for (const [name, m, what] of lines) yield wallLine(name, rows, m, `${what}; the CPU is this client's`);
  yield wallLine(`pg: ${simName} inserts, ${size}`, rows, sim.insert, "the insert phase's row operations (onPhase), the same rows");
  yield wallLine(
    `pg: ${simName} random-order growing updates, ${size}`,
    rows,
    sim.update,
    "the update phase's row operations (onPhase), the same rows and order",
  );
  for (const [kind, phase, m] of [
    ['row-by-row', 'insert', rowMs.insert],
    ['row-by-row', 'update', rowMs.update],
    ['set-based', 'insert', setMs.insert],
    ['set-based', 'update', setMs.update],
  ] as const) {
    const ratio = perWall(rows, sim[phase]) / perWall(rows, m);
    yield {
      name: `pg: simulator ÷ ${pgName}, ${kind} ${phase === 'insert' ? 'inserts' : 'growing updates'}, ${size}`,
      value: sig3(ratio),
      unit: '×',
      note: 'rows per wall-second, medians, both measured in this run',
      detail: { simulator_rows_per_wall_s: perWall(rows, sim[phase]), server_rows_per_wall_s: perWall(rows, m) },
    };
  }
}

/** Connect once and disconnect, before any suite runs: an unreachable server is found at once. */
export async function checkPgReachable(url: string): Promise<string> {
  const target = pgTarget(url);
  const client = await connect(target);
  try {
    return String((await client.query('SHOW server_version')).rows[0]?.server_version ?? '');
  } finally {
    await closeClient(client);
  }
}
