/**
 * Update and delete phases that reach their rows in one statement (`via: scan`, `via: range`) against a
 * live PostgreSQL. The figure of merit is the statement a user writes, sent here by hand and not by
 * rowsim: 20 rounds of `UPDATE sess SET data = repeat(…)` over 1,000 rows of 200 bytes at fillfactor 100,
 * each round its own transaction (a sequential scan prunes each page once, when it reaches it), and the
 * same rounds as one `UPDATE … WHERE id = $1` a row (each index fetch prunes the row's page). The model
 * (rowsim run) and pg-check's replay of sim-configs/pg-check/whole-table-updates.yaml must both come
 * within 5% of the server's HOT updates and heap pages, for each. Needs ROWSIM_PG_URL (npm test starts a
 * throw-away cluster) unless ROWSIM_SKIP_PG=1.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgCheck, type PgCheckResult } from '../src/pgcheck/check.js';
import { runStorage } from '../src/workload/runner.js';
import { ROOT } from './helpers/cli.js';
import { at, needsServer, spec, URL } from './helpers/pg-live.js';

needsServer('pg-check set-based updates against a live PostgreSQL');

const DB = `rowsim_scan_${process.pid}`;
const CONFIG = readFileSync(join(ROOT, 'sim-configs/pg-check/whole-table-updates.yaml'), 'utf8');
/** The same config with its updates found one row at a time through the index (via: index, the default). */
const BY_INDEX = CONFIG.replaceAll('via: scan, ', '');

