import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PhaseSpec, StorageSpec } from '../src/config/spec.js';
import { pgGeometry } from '../src/formats/postgres.js';
import { PostgresHeap, pgFsmPages, pgVmPages } from '../src/heap/postgres-heap.js';
import { runStorage } from '../src/workload/runner.js';
import { col, engine, table } from './helpers/spec.js';

const heap = (fillfactor = 100, indexCount = 1) =>
  new PostgresHeap({ geometry: pgGeometry(8192), fillfactor, indexCount, rowCapacity: 1000 });
const noIdx = { indexedChanged: false };

describe('postgres-heap MVCC engine', () => {
  it('packs MAXALIGNed tuples and 4-byte line pointers into 8168 bytes; fillfactor leaves BLCKSZ × (100 − ff) / 100 free', () => {
    const h = heap();
    for (let r = 0; r < 300; r++) h.insert(r, 32, 4); // 28-byte tuples → 32 + 4
    expect(h.metrics().pages).toBe(2); // 8168 − 4 free for the next: 226 a page
    const f = heap(50);
    for (let r = 0; r < 300; r++) f.insert(r, 32, 4);
    expect(f.metrics().avg_rows_per_page).toBeCloseTo(300 / Math.ceil(300 / Math.floor((8168 - 4 - 4096 + 4) / 36 + 1)), 0);
    expect(f.checkInvariants()).toEqual([]);
  });

  it('MaxHeapTuplesPerPage: no more than 291 line pointers on a page', () => {
    const h = heap();
    for (let r = 0; r < 600; r++) h.insert(r, 24, 0);
    expect(h.metrics().pages).toBe(3);
    expect(h.checkInvariants()).toEqual([]);
  });

  it('the invariants catch two rows on one line pointer, and not rows at the same offset of different pages', () => {
    const h = heap();
    for (let r = 0; r < 600; r++) h.insert(r, 24, 0);
    expect(h.checkInvariants()).toEqual([]);
    // Row 1's line pointer made row 0's (its offset's 12 bits from bit 17 of the row's second field).
    const rows = (h as unknown as { rows: Int32Array }).rows;
    rows[3] = (rows[3]! & ~(0xfff << 17)) | (rows[1]! & (0xfff << 17));
    expect(h.checkInvariants()).toEqual(["row 1: line pointer 1 on page 0 is another row's too"]);
  });

  it('an update writes a new version: HOT on the same page when no indexed column changes, else new index entries', () => {
    const h = heap(90);
    for (let r = 0; r < 10; r++) h.insert(r, 120, 90);
    h.update(0, 128, 98, noIdx);
    expect(h.lastUpdateNewIndexEntries).toBe(false);
    h.update(1, 128, 98, { indexedChanged: true });
    expect(h.lastUpdateNewIndexEntries).toBe(true);
    const m = h.metrics();
    expect(m).toMatchObject({
      updates: 2,
      hot_updates: 1,
      samepage_nonhot_updates: 1,
      newpage_updates: 0,
      dead_tuples: 2,
      index_entries_added: 1,
    });
    h.commit();
    expect(h.checkInvariants()).toEqual([]);
  });

  it('old versions of an open transaction are not pruned; committed ones are when the page runs short of space', () => {
    const h = heap(100);
    for (let r = 0; r < 60; r++) h.insert(r, 128, 100); // 60 × 132 = 7,920 of 8,168
    h.commit();
    for (let r = 0; r < 60; r++) h.update(r, 128, 100, noIdx); // one statement: no room, nothing prunable
    let m = h.metrics();
    expect(m.hot_updates).toBe(1); // 8168 − 7920 − 4 = 244 ≥ 128: only the first fits
    expect(m.newpage_updates).toBe(59);
    expect(m.prunes).toBe(0);
    h.commit();
    // Per-row transactions: the first access prunes (dead versions, page full), updates become HOT.
    for (let r = 0; r < 5; r++) {
      h.update(r, 128, 100, noIdx);
      h.commit();
    }
    m = h.metrics();
    expect(m.prunes).toBeGreaterThan(0);
    expect(h.checkInvariants()).toEqual([]);
  });

  it('VACUUM removes dead versions and LP_DEAD line pointers; VACUUM FULL rewrites at fillfactor', () => {
    const t = table([col('id', 'int'), col('body', 'varchar(300)')], [{ name: 'pk', columns: ['id'], unique: true }]);
    const spec: StorageSpec = {
      name: 'v',
      seed: 1,
      table: t,
      engine: engine({ format: 'postgres-heap', page_size: 8192, fillfactor: 100 }),
      workload: [
        { op: 'insert', rows: { kind: 'count', n: 5000 }, values: { body: { length: { kind: 'const', value: 50 }, null: 0 } } },
        {
          op: 'update',
          rows: { kind: 'all' },
          order: { kind: 'random' },
          transaction: 'statement',
          set: { body: { kind: 'length', dist: { kind: 'const', value: 80 } } },
        },
        { op: 'reorg', kind: 'vacuum' },
        { op: 'reorg', kind: 'rebuild' },
      ],
    };
    const r = runStorage(spec, { afterPhase: (e) => expect(e.checkInvariants()).toEqual([]) });
    const [, upd, vac, full] = r.phases;
    expect(upd!.metrics.dead_tuples).toBe(5000);
    expect(vac!.metrics.dead_tuples).toBe(0);
    expect(vac!.metrics.lp_dead_reclaimed).toBeGreaterThan(0);
    expect(full!.metrics.pages).toBeLessThan(vac!.metrics.pages!);
    expect(full!.metrics.exclusive_table_locks).toBe(1);
    expect(upd!.index_pages.total).toBeGreaterThan(r.phases[0]!.index_pages.total);
  });

  it('keeps its invariants over random workloads with random transaction boundaries (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 100 }),
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 199 }), fc.integer({ min: 24, max: 2000 }), fc.boolean()),
          { maxLength: 400 },
        ),
        (ff, ops) => {
          const h = heap(ff);
          for (let r = 0; r < 200; r++) h.insert(r, 64, 40);
          h.commit();
          for (const [kind, r, len, idx] of ops) {
            if (kind === 3) {
              h.commit();
              continue;
            }
            if (!h.isLive(r)) continue;
            if (kind === 2) h.delete(r);
            else h.update(r, len & ~7, len, { indexedChanged: idx });
          }
          const bad = h.checkInvariants();
          h.commit();
          h.reorg('vacuum');
          expect([...bad, ...h.checkInvariants()]).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a fillfactor sweep: lower fillfactor, more HOT updates (public case: 100 → 85 raised HOT from ~64% to ~92%)', () => {
    const t = table(
      [col('id', 'int'), col('status', 'char(8)'), col('body', 'varchar(400)')],
      [{ name: 'pk', columns: ['id'], unique: true }],
    );
    const workload: PhaseSpec[] = [
      { op: 'insert', rows: { kind: 'count', n: 20000 }, values: { body: { length: { kind: 'uniform', min: 80, max: 120 }, null: 0 } } },
      {
        op: 'update',
        rows: { kind: 'count', n: 20000 },
        order: { kind: 'random' },
        transaction: 'row',
        set: { status: { kind: 'changed' } },
      },
    ];
    const hot = [100, 85, 70].map(
      (ff) =>
        runStorage({ name: 'f', seed: 9, table: t, engine: engine({ format: 'postgres-heap', page_size: 8192, fillfactor: ff }), workload })
          .final.hot_updates!,
    );
    expect(hot[0]).toBeLessThan(hot[1]!);
    expect(hot[1]).toBeLessThanOrEqual(hot[2]!);
  });
});

describe('free space map and visibility map forks [freespace.c][visibilitymap.c]', () => {
  it('FSM: 3 pages (root, one level-1, one leaf) up to 4,069 heap pages on 8k, 4 from the second leaf; none before anything is recorded', () => {
    expect(pgFsmPages(8192, -1)).toBe(0);
    expect(pgFsmPages(8192, 0)).toBe(3);
    expect(pgFsmPages(8192, 4068)).toBe(3);
    expect(pgFsmPages(8192, 4069)).toBe(4);
  });
  it('VM: one page per 32,672 heap pages on 8k', () => {
    expect(pgVmPages(8192, -1)).toBe(0);
    expect(pgVmPages(8192, 32_671)).toBe(1);
    expect(pgVmPages(8192, 32_672)).toBe(2);
  });
});
