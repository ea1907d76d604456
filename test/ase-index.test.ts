/**
 * The SAP ASE Performance and Tuning guide's worked examples of "Determining sizes of tables and
 * indexes", reproduced figure for figure: the 9,000,000-row table of 100 bytes of fixed-length and 50 of
 * variable-length data in two columns, a clustered index on a 4-byte key, and a nonclustered index on
 * a 4-byte and a 20-byte variable-length key [PT-APL][PT-DOL] (docs/sources.md).
 */
import { describe, expect, it } from 'vitest';
import { buildIndex, levelPages, type IndexGeometry } from '../src/btree/geometry.js';
import { aplClusteredIndexRowBytes, aplLeafIndexRowBytes, dolIndexRowBytes } from '../src/formats/ase-index.js';
import { aseAllocationPages, aseApl, aseDol } from '../src/formats/ase.js';
import { getFormat, indexGeometries } from '../src/formats/registry.js';
import type { IndexDef } from '../src/config/spec.js';
import { runStorage } from '../src/workload/runner.js';
import { col, engine, storage, table } from './helpers/spec.js';

/** "Tables and indexes used in the formulas": 100 bytes fixed (a 4-byte key among them), 50 bytes variable in two columns. */
export const guideIndexes = (clustered: boolean): IndexDef[] => [
  { name: 'ci', columns: ['id'], unique: true, clustered },
  { name: 'nc', columns: ['id', 'v1'], unique: false, clustered: false },
];
export const guideTable = (clustered = false) =>
  table([col('id', 'int'), col('f', 'char(96)'), col('v1', 'varchar(20)'), col('v2', 'varchar(30)')], guideIndexes(clustered));
/** Every variable-length column at its maximum, as the guide sizes them. */
const FULL = Uint16Array.from([20, 30]);

function geometries(format: 'ase-apl' | 'ase-dol', clustered: boolean, overrides: Partial<IndexDef> = {}): IndexGeometry[] {
  const t = guideTable(clustered);
  t.indexes = t.indexes.map((i) => ({ ...i, ...overrides }));
  const e = engine({ format });
  return indexGeometries(getFormat(format), t, getFormat(format).rows.layout(t, e));
}

describe('ASE index row sizes [PT-APL3][PT-APL7][PT-DOL4]', () => {
  it('APL clustered index row: 5 + 4 = 9', () => {
    expect(aplClusteredIndexRowBytes({ fixed: 4, variable: 0, nVar: 0 })).toBe(9);
    expect(geometries('ase-apl', true)[0]!.pivotBytes(FULL, 0)).toBe(9);
  });
  it('APL nonclustered leaf row: 9 + 4 + 20 + (1 + 1) = 35, + 35/256 + 1 = 36; non-leaf 36 + 4 = 40; fixed keys only: 7 + keys', () => {
    expect(aplLeafIndexRowBytes({ fixed: 4, variable: 20, nVar: 1 })).toBe(36);
    const [, nc] = geometries('ase-apl', false);
    expect(nc!.leafTupleBytes(FULL, 0)).toBe(36);
    expect(nc!.pivotBytes(FULL, 0)).toBe(40);
    expect(aplLeafIndexRowBytes({ fixed: 4, variable: 0, nVar: 0 })).toBe(11);
  });
  it('DOL index row: 9 + 4 + 20 + 1 × 2 = 35, the same on leaf and non-leaf pages', () => {
    expect(dolIndexRowBytes({ fixed: 4, variable: 20, nVar: 1 })).toBe(35);
    const [, nc] = geometries('ase-dol', false);
    expect(nc!.leafTupleBytes(FULL, 0)).toBe(35);
    expect(nc!.pivotBytes(FULL, 0)).toBe(35);
  });
});

