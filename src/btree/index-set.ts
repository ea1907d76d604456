/**
 * The indexes of a simulated table over a workload: built (as CREATE INDEX on the loaded table) at the
 * end of the first insert phase, then grown by later inserts (appended at the right edge, leaves filled
 * to the build fill) and, on PostgreSQL, by the entry every non-HOT update adds to every index.
 *
 * Growth by updates is modelled per built leaf: a leaf gains a page when its entries no longer fit the
 * pages it has (a split), as if the leaf's entries spread evenly over them. Before it splits, a leaf
 * reclaims the entries of versions whose transaction has committed (PostgreSQL 14+ bottom-up deletion
 * and simple deletion of entries index scans marked dead): with one transaction per row, the entries of
 * replaced versions make room for the new ones; within one long transaction they cannot. PostgreSQL 13+
 * deduplication (posting lists) is not modelled.
 */
import { grown } from '../util/arrays.js';
import { fillLevel, levelPages, reservedGapPages, upperPages, type IndexGeometry, type IndexPages } from './geometry.js';
import type { PageReads } from '../heap/page-reads.js';
import type { TableLayout } from '../layout/table-layout.js';

/** Page names of an index in the buffer cache: a leaf bucket's pages b × LEAF_PAGE_SPAN + k; upper levels below zero. */
const LEAF_PAGE_SPAN = 2048;
const UPPER_LEVEL_SPAN = 1 << 24;

/** The live rows in key order, as a list: the k-th row id of `count`. */
export interface RowList {
  readonly count: number;
  at(k: number): number;
}

/**
 * Keys arriving in random order fill B-tree leaves to ln 2 ≈ 69 % on average (Yao, "On random 2-3
 * trees", 1978): new keys of updated rows arrive in the update phase's (random) order.
 */
const RANDOM_INSERT_FILL = Math.LN2;

interface IndexState {
  geometry: IndexGeometry;
  /** Bytes of a leaf entry with its slot when every key column has one size (no varying column): −1 otherwise. */
  fixedEntryBytes: number;
  entries: number;
  /** Empty pages a build left among the leaves (ASE reservepagegap), included in leafPages. */
  gapPages: number;
  deadEntries: number;
  leafPages: number;
  pivot: number;
  /** Per built leaf, the first row id its entries belonged to at the build (rows appended later are in the last). */
  firstRow: Int32Array;
  /** Pages of each level above the leaves, lowest first, as of the last prepareReads(). */
  upper: number[];
  /** Per built leaf (and the appended tail): bytes of items + slots, and pages. */
  used: Int32Array;
  pages: Int32Array;
  buckets: number;
  rowBucket: Int32Array | null;
  /** Per leaf: bytes of entries whose versions died in the open transaction, and in committed ones. */
  pend: Int32Array;
  dead: Int32Array;
  touched: number[];
}

/** No index: the pages of a table without indexes. */
export const NO_INDEX_PAGES: IndexPages = Object.freeze({ total: 0, by_index: {}, levels: {}, nonleaf_by_index: {} });

export class IndexSet {
  private readonly states: IndexState[];
  private readonly width: number;
  built = false;

  /**
   * The indexes of `geometries` over rows of `width` stored lengths. `trackRows`: remember which leaf
   * holds each row's entry, for MVCC formats whose updates add entries next to the row's key.
   */
  constructor(
    geometries: readonly IndexGeometry[],
    layout: TableLayout,
    private readonly trackRows: boolean,
  ) {
    this.width = layout.varying.length;
    const probe = new Uint16Array(Math.max(1, this.width));
    this.states = geometries.map((g) => ({
      geometry: g,
      fixedEntryBytes: (g.entryColumns ?? g.columns).every((c) => layout.columns[c]!.varIndex < 0) ? g.leafTupleBytes(probe, 0) + g.slotBytes : -1,
      entries: 0,
      gapPages: 0,
      deadEntries: 0,
      leafPages: 0,
      pivot: 0,
      firstRow: new Int32Array(0),
      upper: [],
      used: new Int32Array(0),
      pages: new Int32Array(0),
      buckets: 0,
      rowBucket: null,
      pend: new Int32Array(0),
      dead: new Int32Array(0),
      touched: [],
    }));
  }

