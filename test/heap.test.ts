import { describe, expect, it } from 'vitest';
import { dolGeometry, aplGeometry } from '../src/formats/ase.js';
import { ForwardingHeap, type ForwardingHeapOptions } from '../src/heap/forwarding-heap.js';
import type { HeapEvent } from '../src/heap/events.js';

const NO_INDEX = { indexedChanged: false };

function heap(over: Partial<ForwardingHeapOptions> = {}): ForwardingHeap {
  return new ForwardingHeap({
    geometry: dolGeometry(2048),
    forwarding: true,
    stubBytes: 10,
    expRowSizeBytes: 0,
    expRowSizeBasis: 'physical',
    compaction: true,
    indexCount: 1,
    rowCapacity: 16,
    ...over,
  });
}

describe('inserts', () => {
  it('pack a 2K DOL page with floor(2002 / (row + 2)) rows when exp_row_size packs fully', () => {
    const h = heap();
    for (let r = 0; r < 1000; r++) h.insert(r, 100, 92);
    // 2002 / 102 = 19.6 → 19 rows per page
    expect(h.metrics().avg_rows_per_page).toBeCloseTo(1000 / Math.ceil(1000 / 19), 2);
    expect(h.metrics().pages).toBe(Math.ceil(1000 / 19));
  });
  it('charge exp_row_size for shorter rows: 2002 / (200 + 2) = 9 rows per page', () => {
    const h = heap({ expRowSizeBytes: 200 });
    for (let r = 0; r < 90; r++) h.insert(r, 40, 32);
    expect(h.metrics().pages).toBe(10);
    expect(h.metrics().reserved_bytes).toBe(90 * 160);
  });
  it('logical basis reserves exp_row_size minus the data length, on top of the physical row', () => {
    const h = heap({ expRowSizeBytes: 200, expRowSizeBasis: 'logical' });
    for (let r = 0; r < 90; r++) h.insert(r, 40, 32);
    // each row is charged 40 + (200 − 32) = 208 bytes: 2002 / 210 = 9 rows per page; reservation 168 each
    expect(h.metrics().reserved_bytes).toBe(90 * 168);
  });
  it('never put more than the maximum rows on a page', () => {
    const h = heap();
    for (let r = 0; r < 1000; r++) h.insert(r, 10, 2);
    expect(h.metrics().pages).toBe(Math.ceil(1000 / 166));
    expect(h.checkInvariants()).toEqual([]);
  });
  it('refuse a row longer than the page takes', () => {
    const h = heap();
    expect(h.insert(0, 1965, 1950)).toBe(false);
    expect(h.insert(1, 1964, 1950)).toBe(true);
    expect(h.metrics().rows_rejected).toBe(1);
    expect(h.metrics().rows).toBe(1);
  });
});