function inDatabase(url: string, db: string): string {
  const u = new globalThis.URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** The heap's HOT updates and pages after the user's own statements (`oneStatement`: one UPDATE a round, else one a row). */
async function byHand(client: pg.Client, oneStatement: boolean): Promise<{ hot: number; pages: number }> {
  await client.query('DROP TABLE IF EXISTS sess');
  await client.query('CREATE TABLE sess (id int PRIMARY KEY, data text) WITH (fillfactor = 100, autovacuum_enabled = off)');
  await client.query(`INSERT INTO sess SELECT g, repeat('x', 200) FROM generate_series(1, 1000) g`);
  for (let r = 1; r <= 20; r++) {
    if (oneStatement) await client.query('UPDATE sess SET data = repeat(chr(97 + $1::int % 26), 200)', [r]);
    else {
      // One UPDATE a row, each found through the primary key (a server-side loop: the same statements
      // without 1,000 round trips a round), the round one transaction.
      await client.query(
        `DO $$ BEGIN SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off;
           FOR i IN 1..1000 LOOP UPDATE sess SET data = repeat(chr(97 + ${r} % 26), 200) WHERE id = i; END LOOP; END $$`,
      );
    }
  }
  await client.query('SELECT pg_stat_force_next_flush()');
  await client.query('SELECT pg_stat_clear_snapshot()');
  const r = await client.query(
    `SELECT n_tup_hot_upd AS hot, pg_relation_size('sess') / current_setting('block_size')::int AS pages FROM pg_stat_user_tables WHERE relname = 'sess'`,
  );
  await client.query('DROP TABLE sess');
  return { hot: Number(r.rows[0].hot), pages: Number(r.rows[0].pages) };
}

const within5 = (got: number, want: number) => Math.abs(got - want) <= 0.05 * want;

/** The last phase's predicted and observed figure of `metric`. */
function last(r: PgCheckResult, metric: string): { predicted: number | null; observed: number | null } {
  const c = at(r.comparisons, metric, 20)[0]!;
  return { predicted: c.predicted, observed: c.observed };
}

describe.skipIf(!URL)('pg-check set-based updates against a live PostgreSQL', () => {
  let admin: pg.Client;
  let client: pg.Client;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: URL });
    admin.on('error', () => undefined);
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${DB}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${DB}"`);
    client = new pg.Client({ connectionString: inDatabase(URL!, DB) });
    client.on('error', () => undefined);
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await admin?.query(`DROP DATABASE IF EXISTS "${DB}" WITH (FORCE)`).catch(() => undefined);
    await admin?.end();
  });

  for (const [name, oneStatement, yaml] of [
    ['one UPDATE a round (via: scan)', true, CONFIG],
    ['one UPDATE a row (via: index)', false, BY_INDEX],
  ] as const) {
    it(`${name}: rowsim run and pg-check's replay within 5% of the server's HOT updates and heap pages`, async () => {
      const server = await byHand(client, oneStatement);
      // What a set-based and a row-at-a-time round give differ by more than the tolerance: the test tells them apart.
      expect(server.hot).toBeGreaterThan(0);
      const model = runStorage(spec(yaml)).final;
      expect(within5(model.hot_updates, server.hot), `model ${model.hot_updates} HOT updates, server ${server.hot}`).toBe(true);
      expect(within5(model.pages, server.pages), `model ${model.pages} pages, server ${server.pages}`).toBe(true);
      const r = await pgCheck(client, spec(yaml), { schemaPrefix: 'rowsim_t_scan' });
      expect(r.notes.join('\n')).not.toMatch(/another session/);
      const hot = last(r, 'hot_updates');
      const pages = last(r, 'heap_pages');
      expect(hot.predicted).toBe(model.hot_updates);
      expect(within5(hot.observed!, server.hot), `replay ${hot.observed} HOT updates, server ${server.hot}`).toBe(true);
      expect(within5(pages.observed!, server.pages), `replay ${pages.observed} pages, server ${server.pages}`).toBe(true);
      expect(r.replays.every((x) => x.replay === 'statement')).toBe(true);
      // The primary key's pages after every round: each UPDATE's uniqueness check marks the key's dead entries.
      if (oneStatement) expect(r.comparisons.filter((c) => c.metric.startsWith('index_pages') && c.diff !== 0)).toEqual([]);
      expect(r.replays[1]!.sends[0]).toMatch(
        oneStatement ? /^one UPDATE reading the table by a sequential scan/ : /WHERE key = \$1, one a row/,
      );
    });
  }

  it('scan and key-range updates and deletes, oldest, newest and random rows: every heap figure as predicted', async () => {
    const r = await pgCheck(
      client,
      spec(`name: mixed
seed: 5
table:
  name: t
  columns:
    - { name: id, type: int }
    - { name: n, type: int }
    - { name: data, type: varchar(300) }
  indexes:
    - { name: t_pk, columns: [id], unique: true }
    - { name: t_n, columns: [n] }
engine: { format: postgres-heap, fillfactor: 90 }
workload:
  - insert: { rows: 5000, values: { data: { length: { uniform: [50, 150] } } } }
  - update: { rows: 30%, order: random, via: scan, set: { data: { length: { uniform: [100, 250] } } } }
  - update: { rows: 20%, order: random, via: range, set: { data: changed, n: changed } }
  - update: { rows: 10%, order: newest, via: range, set: { data: { grow: 20 } } }
  - delete: { rows: 10%, order: spread, via: scan }
  - delete: { rows: 5%, order: oldest, via: range }
  - update: { rows: all, via: scan, set: { id: changed } }
  - delete: { rows: all, via: scan }
`),
      { schemaPrefix: 'rowsim_t_scan' },
    );
    const off = r.comparisons.filter((c) => !c.metric.startsWith('index_pages') && c.diff !== 0);
    expect(off).toEqual([]);
    expect(r.replays.map((x) => x.replay)).toEqual(new Array(8).fill('statement'));
    expect(r.replays[2]!.sends[0]).toMatch(/BETWEEN \$1 AND \$2/);
    // The staging tables are gone with the statements.
    const left = await client.query(`SELECT count(*)::int AS n FROM pg_class WHERE relname LIKE 'rowsim_stage_%'`);
    expect(left.rows[0].n).toBe(0);
  });
});
