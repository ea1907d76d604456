/**
 * pg-check's replay of select phases. Without a server: the statements and planner settings of each
 * access path (select.ts), the rows the simulation reads recorded in order and as many times, the
 * server's plan read from EXPLAIN, the refusal of a select whose key repeats. On a live PostgreSQL
 * (ROWSIM_PG_URL; npm test starts a throw-away cluster, ROWSIM_SKIP_PG=1 skips): point lookups after
 * growing non-HOT updates (dead versions visited, then killed), a sequential scan that prunes, an int
 * column against a numeric parameter (a scan on both sides), a TID scan that prunes nothing, a cache's
 * totals, and the model's known differences (docs/engines.md), each in a database of its own so that no
 * other session's snapshot holds back pruning.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/loader/config.js';
import type { StorageSpec } from '../src/config/spec.js';
import { pgCheck, planCheck, type Comparison, type PgCheckResult } from '../src/pgcheck/check.js';
import { PgCheckError } from '../src/pgcheck/errors.js';
import { pgLayout } from '../src/formats/postgres.js';
import { recordRun, type Op } from '../src/pgcheck/plan.js';
import { plansAgree, REPLAY_SETTINGS, SelectReplay, serverPlan, settingChanges, type SelectPhase } from '../src/pgcheck/select.js';
import { columnsSql } from '../src/pgcheck/values.js';

const URL = process.env.ROWSIM_PG_URL;
const SKIP = process.env.ROWSIM_SKIP_PG === '1';

function spec(yaml: string): StorageSpec {
  return loadConfig('inline.yaml', yaml).storage[0]!.spec;
}

const TABLE = `table:
  name: acct
  columns:
    - { name: id, type: int }
    - { name: code, type: int }
    - { name: body, type: varchar(400) }
  indexes:
    - { name: acct_pk, columns: [id], unique: true, fillfactor: 50 }
    - { name: acct_code, columns: [code] }
`;

/** A spec of the acct table with `workload` (YAML lines under workload:). */
function acct(workload: string, extra = ''): StorageSpec {
  return spec(`name: s\nseed: 42\n${TABLE}engine: { format: postgres-heap, fillfactor: 100 }\n${extra}workload:\n${workload}`);
}

function replayOf(s: StorageSpec, phase: number): SelectReplay {
  const cols = columnsSql(s.table, pgLayout(s.table, s.engine), s.engine);
  return new SelectReplay(s, s.workload[phase] as SelectPhase, cols, '"x"."acct"');
}

