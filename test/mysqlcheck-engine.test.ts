/**
 * rowsim mysql-check end to end: the innodb format's figures beside a live MariaDB's, for the scenarios of
 * the InnoDB issue (key-order and random keys, growth by update, random deletes with purge and merges,
 * OPTIMIZE TABLE, a secondary index; a secondary index's own MERGE_THRESHOLD). Its bounds are the issue's: leaf pages per index within 1%, pages
 * per index within 3%; records per index exact after the load and after the rebuild.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MYSQL_URL, mysqlCheckJson, needsMysql } from './helpers/mysql-live.js';

needsMysql('mysql-check end to end');

const config = (name: string, id: string, workload: string) => `name: ${name}
seed: 11
table:
  name: t
  columns:
    - { name: id, type: ${id} }
    - { name: k, type: int }
    - { name: pad, type: varchar(200), null: true }
  indexes:
    - { name: t_pk, columns: [id], unique: true, clustered: true }
    - { name: t_k, columns: [k] }
engine: { format: innodb }
workload:
${workload}`;

const SCENARIOS = {
  sequential: config(
    'sequential',
    'bigint',
    `  - insert: { rows: 100000, values: { pad: { length: 100 } } }
  - update: { rows: all, order: sequential, via: scan, set: { pad: { length: 180 } } }
  - delete: { rows: 50%, order: random }
  - reorg: rebuild
`,
  ),
  random: config(
    'random',
    'binary(16)',
    `  - insert: { rows: 100000, values: { id: { order: random }, pad: { length: 100 } } }
  - update: { rows: all, order: random, set: { pad: { length: 180 } } }
  - delete: { rows: 50%, order: random }
  - reorg: rebuild
`,
  ),
};

const dir = mkdtempSync(join(tmpdir(), 'rowsim-mysqlengine-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(MYSQL_URL)('rowsim mysql-check: the innodb format beside MariaDB', () => {
  for (const [name, yaml] of Object.entries(SCENARIOS)) {
    it(`${name} keys: leaf pages within 1%, pages within 3%, after every phase and for every index`, () => {
      const file = join(dir, `${name}.yaml`);
      writeFileSync(file, yaml);
      const result = mysqlCheckJson(file)[0]!;
      const off = result.comparisons.filter(
        (c) =>
          c.diff_pct === null ||
          (c.metric.startsWith('leaf_pages.') && Math.abs(c.diff_pct) > 1) ||
          (c.metric.startsWith('size_pages.') && Math.abs(c.diff_pct) > 3),
      );
      expect(off.filter((c) => /^(leaf|size)_pages\./.test(c.metric))).toEqual([]);
      // Records per index (INNODB_BUFFER_PAGE, node pointers too) exact where no merge ran: the load, the rebuild.
      const last = Math.max(...result.comparisons.map((c) => c.phase));
      const records = result.comparisons.filter((c) => c.metric.startsWith('records.') && (c.phase === 0 || c.phase === last));
      expect(records.length).toBeGreaterThanOrEqual(2);
      for (const c of records) expect(c.predicted, `${c.label}: ${c.metric}`).toBe(c.observed);
    });
  }

  it("varying lengths and NULLs, random keys: the replay sends the model's lengths, so the load's pages and records are exact", () => {
    const file = join(dir, 'lengths.yaml');
    writeFileSync(
      file,
      config(
        'lengths',
        'bigint',
        `  - insert: { rows: 20000, values: { id: { order: random }, pad: { length: { uniform: [0, 160] }, null: 0.1 } } }
  - update: { rows: all, order: random, via: scan, set: { pad: { grow: { uniform: [0, 60] } } } }
`,
      ),
    );
    const result = mysqlCheckJson(file)[0]!;
    const load = result.comparisons.filter((c) => c.phase === 0 && /^(leaf_pages|size_pages|records)\./.test(c.metric));
    expect(load.length).toBe(6);
    for (const c of load) expect(c.predicted, `${c.label}: ${c.metric}`).toBe(c.observed);
    const grown = result.comparisons.filter((c) => c.phase === 1 && c.metric.startsWith('leaf_pages.'));
    for (const c of grown) expect(Math.abs(c.diff_pct!), `${c.label}: ${c.metric}`).toBeLessThanOrEqual(1);
  });

  it("an index's own MERGE_THRESHOLD (COMMENT 'MERGE_THRESHOLD=15' on t_k): its pages after random deletes exact", () => {
    const file = join(dir, 'merge-threshold.yaml');
    writeFileSync(
      file,
      config(
        'merge-threshold',
        'bigint',
        `  - insert: { rows: 100000, values: { pad: { length: 100 } } }
  - delete: { rows: 60%, order: random }
`,
      ).replace('{ name: t_k, columns: [k] }', '{ name: t_k, columns: [k], merge_threshold: 15 }'),
    );
    const result = mysqlCheckJson(file)[0]!;
    const pages = result.comparisons.filter((c) => /^(leaf|size)_pages\./.test(c.metric));
    expect(pages.length).toBe(8);
    for (const c of pages) expect(c.predicted, `${c.label}: ${c.metric}`).toBe(c.observed);
    // With the table's 50 the server merges t_k's leaves down to 60; with 15 on it, none merge.
    expect(pages.find((c) => c.metric === 'leaf_pages.t_k' && c.phase === 1)?.observed).toBe(108);
  });
});