  get count(): number {
    return this.states.length;
  }

  /** Capacity of one leaf page for items and slots (the high key's slot excluded). */
  private capacity(s: IndexState): number {
    return s.geometry.pageRoomBytes - 2 * s.geometry.slotBytes;
  }

  /** CREATE INDEX over the live rows (in key order = row order): rows.at(k) is the k-th of rows.count. */
  build(rows: RowList, lens: Uint16Array, rowCapacity: number): void {
    const w = this.width;
    const count = rows.count;
    for (const s of this.states) {
      s.pivot = count > 0 ? s.geometry.pivotBytes(lens, rows.at(0) * w) : 0;
      // A clustered index whose leaf level is the data pages: only the levels above them are its own.
      if (s.geometry.leafIsData) continue;
      const size = (k: number) => s.geometry.leafTupleBytes(lens, rows.at(k) * w);
      const leaves = fillLevel(s.geometry, count, size, true);
      s.entries = count;
      s.deadEntries = 0;
      s.gapPages = count > 0 ? reservedGapPages(s.geometry, leaves.pages) : 0;
      s.leafPages = count > 0 ? leaves.pages + s.gapPages : 1;
      s.buckets = s.leafPages;
      s.used = new Int32Array(Math.max(16, s.buckets * 2));
      s.pages = new Int32Array(s.used.length);
      s.pend = new Int32Array(s.used.length);
      s.dead = new Int32Array(s.used.length);
      s.touched = [];
      const cap = this.capacity(s);
      for (let b = 0; b < s.buckets; b++) {
        s.used[b] = count > 0 ? cap - leaves.free[b]! : 0;
        s.pages[b] = 1;
      }
      s.firstRow = new Int32Array(s.buckets);
      for (let b = 0; b < s.buckets; b++) s.firstRow[b] = b < leaves.pages && count > 0 ? rows.at(leaves.firstItem[b]!) : 0x7fffffff;
      if (this.trackRows) {
        s.rowBucket = new Int32Array(Math.max(16, rowCapacity)).fill(-1);
        for (let b = 0; b < leaves.pages; b++) {
          const end = b + 1 < leaves.pages ? leaves.firstItem[b + 1]! : count;
          for (let k = leaves.firstItem[b]!; k < end; k++) s.rowBucket[rows.at(k)] = b;
        }
      }
    }
    this.built = true;
  }

  /** A new row's entry: appended to the rightmost leaf, which splits at the build fill. */
  append(row: number, lens: Uint16Array, base: number): void {
    const states = this.states;
    for (let i = 0; i < states.length; i++) {
      const s = states[i]!;
      if (!s.geometry.leafIsData) this.appendOne(s, row, lens, base);
    }
  }

  /** Bytes of the row's leaf entry in index s, with its slot. */
  private entryBytes(s: IndexState, lens: Uint16Array, base: number): number {
    return s.fixedEntryBytes >= 0 ? s.fixedEntryBytes : s.geometry.leafTupleBytes(lens, base) + s.geometry.slotBytes;
  }

  private appendOne(s: IndexState, row: number, lens: Uint16Array, base: number, fill = 1): void {
    {
      const b = s.buckets - 1;
      const add = this.entryBytes(s, lens, base);
      s.used[b]! += add;
      const fillCap = fill < 1 ? this.capacity(s) * fill : this.capacity(s) - s.geometry.leafReserveBytes;
      if (s.used[b]! > s.pages[b]! * fillCap) {
        s.pages[b]!++;
        s.leafPages++;
      }
      s.entries++;
      if (s.rowBucket) {
        if (row >= s.rowBucket.length) {
          const old = s.rowBucket.length;
          s.rowBucket = grown(s.rowBucket, row + 1);
          s.rowBucket.fill(-1, old);
        }
        s.rowBucket[row] = b;
      }
    }
  }

