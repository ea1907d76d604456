/**
 * The innodb format's character sets and comparisons against a live MariaDB. Record sizes: rowsim
 * mysql-check of one table in each row format, a column of the table's default set and one of its own
 * (CHAR in a multi-byte set is variable-length but for REDUNDANT): pages and records per index exact.
 * Comparisons, `col = p` with p of another type or character set: for every pair of types, a stored procedure with a parameter of the type runs EXPLAIN SELECT …
 * WHERE c = p on an indexed table of 20,000 rows; its access type (ref, eq_ref, const: a seek; range: a
 * range seek; ALL, index: a scan; error 1267: refused) must be what the rule says. Needs ROWSIM_MYSQL_URL
 * (npm test starts a throw-away server) unless ROWSIM_SKIP_MYSQL=1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseType } from '../src/config/column-types.js';
import { getFormat } from '../src/formats/registry.js';
import type { MysqlConnection } from '../src/mysqlcheck/connection.js';
import { col, engine } from './helpers/spec.js';
import { MYSQL_URL, mysqlCheckJson, mysqlConnect, needsMysql } from './helpers/mysql-live.js';

needsMysql('character sets and comparison rules against a live MariaDB');

/** A table of a default set (`charset`) with CHAR(20) in it and in a set of its own, in a row format. */
const sized = (engine: string, own: string) => `name: charsets
seed: 11
table:
  name: t
  columns:
    - { name: id, type: bigint }
    - { name: code, type: char(20) }
    - { name: tag, type: char(20) character set ${own} }
    - { name: note, type: varchar(100), null: true }
  indexes:
    - { name: t_pk, columns: [id], unique: true, clustered: true }
engine: { format: innodb, ${engine} }
workload:
  - insert: { rows: 10000, values: { note: { length: { uniform: [20, 90] } } } }
  - update: { rows: all, order: sequential, via: scan, set: { note: { length: 100 } } }
`;

describe.runIf(MYSQL_URL)('DEFAULT CHARSET and CHARACTER SET beside MariaDB', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-mysqlcharsets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cases: [string, string, string][] = [
    ['utf8mb4, a latin1 column, DYNAMIC', 'charset: utf8mb4', 'latin1'],
    ['latin1, a utf8mb4 column, COMPACT', 'charset: latin1, row_format: compact', 'utf8mb4'],
    ['utf8mb3, a latin1 column, REDUNDANT', 'charset: utf8mb3, row_format: redundant', 'latin1'],
  ];
  for (const [name, engine, own] of cases) {
    it(`${name}: pages and records per index exact after the load and the growth`, () => {
      const file = join(dir, `${own}-${name.length}.yaml`);
      writeFileSync(file, sized(engine, own));
      const result = mysqlCheckJson(file)[0]!;
      const figures = result.comparisons.filter((c) => /^(leaf_pages|size_pages|records)\./.test(c.metric));
      expect(figures.length).toBe(6);
      for (const c of figures) expect(c.predicted, `${c.label}: ${c.metric}`).toBe(c.observed);
    });
  }
});

/** Column types (rowsim's spelling, MariaDB's), with the table's default utf8mb4. */
const COLUMNS: { type: string; sql: string; value: string }[] = [
  { type: 'int', sql: 'INT', value: 'seq' },
  { type: 'bigint', sql: 'BIGINT', value: 'seq' },
  { type: 'decimal(12,2)', sql: 'DECIMAL(12,2)', value: 'seq' },
  { type: 'double', sql: 'DOUBLE', value: 'seq' },
  { type: 'varchar(36)', sql: 'VARCHAR(36)', value: 'seq' },
  { type: 'varchar(36) character set latin1', sql: 'VARCHAR(36) CHARACTER SET latin1', value: 'seq' },
  { type: 'varchar(36) character set utf8mb3', sql: 'VARCHAR(36) CHARACTER SET utf8mb3', value: 'seq' },
  { type: 'varchar(36) character set ascii', sql: 'VARCHAR(36) CHARACTER SET ascii', value: 'seq' },
  { type: 'char(10)', sql: 'CHAR(10)', value: 'seq' },
  { type: 'date', sql: 'DATE', value: "DATE'2000-01-01' + INTERVAL seq DAY" },
  { type: 'datetime', sql: 'DATETIME', value: "TIMESTAMP'2000-01-01 00:00:00' + INTERVAL seq DAY" },
  { type: 'varbinary(36)', sql: 'VARBINARY(36)', value: 'seq' },
];

