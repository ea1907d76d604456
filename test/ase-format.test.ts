import { describe, expect, it } from 'vitest';
import { aplGeometry, aplRowBytes, aseApl, aseDol, dolGeometry, dolRowBytes, resolveExpRowSize } from '../src/formats/ase.js';
import { EngineSettingError } from '../src/layout/table-layout.js';
import { runStorage } from '../src/workload/runner.js';
import { col, engine, storage, table } from './helpers/spec.js';

/** The pubs2 titles table of the ASE manual's exp_row_size example (maximum row 331). */
export const titles = table([
  col('title_id', 'varchar(6)'),
  col('title', 'varchar(80)'),
  col('type', 'char(12)'),
  col('pub_id', 'char(4)', true),
  col('price', 'money', true),
  col('advance', 'money', true),
  col('total_sales', 'int', true),
  col('notes', 'varchar(200)', true),
  col('pubdate', 'datetime'),
  col('contract', 'bit'),
]);

describe('ASE DOL pages [storage-ase.md A, B, C]', () => {
  it('has 2002 usable bytes on a 2K page', () => {
    expect(dolGeometry(2048).usableBytes).toBe(2002);
  });
  it.each([
    [2048, 166, 1964],
    [4096, 337, 4012],
    [8192, 678, 8108],
    [16384, 1361, 16300],
  ])('page %i holds at most %i rows of at most %i bytes', (page, rows, maxRow) => {
    const g = dolGeometry(page);
    expect(g.maxRowsPerPage).toBe(rows);
    expect(g.maxRowBytes).toBe(maxRow);
  });
});

describe('ASE APL pages [storage-ase.md A, B, D]', () => {
  it('has 2016 usable bytes on a 2K page and at most 256 rows', () => {
    expect(aplGeometry(2048).usableBytes).toBe(2016);
    expect(aplGeometry(2048).maxRowsPerPage).toBe(256);
  });
  it.each([
    [2048, 1962],
    [4096, 4010],
    [8192, 8096],
    [16384, 16298],
  ])('page %i takes rows of at most %i bytes', (page, maxRow) => {
    expect(aplGeometry(page).maxRowBytes).toBe(maxRow);
  });
});

describe('ASE row sizes [storage-ase.md E, F]', () => {
  it('DOL variable rows: 8 + 100 + 50 + 4 = 162', () => {
    expect(dolRowBytes(150, 2)).toBe(162);
    // the same through the format: 100 fixed bytes, two varchar columns holding 50 bytes in all
    const t = table([col('a', 'char(100)'), col('b', 'varchar(40)'), col('c', 'varchar(40)')]);
    const layout = aseDol.rows.layout(t, engine());
    const lens = new Uint16Array([30, 20]);
    expect(aseDol.rows.rowBytes(layout, lens, 0)).toBe(162);
    expect(aseDol.rows.logicalBytes(layout, lens, 0)).toBe(150);
  });
  it('DOL all-fixed NOT NULL rows: 6 + fixed', () => {
    const t = table([col('a', 'int'), col('b', 'char(20)'), col('c', 'datetime')]);
    const layout = aseDol.rows.layout(t, engine());
    expect(layout.varying).toHaveLength(0);
    expect(aseDol.rows.rowBytes(layout, new Uint16Array(1), 0)).toBe(6 + 4 + 20 + 8);
  });
  it('a nullable fixed column makes the row variable (8 + data + 2 per variable column)', () => {
    const t = table([col('a', 'int'), col('b', 'int', true)]);
    const layout = aseDol.rows.layout(t, engine());
    expect(layout.varying.map((c) => c.name)).toEqual(['b']);
    expect(aseDol.rows.rowBytes(layout, new Uint16Array([4]), 0)).toBe(8 + 4 + 4 + 2);
    expect(aseDol.rows.rowBytes(layout, new Uint16Array([0xffff]), 0)).toBe(8 + 4 + 0 + 2);
  });
  it('every DOL row is at least 10 bytes', () => {
    expect(dolRowBytes(1, 0)).toBe(10);
    expect(dolRowBytes(0, 1)).toBe(10);
  });
  it('APL: subtotal 154 becomes 160 with two variable columns', () => {
    expect(aplRowBytes(150, 2)).toBe(160);
    expect(aplRowBytes(20, 0)).toBe(24);
  });
  it('sizes fixed-length types as ASE does', () => {
    const t = table([
      col('a', 'tinyint'),
      col('b', 'smallint'),
      col('c', 'bigint'),
      col('d', 'numeric(10,2)'),
      col('e', 'money'),
      col('f', 'smallmoney'),
      col('g', 'date'),
      col('h', 'datetime'),
      col('i', 'bigdatetime'),
      col('j', 'unichar(5)'),
      col('k', 'binary(7)'),
      col('l', 'real'),
      col('m', 'float'),
      col('n', 'bit'),
    ]);
    const sizes = aseDol.rows.layout(t, engine()).columns.map((c) => c.fixedBytes);
    expect(sizes).toEqual([1, 2, 8, 6, 8, 4, 4, 8, 8, 10, 7, 4, 8, 1]);
  });
});