describe('the 9,000,000-row table (2K pages)', () => {
  it('APL clustered index: (2016 / 9) − 2 = 222 rows a page over 750,000 data pages: 3,379 + 16 + 1 = 3,396 pages, 3 levels [PT-APL4]', () => {
    const [ci] = geometries('ase-apl', true);
    expect(levelPages(ci!, 750_000, 9)).toEqual([3379, 16, 1]);
    const b = buildIndex(ci!, 750_000, () => 9, 9);
    expect(b.upperPages).toBe(3396);
    expect(b.levels).toBe(3);
    expect(b.leafPages).toBe(0); // the data pages are the leaf level
  });
  it('APL nonclustered index: 2016 / 36 = 56 rows a leaf, 160,715 leaves; (2016 / 40) − 2 = 48 a non-leaf page: 3,349, 70, 2, 1 [PT-APL10]', () => {
    const [, nc] = geometries('ase-apl', false);
    const b = buildIndex(nc!, 9_000_000, () => 36, 40);
    expect(b.leafPages).toBe(160_715);
    expect(levelPages(nc!, 160_715, 40)).toEqual([3349, 70, 2, 1]);
    expect(b.leafPages + b.upperPages).toBe(164_137);
    expect(b.levels).toBe(5);
  });
  it('DOL index: 2002 / 35 = 57 rows a page: 157,895 leaves, 2,771, 49 and 1 above, 160,716 pages in all [PT-DOL6][PT-DOL7]', () => {
    const [, nc] = geometries('ase-dol', false);
    const b = buildIndex(nc!, 9_000_000, () => 35, 35);
    expect(b.leafPages).toBe(157_895);
    expect(levelPages(nc!, 157_895, 35)).toEqual([2771, 49, 1]);
    expect(b.leafPages + b.upperPages).toBe(160_716);
    expect(b.levels).toBe(4);
  });
  it.each([
    ['ase-apl', 164_137],
    ['ase-dol', 160_716],
  ] as const)('%s: a run of 9,000,000 inserts gives 750,000 data pages and %i pages of the nonclustered index', (format, ncPages) => {
    const r = runStorage(
      storage(guideTable(false), engine({ format, exp_row_size: 1 }), [
        { op: 'insert', rows: { kind: 'count', n: 9_000_000 }, values: {} },
      ]),
    );
    expect(r.row_bytes.max).toBe(format === 'ase-apl' ? 160 : 162);
    expect(r.final.pages).toBe(750_000);
    expect(r.index_pages.by_index.nc).toBe(ncPages);
    expect(r.index_pages.levels.nc).toBe(format === 'ase-apl' ? 5 : 4);
  });
});

describe('allocation overhead: OAM pages [PT-APL6][PT-DOL3]', () => {
  it("allpages-locked table and clustered index: 750,000 data pages + 12 OAM pages, 3,396 index pages + 1: 753,409 pages (the guide's minimum)", () => {
    const t = guideTable(true);
    t.indexes = t.indexes.filter((i) => i.name === 'ci');
    const r = runStorage(storage(t, engine({ format: 'ase-apl' }), [{ op: 'insert', rows: { kind: 'count', n: 9_000_000 }, values: {} }]));
    expect(r.allocation_pages.by_kind.oam).toBe(12 + 1);
    expect(r.final.pages + r.index_pages.total + r.allocation_pages.by_kind.oam!).toBe(753_409);
    expect(aseAllocationPages({ pageBytes: 2048, dataPages: 750_000, indexPages: { ci: 3396 }, metrics: r.final }).oam).toBe(13);
  });
  it('data-only-locked table: 750,000 + 12 = 750,012 pages', () => {
    const r = aseAllocationPages({ pageBytes: 2048, dataPages: 750_000, indexPages: {}, metrics: {} as never });
    expect(750_000 + r.oam!).toBe(750_012);
    // one allocation page in each 256-page allocation unit the pages fill [A2]
    expect(r.allocation).toBe(Math.ceil(750_012 / 255));
  });
});

