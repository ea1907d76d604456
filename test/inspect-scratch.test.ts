/**
 * The arrays an inspector builds and drops (src/heap/inspect.ts, scratchInt32 and bucketRows with a
 * slot) are kept from one call to the next on a thread: what one table's inspection leaves in them must
 * never show in the next one's.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bucketRows, scratchInt32 } from '../src/heap/inspect.js';
import type { PhaseSpec } from '../src/config/spec.js';
import type { StorageEngine } from '../src/heap/engine.js';
import { runStorage } from '../src/workload/runner.js';
import { col, engine, storage, table } from './helpers/spec.js';
import { loadConfig } from '../src/loader/config.js';
import { runDrawnStorage } from '../src/mechanism/task.js';
import { ROOT } from './helpers/cli.js';

describe('scratch arrays of the inspectors', () => {
  it('bucketRows on a scratch slot gives what it gives on fresh arrays, after a larger call left its data there', () => {
    const pageOf = (pages: number, seed: number) => (r: number) => ((r * 7919 + seed) % (pages + 3)) - 3; // some rows on no page (−1 … −3)
    const big = bucketRows(5000, 400, pageOf(400, 1), 0);
    expect(big.rows.length).toBeGreaterThan(4000);
    for (const [rows, pages, seed] of [
      [1000, 50, 2],
      [10, 3, 5],
      [0, 0, 1],
      [1200, 60, 9],
    ] as const) {
      const fresh = bucketRows(rows, pages, pageOf(pages, seed));
      const kept = bucketRows(rows, pages, pageOf(pages, seed), 0);
      expect(Array.from(kept.start)).toEqual(Array.from(fresh.start));
      expect(Array.from(kept.rows)).toEqual(Array.from(fresh.rows));
      bucketRows(5000, 400, pageOf(400, seed), 0); // leave other data behind
    }
  });

  it('a slot is one buffer while it is small enough to keep; a larger request gets an array of its own', () => {
    const a = scratchInt32(4, 1000);
    const b = scratchInt32(4, 500);
    expect(b.buffer).toBe(a.buffer);
    expect(b.length).toBe(500);
    const huge = scratchInt32(4, (1 << 21) + 1);
    expect(huge.buffer).not.toBe(a.buffer);
    expect(scratchInt32(4, 10).buffer).toBe(a.buffer);
  });

  it('the page drawings of a sweep point are the same whether the thread drew another table before it or not', () => {
    const cfg = loadConfig(join(ROOT, 'sim-configs', 'quickstart.yaml'));
    const big = loadConfig(join(ROOT, 'sim-configs', 'ase-exp-row-size.yaml'));
    const task = (spec: (typeof cfg.storage)[number]['spec']) => ({ spec, pageMapMaxCells: 20_000, checkInvariants: false });
    const first = runDrawnStorage(task(cfg.storage[0]!.spec)).pageMaps.map((m) => m.drawings);
    runDrawnStorage(task(big.storage[0]!.spec));
    const again = runDrawnStorage(task(cfg.storage[0]!.spec)).pageMaps.map((m) => m.drawings);
    expect(again).toEqual(first);
    expect(first.flat().length).toBeGreaterThan(0);
  });

  it('an inspector of a few pages says of them what the inspector of every page says (stubs, forwarded bodies, chained rows)', () => {
    const t = table([col('id', 'int'), col('a', 'varchar(1000)', true), col('b', 'varchar(3000)', true)]);
    const workload: PhaseSpec[] = [
      {
        op: 'insert',
        rows: { kind: 'count', n: 4000 },
        values: {
          a: { length: { kind: 'uniform', min: 5, max: 60 }, null: 0 },
          b: { length: { kind: 'choice', values: [0, 2500], weights: [95, 5] }, null: 0.3 },
        },
      },
      {
        op: 'update',
        rows: { kind: 'percent', pct: 70 },
        order: { kind: 'random' },
        transaction: 'statement',
        set: { a: { kind: 'grow', dist: { kind: 'uniform', min: 20, max: 400 } } },
      },
      { op: 'delete', rows: { kind: 'percent', pct: 10 }, order: { kind: 'random' }, transaction: 'statement' },
    ];
    const forwarding = [
      engine({ format: 'ase-dol', page_size: 2048, exp_row_size: 1 }),
      engine({ format: 'sqlserver-heap' }),
      engine({ format: 'oracle-heap', page_size: 2048, pctfree: 0 }),
    ];
    // Page details that name no other page: a clustered table's, PostgreSQL's.
    const others = [
      engine({ format: 'ase-apl', page_size: 2048 }),
      engine({ format: 'sqlserver-heap' }),
      engine({ format: 'postgres-heap' }),
    ];
    // ase-apl and sqlserver-heap keep a table with a clustered index in key order (ClusteredHeap).
    const clustered = table(t.columns, [{ name: 'pk', columns: ['id'], unique: true, clustered: true }]);
    for (const e of [...forwarding, ...others]) {
      const forwards = forwarding.includes(e);
      let eng: StorageEngine | undefined;
      const r = runStorage(storage(forwards || e.format === 'postgres-heap' ? t : clustered, e, workload, 9), {
        onEngine: (x) => (eng = x),
      });
      if (forwards) expect(r.final.forwarded_rows, e.format).toBeGreaterThan(100);
      const all = eng!.inspect();
      // Every 7th page, and a few at the ends; the pages their rows link to are not asked for.
      const only = [0, 1, all.pages - 1, all.pages, ...Array.from({ length: Math.floor(all.pages / 7) }, (_, i) => 3 + i * 7)];
      const some = eng!.inspect(only);
      let linked = 0;
      for (const p of only) {
        expect(some.page(p), `${e.format} page ${p}`).toEqual(all.page(p));
        linked += all.page(p).slots.filter((s) => s.kind === 'stub' || s.kind === 'forwarded').length;
      }
      if (forwards) expect(linked, e.format).toBeGreaterThan(20);
      else
        expect(
          only.reduce((n, p) => n + all.page(p).slots.length, 0),
          e.format,
        ).toBeGreaterThan(100);
      expect(() => some.page(2)).toThrow(/was not read/);
    }
  });
});