describe('exp_row_size [storage-ase.md I, J, K, N]', () => {
  it('titles: the logical maximum is 331 and the physical maximum 353', () => {
    const layout = aseDol.rows.layout(titles, engine());
    expect(layout.logicalMaxBytes).toBe(331);
    expect(layout.maxRowBytes).toBe(8 + 21 + 310 + 2 * 7);
    expect(resolveExpRowSize(engine({ exp_row_size: 'max' }), layout).exp_row_size).toBe(331);
  });
  it('0 means the server default: 5% of 2002 = 100 bytes on 2K pages', () => {
    const layout = aseDol.rows.layout(titles, engine());
    expect(resolveExpRowSize(engine({ exp_row_size: 0 }), layout).exp_row_size).toBe(100);
    expect(resolveExpRowSize(engine({ exp_row_size: 0, default_exp_row_size_percent: 10 }), layout).exp_row_size).toBe(200);
  });
  it('1 packs fully (no reservation)', () => {
    const layout = aseDol.rows.layout(titles, engine());
    expect(resolveExpRowSize(engine({ exp_row_size: 1 }), layout).exp_row_size).toBe(0);
  });
  it('refuses values outside [max(2, fixed NOT NULL bytes), logical max] naming the range', () => {
    const layout = aseDol.rows.layout(titles, engine());
    // fixed NOT NULL: type char(12) + pubdate datetime 8 + contract bit 1 = 21
    expect(layout.fixedNotNullBytes).toBe(21);
    expect(() => resolveExpRowSize(engine({ exp_row_size: 4000 }), layout)).toThrowError(/from 21 to 331/);
    expect(() => resolveExpRowSize(engine({ exp_row_size: 20 }), layout)).toThrow(EngineSettingError);
    expect(resolveExpRowSize(engine({ exp_row_size: 21 }), layout).exp_row_size).toBe(21);
    expect(resolveExpRowSize(engine({ exp_row_size: 331 }), layout).exp_row_size).toBe(331);
  });
  it('APL accepts exp_row_size and ignores it, with a note', () => {
    const e = engine({ format: 'ase-apl', exp_row_size: 200 });
    const layout = aseApl.rows.layout(titles, e);
    const resolved = aseApl.resolve(e, layout);
    expect(resolved.exp_row_size).toBe(0);
    expect(resolved.exp_row_size_setting).toBe('200');
    expect(aseApl.notes(e, resolved).join(' ')).toMatch(/ignored/);
  });
});