describe('ASE clustered indexes', () => {
  it('allpages-locked: 9,000,000 inserts in key order fill 750,000 data pages, the leaf level of a 3,396-page, 3-level clustered index [PT-APL4]', () => {
    const r = runStorage(
      storage(guideTable(true), engine({ format: 'ase-apl' }), [{ op: 'insert', rows: { kind: 'count', n: 9_000_000 }, values: {} }]),
    );
    expect(r.final.pages).toBe(750_000);
    expect(r.index_pages.by_index.ci).toBe(3396);
    expect(r.index_pages.levels.ci).toBe(3);
    expect(r.index_pages.by_index.nc).toBe(164_137);
    expect(r.engine.clustered_index).toBe('ci');
  });

  it("allpages-locked: a growing row splits its data page and the moved rows' nonclustered entries are updated [PT-SPLIT]", () => {
    const t = table(
      [col('id', 'int'), col('body', 'varchar(400)')],
      [
        { name: 'ci', columns: ['id'], unique: true, clustered: true },
        { name: 'nc', columns: ['body'], unique: false, clustered: false },
      ],
    );
    const r = runStorage(
      storage(t, engine({ format: 'ase-apl' }), [
        { op: 'insert', rows: { kind: 'count', n: 2000 }, values: { body: { length: { kind: 'const', value: 20 }, null: 0 } } },
        {
          op: 'update',
          rows: { kind: 'count', n: 200 },
          order: { kind: 'random' },
          transaction: 'statement',
          set: { body: { kind: 'length', dist: { kind: 'const', value: 300 } } },
        },
      ]),
      { checkInvariants: true },
    );
    const m = r.final as unknown as Record<string, number>;
    expect(m.page_splits).toBeGreaterThan(0);
    expect(m.row_moves ?? 0).toBe(0);
    expect(m.index_row_updates).toBe(m.rows_moved_by_splits);
  });

  it('data-only-locked: a placement index with a leaf row per data row, sized as a nonclustered index; the rows stay a heap [PT-DOLCI]', () => {
    const r = runStorage(
      storage(guideTable(true), engine({ format: 'ase-dol', exp_row_size: 1 }), [
        { op: 'insert', rows: { kind: 'count', n: 57_000 }, values: {} },
      ]),
    );
    // 9 + 4 = 13-byte rows, 2002 / 13 = 154 a page: 371 leaves, 3 pages above them and a root
    expect(r.index_pages.by_index.ci).toBe(371 + 3 + 1);
    expect(r.engine.clustered_index).toBeUndefined();
    expect(r.notes.join(' ')).toMatch(/placement index/);
  });
});

describe('index space management properties [PT-FILL][ASE-IDXPROP]', () => {
  it('fillfactor 100 fills non-leaf pages too: 2016 / 40 = 50 rows, no two kept free', () => {
    const [, nc] = geometries('ase-apl', false, { fillfactor: 100 });
    expect(levelPages(nc!, 160_715, 40)[0]).toBe(Math.ceil(160_715 / 50));
  });
  it('fillfactor 75 fills leaves to 75%: 2016 × 0.75 / 36 = 42 rows a leaf', () => {
    const [, nc] = geometries('ase-apl', false, { fillfactor: 75 });
    expect(buildIndex(nc!, 42 * 100, () => 36, 40).leafPages).toBe(100);
  });
  it('max_rows_per_page caps the rows of an APL leaf page', () => {
    const [, nc] = geometries('ase-apl', false, { max_rows_per_page: 10 });
    expect(buildIndex(nc!, 1000, () => 36, 40).leafPages).toBe(100);
  });
  it('reservepagegap 10 leaves one empty page for each 9 filled [ASE-IDXPROP]', () => {
    const [, nc] = geometries('ase-dol', false, { reservepagegap: 10 });
    expect(buildIndex(nc!, 57 * 900, () => 35, 35).leafPages).toBe(1000);
  });
  it('max_rows_per_page is ignored on a data-only-locked table, with a note', () => {
    const t = guideTable();
    t.indexes[1] = { ...t.indexes[1]!, max_rows_per_page: 10 };
    const r = runStorage(storage(t, engine({ format: 'ase-dol' }), [{ op: 'insert', rows: { kind: 'count', n: 100 }, values: {} }]));
    expect(r.notes).toContain('max_rows_per_page of index nc does not apply to ase-dol and is ignored');
    expect(aseDol.indexes.indexSettings).not.toContain('max_rows_per_page');
    expect(aseApl.indexes.indexSettings).toContain('max_rows_per_page');
  });
});

describe('"Effects of space management properties" [PT-SPACE]', () => {
  // 4,000 rows of 4 + 494 bytes (502 with their APL row overhead, + 2 of offset table): 4 a 2K data page, 1,000 pages packed full.
  const t = (o: Partial<IndexDef>) =>
    table([col('id', 'int'), col('body', 'char(494)')], [{ name: 'ci', columns: ['id'], unique: true, clustered: true, ...o }]);
  const pages = (o: Partial<IndexDef>) =>
    runStorage(storage(t(o), engine({ format: 'ase-apl' }), [{ op: 'insert', rows: { kind: 'count', n: 4000 }, values: {} }])).final.pages;
  it('fillfactor 75 "requires (100/75) × num_pages": 1,000 packed pages become 1,334 (the guide prints 1,333, the product rounded down)', () => {
    expect(pages({})).toBe(1000);
    expect(pages({ fillfactor: 75 })).toBe(1334);
  });
  it('reservepagegap 10 "increases space by 1/reservepagegap" (1,000 → 1,100); one empty page for every 9 filled, as the create index reference puts it, makes 1,111 [ASE-IDXPROP]', () => {
    expect(pages({ reservepagegap: 10 })).toBe(1111);
  });
});
