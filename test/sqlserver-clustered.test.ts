/**
 * SQL Server clustered tables and the published DBCC PAGE figures they are checked against
 * (docs/sources.md: [DBA-15026], [SO-30ROWS], [MS-CI], [MS-NCI]).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IndexDef, PhaseSpec, StorageSpec } from '../src/config/spec.js';
import { getFormat, indexGeometries } from '../src/formats/registry.js';
import { sqlserverAllocationPages, sqlserverLayout, sqlserverRowBytes } from '../src/formats/sqlserver.js';
import { runStorage } from '../src/workload/runner.js';
import { col, engine, table } from './helpers/spec.js';

const ss = (o = {}) => engine({ format: 'sqlserver-heap', page_size: 8192, ...o });
const ins = (n: number, len?: number): PhaseSpec => ({
  op: 'insert',
  rows: { kind: 'count', n },
  values: len === undefined ? {} : { i: { length: { kind: 'const', value: len }, null: 0 } },
});
const run = (t: ReturnType<typeof table>, workload: PhaseSpec[], o = {}) =>
  runStorage({ name: 'x', seed: 1, table: t, engine: ss(o), workload } as StorageSpec, { pageMapMaxCells: 10 });
const freeBytes = (r: ReturnType<typeof run>, page: number) => Math.round(8096 * (1 - r.pageMaps.at(-1)!.map.fill[page]!));

describe('"Why does my heap not fill its pages completely while an identical clustered index can fill to m_freeCnt = 0?" [DBA-15026]', () => {
  const heap = table([col('i', 'varchar(900)')]);
  const clustered = table([col('i', 'varchar(900)')], [{ name: 'cix', columns: ['i'], unique: false, clustered: true }]);

  it('heap: eight 900-character rows (911 bytes + 2) and a 392-character ninth share a page, m_freeCnt 387; 393 characters take a new page (PFS band 81–95 %: 5 % of 8,060 = 403 bytes)', () => {
    const r = run(heap, [ins(8, 900), ins(1, 392)]);
    expect(r.row_bytes.max).toBe(911);
    expect(r.final.pages).toBe(1);
    expect(freeBytes(r, 0)).toBe(387);
    expect(run(heap, [ins(8, 900), ins(1, 393)]).final.pages).toBe(2);
    // Without PFS bands (exact free space) the 393-character row would fit.
    expect(run(heap, [ins(8, 900), ins(1, 393)], { pfs_bands: 'off' }).final.pages).toBe(1);
  });

  it("clustered (non-unique) index: every row 2 bytes longer (the uniquifier's offset); eight rows and a 761-character ninth fill the page to m_freeCnt 0", () => {
    const r = run(clustered, [ins(8, 900), ins(1, 761)]);
    expect(r.row_bytes.max).toBe(913);
    expect(r.final.pages).toBe(1);
    expect(freeBytes(r, 0)).toBe(0);
    expect(run(clustered, [ins(8, 900), ins(1, 762)]).final.pages).toBe(2);
  });
});

describe("Itzik Ben-Gan's TestTable (id int, col1 char(36), col2 char(216)): 30 rows a page [SO-30ROWS]", () => {
  const t = table([col('id', 'int'), col('col1', 'char(36)'), col('col2', 'char(216)')]);
  it('rows of 4 + 256 + 2 + 1 = 263 bytes (+ 2): 30 fit a heap page, the 31st takes a second', () => {
    const layout = sqlserverLayout(t, ss());
    expect(sqlserverRowBytes(layout.ss, new Uint16Array(1), 0)).toBe(263);
    const thirty = run(t, [ins(30)]).final;
    expect(thirty.pages).toBe(1);
    // avg_page_space_used_in_percent 98.196…: 30 × 265 of 8,096 bytes
    expect(thirty.space_used_pct).toBeCloseTo(98.2, 1);
    expect(run(t, [ins(31)]).final.pages).toBe(2);
  });
});

describe('sqlserver-heap with a clustered index', () => {
  const t = (ff?: number) =>
    table(
      [col('id', 'int'), col('body', 'varchar(2000)')],
      [
        { name: 'pk', columns: ['id'], unique: true, clustered: true, ...(ff === undefined ? {} : { fillfactor: ff }) },
        { name: 'by_body', columns: ['body'], unique: false, clustered: false },
      ],
    );
  const grow: PhaseSpec = {
    op: 'update',
    rows: { kind: 'all' },
    order: { kind: 'random' },
    transaction: 'statement',
    set: { body: { kind: 'length', dist: { kind: 'const', value: 400 } } },
  };
  const load: PhaseSpec = {
    op: 'insert',
    rows: { kind: 'count', n: 20000 },
    values: { body: { length: { kind: 'const', value: 100 }, null: 0 } },
  };

  it('splits pages instead of forwarding rows; the index pages are the levels above the data pages', () => {
    const r = run(t(), [load, grow]);
    expect(r.final.forwarded_rows).toBe(0);
    expect(r.final).toMatchObject({ rows: 20000 });
    const m = r.final as unknown as Record<string, number>;
    expect(m.page_splits).toBeGreaterThan(500);
    expect(m.logical_fragmentation_pct).toBeGreaterThan(40);
    expect(r.index_pages.levels.pk).toBeGreaterThanOrEqual(1);
    expect(r.index_pages.by_index.pk).toBe(r.index_pages.nonleaf_by_index.pk);
    expect(r.notes.join(' ')).toMatch(/clustered table/);
    expect(r.engine.clustered_index).toBe('pk');
  });

  it('a fill factor leaves room on the data pages at build: rows that grow by 30 bytes split none of them', () => {
    const small: PhaseSpec = { ...grow, set: { body: { kind: 'length', dist: { kind: 'const', value: 130 } } } } as PhaseSpec;
    const full = run(t(), [load, small]).final as unknown as Record<string, number>;
    const ff = run(t(70), [load, small]).final as unknown as Record<string, number>;
    expect(full.page_splits).toBeGreaterThan(200);
    expect(ff.page_splits).toBe(0);
    expect(ff.pages).toBe(Math.ceil(20000 / Math.floor((8096 * 0.7) / 117)));
  });

  it('a rebuild repacks the pages in key order: no logical fragmentation', () => {
    const r = run(t(), [load, grow, { op: 'reorg', kind: 'rebuild' }]).final as unknown as Record<string, number>;
    expect(r.logical_fragmentation_pct).toBe(0);
    expect(r.exclusive_table_locks).toBe(1);
  });

  it('a nonclustered index carries the clustering key (4 bytes) instead of the 8-byte RID [MS-NCI]', () => {
    const f = getFormat('sqlserver-heap');
    const idx = (clustered: boolean): IndexDef[] => [
      { name: 'pk', columns: ['id'], unique: true, clustered },
      { name: 'by_code', columns: ['code'], unique: true, clustered: false },
    ];
    const entry = (clustered: boolean) => {
      const tt = table([col('id', 'int'), col('code', 'char(10)')], idx(clustered));
      return indexGeometries(f, tt, f.rows.layout(tt, ss()))[1]!.leafTupleBytes(new Uint16Array(1), 0);
    };
    expect(entry(false)).toBe(1 + 10 + 8);
    expect(entry(true)).toBe(1 + 10 + 4);
  });

  it('keeps its invariants over random workloads (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 199 }), fc.integer({ min: 0, max: 2000 })), {
          maxLength: 200,
        }),
        (ops) => {
          const f = getFormat('sqlserver-heap');
          const tt = t(80);
          const e = ss();
          const layout = f.rows.layout(tt, e);
          const h = f.pages.createEngine(layout, f.resolve(e, layout), { name: 'x', seed: 1, table: tt, engine: e, workload: [] }, 200);
          for (let r = 0; r < 200; r++) h.insert(r, 100, 100);
          h.indexesBuilt?.();
          for (const [kind, r, len] of ops) {
            if (!h.isLive(r)) continue;
            if (kind === 2) h.delete(r);
            else h.update(r, 20 + len, len, { indexedChanged: false });
          }
          expect(h.checkInvariants()).toEqual([]);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('SQL Server allocation pages and row-overflow data [pages]', () => {
  it('an IAM page per allocation unit and 4 GB, a PFS page per 8,088 pages, a GAM and an SGAM per 64,000 extents', () => {
    const a = sqlserverAllocationPages({ pageBytes: 8192, dataPages: 10_000, indexPages: { pk: 30 }, metrics: {} as never });
    expect(a).toEqual({ iam: 2, pfs: Math.ceil(10_032 / 8088), gam: 1, sgam: 1 });
  });
  it('rows above 8,060 bytes push their largest values to ROW_OVERFLOW_DATA pages, counted (and an IAM page for them)', () => {
    const t = table([col('id', 'int'), col('a', 'varchar(5000)'), col('b', 'varchar(5000)')]);
    const w: PhaseSpec = {
      op: 'insert',
      rows: { kind: 'count', n: 1000 },
      values: { a: { length: { kind: 'const', value: 5000 }, null: 0 }, b: { length: { kind: 'const', value: 4000 }, null: 0 } },
    };
    const r = run(t, [w]);
    // a 5,000-byte value moves off-row: a 5,000 + 14-byte record + 2-byte slot a row; the row keeps a 24-byte pointer
    expect(r.final.row_overflow_pages).toBe(Math.ceil((1000 * 5016) / 8096));
    expect(r.allocation_pages.by_kind.iam).toBe(2);
    const short = run(t, [{ ...w, values: { a: { length: { kind: 'const', value: 3000 }, null: 0 } } } as PhaseSpec]);
    expect(short.final.row_overflow_pages).toBe(0);
    expect(run(table([col('id', 'int'), col('a', 'varchar(100)')]), [ins(10)]).final.row_overflow_pages).toBeUndefined();
  });
});
