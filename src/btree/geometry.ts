/**
 * B-tree index sizes per engine format, for the `indexes:` of a table: entry bytes, pages per level
 * after a build, and growth as entries are added.
 *
 * PostgreSQL (nbtree): the page layout and the build are emulated item by item, as nbtsort.c
 * _bt_buildadd() fills pages: 24-byte page header, 16-byte special space, a line pointer reserved for
 * the high key, index tuple = 8-byte IndexTupleData (+ 4-byte null bitmap, MAXALIGNed) + key, MAXALIGNed,
 * + 4-byte line pointer; leaves filled to fillfactor 90, upper levels to 70; a page is finished when its
 * free space falls under the target, its last item moves right and a (truncated) copy becomes the high
 * key; one metapage [reference: PostgreSQL heaps, nbtree].
 * Other formats: pages filled greedily with their documented or assumed entry sizes (see ENTRY notes).
 */
import type { IndexDef, TableDef } from '../config/spec.js';
import type { FormatId } from '../config/schema.js';
import { PG_KIND_FIXED, PG_LINE_POINTER_BYTES, PG_PAGE_HEADER_BYTES, PG_VARHDRSZ, PG_VARHDRSZ_SHORT, PG_VARLENA_SHORT_MAX, maxalign, type PgTableLayout } from '../formats/postgres.js';
import { NULL_LEN, type TableLayout } from '../formats/types.js';

/** nbtree: BTPageOpaqueData special space 16 bytes; IndexTupleData 8 bytes; IndexAttributeBitMapData 4 bytes [reference, nbtree.h, itup.h]. */
export const PG_BTREE_SPECIAL_BYTES = 16;
export const PG_INDEX_TUPLE_HEADER_BYTES = 8;
export const PG_INDEX_NULL_BITMAP_BYTES = 4;
/** BTREE_DEFAULT_FILLFACTOR 90 (leaves on build), BTREE_NONLEAF_FILLFACTOR 70 (nbtree.h) [reference]. */
export const PG_BTREE_LEAF_FILLFACTOR = 90;
export const PG_BTREE_NONLEAF_FILLFACTOR = 70;
export const PG_BTREE_META_PAGES = 1;
/** Leaf pages keep room to append a heap TID to the high key: MAXALIGN(sizeof(ItemPointerData)) (nbtsort.c). */
export const PG_BTREE_LEAF_TID_SLACK = 8;

/** SQL Server nonclustered index on a heap: 1-byte row header, 8-byte RID, 6-byte child page pointer, 2-byte slot (MS docs, "Estimate the Size of a Nonclustered Index"; not in the reference file). */
export const SQLSERVER_INDEX_ROW_HEADER_BYTES = 1;
export const SQLSERVER_INDEX_CHILD_POINTER_BYTES = 6;
/** Oracle B*-tree: 2-byte entry header, 1 length byte per key column (3 from 250 bytes), 6-byte rowid (+1 length byte when non-unique), 2-byte row directory; index blocks 57 + 23 × INITRANS 2 bytes of overhead, PCTFREE 10 on build (assumptions). */
export const ORACLE_INDEX_ENTRY_HEADER_BYTES = 2;
export const ORACLE_INDEX_BLOCK_OVERHEAD_BYTES = 57 + 23 * 2;
export const ORACLE_INDEX_PCTFREE = 10;
export const ORACLE_BRANCH_POINTER_BYTES = 4;
/** ASE index rows (assumption; the reference does not give them): key + 6-byte RID + 2 bytes of row overhead + 2 per variable key column, 2-byte offset table entry; non-leaf rows add a 4-byte child page pointer; pages packed full (fillfactor 0). */
export const ASE_INDEX_RID_BYTES = 6;
export const ASE_INDEX_ROW_OVERHEAD_BYTES = 2;
export const ASE_INDEX_CHILD_POINTER_BYTES = 4;

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
  /** Emulate nbtsort (PostgreSQL) rather than greedy filling. */
  nbtsort: boolean;
}

function keyColumns(table: TableDef, idx: IndexDef): number[] {
  return idx.columns.map((c) => table.columns.findIndex((col) => col.name.toLowerCase() === c.toLowerCase()));
}

/** Bytes of column `ci` of the row (−1 for NULL) under the format's layout. */
function colBytes(layout: TableLayout, ci: number, lens: Uint16Array, base: number): number {
  const col = layout.columns[ci]!;
  if (col.varIndex >= 0) {
    const v = lens[base + col.varIndex]!;
    return v === NULL_LEN ? -1 : v;
  }
  return col.fixedBytes;
}

function pgKeyData(layout: PgTableLayout, cols: number[], lens: Uint16Array, base: number): { data: number; hasNull: boolean } {
  let off = 0;
  let hasNull = false;
  for (const ci of cols) {
    const len = colBytes(layout, ci, lens, base);
    if (len < 0) {
      hasNull = true;
      continue;
    }
    if (layout.pg.kind[ci] === PG_KIND_FIXED) {
      const a = layout.pg.align[ci]!;
      off = ((off + a - 1) & ~(a - 1)) + len;
    } else if (len + PG_VARHDRSZ_SHORT <= PG_VARLENA_SHORT_MAX) {
      off += len + PG_VARHDRSZ_SHORT;
    } else {
      off = ((off + 3) & ~3) + len + PG_VARHDRSZ;
    }
  }
  return { data: off, hasNull };
}

/** PostgreSQL index tuple bytes: MAXALIGN(8 [+ 4 null bitmap, MAXALIGNed] + key data). */
export function pgIndexTupleBytes(layout: PgTableLayout, cols: number[], lens: Uint16Array, base: number): number {
  const { data, hasNull } = pgKeyData(layout, cols, lens, base);
  const hdr = hasNull ? maxalign(PG_INDEX_TUPLE_HEADER_BYTES + PG_INDEX_NULL_BITMAP_BYTES) : PG_INDEX_TUPLE_HEADER_BYTES;
  return maxalign(hdr + data);
}