describe('pg-check select replay without a server', () => {
  const s = acct(`  - insert: { rows: 300, values: { body: { length: 60 } } }
  - select: { rows: 20, order: random, via: index, index: acct_pk }
  - select: { rows: 1, via: index, index: acct_code, predicate: { column: code, parameter: numeric } }
  - select: { rows: 1, via: index, index: acct_code, predicate: { column: code, parameter: bigint } }
  - select: { rows: all, via: scan }
  - select: { rows: 5, via: scan, predicate: { column: code, parameter: bigint } }
  - select: { rows: 10, via: rowid }
`);

  it("an index seek: one SELECT a row by the index's leading column, index scans forced (seqscan, bitmap, TID and index-only scans off)", () => {
    const r = replayOf(s, 1);
    expect(r.model.path).toBe('index');
    expect(r.read(17, '(0,1)')).toEqual({ text: 'SELECT ctid FROM "x"."acct" WHERE "id" = $1', params: [17], expect: { rows: 1 } });
    expect(r.settings).toEqual(REPLAY_SETTINGS);
    expect(REPLAY_SETTINGS).toMatchObject({
      enable_seqscan: 'off',
      enable_bitmapscan: 'off',
      enable_tidscan: 'off',
      enable_indexonlyscan: 'off',
      enable_indexscan: 'on',
      max_parallel_workers_per_gather: '0',
      synchronize_seqscans: 'off',
    });
    expect(() => r.scan([1], 1, 300)).toThrow(/no table scans/);
  });

  it('a predicate: the parameter cast to its type; an int column against numeric is a scan in the model, one statement a repetition (= for one row, = ANY for several)', () => {
    const num = replayOf(s, 2);
    expect(num.model.path).toBe('scan');
    expect(num.cast).toBe('numeric(18,0)');
    expect(num.scan([5], 1, 300)).toEqual({
      text: 'SELECT ctid FROM "x"."acct" WHERE "code" = $1::numeric(18,0)',
      params: [5],
      expect: { rows: 1 },
    });
    expect(num.scan([5, 9, 5], 2, 300)).toEqual({
      text: 'SELECT ctid FROM "x"."acct" WHERE "code" = ANY($1::numeric(18,0)[])',
      params: [[5, 9, 5]],
      expect: { rows: 2 },
    });
    // The settings of an index seek: the server's plan decides whether the index can be used.
    expect(num.settings).toEqual(REPLAY_SETTINGS);
    const big = replayOf(s, 3);
    expect(big.model).toMatchObject({ path: 'index', index: 'acct_code' });
    expect(big.read(5, '(0,1)').text).toBe('SELECT ctid FROM "x"."acct" WHERE "code" = $1::bigint');
  });

  it('via scan: one count(*) a repetition with every index path off (with a predicate, = ANY over the chosen rows); a row-id fetch: a TID scan', () => {
    const scan = replayOf(s, 4);
    expect(scan.scan([], 300, 300)).toEqual({ text: 'SELECT count(*) AS n FROM "x"."acct"', params: [], expect: { count: 300 } });
    expect(scan.settings).toMatchObject({
      enable_seqscan: 'on',
      enable_indexscan: 'off',
      enable_indexonlyscan: 'off',
      enable_bitmapscan: 'off',
      enable_tidscan: 'off',
    });
    expect(settingChanges(REPLAY_SETTINGS, scan.settings)).toEqual(['SET enable_seqscan = on', 'SET enable_indexscan = off']);
    expect(settingChanges(scan.settings, REPLAY_SETTINGS)).toEqual(['SET enable_seqscan = off', 'SET enable_indexscan = on']);
    expect(replayOf(s, 5).scan([1, 2, 3, 4, 5], 5, 300).text).toBe('SELECT ctid FROM "x"."acct" WHERE "code" = ANY($1::bigint[])');
    const tid = replayOf(s, 6);
    expect(tid.read(null, '(12,3)')).toEqual({
      text: 'SELECT ctid FROM "x"."acct" WHERE ctid = $1::tid',
      params: ['(12,3)'],
      expect: { rows: 1 },
    });
    expect(settingChanges(REPLAY_SETTINGS, tid.settings)).toEqual(['SET enable_tidscan = on']);
  });

  it("the recorded run: each select phase's rows in the order the simulation reads them, as many times as it repeats", () => {
    const r = acct(`  - insert: { rows: 300, values: { body: { length: 60 } } }
  - select: { rows: 7, order: random, via: index, index: acct_pk, repeat: 3 }
  - select: { rows: 4, order: zipf(1.2), via: rowid }
  - select: { rows: 3, order: random, via: index, index: acct_code, predicate: { column: code, parameter: numeric }, repeat: 2 }
  - select: { rows: all, via: scan }
`);
    const ops = recordRun(r, pgLayout(r.table, r.engine).varying.length);
    const phaseOps = (i: number): Op[] => {
      const start = ops.findIndex((o) => o.k === 'phase' && o.index === i);
      const end = ops.findIndex((o) => o.k === 'end' && o.index === i);
      return ops.slice(start + 1, end);
    };
    const reads = phaseOps(1).map((o) => (o.k === 'read' ? o.row : -1));
    expect(reads).toHaveLength(21);
    expect(new Set(reads.slice(0, 7)).size).toBe(7);
    expect(reads.slice(7, 14)).toEqual(reads.slice(0, 7));
    expect(reads.slice(14)).toEqual(reads.slice(0, 7));
    // Random order, not the first rows.
    expect(reads.slice(0, 7)).not.toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(phaseOps(2).map((o) => o.k)).toEqual(['read', 'read', 'read', 'read']);
    // The converted predicate: one scan a repetition, each returning the same 3 chosen rows.
    const scans = phaseOps(3).flatMap((o) => (o.k === 'scan' ? [Array.from(o.rows)] : []));
    expect(scans).toHaveLength(2);
    expect(scans[0]).toHaveLength(3);
    expect(scans[1]).toEqual(scans[0]);
    const all = phaseOps(4);
    expect(all).toHaveLength(1);
    expect(all[0]!.k === 'scan' && all[0]!.rows.length).toBe(300);
  });

  it("the server's plan from EXPLAIN (FORMAT JSON): the scan of the table under an Aggregate, an index, a TID scan; a bitmap scan is neither", () => {
    const seq = serverPlan(
      [
        {
          Plan: {
            'Node Type': 'Aggregate',
            Plans: [{ 'Node Type': 'Seq Scan', 'Relation Name': 'acct', Filter: "((code)::numeric = '5'::numeric)" }],
          },
        },
      ],
      'acct',
    );
    expect(seq).toEqual({ path: 'scan', text: "Seq Scan on acct (Filter: ((code)::numeric = '5'::numeric))" });
    const ix = serverPlan(
      [{ Plan: { 'Node Type': 'Index Scan', 'Relation Name': 'acct', 'Index Name': 'acct_code', 'Index Cond': "(code = '5'::bigint)" } }],
      'acct',
    );
    expect(ix).toEqual({
      path: 'index',
      index: 'acct_code',
      text: "Index Scan using acct_code on acct (Index Cond: (code = '5'::bigint))",
    });
    expect(
      serverPlan([{ Plan: { 'Node Type': 'Tid Scan', 'Relation Name': 'acct', 'TID Cond': "(ctid = '(1,2)'::tid)" } }], 'acct').path,
    ).toBe('rowid');
    expect(serverPlan([{ Plan: { 'Node Type': 'Bitmap Heap Scan', 'Relation Name': 'acct' } }], 'acct').path).toBe('other');
    expect(serverPlan([{ Plan: { 'Node Type': 'Result' } }], 'acct')).toEqual({ path: 'other', text: 'Result' });
    const model = replayOf(s, 3).model;
    expect(plansAgree(model, ix)).toBe(true);
    expect(plansAgree(model, { ...ix, index: 'acct_pk' })).toBe(false);
    expect(plansAgree(model, seq)).toBe(false);
  });

  it('a select whose rows cannot be found one by one is refused before connecting: a leading column with NULLs, or values that repeat', () => {
    const nulls = spec(`name: n
seed: 7
table:
  name: t
  columns: [{ name: id, type: int }, { name: code, type: int, null: true }]
  indexes: [{ name: t_pk, columns: [id], unique: true }, { name: t_code, columns: [code] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 200, values: { code: { null: 0.3 } } }
  - select: { rows: 10, via: index, index: t_code }
`);
    expect(() => planCheck(nulls)).toThrow(PgCheckError);
    expect(() => planCheck(nulls)).toThrow(
      /phase 2 \(select\): pg-check finds each row it reads by the leading column of t_code, code: expected values distinct and not NULL in every row, found code is NULL in \d+ rows/,
    );
    const repeats = spec(`name: r
seed: 7
table:
  name: t
  columns: [{ name: id, type: int }, { name: flag, type: char(1) }]
  indexes: [{ name: t_pk, columns: [id], unique: true }, { name: t_flag, columns: [flag] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 200 }
  - select: { rows: 10, via: index, index: t_flag }
`);
    expect(() => planCheck(repeats)).toThrow(/flag \(char\(1\)\): 138 of its 200 values are beyond the distinct values/);
    // The same table read through its primary key is fine.
    expect(() =>
      planCheck({ ...repeats, workload: [repeats.workload[0]!, { ...(repeats.workload[1] as SelectPhase), index: 't_pk' }] }),
    ).not.toThrow();
  });
});