describe('updates', () => {
  it('grow in place while the page has room, using the reserved space', () => {
    const h = heap({ expRowSizeBytes: 200 });
    for (let r = 0; r < 9; r++) h.insert(r, 40, 32);
    for (let r = 0; r < 9; r++) expect(h.update(r, 200, 192, NO_INDEX)).toBe(true);
    const m = h.metrics();
    expect(m.forwarded_rows).toBe(0);
    expect(m.updates_in_place).toBe(9);
    expect(m.reserved_bytes).toBe(0);
  });
  it('a row that grows past its share takes a neighbour’s room, and the neighbour is forwarded', () => {
    const h = heap({ expRowSizeBytes: 200 });
    for (let r = 0; r < 9; r++) h.insert(r, 40, 32);
    // row 0 grows far past 200: fits in the page's total free space (2002 − 9·42 − 18 = 1606)
    expect(h.update(0, 600, 592, NO_INDEX)).toBe(true);
    expect(h.metrics().forwarded_rows).toBe(0);
    for (let r = 1; r < 9; r++) h.update(r, 200, 192, NO_INDEX);
    const m = h.metrics();
    // 600 + 8·200 + 9·2 = 2218 > 2002: the last growers did not fit and were forwarded
    expect(m.forwarded_rows).toBeGreaterThan(0);
    expect(m.table_scan_page_reads).toBe(m.pages + m.forwarded_rows);
    expect(h.checkInvariants()).toEqual([]);
  });
  it('forwarding leaves a 10-byte stub at home; a second move keeps one hop and one forwarded row', () => {
    const h = heap();
    for (let r = 0; r < 19; r++) h.insert(r, 100, 92);
    h.update(0, 400, 392, NO_INDEX);
    let m = h.metrics();
    expect(m.forwarded_rows).toBe(1);
    expect(m.forwarded_updates).toBe(1);
    const map = h.pageMap();
    expect(map.stubs[0]).toBe(1);
    expect(map.forwardedIn[1]).toBe(1);
    // fill page 1 so the forwarded row cannot grow there, then grow it again
    for (let r = 19; r < 30; r++) h.insert(r, 100, 92);
    h.update(0, 1500, 1492, NO_INDEX);
    m = h.metrics();
    expect(m.forwarded_rows).toBe(1);
    expect(m.reforwarded_updates).toBe(1);
    expect(h.pageMap().stubs[0]).toBe(1);
    expect(h.checkInvariants()).toEqual([]);
  });
  it('compacts a page when the growth fits in total but not contiguous free space', () => {
    const h = heap();
    for (let r = 0; r < 19; r++) h.insert(r, 100, 92);
    // shrink two rows: 180 bytes of holes, contiguous space stays 2002 − 1900 − 38 = 64
    h.update(1, 10, 2, NO_INDEX);
    h.update(2, 10, 2, NO_INDEX);
    expect(h.update(3, 200, 192, NO_INDEX)).toBe(true);
    expect(h.metrics().compactions).toBe(1);
    expect(h.metrics().forwarded_rows).toBe(0);
  });
  it('with compaction off, the same update forwards the row', () => {
    const h = heap({ compaction: false });
    for (let r = 0; r < 19; r++) h.insert(r, 100, 92);
    h.update(1, 10, 2, NO_INDEX);
    h.update(2, 10, 2, NO_INDEX);
    h.update(3, 200, 192, NO_INDEX);
    expect(h.metrics().compactions).toBe(0);
    expect(h.metrics().forwarded_rows).toBe(1);
  });
  it('APL never forwards: the row moves and every index entry is updated', () => {
    const h = heap({ forwarding: false, geometry: aplGeometry(2048), indexCount: 3 });
    for (let r = 0; r < 19; r++) h.insert(r, 100, 92);
    h.update(0, 400, 392, NO_INDEX);
    const m = h.metrics();
    expect(m.forwarded_rows).toBe(0);
    expect(m.row_moves).toBe(1);
    expect(m.index_row_updates).toBe(3);
    expect(h.checkInvariants()).toEqual([]);
  });
});

describe('deletes', () => {
  it('free the row and its stub', () => {
    const h = heap();
    for (let r = 0; r < 19; r++) h.insert(r, 100, 92);
    h.update(0, 400, 392, NO_INDEX);
    h.delete(0);
    const m = h.metrics();
    expect(m.forwarded_rows).toBe(0);
    expect(m.rows).toBe(18);
    expect(h.pageMap().stubs[0]).toBe(0);
    expect(h.checkInvariants()).toEqual([]);
  });
});

