import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  PG_TOAST_POINTER_BYTES,
  pgLayout,
  pgMaxHeapTupleBytes,
  pgMaxHeapTuplesPerPage,
  pgStoredBytes,
  pgToastThreshold,
  pgTupleSize,
  postgresHeap,
} from '../src/formats/postgres.js';
import { NULL_LEN } from '../src/layout/table-layout.js';
import { col, engine, table } from './helpers/spec.js';

const pgEngine = (o = {}) => engine({ format: 'postgres-heap', page_size: 8192, ...o });
const size = (cols: ReturnType<typeof col>[], lens: number[]) => {
  const layout = pgLayout(table(cols), pgEngine());
  return pgTupleSize(layout.pg, Uint16Array.from(lens.length ? lens : [0]), 0);
};

describe('postgres-heap tuple sizes [bufpage.h, htup_details.h]', () => {
  it('documented limits on 8k pages: MaxHeapTupleSize 8160, MaxHeapTuplesPerPage 291, TOAST threshold 2032', () => {
    expect(pgMaxHeapTupleBytes(8192)).toBe(8160);
    expect(pgMaxHeapTuplesPerPage(8192)).toBe(291);
    expect(pgToastThreshold(8192)).toBe(2032);
    const g = postgresHeap.rows.layout(table([col('a', 'int')]), pgEngine()).geometry;
    expect(g).toMatchObject({ headerBytes: 24, usableBytes: 8168, slotBytes: 4, maxRowsPerPage: 291, maxRowBytes: 8160 });
  });

  it('a 23-byte header MAXALIGNed to 24, then the data; stored MAXALIGN(t_len)', () => {
    expect(size([col('a', 'int')], [])).toMatchObject({ hoff: 24, data: 4, t_len: 28, stored: 32 });
    expect(size([col('a', 'bigint')], [])).toMatchObject({ t_len: 32, stored: 32 });
    // int4 then int8: the int8 is aligned to 8.
    expect(size([col('a', 'int'), col('b', 'bigint')], [])).toMatchObject({ data: 16, t_len: 40 });
    expect(size([col('a', 'bool'), col('b', 'uuid')], [])).toMatchObject({ data: 17 }); // uuid: align c
  });

  it('varlena: 1-byte header up to 127 bytes in all, else a 4-byte header aligned to 4 (the 127-byte boundary)', () => {
    const v = [col('a', 'bool'), col('b', 'varchar(500)')];
    expect(size(v, [126]).data).toBe(1 + 1 + 126); // 127 with its header: short
    expect(size(v, [127]).data).toBe(4 + 4 + 127); // 128 with a short header: 4-byte header at offset 4
    expect(size(v, [126]).t_len).toBe(152);
    expect(size(v, [127]).t_len).toBe(159);
  });

  it('char(n) is blank-padded: n bytes of data whatever the value length; char(35) takes 36', () => {
    expect(size([col('a', 'char(35)')], []).data).toBe(36);
    const utf8 = pgLayout(table([col('a', 'char(10)')]), pgEngine({ encoding: 'utf8', multibyte_share: 0.5 }));
    expect(pgTupleSize(utf8.pg, new Uint16Array(1), 0).data).toBe(1 + 15);
  });

  it('a null bitmap only when the row has a NULL: (natts + 7) / 8 bytes, t_hoff re-MAXALIGNed', () => {
    const cols = Array.from({ length: 9 }, (_, i) => col(`c${i}`, 'int', true));
    const all = Array(9).fill(4);
    expect(size(cols, all).hoff).toBe(24);
    const one = [...all];
    one[3] = NULL_LEN;
    expect(size(cols, one)).toMatchObject({ hoff: 32, data: 32, hasNull: true }); // 23 + 2 = 25 → 32
  });

  it('TOAST: above 2032 bytes the biggest value goes out of line as an 18-byte pointer', () => {
    const cols = [col('id', 'int'), col('a', 'text'), col('b', 'text')];
    const s = size(cols, [3000, 500]);
    expect(s.toasted).toBe(1);
    expect(s.data).toBe(((4 + PG_TOAST_POINTER_BYTES + 3) & ~3) + 4 + 500); // int, 18-byte pointer, aligned to 4, 4-byte header + 500
    expect(s.t_len).toBeLessThanOrEqual(2032);
    const both = size(cols, [2100, 2100]);
    expect(both.toasted).toBe(2); // one out of line still leaves 2,128 bytes
  });

  it('every tuple fits the page and stays at or under the threshold after toasting (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20000 }), { minLength: 1, maxLength: 12 }), (lens) => {
        const cols = lens.map((_, i) => col(`c${i}`, 'text'));
        const s = size(cols, lens);
        expect(s.stored % 8).toBe(0);
        expect(s.t_len).toBeLessThanOrEqual(Math.max(2032, 24 + lens.length * 18));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses utf16 (PostgreSQL has no UTF-16 server encoding)', () => {
    const e = pgEngine({ encoding: 'utf16' });
    expect(() => postgresHeap.resolve(e, postgresHeap.rows.layout(table([col('a', 'int')]), e))).toThrow(/UTF-16/);
  });
});

describe("pgStoredBytes (the runner's one-pass size)", () => {
  it('equals pgTupleSize(…).stored for any row of any mix of types, NULLs and lengths, TOASTed or not', () => {
    const types = [
      'int',
      'bigint',
      'smallint',
      'bool',
      'uuid',
      'date',
      'timestamp',
      'numeric(12,2)',
      'char(10)',
      'varchar(300)',
      'varchar(4000)',
      'text',
      'bytea',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...types), fc.boolean()), { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 40, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        (cols, lens, nulls) => {
          const layout = pgLayout(table(cols.map(([t, nullable], i) => col(`c${i}`, t, nullable))), pgEngine());
          const row = new Uint16Array(Math.max(1, layout.varying.length));
          layout.varying.forEach((c, i) => {
            row[i] = c.nullable && nulls[i] ? NULL_LEN : c.variableType ? Math.min(lens[i]!, c.maxBytes) : c.fixedBytes;
          });
          expect(pgStoredBytes(layout.pg, row, 0)).toBe(pgTupleSize(layout.pg, row, 0).stored);
        },
      ),
    );
  });
});
