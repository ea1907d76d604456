/**
 * postgres-heap's rule for comparing a column with a parameter of another type, held against a live
 * PostgreSQL: for every pair of types, the server's plan for `col = $1::type` (an index scan, a
 * sequential scan, or an error) must be what the rule says. Needs ROWSIM_PG_URL (npm test starts a
 * throw-away cluster) unless ROWSIM_SKIP_PG=1.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseType } from '../src/config/column-types.js';
import { getFormat } from '../src/formats/registry.js';
import { col, engine } from './helpers/spec.js';

const URL = process.env.ROWSIM_PG_URL;
const SKIP = process.env.ROWSIM_SKIP_PG === '1';

if (!URL && !SKIP) {
  describe('comparison rules against a live PostgreSQL', () => {
    it('needs a server', () => {
      throw new Error(
        'ROWSIM_PG_URL is not set: start a throw-away cluster with eval "$(.ci/pg-cluster.sh start)", or set ROWSIM_SKIP_PG=1 to skip the live PostgreSQL tests on purpose',
      );
    });
  });
}

/** Column types with a value of each that every parameter type below can be cast from in SQL. */
const COLUMNS: { type: string; pgType: string }[] = [
  { type: 'int', pgType: 'integer' },
  { type: 'bigint', pgType: 'bigint' },
  { type: 'smallint', pgType: 'smallint' },
  { type: 'numeric(12,2)', pgType: 'numeric(12,2)' },
  { type: 'float', pgType: 'double precision' },
  { type: 'varchar(36)', pgType: 'varchar(36)' },
  { type: 'text', pgType: 'text' },
  { type: 'char(10)', pgType: 'char(10)' },
  { type: 'date', pgType: 'date' },
  { type: 'timestamp', pgType: 'timestamp' },
  { type: 'uuid', pgType: 'uuid' },
];
const PARAMETERS: { type: string; literal: string }[] = [
  { type: 'int', literal: "'5'::integer" },
  { type: 'bigint', literal: "'5'::bigint" },
  { type: 'numeric(12,2)', literal: "'5'::numeric(12,2)" },
  { type: 'float', literal: "'5'::double precision" },
  { type: 'varchar(36)', literal: "'5'::varchar(36)" },
  { type: 'text', literal: "'5'::text" },
  { type: 'char(10)', literal: "'5'::char(10)" },
  { type: 'timestamp', literal: "'2020-01-01'::timestamp" },
  { type: 'uuid', literal: "'00000000-0000-0000-0000-000000000005'::uuid" },
];

describe.skipIf(!URL)('comparison rules against a live PostgreSQL', () => {
  let client: pg.Client;
  const schema = `rowsim_cmp_${process.pid}`;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: URL });
    client.on('error', () => undefined);
    await client.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    // Enough rows, and fresh statistics, that the planner prefers an index when it can use one.
    for (const [i, c] of COLUMNS.entries()) {
      await client.query(`CREATE TABLE ${schema}.t${i} (c ${c.pgType})`);
      const value =
        c.pgType.startsWith('date') || c.pgType.startsWith('timestamp')
          ? "date '2020-01-01' + g"
          : c.pgType === 'uuid'
            ? "('00000000-0000-0000-0000-' || lpad(g::text, 12, '0'))::uuid"
            : 'g';
      await client.query(`INSERT INTO ${schema}.t${i} SELECT (${value})::${c.pgType} FROM generate_series(1, 20000) g`);
      await client.query(`CREATE INDEX ON ${schema}.t${i} (c)`);
      await client.query(`ANALYZE ${schema}.t${i}`);
    }
    await client.query('SET enable_bitmapscan = off');
  });
  afterAll(async () => {
    await client?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await client?.end();
  });

  it("the plan of every column type against every parameter type is what postgres-heap's rule says", async () => {
    const format = getFormat('postgres-heap');
    const mismatches: string[] = [];
    let checked = 0;
    for (const [i, c] of COLUMNS.entries()) {
      for (const p of PARAMETERS) {
        const rule = format.reads.comparison(col('c', c.type), parseType(p.type), engine({ format: 'postgres-heap' }));
        let server: 'seek' | 'scan' | 'error';
        try {
          const plan = await client.query(`EXPLAIN (FORMAT TEXT) SELECT * FROM ${schema}.t${i} WHERE c = ${p.literal}`);
          const text = plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
          server = /Index (Only )?Scan/.test(text) ? 'seek' : 'scan';
        } catch (err) {
          const e = err as { code?: string; message: string };
          // A value the column's type cannot take is not the comparison's fault: such pairs are not in the lists.
          if (e.code !== '42883') throw err;
          server = 'error';
        }
        const predicted = rule.access === 'range-seek' ? 'seek' : rule.access;
        checked++;
        if (predicted !== server)
          mismatches.push(`${c.type} = ${p.type}: rowsim says ${predicted} (${rule.expression}), PostgreSQL ${server}`);
      }
    }
    expect(checked).toBe(COLUMNS.length * PARAMETERS.length);
    expect(mismatches).toEqual([]);
  });

  it('the check itself: a rule that says the opposite would be caught', async () => {
    // An int column against a numeric value: the server scans; a rule saying "seek" must not pass.
    const plan = await client.query(`EXPLAIN SELECT * FROM ${schema}.t0 WHERE c = '5'::numeric(12,2)`);
    const text = plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    expect(text).toMatch(/Seq Scan/);
    expect(text).toMatch(/::numeric/);
  });
});
