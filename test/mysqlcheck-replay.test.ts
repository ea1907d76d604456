/**
 * mysql-check's replay on a live MariaDB (a throw-away server of this file's own under npm test:
 * test/helpers/mariadb-cluster.ts): the config's rows, changes and rebuilds sent as a user's SQL, and the
 * server's figures after every phase. The figures are checked by what must hold whatever the page
 * model: a two-level B+tree's pages hold every row once plus a node pointer per leaf (so the records
 * say how many rows reached the server, and that the purge removed every delete-marked record), rows
 * grown in place split the pages, a rebuild leaves no free extent; and the statements sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeConnection, type MysqlConnection } from '../src/mysqlcheck/connection.js';
import { mysqlReplay, type ReplayResult } from '../src/mysqlcheck/replay.js';
import { loadConfig } from '../src/loader/config.js';
import { recordTrace } from '../src/mysqlcheck/trace.js';
import { MYSQL_URL, mysqlConnect, needsMysql, specOf } from './helpers/mysql-live.js';

needsMysql('mysql-check replay');

const ROWS = 20_000;

const table = (idType = 'bigint') => `
table:
  name: t
  columns:
    - { name: id, type: ${idType} }
    - { name: k, type: int }
    - { name: pad, type: varchar(200), null: true }
  indexes:
    - { name: t_pk, columns: [id], unique: true, clustered: true }
engine: { format: sqlserver-heap }
`;

const byIndex = (r: ReplayResult, phase: number, index: string) => r.phases[phase]!.figures.indexes.find((f) => f.index === index)!;
/**
 * Rows in a two-level index whose pages are all in the pool: its records less the root's node pointers
 * (one a leaf: every page but the root). Pages freed by a merge keep their last records in the pool
 * until reused, so after merges this counts a few more.
 */
const rowsOf = (r: ReplayResult, phase: number, index = 'PRIMARY') =>
  byIndex(r, phase, index).records - (byIndex(r, phase, index).pool_pages - 1);

