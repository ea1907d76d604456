import { describe, expect, it } from 'vitest';
import { pgIndexTupleBytes, pgLayout } from '../src/formats/postgres.js';
import fc from 'fast-check';
import { buildIndex, fillLevel } from '../src/btree/geometry.js';
import { getFormat, indexGeometries } from '../src/formats/registry.js';
import { FORMAT_IDS } from '../src/formats/registry.js';
import { runStorage } from '../src/workload/runner.js';
import { col, engine, table } from './helpers/spec.js';

const pgE = engine({ format: 'postgres-heap', page_size: 8192 });

describe('B-tree index sizes', () => {
  it('PostgreSQL index tuples: 8-byte header + key, MAXALIGNed: int4 16, uuid 24, char(35) 48, (uuid, uuid, uuid) 56', () => {
    const t = table([col('i', 'int'), col('u', 'uuid'), col('c', 'char(35)'), col('u2', 'uuid'), col('u3', 'uuid')]);
    const l = pgLayout(t, pgE);
    const lens = new Uint16Array(1);
    expect(pgIndexTupleBytes(l, [0], lens, 0)).toBe(16);
    expect(pgIndexTupleBytes(l, [1], lens, 0)).toBe(24);
    expect(pgIndexTupleBytes(l, [2], lens, 0)).toBe(48);
    expect(pgIndexTupleBytes(l, [1, 3, 4], lens, 0)).toBe(56);
  });

  it('CREATE INDEX fills leaves to 90 %: 261 uuid entries a leaf, so 400,000 rows take 1,533 leaves (+ upper levels + metapage)', () => {
    const t = table([col('u', 'uuid')], [{ name: 'u_idx', columns: ['u'], unique: false }]);
    const l = pgLayout(t, pgE);
    const [g] = indexGeometries(getFormat('postgres-heap'), t, l);
    const b = buildIndex(g!, 400_000, () => 24, 24);
    expect(b.leafPages).toBe(Math.ceil(400_000 / 261));
    expect(b.metaPages).toBe(1);
    expect(b.levels).toBe(3);
    expect(b.upperPages).toBeGreaterThan(4);
  });

  it('every format reports final.index_pages for every index', () => {
    const t = table(
      [col('id', 'int'), col('code', 'char(12)'), col('note', 'varchar(100)', true)],
      [
        { name: 'pk', columns: ['id'], unique: true },
        { name: 'by_code', columns: ['code', 'id'], unique: false },
      ],
    );
    for (const format of FORMAT_IDS) {
      const f = getFormat(format)!;
      const r = runStorage({
        name: 'i',
        seed: 1,
        table: t,
        engine: engine({ format, page_size: f.defaultPageBytes }),
        workload: [{ op: 'insert', rows: { kind: 'count', n: 10000 }, values: {} }],
      });
      expect(Object.keys(r.index_pages.by_index)).toEqual(['pk', 'by_code']);
      expect(r.index_pages.total).toBe(r.index_pages.by_index.pk! + r.index_pages.by_index.by_code!);
      expect(r.index_pages.by_index.by_code).toBeGreaterThan(r.index_pages.by_index.pk!);
    }
  });
});

describe('a level of items that all take the same bytes', () => {
  it("is filled page by page into exactly the pages an item-by-item fill makes (every format's geometry, leaf and non-leaf)", () => {
    const t = table([col('id', 'int'), col('name', 'varchar(40)')], [{ name: 't_pk', columns: ['id'], unique: true }]);
    let compared = 0;
    for (const format of FORMAT_IDS) {
      const f = getFormat(format);
      const g0 = indexGeometries(f, t, f.rows.layout(t, engine({ format })))[0]!;
      if (g0.nbtsort) continue;
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 5000 }),
          fc.integer({ min: 1, max: 900 }),
          fc.boolean(),
          fc.integer({ min: 0, max: 40 }),
          fc.integer({ min: 0, max: 3 }),
          (count, bytes, leaf, maxEntries, spare) => {
            const g = { ...g0, leafMaxEntries: maxEntries, nonLeafSpareEntries: spare };
            const byItem = fillLevel(g, count, () => bytes, leaf);
            const byPage = fillLevel(g, count, () => bytes, leaf, bytes);
            expect(byPage.pages).toBe(byItem.pages);
            expect([...byPage.free]).toEqual([...byItem.free]);
            expect([...byPage.firstItem]).toEqual([...byItem.firstItem]);
          },
        ),
        { numRuns: 200 },
      );
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(3);
  });
});
