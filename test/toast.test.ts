/**
 * PostgreSQL's value sizes as rowsim models them, without a server: numeric by the digits of its values
 * (figures measured on PostgreSQL 15.20 with pg_column_size; the same values on a live server:
 * test/pgcheck.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/loader/config.js';
import { pgNumericBytes } from '../src/formats/postgres.js';
import { runStorage } from '../src/workload/runner.js';
import type { StorageSpec } from '../src/config/spec.js';

const spec = (yaml: string): StorageSpec => loadConfig('inline.yaml', yaml).storage[0]!.spec;

describe('numeric sized by its digits [PG-NUMERIC]', () => {
  it('the data bytes pg_column_size measured on PostgreSQL 15.20 (less its 4-byte header): 1234.56 6, 0 2, 0.05 4, 100000001 8, 12345.6 8', () => {
    // pg_column_size(1234.56::numeric(12,2)) = 10, (0) = 6, (0.05) = 8, (100000001::numeric(10,0)) = 12, (12345.6::numeric(12,1)) = 12.
    expect(pgNumericBytes(6, 2)).toBe(6);
    expect(pgNumericBytes(0, 2)).toBe(2);
    expect(pgNumericBytes(1, 2)).toBe(4);
    expect(pgNumericBytes(9, 0)).toBe(8);
    expect(pgNumericBytes(6, 1)).toBe(8);
  });
  it('with all p digits it is the old full-precision size 2 + 2 × (⌈(p − s)/4⌉ + ⌈s/4⌉)', () => {
    for (const [p, s] of [[12, 2], [38, 10], [4, 4], [1, 0], [18, 0], [10, 6]] as const) {
      expect(pgNumericBytes(p, s)).toBe(2 + 2 * (Math.ceil((p - s) / 4) + Math.ceil(s / 4)));
    }
  });
  it('a workload length sizes a numeric column on postgres-heap: 20,000 amounts of 3–8 digits take fewer pages than at full precision', () => {
    const yaml = (length: string) => `name: n
table:
  name: p
  columns: [{ name: id, type: int }, { name: amount, type: "numeric(12,2)" }, { name: fee, type: "numeric(12,2)" }, { name: tax, type: "numeric(12,2)" }]
  indexes: [{ name: p_amount, columns: [amount] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 20000${length} }
`;
    const full = runStorage(spec(yaml('')));
    const digits = '{ length: { uniform: [3, 8] } }';
    const real = runStorage(spec(yaml(`, values: { amount: ${digits}, fee: ${digits}, tax: ${digits} }`)));
    expect(real.final.pages).toBeLessThan(full.final.pages);
    expect(real.index_pages.by_index.p_amount!).toBeLessThan(full.index_pages.by_index.p_amount!);
  });
});
