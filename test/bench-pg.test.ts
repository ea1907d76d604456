/**
 * npm run bench's pg suite against a live PostgreSQL (ROWSIM_PG_URL; npm test starts a throw-away
 * cluster): it prints the server's and the simulator's lines and the ratios, and leaves no scratch
 * schema behind, also when the server refuses the work. No test asserts a timing.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BENCH_DIST } from '../bench/paths.js';

const URL = process.env.ROWSIM_PG_URL;
const SKIP = process.env.ROWSIM_SKIP_PG === '1';
const BENCH = join(BENCH_DIST, 'index.js');

if (!URL && !SKIP) {
  describe('the bench beside a live PostgreSQL', () => {
    it('needs a server', () => {
      throw new Error(
        'ROWSIM_PG_URL is not set: start a throw-away cluster with eval "$(.ci/pg-cluster.sh start)", or set ROWSIM_SKIP_PG=1 to skip the live PostgreSQL tests on purpose',
      );
    });
  });
}

describe.skipIf(!URL)('the bench beside a live PostgreSQL', () => {
  let client: pg.Client;
  const leftovers = async () =>
    (await client.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rowsim\\_bench\\_%'`)).rows.map((r) => r.nspname as string);
  beforeAll(async () => {
    client = new pg.Client({ connectionString: URL });
    client.on('error', () => undefined);
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
  });

  it('runs the workload row by row and set-based, beside the simulator on the same rows, and drops its schema', async () => {
    const before = await leftovers();
    const r = spawnSync(process.execPath, [BENCH, 'pg', '--pg', URL!, '--pg-rows', '2000', '--runs', '1'], {
      encoding: 'utf8',
      timeout: 300_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^machine: \d+ cores {2}\(os\.availableParallelism; load average /);
    const pgLines = lines.filter((l) => l.startsWith('pg: '));
    expect(pgLines.map((l) => l.replace(/: [\d,.]+ .*$/, ''))).toEqual([
      expect.stringMatching(/^pg: PostgreSQL \S+ row-by-row inserts, 2,000 rows$/),
      expect.stringMatching(/^pg: PostgreSQL \S+ row-by-row random-order growing updates, 2,000 rows$/),
      expect.stringMatching(/^pg: PostgreSQL \S+ set-based insert, 2,000 rows$/),
      expect.stringMatching(/^pg: PostgreSQL \S+ set-based growing update of every row, 2,000 rows$/),
      'pg: simulator (postgres-heap, one core) inserts, 2,000 rows',
      'pg: simulator (postgres-heap, one core) random-order growing updates, 2,000 rows',
      expect.stringMatching(/^pg: simulator ÷ PostgreSQL \S+, row-by-row inserts, 2,000 rows$/),
      expect.stringMatching(/^pg: simulator ÷ PostgreSQL \S+, row-by-row growing updates, 2,000 rows$/),
      expect.stringMatching(/^pg: simulator ÷ PostgreSQL \S+, set-based inserts, 2,000 rows$/),
      expect.stringMatching(/^pg: simulator ÷ PostgreSQL \S+, set-based growing updates, 2,000 rows$/),
    ]);
    for (const l of pgLines.slice(0, 6)) expect(l).toMatch(/ rows\/wall-s {2}\(.*1 run after \d+ warm-ups?\)$/);
    expect(pgLines[0]).toContain('one prepared INSERT per row, one round trip each, the phase in one transaction');
    expect(await leftovers()).toEqual(before);
  });

  it('a server that refuses the work (no right to create a schema): a message, exit 2, nothing left behind', async () => {
    const role = `rowsim_bench_nocreate_${process.pid}`;
    try {
      await client.query(`CREATE ROLE ${role} LOGIN`);
    } catch (err) {
      // Not a superuser's URL (a server of your own): this case needs one.
      console.warn(`skipped: cannot create a role here (${(err as Error).message})`);
      return;
    }
    const before = await leftovers();
    try {
      const url = new globalThis.URL(URL!);
      url.username = role;
      url.password = '';
      const r = spawnSync(process.execPath, [BENCH, 'pg', '--pg', url.href, '--pg-rows', '1000', '--runs', '1'], {
        encoding: 'utf8',
        timeout: 300_000,
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^npm run bench: PostgreSQL at postgres:\/\/.*permission denied for database/m);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(await leftovers()).toEqual(before);
    } finally {
      await client.query(`DROP ROLE IF EXISTS ${role}`);
    }
  });
});
