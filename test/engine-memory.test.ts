/**
 * The storage engines' arrays: the row store made once for the planned rows, the forwarding heap's page
 * arrays past their room, and the free-space search's entries kept behind a page changed many times
 * running. None of these may change a figure.
 */
import { describe, expect, it } from 'vitest';
import { dolGeometry } from '../src/formats/ase.js';
import { ForwardingHeap, ROWS_PER_PAGE_ROOM, type ForwardingHeapOptions } from '../src/heap/forwarding-heap.js';
import { storageBenchSpec } from '../bench/storage.js';
import { runStorage } from '../src/workload/runner.js';
import { Prng } from '../src/util/prng.js';

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

describe('the row store', () => {
  it('keeps 2 bytes a varying column for each planned row, and does not grow when the inserts reach them', () => {
    for (const [format, width] of [
      ['ase-dol', 1],
      ['oracle-heap', 2],
    ] as const) {
      const spec = storageBenchSpec(1000, format, 'sequential');
      // Two insert phases: the planned rows are both phases' together.
      spec.workload = [
        spec.workload[0]!,
        { ...spec.workload[0]!, rows: { kind: 'count', n: 500 } } as (typeof spec.workload)[number],
        spec.workload[1]!,
      ];
      const lengths = new Set<number>();
      runStorage(spec, { observer: { insert: (_row, lens) => void lengths.add(lens.length) } });
      expect([...lengths]).toEqual([width * 1500]);
    }
  });
});

/** The same operations on two heaps; a random mix of inserts, growing and shrinking updates, deletes. */
function drive(heaps: ForwardingHeap[], rows: number, seed: number, after?: (h: ForwardingHeap) => void): void {
  const rng = new Prng(seed);
  const live = new Uint8Array(rows);
  for (let r = 0; r < rows; r++) {
    const bytes = 20 + rng.int(400);
    for (const h of heaps) h.insert(r, bytes, bytes - 8);
    live[r] = 1;
  }
  // Updates mostly in row order (runs on one page), some anywhere; a few deletes.
  let row = 0;
  for (let k = 0; k < rows * 4; k++) {
    row = rng.float32() < 0.8 ? (row + 1) % rows : rng.int(rows);
    if (!live[row]) continue;
    if (rng.float32() < 0.02) {
      for (const h of heaps) h.delete(row);
      live[row] = 0;
      continue;
    }
    const bytes = 12 + rng.int(900);
    for (const h of heaps) {
      h.update(row, bytes, bytes - 8, NO_INDEX);
      after?.(h);
    }
  }
}

describe('the forwarding heap', () => {
  it('gives the same pages and figures whether its page arrays had room for every page or grew past it', () => {
    // Rows of up to 420 bytes on 2K pages: about 5 a page at first, fewer as they grow and forward; the small
    // heap's room (1,024 pages, its minimum) is passed, the large one's (a page per row) is not.
    const rows = 6000;
    const small = heap({ rowCapacity: 16 });
    const large = heap({ rowCapacity: rows * ROWS_PER_PAGE_ROOM });
    drive([small, large], rows, 7);
    expect(small.metrics().pages).toBeGreaterThan(1024);
    expect(small.metrics()).toEqual(large.metrics());
    for (let r = 0; r < rows; r++) expect(small.rowPage(r)).toBe(large.rowPage(r));
    // A rebuild clears the pages made so far and starts again from page 0.
    small.reorg('rebuild');
    large.reorg('rebuild');
    expect(small.checkInvariants()).toEqual([]);
    expect(small.metrics()).toEqual(large.metrics());
    for (let r = 0; r < rows; r++) expect(small.rowPage(r)).toBe(large.rowPage(r));
  });

  for (const search of ['exact', 'pfs'] as const) {
    it(`finds the pages (free-space search: ${search}) it would find with every page's entry written at once`, () => {
      const opts: Partial<ForwardingHeapOptions> = {
        freeSpaceSearch: search,
        backPointerBytes: search === 'pfs' ? 14 : 0,
        moveBackHome: search === 'pfs',
        insertReserveBytes: search === 'exact' ? 200 : 0,
        rowCapacity: 3000,
      };
      const eager = heap(opts);
      const lazy = heap(opts);
      // checkInvariants raises every entry that is behind its page (the deferred ones): after every update on
      // one heap, never on the other. test/free-space-search.test.ts compares with entries exact at every change.
      drive([eager, lazy], 3000, 11, (h) => {
        if (h === eager) expect(h.checkInvariants()).toEqual([]);
      });
      for (let r = 0; r < 3000; r++) expect(lazy.rowPage(r)).toBe(eager.rowPage(r));
      expect(lazy.checkInvariants()).toEqual([]);
      expect(lazy.metrics()).toEqual(eager.metrics());
    });
  }
});
