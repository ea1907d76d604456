/**
 * The indexes of a simulated table over a workload: built (as CREATE INDEX on the loaded table) at the
 * end of the first insert phase, then grown by later inserts and, on PostgreSQL, by the entry every
 * non-HOT update adds to every index.
 *
 * Two models. A PostgreSQL index (a geometry with `nbtree` rules) is simulated entry by entry at the
 * leaf level (nbtree.ts): every TID where its key sorts, deduplication, simple and bottom-up deletion,
 * splits as nbtsplitloc.c chooses them, VACUUM. Keys come from the run's key store (workload/keys.ts),
 * heap blocks from the engine. The other formats' indexes are modelled per built leaf ("buckets"): new
 * rows are appended at the right edge, leaves filled to the build fill.
 */
import { grown, lastAtMost } from '../util/arrays.js';
import { fillLevel, levelPages, reservedGapPages, upperPages, type IndexGeometry, type IndexPages } from './geometry.js';
import { InsertKind, NbtreeIndex, type BuildSource, type VersionState } from './nbtree.js';
import type { PageReads } from '../heap/page-reads.js';
import type { TableLayout } from '../layout/table-layout.js';
import { overLimit, PG_INDEX_TUPLE_MAX_BYTES, type OversizeEntry } from './entry-limit.js';

/** What the PostgreSQL (nbtree) indexes read of the run: the rows' keys, heap pages and stored lengths. */
export interface IndexEnv {
  /** Key of table column `col` in `row` (workload/keys.ts). */
  key(col: number, row: number): number;
  /** Is every row's key of the column its row id (rows in key order)? */
  keyIsRowId(col: number): boolean;
  /** The heap page of the row's current version. */
  rowPage(row: number): number;
  /** The row store's lengths now (the array is replaced as it grows). */
  lens(): Uint16Array;
  /** A scan through an index fetched a TID of a dead version on heap page `page` (the engine prunes it where the DBMS would). */
  visitBlock?(page: number): void;
}

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
  /** A PostgreSQL index simulated entry by entry (then the bucket fields below are unused). */
  nb: NbtreeIndex | null;

  /** Bytes of a leaf entry with its slot when every key column has one size (no varying column): −1 otherwise. */
  fixedEntryBytes: number;
  /** Where fixedEntryBytes is not −1: a leaf tuple's bytes (without its line pointer) and a pivot's, the same for every row. */
  fixedTupleBytes: number;
  fixedPivotBytes: number;
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

/** A deleted row's committed bound: above every version number (they are kept in an Int32Array). */
const ALL_DEAD = 0x7fffffff;

/** No index: the pages of a table without indexes. */
export const NO_INDEX_PAGES: IndexPages = Object.freeze({ total: 0, by_index: {}, levels: {}, nonleaf_by_index: {} });

export class IndexSet implements VersionState {
  private readonly states: IndexState[];
  private readonly width: number;
  built = false;
  /**
   * Versions, numbered as they are made (a TID's place within its heap block: a version made later sorts
   * after). Per row, its current version's number (null: every row's is its id, no row has a second
   * version yet) and, as of the last commit, the number below which its versions are dead (a deleted
   * row: all of them, ALL_DEAD); rows changed since the last commit took effect: a list, and once the
   * list would take more bytes than a bit a row (a transaction that changes most of a large table), a
   * bitmap that takes the rows from then on (see noteChanged).
   */
  private seqs: Int32Array | null = null;
  private committed: Int32Array | null = null;
  private nextSeq = 0;
  private changed = new Int32Array(64);
  private changedCount = 0;
  private changedBits: Int32Array | null = null;
  private readonly keyScratch: Float64Array;
  /** A batch's keys for prefetchRows. */
  private prefetchKeys = new Float64Array(0);
  /** The heap pages of the dead versions whose entries the last readPath fetched (PostgreSQL indexes). */
  readonly dead = { pages: new Int32Array(16), count: 0 };
  private readonly noteDead = (blk: number): void => {
    const d = this.dead;
    if (d.count >= d.pages.length) d.pages = grown(d.pages, d.count + 1);
    d.pages[d.count++] = blk;
  };
  /** Indexes with a largest entry that some row's entry could pass. */
  private readonly limited: IndexState[];

