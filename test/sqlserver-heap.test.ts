import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getFormat } from '../src/formats/registry.js';
import {
  SQLSERVER_FORWARDING_STUB_BYTES,
  pfsBand,
  sqlserverHeap,
  sqlserverHeapEstimate,
  sqlserverLayout,
  sqlserverRowBytes,
} from '../src/formats/sqlserver.js';
import type { StorageSpec } from '../src/config/spec.js';
import { runStorage } from '../src/workload/runner.js';
import { col, engine, table } from './helpers/spec.js';
import { rowSizesOneByOne } from './helpers/row-sizes.js';
import { pfsRoomTable } from '../src/heap/forwarding-heap.js';

const ssEngine = (o = {}) =>
  engine({ format: 'sqlserver-heap', page_size: 8192, pfs_bands: 'on', move_back_home: 'on', row_versioning: 'off', ...o });

describe('sqlserver-heap row format against "Estimate the Size of a Heap" [estimate]', () => {
  it('matches the documented formula for rows with every variable column at its maximum (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 0, maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 0, maxLength: 6 }),
        (fixed, vars) => {
          const cols = [...fixed.map((n, i) => col(`f${i}`, `char(${n})`)), ...vars.map((n, i) => col(`v${i}`, `varchar(${n})`))];
          if (cols.length === 0) return;
          const layout = sqlserverLayout(table(cols), ssEngine());
          const lens = Uint16Array.from(vars.length ? vars : [0]);
          const oracle = sqlserverHeapEstimate(
            cols.length,
            fixed.reduce((a, b) => a + b, 0),
            vars.length,
            vars.reduce((a, b) => a + b, 0),
          );
          expect(Math.max(9, oracle.rowBytes)).toBe(sqlserverRowBytes(layout.ss, lens, 0));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rows per page from the engine equal the formula: floor(8096 / (Row_Size + 2))', () => {
    const t = table([col('id', 'int'), col('code', 'char(20)'), col('note', 'varchar(60)')]);
    const est = sqlserverHeapEstimate(3, 24, 1, 60);
    const spec: StorageSpec = {
      name: 'x',
      seed: 1,
      table: t,
      engine: ssEngine({ pfs_bands: 'off' }),
      workload: [{ op: 'insert', rows: { kind: 'count', n: est.rowsPerPage * 10 }, values: {} }],
    };
    const r = runStorage(spec);
    expect(r.row_bytes.max).toBe(est.rowBytes);
    expect(r.final.pages).toBe(10);
  });

  it('nchar/nvarchar are UTF-16 (2 bytes a character); a trailing NULL variable column is not stored; the versioning tag adds 14', () => {
    const t = table([col('id', 'int'), col('a', 'nvarchar(10)', true), col('b', 'varchar(10)', true)]);
    const l = sqlserverLayout(t, ssEngine());
    expect(l.columns[1]!.maxBytes).toBe(20);
    const both = sqlserverRowBytes(l.ss, Uint16Array.from([20, 10]), 0);
    const trailingNull = sqlserverRowBytes(l.ss, Uint16Array.from([20, 0xffff]), 0);
    expect(both - trailingNull).toBe(10 + 2);
    const v = sqlserverLayout(t, ssEngine({ row_versioning: 'on' }));
    expect(sqlserverRowBytes(v.ss, Uint16Array.from([20, 10]), 0) - both).toBe(14);
  });

  it('PFS bands: 0, 1–50, 51–80, 81–95, 96–100 % full', () => {
    expect([0, 4048, 4049, 6476, 6477, 7691, 7692].map((u) => pfsBand(u, 8096))).toEqual([0, 1, 2, 2, 3, 3, 4]);
  });

  it("the engine's PFS table gives every used size of a page its band's guarantee: 100, 50, 20, 5 and 0 % of the 8,060 bytes a record may take", () => {
    const uppers = [0, 50, 80, 95, 100];
    const table = pfsRoomTable(uppers, 8060, 8096);
    expect(table.length).toBe(8097);
    for (let used = 0; used <= 8096; used++) expect(table[used]).toBe(Math.floor((8060 * (100 - uppers[pfsBand(used, 8096)]!)) / 100));
    expect([0, 1, 4048, 4049, 6476, 6477, 7691, 7692, 8096].map((u) => table[u])).toEqual([8060, 4030, 4030, 1612, 1612, 403, 403, 0, 0]);
  });
});

