/**
 * rowsim mysql-check end to end with off-page columns, in each row format (DYNAMIC, COMPACT, REDUNDANT):
 * a TEXT value of 2,000 bytes (inline in all three: the record is under half a page) grown to 9,000
 * (off-page in all: whole under DYNAMIC, past a 768-byte inline prefix under COMPACT and REDUNDANT), and
 * 9,000-byte values from the load on; then half the rows deleted at random and OPTIMIZE TABLE. Bounds are
 * the (leaf pages per index within 1%, pages within 3%), and records per index (INNODB_BUFFER_PAGE)
 * exact where no merge ran: after the load and after the rebuild.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MysqlCheckResult } from '../src/mysqlcheck/check.js';
import { MYSQL_URL, mysqlCheckJson, needsMysql } from './helpers/mysql-live.js';

needsMysql('mysql-check with off-page columns');

const config = (name: string, rowFormat: string, first: string) => `name: ${name}
seed: 11
table:
  name: t
  columns:
    - { name: id, type: bigint }
    - { name: body, type: text }
  indexes:
    - { name: t_pk, columns: [id], unique: true, clustered: true }
engine: { format: innodb, row_format: ${rowFormat} }
workload:
${first}
  - delete: { rows: 50%, order: random }
  - reorg: rebuild
`;

const GROWN = `  - insert: { rows: 4000, values: { body: { length: 2000 } } }
  - update: { rows: all, order: sequential, via: scan, set: { body: { length: 9000 } } }`;
const OFF_PAGE = `  - insert: { rows: 2000, values: { body: { length: 9000 } } }`;

const dir = mkdtempSync(join(tmpdir(), 'rowsim-mysqloffpage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function check(name: string, yaml: string): MysqlCheckResult {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, yaml);
  return mysqlCheckJson(file)[0]!;
}

describe.runIf(MYSQL_URL)('rowsim mysql-check: off-page columns beside MariaDB', () => {
  for (const rowFormat of ['dynamic', 'compact', 'redundant']) {
    for (const [name, first] of [
      ['grown 2,000 to 9,000 bytes', GROWN],
      ['9,000 bytes', OFF_PAGE],
    ] as const) {
      it(`${rowFormat}, TEXT ${name}: leaf pages within 1%, pages within 3%, records exact after load and rebuild`, () => {
        const file = `${rowFormat}-${first === GROWN ? 'grown' : 'offpage'}`;
        const result = check(file, config(file, rowFormat, first));
        const last = Math.max(...result.comparisons.map((c) => c.phase));
        const off = result.comparisons.filter(
          (c) =>
            /^(leaf|size)_pages\./.test(c.metric) &&
            (c.diff_pct === null ||
              (c.metric.startsWith('leaf_pages.') && Math.abs(c.diff_pct) > 1) ||
              (c.metric.startsWith('size_pages.') && Math.abs(c.diff_pct) > 3)),
        );
        expect(off).toEqual([]);
        const records = result.comparisons.filter((c) => c.metric === 'records.PRIMARY' && (c.phase === 0 || c.phase === last));
        expect(records).toHaveLength(2);
        for (const c of records) expect(c.predicted, `${c.label}: records`).toBe(c.observed);
      });
    }
  }
});