describe('reorg', () => {
  function forwardedHeap(): ForwardingHeap {
    const h = heap();
    for (let r = 0; r < 19 * 20; r++) h.insert(r, 100, 92);
    // one row on each of the 20 pages grows and is forwarded
    for (let p = 0; p < 20; p++) h.update(p * 19, 300, 292, NO_INDEX);
    return h;
  }
  it('forwarded_rows: one exclusive table lock per transaction of at most 8 pages that met a forwarded row', () => {
    const h = forwardedHeap();
    expect(h.metrics().forwarded_rows).toBe(20);
    h.reorg('forwarded_rows');
    const m = h.metrics();
    expect(m.forwarded_rows).toBe(0);
    // forwarded rows have homes on pages 0..19: transactions of pages 0–7, 8–15, 16–23
    expect(m.exclusive_table_locks).toBe(3);
    expect(m.rows_moved_home + m.rows_rehomed).toBe(20);
    expect(h.checkInvariants()).toEqual([]);
  });
  it("forwarded_rows takes the forwarded rows by home page, then row id, whatever the ids' order on the pages", () => {
    const h = heap();
    const n = 19 * 20;
    // Ids against the pages: row n − 1 on page 0, row 0 on the last page.
    for (let r = n - 1; r >= 0; r--) h.insert(r, 100, 92);
    // Two rows of each page grow and are forwarded.
    for (let p = 0; p < 20; p++) for (const k of [3, 11]) h.update(n - 1 - (p * 19 + k), 300, 292, NO_INDEX);
    expect(h.metrics().forwarded_rows).toBe(40);
    const events: HeapEvent[] = [];
    h.setEvents((e) => events.push(e));
    h.reorg('forwarded_rows');
    const order = events.flatMap((e) => (e.op === 'reorg-row' ? [[e.home, e.row] as const] : []));
    expect(order).toHaveLength(40);
    expect(order).toEqual([...order].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
    const ids = order.map(([, row]) => row);
    expect(ids).not.toEqual([...ids].sort((a, b) => a - b));
    expect(h.metrics().exclusive_table_locks).toBe(3);
    expect(h.checkInvariants()).toEqual([]);
  });
  it('forwarded_rows: a row goes home when the page has room again', () => {
    const h = forwardedHeap();
    // page 0: 17 rows of 100 + a 10-byte stub + 18 slots = 1746 bytes: 256 free, the row needs 290
    h.delete(1);
    h.delete(2); // now 358 bytes free
    h.reorg('forwarded_rows');
    expect(h.pageMap().stubs[0]).toBe(0);
    expect(h.metrics().rows_moved_home).toBeGreaterThanOrEqual(1);
    expect(h.checkInvariants()).toEqual([]);
  });
  it('forwarded_rows keeps its page accounting while re-homing grows the page arrays', () => {
    // 1,650 pages before the reorg, 2,925 after: re-homed rows allocate past the page arrays'
    // capacity (2,048) in the middle of the reorg, which must keep writing to the grown arrays.
    const n = 19 * 300;
    const h = heap();
    for (let r = 0; r < n; r++) h.insert(r, 100, 92);
    for (let r = 0; r < n; r += 2) h.update(r, 900, 892, NO_INDEX);
    for (let r = 1; r < n; r += 4) h.delete(r);
    expect(h.checkInvariants()).toEqual([]);
    h.reorg('forwarded_rows');
    const m = h.metrics();
    expect(m.forwarded_rows).toBe(0);
    expect(m.rows_moved_home).toBeGreaterThan(0);
    expect(m.rows_rehomed).toBeGreaterThan(0);
    expect(m.pages_allocated).toBeGreaterThan(2048);
    expect(h.checkInvariants()).toEqual([]);
  });
  it('rebuild: one exclusive table lock, no forwarded rows, pages repacked', () => {
    const h = forwardedHeap();
    const before = h.metrics().pages;
    h.reorg('rebuild');
    const m = h.metrics();
    expect(m.forwarded_rows).toBe(0);
    expect(m.exclusive_table_locks).toBe(1);
    expect(m.rows).toBe(380);
    expect(m.pages).toBeLessThanOrEqual(before);
    expect(h.checkInvariants()).toEqual([]);
  });
  it('compact: forwarded rows home, holes squeezed out, empty pages deallocated', () => {
    const h = heap();
    for (let r = 0; r < 19 * 10; r++) h.insert(r, 100, 92);
    for (let r = 0; r < 19 * 5; r++) h.delete(r);
    h.reorg('compact');
    const m = h.metrics();
    expect(m.pages).toBe(5);
    expect(m.pages_deallocated).toBe(5);
    expect(m.fragmented_bytes).toBe(0);
    expect(h.checkInvariants()).toEqual([]);
  });
});