export function indexGeometries(format: FormatId, table: TableDef, layout: TableLayout): IndexGeometry[] {
  const pageBytes = layout.geometry.pageBytes;
  return table.indexes.map((idx) => {
    const cols = keyColumns(table, idx);
    const first = cols.slice(0, 1);
    const nullableKey = cols.some((ci) => layout.columns[ci]!.nullable);
    const sumKey = (cs: number[], lens: Uint16Array, base: number, perVar: number, perCol = 0) => {
      let s = 0;
      for (const ci of cs) {
        const b = colBytes(layout, ci, lens, base);
        if (b > 0) s += b;
        if (layout.columns[ci]!.variableType) s += perVar;
        s += perCol;
      }
      return s;
    };
    switch (format) {
      case 'postgres-heap': {
        const pl = layout as PgTableLayout;
        return {
          name: idx.name,
          columns: cols,
          unique: idx.unique,
          leafTupleBytes: (lens, base) => pgIndexTupleBytes(pl, cols, lens, base),
          // Suffix truncation keeps the first key column when the keys differ there (distinct keys).
          pivotBytes: (lens, base) => pgIndexTupleBytes(pl, first, lens, base),
          slotBytes: PG_LINE_POINTER_BYTES,
          pageRoomBytes: pageBytes - PG_PAGE_HEADER_BYTES - PG_BTREE_SPECIAL_BYTES,
          leafReserveBytes: Math.floor((pageBytes * (100 - PG_BTREE_LEAF_FILLFACTOR)) / 100),
          nonLeafReserveBytes: Math.floor((pageBytes * (100 - PG_BTREE_NONLEAF_FILLFACTOR)) / 100),
          metaPages: PG_BTREE_META_PAGES,
          nbtsort: true,
        };
      }
      case 'sqlserver-heap': {
        const nullBitmap = nullableKey ? 2 + Math.ceil(cols.length / 8) : 0;
        const varKeys = cols.filter((ci) => layout.columns[ci]!.variableType).length;
        const varHead = varKeys > 0 ? 2 : 0;
        const rid = 8;
        return {
          name: idx.name,
          columns: cols,
          unique: idx.unique,
          leafTupleBytes: (lens, base) => SQLSERVER_INDEX_ROW_HEADER_BYTES + sumKey(cols, lens, base, 2) + nullBitmap + varHead + rid,
          pivotBytes: (lens, base) => SQLSERVER_INDEX_ROW_HEADER_BYTES + sumKey(cols, lens, base, 2) + nullBitmap + varHead + SQLSERVER_INDEX_CHILD_POINTER_BYTES + (idx.unique ? 0 : rid),
          slotBytes: 2,
          pageRoomBytes: pageBytes - 96,
          leafReserveBytes: 0,
          nonLeafReserveBytes: 0,
          metaPages: 0,
          nbtsort: false,
        };
      }
      case 'oracle-heap': {
        const lenBytes = (cs: number[], lens: Uint16Array, base: number) => {
          let s = 0;
          for (const ci of cs) {
            const b = colBytes(layout, ci, lens, base);
            s += (b >= 250 ? 3 : 1) + Math.max(0, b);
          }
          return s;
        };
        return {
          name: idx.name,
          columns: cols,
          unique: idx.unique,
          leafTupleBytes: (lens, base) => ORACLE_INDEX_ENTRY_HEADER_BYTES + lenBytes(cols, lens, base) + 6 + (idx.unique ? 0 : 1),
          pivotBytes: (lens, base) => ORACLE_INDEX_ENTRY_HEADER_BYTES + lenBytes(first, lens, base) + ORACLE_BRANCH_POINTER_BYTES,
          slotBytes: 2,
          pageRoomBytes: pageBytes - ORACLE_INDEX_BLOCK_OVERHEAD_BYTES,
          leafReserveBytes: Math.floor((pageBytes * ORACLE_INDEX_PCTFREE) / 100),
          nonLeafReserveBytes: 0,
          metaPages: 0,
          nbtsort: false,
        };
      }
      default: {
        const header = layout.geometry.headerBytes;
        return {
          name: idx.name,
          columns: cols,
          unique: idx.unique,
          leafTupleBytes: (lens, base) => sumKey(cols, lens, base, 2) + ASE_INDEX_RID_BYTES + ASE_INDEX_ROW_OVERHEAD_BYTES,
          pivotBytes: (lens, base) => sumKey(cols, lens, base, 2) + ASE_INDEX_CHILD_POINTER_BYTES + ASE_INDEX_ROW_OVERHEAD_BYTES + (idx.unique ? 0 : ASE_INDEX_RID_BYTES),
          slotBytes: 2,
          pageRoomBytes: pageBytes - header,
          leafReserveBytes: 0,
          nonLeafReserveBytes: 0,
          metaPages: 0,
          nbtsort: false,
        };
      }
    }
  });
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
    const stored = (k: number, firstOnPage: boolean) => (!leaf && firstOnPage ? PG_INDEX_TUPLE_HEADER_BYTES : itemBytes(k));
    first.push(0);
    for (let k = 0; k < count; k++) {
      const size = itemBytes(k);
      if (items > 0 && (pgspc < size + (leaf ? PG_BTREE_LEAF_TID_SLACK : 0) || (pgspc < reserve && items >= 2))) {
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
    const level = fillLevel(g, children, (k) => (k === 0 ? PG_INDEX_TUPLE_HEADER_BYTES : pivotBytes), false);
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