describe('sqlserver-heap forwarding [fwd]', () => {
  const t = table([col('id', 'int'), col('body', 'varchar(4000)')]);
  const make = (o = {}) => {
    const e = ssEngine(o);
    const f = getFormat('sqlserver-heap')!;
    const layout = f.rows.layout(t, e);
    return f.pages.createEngine(layout, f.resolve(e, layout), { name: 'x', seed: 1, table: t, engine: e, workload: [] }, 100);
  };

  it('a 9-byte stub stays home; the forwarded record carries a back-pointer; a second move updates the stub (one hop)', () => {
    const h = make({ pfs_bands: 'off', move_back_home: 'off' });
    for (let r = 0; r < 20; r++) h.insert(r, 400, 390);
    expect(h.metrics().pages).toBe(1);
    expect(h.update(0, 3000, 2990, { indexedChanged: false })).toBe(true);
    expect(h.update(1, 3000, 2990, { indexedChanged: false })).toBe(true);
    let m = h.metrics();
    expect(m.forwarded_rows).toBe(2);
    expect(h.checkInvariants()).toEqual([]);
    expect(h.rowBytes(0)).toBe(3000); // the back-pointer is overhead, not row data
    h.update(0, 7000, 6990, { indexedChanged: false }); // moves again: the stub is updated, still one hop
    m = h.metrics();
    expect(m.forwarded_rows).toBe(2);
    expect(m.reforwarded_updates).toBe(1);
    expect(h.checkInvariants()).toEqual([]);
    expect(SQLSERVER_FORWARDING_STUB_BYTES).toBe(9);
  });

  it('a forwarded row that shrinks goes back home when it fits (move_back_home: on)', () => {
    const h = make({ pfs_bands: 'off', move_back_home: 'on' });
    for (let r = 0; r < 20; r++) h.insert(r, 400, 390);
    h.update(0, 3000, 2990, { indexedChanged: false });
    expect(h.metrics().forwarded_rows).toBe(1);
    h.delete(5);
    h.update(0, 380, 370, { indexedChanged: false });
    const m = h.metrics();
    expect(m.forwarded_rows).toBe(0);
    expect(m.moved_home_on_update).toBe(1);
    expect(h.checkInvariants()).toEqual([]);
  });

  it('PFS bands waste space for wide rows: 1,697-byte rows, 4 a page by free space, 3 by PFS band', () => {
    const wide = table([col('body', 'char(1690)')]);
    const spec = (pfs: 'on' | 'off'): StorageSpec => ({
      name: 'x',
      seed: 1,
      table: wide,
      engine: ssEngine({ pfs_bands: pfs }),
      workload: [{ op: 'insert', rows: { kind: 'count', n: 7000 }, values: {} }],
    });
    const on = runStorage(spec('on')).final;
    const off = runStorage(spec('off')).final;
    expect(sqlserverHeapEstimate(1, 1690, 0, 0).rowsPerPage).toBe(4);
    expect(off.avg_rows_per_page).toBe(4);
    // After 3 rows a page is 63 % full: band 51–80 % guarantees 20 % = 1,619 bytes, less than a row.
    expect(on.avg_rows_per_page).toBe(3);
    expect(on.space_used_pct).toBeLessThan(64);
  });

  it('keeps its invariants over random workloads (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 20, max: 6000 })), {
          maxLength: 300,
        }),
        fc.boolean(),
        fc.boolean(),
        (ops, pfs, home) => {
          const h = make({ pfs_bands: pfs ? 'on' : 'off', move_back_home: home ? 'on' : 'off' });
          for (let r = 0; r < 60; r++) h.insert(r, 200, 190);
          for (const [kind, r, len] of ops) {
            if (!h.isLive(r)) continue;
            if (kind === 2) h.delete(r);
            else h.update(r, len, len - 10, { indexedChanged: false });
          }
          expect(h.checkInvariants()).toEqual([]);
          // The row sizes a run reports, read in place: a forwarded record's back pointer is not the row's.
          expect(h.rowSizes!()).toEqual(rowSizesOneByOne(h));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('format notes and resolve', () => {
    const e = ssEngine();
    expect(() => sqlserverHeap.resolve({ ...e, page_size: 4096 }, sqlserverHeap.rows.layout(t, e))).toThrow(/8192/);
  });
});
