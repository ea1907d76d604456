/**
 * The arrays an inspector builds and drops (src/heap/inspect.ts, scratchInt32 and bucketRows with a
 * slot) are kept from one call to the next on a thread: what one table's inspection leaves in them must
 * never show in the next one's.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bucketRows, scratchInt32 } from '../src/heap/inspect.js';
import { loadConfig } from '../src/loader/config.js';
import { runDrawnStorage } from '../src/mechanism/task.js';
import { ROOT } from './helpers/cli.js';

describe('scratch arrays of the inspectors', () => {
  it('bucketRows on a scratch slot gives what it gives on fresh arrays, after a larger call left its data there', () => {
    const pageOf = (pages: number, seed: number) => (r: number) => ((r * 7919 + seed) % (pages + 3)) - 3; // some rows on no page (−1 … −3)
    const big = bucketRows(5000, 400, pageOf(400, 1), 0);
    expect(big.rows.length).toBeGreaterThan(4000);
    for (const [rows, pages, seed] of [[1000, 50, 2], [10, 3, 5], [0, 0, 1], [1200, 60, 9]] as const) {
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
});