describe('the server default exp_row_size applies only to tables with variable-length columns [K][I1]', () => {
  const insert = (t: ReturnType<typeof table>, page: number, n: number) =>
    runStorage(storage(t, engine({ exp_row_size: 0, page_size: page }), [{ op: 'insert', rows: { kind: 'count', n }, values: {} }]));

  // The manual's maximum rows per DOL page [B]: a 10-byte row (the shortest DOL row) + 2 bytes of offset
  // table, with exp_row_size left at its default (0) on a table of one fixed-length NOT NULL column.
  it.each([
    [2048, 166],
    [4096, 337],
    [8192, 678],
    [16384, 1361],
  ])('a %i-byte page holds %i rows of a fixed-length table at exp_row_size 0', (page, rows) => {
    const r = insert(table([col('a', 'tinyint')]), page, rows * 10);
    expect(r.row_bytes.max).toBe(10);
    expect(r.final.pages).toBe(10);
    expect(r.final.avg_rows_per_page).toBe(rows);
    expect(r.engine.exp_row_size).toBe(0);
    expect(r.notes.join(' ')).toMatch(/packed full/);
  });

  it('four int columns: 83 rows a 2K page (6 + 16 = 22 bytes + 2), not the 19 a 100-byte reservation would leave', () => {
    const r = insert(table([col('a', 'int'), col('b', 'int'), col('c', 'int'), col('d', 'int')]), 2048, 8300);
    expect(r.final.pages).toBe(100);
  });

  it('a nullable column makes the table variable: the default 5% (100 bytes) applies', () => {
    const r = insert(table([col('a', 'int'), col('b', 'int', true)]), 2048, 1900);
    expect(r.engine.exp_row_size).toBe(100);
    expect(r.final.pages).toBe(100); // 2002 / 102 = 19 rows a page
  });

  it('refuses any exp_row_size but 0 and 1 on a fixed-length table [I][N]', () => {
    const t = table([col('a', 'int'), col('b', 'char(10)')]);
    const layout = aseDol.rows.layout(t, engine());
    expect(() => resolveExpRowSize(engine({ exp_row_size: 14 }), layout)).toThrowError(/0 or 1 for this table/);
    expect(() => resolveExpRowSize(engine({ exp_row_size: 'max' }), layout)).toThrow(EngineSettingError);
    expect(resolveExpRowSize(engine({ exp_row_size: 1 }), layout).exp_row_size).toBe(0);
  });
});

describe('pages emptied by reorg forwarded_rows and deletes [HK-GC][PT-DEL]', () => {
  const t = table([col('id', 'int'), col('body', 'varchar(400)', true)]);
  const work = (gc: number) =>
    runStorage(
      storage(t, engine({ exp_row_size: 1, enable_housekeeper_gc: gc }), [
        { op: 'insert', rows: { kind: 'count', n: 5000 }, values: { body: { length: { kind: 'const', value: 20 }, null: 0 } } },
        {
          op: 'update',
          rows: { kind: 'all' },
          order: { kind: 'random' },
          transaction: 'statement',
          set: { body: { kind: 'length', dist: { kind: 'const', value: 150 } } },
        },
        { op: 'reorg', kind: 'forwarded_rows' },
      ]),
      { checkInvariants: true },
    ).final as unknown as Record<string, number>;

  it('the housekeeper deallocates the pages the reorg leaves empty (enable housekeeper GC 1, the default); at 0 they stay', () => {
    const kept = work(0);
    const freed = work(1);
    expect(kept.empty_pages).toBeGreaterThan(100);
    expect(freed.empty_pages).toBe(0);
    expect(freed.pages).toBe(kept.pages - kept.empty_pages!);
    expect(freed.pages_deallocated).toBe(kept.empty_pages);
  });

  it('refuses the reserved values 2 and 3', () => {
    const layout = aseDol.rows.layout(t, engine());
    expect(() => aseDol.resolve(engine({ enable_housekeeper_gc: 2 }), layout)).toThrowError(/0, 1, 4 or 5/);
  });
});
