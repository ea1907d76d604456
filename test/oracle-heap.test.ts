import { describe, expect, it } from 'vitest';
import type { StorageSpec } from '../src/config/spec.js';
import { ORACLE_MIGRATION_STUB_BYTES, oracleGeometry, oracleLayout, oracleRowBytes, oracleSegmentMetadataBlocks } from '../src/formats/oracle.js';
import { runStorage } from '../src/workload/runner.js';
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

  it('block overhead 57 + 23 × INITRANS + 4 per table; 2-byte row directory', () => {
    expect(oracleGeometry(8192)).toMatchObject({ headerBytes: 84, slotBytes: 2, usableBytes: 8108 });
  });
});

describe('oracle-heap PCTFREE, migration and chaining', () => {
  const t = table([col('id', 'int'), col('body', 'varchar2(4000)')]);
  const spec = (pctfree: number, workload: StorageSpec['workload']): StorageSpec => ({ name: 'x', seed: 3, table: t, engine: oraEngine({ pctfree }), workload });
  const grow: StorageSpec['workload'] = [
    { op: 'insert', rows: { kind: 'count', n: 5000 }, values: { body: { length: { kind: 'const', value: 50 }, null: 0 } } },
    { op: 'update', rows: { kind: 'all' }, order: { kind: 'random' }, transaction: 'statement', set: { body: { kind: 'length', dist: { kind: 'const', value: 90 } } } },
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
});

describe('oracle-heap segment metadata (assumption: ASSM bitmap spans)', () => {
  it('a segment header, a level-1 bitmap block per 16 blocks up to 1 MB (64 to 32 MB, …) and a level-2 block', () => {
    expect(oracleSegmentMetadataBlocks(0, 8192)).toEqual({ header: 0, bitmap: 0 });
    expect(oracleSegmentMetadataBlocks(8, 8192)).toEqual({ header: 1, bitmap: 2 });
    expect(oracleSegmentMetadataBlocks(128, 8192)).toEqual({ header: 1, bitmap: 8 + 1 });
    expect(oracleSegmentMetadataBlocks(1000, 8192)).toEqual({ header: 1, bitmap: 16 + 1 });
  });
});
