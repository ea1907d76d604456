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
import { NULL_LEN, type TableLayout } from '../layout/table-layout.js';
import type { IndexPages } from '../heap/engine.js';

export type { IndexPages };
import type { NbtreeRules } from './nbtree.js';

/** How entries of one index are sized and paged by a format. */
export interface IndexGeometry {
  name: string;
  /** Key columns as positions in the table. */
  columns: number[];
  unique: boolean;
  /** The columns whose stored lengths a leaf entry's size reads, where they are more than the key (SQL Server's clustering key in a nonclustered index); default `columns`. */
  entryColumns?: readonly number[];
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
  /** Greedy: a non-leaf page keeps room for this many more entries (ASE: "(2016 / row size) − 2"). */
  nonLeafSpareEntries: number;
  /** Greedy: at most this many entries a leaf page (ASE max_rows_per_page); 0: no limit. */
  leafMaxEntries: number;
  /** One empty page left for every `reservePageGap − 1` leaf pages a build fills (ASE reservepagegap); 0: none. */
  reservePageGap: number;
  /** The leaf level is the table's data pages (a clustered index of ASE allpages-locked or SQL Server): the index's own pages are the levels above them, one entry per data page. */
  leafIsData: boolean;
  /** leafIsData: a root page even above a single data page (ASE). */
  rootAlways: boolean;
  /** PostgreSQL: the index is simulated entry by entry as nbtree keeps it (btree/nbtree.ts), by these rules. */
  nbtree?: NbtreeRules;
  /** The largest leaf tuple the DBMS accepts (PostgreSQL's BTMaxItemSize): a row whose entry is larger is refused. */
  maxTupleBytes?: number;
}

/** The geometry options most formats leave at their neutral values. */
export const GEOMETRY_DEFAULTS = {
  metaPages: 0,
  nonLeafSpareEntries: 0,
  leafMaxEntries: 0,
  reservePageGap: 0,
  leafIsData: false,
  rootAlways: false,
} as const satisfies Partial<IndexGeometry>;

/** What a format gives for an index geometry: the fields of GEOMETRY_DEFAULTS may be left out. */
export type IndexGeometryFields = Omit<IndexGeometry, keyof typeof GEOMETRY_DEFAULTS> &
  Partial<Pick<IndexGeometry, keyof typeof GEOMETRY_DEFAULTS>>;

/**
 * An index geometry as one object literal, every field in one order. The engines read these objects in
 * their hot loops, and an object made by spreading (`{ ...GEOMETRY_DEFAULTS, ...fields }`) came out of
 * V8 with a map of its own each time once a process had made a few (from the second or the eighth,
 * by format): every run from then on deoptimised the code reading it (postgres-heap's updates 15–30%
 * slower). test/object-shapes.test.ts checks that the maps stay one.
 */
