/**
 * An update phase runs one of two loops (src/workload/phase-update.ts): a short one where only the rows'
 * lengths and the engine take part, and the full one where the run also keeps keys, compressibilities,
 * index versions, TOAST or off-row records, or an observer watches. Both must leave the same run. An
 * observer that does nothing sends the run through the full loop, so each case runs with and without one
 * and compares everything the run reports.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EngineSpec, PhaseSpec, StorageSpec } from '../src/config/spec.js';
import type { FormatId } from '../src/formats/registry.js';
import { runStorage, type StorageRunResult } from '../src/workload/runner.js';
import { col, engine, storage, table } from './helpers/spec.js';

/** Everything the run reports but the memory it held (an observer's run keeps every column's length). */
const outcome = (r: StorageRunResult) => ({ ...r, memory_bytes: 0 });

function both(s: StorageSpec): [StorageRunResult, StorageRunResult] {
  return [runStorage(s, { pageMapMaxCells: 200 }), runStorage(s, { pageMapMaxCells: 200, observer: {} })];
}

/** Updates the engine refused in phase `i` (its counter is the run's so far: the phase before's is taken off). */
const rejected = (r: StorageRunResult, i: number) => r.phases[i]!.metrics.updates_rejected - r.phases[i - 1]!.metrics.updates_rejected;

/** The four formats whose updates can take the short loop, each with a table where some updates make a row too long for a page (or, in SQL Server, push a value off-row). */
const cases: { format: FormatId; engine: EngineSpec; body: string; note: string }[] = [
  {
    format: 'ase-dol',
    engine: engine({ format: 'ase-dol', page_size: 2048, exp_row_size: 120 }),
    body: 'varchar(1900)',
    note: 'exp_row_size reserves room',
  },
  { format: 'ase-apl', engine: engine({ format: 'ase-apl', page_size: 2048 }), body: 'varchar(1900)', note: 'rows move' },
  {
    format: 'sqlserver-heap',
    engine: engine({ format: 'sqlserver-heap', page_size: 8192 }),
    body: 'varchar(3000)',
    note: 'rows are forwarded',
  },
  {
    format: 'sqlserver-heap',
    engine: engine({ format: 'sqlserver-heap', page_size: 8192 }),
    body: 'varchar(7500)',
    note: 'long values go off-row: the full loop',
  },
  {
    format: 'oracle-heap',
    engine: engine({ format: 'oracle-heap', page_size: 2048, pctfree: 10 }),
    body: 'varchar2(1900)',
    note: 'rows migrate',
  },
];

function workload(updates: PhaseSpec[]): PhaseSpec[] {
  return [
    {
      op: 'insert',
      rows: { kind: 'count', n: 1500 },
      values: {
        body: { length: { kind: 'uniform', min: 0, max: 200 }, null: 0.1 },
        note: { length: { kind: 'uniform', min: 0, max: 30 }, null: 0.3 },
      },
    },
    ...updates,
  ];
}

const fixedUpdates: PhaseSpec[] = [
  {
    op: 'update',
    rows: { kind: 'all' },
    order: { kind: 'random' },
    transaction: 'statement',
    set: { body: { kind: 'grow', dist: { kind: 'uniform', min: 10, max: 400 } } },
  },
  { op: 'delete', rows: { kind: 'count', n: 300 }, order: { kind: 'random' }, transaction: 'row' },
  {
    op: 'update',
    rows: { kind: 'count', n: 800 },
    order: { kind: 'sequential' },
    transaction: 'row',
    set: {
      body: { kind: 'grow', dist: { kind: 'uniform', min: 300, max: 900 } },
      note: { kind: 'length', dist: { kind: 'uniform', min: 0, max: 1000 }, null: 0.2 },
    },
  },
  {
    op: 'update',
    rows: { kind: 'percent', pct: 30 },
    order: { kind: 'random' },
    transaction: 'statement',
    set: { body: { kind: 'length', dist: { kind: 'uniform', min: 5000, max: 7500 } } },
  },
  {
    op: 'update',
    rows: { kind: 'all' },
    order: { kind: 'sequential' },
    transaction: 'statement',
    set: { note: { kind: 'grow', dist: { kind: 'uniform', min: 500, max: 1000 } } },
  },
  {
    op: 'update',
    rows: { kind: 'all' },
    order: { kind: 'random' },
    transaction: 'statement',
    set: { body: { kind: 'length', dist: { kind: 'uniform', min: 0, max: 60 } }, code: { kind: 'null' } },
  },
];

const t = (body: string) =>
  table(
    [col('id', 'int'), col('code', 'int', true), col('body', body, true), col('note', 'varchar(1000)', true)],
    [{ name: 'pk', columns: ['id'], unique: true, clustered: false }],
  );

describe('the short update loop', () => {
  for (const c of cases) {
    it(`leaves what the full loop leaves: ${c.format} (${c.note})`, () => {
      const [short, full] = both(storage(t(c.body), c.engine, workload(fixedUpdates), 5));
      expect(outcome(short)).toEqual(outcome(full));
      // The cases reach every branch of the loops: updates that change rows and, in ASE (where a row longer
      // than a page is refused; SQL Server's rows here always fit, Oracle chains them), updates of one
      // column and of two that the engine refuses, whose lengths are put back.
      expect(short.phases[1]!.metrics.updates).toBeGreaterThan(1000);
      if (c.format.startsWith('ase')) {
        expect(rejected(short, 3)).toBeGreaterThan(0);
        expect(rejected(short, 5)).toBeGreaterThan(0);
      }
    });
  }

  it('leaves what the full loop leaves under random workloads (fast-check)', () => {
    const dist = fc
      .tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 900 }))
      .map(([a, b]) => ({ kind: 'uniform' as const, min: Math.min(a, b), max: Math.max(a, b) }));
    const set = fc.record({
      body: fc.oneof(
        dist.map((d) => ({ kind: 'grow' as const, dist: d })),
        fc.tuple(dist, fc.constantFrom(0, 0.3)).map(([d, n]) => ({ kind: 'length' as const, dist: d, null: n })),
      ),
      code: fc.constantFrom(undefined, { kind: 'null' as const }),
    });
    const update = fc
      .tuple(
        set,
        fc.constantFrom('random' as const, 'sequential' as const),
        fc.constantFrom('row' as const, 'statement' as const),
        fc.integer({ min: 1, max: 100 }),
      )
      .map(([s, order, transaction, pct]): PhaseSpec => ({
        op: 'update',
        rows: { kind: 'percent', pct },
        order: { kind: order },
        transaction,
        set: s.code ? { body: s.body, code: s.code } : { body: s.body },
      }));
    const del: PhaseSpec = { op: 'delete', rows: { kind: 'count', n: 100 }, order: { kind: 'random' }, transaction: 'statement' };
    fc.assert(
      fc.property(
        fc.constantFrom(...cases),
        fc.array(fc.oneof({ arbitrary: update, weight: 4 }, { arbitrary: fc.constant(del), weight: 1 }), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 1000 }),
        (c, phases, seed) => {
          const [short, full] = both(storage(t(c.body), c.engine, workload(phases), seed));
          expect(outcome(short)).toEqual(outcome(full));
        },
      ),
      { numRuns: 30 },
    );
  });
});