  // ---- reads -----------------------------------------------------------------------------------

  /** Before a read phase: the pages of each level above the leaves as the index is now. `dataPages`: the table's, for a clustered index whose leaves are the data. */
  prepareReads(dataPages: number): void {
    for (const s of this.states) s.upper = levelPages(s.geometry, s.geometry.leafIsData ? Math.max(1, dataPages) : Math.max(1, s.leafPages - s.gapPages), s.pivot);
  }

  /** Index i's position in the table's index list, by name (−1: none). */
  indexOf(name: string): number {
    return this.states.findIndex((s) => s.geometry.name === name);
  }

  /** The leaf row's entry is on: its bucket, the row's place in the bucket's pages (a bucket split into several pages keeps its rows in order). */
  private leafOf(s: IndexState, row: number, rowIds: number): number {
    const rb = s.rowBucket;
    let b = rb !== null && row < rb.length ? rb[row]! : -1;
    const fr = s.firstRow;
    if (b < 0) {
      // The last built leaf whose first row is ≤ row: leaves hold rows in id order.
      let lo = 0;
      let hi = s.buckets - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (fr[mid]! <= row) lo = mid;
        else hi = mid - 1;
      }
      b = lo;
    }
    const pages = s.pages[b]!;
    let pos = 0;
    if (pages > 1) {
      const first = fr[b]!;
      const end = b + 1 < s.buckets && fr[b + 1]! < 0x7fffffff ? fr[b + 1]! : rowIds;
      pos = end > first ? Math.min(pages - 1, Math.max(0, Math.floor(((row - first) * pages) / (end - first)))) : 0;
    }
    return b * LEAF_PAGE_SPAN + Math.min(pos, LEAF_PAGE_SPAN - 1);
  }

  /**
   * Index i read from its root down to the leaf with the row's entry (for an index whose leaves are the
   * table's data pages, down to the level above them: the data page is the row's read). Pages above the
   * leaves are named by their position over the leaves (a node at level l covers an even share of them).
   */
  readPath(i: number, row: number, rowIds: number, dataPage: number, dataPages: number, reads: PageReads): void {
    const s = this.states[i]!;
    const upper = s.upper;
    let leaf: number;
    let span: number;
    let at: number;
    if (s.geometry.leafIsData) {
      leaf = -1;
      span = Math.max(1, dataPages);
      at = Math.min(span - 1, Math.max(0, dataPage));
    } else {
      leaf = this.leafOf(s, row, rowIds);
      span = Math.max(1, s.buckets);
      at = Math.floor(leaf / LEAF_PAGE_SPAN);
    }
    for (let l = upper.length - 1; l >= 0; l--) {
      const node = Math.floor((at * upper[l]!) / span);
      reads.indexPage(i, -1 - (l * UPPER_LEVEL_SPAN + Math.min(node, UPPER_LEVEL_SPAN - 1)));
    }
    if (leaf >= 0) reads.indexPage(i, leaf);
  }

  /** Which indexes have a key column among `columns` (table positions): 1 per index, in index order. */
  keysChanged(columns: ReadonlySet<number>): Uint8Array {
    return Uint8Array.from(this.states, (s) => (s.geometry.columns.some((c) => columns.has(c)) ? 1 : 0));
  }

  /**
   * A non-HOT update: one more entry in every index, next to the row's key; where the update changed
   * one of the index's columns (`keyChanged[i]`, from keysChanged()), the new key is placed at the right
   * edge (new keys are larger than the loaded ones, as pg-check generates them), and the row's later
   * versions follow it there.
   */
  addVersion(row: number, lens: Uint16Array, base: number, keyChanged: Uint8Array | null = null): void {
    const states = this.states;
    for (let i = 0; i < states.length; i++) {
      const s = states[i]!;
      const rb = s.rowBucket;
      const size = this.entryBytes(s, lens, base);
      if (keyChanged !== null && keyChanged[i] === 1) {
        const old = rb !== null && row < rb.length ? rb[row]! : -1;
        if (old >= 0) this.retire(s, old, size);
        this.appendOne(s, row, lens, base, RANDOM_INSERT_FILL);
        s.deadEntries++;
        continue;
      }
      const b = rb !== null && row < rb.length && rb[row]! >= 0 ? rb[row]! : s.buckets - 1;
      this.retire(s, b, size);
      const used = s.used;
      used[b]! += size;
      const cap = this.capacity(s);
      if (used[b]! > s.pages[b]! * cap) {
        // Bottom-up / simple deletion first: entries of committed-dead versions go.
        used[b]! -= s.dead[b]!;
        s.entries -= Math.round(s.dead[b]! / size);
        s.dead[b] = 0;
        if (used[b]! > s.pages[b]! * cap) {
          s.pages[b]!++;
          s.leafPages++;
        }
      }
      s.entries++;
      s.deadEntries++;
    }
  }

  /** Read each row's leaf (MVCC indexes) before a batch of updates works on them, so the loads overlap; the sum means nothing. */
  prefetchRows(rows: Int32Array, count: number): number {
    let sum = 0;
    for (const s of this.states) {
      const rb = s.rowBucket;
      if (rb === null) continue;
      for (let i = 0; i < count; i++) {
        const r = rows[i]!;
        if (r < rb.length) sum += rb[r]!;
      }
    }
    return sum;
  }

  /** The row's old entry in leaf b belongs to a version that dies when the transaction commits. */
  private retire(s: IndexState, b: number, size: number): void {
    if (s.pend[b] === 0) s.touched.push(b);
    s.pend[b]! += size;
  }

  /** A row deleted: its entries die with the transaction (PostgreSQL). */
  remove(row: number, lens: Uint16Array, base: number): void {
    for (const s of this.states) {
      const b = s.rowBucket && row < s.rowBucket.length ? s.rowBucket[row]! : -1;
      if (b >= 0) this.retire(s, b, s.geometry.leafTupleBytes(lens, base) + s.geometry.slotBytes);
    }
  }

  /** Transaction end: the entries of the versions it replaced become removable. */
  commit(): void {
    for (const s of this.states) {
      for (const b of s.touched) {
        s.dead[b]! += s.pend[b]!;
        s.pend[b] = 0;
      }
      s.touched.length = 0;
    }
  }

  /** VACUUM: entries pointing at dead versions are removed; pages stay (empty ones are recycled, not returned). */
  vacuum(liveRows: number): void {
    this.commit();
    for (const s of this.states) {
      for (let b = 0; b < s.buckets; b++) {
        s.used[b] = Math.max(0, s.used[b]! - s.dead[b]!);
        s.dead[b] = 0;
      }
      s.entries = liveRows;
      s.deadEntries = 0;
    }
  }

  /** Pages of every index; `dataPages`: the table's data pages, the leaf level of a leaf-is-data clustered index. */
  pages(dataPages = 0): IndexPages {
    const by_index: Record<string, number> = Object.create(null);
    const levels: Record<string, number> = Object.create(null);
    const nonleaf_by_index: Record<string, number> = Object.create(null);
    let total = 0;
    for (const s of this.states) {
      const name = s.geometry.name;
      if (!this.built) {
        by_index[name] = levels[name] = nonleaf_by_index[name] = 0;
        continue;
      }
      const up = s.geometry.leafIsData ? upperPages(s.geometry, Math.max(1, dataPages), s.pivot) : upperPages(s.geometry, s.leafPages - s.gapPages, s.pivot);
      const n = s.geometry.metaPages + (s.geometry.leafIsData ? 0 : s.leafPages) + up.pages;
      by_index[name] = n;
      levels[name] = up.levels;
      nonleaf_by_index[name] = up.pages;
      total += n;
    }
    return { total, by_index, levels, nonleaf_by_index };
  }

  entries(): number {
    return this.states.reduce((a, s) => a + s.entries, 0);
  }

  memoryBytes(): number {
    return this.states.reduce((a, s) => a + s.used.byteLength + s.pages.byteLength + (s.rowBucket?.byteLength ?? 0), 0);
  }
}
