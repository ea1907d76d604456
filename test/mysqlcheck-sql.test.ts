/**
 * mysql-check without a server: the DDL of a config's table, the values it sends (keys that sort and
 * never repeat), which rows a phase reaches, the model beside the server, the format it refuses, the
 * password it never prints, and the command's bad arguments (exit 2).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkFormat, compareFigures, innodbFigures, MysqlCheckError, type InnodbModelFigures } from '../src/mysqlcheck/check.js';
import { mysqlTarget, MysqlConnectionError } from '../src/mysqlcheck/connection.js';
import type { ReplayResult } from '../src/mysqlcheck/replay.js';
import { pickRows, RowState } from '../src/mysqlcheck/rows.js';
import { mysqlReplay, SEND_CHARS, SEND_STATEMENTS, StatementQueue, batchWords } from '../src/mysqlcheck/replay.js';
import mysql from 'mysql2/promise';
import { scramble, tablePlan, valueOf } from '../src/mysqlcheck/sql.js';
import { rankKeys, recordTrace } from '../src/mysqlcheck/trace.js';
import { mysqlCheckText } from '../src/cli/mysql-check.js';
import { loadConfig } from '../src/loader/config.js';
import { runStorage } from '../src/workload/runner.js';
import { rowsim } from './helpers/cli.js';
import { specOf } from './helpers/mysql-live.js';

const YAML = `name: t
seed: 3
table:
  name: orders
  columns:
    - { name: id, type: bigint }
    - { name: k, type: int }
    - { name: code, type: varchar(40) }
    - { name: pad, type: varchar(200), null: true }
  indexes:
    - { name: orders_pk, columns: [id], unique: true, clustered: true }
    - { name: orders_k, columns: [k] }
    - { name: orders_code, columns: [code] }
engine: { format: sqlserver-heap }
workload:
  - insert: { rows: 1000, values: { pad: { length: 100 } } }
`;

describe('the table as MySQL DDL', () => {
  it('clusters by the PRIMARY KEY, builds indexes before or after the load as the config says, states row format and charset', () => {
    const plan = tablePlan(specOf(YAML).table, { ...specOf(YAML).engine, row_format: 'compact', encoding: 'utf8' } as never);
    expect(plan.createSql).toBe(
      'CREATE TABLE `orders` (`id` BIGINT NOT NULL, `k` INT NOT NULL, `code` VARCHAR(40) NOT NULL, `pad` VARCHAR(200), PRIMARY KEY (`id`)) ENGINE=InnoDB ROW_FORMAT=COMPACT DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin',
    );
    expect(plan.laterIndexes).toEqual(['CREATE INDEX `orders_k` ON `orders` (`k`)', 'CREATE INDEX `orders_code` ON `orders` (`code`)']);
    const before = specOf(YAML.replace(/(columns: \[(k|code|id)\])/g, '$1, when: before_load'));
    const inline = tablePlan(before.table, before.engine);
    expect(inline.laterIndexes).toEqual([]);
    expect(inline.createSql).toContain('PRIMARY KEY (`id`), KEY `orders_k` (`k`), KEY `orders_code` (`code`))');
    expect(plan.indexes.map((i) => i.server)).toEqual(['PRIMARY', 'orders_k', 'orders_code']);
    expect(plan.primary).toEqual([0]);
  });

  it("states the table's DEFAULT CHARSET (engine charset), a column's own CHARACTER SET, NVARCHAR's utf8mb3", () => {
    const yaml = YAML.replace('format: sqlserver-heap', 'format: innodb')
      .replace('type: varchar(40) }', 'type: varchar(40) character set latin1 }')
      .replace('type: varchar(200)', 'type: nvarchar(200)');
    const spec = specOf(yaml);
    const plan = tablePlan(spec.table, { ...spec.engine, charset: 'utf8mb3' } as never);
    expect(plan.createSql).toContain('`code` VARCHAR(40) CHARACTER SET latin1 NOT NULL, `pad` VARCHAR(200) CHARACTER SET utf8mb3,');
    expect(plan.createSql).toMatch(/DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_bin$/);
  });

  it("finds rows by the UNIQUE NOT NULL index InnoDB clusters by when none is marked clustered (a DDL's PRIMARY KEY (id))", () => {
    const ddl = specOf(YAML.replace('unique: true, clustered: true', 'unique: true'));
    const plan = tablePlan(ddl.table, ddl.engine);
    expect(plan.createSql).toContain('UNIQUE KEY `orders_pk` (`id`)');
    expect(plan.indexes[0]).toEqual({ config: 'orders_pk', server: 'orders_pk' });
    expect(plan.primary).toEqual([0]);
  });

  it('names GEN_CLUST_INDEX when InnoDB makes its own row id, and refuses a clustered index that is not unique', () => {
    const noKey = YAML.replace('unique: true, clustered: true', 'unique: false');
    expect(tablePlan(specOf(noKey).table, specOf(noKey).engine).indexes[0]).toEqual({ config: null, server: 'GEN_CLUST_INDEX' });
    const notUnique = YAML.replace('unique: true, clustered: true', 'clustered: true');
    expect(() => tablePlan(specOf(notUnique).table, specOf(notUnique).engine)).toThrow(/PRIMARY KEY, which is unique/);
    expect(() => tablePlan(specOf(YAML).table, { ...specOf(YAML).engine, row_format: 'fancy' } as never)).toThrow(
      /row_format: expected one of/,
    );
  });
});

describe('values', () => {
  it('scramble is a bijection on [1, 2^31): random keys never repeat', () => {
    const seen = new Set<number>();
    for (let c = 1; c <= 200_000; c++) seen.add(scramble(c));
    expect(seen.size).toBe(200_000);
    expect([...seen].every((v) => v > 0 && v < 2 ** 31)).toBe(true);
  });

  it('keyed text sorts by its code and has the drawn length; unkeyed text is filler; NULL is −1', () => {
    const plan = tablePlan(specOf(YAML).table, specOf(YAML).engine);
    const code = plan.columns[2]!;
    const a = valueOf(code, 35, 20) as string;
    const b = valueOf(code, 36, 20) as string;
    expect(a.length).toBe(20);
    expect(a < b).toBe(true);
    expect(valueOf(plan.columns[3]!, 5, 100)).toBe('x'.repeat(100));
    expect(valueOf(plan.columns[3]!, 5, -1)).toBeNull();
  });
});

describe('rows a phase reaches', () => {
  const state = new RowState(tablePlan(specOf(YAML).table, specOf(YAML).engine).columns);
  for (let i = 0; i < 10; i++) {
    const r = state.add();
    state.codes.forEach((c) => (c[r] = 10 - i));
    state.units.forEach((u) => (u[r] = 1));
    state.fills.forEach((f) => (f[r] = 0));
  }
  const phase = (order: string, via: string, rows = 4) =>
    ({ op: 'delete', rows: { kind: 'count', n: rows }, order: { kind: order }, via, transaction: 'statement' }) as never;

  it('index: the phase order; scan: the same rows met in key order; range: consecutive keys', () => {
    expect(pickRows(state, phase('sequential', 'index'), [0], 0, 1, 0)).toEqual([0, 1, 2, 3]);
    expect(pickRows(state, phase('newest', 'index'), [0], 0, 1, 0)).toEqual([6, 7, 8, 9]);
    expect(pickRows(state, phase('sequential', 'scan'), [0], 0, 1, 0)).toEqual([3, 2, 1, 0]);
    expect(pickRows(state, phase('sequential', 'range'), [0], 0, 1, 0)).toEqual([9, 8, 7, 6]);
    const random = pickRows(state, phase('random', 'index', 10), [0], 0, 1, 0);
    expect([...random].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(() =>
      pickRows(state, { ...(phase('sequential', 'index') as object), order: { kind: 'zipf', s: 1 } } as never, [0], 0, 1, 0),
    ).toThrow(/zipf/);
  });
});

describe('model beside server', () => {
  const replay: ReplayResult = {
    server_version: 'x',
    database: 'd',
    create_sql: '',
    indexes: [{ config: 'orders_pk', server: 'PRIMARY' }],
    phases: [
      {
        phase: 0,
        op: 'insert',
        sends: [],
        notes: [],
        figures: {
          indexes: [{ index: 'PRIMARY', leaf_pages: 848, size_pages: 865, pool_pages: 849, records: 100_848, avg_data_size: 15_094.5 }],
          data_length: 14_172_160,
          index_length: 0,
          data_free: 4_194_304,
          table_rows: 99_216,
        },
      },
    ],
  };

  it('puts each figure beside the model, finding an index by the config name too; not modelled where the run has none', () => {
    const model: InnodbModelFigures = {
      indexes: { orders_pk: { leaf_pages: 840, size_pages: 865, records: 100_848 } },
      data_length: 14_172_160,
      index_length: 0,
      data_free: 0,
    };
    const cs = compareFigures([model], replay, ['insert 100000 rows']);
    const leaf = cs.find((c) => c.metric === 'leaf_pages.PRIMARY')!;
    expect(leaf).toMatchObject({ predicted: 840, observed: 848, diff: 8, diff_pct: 0.94 });
    expect(cs.find((c) => c.metric === 'data_free')).toMatchObject({ predicted: 0, observed: 4_194_304 });
    expect(compareFigures([null], replay, []).every((c) => c.predicted === null)).toBe(true);
    expect(innodbFigures({ metrics: { innodb: model } } as never)).toBe(model);
    expect(innodbFigures({ metrics: {} } as never)).toBeNull();
  });

  it('prints a table a row a figure, then what each phase sent and the notes', () => {
    const comparisons = compareFigures([null], replay, ['insert 100000 rows']);
    const text = mysqlCheckText([
      {
        label: 'base',
        table: 'orders',
        server_version: '10.11.19-MariaDB',
        create_sql: 'CREATE TABLE `orders` (…)',
        notes: ['a note'],
        comparisons,
        replays: [{ phase: 0, op: 'insert', sends: ['INSERT INTO `orders` … (500 rows a statement, one transaction)'], notes: [] }],
      },
    ]);
    const lines = text.split('\n');
    expect(lines[0]).toBe('== base: table orders (10.11.19-MariaDB)');
    expect(lines.find((l) => l.includes('leaf_pages.PRIMARY'))).toMatch(
      /^1\. insert 100000 rows\s+leaf_pages\.PRIMARY\s+not modelled\s+848\s*$/,
    );
    expect(text).toContain('replay, phase 1 (insert): INSERT INTO `orders` … (500 rows a statement, one transaction)');
    expect(text).toContain('note: a note');
  });

  it('refuses a config of another format, naming both', () => {
    expect(() => checkFormat(specOf(YAML))).toThrow(MysqlCheckError);
    expect(() => checkFormat(specOf(YAML))).toThrow(
      /expected engine.format: innodb \(the format mysql-check compares\), found sqlserver-heap/,
    );
  });
});

/** A connection that answers what the replay asks and keeps every statement with its parameters. */
function fakeConnection(sent: { sql: string; params: unknown[] }[]) {
  let token = '';
  let database = '';
  const run = async (sql: string, params: unknown[] = []) => {
    sent.push({ sql, params });
    if (sql.startsWith('SELECT VERSION()')) return [[{ v: 'fake', page: 16_384 }]];
    if (sql.startsWith('CREATE DATABASE')) database = /`([^`]+)`/.exec(sql)![1]!;
    if (sql.includes('rowsim_marker VALUES')) token = String(params[0]);
    if (sql.startsWith('SELECT SCHEMA_NAME')) return [[{ SCHEMA_NAME: database }]];
    if (sql.startsWith('SELECT token')) return [[{ token }]];
    return [[]];
  };
  // The replay formats each statement and sends several joined (StatementQueue): each is kept as given.
  const formatted: { sql: string; params: unknown[] }[] = [];
  return {
    format: (sql: string, params: unknown[]) => `\u0000${formatted.push({ sql, params }) - 1}`,
    query: async (sql: string, params: unknown[] = []) => {
      if (!sql.includes(';\n') && !sql.startsWith('\u0000')) return run(sql, params);
      for (const part of sql.split(';\n')) {
        const f = part.startsWith('\u0000') ? formatted[Number(part.slice(1))]! : { sql: part, params: [] };
        await run(f.sql, f.params);
      }
      return [[]];
    },
  };
}

describe("the model's run replayed as it went (trace)", () => {
  it('ranks keys per column: equal keys equal codes, NULL −1, unkeyed left alone', () => {
    const phases = [
      [
        { row: 0, codes: Float64Array.of(0.7, NaN), lens: null },
        { row: 1, codes: Float64Array.of(0.2, NaN), lens: null },
      ],
      [
        { row: 2, codes: Float64Array.of(Infinity, NaN), lens: null },
        { row: 0, codes: Float64Array.of(0.7, NaN), lens: null },
      ],
    ];
    rankKeys(phases, 2);
    expect(phases.flat().map((t) => t.codes[0])).toEqual([2, 1, -1, 2]);
    expect(Number.isNaN(phases[0]![0]!.codes[1]!)).toBe(true);
  });

  it("sends the model's keys in its order and deletes the rows it deleted", async () => {
    const yaml = `name: trace