  /**
   * The indexes of `geometries` over rows of `width` stored lengths. `trackRows`: remember which leaf
   * holds each row's entry, for MVCC formats whose updates add entries next to the row's key.
   */
  constructor(
    geometries: readonly IndexGeometry[],
    layout: TableLayout,
    private readonly trackRows: boolean,
    private readonly env: IndexEnv | null = null,
  ) {
    this.width = layout.varying.length;
    const probe = new Uint16Array(Math.max(1, this.width));
    this.keyScratch = new Float64Array(Math.max(1, ...geometries.map((g) => g.columns.length)));
    const fixed = (g: IndexGeometry) => (g.entryColumns ?? g.columns).every((c) => layout.columns[c]!.varIndex < 0);
    this.states = geometries.map((g) => ({
      geometry: g,
      nb: g.nbtree && env ? new NbtreeIndex(g.columns.length, g.nbtree, this) : null,
      fixedEntryBytes: fixed(g) ? g.leafTupleBytes(probe, 0) + g.slotBytes : -1,
      fixedTupleBytes: fixed(g) ? g.leafTupleBytes(probe, 0) : -1,
      fixedPivotBytes: fixed(g) ? g.pivotBytes(probe, 0) : -1,
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
    // The longest row the schema allows: an index whose entry cannot pass its limit needs no check.
    const longest = new Uint16Array(Math.max(1, this.width));
    layout.varying.forEach((c, i) => (longest[i] = Math.min(c.variableType ? c.maxBytes : c.fixedBytes, 0xfffe)));
    this.limited = this.states.filter(
      (s) => s.geometry.maxTupleBytes !== undefined && s.geometry.leafTupleBytes(longest, 0) > s.geometry.maxTupleBytes,
    );
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
      if (s.nb) {
        this.buildNbtree(s, rows);
        continue;
      }
      // A clustered index whose leaf level is the data pages: only the levels above them are its own.
      if (s.geometry.leafIsData) continue;
      const size = (k: number) => s.geometry.leafTupleBytes(lens, rows.at(k) * w);
      const leaves = fillLevel(s.geometry, count, size, true, s.fixedEntryBytes >= 0 ? s.fixedEntryBytes - s.geometry.slotBytes : -1);
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

  /** CREATE INDEX of a PostgreSQL index: the live rows sorted by (key, TID), then nbtsort.c's build. */
  private buildNbtree(s: IndexState, rows: RowList): void {
    const env = this.env!;
    const g = s.geometry;
    const cols = g.columns;
    const w = this.width;
    const count = rows.count;
    let rowAt = (k: number) => rows.at(k);
    // Rows are in key order already when the leading column's keys are the row ids (distinct, ascending).
    if (!env.keyIsRowId(cols[0]!)) {
      const order = new Int32Array(count);
      for (let k = 0; k < count; k++) order[k] = rows.at(k);
      order.sort((a, b) => {
        for (const c of cols) {
          const ka = env.key(c, a);
          const kb = env.key(c, b);
          if (ka !== kb) return ka < kb ? -1 : 1;
        }
        return env.rowPage(a) - env.rowPage(b) || a - b;
      });
      rowAt = (k: number) => order[k]!;
    }
    // Entries of fixed-size columns only take the same bytes in every row: worked out once (the TIDs a leaf made real ask for each).
    const fixedTuple = s.fixedTupleBytes;
    const fixedPivot = s.fixedPivotBytes;
    const src: BuildSource = {
      rowAt,
      key: (c, row) => env.key(cols[c]!, row),
      block: (row) => env.rowPage(row),
      seq: (row) => this.seqOf(row),
      tupleBytes: fixedTuple >= 0 ? () => fixedTuple : (row) => g.leafTupleBytes(env.lens(), row * w),
      pivotBytes: fixedPivot >= 0 ? () => fixedPivot : (row) => g.pivotBytes(env.lens(), row * w),
    };
    if (count > 0) this.nextSeq = Math.max(this.nextSeq, rows.at(count - 1) + 1);
    s.nb!.build(count, src);
  }

  /** The row's key in index s, into the scratch array. */
  private keyOf(s: IndexState, row: number): Float64Array {
    const key = this.keyScratch;
    const cols = s.geometry.columns;
    for (let c = 0; c < cols.length; c++) key[c] = this.env!.key(cols[c]!, row);
    return key;
  }

  private seqOf(row: number): number {
    const a = this.seqs;
    return a !== null && row < a.length ? a[row]! : row;
  }

  /** A new version's number: after every version made before (a new row's id while no row has a second version). */
  private newSeq(row: number, insert: boolean): void {
    if (insert && this.seqs === null && row >= this.nextSeq) {
      this.nextSeq = row + 1;
      return;
    }
    let a = this.seqs;
    if (a === null || row >= a.length) {
      const old = a === null ? 0 : a.length;
      const next = a === null ? new Int32Array(Math.max(16, row + 1, this.nextSeq)) : grown(a, row + 1);
      for (let r = old; r < next.length; r++) next[r] = r;
      this.seqs = a = next;
    }
    if (this.nextSeq < row) this.seqBelowRow = true;
    if (this.txn !== null && !this.txn.rows.has(row)) this.txn.rows.set(row, a[row]!);
    a[row] = this.nextSeq++;
    if (this.txn !== null) this.txn.made.push(a[row]!);
    if (!insert) this.noteChanged(row, a.length);
  }

  /**
   * The row changed (its versions before the current one die at the commit): on the list, or in the
   * bitmap once the list is full and as long (in bytes) as a bit for each of the `rows` would be. A
   * transaction that may roll back keeps its rows on the list (ROLLBACK cuts the list back to its
   * start), the rows of the transactions before it staying in the bitmap. The commit reads both; a row
   * in both, or twice on the list, is set twice to the same bound.
   */
  private noteChanged(row: number, rows: number): void {
    let bits = this.changedBits;
    if (bits === null && this.txn === null && this.changedCount === this.changed.length && this.changedCount * 32 >= rows) {
      this.changedBits = bits = new Int32Array((rows + 31) >>> 5);
      for (let k = 0; k < this.changedCount; k++) bits[this.changed[k]! >>> 5]! |= 1 << (this.changed[k]! & 31);
      this.changed = new Int32Array(64);
      this.changedCount = 0;
    }
    if (bits !== null && this.txn === null) {
      if (row >>> 5 >= bits.length) this.changedBits = bits = grown(bits, (row >>> 5) + 1);
      bits[row >>> 5]! |= 1 << (row & 31);
      return;
    }
    if (this.changedCount === this.changed.length) this.changed = grown(this.changed, this.changedCount + 1);
    this.changed[this.changedCount++] = row;
  }

  /** The number below which the row's versions are dead as of the last commit (its id while it never changed). */
  private committedOf(row: number): number {
    const c = this.committed;
    return c !== null && row < c.length ? c[row]! : row;
  }

  /** VersionState: the version `seq` of `row` was replaced or deleted by a committed transaction, or made by one rolled back. */
  deletable(row: number, seq: number): boolean {
    return seq < this.committedOf(row) || (this.aborted !== null && seq < this.aborted.length && this.aborted[seq] === 1);
  }

  // ---- ROLLBACK and snapshots held (PostgreSQL indexes) ----------------------------------------

  /** Versions made by transactions rolled back (by number): their entries point at dead tuples. */
  private aborted: Uint8Array | null = null;
  /** The open transaction when it may end in ROLLBACK: each row's version number before it, the numbers it made, the changed list's length at its start. */
  private txn: { rows: Map<number, number>; made: number[]; changedAt: number } | null = null;
  /** A snapshot is held: commits leave their rows' old versions alive (changed rows wait until it is let go). */
  private holding = false;

  /** The transaction that starts now may end in ROLLBACK. */
  beginTransactionLog(): void {
    if (this.env === null) return;
    // Every row's version gets a number of its own from here on (a new row's is not its id alone).
    if (this.seqs === null) {
      const a = new Int32Array(Math.max(16, this.nextSeq));
      for (let r = 0; r < a.length; r++) a[r] = r;
      this.seqs = a;
    }
    this.txn = { rows: new Map(), made: [], changedAt: this.changedCount };
  }

  /** ROLLBACK: the versions the transaction made are dead at once; its rows' versions before it are current again. */
  abort(): void {
    const t = this.txn;
    this.txn = null;
    if (t === null) return;
    const top = Math.max(this.nextSeq, 16);
    if (this.aborted === null || this.aborted.length < top) this.aborted = grown(this.aborted ?? new Uint8Array(0), top);
    for (const q of t.made) this.aborted[q] = 1;
    const seqs = this.seqs!;
    for (const [row, before] of t.rows) seqs[row] = before;
    this.changedCount = t.changedAt;
  }

  /** A snapshot is taken (true) or let go (false): the rows its commits changed are committed once it is let go. */
  hold(on: boolean): void {
    this.holding = on;
    if (!on) this.commitVersions();
  }

  /**
   * VersionState: may some version be deletable? Not while no transaction that changed a row has
   * committed (every row's committed number is still its id) and no version was numbered below its row's
   * id (a row inserted after others changed): deletable() is then false for every version.
   */
  anyDeletable(): boolean {
    return this.committed !== null || this.seqBelowRow || this.aborted !== null;
  }
  /** Some version's number is below its row's id (see anyDeletable). */
  private seqBelowRow = false;

  /** Commit: each changed row's versions before its current one are dead (a deleted row's all). */
  private commitVersions(): void {
    this.txn = null;
    if ((this.changedCount === 0 && this.changedBits === null) || this.holding) return;
    let c = this.committed;
    const seqs = this.seqs!;
    if (c === null || c.length < seqs.length) {
      const old = c === null ? 0 : c.length;
      const next = new Int32Array(Math.max(16, seqs.length));
      if (c !== null) next.set(c);
      for (let r = old; r < next.length; r++) next[r] = r;
      this.committed = c = next;
    }
    const changed = this.changed;
    for (let k = 0; k < this.changedCount; k++) {
      const row = changed[k]!;
      c[row] = seqs[row]! < 0 ? ALL_DEAD : seqs[row]!;
    }
    this.changedCount = 0;
    const bits = this.changedBits;
    this.changedBits = null;
    if (bits === null) return;
    for (let wd = 0; wd < bits.length; wd++) {
      for (let word = bits[wd]!; word !== 0; word &= word - 1) {
        const row = (wd << 5) + (31 - Math.clz32(word & -word));
        c[row] = seqs[row]! < 0 ? ALL_DEAD : seqs[row]!;
      }
    }
  }

  /** A row's entry in a PostgreSQL index. */
  private insertNbtree(s: IndexState, row: number, lens: Uint16Array, base: number, kind: InsertKind): void {
    const g = s.geometry;
    s.nb!.insert(
      this.keyOf(s, row),
      row,
      this.env!.rowPage(row),
      this.seqOf(row),
      s.fixedTupleBytes >= 0 ? s.fixedTupleBytes : g.leafTupleBytes(lens, base),
      s.fixedPivotBytes >= 0 ? s.fixedPivotBytes : g.pivotBytes(lens, base),
      kind,
    );
  }

  /** A new row's entry: where its key sorts (PostgreSQL), else appended to the rightmost leaf, which splits at the build fill. */
  append(row: number, lens: Uint16Array, base: number): void {
    const states = this.states;
    if (this.env !== null) this.newSeq(row, true);
    for (let i = 0; i < states.length; i++) {
      const s = states[i]!;
      if (s.nb) this.insertNbtree(s, row, lens, base, InsertKind.Insert);
      else if (!s.geometry.leafIsData) this.appendOne(s, row, lens, base);
    }
  }

  /**
   * Before an update or delete changes the row: PostgreSQL indexes make the leaves holding its entries
   * real (their TIDs read the heap as it is before the change, whether or not an index finds the row);
   * when the row is found `throughIndex`, the first index marks the entries of the row's dead versions
   * LP_DEAD (an index scan's kill_prior_tuple).
   */
  locate(row: number, throughIndex = true): void {
    const env = this.env;
    if (env === null) return;
    for (let i = 0; i < this.states.length; i++) {
      const s = this.states[i]!;
      if (!s.nb) continue;
      const key = this.keyOf(s, row);
      s.nb.touch(key, env.rowPage(row), this.seqOf(row));
      // Only a row that has had another version can have entries of dead versions to visit and mark.
      if (throughIndex && i === 0 && this.seqOf(row) !== row) s.nb.kill(key, row, env.visitBlock, this.seqOf(row));
    }
  }

  /**
   * The row's first entry (indexes in the order they were created) larger than the server stores: over
   * INDEX_SIZE_MASK, as index_form_tuple refuses it, else over the index's largest item (BTMaxItemSize).
   * Null when every entry fits: the INSERT or UPDATE that adds them is accepted.
   */
  oversize(lens: Uint16Array, base: number): OversizeEntry | null {
    for (const s of this.limited) {
      const bytes = s.geometry.leafTupleBytes(lens, base);
      const over = overLimit(s.geometry, bytes);
      if (over) return over;
    }
    return null;
  }

  /**
   * The entry CREATE INDEX fails on, with its row, when the indexes are built over `rows` (in heap order),
   * indexes in the order they were created: the first tuple over INDEX_SIZE_MASK in heap order (formed as
   * the heap is scanned), else the first over the largest item in (key, TID) order (added as sorted).
   */
  buildOversize(rows: RowList, lens: Uint16Array): (OversizeEntry & { row: number }) | null {
    const w = this.width;
    for (const s of this.limited) {
      let sorted: (OversizeEntry & { row: number }) | null = null;
      for (let k = 0; k < rows.count; k++) {
        const row = rows.at(k);
        const over = overLimit(s.geometry, s.geometry.leafTupleBytes(lens, row * w));
        if (over === null) continue;
        if (over.limit === PG_INDEX_TUPLE_MAX_BYTES) return { ...over, row };
        if (sorted === null || this.sortsBefore(s, row, sorted.row)) sorted = { ...over, row };
      }
      if (sorted) return sorted;
    }
    return null;
  }

  /** Does row a's entry sort before row b's in index s: by key, then heap TID (page, then row id)? */
  private sortsBefore(s: IndexState, a: number, b: number): boolean {
    const env = this.env;
    if (env === null) return a < b;
    for (const c of s.geometry.columns) {
      const ka = env.key(c, a);
      const kb = env.key(c, b);
      if (ka !== kb) return ka < kb;
    }
    return env.rowPage(a) - env.rowPage(b) < 0 || (env.rowPage(a) === env.rowPage(b) && a < b);
  }

  /** Does any index have a limit some row could pass? */
  get hasLimit(): boolean {
    return this.limited.length > 0;
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
    for (const s of this.states) {
      if (s.nb) {
        s.upper = s.nb.upperLevels();
        continue;
      }
      const leaves = s.geometry.leafIsData ? dataPages : s.leafPages - s.gapPages;
      s.upper = levelPages(s.geometry, Math.max(1, leaves), s.pivot);
    }
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
    // The last built leaf whose first row is ≤ row: leaves hold rows in id order, so the row's share of
    // the ids guesses its leaf.
    if (b < 0) b = lastAtMost(fr, s.buckets, row, rowIds > 0 ? Math.floor((row / rowIds) * s.buckets) : 0);
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
    let killed = false;
    if (s.nb) {
      // The leaf with the row's entry (its page named by the leaf); the scan marks entries of the row's dead versions.
      const key = this.keyOf(s, row);
      at = s.nb.leafAt(key, this.env!.rowPage(row), this.seqOf(row));
      leaf = s.nb.leafId(at);
      span = Math.max(1, s.nb.liveLeaves());
      this.dead.count = 0;
      if (this.seqOf(row) !== row) killed = s.nb.kill(key, row, this.noteDead, this.seqOf(row));
    } else if (s.geometry.leafIsData) {
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
    // _bt_killitems: the scan dropped its pin on the leaf (an MVCC snapshot), so marking the entries it
    // found dead reads the leaf again [nbtree].
    if (killed) reads.indexPage(i, leaf);
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
    if (this.env !== null) this.newSeq(row, false);
    for (let i = 0; i < states.length; i++) {
      const s = states[i]!;
      if (s.nb) {
        this.insertNbtree(s, row, lens, base, keyChanged !== null && keyChanged[i] === 1 ? InsertKind.Changed : InsertKind.Unchanged);
        continue;
      }
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

  /** Read each row's leaf (MVCC indexes; a PostgreSQL index's leaf where the row's key goes) before a batch of updates works on them, so the loads overlap; the sum means nothing. */
  prefetchRows(rows: Int32Array, count: number): number {
    let sum = 0;
    for (const s of this.states) {
      if (s.nb) {
        if (this.env === null || s.geometry.columns.length !== 1) continue;
        if (this.prefetchKeys.length < count) this.prefetchKeys = new Float64Array(count);
        const keys = this.prefetchKeys;
        const env = this.env;
        const col = s.geometry.columns[0]!;
        for (let i = 0; i < count; i++) keys[i] = env.key(col, rows[i]!);
        sum += s.nb.prefetch(keys, count);
        // And each row's version number (read first by the update).
        const seqs = this.seqs;
        if (seqs !== null) for (let i = 0; i < count; i++) if (rows[i]! < seqs.length) sum += seqs[rows[i]!]!;
        continue;
      }
      const rb = s.rowBucket;
      if (rb === null) continue;
      for (let i = 0; i < count; i++) {
        const r = rows[i]!;
        if (r < rb.length) sum += rb[r]!;
      }
    }
    return sum;
  }

  /**
   * prefetchRows for a batch of index reads: a read finds its leaf from the leaves' bounds alone and
   * looks inside the leaf only for a row that has had another version (its dead versions' entries are
   * marked), so while no row has had one there is nothing to read ahead.
   */
  prefetchReads(rows: Int32Array, count: number): number {
    return this.seqs === null ? 0 : this.prefetchRows(rows, count);
  }

  /** The row's old entry in leaf b belongs to a version that dies when the transaction commits. */
  private retire(s: IndexState, b: number, size: number): void {
    if (s.pend[b] === 0) s.touched.push(b);
    s.pend[b]! += size;
  }

  /** A row deleted: its entries die with the transaction (PostgreSQL). */
  remove(row: number, lens: Uint16Array, base: number): void {
    if (this.env !== null) {
      // A deleted row has no current version: every version it had dies at the commit.
      this.newSeq(row, false);
      this.seqs![row] = -1;
    }
    for (const s of this.states) {
      if (s.nb) continue;
      const b = s.rowBucket && row < s.rowBucket.length ? s.rowBucket[row]! : -1;
      if (b >= 0) this.retire(s, b, s.geometry.leafTupleBytes(lens, base) + s.geometry.slotBytes);
    }
  }

  /** Transaction end: the entries of the versions it replaced become removable. */
  commit(): void {
    this.commitVersions();
    for (const s of this.states) {
      if (s.nb) continue;
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
      if (s.nb) {
        s.nb.vacuum();
        continue;
      }
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
      if (s.nb) {
        // Pages of a relation are not given back: every page it ever had, deleted and free ones too.
        by_index[name] = s.geometry.metaPages + s.nb.relationPages();
        levels[name] = s.nb.upperLevels().length + 1;
        nonleaf_by_index[name] = s.nb.upperPages();
        total += by_index[name]!;
        continue;
      }
      const up = s.geometry.leafIsData
        ? upperPages(s.geometry, Math.max(1, dataPages), s.pivot)
        : upperPages(s.geometry, s.leafPages - s.gapPages, s.pivot);
      const n = s.geometry.metaPages + (s.geometry.leafIsData ? 0 : s.leafPages) + up.pages;
      by_index[name] = n;
      levels[name] = up.levels;
      nonleaf_by_index[name] = up.pages;
      total += n;
    }
    return { total, by_index, levels, nonleaf_by_index };
  }

  entries(): number {
    return this.states.reduce((a, s) => a + (s.nb ? s.nb.tids : s.entries), 0);
  }

  memoryBytes(): number {
    return this.states.reduce(
      (a, s) => a + s.used.byteLength + s.pages.byteLength + (s.rowBucket?.byteLength ?? 0) + (s.nb?.memoryBytes() ?? 0),
      (this.seqs?.byteLength ?? 0) + (this.committed?.byteLength ?? 0),
    );
  }
}
