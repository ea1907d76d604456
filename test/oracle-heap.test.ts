import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NULL_LEN } from '../src/layout/table-layout.js';
import type { StorageSpec } from '../src/config/spec.js';
import {
  ORACLE_MIGRATION_STUB_BYTES,
  oracleGeometry,
  oracleLayout,
  oracleNumberBytesOf,
  oraclePctfreeBytes,
  oracleRowBytes,
  oracleSegmentMetadataBlocks,
} from '../src/formats/oracle.js';
import { getFormat } from '../src/formats/registry.js';
import { runStorage } from '../src/workload/runner.js';
import type { StorageEngine } from '../src/heap/engine.js';
import { rowSizesOneByOne } from './helpers/row-sizes.js';
import { col, engine, table } from './helpers/spec.js';

const oraEngine = (o = {}) => engine({ format: 'oracle-heap', page_size: 8192, ...o });

describe('oracle-heap row format [oracle]', () => {
  it('3-byte row header, a length byte per column (3 from 250 bytes), trailing NULLs not stored', () => {
    const t = table([col('a', 'varchar2(300)', true), col('b', 'varchar2(300)', true), col('c', 'varchar2(300)', true)]);
    const l = oracleLayout(t, oraEngine());
    expect(oracleRowBytes(l.ora, Uint16Array.from([10, 20, 30]), 0)).toBe(3 + 11 + 21 + 31);
    expect(oracleRowBytes(l.ora, Uint16Array.from([10, 0xffff, 30]), 0)).toBe(3 + 11 + 1 + 31); // a NULL in the middle: its length byte
    expect(oracleRowBytes(l.ora, Uint16Array.from([10, 0xffff, 0xffff]), 0)).toBe(3 + 11); // trailing NULLs: nothing
    expect(oracleRowBytes(l.ora, Uint16Array.from([260, 0xffff, 0xffff]), 0)).toBe(3 + 3 + 260);
  });

  it('leading columns every row stores alike are counted once, with the same bytes as column by column (fast-check)', () => {
    // Column by column, as the row format says: 3-byte header; per stored column a length byte (3 from 250
    // bytes) and its data; a NULL costs a length byte when a stored column follows; a LOB is its data up to
    // 3,964 bytes after a 36-byte locator, the locator alone past that.
    const naive = (stored: number[], lob: boolean[]) => {
      let row = 3;
      let nulls = 0;
      stored.forEach((b, i) => {
        if (b === NULL_LEN) return void nulls++;
        const len = lob[i] ? (b > 3964 ? 0 : b) + 36 : b;
        row += nulls + (len < 250 ? 1 : 3) + len;
        nulls = 0;
      });
      return row;
    };
    const t = table([
      col('id', 'int', true),
      col('code', 'char(8)', true),
      col('doc', 'clob', true),
      col('note', 'varchar2(10)', true),
      col('body', 'varchar2(2000)', true),
      col('tail', 'varchar2(300)', true),
    ]);
    const lob = [false, false, true, false, false, false];
    const len = fc.oneof(fc.constant(NULL_LEN), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 3900, max: 4100 }));
    fc.assert(
      fc.property(
        fc.array(len, { minLength: 6, maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        (values, pinned) => {
          // Pinned columns (a run never changes them) are laid out with constant bytes; the others (all nullable, so
          // all varying) keep a length a row.
          const constant = new Map<number, number>();
          values.forEach((v, i) => {
            if (pinned[i]) constant.set(i, v);
          });
          const l = oracleLayout(t, oraEngine(), constant);
          const lens = new Uint16Array(Math.max(1, l.varying.length));
          l.columns.forEach((c, i) => {
            if (c.varIndex >= 0) lens[c.varIndex] = values[i]!;
          });
          expect(oracleRowBytes(l.ora, lens, 0)).toBe(naive(values, lob));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a LOB up to 3,964 bytes is stored in the row after its 36-byte locator; a longer one leaves the locator alone', () => {
    const t = table([col('a', 'varchar2(300)', true), col('doc', 'clob', true)]);
    const l = oracleLayout(t, oraEngine());
    const a = l.columns[0]!.varIndex;
    const doc = l.columns[1]!.varIndex;
    const row = (aLen: number, docLen: number) => {
      const lens = new Uint16Array(2);
      lens[a] = aLen;
      lens[doc] = docLen;
      return oracleRowBytes(l.ora, lens, 0);
    };
    expect(row(10, 100)).toBe(3 + 11 + 1 + 136);
    expect(row(10, 3964)).toBe(3 + 11 + 3 + 4000);
    expect(row(10, 3965)).toBe(3 + 11 + 1 + 36);
    expect(row(10, 0xffff)).toBe(3 + 11); // a NULL LOB at the end: nothing
    // The same lengths in a table without a LOB column: no locator.
    const plain = oracleLayout(table([col('a', 'varchar2(300)', true), col('b', 'varchar2(4000)', true)]), oraEngine());
    expect(oracleRowBytes(plain.ora, Uint16Array.from([10, 100]), 0)).toBe(3 + 11 + 1 + 100);
  });

  it('an ASSM table block at INITRANS 1 has 2 ITL slots and 8,070 bytes for rows and their 2-byte row directory [ORA-FOOTE][ORA-LEWIS]', () => {
    expect(oracleGeometry(8192)).toMatchObject({ headerBytes: 122, slotBytes: 2, usableBytes: 8070 });
    expect(oracleGeometry(8192, 2).usableBytes).toBe(8070);
    expect(oracleGeometry(8192, 4).usableBytes).toBe(8070 - 2 * 24);
  });
});

describe('oracle-heap PCTFREE, migration and chaining', () => {
  const t = table([col('id', 'int'), col('body', 'varchar2(4000)')]);
  const spec = (pctfree: number, workload: StorageSpec['workload']): StorageSpec => ({
    name: 'x',
    seed: 3,
    table: t,
    engine: oraEngine({ pctfree }),
    workload,
  });
  const grow: StorageSpec['workload'] = [
    { op: 'insert', rows: { kind: 'count', n: 5000 }, values: { body: { length: { kind: 'const', value: 50 }, null: 0 } } },
    {
      op: 'update',
      rows: { kind: 'all' },
      order: { kind: 'random' },
      transaction: 'statement',
      set: { body: { kind: 'length', dist: { kind: 'const', value: 90 } } },
    },
  ];

  it('PCTFREE keeps room for growth: more PCTFREE, fewer migrated rows, more blocks', () => {
    const low = runStorage(spec(0, grow)).final;
    const high = runStorage(spec(50, grow)).final;
    expect(low.forwarded_rows).toBeGreaterThan(1000);
    expect(high.forwarded_rows).toBe(0);
    expect(runStorage(spec(50, [grow[0]!])).final.pages).toBeGreaterThan(runStorage(spec(0, [grow[0]!])).final.pages!);
  });

  it('a migrated row keeps a 9-byte head at home; full scans do not follow migration, rowid fetches do (table fetch continued row)', () => {
    const r = runStorage(spec(0, grow)).final;
    expect(ORACLE_MIGRATION_STUB_BYTES).toBe(9);
    expect(r.table_scan_page_reads).toBe(r.pages);
    expect(r.table_fetch_continued_row).toBe(r.forwarded_rows);
  });

  it('rows longer than a block are chained over extra blocks', () => {
    const wide = table([col('id', 'int'), col('a', 'varchar2(4000)'), col('b', 'varchar2(4000)'), col('c', 'varchar2(4000)')]);
    const r = runStorage({
      name: 'x',
      seed: 1,
      table: wide,
      engine: oraEngine(),
      workload: [{ op: 'insert', rows: { kind: 'count', n: 100 }, values: {} }],
    }).final;
    expect(r.chained_rows).toBe(100);
    expect(r.chained_pages).toBe(100);
    expect(r.table_fetch_continued_row).toBe(100);
    expect(r.rows_rejected).toBe(0);
  });

  it("the run's row sizes read in place (rowSizes) are rowBytes row by row: chained, migrated, in place and deleted rows", () => {
    const wide = table([col('id', 'int'), col('a', 'varchar2(4000)', true), col('b', 'varchar2(4000)', true)]);
    let engine: StorageEngine | undefined;
    const result = runStorage(
      {
        name: 'x',
        seed: 4,
        table: wide,
        engine: oraEngine({ pctfree: 0, page_size: 2048 }),
        workload: [
          {
            op: 'insert',
            rows: { kind: 'count', n: 3000 },
            values: {
              a: { length: { kind: 'uniform', min: 10, max: 300 }, null: 0 },
              b: { length: { kind: 'choice', values: [0, 4000], weights: [97, 3] }, null: 0.5 },
            },
          },
          {
            op: 'update',
            rows: { kind: 'percent', pct: 60 },
            order: { kind: 'random' },
            transaction: 'statement',
            set: { a: { kind: 'grow', dist: { kind: 'uniform', min: 10, max: 900 } } },
          },
          { op: 'delete', rows: { kind: 'percent', pct: 10 }, order: { kind: 'random' }, transaction: 'statement' },
        ],
      },
      { onEngine: (e) => (engine = e) },
    );
    const e = engine!;
    expect(result.final.chained_rows).toBeGreaterThan(10);
    expect(result.final.forwarded_rows).toBeGreaterThan(100);
    const { min, max, sum, count } = rowSizesOneByOne(e);
    expect(count).toBe(result.final.rows);
    expect(e.rowSizes!()).toEqual({ min, max, sum, count });
    expect(result.row_bytes).toMatchObject({ min, max, avg: Math.round((sum / count) * 100) / 100 });
  });
});

describe('oracle-heap segment metadata (assumption: ASSM bitmap spans)', () => {
  it('a segment header, a level-1 bitmap block per 16 blocks up to 1 MB (64 to 32 MB, …) and a level-2 block', () => {
    expect(oracleSegmentMetadataBlocks(0, 8192)).toEqual({ header: 0, bitmap: 0 });
    expect(oracleSegmentMetadataBlocks(8, 8192)).toEqual({ header: 1, bitmap: 2 });
    expect(oracleSegmentMetadataBlocks(128, 8192)).toEqual({ header: 1, bitmap: 8 + 1 });
    expect(oracleSegmentMetadataBlocks(1000, 8192)).toEqual({ header: 1, bitmap: 16 + 1 });
  });
});

describe('Oracle block-sizing examples', () => {
  it("Richard Foote's ziggy table (pctfree 0; rownum, mod(rownum, 100), 'Ziggy Stardust'): 302 rows in the first block, a 24-byte first row, hsiz 0x26e [ORA-FOOTE]", () => {
    const t = table([col('id', 'number'), col('code', 'number'), col('name', 'varchar2(42)')]);
    const e = oraEngine({ pctfree: 0 });
    const f = getFormat('oracle-heap');
    const layout = oracleLayout(t, e);
    const h = f.pages.createEngine(layout, f.resolve(e, layout), { name: 'x', seed: 1, table: t, engine: e, workload: [] }, 400);
    const row = (r: number) => oracleRowBytes(layout.ora, Uint16Array.from([oracleNumberBytesOf(r), oracleNumberBytesOf(r % 100), 14]), 0);
    expect(row(1)).toBe(24);
    for (let r = 1; r <= 303; r++) h.insert(r - 1, row(r), row(r));
    const map = h.pageMap();
    expect(h.metrics().pages).toBe(2);
    expect(map.fill[1]! * 8070).toBeCloseTo(row(303) + 2, 0); // the 303rd row starts the second block
    expect(18 + 2 * 302).toBe(0x26e);
  });

  it('Jonathan Lewis: 8,070 bytes for rows at INITRANS 2: three 2,683-byte rows (8,049 + 6 of row directory) a block, not three of 2,690 [ORA-LEWIS]', () => {
    const t = table([col('body', 'varchar2(4000)')]);
    const fill = (len: number) =>
      runStorage({
        name: 'x',
        seed: 1,
        table: t,
        engine: oraEngine({ pctfree: 0, initrans: 2 }),
        workload: [{ op: 'insert', rows: { kind: 'count', n: 30 }, values: { body: { length: { kind: 'const', value: len }, null: 0 } } }],
      }).final;
    expect(oracleRowBytes(oracleLayout(t, oraEngine()).ora, Uint16Array.from([2677]), 0)).toBe(2683);
    expect(fill(2677).pages).toBe(10);
    expect(fill(2684).pages).toBe(15);
  });

  it("NUMBER by value: ROUND((digits + s)/2) + 1 bytes [ORA-NUMBER]; a column's workload length is its digits", () => {
    expect([0, 1, 99, 100, 101, 123456, -1, -100].map(oracleNumberBytesOf)).toEqual([1, 2, 2, 2, 3, 4, 3, 3]);
    const t = table([col('id', 'int'), col('amount', 'numeric(12,2)')]);
    const r = runStorage({
      name: 'x',
      seed: 1,
      table: t,
      engine: oraEngine(),
      workload: [{ op: 'insert', rows: { kind: 'count', n: 10 }, values: { id: { length: { kind: 'const', value: 3 }, null: 0 } } }],
    });
    // id: 3 digits → 1 + 2 = 3 bytes (+1 length byte); amount at full precision: 1 + 6 = 7 (+1)
    expect(r.row_bytes.max).toBe(3 + 4 + 8);
  });

  it('PCTFREE is a share of the space after the block header, as the sizing notes take it [ORA-10640]: 2K, INITRANS 1 (84 bytes of header in the note), PCTFREE 10 leaves (2048 − 84) × 0.9 = 1,768 bytes', () => {
    const noteGeometry = { ...oracleGeometry(2048), headerBytes: 84, usableBytes: 2048 - 84 };
    expect(noteGeometry.usableBytes - oraclePctfreeBytes(noteGeometry, 10)).toBe(1768);
    expect(oraclePctfreeBytes(oracleGeometry(8192), 10)).toBe(807);
  });
});
