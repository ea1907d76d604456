/**
 * rowsim mysql-check on the shipped sim-configs/uuid-vs-sequential-innodb.yaml: the segments' reserved pages
 * (mysql.innodb_index_stats 'size') and DATA_FREE, which depend on where fsp0fsp.cc places each page (the
 * hinted page, its extent, a new extent under FSEG_FILLFACTOR), beside a live MariaDB's. Bounds are the
 * issue's (size within 3% after every phase); after the growth, where the random keys' segment took one
 * extent more than the model did before pages had places in the file, sizes, leaves and DATA_FREE are exact.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MysqlCheckResult } from '../src/mysqlcheck/check.js';
import { MYSQL_URL, mysqlCheckJson, needsMysql } from './helpers/mysql-live.js';

needsMysql('mysql-check: segment sizes of the shipped InnoDB config');

describe.runIf(MYSQL_URL)('rowsim mysql-check: segment sizes of sim-configs/uuid-vs-sequential-innodb.yaml', () => {
  it('both key orders: size within 3% after every phase; after the growth, size, leaves and DATA_FREE exact', () => {
    const results = mysqlCheckJson('sim-configs/uuid-vs-sequential-innodb.yaml');
    expect(results).toHaveLength(2);
    for (const result of results) {
      const sizes = result.comparisons.filter((c) => c.metric.startsWith('size_pages.'));
      expect(sizes.length).toBeGreaterThan(0);
      for (const c of sizes) expect(Math.abs(c.diff_pct ?? Infinity), `${c.label}: ${c.metric}`).toBeLessThanOrEqual(3);
      const grown = result.comparisons.filter((c) => c.phase === 1 && /^(size_pages|leaf_pages)\.|^data_free$/.test(c.metric));
      expect(grown.map((c) => c.metric)).toEqual(expect.arrayContaining(['size_pages.PRIMARY', 'leaf_pages.PRIMARY', 'data_free']));
      for (const c of grown) expect(c.predicted, `${c.label}: ${c.metric}`).toBe(c.observed);
    }
  });

  it('after OPTIMIZE the file grows again as the server reserves: rows grown one by one, size and DATA_FREE exact', () => {
    // A rebuilt file writes its sorted pages without fsp_reserve_free_extents; the growth after it reserves again (the model
    // once stayed at DATA_FREE 0 there, the server at 4 MiB).
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-after-optimize-'));
    const config = join(dir, 'after-optimize.yaml');
    writeFileSync(
      config,
      `name: innodb-after-optimize
seed: 7
table:
  name: t
  columns:
    - { name: id, type: bigint }
    - { name: pad, type: varchar(200) }
  indexes:
    - { name: PRIMARY, columns: [id], unique: true, clustered: true, when: before_load }
engine: { format: innodb }
workload:
  - insert: { rows: 20000, values: { id: { order: random }, pad: { length: { uniform: [60, 80] } } } }
  - reorg: rebuild
  - update: { rows: all, order: random, set: { pad: { length: { uniform: [150, 190] } } } }
`,
    );
    let result: MysqlCheckResult | undefined;
    try {
      [result] = mysqlCheckJson(config);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const grown = result!.comparisons.filter(
      (c) => c.phase === 2 && /^(size_pages\.PRIMARY|leaf_pages\.PRIMARY|data_free)$/.test(c.metric),
    );
    expect(grown).toHaveLength(3);
    for (const c of grown) expect(c.predicted, c.metric).toBe(c.observed);
    expect(grown.find((c) => c.metric === 'data_free')!.observed).toBeGreaterThan(0);
  });
});