seed: 4
table:
  name: t
  columns: [{ name: id, type: bigint }, { name: pad, type: varchar(50) }]
  indexes: [{ name: t_pk, columns: [id], unique: true, clustered: true }]
engine: { format: sqlserver-heap }
workload:
  - insert: { rows: 300, values: { id: { order: random }, pad: { length: { uniform: [0, 50] } } } }
  - delete: { rows: 10%, order: random }
`;
    // The model runs the config as written (SQL Server's 8K pages); the replay on the 16K server.
    const { trace } = recordTrace(loadConfig('trace.yaml', yaml).storage[0]!.spec);
    const spec = specOf(yaml);
    const sent: { sql: string; params: unknown[] }[] = [];
    await mysqlReplay(fakeConnection(sent) as never, spec, { connectionId: 1, trace });
    const ids = sent.filter((x) => x.sql.startsWith('INSERT INTO `t`')).flatMap((x) => x.params.filter((_, i) => i % 2 === 0));
    expect(ids).toEqual(trace.phases[0]!.map((t) => t.codes![0]));
    expect([...ids].sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    // The lengths too: the replay draws from the runner's own streams, value by value.
    const lens: number[] = [];
    runStorage(loadConfig('trace.yaml', yaml).storage[0]!.spec, { observer: { insert: (_row, l, base) => lens.push(l[base]!) } });
    const pads = sent.filter((x) => x.sql.startsWith('INSERT INTO `t`')).flatMap((x) => x.params.filter((_, i) => i % 2 === 1));
    expect(pads.map((p) => (p as string).length)).toEqual(lens);
    expect(new Set(lens).size).toBeGreaterThan(20);
    const codeOf = new Map(trace.phases[0]!.map((t) => [t.row, t.codes![0]]));
    const deleted = sent.filter((x) => x.sql.startsWith('DELETE FROM `t`')).map((x) => x.params[0]);
    expect(deleted).toEqual(trace.phases[1]!.map((t) => codeOf.get(t.row)));
    expect(deleted).toHaveLength(30);
    expect(sent.at(-1)!.sql).toMatch(/^DROP DATABASE `rowsim_check_[0-9a-f]{12}`$/);
  });
});

describe('URLs and passwords', () => {
  it('reads user, password, host, port and database, and shows the URL without its password', () => {
    const t = mysqlTarget('mysql://rowsim:s3cr%40t@127.0.0.1:3307/db');
    expect(t).toMatchObject({ user: 'rowsim', password: 's3cr@t', host: '127.0.0.1', port: 3307, database: 'db' });
    expect(t.shown).toBe('mysql://rowsim:***@127.0.0.1:3307/db');
    expect(t.redact('failed for s3cr@t and s3cr%40t at mysql://rowsim:s3cr%40t@127.0.0.1:3307/db')).not.toMatch(/s3cr/);
  });

  it('refuses what is not a mysql:// URL, without the password', () => {
    expect(() => mysqlTarget('postgres://u:hunter2@h/db')).toThrow(MysqlConnectionError);
    try {
      mysqlTarget('mysql:/u:hunter2@h/db');
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2');
    }
  });
});

describe('rowsim mysql-check: bad arguments exit 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-mysqlcheck-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'c.yaml');
  writeFileSync(file, YAML);

  it('no URL, a URL that is not one, a config of another format: one line each, no password', () => {
    const env = { ROWSIM_MYSQL_URL: '' };
    const none = rowsim(['mysql-check', file], undefined, env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/expected --url mysql:\/\//);
    const bad = rowsim(['mysql-check', file, '--url', 'http://u:hunter2@h/'], undefined, env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).not.toContain('hunter2');
    const other = rowsim(['mysql-check', file, '--url', 'mysql://u:hunter2@127.0.0.1:1/'], undefined, env);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^error: mysql-check: \S*c\.yaml: expected engine.format: innodb .*, found sqlserver-heap\n$/);
    expect(other.stderr).not.toContain('hunter2');
    const missing = rowsim(['mysql-check', join(dir, 'nope.yaml'), '--url', 'mysql://u@127.0.0.1:1/'], undefined, env);
    expect(missing.code).toBe(2);
  });
});

describe('mysql-check: statements go several a round trip (StatementQueue)', () => {
  /** A connection that formats as mysql2 does and keeps the queries it is sent. */
  const recorder = () => {
    const sent: string[] = [];
    const conn = {
      format: (sql: string, values?: unknown) => mysql.format(sql, values as Parameters<typeof mysql.format>[1]),
      query: async (text: string) => {
        sent.push(text);
        return [[], []];
      },
    } as unknown as ConstructorParameters<typeof StatementQueue>[0];
    return { sent, conn };
  };

  it('each statement formatted as alone, in order; a query at SEND_STATEMENTS statements, the rest at flush', async () => {
    const { sent, conn } = recorder();
    const q = new StatementQueue(conn);
    const n = 2 * SEND_STATEMENTS + 7;
    await q.send('START TRANSACTION');
    for (let i = 1; i < n; i++) await q.send('DELETE FROM `t` WHERE `id` = ? AND `pad` = ?', [i, `a'; DROP TABLE t; -- ${i}`]);
    expect(sent).toHaveLength(2);
    await q.flush();
    await q.flush();
    expect(sent).toHaveLength(3);
    const statements = sent.flatMap((t) => t.split(';\n'));
    expect(sent.map((t) => t.split(';\n').length)).toEqual([SEND_STATEMENTS, SEND_STATEMENTS, 7]);
    expect(statements[0]).toBe('START TRANSACTION');
    for (let i = 1; i < n; i++)
      expect(statements[i]).toBe(mysql.format('DELETE FROM `t` WHERE `id` = ? AND `pad` = ?', [i, `a'; DROP TABLE t; -- ${i}`]));
    expect(statements[5]).toBe("DELETE FROM `t` WHERE `id` = 5 AND `pad` = 'a\\'; DROP TABLE t; -- 5'");
  });

  it('a query holds at most SEND_CHARS of text (a longer statement goes alone); a refused query fails the flush', async () => {
    const { sent, conn } = recorder();
    const q = new StatementQueue(conn);
    const big = 'x'.repeat(SEND_CHARS / 2 - 100);
    for (let i = 0; i < 3; i++) await q.send('INSERT INTO `t` VALUES (?)', [big]);
    await q.send('INSERT INTO `t` VALUES (?)', ['y'.repeat(SEND_CHARS)]);
    await q.send('COMMIT');
    await q.flush();
    expect(sent.map((t) => t.split(';\n').length)).toEqual([2, 1, 1, 1]);
    expect(sent.every((t, i) => i === 2 || t.length <= SEND_CHARS)).toBe(true);
    const failing = new StatementQueue({
      format: (sql: string) => sql,
      query: async () => {
        throw new Error('refused');
      },
    } as unknown as ConstructorParameters<typeof StatementQueue>[0]);
    await failing.send('SELECT 1');
    await expect(failing.flush()).rejects.toThrow(/^refused$/);
    // A batch's error names the statements sent together, the first and the last.
    await failing.send('START TRANSACTION');
    await failing.send(`UPDATE \`t\` SET \`pad\` = '${'z'.repeat(200)}'`);
    await failing.send('COMMIT');
    await expect(failing.flush()).rejects.toThrow(`refused (in one of 3 statements sent together, from START TRANSACTION to COMMIT)`);
    expect(batchWords(['a', 'b'.repeat(150)])).toBe(`one of 2 statements sent together, from a to ${'b'.repeat(100)}…`);
  });
});