/** Parameter types, with a value found in a table of numbers and one found in a table of dates. */
const PARAMETERS: { type: string; sql: string; value: string; date: string }[] = [
  { type: 'int', sql: 'INT', value: '5', date: '20000106' },
  { type: 'bigint', sql: 'BIGINT', value: '5', date: '20000106' },
  { type: 'decimal(12,2)', sql: 'DECIMAL(12,2)', value: '5', date: '20000106' },
  { type: 'double', sql: 'DOUBLE', value: '5', date: '20000106' },
  { type: 'varchar(36)', sql: 'VARCHAR(36)', value: "'5'", date: "'2000-01-06'" },
  { type: 'varchar(36) character set utf8mb4', sql: 'VARCHAR(36) CHARACTER SET utf8mb4', value: "'5'", date: "'2000-01-06'" },
  { type: 'varchar(36) character set latin1', sql: 'VARCHAR(36) CHARACTER SET latin1', value: "'5'", date: "'2000-01-06'" },
  { type: 'varchar(36) character set utf8mb3', sql: 'VARCHAR(36) CHARACTER SET utf8mb3', value: "'5'", date: "'2000-01-06'" },
  { type: 'varchar(36) character set ascii', sql: 'VARCHAR(36) CHARACTER SET ascii', value: "'5'", date: "'2000-01-06'" },
  { type: 'nvarchar(36)', sql: 'NVARCHAR(36)', value: "'5'", date: "'2000-01-06'" },
  { type: 'char(10) character set utf8mb4', sql: 'CHAR(10) CHARACTER SET utf8mb4', value: "'5'", date: "'2000-01-06'" },
  { type: 'date', sql: 'DATE', value: "'2000-01-06'", date: "'2000-01-06'" },
  { type: 'datetime', sql: 'DATETIME', value: "'2000-01-06 00:00:00'", date: "'2000-01-06 00:00:00'" },
  { type: 'varbinary(36)', sql: 'VARBINARY(36)', value: "'5'", date: "'2000-01-06'" },
];

type Access = 'seek' | 'scan' | 'error';

function accessOf(type: string | null): Access | `unexpected plan ${string}` {
  if (type === 'ref' || type === 'eq_ref' || type === 'const' || type === 'range') return 'seek';
  if (type === 'ALL' || type === 'index') return 'scan';
  return `unexpected plan ${String(type)}`;
}

describe.runIf(MYSQL_URL)('comparison rules against a live MariaDB', () => {
  let conn: MysqlConnection;
  const db = `rowsim_cmp_${process.pid}`;

  /** The plan's access type of `c = p` on table t<i>, p a procedure parameter of `sql` given `value`. */
  async function plan(i: number, sql: string, value: string): Promise<Access | string> {
    await conn.query(`DROP PROCEDURE IF EXISTS ${db}.q`);
    await conn.query(`CREATE PROCEDURE ${db}.q(IN p ${sql}) BEGIN EXPLAIN SELECT * FROM ${db}.t${i} WHERE c = p; END`);
    try {
      const [sets] = await conn.query(`CALL ${db}.q(${value})`);
      const rows = (sets as unknown as { type: string | null }[][])[0]!;
      return accessOf(rows[0]!.type);
    } catch (err) {
      if ((err as { errno?: number }).errno === 1267) return 'error';
      throw err;
    }
  }

  beforeAll(async () => {
    conn = await mysqlConnect();
    await conn.query(`CREATE DATABASE ${db} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
    await conn.query(`USE ${db}`);
    for (const [i, c] of COLUMNS.entries()) {
      await conn.query(`CREATE TABLE ${db}.t${i} (id INT AUTO_INCREMENT PRIMARY KEY, c ${c.sql}, KEY (c)) ENGINE=InnoDB`);
      await conn.query(`INSERT INTO ${db}.t${i} (c) SELECT ${c.value} FROM seq_1_to_20000`);
      await conn.query(`ANALYZE TABLE ${db}.t${i}`);
    }
  });
  afterAll(async () => {
    await conn?.query(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
    await conn?.end();
  });

  it("the plan of every column type against every parameter type is what innodb's rule says", async () => {
    const format = getFormat('innodb');
    const spec = engine({ format: 'innodb', charset: 'utf8mb4' });
    const off: string[] = [];
    for (const [i, c] of COLUMNS.entries()) {
      for (const p of PARAMETERS) {
        const rule = format.reads.comparison(col('c', c.type), parseType(p.type), spec);
        const server = await plan(i, p.sql, c.type === 'date' || c.type === 'datetime' ? p.date : p.value);
        const predicted = rule.access === 'range-seek' ? 'seek' : rule.access;
        if (predicted !== server) off.push(`${c.type} = ${p.type}: rowsim ${predicted} (${rule.expression}), MariaDB ${server}`);
      }
    }
    expect(off).toEqual([]);
  });

  it('the check itself: a latin1 column against a utf8mb4 parameter is a scan of a converted column', async () => {
    const latin1 = COLUMNS.findIndex((c) => c.type.includes('latin1'));
    expect(await plan(latin1, 'VARCHAR(36) CHARACTER SET utf8mb4', "'5'")).toBe('scan');
    expect(await plan(latin1, 'VARCHAR(36) CHARACTER SET latin1', "'5'")).toBe('seek');
    // A collation mix of one set is refused (collations are not modelled: both sides take the set's default).
    expect(await plan(4, 'VARCHAR(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci', "'5'")).toBe('error');
  });
});
