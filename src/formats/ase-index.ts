/**
 * SAP ASE index rows and pages as the Performance and Tuning guide computes them ("Determining sizes of
 * tables and indexes"): allpages-locked (APL) nonclustered and clustered indexes [PT-APL], data-only-locked
 * (DOL) indexes [PT-DOL], and the space management properties of an index [PT-FILL][ASE-IDXPROP].
 * Keys name docs/sources.md. The guide's formulas count a key column as variable-length when it is a
 * variable-length type or allows NULL ("columns that allow null values are by definition variable-length" [I]).
 */
import type { IndexDef } from '../config/spec.js';
import { columnBytes, type IndexGeometry } from '../btree/geometry.js';
import { greedyIndexGeometry } from './forwarding.js';
import type { TableLayout } from '../layout/table-layout.js';

/** APL nonclustered leaf row: 7 + fixed keys; with a variable or nullable key 9 + … [PT-APL7]. */
const ASE_APL_LEAF_FIXED_OVERHEAD = 7;
const ASE_APL_LEAF_VAR_OVERHEAD = 9;
/** APL nonclustered non-leaf row: the leaf row + a 4-byte page pointer (36 + 4 = 40 in the guide's step 10) [PT-APL10]. */
const ASE_APL_NONLEAF_POINTER_BYTES = 4;
/** APL clustered index row: 5 + keys (+ the variable-row adjustment) [PT-APL3]. */
const ASE_APL_CLUSTERED_OVERHEAD = 5;
/** DOL index row (leaf and non-leaf, clustered or not): 9 + keys + 2 per variable key [PT-DOL4]. */
const ASE_DOL_INDEX_OVERHEAD = 9;
const ASE_DOL_INDEX_VAR_KEY_BYTES = 2;
/** Non-leaf pages of an index built at fillfactor 0 keep room for two rows: "(2016 / row size) − 2" [PT-APL4][PT-APL10][PT-FILL]. */
const ASE_NONLEAF_SPARE_ROWS = 2;

/** The key of one index row: bytes of the fixed-length NOT NULL key columns, of the others, and how many others. */
interface AseKeyParts {
  fixed: number;
  variable: number;
  nVar: number;
}

function aseKeyParts(layout: TableLayout, columns: readonly number[], lens: Uint16Array, base: number): AseKeyParts {
  const parts = { fixed: 0, variable: 0, nVar: 0 };
  for (const ci of columns) {
    const col = layout.columns[ci]!;
    const bytes = Math.max(0, columnBytes(layout, ci, lens, base));
    if (col.variableType || col.nullable) {
      parts.variable += bytes;
      parts.nVar++;
    } else parts.fixed += bytes;
  }
  return parts;
}

/** The guide's adjustment of a variable-length row: + ⌊subtotal / 256⌋ + 1 [PT-APL3][PT-APL7][F]. */
function adjust(subtotal: number): number {
  return subtotal + Math.floor(subtotal / 256) + 1;
}

/** APL nonclustered leaf row [PT-APL7]: 7 + fixed; else subtotal = 9 + fixed + variable + (nVar + 1), + ⌊subtotal/256⌋ + 1 (36 for int + varchar(20)). */
export function aplLeafIndexRowBytes(k: AseKeyParts): number {
  if (k.nVar === 0) return ASE_APL_LEAF_FIXED_OVERHEAD + k.fixed;
  return adjust(ASE_APL_LEAF_VAR_OVERHEAD + k.fixed + k.variable + k.nVar + 1);
}

/** APL clustered index row [PT-APL3]: 5 + fixed (9 for an int); else subtotal = 5 + fixed + variable, adjusted, + (nVar + 1) + 2. */
export function aplClusteredIndexRowBytes(k: AseKeyParts): number {
  if (k.nVar === 0) return ASE_APL_CLUSTERED_OVERHEAD + k.fixed;
  return adjust(ASE_APL_CLUSTERED_OVERHEAD + k.fixed + k.variable) + k.nVar + 1 + 2;
}