describe.runIf(MYSQL_URL)('mysql-check replay on a live MariaDB', () => {
  let conn: MysqlConnection;
  beforeAll(async () => {
    conn = await mysqlConnect();
  });
  afterAll(async () => {
    if (conn) await closeConnection(conn);
  });

  it('key-order load, growth by one set-based UPDATE, random deletes by key, OPTIMIZE TABLE; the database dropped after', async () => {
    const spec = specOf(`name: seq
seed: 5
${table()}
workload:
  - insert: { rows: ${ROWS}, values: { pad: { length: 100 } } }
  - update: { rows: all, order: sequential, via: scan, set: { pad: { length: 180 } } }
  - delete: { rows: 50%, order: random, transaction: row }
  - reorg: rebuild
`);
    const seen: (string | undefined)[] = [];
    const r = await mysqlReplay(conn, spec, { connectionId: 1, onDatabase: (d) => seen.push(d?.name) });
    expect(r.create_sql).toMatch(/^CREATE TABLE `t` \(.*PRIMARY KEY \(`id`\)\) ENGINE=InnoDB ROW_FORMAT=DYNAMIC /);
    expect(rowsOf(r, 0)).toBe(ROWS);
    // Key order fills each leaf to 15/16: about 118 records of 128 bytes (pad 100 bytes) a leaf.
    expect(ROWS / byIndex(r, 0, 'PRIMARY').leaf_pages!).toBeGreaterThan(110);
    expect(ROWS / byIndex(r, 0, 'PRIMARY').leaf_pages!).toBeLessThan(120);
    expect(r.phases[1]!.sends).toEqual(['UPDATE `t` SET `pad` = ?']);
    expect(rowsOf(r, 1)).toBe(ROWS);
    expect(byIndex(r, 1, 'PRIMARY').leaf_pages).toBeGreaterThan(1.9 * byIndex(r, 0, 'PRIMARY').leaf_pages!);
    expect(r.phases[2]!.sends[0]).toBe(`DELETE FROM \`t\` WHERE \`id\` = ? (${ROWS / 2} statements, a transaction a row)`);
    // Purged: no delete-marked record left (a few records of pages the merges freed may linger in the pool).
    expect(rowsOf(r, 2)).toBeGreaterThanOrEqual(ROWS / 2);
    expect(rowsOf(r, 2)).toBeLessThan(ROWS / 2 + 500);
    expect(r.phases[3]!.sends).toEqual(['OPTIMIZE TABLE `t`']);
    expect(r.phases[3]!.figures.data_free).toBe(0);
    expect(byIndex(r, 3, 'PRIMARY').size_pages).toBeLessThan(byIndex(r, 2, 'PRIMARY').size_pages!);
    expect(seen).toEqual([r.database, undefined]);
    const [left] = await conn.query('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [r.database]);
    expect(left).toEqual([]);
  });

  it('random keys leave the leaves fuller than half and emptier than a key-order load', async () => {
    const load = (order: string) =>
      mysqlReplay(
        conn,
        specOf(
          `name: keys\n${table('binary(16)')}\nworkload:\n  - insert: { rows: ${ROWS}, values: { id: { order: ${order} }, pad: { length: 100 } } }\n`,
        ),
        {
          connectionId: 1,
        },
      );
    const seq = await load('ascending');
    const rnd = await load('random');
    expect(rowsOf(seq, 0)).toBe(ROWS);
    expect(rowsOf(rnd, 0)).toBe(ROWS);
    const ratio = byIndex(rnd, 0, 'PRIMARY').leaf_pages! / byIndex(seq, 0, 'PRIMARY').leaf_pages!;
    expect(ratio).toBeGreaterThan(1.2);
    expect(ratio).toBeLessThan(1.9);
  });

  it('a secondary index built after the load; a key change on random rows staged and joined; the purge leaves one entry a row', async () => {
    const spec = specOf(`name: sec
seed: 9
${table().replace('    - { name: t_pk', '    - { name: t_k, columns: [k] }\n    - { name: t_pk')}
workload:
  - insert: { rows: ${ROWS}, values: { pad: { length: { uniform: [50, 150] } } } }
  - update: { rows: 30%, order: random, via: scan, set: { k: changed, pad: { grow: 20 } } }
  - update: { rows: 10%, order: random, rollback: true, set: { pad: { length: 190 } } }
`);
    const r = await mysqlReplay(conn, spec, { connectionId: 1 });
    expect(r.indexes.map((i) => i.server)).toEqual(['t_k', 'PRIMARY']);
    expect(r.phases[0]!.sends).toContain('CREATE INDEX `t_k` ON `t` (`k`)');
    expect(rowsOf(r, 0, 't_k')).toBe(ROWS);
    expect(r.phases[1]!.sends[0]).toMatch(
      /^UPDATE `t` t JOIN rowsim_stage s ON t.`id` = s.k0 SET t.`k` = s.v1, t.`pad` = s.v2 \(6000 rows staged/,
    );
    // Each changed key was delete-marked and inserted again: once purged, about one entry a row (not 6,000 more).
    expect(rowsOf(r, 1, 't_k')).toBeGreaterThanOrEqual(ROWS);
    expect(rowsOf(r, 1, 't_k')).toBeLessThan(ROWS + 300);
    expect(r.phases[2]!.sends[0]).toMatch(/\(2000 statements, one transaction, rolled back\)$/);
    expect(rowsOf(r, 2)).toBeGreaterThanOrEqual(ROWS);
    expect(rowsOf(r, 2)).toBeLessThan(ROWS + 300);
  });

  it("a range of keys in one statement with BETWEEN; a page size other than the server's refused before anything is created", async () => {
    const yaml = `name: range\n${table()}\nworkload:\n  - insert: { rows: 5000, values: { pad: { length: 100 } } }\n  - delete: { rows: 10%, order: newest, via: range }\n  - update: { rows: 20%, order: sequential, via: range, set: { pad: { length: 150 } } }\n`;
    const r = await mysqlReplay(conn, specOf(yaml), { connectionId: 1 });
    expect(r.phases[1]!.sends).toEqual(['DELETE FROM `t` WHERE `id` BETWEEN ? AND ?']);
    // (pages the merges freed may linger in the pool with their last records)
    expect(rowsOf(r, 1)).toBeGreaterThanOrEqual(4500);
    expect(rowsOf(r, 1)).toBeLessThan(4500 + 150);
    expect(r.phases[2]!.sends).toEqual(['UPDATE `t` SET `pad` = ? WHERE `id` BETWEEN ? AND ?']);
    const told: unknown[] = [];
    const err = await mysqlReplay(conn, specOf(yaml, { page_size: 8192 }), { connectionId: 1, onDatabase: (d) => told.push(d) }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).toBe(
      "engine.page_size is 8192 bytes, the server's innodb_page_size 16384: a server's page size is chosen when its data directory is created",
    );
    expect(told).toEqual([]);
  });

  it("with the model's trace: its keys, its key changes and its rows, every statement accepted", async () => {
    const yaml = `name: traced
seed: 13
${table().replace('    - { name: t_pk', '    - { name: t_k, columns: [k] }\n    - { name: t_pk')}
workload:
  - insert: { rows: ${ROWS}, values: { id: { order: random }, k: { order: random }, pad: { length: 100 } } }
  - update: { rows: 30%, order: random, via: scan, set: { k: { order: random }, pad: { grow: 40 } } }
  - delete: { rows: 10%, order: oldest, via: range }
  - update: { rows: 5%, order: random, transaction: row, set: { pad: { length: 20 } } }
`;
    const { trace } = recordTrace(loadConfig('traced.yaml', yaml).storage[0]!.spec);
    const r = await mysqlReplay(conn, specOf(yaml), { connectionId: 1, trace });
    expect(rowsOf(r, 0)).toBe(ROWS);
    expect(rowsOf(r, 0, 't_k')).toBe(ROWS);
    expect(r.phases[1]!.sends[0]).toMatch(/JOIN rowsim_stage s .* \(6000 rows staged/);
    // The range runs over the first index's leading column (k), as the model's did.
    expect(r.phases[2]!.sends).toEqual(['DELETE FROM `t` WHERE `k` BETWEEN ? AND ?']);
    expect(rowsOf(r, 2)).toBeGreaterThanOrEqual(ROWS - 2000);
    expect(rowsOf(r, 2)).toBeLessThan(ROWS - 2000 + 300);
    expect(r.phases[3]!.sends[0]).toMatch(/\(900 statements, a transaction a row\)$/);
  });
});
