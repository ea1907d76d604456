/**
 * A column given no length takes its declared length (docs/config.md), and a value longer than the row
 * store keeps (65,534 bytes) is sized at 65,534: out of row in every engine. A varchar(max), text or clob
 * column's declared bound is above that; its values were once stored as 65,535, the row store's NULL.
 */
import { describe, expect, it } from 'vitest';
import type { PhaseSpec } from '../src/config/spec.js';
import { runStorage } from '../src/workload/runner.js';
import { col, engine, storage, table } from './helpers/spec.js';

const cases = [
  ['sqlserver-heap', 'varchar(max)'],
  ['sqlserver-heap', 'varbinary(max)'],
  ['postgres-heap', 'text'],
  ['oracle-heap', 'clob'],
] as const;

describe('a large-object column given no length', () => {
  for (const [format, type] of cases) {
    it(`${format} ${type}: every value is stored out of row (the longest row the schema allows), never as a NULL`, () => {
      const workload: PhaseSpec[] = [{ op: 'insert', rows: { kind: 'count', n: 50 }, values: {} }];
      const notNull = runStorage(storage(table([col('id', 'int'), col('b', type)]), engine({ format }), workload)).row_bytes;
      expect(notNull.min).toBe(notNull.schema_max);
      expect(notNull.max).toBe(notNull.schema_max);
      // The same column nullable and every value NULL: the shortest row, which the values above are not.
      const nulls = runStorage(
        storage(table([col('id', 'int'), col('b', type, true)]), engine({ format }), [
          { op: 'insert', rows: { kind: 'count', n: 50 }, values: { b: { null: 1 } } },
        ]),
      ).row_bytes;
      expect(nulls.max).toBeLessThan(notNull.min);
    });
  }

  it('an update that sets NULLs gives a NULL value its full length back, not a NULL', () => {
    const t = table([col('id', 'int'), col('b', 'varchar(max)', true)]);
    const r = runStorage(
      storage(t, engine({ format: 'sqlserver-heap' }), [
        { op: 'insert', rows: { kind: 'count', n: 200 }, values: { b: { null: 1 } } },
        {
          op: 'update',
          rows: { kind: 'all' },
          order: { kind: 'sequential' },
          transaction: 'statement',
          set: { b: { kind: 'null', null: 0 } },
        },
      ]),
    );
    expect(r.row_bytes.min).toBe(r.row_bytes.schema_max);
  });
});