if (!URL && !SKIP) {
  describe('pg-check select phases against a live PostgreSQL', () => {
    it('needs a server', () => {
      throw new Error(
        'ROWSIM_PG_URL is not set: start a throw-away cluster with eval "$(.ci/pg-cluster.sh start)", or set ROWSIM_SKIP_PG=1 to skip the live PostgreSQL tests on purpose',
      );
    });
  });
}

const DB = `rowsim_select_${process.pid}`;

function inDatabase(base: string, db: string): string {
  const u = new globalThis.URL(base);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Every figure of phase `phase` (0-based), by metric. */
function phaseFigures(r: PgCheckResult, phase: number): Record<string, Comparison> {
  return Object.fromEntries(r.comparisons.filter((c) => c.phase === phase).map((c) => [c.metric, c]));
}

/** predicted and observed of a figure, for toEqual with a message. */
const po = (c: Comparison | undefined) => ({ predicted: c?.predicted, observed: c?.observed });

describe.skipIf(!URL)('pg-check select phases against a live PostgreSQL', () => {
  let admin: pg.Client;
  let client: pg.Client;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: URL });
    admin.on('error', () => undefined);
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${DB}" WITH (FORCE)`);
    // template1 has pgstattuple (.ci/pg-cluster.sh); no other session works in this database.
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

  it('point lookups after growing non-HOT updates: each dead version visited once and killed, so the same lookups again fetch fewer heap blocks, on the server as predicted', async () => {
    const r = await pgCheck(
      client,
      acct(`  - insert: { rows: 4000, values: { body: { length: 60 } } }
  - select: { rows: 400, order: random, via: index, index: acct_pk }
  - update: { rows: 50%, order: random, set: { body: { length: 200 } } }
  - select: { rows: all, order: sequential, via: index, index: acct_pk }
  - select: { rows: all, order: sequential, via: index, index: acct_pk }
`),
      { schemaPrefix: 'rowsim_t_sel' },
    );
    expect(r.notes.join('\n')).not.toMatch(/another session/);
    // Before any update: one heap block and the index's levels a lookup, exactly.
    const clean = phaseFigures(r, 1);
    for (const m of ['heap_blks_fetched', 'idx_blks_fetched', 'idx_scan', 'idx_tup_fetch', 'dead_versions_visited'])
      expect({ m, ...po(clean[m]) }).toEqual({ m, predicted: clean[m]!.observed, observed: clean[m]!.observed });
    const [first, second] = [phaseFigures(r, 3), phaseFigures(r, 4)];
    const nonHot = phaseFigures(r, 2).updates!.observed! - phaseFigures(r, 2).hot_updates!.observed!;
    expect(nonHot).toBeGreaterThan(1500);
    expect(po(first.dead_versions_visited)).toEqual({ predicted: nonHot, observed: nonHot });
    expect(po(first.heap_blks_fetched)).toEqual({ predicted: 4000 + nonHot, observed: 4000 + nonHot });
    expect(po(second.dead_versions_visited)).toEqual({ predicted: 0, observed: 0 });
    expect(po(second.heap_blks_fetched)).toEqual({ predicted: 4000, observed: 4000 });
    expect(second.heap_blks_fetched!.observed!).toBeLessThan(first.heap_blks_fetched!.observed!);
    expect(po(second.idx_blks_fetched).observed).toBe(second.idx_blks_fetched!.predicted);
    // A lookup that kills an entry reads its leaf page once more (_bt_killitems re-reads it: the scan
    // dropped its pin): counted by the model too.
    expect(po(first.idx_blks_fetched)).toEqual({
      predicted: second.idx_blks_fetched!.observed! + nonHot,
      observed: second.idx_blks_fetched!.observed! + nonHot,
    });
    expect(r.plans.map((p) => [p.phase, p.agree, p.observed.startsWith('Index Scan using acct_pk on acct')])).toEqual([
      [1, true, true],
      [3, true, true],
      [4, true, true],
    ]);
  });

  it('a sequential scan after updates prunes every page it reads that PostgreSQL would: dead tuples and free space fall on the server as predicted', async () => {
    const r = await pgCheck(
      client,
      acct(`  - insert: { rows: 4000, values: { body: { length: 60 } } }
  - update: { rows: 50%, order: random, set: { body: { length: 200 } } }
  - update: { rows: 20%, order: random, set: { body: { length: 230 } } }
  - select: { rows: all, via: scan, repeat: 2 }
`),
      { schemaPrefix: 'rowsim_t_sel' },
    );
    const [before, scan] = [phaseFigures(r, 2), phaseFigures(r, 3)];
    expect(before.dead_tuples!.observed!).toBeGreaterThan(500);
    for (const m of ['dead_tuples', 'free_bytes', 'live_tuples', 'heap_pages'])
      expect({ m, ...po(scan[m]) }).toEqual({ m, predicted: scan[m]!.observed, observed: scan[m]!.observed });
    expect(scan.dead_tuples!.observed!).toBeLessThan(before.dead_tuples!.observed! / 2);
    // Two scans, every page each.
    expect(po(scan.heap_blks_fetched)).toEqual({ predicted: 2 * scan.heap_pages!.observed!, observed: 2 * scan.heap_pages!.observed! });
    expect(po(scan.seq_scan)).toEqual({ predicted: 2, observed: 2 });
    expect(po(scan.seq_tup_read)).toEqual({ predicted: 8000, observed: 8000 });
    expect(po(scan.idx_blks_fetched)).toEqual({ predicted: 0, observed: 0 });
    expect(r.plans).toMatchObject([{ phase: 3, predicted: 'table scan', observed: 'Seq Scan on acct', agree: true }]);
  });

  it('an int column against a numeric parameter: the server casts the column and scans, as rowsim predicts; against bigint both seek the index', async () => {
    const r = await pgCheck(
      client,
      acct(`  - insert: { rows: 3000, values: { body: { length: 60 } } }
  - select: { rows: 1, order: random, via: index, index: acct_code, predicate: { column: code, parameter: numeric }, repeat: 3 }
  - select: { rows: 5, order: random, via: index, index: acct_code, predicate: { column: code, parameter: numeric } }
  - select: { rows: 50, order: random, via: index, index: acct_code, predicate: { column: code, parameter: bigint } }
`),
      { schemaPrefix: 'rowsim_t_sel' },
    );
    const pages = phaseFigures(r, 0).heap_pages!.observed!;
    const [one, five, seek] = [phaseFigures(r, 1), phaseFigures(r, 2), phaseFigures(r, 3)];
    expect(r.plans.map((p) => p.agree)).toEqual([true, true, true]);
    expect(r.plans[0]).toMatchObject({ predicted: 'table scan', statement: expect.stringMatching(/WHERE "code" = \$1::numeric\(18,0\)$/) });
    expect(r.plans[0]!.observed).toMatch(/^Seq Scan on acct \(Filter: \(\(code\)::numeric = /);
    expect(r.plans[1]!.observed).toMatch(/^Seq Scan on acct \(Filter: \(\(code\)::numeric = ANY /);
    expect(r.plans[2]).toMatchObject({ predicted: 'index seek on acct_code' });
    expect(r.plans[2]!.observed).toMatch(/^Index Scan using acct_code on acct \(Index Cond: \(code = '\d+'::bigint\)\)/);
    expect(po(one.heap_blks_fetched)).toEqual({ predicted: 3 * pages, observed: 3 * pages });
    expect(po(one.seq_scan)).toEqual({ predicted: 3, observed: 3 });
    expect(po(five.heap_blks_fetched)).toEqual({ predicted: pages, observed: pages });
    expect(po(five.seq_tup_read)).toEqual({ predicted: 3000, observed: 3000 });
    for (const m of ['heap_blks_fetched', 'idx_blks_fetched', 'idx_scan', 'idx_tup_fetch'])
      expect({ m, ...po(seek[m]) }).toEqual({ m, predicted: seek[m]!.observed, observed: seek[m]!.observed });
    expect(seek.heap_blks_fetched!.observed).toBe(50);
  });

  it("a row-id fetch is a TID scan of the ctid the row's UPDATE returned: one heap block a row, no index, nothing pruned; with a cache only the totals are compared", async () => {
    const r = await pgCheck(
      client,
      acct(
        `  - insert: { rows: 3000, values: { body: { length: 60 } } }
  - update: { rows: 50%, order: random, set: { body: { length: 200 } } }
  - select: { rows: 500, order: random, via: rowid, repeat: 2 }
`,
        'cache: { pages: 1000, policy: clock }\n',
      ),
      { schemaPrefix: 'rowsim_t_sel' },
    );
    const [upd, tid] = [phaseFigures(r, 1), phaseFigures(r, 2)];
    expect(po(tid.heap_blks_fetched)).toEqual({ predicted: 1000, observed: 1000 });
    expect(po(tid.idx_blks_fetched)).toEqual({ predicted: 0, observed: 0 });
    // A TID scan reads with heap_fetch, which does not prune.
    expect(po(tid.dead_tuples)).toEqual({ predicted: upd.dead_tuples!.observed, observed: upd.dead_tuples!.observed });
    expect(r.plans).toMatchObject([{ predicted: 'row-id fetch (TID scan)', agree: true }]);
    expect(r.plans[0]!.observed).toMatch(/^Tid Scan on acct \(TID Cond: \(ctid = '\(\d+,\d+\)'::tid\)\)$/);
    // The split: the model's cache starts empty; the server's holds the pages the replay wrote.
    expect(tid.heap_blks_read!.predicted! + tid.heap_blks_hit!.predicted!).toBe(1000);
    expect(tid.heap_blks_read!.predicted!).toBeGreaterThan(0);
    expect(r.notes.join('\n')).toMatch(
      /the config reads through a cache of 1,000 pages \(clock\); the server's shared_buffers holds [\d,]+ pages \(not the same size\).*only heap_blks_fetched and idx_blks_fetched \(read \+ hit\) check the model/,
    );
  });

  it("a dead version's visit prunes the page the old version is on; an index scan kills the entries of its own index only", async () => {
    const moved = await pgCheck(
      client,
      acct(`  - insert: { rows: 3000, values: { body: { length: 60 } } }
  - update: { rows: all, order: random, set: { body: { length: 200 } } }
  - select: { rows: all, order: sequential, via: index, index: acct_pk }
  - select: { rows: 40, order: random, via: index, index: acct_code }
`),
      { schemaPrefix: 'rowsim_t_sel' },
    );
    const lookups = phaseFigures(moved, 2);
    // Every row moved: the index scans prune the old pages they visit for the dead versions (the
    // update left 3,000 dead tuples there), on the server as in the model.
    expect(po(phaseFigures(moved, 1).dead_tuples)).toEqual({ predicted: 3000, observed: 3000 });
    expect(po(lookups.dead_tuples)).toEqual({ predicted: 0, observed: 0 });
    expect(po(lookups.free_bytes).predicted).toBe(lookups.free_bytes!.observed);
    expect(po(lookups.dead_versions_visited)).toEqual({ predicted: 3000, observed: 3000 });
    // acct_code's entries of the dead versions were not killed by the scans of acct_pk: each of the
    // 40 lookups through it visits its dead version.
    const byCode = phaseFigures(moved, 3);
    expect(po(byCode.dead_versions_visited)).toEqual({ predicted: 40, observed: 40 });
  });

  it("a full unique index deduplicates a row's versions into a posting list no lookup can kill; per-row updates let bottom-up deletion remove dead entries first: both as predicted", async () => {
    const table = (name: string, transaction: string) =>
      spec(`name: ${name}
seed: 42
table:
  name: ${name}
  columns: [{ name: id, type: int }, { name: note, type: varchar(400) }]
  indexes: [{ name: ${name}_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, fillfactor: 100 }
workload:
  - insert: { rows: 3000, values: { note: { length: 60 } } }
  - update: { rows: 60%, order: random, transaction: ${transaction}, set: { note: { length: 200 } } }
  - select: { rows: all, order: sequential, via: index }
  - select: { rows: all, order: sequential, via: index }
`);
    const dedup = await pgCheck(client, table('dedup', 'statement'), { schemaPrefix: 'rowsim_t_sel' });
    expect(po(phaseFigures(dedup, 2).dead_versions_visited)).toEqual({ predicted: 1800, observed: 1800 });
    const again = phaseFigures(dedup, 3).dead_versions_visited!;
    expect(again.observed!).toBeGreaterThan(0);
    expect(again.predicted).toBe(again.observed);
    const perRow = await pgCheck(client, table('perrow', 'row'), { schemaPrefix: 'rowsim_t_sel' });
    const first = phaseFigures(perRow, 2).dead_versions_visited!;
    expect(first.observed!).toBeLessThan(1800);
    expect(first.predicted).toBe(first.observed);
    expect(po(phaseFigures(perRow, 3).dead_versions_visited)).toEqual({ predicted: 0, observed: 0 });
  });
});
