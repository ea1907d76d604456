import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PhaseSpec } from '../src/config/spec.js';
import { rowSizesOneByOne } from './helpers/row-sizes.js';
import { runStorage } from '../src/workload/runner.js';
import { col, engine, storage, table } from './helpers/spec.js';

const t = table(
  [col('id', 'int'), col('code', 'char(6)'), col('a', 'varchar(300)', true), col('b', 'varchar(60)')],
  [{ name: 'pk', columns: ['id'], unique: true }],
);

const dist = fc.oneof(
  fc.integer({ min: 0, max: 300 }).map((v) => ({ kind: 'const' as const, value: v })),
  fc
    .tuple(fc.integer({ min: 0, max: 150 }), fc.integer({ min: 0, max: 300 }))
    .map(([a, b]) => ({ kind: 'uniform' as const, min: Math.min(a, b), max: Math.max(a, b) })),
  fc
    .tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 80 }))
    .map(([m, s]) => ({ kind: 'normal' as const, mean: m, sd: s })),
);
const order = fc.constantFrom<PhaseSpec & { op: 'update' } extends { order: infer O } ? O : never>(
  { kind: 'sequential' },
  { kind: 'random' },
  { kind: 'spread' },
  { kind: 'zipf', s: 0.9 },
);
const phase: fc.Arbitrary<PhaseSpec> = fc.oneof(
  fc.record({
    op: fc.constant('insert' as const),
    rows: fc.integer({ min: 0, max: 600 }).map((n) => ({ kind: 'count' as const, n })),
    values: fc.record({ a: fc.record({ length: dist, null: fc.double({ min: 0, max: 1, noNaN: true }) }) }),
  }),
  fc.record({
    op: fc.constant('update' as const),
    rows: fc.integer({ min: 0, max: 100 }).map((pct) => ({ kind: 'percent' as const, pct })),
    order,
    transaction: fc.constantFrom('statement' as const, 'row' as const),
    set: fc.oneof(
      fc.record({ a: fc.record({ kind: fc.constant('length' as const), dist, null: fc.constant(0.05) }) }),
      fc.record({ a: fc.record({ kind: fc.constant('grow' as const), dist }) }),
      fc.record({ b: fc.record({ kind: fc.constant('length' as const), dist }) }),
    ),
  }),
  fc.record({
    op: fc.constant('delete' as const),
    rows: fc.integer({ min: 0, max: 50 }).map((pct) => ({ kind: 'percent' as const, pct })),
    order,
    transaction: fc.constant('statement' as const),
  }),
  fc.constantFrom<PhaseSpec>({ op: 'reorg', kind: 'forwarded_rows' }, { op: 'reorg', kind: 'rebuild' }, { op: 'reorg', kind: 'compact' }),
);

const engines = fc.record({
  format: fc.constantFrom('ase-dol' as const, 'ase-apl' as const),
  page_size: fc.constantFrom(2048, 4096),
  exp_row_size: fc.constantFrom<number | 'max'>(0, 1, 50, 150, 'max'),
  exp_row_size_basis: fc.constantFrom('physical' as const, 'logical' as const),
  compaction: fc.constantFrom('on' as const, 'off' as const),
});

describe('heap invariants under random workloads (fast-check)', () => {
  it('bytes fit the page, every row is at most one hop from home, rows are conserved', () => {
    fc.assert(
      fc.property(engines, fc.array(phase, { minLength: 1, maxLength: 7 }), fc.integer({ min: 0, max: 1000 }), (e, phases, seed) => {
        const workload: PhaseSpec[] = [{ op: 'insert', rows: { kind: 'count', n: 300 }, values: {} }, ...phases];
        let expectedRows = 0;
        const result = runStorage(storage(t, engine(e), workload, seed), {
          afterPhase: (eng, i) => {
            expect(eng.checkInvariants()).toEqual([]);
            if (eng.rowSizes) expect(eng.rowSizes()).toEqual(rowSizesOneByOne(eng));
            // The page map's stubs and forwarded bodies a page, as the inspector lists the page's slots.
            const map = eng.pageMap();
            const pages = eng.inspect();
            for (let p = 0; p < pages.pages; p++) {
              const slots = pages.page(p).slots;
              expect([map.stubs[p], map.forwardedIn[p]]).toEqual([
                slots.filter((x) => x.kind === 'stub').length,
                slots.filter((x) => x.kind === 'forwarded').length,
              ]);
            }
            const m = eng.metrics();
            expect(m.inserts! - m.deletes!).toBe(m.rows);
            expect(m.table_scan_page_reads).toBe(m.pages! + m.forwarded_rows!);
            if (e.format === 'ase-apl') expect(m.forwarded_rows).toBe(0);
            const ph = workload[i]!;
            if (ph.op === 'reorg') expect(m.forwarded_rows).toBe(0);
            if (ph.op === 'reorg') expect(m.rows).toBe(expectedRows);
            expectedRows = m.rows!;
          },
        });
        expect(result.final.rows).toBe(expectedRows);
      }),
      { numRuns: 150, seed: 20261129 },
    );
  });
});