/** DOL index row [PT-DOL4]: 9 + fixed; else 9 + fixed + variable + 2 × nVar (35 for int + varchar(20)). */
export function dolIndexRowBytes(k: AseKeyParts): number {
  return ASE_DOL_INDEX_OVERHEAD + k.fixed + k.variable + ASE_DOL_INDEX_VAR_KEY_BYTES * k.nVar;
}

/**
 * Bytes a build leaves free on a leaf page (and, for an APL clustered index, on a data page) at
 * `fillfactor`: 0 (the default) and 100 fill it [PT-FILL][PT-SPACE].
 */
export function aseFillReserve(room: number, fillfactor: number | undefined): number {
  return fillfactor !== undefined && fillfactor > 0 && fillfactor < 100 ? room - Math.floor((room * fillfactor) / 100) : 0;
}

/** Non-leaf rows kept free on a page: two at fillfactor 0 [PT-FILL], none at 100; other values: two (assumption, the guide shows only 0). */
function aseNonLeafSpare(fillfactor: number | undefined): number {
  return fillfactor === 100 ? 0 : ASE_NONLEAF_SPARE_ROWS;
}

/**
 * APL index pages have no row offset table in the guide's formulas ("2016 / row size") [PT-APL7]; a
 * clustered index's leaf level is the data pages: its own pages are one row per data page and up [PT-APL4].
 */
export function aplIndexGeometry(layout: TableLayout, idx: IndexDef, columns: number[]): IndexGeometry {
  const room = layout.geometry.pageBytes - layout.geometry.headerBytes;
  const common = {
    name: idx.name,
    columns,
    unique: idx.unique,
    slotBytes: 0,
    pageRoomBytes: room,
    nonLeafReserveBytes: 0,
    nonLeafSpareEntries: aseNonLeafSpare(idx.fillfactor),
    reservePageGap: idx.reservepagegap ?? 0,
  };
  const parts = (lens: Uint16Array, base: number) => aseKeyParts(layout, columns, lens, base);
  if (idx.clustered) {
    const row = (lens: Uint16Array, base: number) => aplClusteredIndexRowBytes(parts(lens, base));
    return greedyIndexGeometry({
      ...common,
      leafTupleBytes: row,
      pivotBytes: row,
      leafReserveBytes: 0,
      leafIsData: true,
      rootAlways: true,
    });
  }
  const leaf = (lens: Uint16Array, base: number) => aplLeafIndexRowBytes(parts(lens, base));
  return greedyIndexGeometry({
    ...common,
    leafTupleBytes: leaf,
    pivotBytes: (lens, base) => leaf(lens, base) + ASE_APL_NONLEAF_POINTER_BYTES,
    leafReserveBytes: aseFillReserve(room, idx.fillfactor),
    leafMaxEntries: idx.max_rows_per_page ?? 0,
  });
}

/**
 * DOL indexes, clustered (a placement index with a leaf row per data row) or not [PT-DOL][PT-DOLCI]: one
 * row size for leaf and non-leaf rows, "2002 / row size" rows a page (the guide's worked example counts
 * no row offset table), no rows kept free on non-leaf pages [PT-DOL6].
 */
export function dolIndexGeometry(layout: TableLayout, idx: IndexDef, columns: number[]): IndexGeometry {
  const room = layout.geometry.pageBytes - layout.geometry.headerBytes;
  const row = (lens: Uint16Array, base: number) => dolIndexRowBytes(aseKeyParts(layout, columns, lens, base));
  return greedyIndexGeometry({
    name: idx.name,
    columns,
    unique: idx.unique,
    leafTupleBytes: row,
    pivotBytes: row,
    slotBytes: 0,
    pageRoomBytes: room,
    leafReserveBytes: aseFillReserve(room, idx.fillfactor),
    nonLeafReserveBytes: 0,
    reservePageGap: idx.reservepagegap ?? 0,
  });
}