export function indexGeometry(g: IndexGeometryFields): IndexGeometry {
  const d = GEOMETRY_DEFAULTS;
  return {
    name: g.name,
    columns: g.columns,
    unique: g.unique,
    entryColumns: g.entryColumns,
    leafTupleBytes: g.leafTupleBytes,
    pivotBytes: g.pivotBytes,
    slotBytes: g.slotBytes,
    pageRoomBytes: g.pageRoomBytes,
    leafReserveBytes: g.leafReserveBytes,
    nonLeafReserveBytes: g.nonLeafReserveBytes,
    metaPages: g.metaPages ?? d.metaPages,
    nbtsort: g.nbtsort,
    minusInfinityBytes: g.minusInfinityBytes,
    leafTidSlackBytes: g.leafTidSlackBytes,
    nonLeafSpareEntries: g.nonLeafSpareEntries ?? d.nonLeafSpareEntries,
    leafMaxEntries: g.leafMaxEntries ?? d.leafMaxEntries,
    reservePageGap: g.reservePageGap ?? d.reservePageGap,
    leafIsData: g.leafIsData ?? d.leafIsData,
    rootAlways: g.rootAlways ?? d.rootAlways,
    nbtree: g.nbtree,
    maxTupleBytes: g.maxTupleBytes,
  };
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
export function keyBytes(
  layout: TableLayout,
  columns: readonly number[],
  lens: Uint16Array,
  base: number,
  perVariable: number,
  perColumn = 0,
): number {
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
interface LevelFill {
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
 * "minus infinity" tuple. Greedy: items fill a page up to room − reserve (non-leaf pages also keep room
 * for `nonLeafSpareEntries` more entries; leaves take at most `leafMaxEntries`).
 */
export function fillLevel(g: IndexGeometry, count: number, itemBytes: (k: number) => number, leaf: boolean, sameBytes = -1): LevelFill {
  if (g.nbtsort) return fillLevelNbtsort(g, count, itemBytes, leaf);
  return sameBytes >= 0 && count > 0 ? fillLevelGreedySame(g, count, sameBytes, leaf) : fillLevelGreedy(g, count, itemBytes, leaf);
}

function fillLevelNbtsort(g: IndexGeometry, count: number, itemBytes: (k: number) => number, leaf: boolean): LevelFill {
  const free: number[] = [];
  const first: number[] = [0];
  const reserve = leaf ? g.leafReserveBytes : g.nonLeafReserveBytes;
  const empty = g.pageRoomBytes - 2 * g.slotBytes; // the high-key line pointer is reserved, and PageGetFreeSpace takes one more
  let pgspc = empty;
  let items = 0;
  let lastSize = 0;
  let lastIndex = 0;
  const stored = (k: number, firstOnPage: boolean) => (!leaf && firstOnPage ? g.minusInfinityBytes : itemBytes(k));
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

/**
 * What a greedy fill lets a page take: bytes of items and slots (`room`) and items (`maxItems`). A non-leaf
 * page keeps room for nonLeafSpareEntries more entries the size of the first, `firstSize` with its slot.
 */
function greedyLimits(g: IndexGeometry, leaf: boolean, firstSize: number): { room: number; maxItems: number } {
  const spare = leaf ? 0 : g.nonLeafSpareEntries * firstSize;
  return {
    room: g.pageRoomBytes - (leaf ? g.leafReserveBytes : g.nonLeafReserveBytes + spare),
    maxItems: leaf && g.leafMaxEntries > 0 ? g.leafMaxEntries : Infinity,
  };
}

function fillLevelGreedy(g: IndexGeometry, count: number, itemBytes: (k: number) => number, leaf: boolean): LevelFill {
  const free: number[] = [];
  const first: number[] = [0];
  const { room, maxItems } = greedyLimits(g, leaf, count === 0 ? 0 : itemBytes(0) + g.slotBytes);
  let used = 0;
  let items = 0;
  for (let k = 0; k < count; k++) {
    const size = itemBytes(k) + g.slotBytes;
    if (items > 0 && (used + size > room || items >= maxItems)) {
      free.push(g.pageRoomBytes - used);
      first.push(k);
      used = 0;
      items = 0;
    }
    used += size;
    items++;
  }
  free.push(g.pageRoomBytes - used);
  return { pages: free.length, free: Int32Array.from(free), firstItem: Int32Array.from(first) };
}

/**
 * fillLevelGreedy when every item takes `bytes` (an index of fixed-width keys): every page but the last
 * takes the same number of items, so the level is worked out a page at a time, not an item at a time
 * (a 1e8-row table's primary key: 1e8 calls fewer). The same pages as fillLevelGreedy.
 */
function fillLevelGreedySame(g: IndexGeometry, count: number, bytes: number, leaf: boolean): LevelFill {
  const size = bytes + g.slotBytes;
  const { room, maxItems } = greedyLimits(g, leaf, size);
  // A page takes items while they fit and it is under maxItems, and always its first.
  const perPage = Math.max(1, Math.min(maxItems, Math.floor(room / size)));
  const pages = Math.ceil(count / perPage);
  const free = new Int32Array(pages).fill(g.pageRoomBytes - perPage * size);
  free[pages - 1] = g.pageRoomBytes - (count - (pages - 1) * perPage) * size;
  const firstItem = new Int32Array(pages);
  for (let b = 0; b < pages; b++) firstItem[b] = b * perPage;
  return { pages, free, firstItem };
}

/**
 * Pages above the leaves: one downlink per child page (nbtsort: the first one minus infinity), until one
 * root. `levels` counts the leaf level; for an index whose leaf level is the data pages, the levels of
 * index pages above the data (a root always when `rootAlways`).
 */
export function upperPages(g: IndexGeometry, leafPages: number, pivotBytes: number): { pages: number; levels: number } {
  const above = levelPages(g, leafPages, pivotBytes);
  return { pages: above.reduce((a, b) => a + b, 0), levels: above.length + (g.leafIsData ? 0 : 1) };
}

/** The pages of each level above the leaves, lowest first. */
export function levelPages(g: IndexGeometry, leafPages: number, pivotBytes: number): number[] {
  const levels: number[] = [];
  let children = leafPages;
  while (children > 1 || (g.rootAlways && g.leafIsData && levels.length === 0 && children > 0)) {
    const level = fillLevel(g, children, (k) => (g.nbtsort && k === 0 ? g.minusInfinityBytes : pivotBytes), false);
    levels.push(level.pages);
    children = level.pages;
  }
  return levels;
}

/** Empty pages a build leaves among `filled` leaf pages: one for every reservePageGap − 1 filled (ASE reservepagegap). */
export function reservedGapPages(g: IndexGeometry, filled: number): number {
  return g.reservePageGap > 1 ? Math.floor(filled / (g.reservePageGap - 1)) : 0;
}

interface BuiltIndex {
  leafPages: number;
  upperPages: number;
  metaPages: number;
  levels: number;
  entries: number;
  tupleBytes: number;
}

/** The size of an index built over `count` entries (CREATE INDEX on a loaded table); for a leaf-is-data index, `count` is the data pages. */
export function buildIndex(g: IndexGeometry, count: number, itemBytes: (k: number) => number, pivotBytes: number): BuiltIndex {
  if (g.leafIsData) {
    const up = upperPages(g, count, pivotBytes);
    return {
      leafPages: 0,
      upperPages: up.pages,
      metaPages: g.metaPages,
      levels: up.levels,
      entries: count,
      tupleBytes: count * pivotBytes,
    };
  }
  if (count === 0) return { leafPages: 1, upperPages: 0, metaPages: g.metaPages, levels: 1, entries: 0, tupleBytes: 0 };
  const leaves = fillLevel(g, count, itemBytes, true);
  const leafPages = leaves.pages + reservedGapPages(g, leaves.pages);
  // The gap pages are allocated to the index but empty: no downlink points at them.
  const up = upperPages(g, leaves.pages, pivotBytes);
  let bytes = 0;
  for (let k = 0; k < count; k++) bytes += itemBytes(k);
  return { leafPages, upperPages: up.pages, metaPages: g.metaPages, levels: up.levels, entries: count, tupleBytes: bytes };
}
