/**
 * B-tree index sizes, whatever the format: pages per level after a build, and growth as entries are
 * added. How big an entry is and how full a page is built come from the format's routine
 * (StorageFormat.indexGeometry in src/formats); this file only fills pages.
 *
 * Two ways to fill a level: PostgreSQL's nbtsort.c _bt_buildadd() is emulated item by item (a page
 * finished when its free space falls under the fill target, its last item moving right, a truncated copy
 * becoming the high key, the first item of a non-leaf page a bare "minus infinity" tuple) [nbtree.h];
 * the other formats fill pages greedily up to their build fill.
 */
import type { IndexDef, TableDef } from '../config/spec.js';
import { NULL_LEN, type TableLayout } from '../formats/types.js';

export interface IndexPages {
  total: number;
  by_index: Record<string, number>;
}

/** How entries of one index are sized and paged by a format. */
export interface IndexGeometry {
  name: string;
  /** Key columns as positions in the table. */
  columns: number[];
  unique: boolean;
  /** Tuple bytes of a leaf entry (without its slot/line pointer) for the row lens[base …]. */
  leafTupleBytes(lens: Uint16Array, base: number): number;
  /** Bytes of a pivot / non-leaf entry (without slot). */
  pivotBytes(lens: Uint16Array, base: number): number;
  slotBytes: number;
  /** Bytes an empty page offers for items and slots. */
  pageRoomBytes: number;
  /** Free bytes a build leaves per leaf / non-leaf page. */
  leafReserveBytes: number;
  nonLeafReserveBytes: number;
  metaPages: number;
  /** Emulate nbtsort (PostgreSQL) rather than greedy filling; then the two sizes below apply. */
  nbtsort: boolean;
  /** nbtsort: bytes of the bare first ("minus infinity") item of a non-leaf page. */
  minusInfinityBytes: number;
  /** nbtsort: bytes a leaf keeps free to append a heap TID to its high key. */
  leafTidSlackBytes: number;
}

/** The positions of an index's key columns in its table. */
export function keyColumns(table: TableDef, idx: IndexDef): number[] {
  return idx.columns.map((c) => table.columns.findIndex((col) => col.name.toLowerCase() === c.toLowerCase()));
}

/** Bytes of column `ci` of the row (−1 for NULL) under the format's layout. */
export function columnBytes(layout: TableLayout, ci: number, lens: Uint16Array, base: number): number {
  const col = layout.columns[ci]!;
  if (col.varIndex >= 0) {
    const v = lens[base + col.varIndex]!;
    return v === NULL_LEN ? -1 : v;
  }
  return col.fixedBytes;
}

/** Sum of the key columns' bytes, plus `perVariable` for each variable-length one and `perColumn` for each. */
export function keyBytes(layout: TableLayout, columns: readonly number[], lens: Uint16Array, base: number, perVariable: number, perColumn = 0): number {
  let sum = 0;
  for (const ci of columns) {
    const b = columnBytes(layout, ci, lens, base);
    if (b > 0) sum += b;
    if (layout.columns[ci]!.variableType) sum += perVariable;
    sum += perColumn;
  }
  return sum;
}

/** Pages of one B-tree level filled from a stream of item sizes; returns the page count and the last page's free bytes. */
export interface LevelFill {
  pages: number;
  /** Free bytes (PageGetFreeSpace for nbtree) left on each page, in key order. */
  free: Int32Array;
  /** First item index on each page. */
  firstItem: Int32Array;
}

/**
 * Fill one level. nbtsort: a page is finished when the next item does not fit (leaves keep 8 bytes
 * for a heap TID) or when free space already fell under the fill target with two items on it; the
 * last item then moves to the new page. On non-leaf pages the first item is stored as a bare 8-byte
 * "minus infinity" tuple. Greedy: items fill a page up to room − reserve.
 */
export function fillLevel(g: IndexGeometry, count: number, itemBytes: (k: number) => number, leaf: boolean): LevelFill {
  const free: number[] = [];
  const first: number[] = [];
  const reserve = leaf ? g.leafReserveBytes : g.nonLeafReserveBytes;
  if (g.nbtsort) {
    const empty = g.pageRoomBytes - 2 * g.slotBytes; // the high-key line pointer is reserved, and PageGetFreeSpace takes one more
    let pgspc = empty;
    let items = 0;
    let lastSize = 0;
    let lastIndex = 0;
    const stored = (k: number, firstOnPage: boolean) => (!leaf && firstOnPage ? g.minusInfinityBytes : itemBytes(k));
    first.push(0);
    for (let k = 0; k < count; k++) {
      const size = itemBytes(k);
      if (items > 0 && (pgspc < size + (leaf ? g.leafTidSlackBytes : 0) || (pgspc < reserve && items >= 2))) {
        // Finish the page: its last item moves to the new page (and a copy becomes the high key).
        free.push(pgspc + lastSize + g.slotBytes);
        first.push(lastIndex);
        const moved = stored(lastIndex, true);
        pgspc = empty - moved - g.slotBytes;
        items = 1;
      }
      const s = stored(k, items === 0);
      pgspc -= s + g.slotBytes;
      items++;
      lastSize = s;
      lastIndex = k;
    }
    free.push(pgspc);
    return { pages: free.length, free: Int32Array.from(free), firstItem: Int32Array.from(first) };
  }
  const room = g.pageRoomBytes - reserve;
  let used = 0;
  first.push(0);
  for (let k = 0; k < count; k++) {
    const size = itemBytes(k) + g.slotBytes;
    if (used > 0 && used + size > room) {
      free.push(g.pageRoomBytes - used);
      first.push(k);
      used = 0;
    }
    used += size;
  }
  free.push(g.pageRoomBytes - used);
  return { pages: free.length, free: Int32Array.from(free), firstItem: Int32Array.from(first) };
}

/** Pages above the leaves: one downlink per child page (the first one minus infinity), until one root. */
export function upperPages(g: IndexGeometry, leafPages: number, pivotBytes: number): { pages: number; levels: number } {
  let pages = 0;
  let levels = 1;
  let children = leafPages;
  while (children > 1) {
    const level = fillLevel(g, children, (k) => (k === 0 ? g.minusInfinityBytes : pivotBytes), false);
    pages += level.pages;
    levels++;
    children = level.pages;
  }
  return { pages, levels };
}

export interface BuiltIndex {
  leafPages: number;
  upperPages: number;
  metaPages: number;
  levels: number;
  entries: number;
  tupleBytes: number;
}

/** The size of an index built over `count` entries (CREATE INDEX on a loaded table). */
export function buildIndex(g: IndexGeometry, count: number, itemBytes: (k: number) => number, pivotBytes: number): BuiltIndex {
  if (count === 0) return { leafPages: 1, upperPages: 0, metaPages: g.metaPages, levels: 1, entries: 0, tupleBytes: 0 };
  const leaves = fillLevel(g, count, itemBytes, true);
  const up = upperPages(g, leaves.pages, pivotBytes);
  let bytes = 0;
  for (let k = 0; k < count; k++) bytes += itemBytes(k);
  return { leafPages: leaves.pages, upperPages: up.pages, metaPages: g.metaPages, levels: up.levels, entries: count, tupleBytes: bytes };
}

