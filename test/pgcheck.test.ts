/**
 * rowsim pg-check against a live PostgreSQL. `.ci/run` starts a throw-away cluster and exports
 * ROWSIM_PG_URL; locally: eval "$(.ci/pg-cluster.sh start)" before npm test, .ci/pg-cluster.sh stop after.
 * Without ROWSIM_PG_URL these tests fail (they do not pass silently) unless ROWSIM_SKIP_PG=1.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/loader/config.js';
import type { StorageSpec } from '../src/config/spec.js';
import { pgCheck, type Comparison } from '../src/pgcheck/check.js';
import { ROOT, rowsim } from './helpers/cli.js';
import { join } from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

const URL = process.env.ROWSIM_PG_URL;
const SKIP = process.env.ROWSIM_SKIP_PG === '1';
const HOWTO = 'ROWSIM_PG_URL is not set: start a throw-away cluster with eval "$(.ci/pg-cluster.sh start)" (stop it with .ci/pg-cluster.sh stop), or run .ci/run; set ROWSIM_SKIP_PG=1 to skip the live PostgreSQL tests on purpose';

if (!URL && !SKIP) {
  describe('pg-check against a live PostgreSQL', () => {
    it('needs a server', () => {
      throw new Error(HOWTO);
    });
  });
}

function spec(yaml: string): StorageSpec {
  return loadConfig('inline.yaml', yaml).storage[0]!.spec;
}

const at = (cs: Comparison[], metric: string, phase?: number) => cs.filter((c) => c.metric === metric && (phase === undefined || c.phase === phase));

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
      expect({ w, predicted: heap!.predicted, observed: heap!.observed }).toEqual({ w, predicted: heap!.observed, observed: heap!.observed });
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
    for (const c of forks) expect({ phase: c.phase, metric: c.metric, value: c.predicted }).toEqual({ phase: c.phase, metric: c.metric, value: c.observed });
    expect(forks.map((c) => `${c.metric}@${c.phase}=${c.predicted}`).sort()).toEqual(['fsm_pages@0=4', 'fsm_pages@1=4', 'fsm_pages@2=4', 'fsm_pages@3=0', 'vm_pages@0=0', 'vm_pages@1=1', 'vm_pages@2=1', 'vm_pages@3=0']);
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
        expect({ ff, phase: c.phase, metric: c.metric, value: c.predicted }).toEqual({ ff, phase: c.phase, metric: c.metric, value: c.observed });
      }
      const hot = at(r.comparisons, 'hot_updates', 1)[0]!;
      if (ff <= 80) expect(hot.predicted).toBeGreaterThan(0);
    }
  });

  it('an update of an indexed column is never HOT; index pages grow with it', async () => {
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
      expect(Math.abs(grown!.diff_pct!)).toBeLessThan(15);
    }
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
    expect(text.stdout).toMatch(/predicted\s+observed\s+diff %/);
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
