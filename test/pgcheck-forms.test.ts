/**
 * The workload forms of transactions and sessions against a live PostgreSQL (rowsim pg-check): a snapshot
 * held by a second session, ROLLBACK, transactions of N rows, updates that write the value back, indexes
 * made before the load. Every figure of the shipped configs predicted as observed, but the two after the
 * snapshot's close that docs/engines/postgres.md names. Needs a server (test/helpers/pg-cluster.ts).
 */
import pg from 'pg';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgCheck, type Comparison } from '../src/pgcheck/check.js';
import { ROOT } from './helpers/cli.js';
import { at, needsServer, spec, URL } from './helpers/pg-live.js';

needsServer('pg-check of the workload forms against a live PostgreSQL');

const shipped = (name: string) => spec(readFileSync(join(ROOT, 'sim-configs', 'pg-check', name), 'utf8'));
const differing = (cs: Comparison[]) =>
  cs.filter((c) => c.predicted !== null && c.observed !== null && c.predicted !== c.observed).map((c) => `${c.metric}@${c.phase}`);

describe.skipIf(!URL)('pg-check of the workload forms against a live PostgreSQL', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: URL });
    client.on('error', () => undefined);
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });

  it('a snapshot held by a second session: no HOT, nothing pruned or vacuumed until its close; heap and index pages exact', async () => {
    const r = await pgCheck(client, shipped('open-snapshot.yaml'), { schemaPrefix: 'rowsim_t_snapshot' });
    expect(differing(r.comparisons).sort()).toEqual(['dead_tuples@6', 'free_bytes@6']);
    expect(at(r.comparisons, 'heap_pages', 3)[0]!.observed).toBe(800);
    expect(at(r.comparisons, 'dead_tuples', 4)[0]!.observed).toBe(40000);
    expect(at(r.comparisons, 'dead_tuples', 7)[0]!.observed).toBe(0);
    expect(r.notes.join('\n')).not.toMatch(/another session of this database held a snapshot/);
    // The second session is gone.
    const others = await client.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_xmin IS NOT NULL AND pid <> pg_backend_pid()`,
    );
    expect(others.rows[0].n).toBe(0);
  });

  it('ROLLBACK of updates, inserts in batches and deletes, and SET n = n: every figure exact', async () => {
    const r = await pgCheck(client, shipped('rollback-same.yaml'), { schemaPrefix: 'rowsim_t_rollback' });
    expect(differing(r.comparisons)).toEqual([]);
    expect(at(r.comparisons, 'dead_tuples', 1)[0]!.observed).toBe(2500);
    expect(r.replays[1]).toMatchObject({
      replay: 'statement',
      sends: expect.arrayContaining(['the phase one transaction, each ending in ROLLBACK']),
    });
  });

  it('indexes made before the load grow by splits: every figure exact, the random key above its sorted build', async () => {
    const r = await pgCheck(client, shipped('indexes-before-load.yaml'), { schemaPrefix: 'rowsim_t_before_load' });
    expect(differing(r.comparisons)).toEqual([]);
    expect(at(r.comparisons, 'index_pages.bl_code', 0)[0]!.observed).toBe(101);
  });
});
