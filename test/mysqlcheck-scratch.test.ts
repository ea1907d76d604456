/**
 * Whose scratch database it is, without a server: a fake connection answers as MariaDB does between
 * CREATE DATABASE and the marker (the database listed, no marker table). The live side of the same
 * window is in test/mysqlcheck-safety.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { MysqlConnection } from '../src/mysqlcheck/connection.js';
import { ScratchDatabase, scratchHooks } from '../src/mysqlcheck/scratch.js';

/** A connection whose CREATE DATABASE answers when `answer` is called; the database then has no marker. */
function fakeServer() {
  const sent: string[] = [];
  let answer: (ok: boolean) => void = () => {};
  const noMarker = Object.assign(new Error("Table 'x.rowsim_marker' doesn't exist"), { errno: 1146 });
  const conn = {
    query: (sql: string) => {
      sent.push(sql);
      if (sql.startsWith('CREATE DATABASE'))
        return new Promise((resolve, reject) => (answer = (ok) => (ok ? resolve([{}]) : reject(new Error('Connection lost')))));
      if (sql.startsWith('SELECT SCHEMA_NAME')) return Promise.resolve([[{ SCHEMA_NAME: 'x' }]]);
      if (sql.startsWith('SELECT token')) return Promise.reject(noMarker);
      return Promise.resolve([{}]);
    },
  } as unknown as MysqlConnection;
  return { conn, sent, answer: (ok: boolean) => answer(ok) };
}

describe('mysql-check scratch database: created here, marker not yet written', () => {
  it('is dropped once its CREATE DATABASE succeeded in this session; a name only planned is not', async () => {
    const server = fakeServer();
    let db: ScratchDatabase | undefined;
    let release: () => void = () => {};
    scratchHooks.afterCreateDatabase = () => new Promise<void>((r) => (release = r));
    try {
      const creating = ScratchDatabase.create(server.conn, 'rowsim_t', 1, (s) => (db = s));
      let settled = false;
      const waiting = db!.settled(60_000).then(() => (settled = true));
      await new Promise((r) => setTimeout(r, 20));
      expect(settled).toBe(false);
      server.answer(true);
      await waiting;
      expect(await db!.drop(server.conn)).toBe('dropped');
      expect(server.sent.at(-1)).toBe(db!.dropSql);
      expect(await ScratchDatabase.plan('rowsim_t', 1).drop(server.conn)).toBe('not-ours');
      release();
      await creating;
    } finally {
      delete scratchHooks.afterCreateDatabase;
    }
  });

  it('is left alone when its CREATE DATABASE failed or its answer was lost', async () => {
    const server = fakeServer();
    let db: ScratchDatabase | undefined;
    const creating = ScratchDatabase.create(server.conn, 'rowsim_t', 1, (s) => (db = s)).catch((e: unknown) => e);
    server.answer(false);
    await db!.settled(60_000);
    expect(await db!.drop(server.conn)).toBe('not-ours');
    expect(await creating).toBeInstanceOf(Error);
  });
});
