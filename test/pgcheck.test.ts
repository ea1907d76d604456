/**
 * rowsim pg-check against a live PostgreSQL: heap pages, the free space and visibility maps, indexes,
 * HOT, pruning and the command's output (values, compression and TOAST: test/pgcheck-toast.test.ts).
 * npm test gives the file a throw-away cluster of its own (test/helpers/pg-cluster.ts); without one
 * (ROWSIM_PG_URL) these tests fail (they do not pass silently) unless ROWSIM_SKIP_PG=1.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgCheck, type Comparison } from '../src/pgcheck/check.js';
import { ROOT, rowsim } from './helpers/cli.js';
import { at, needsServer, spec, URL } from './helpers/pg-live.js';
import { runStorage } from '../src/workload/runner.js';
import { IndexEntryRefusal } from '../src/workload/index-refusal.js';
import { join } from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

needsServer('pg-check against a live PostgreSQL');

describe.skipIf(!URL)('pg-check against a live PostgreSQL', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: URL });
    // pg emits 'error' when the server ends the connection; unheard, it would end the test process.
    client.on('error', () => undefined);
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });

  const widths = [0, 20, 100, 122, 123, 126, 127, 128, 250, 1000, 2100];
  it(`heap pages match exactly for row widths ${widths.join(', ')} (around the 127-byte varlena boundary and TOAST)`, async () => {
    for (const w of widths) {
      const s = spec(`name: w
table:
  name: w${w}
  columns: [{ name: id, type: int }, { name: flag, type: boolean }, { name: body, type: varchar(3000) }]
  indexes: [{ name: w${w}_pk, columns: [id], unique: true }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 3000, values: { body: { length: ${w} } } }
`);
      const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_widths' });
      const [heap] = at(r.comparisons, 'heap_pages');
      expect({ w, predicted: heap!.predicted, observed: heap!.observed }).toEqual({
        w,
        predicted: heap!.observed,
        observed: heap!.observed,
      });
      const [idx] = at(r.comparisons, `index_pages.w${w}_pk`);
      expect(idx!.predicted).toBe(idx!.observed);
    }
  });

  it('the free space map and visibility map forks match: 4 FSM pages past 4,069 heap pages, a VM page after VACUUM, neither after VACUUM FULL', async () => {
    const s = spec(`name: f
table:
  name: forks
  columns: [{ name: id, type: int }, { name: body, type: varchar(400) }]
  indexes: [{ name: forks_pk, columns: [id], unique: true }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 190000, values: { body: { length: 150 } } }
  - vacuum:
  - insert: { rows: 1000, values: { body: { length: 150 } } }
  - vacuum: { full: true }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_forks' });
    const forks = [...at(r.comparisons, 'fsm_pages'), ...at(r.comparisons, 'vm_pages')];
    for (const c of forks)
      expect({ phase: c.phase, metric: c.metric, value: c.predicted }).toEqual({ phase: c.phase, metric: c.metric, value: c.observed });
    expect(forks.map((c) => `${c.metric}@${c.phase}=${c.predicted}`).sort()).toEqual([
      'fsm_pages@0=4',
      'fsm_pages@1=4',
      'fsm_pages@2=4',
      'fsm_pages@3=0',
      'vm_pages@0=0',
      'vm_pages@1=1',
      'vm_pages@2=1',
      'vm_pages@3=0',
    ]);
  });

  it('an index fillfactor (CREATE INDEX … WITH (fillfactor = N)): index pages match for 100, 70 and 10', async () => {
    for (const ff of [100, 70, 10]) {
      const s = spec(`name: i
table:
  name: ixff${ff}
  columns: [{ name: id, type: int }, { name: code, type: char(20) }]
  indexes: [{ name: ixff${ff}_pk, columns: [id], unique: true, fillfactor: ${ff} }, { name: ixff${ff}_code, columns: [code] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 20000 }
`);
      const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_ixff' });
      for (const c of at(r.comparisons, `index_pages.ixff${ff}_pk`)) expect({ ff, value: c.predicted }).toEqual({ ff, value: c.observed });
    }
  });

  it('rows with NULLs (a null bitmap on some rows, not others): heap pages match', async () => {
    const s = spec(`name: n
table:
  name: nulls
  columns:
    - { name: id, type: bigint }
    - { name: a, type: int, null: true }
    - { name: b, type: varchar(200), null: true }
    - { name: c, type: timestamp, null: true }
    - { name: d, type: char(12), null: true }
    - { name: e, type: "numeric(12,2)", null: true }
  indexes: [{ name: nulls_pk, columns: [id], unique: true }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 4000, values: { a: { null: 0.5 }, b: { length: 40, null: 0.3 }, c: { null: 0.2 }, d: { null: 0.5 }, e: { null: 0.4 } } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_nulls' });
    const [heap] = at(r.comparisons, 'heap_pages');
    expect(heap!.predicted).toBe(heap!.observed);
  });

  it("a row's INSERT, UPDATE and DELETE are prepared statements, each executed once a statement sent (pg_prepared_statements), let go at the end", async () => {
    const s = spec(`name: p
table:
  name: prep
  columns: [{ name: id, type: int }, { name: body, type: varchar(100) }]
  indexes: [{ name: prep_pk, columns: [id], unique: true }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 2000, values: { body: { length: 40 } } }
  - update: { rows: 30%, order: random, transaction: row, set: { body: { length: 60 } } }
  - delete: { rows: 10%, order: random }
`);
    // The server's prepared statements read just before the replay lets them go (its DEALLOCATEs), and after.
    let prepared: pg.QueryResult | undefined;
    const read = () =>
      client.query(
        `SELECT split_part(statement, ' ', 1) AS verb, name, generic_plans + custom_plans AS runs FROM pg_prepared_statements WHERE statement LIKE '% "rowsim_t_prep%'`,
      );
    const watched = new Proxy(client, {
      get(target, key) {
        if (key !== 'query') return Reflect.get(target, key) as unknown;
        return async (...args: unknown[]) => {
          if (prepared === undefined && typeof args[0] === 'string' && args[0].startsWith('DEALLOCATE')) prepared = await read();
          return (target.query as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const r = await pgCheck(watched, s, { schemaPrefix: 'rowsim_t_prep' });
    expect(at(r.comparisons, 'heap_pages').length).toBeGreaterThan(0);
    expect((await read()).rows).toEqual([]);
    if (prepared === undefined) throw new Error('no DEALLOCATE was sent');
    const before = prepared.rows;
    const runs = (verb: string) => before.filter((x) => x.verb === verb).reduce((n, x) => n + Number(x.runs), 0);
    expect(before.every((x) => /^rowsim_\d+$/.test(x.name as string))).toBe(true);
    expect(before.filter((x) => x.verb === 'UPDATE')).toHaveLength(1);
    expect(runs('UPDATE')).toBe(600);
    expect(runs('DELETE')).toBe(200);
    expect(runs('INSERT')).toBeGreaterThan(0);
  });

  it('fillfactor sweep with growing updates: heap pages and HOT counts match exactly, statement and per-row transactions', async () => {
    for (const ff of [100, 90, 80, 60]) {
      const s = spec(`name: ff
table:
  name: ff${ff}
  columns: [{ name: id, type: int }, { name: status, type: char(8) }, { name: body, type: varchar(400) }]
  indexes: [{ name: ff${ff}_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, fillfactor: ${ff} }
workload:
  - insert: { rows: 6000, values: { body: { length: 60 } } }
  - update: { rows: 60%, order: random, set: { body: { length: 90 } } }
  - update: { rows: 40%, order: random, transaction: row, set: { body: { length: 110 } } }
`);
      const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_ff' });
      for (const c of [...at(r.comparisons, 'heap_pages'), ...at(r.comparisons, 'hot_updates'), ...at(r.comparisons, 'updates')]) {
        expect({ ff, phase: c.phase, metric: c.metric, value: c.predicted }).toEqual({
          ff,
          phase: c.phase,
          metric: c.metric,
          value: c.observed,
        });
      }
      const hot = at(r.comparisons, 'hot_updates', 1)[0]!;
      if (ff <= 80) expect(hot.predicted).toBeGreaterThan(0);
    }
  });

  it('an update of an indexed column is never HOT; index pages grow with it, as predicted', async () => {
    const s = spec(`name: ix
table:
  name: ix
  columns: [{ name: id, type: int }, { name: code, type: char(12) }, { name: body, type: varchar(100) }]
  indexes: [{ name: ix_pk, columns: [id], unique: true }, { name: ix_code, columns: [code] }]
engine: { format: postgres-heap, fillfactor: 70 }
workload:
  - insert: { rows: 5000, values: { body: { length: 50 } } }
  - update: { rows: 50%, order: random, set: { code: changed } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_ix' });
    const hot = at(r.comparisons, 'hot_updates', 1)[0]!;
    expect(hot.predicted).toBe(0);
    expect(hot.observed).toBe(0);
    for (const c of at(r.comparisons, 'heap_pages')) expect(c.predicted).toBe(c.observed);
    for (const name of ['ix_pk', 'ix_code']) {
      const [built, grown] = at(r.comparisons, `index_pages.${name}`);
      expect(built!.predicted).toBe(built!.observed);
      expect(grown!.observed).toBeGreaterThan(built!.observed!);
      expect(grown!.predicted).toBe(grown!.observed);
    }
  });

  it('date, timestamp, numeric and money columns under an index, updated with `changed`: never HOT, as predicted (the old replay sent constants: the server did them HOT)', async () => {
    const s = spec(`name: chg
table:
  name: chg
  columns:
    - { name: id, type: int }
    - { name: d, type: date }
    - { name: ts, type: timestamptz }
    - { name: n, type: "numeric(10,2)" }
    - { name: m, type: money }
    - { name: note, type: varchar(100) }
  indexes: [{ name: chg_pk, columns: [id], unique: true }, { name: chg_d, columns: [d] }, { name: chg_ts, columns: [ts] }, { name: chg_n, columns: [n] }, { name: chg_m, columns: [m] }]
engine: { format: postgres-heap, fillfactor: 70 }
workload:
  - insert: { rows: 3000, values: { note: { length: 30 } } }
  - update: { rows: 50%, order: random, transaction: row, set: { d: changed } }
  - update: { rows: 50%, order: random, transaction: row, set: { ts: changed } }
  - update: { rows: 50%, order: random, transaction: row, set: { n: changed } }
  - update: { rows: 50%, order: random, transaction: row, set: { m: changed } }
  - update: { rows: 50%, order: random, transaction: row, set: { note: changed } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_changed' });
    for (const c of [
      ...at(r.comparisons, 'hot_updates'),
      ...at(r.comparisons, 'updates'),
      ...at(r.comparisons, 'heap_pages'),
      ...at(r.comparisons, 'live_tuples'),
    ]) {
      expect({ phase: c.phase, metric: c.metric, value: c.predicted }).toEqual({ phase: c.phase, metric: c.metric, value: c.observed });
    }
    // Phases 2-5 change an indexed column: no HOT; phase 6 a column no index covers: HOT where the page has room.
    expect(at(r.comparisons, 'hot_updates', 4)[0]!.observed).toBe(0);
    expect(at(r.comparisons, 'hot_updates', 5)[0]!.observed).toBeGreaterThan(1000);
  });

  it('one row updated 999 times, a phase each (the most phases a config takes, 1,000, with the load): no overflow, every count as predicted', async () => {
    const s = spec(`name: many
table:
  name: many
  columns: [{ name: id, type: int }, { name: counter, type: int }, { name: note, type: varchar(40) }]
  indexes: [{ name: many_pk, columns: [id], unique: true }, { name: many_counter, columns: [counter] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 50, values: { note: { length: 20 } } }
${Array.from({ length: 999 }, () => '  - update: { rows: 1, order: sequential, transaction: row, set: { counter: changed } }').join('\n')}
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_many' });
    const last = s.workload.length - 1;
    for (const metric of ['updates', 'hot_updates', 'heap_pages', 'live_tuples']) {
      const [c] = at(r.comparisons, metric, last);
      expect({ metric, value: c!.predicted }).toEqual({ metric, value: c!.observed });
    }
    expect(at(r.comparisons, 'updates', last)[0]!.observed).toBe(999);
  });

  it('utf8 with 30% 2-byte characters in indexed varchar: heap pages and both indexes exact (keys of varying length)', async () => {
    const s = spec(`name: mb
table:
  name: mb
  columns: [{ name: id, type: int }, { name: name, type: varchar(120) }, { name: city, type: varchar(40) }]
  indexes: [{ name: mb_pk, columns: [id], unique: true }, { name: mb_name, columns: [name] }]
engine: { format: postgres-heap, encoding: utf8, multibyte_share: 0.3 }
workload:
  - insert: { rows: 20000, values: { name: { length: { uniform: [5, 120] } }, city: { length: { uniform: [3, 40] } } } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_mb' });
    for (const metric of ['heap_pages', 'index_pages.mb_pk', 'index_pages.mb_name', 'free_bytes', 'live_tuples']) {
      const [c] = at(r.comparisons, metric);
      expect({ metric, value: c!.predicted }).toEqual({ metric, value: c!.observed });
    }
  });

  /** Index pages of every index after every phase: exact, or within `tolerance` % where given. */
  function expectIndexPages(r: { comparisons: Comparison[] }, tolerance: Record<string, number> = {}): void {
    const idx = r.comparisons.filter((c) => c.metric.startsWith('index_pages.'));
    expect(idx.length).toBeGreaterThan(0);
    for (const c of idx) {
      const tol = tolerance[c.metric.slice('index_pages.'.length)];
      if (tol === undefined)
        expect({ metric: c.metric, phase: c.phase, pages: c.predicted }).toEqual({ metric: c.metric, phase: c.phase, pages: c.observed });
      else
        expect(
          Math.abs(c.diff_pct!),
          `${c.metric} after phase ${c.phase + 1}: ${c.predicted} predicted, ${c.observed} observed`,
        ).toBeLessThanOrEqual(tol);
    }
  }

  it('deduplication: dates of 365 values, NULL-heavy keys, deduplicate_items off, numeric keys (no deduplication): index pages exact after CREATE INDEX, inserts and non-HOT updates', async () => {
    const s = spec(`name: dd
seed: 4
table:
  name: dd
  columns:
    - { name: id, type: int }
    - { name: day, type: date }
    - { name: ref, type: int, null: true }
    - { name: price, type: "numeric(8,2)" }
    - { name: note, type: varchar(200) }
  indexes:
    - { name: dd_pk, columns: [id], unique: true }
    - { name: dd_day, columns: [day] }
    - { name: dd_day_nodedup, columns: [day], deduplicate_items: false }
    - { name: dd_ref, columns: [ref] }
    - { name: dd_price, columns: [price] }
engine: { format: postgres-heap }
workload:
  - insert: { rows: 15000, values: { day: { distinct: 365, order: random }, ref: { null: 0.9, distinct: 100, order: random }, price: { distinct: 150, order: random }, note: { length: { uniform: [10, 60] } } } }
  - insert: { rows: 10000, values: { day: { distinct: 365, order: random }, ref: { null: 0.9, distinct: 100, order: random }, price: { distinct: 150, order: random }, note: { length: { uniform: [10, 60] } } } }
  - update: { rows: 10%, order: random, transaction: row, set: { note: { length: { uniform: [150, 200] } } } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_dedup' });
    expectIndexPages(r);
    // Posting lists: the date index a third of its twin without deduplication.
    const day = at(r.comparisons, 'index_pages.dd_day', 0)[0]!.observed!;
    expect(at(r.comparisons, 'index_pages.dd_day_nodedup', 0)[0]!.observed!).toBeGreaterThan(2.5 * day);
  });

  it('random (uuid) keys split leaves in the middle; a composite key whose non-leading column changes keeps its place: index pages within 1%', async () => {
    const s = spec(`name: rk
seed: 6
table:
  name: rk
  columns: [{ name: id, type: int }, { name: token, type: uuid }, { name: customer, type: int }, { name: status, type: smallint }]
  indexes:
    - { name: rk_pk, columns: [id], unique: true }
    - { name: rk_token, columns: [token] }
    - { name: rk_customer_status, columns: [customer, status] }
engine: { format: postgres-heap }
workload:
  - insert: { rows: 12000, values: { token: { order: random }, customer: { distinct: 1500, order: random }, status: { distinct: 5, order: random } } }
  - insert: { rows: 12000, values: { token: { order: random }, customer: { distinct: 1500, order: random }, status: { distinct: 5, order: random } } }
  - update: { rows: 10%, order: random, transaction: row, set: { status: changed } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_random' });
    expectIndexPages(r, { rk_token: 1, rk_customer_status: 1 });
    // 50:50 splits: the random index grows more than the ascending one, whose leaves stay 90% full.
    const [built, grown] = at(r.comparisons, 'index_pages.rk_token');
    const [pkBuilt, pkGrown] = at(r.comparisons, 'index_pages.rk_pk');
    expect(grown!.observed! / built!.observed!).toBeGreaterThan((pkGrown!.observed! / pkBuilt!.observed!) * 1.05);
  });

  it('non-HOT updates of wide rows (5 a page), one a transaction: bottom-up deletion (at most 6 heap blocks a pass) keeps the unchanged indexes from growing as much as the changed one, exactly as predicted', async () => {
    const s = spec(`name: wide
seed: 21
table:
  name: wide
  columns: [{ name: id, type: int }, { name: policy, type: int }, { name: state, type: smallint }, { name: narrative, type: varchar(1600) }]
  indexes:
    - { name: wide_pk, columns: [id], unique: true }
    - { name: wide_policy, columns: [policy] }
    - { name: wide_state, columns: [state] }
engine: { format: postgres-heap }
workload:
  - insert: { rows: 5000, values: { policy: { distinct: 1200, order: random }, state: { distinct: 6, order: random }, narrative: { length: { uniform: [1500, 1560] } } } }
  - update: { rows: 60%, order: random, transaction: row, set: { state: changed } }
  - update: { rows: 60%, order: random, transaction: row, set: { state: changed } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_wide' });
    expect(at(r.comparisons, 'hot_updates', 2)[0]!.observed).toBe(0);
    for (const c of at(r.comparisons, 'heap_pages')) expect(c.predicted).toBe(c.observed);
    expectIndexPages(r, { wide_state: 3 });
    // The second round's UPDATEs find their rows through wide_pk, whose entries of the first round's dead
    // versions send each scan to the old page first, pruning it (heap_page_prune_opt): dead tuples and
    // free space exact after both rounds.
    for (const metric of ['dead_tuples', 'free_bytes']) {
      for (const c of at(r.comparisons, metric))
        expect({ phase: c.phase, metric, value: c.predicted }).toEqual({ phase: c.phase, metric, value: c.observed });
    }
  });

  it('deletes, VACUUM and inserts: VACUUM deletes the emptied leaves, whose pages the next VACUUM makes reusable; index pages exact', async () => {
    const s = spec(`name: dvi
seed: 17
table:
  name: dvi
  columns: [{ name: id, type: bigint }, { name: sensor, type: int }, { name: probe, type: uuid }]
  indexes:
    - { name: dvi_pk, columns: [id], unique: true }
    - { name: dvi_sensor, columns: [sensor] }
    - { name: dvi_probe, columns: [probe] }
engine: { format: postgres-heap }
workload:
  - insert: { rows: 20000, values: { sensor: { distinct: 150, order: random }, probe: { order: random } } }
  - delete: { rows: 40%, order: sequential }
  - vacuum:
  - insert: { rows: 5000, values: { sensor: { distinct: 150, order: random }, probe: { order: random } } }
  - vacuum:
  - insert: { rows: 8000, values: { sensor: { distinct: 150, order: random }, probe: { order: random } } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_dvi' });
    expectIndexPages(r, { dvi_probe: 1 });
    // The pk's new entries went to pages deleted two VACUUMs before: no growth in the last insert.
    const pk = at(r.comparisons, 'index_pages.dvi_pk');
    expect(pk[5]!.observed).toBeLessThanOrEqual(pk[4]!.observed! + 2);
  });

  it('index entries near and over 2,704 bytes: an entry of exactly 2,704 accepted, index pages exact; one byte over refused by the server where the simulation stops, with its words', async () => {
    const wk = (phases: string) =>
      spec(`name: wk
seed: 2
table:
  name: wk
  columns: [{ name: id, type: int }, { name: title, type: varchar(3000) }]
  indexes: [{ name: wk_pk, columns: [id], unique: true }, { name: wk_title, columns: [title] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 600, values: { title: { length: { uniform: [2600, 2692] }, order: random } } }
${phases}
`);
    // At the limit: a title of 2,692 bytes is an entry of MAXALIGN(8 + 4 + 2,692) = 2,704 bytes.
    const ok = wk(`  - insert: { rows: 100, values: { title: { length: 2692, order: random } } }
  - update: { rows: 30%, order: random, transaction: row, set: { title: { length: { uniform: [2650, 2692] }, order: random } } }`);
    const r = await pgCheck(client, ok, { schemaPrefix: 'rowsim_t_wide_keys' });
    expect(r.refusal).toBeUndefined();
    for (const metric of ['live_tuples', 'updates', 'heap_pages'])
      for (const c of at(r.comparisons, metric))
        expect({ metric, phase: c.phase, v: c.predicted }).toEqual({ metric, phase: c.phase, v: c.observed });
    expectIndexPages(r);
    // One byte over: CREATE INDEX after the load, an INSERT into the index, an UPDATE (a row a transaction).
    const over = {
      'create index': spec(`name: wk
seed: 2
table:
  name: wk
  columns: [{ name: id, type: int }, { name: title, type: varchar(3000) }]
  indexes: [{ name: wk_pk, columns: [id], unique: true }, { name: wk_title, columns: [title] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 600, values: { title: { length: { uniform: [2600, 2760] }, order: random } } }
`),
      insert: wk(`  - insert: { rows: 300, values: { title: { length: { uniform: [2680, 2700] }, order: random } } }`),
      update: wk(
        `  - update: { rows: 30%, order: random, transaction: row, set: { title: { length: { uniform: [2680, 2700] }, order: random } } }`,
      ),
    };
    for (const [step, s] of Object.entries(over)) {
      let stopped: IndexEntryRefusal | undefined;
      try {
        runStorage(s);
      } catch (err) {
        if (err instanceof IndexEntryRefusal) stopped = err;
      }
      expect(stopped?.refusal.step).toBe(step);
      const c = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_wide_keys' });
      expect(c.refusal).toMatchObject({ phase: stopped!.refusal.phase, agree: true });
      expect(c.refusal!.observed).toContain(`exceeds btree version 4 maximum 2704 for index "wk_title"`);
      expect(c.refusal!.observed).toContain('[SQLSTATE 54000]');
    }
  });

  it('pruning, round after round: a session table updated whole 8 times, a row a transaction, at fillfactor 100 and 90: HOT updates, dead tuples and free space exact after every round', async () => {
    const rounds = Array.from(
      { length: 8 },
      () => '  - update: { rows: all, order: random, transaction: row, set: { seen: changed, data: { length: { uniform: [180, 220] } } } }',
    ).join('\n');
    for (const ff of [100, 90]) {
      const s = spec(`name: sr
seed: 11
table:
  name: sr
  columns: [{ name: id, type: int }, { name: seen, type: timestamp }, { name: data, type: varchar(400) }]
  indexes: [{ name: sr_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, fillfactor: ${ff} }
workload:
  - insert: { rows: 500, values: { data: { length: { uniform: [180, 220] } } } }
${rounds}
`);
      const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_rounds' });
      for (const metric of ['hot_updates', 'dead_tuples', 'free_bytes', 'heap_pages']) {
        const cs = at(r.comparisons, metric);
        expect(cs.length).toBeGreaterThanOrEqual(8);
        for (const c of cs) expect({ ff, metric, phase: c.phase, v: c.predicted }).toEqual({ ff, metric, phase: c.phase, v: c.observed });
      }
    }
  });

  it('index keys of compressible text over TOAST_INDEX_TARGET (510 bytes) are compressed in the entry, as index_form_tuple does: index pages exact, a key of 2,900 bytes accepted', async () => {
    const config = (c: number) =>
      spec(`name: ik
seed: 7
table:
  name: ik
  columns: [{ name: id, type: int }, { name: title, type: text }]
  indexes: [{ name: ik_pk, columns: [id], unique: true }, { name: ik_title, columns: [title] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 1500, values: { title: { length: { uniform: [400, 2900] }, compressibility: ${c} } } }
  - update: { rows: 30%, order: random, set: { title: { length: { uniform: [400, 2900] }, compressibility: 0.6 } } }
`);
    const r = await pgCheck(client, config(0.6), { schemaPrefix: 'rowsim_t_ikeys' });
    expect(r.refusal).toBeUndefined();
    expectIndexPages(r);
    for (const c of at(r.comparisons, 'live_tuples')) expect(c.observed).toBe(1500);
    // Compressed keys are accepted up to 2,900 bytes; the same lengths uncompressed stop at CREATE INDEX.
    expect(() => runStorage(config(0))).toThrow(IndexEntryRefusal);
    const packed = runStorage(config(0.6)).phases[0]!;
    expect(packed.metrics.rows).toBe(1500);
  });

  it('pgstattuple: live and dead tuples and free space after a load, growing updates and VACUUM; the TOAST relation as predicted', async () => {
    const s = spec(`name: st
table:
  name: st
  columns: [{ name: id, type: int }, { name: body, type: varchar(4000) }]
  indexes: [{ name: st_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, fillfactor: 90 }
workload:
  - insert: { rows: 4000, values: { body: { length: { uniform: [40, 80] } } } }
  - update: { rows: 50%, order: random, set: { body: { grow: { uniform: [0, 30] } } } }
  - vacuum:
  - update: { rows: 5%, order: random, set: { body: { length: 3000 } } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_stat' });
    for (const metric of ['live_tuples', 'dead_tuples', 'free_bytes']) {
      for (const c of at(r.comparisons, metric).slice(0, 3))
        expect({ phase: c.phase, metric, value: c.predicted }).toEqual({ phase: c.phase, metric, value: c.observed });
    }
    expect(at(r.comparisons, 'dead_tuples', 1)[0]!.observed).toBe(2000);
    // 200 rows get 3,000-byte values: 2 chunks each (1,996 + 1,004 bytes), 2 values to a TOAST page.
    const toast = at(r.comparisons, 'toast_pages', 3)[0]!;
    expect(toast.observed).toBe(100);
    expect(toast.predicted).toBe(toast.observed);
    for (const c of at(r.comparisons, 'toast_index_pages'))
      expect({ phase: c.phase, value: c.predicted }).toEqual({ phase: c.phase, value: c.observed });
    expect(at(r.comparisons, 'toast_pages', 0)[0]).toMatchObject({ predicted: 0, observed: 0 });
  });

  it('several storage points in one run: a sweep and a multi-document file, a section each, each in its own scratch table', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-pgc-'));
    const doc = (name: string, ff: string) => `name: ${name}
table:
  name: pts
  columns: [{ name: id, type: int }, { name: body, type: varchar(100) }]
  indexes: [{ name: pts_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, fillfactor: 100 }
workload:
  - insert: { rows: 1500, values: { body: { length: 40 } } }
  - update: { rows: all, order: random, transaction: row, set: { body: { length: 60 } } }
${ff}`;
    writeFileSync(join(dir, 'multi.yaml'), `${doc('one', 'sweep:\n  engine.fillfactor: [100, 80]\n')}---\n${doc('two', '')}`);
    const out = rowsim(['pg-check', join(dir, 'multi.yaml'), '--url', URL!, '--json'], ROOT);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const results = JSON.parse(out.stdout).results as { label: string; comparisons: Comparison[] }[];
    expect(results.map((r) => r.label)).toEqual(['one: fillfactor=100', 'one: fillfactor=80', 'two: base']);
    for (const r of results) {
      for (const c of r.comparisons.filter((x) => ['heap_pages', 'hot_updates', 'updates'].includes(x.metric)))
        expect({ label: r.label, metric: c.metric, value: c.predicted }).toEqual({ label: r.label, metric: c.metric, value: c.observed });
    }
    const text = rowsim(['pg-check', join(dir, 'multi.yaml'), '--url', URL!], ROOT);
    expect(text.stdout.match(/^== \d\/3 /gm)).toHaveLength(3);
    expect(text.stdout).toMatch(/^== 2\/3 one: fillfactor=80: table pts, postgres-heap, page 8k, fillfactor 80, latin1/m);
  });

  it('rowsim pg-check prints prediction and observation side by side; --json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-pgc-'));
    writeFileSync(
      join(dir, 'c.yaml'),
      `name: cli
table:
  name: cli_t
  columns: [{ name: id, type: int }, { name: body, type: varchar(100) }]
  indexes: [{ name: cli_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, fillfactor: 90 }
workload:
  - insert: { rows: 2000, values: { body: { length: 30 } } }
  - update: { rows: all, set: { body: { length: 60 } } }
  - vacuum:
`,
    );
    const text = rowsim(['pg-check', join(dir, 'c.yaml'), '--url', URL!], ROOT);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/predicted\s+observed\s+error\s+error %/);
    expect(text.stdout).toMatch(/^== base: table cli_t, postgres-heap, page 8k, fillfactor 90, latin1 \(PostgreSQL \d+/m);
    // varchar(100) in latin1 cannot exceed the TOAST threshold: no TOAST relation, predicted or observed.
    expect(text.stdout).toMatch(/toast_pages\s+0\s+0\s/);
    expect(text.stdout).toMatch(/^\d+ figures compared, \d+ exact/m);
    const json = rowsim(['pg-check', join(dir, 'c.yaml'), '--url', URL!, '--json'], ROOT);
    const out = JSON.parse(json.stdout);
    expect(out.results[0].comparisons.find((c: Comparison) => c.metric === 'hot_updates')).toMatchObject({ diff_pct: 0 });
  });
});

describe('pg-check without a server', () => {
  it('says how to give it one', () => {
    const r = rowsim(['pg-check', join(ROOT, 'sim-configs', 'quickstart.yaml'), '--url', 'postgres://nobody@127.0.0.1:1/none']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot connect/);
  });
});
