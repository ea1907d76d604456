/**
 * mysql-check must never put a user's databases at risk and must not leave its own behind: a database
 * named like its own but not marked as this run's is left alone, a signal mid-run drops the run's
 * database from a second connection, a killed connection is told as lost; and no password is printed.
 * Runs against the live server of ROWSIM_MYSQL_URL (a throw-away one of this file's own under npm test).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeConnection,
  connect,
  isConnectionLost,
  mysqlTarget,
  MysqlConnectionError,
  type MysqlConnection,
} from '../src/mysqlcheck/connection.js';
import { mysqlReplay } from '../src/mysqlcheck/replay.js';
import { MARKER_TABLE, ScratchDatabase } from '../src/mysqlcheck/scratch.js';
import { ROOT } from './helpers/cli.js';
import { MYSQL_URL, mysqlConnect, needsMysql, specOf } from './helpers/mysql-live.js';

needsMysql('mysql-check safety');

const BIG = `name: big
table:
  name: t
  columns: [{ name: id, type: bigint }, { name: pad, type: varchar(200) }]
  indexes: [{ name: t_pk, columns: [id], unique: true, clustered: true }]
engine: { format: sqlserver-heap }
workload:
  - insert: { rows: 400000, transaction: batch(500), values: { pad: { length: 150 } } }
`;

const schemas = async (conn: MysqlConnection, prefix: string): Promise<string[]> => {
  const [r] = await conn.query('SELECT SCHEMA_NAME AS n FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?', [`${prefix}%`]);
  return (r as { n: string }[]).map((x) => x.n);
};

async function until<T>(what: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.runIf(MYSQL_URL)('mysql-check safety on a live MariaDB', () => {
  let conn: MysqlConnection;
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-mysqlsafe-'));
  beforeAll(async () => {
    conn = await mysqlConnect();
  });
  afterAll(async () => {
    if (conn) await closeConnection(conn);
    rmSync(dir, { recursive: true, force: true });
  });

  it("leaves alone a database by its name that does not carry this run's token; drops its own; says when it is gone", async () => {
    const own = await ScratchDatabase.create(conn, `rowsim_own_${process.pid}`, 42);
    const [marker] = await conn.query(`SELECT token, note FROM ${own.ident}.${MARKER_TABLE}`);
    expect((marker as { token: string; note: string }[])[0]).toMatchObject({
      token: own.token,
      note: expect.stringContaining('connection 42'),
    });
    const user = ScratchDatabase.plan(`rowsim_user_${process.pid}`, 1);
    await conn.query(`CREATE DATABASE ${user.ident}`);
    await conn.query(`CREATE TABLE ${user.ident}.keep (a INT)`);
    expect(await user.drop(conn)).toBe('not-ours');
    await conn.query(`CREATE TABLE ${user.ident}.${MARKER_TABLE} (token CHAR(24), note VARCHAR(400))`);
    await conn.query(`INSERT INTO ${user.ident}.${MARKER_TABLE} VALUES ('another run', '')`);
    expect(await user.drop(conn)).toBe('not-ours');
    expect(await schemas(conn, user.name)).toEqual([user.name]);
    await conn.query(user.dropSql);
    // Created by this process, but its marker now holds another run's token: left alone.
    await conn.query(`UPDATE ${own.ident}.${MARKER_TABLE} SET token = 'another run'`);
    expect(await own.drop(conn)).toBe('not-ours');
    await conn.query(`UPDATE ${own.ident}.${MARKER_TABLE} SET token = ?`, [own.token]);
    expect(await own.drop(conn)).toBe('dropped');
    expect(await own.drop(conn)).toBe('absent');
  });

  it('a wrong password: one line, exit-2 class error, without the password', async () => {
    const u = new globalThis.URL(MYSQL_URL!);
    u.password = 'wrong-pw-3141';
    const err = await connect(mysqlTarget(u.href)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MysqlConnectionError);
    expect((err as Error).message).toMatch(/^cannot connect to mysql:\/\/rowsim:\*\*\*@127\.0\.0\.1:\d+\/: Access denied/);
    expect((err as Error).message).not.toContain('wrong-pw-3141');
  });

  it('a killed connection mid-replay is told as lost', async () => {
    const victim = await mysqlConnect();
    const [[{ id }]] = (await victim.query('SELECT CONNECTION_ID() AS id')) as unknown as [[{ id: number }]];
    const prefix = `rowsim_kill_${process.pid}`;
    const run = mysqlReplay(victim, specOf(BIG), { connectionId: id, databasePrefix: prefix }).catch((e: unknown) => e);
    await until(async () => ((await schemas(conn, prefix)).length > 0 ? true : undefined));
    await conn.query(`KILL ${id}`);
    const err = await run;
    expect(isConnectionLost(err)).toBe(true);
    for (const name of await schemas(conn, prefix)) await conn.query(`DROP DATABASE \`${name}\``);
    await closeConnection(victim);
  });

  /** A child replaying BIG under the CLI's signal handling; `setup` is code run before the replay. */
  function spawnReplay(prefix: string, setup = '') {
    const script = join(dir, `${prefix}.mjs`);
    const dist = (p: string) => pathToFileURL(join(ROOT, 'dist', p)).href;
    writeFileSync(join(dir, 'big.yaml'), BIG);
    writeFileSync(
      script,
      `import { loadConfig } from '${dist('loader/config.js')}';
import { mysqlReplay } from '${dist('mysqlcheck/replay.js')}';
import { connect, mysqlTarget } from '${dist('mysqlcheck/connection.js')}';
import { scratchHooks } from '${dist('mysqlcheck/scratch.js')}';
import { awaitStop, dropOnInterrupt } from '${dist('cli/mysql-check.js')}';
${setup}
const target = mysqlTarget(process.env.ROWSIM_MYSQL_URL);
const conn = await connect(target);
const state = {};
dropOnInterrupt(target, state);
const [[{ id }]] = await conn.query('SELECT CONNECTION_ID() AS id');
state.connectionId = id;
const loaded = loadConfig(${JSON.stringify(join(dir, 'big.yaml'))}).storage[0].spec;
const spec = { ...loaded, engine: { ...loaded.engine, page_size: 16384 } };
await mysqlReplay(conn, spec, { connectionId: id, databasePrefix: '${prefix}', onDatabase: (d) => (state.db = d) }).catch(async (err) => {
  await awaitStop(state);
  throw err;
});
`,
    );
    const child = spawn(process.execPath, [script], { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = { stdout: '', stderr: '', exited: false };
    child.stdout.on('data', (d) => (out.stdout += d));
    child.stderr.on('data', (d) => (out.stderr += d));
    const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    void ended.then(() => (out.exited = true));
    return { child, out, ended };
  }

  async function expectDroppedBySignal(prefix: string, run: ReturnType<typeof spawnReplay>) {
    run.child.kill('SIGINT');
    const end = await run.ended;
    const { stderr } = run.out;
    expect(end.signal === 'SIGINT' || end.code === 130, stderr).toBe(true);
    expect(stderr).toMatch(/rowsim mysql-check: stopped; scratch database `rowsim_sig\w*_\d+_[0-9a-f]{12}` dropped/);
    expect(stderr).not.toContain(mysqlTarget(MYSQL_URL!).password);
    expect(await schemas(conn, prefix)).toEqual([]);
  }

  it('SIGINT mid-replay: the database is dropped from a second connection and the process ends by the signal', async () => {
    const prefix = `rowsim_sig_${process.pid}`;
    const run = spawnReplay(prefix);
    await until(async () => {
      if (run.out.exited) throw new Error(`the child ended before its database appeared: ${run.out.stderr}`);
      return (await schemas(conn, prefix)).length > 0 ? true : undefined;
    });
    await expectDroppedBySignal(prefix, run);
  });

  it('SIGINT between CREATE DATABASE and its marker: the database, created by this process, is still dropped', async () => {
    const prefix = `rowsim_sigmark_${process.pid}`;
    const hold = `scratchHooks.afterCreateDatabase = (s) => { process.stdout.write('created ' + s.name + '\\n'); return new Promise(() => {}); };`;
    const run = spawnReplay(prefix, hold);
    const name = await until(async () => {
      if (run.out.exited) throw new Error(`the child ended before its database was created: ${run.out.stderr}`);
      return /created (\w+)/.exec(run.out.stdout)?.[1];
    });
    expect(await schemas(conn, prefix)).toEqual([name]);
    const [tables] = await conn.query('SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?', [name]);
    expect(tables).toEqual([]);
    await expectDroppedBySignal(prefix, run);
  });
});
