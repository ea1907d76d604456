/**
 * A PostgreSQL B-tree (nbtree) simulated entry by entry at the leaf level: every heap TID an index holds,
 * in key order, grouped into index tuples (a plain tuple or a posting list of several TIDs of one key),
 * on leaf pages that fill, deduplicate, delete and split as nbtree does. The levels above the leaves
 * are sized from the leaf count (geometry.ts, as nbtsort.c builds them).
 *
 * What happens to a leaf, as the PostgreSQL source does it (the rules' numbers come from the format,
 * src/formats/postgres.ts, which cites them; docs/engines.md, "Index sizes"):
 *   - CREATE INDEX (nbtsort.c): the TIDs sorted by (key, TID); equal keys merged into posting lists of at
 *     most `buildPostingBytes` when the index deduplicates (not for a unique index); leaves filled to the
 *     fillfactor, the last tuple moving to the next page, a posting list's TIDs not counted in the page's
 *     last tuple (it becomes the truncated high key).
 *   - An insert goes where its (key, TID) sorts. When the page has no room (nbtinsert.c
 *     _bt_findinsertloc, _bt_delete_or_dedup_one_page): tuples marked LP_DEAD go first, with every
 *     deletable TID on their heap blocks and the new item's (simple deletion); then, for an UPDATE that
 *     left this index's columns alone (or a unique index with duplicates of the key), a bottom-up
 *     deletion pass (nbtdedup.c _bt_bottomupdel_pass with heapam.c's limits: at most 6 heap blocks, the
 *     most promising first, stopping once a block frees nothing or the space target, halved for every
 *     block that is not next to the last, is met); then a deduplication pass (nbtdedup.c _bt_dedup_pass:
 *     posting lists of at most `maxPostingBytes`, the single-value strategy); then a split.
 *   - A split (nbtsplitloc.c _bt_findsplitloc) weighs every split point by the free space it leaves on
 *     each side: the rightmost leaf is split to leave the left page `leafFillfactor` full, others 50:50,
 *     within 5% of the best balance the point that truncates the new high key most; pages of duplicates
 *     split at the edge of the group (many duplicates) or leave the left page 96% full (single value).
 *   - An index scan that finds a row's old versions dead marks their tuples LP_DEAD (nbtutils.c
 *     _bt_killitems; a posting list only when every TID in it is dead).
 *   - VACUUM removes every TID of a dead version; a leaf left empty is deleted (not the rightmost), and
 *     its page is reused by later splits once a later VACUUM finds it recyclable (nbtpage.c).
 * Leaves of a build stay virtual (sizes only) until an operation touches them: a large load costs no
 * per-entry memory until it changes.
 *
 * How the TIDs are kept (for speed and memory only; no figure depends on it): every leaf's TIDs are in
 * one arena (class Arena: a Float64Array of keys and an Int32Array of three or four words a TID, in
 * blocks of SEG TIDs), a leaf holding a run of blocks, so that reading a TID takes one load from memory
 * after the leaf's own fields rather than a chain through arrays of its own. A TID's words are its heap
 * block, its place in the block and its row, and a fourth of its tuple's and pivot's bytes and its flags
 * (LP_DEAD, a tuple's first TID); while every TID's tuple takes the same bytes (a fixed-size key) and
 * every heap block is below 2^30, those bytes are kept once for the arena and the flags in the block
 * number's top two bits: three words, 12 bytes a TID (the first TID that does not fit turns the arena to
 * four words for good). While every TID's key is its row id (one key column whose keys are the loaded
 * rows' ids, as an id primary key's), the keys are not kept at all. A leaf taking inserts is laid out
 * in segments (one block each, 61 of its 64 slots filled), so an insert moves the TIDs after it in its
 * segment only; a full segment splits in two while the leaf's run has a block to spare (else the leaf
 * is laid out anew); every other operation (deletion passes, deduplication, splits, scans, VACUUM)
 * first makes the leaf contiguous again. Runs a leaf gives back when it grows or splits are reused, and
 * the arena slides its runs together when they are an eighth of it (the memory the arena takes is the
 * most blocks it ever handed out at once, so runs given back and not yet reused cost as much as TIDs).
 * An insert's search in a leaf starts from a guess (position()) and touches few of its TIDs; before a
 * batch of updates, prefetch() reads what their inserts will read first, so that those cache misses
 * overlap.
 */
import { splitInterval, UpperLevels } from './nbtree-upper.js';

/** The numbers an nbtree lives by, from the format (src/formats/postgres.ts). */
export interface NbtreeRules {
  /** BLCKSZ. */
  blockBytes: number;
  /** Bytes an empty page offers for items and line pointers: BLCKSZ − page header − special space. */
  pageRoomBytes: number;
  lineBytes: number;
  maxalign: number;
  /** sizeof(ItemPointerData): a heap TID in a posting list. */
  tidBytes: number;
  /** MAXALIGN(sizeof(ItemPointerData)): the heap TID a high key may need. */
  pivotTidBytes: number;
  /** Leaf fillfactor (the index's; 90 by default) and the fillfactor of the levels above (BTREE_NONLEAF_FILLFACTOR). */
  leafFillfactor: number;
  nonLeafFillfactor: number;
  /** Bytes of a non-leaf page's bare first ("minus infinity") item. */
  minusInfinityBytes: number;
  /** BTREE_SINGLEVAL_FILLFACTOR. */
  singleValueFillfactor: number;
  /** BTMaxItemSize: the largest index tuple. */
  maxItemBytes: number;
  /** A deduplication pass's posting list limit (BTMaxItemSize / 2). */
  maxPostingBytes: number;
  /** CREATE INDEX's posting list limit. */
  buildPostingBytes: number;
  /** deduplicate_items on and every key column's operator class equalimage. */
  dedup: boolean;
  unique: boolean;
  /** Bottom-up deletion's space target (BLCKSZ / 16) and the free space after which it skips deduplication (BLCKSZ / 24). */
  bottomUpTargetBytes: number;
  bottomUpEnoughBytes: number;
  /** heapam.c: the most heap blocks a bottom-up pass visits, and how far apart blocks may be to count as contiguous. */
  bottomUpMaxBlocks: number;
  bottomUpToleranceBlocks: number;
  /** nbtsplitloc.c LEAF_SPLIT_DISTANCE. */
  leafSplitDistance: number;
  /** nbtdedup.c: the single-value strategy stops after this many full-size posting lists, counting those of more than `singleValueTids` TIDs. */
  singleValueMaxItems: number;
  singleValueTids: number;
}

/** Row versions: whether a TID's version is dead to every transaction (its entry may go). */
export interface VersionState {
  /** The version of `row` made as `seq` (its TID's place, see BuildSource.seq) is replaced or deleted by a committed transaction. */
  deletable(row: number, seq: number): boolean;
  /**
   * False only when no version of any row can be deletable (no transaction that changed a row has
   * committed yet): a bottom-up pass then has nothing to find and only its answer is worked out. Absent:
   * assumed true.
   */
  anyDeletable?(): boolean;
}

/** The heap side of a virtual leaf's TIDs: the built list (row ids in key order) and each row's facts. */
export interface BuildSource {
  /** The k-th TID of the build, as a row id. */
  rowAt(k: number): number;
  /** Key column c (0 … m − 1 of the index) of a row. */
  key(c: number, row: number): number;
  /** The heap block of the row's current version, and its TID's place within the block: versions are numbered as they are made, so a later one sorts after (and names the version). */
  block(row: number): number;
  seq(row: number): number;
  /** Bytes of the row's plain leaf tuple (MAXALIGNed) and of a pivot holding its first key column. */
  tupleBytes(row: number): number;
  pivotBytes(row: number): number;
}

const HEAD = 1;
const DEAD = 2;

/** How a new TID comes: a new row, an UPDATE that left this index's columns alone, or one that changed them. */
export const enum InsertKind {
  Insert = 0,
  Unchanged = 1,
  Changed = 2,
}

/**
 * Per TID in the arena's `meta`, words of 32 bits. Wide (META words): heap block, place in the block,
 * row, and packed (plain tuple bytes, first-column pivot bytes, flags). Narrow (NARROW words), while
 * every TID's tuple and pivot take the same bytes (the arena's `base` and `piv`: a fixed-size key) and
 * every heap block is below 2^30: heap block and flags (its top two bits), place in the block, row.
 */
const META = 4;
const NARROW = 3;
const BYTES_MASK = 0x3fff;
const PIV_SHIFT = 14;
const FLAG_SHIFT = 28;
const NARROW_FLAG_SHIFT = 30;
const NARROW_BLK_MASK = 0x3fffffff;
/** The fewest TIDs a leaf's arrays grow by. */
const LEAF_GROWTH_MIN = 32;
/**
 * A leaf taking inserts is kept in segments of SEG slots, each filled to SEG_FILL when they are laid out,
 * so that an insert moves the TIDs after it in its segment only, not in the whole leaf. Only leaves of
 * SEG_MIN_TIDS or more are laid out so, after SEG_AFTER_INSERTS inserts since the leaf was last
 * contiguous (a leaf that meets a full page every few inserts stays contiguous).
 */
const SEG = 64;
const SEG_FILL = 61;
const SEG_MIN_TIDS = 96;
const SEG_AFTER_INSERTS = 4;
/** The most TIDs an insert moves in a loop of its own; more take copyWithin (whose call costs about as much as moving 8 TIDs in a loop). */
const SHORT_MOVE = 8;
/** How much the arena grows when it is full. */
const ARENA_GROWTH = 1.5;
/** The fewest blocks given back that make the arena compact itself, and the share of its blocks (1 / ARENA_COMPACT_SHARE) they must be. */
const ARENA_COMPACT_MIN_BLOCKS = 64;
const ARENA_COMPACT_SHARE = 8;
/** A build reserves room in the arena for its leaves made real and this many times over (pages never written take no memory). */
const ARENA_BUILD_RESERVE = 2.5;

/**
 * The leaves' TIDs, all in two arrays (keys, m a TID; META words a TID) cut into blocks of SEG TIDs: a
 * leaf holds a run of blocks. One array for every leaf means a TID is read at one remove from the leaf
 * (not through arrays of its own, each a load that may miss the cache first). A leaf that grows takes a
 * longer run and gives its old one back; runs given back are reused by size, first.
 */
class Arena {
  keys: Float64Array;
  meta: Int32Array;
  /** Words a TID: NARROW, until a TID comes that the narrow layout cannot hold (wide()), then META. */
  w = NARROW;
  /** While narrow, every TID's plain tuple bytes and first-column pivot bytes (−1: no TID yet). */
  base = -1;
  piv = -1;
  /** Per block, the TIDs in it while its leaf is laid out in segments. */
  segN: Int32Array;
  /** Blocks handed out from the start (those after are free), and the most there were. */
  top = 0;
  private highWater = 0;
  /** Runs given back, by their length in blocks: their first blocks. */
  private readonly free: number[][] = [];
  /** Blocks in runs given back. */
  freeBlocks = 0;

  /** Called before the arena extends its runs while runs given back make up an eighth of them (a sixteenth, when it must grow): it slides the runs in use down (compacted()). */
  onWaste: (() => void) | null = null;

  /**
   * Every TID's key is its row id (one key column, the ids of rows loaded in key order, as an id primary
   * key's are): the keys are not kept (`keys` is empty) and a TID's key is read from its row word, until
   * a TID with another key comes (explicit()).
   */
  implicit: boolean;

  /** The most blocks the arrays can hold (a typed array holds at most 2^32 − 1 elements). */
  private readonly maxBlocks: number;

  constructor(readonly m: number) {
    this.maxBlocks = Math.floor((2 ** 32 - 1) / (SEG * Math.max(m, META)));
    this.implicit = m === 1;
    this.keys = new Float64Array(this.implicit ? 0 : 16 * SEG * m);
    this.meta = new Int32Array(16 * SEG * NARROW);
    this.segN = new Int32Array(16);
  }

  /** A run of k blocks: its first block. The arrays may be replaced (read them again after). */
  alloc(k: number): number {
    const list = this.free[k];
    if (list !== undefined && list.length > 0) {
      this.freeBlocks -= k;
      return list.pop()!;
    }
    if (this.onWaste !== null && this.freeBlocks >= ARENA_COMPACT_MIN_BLOCKS && this.freeBlocks * ARENA_COMPACT_SHARE >= this.top)
      this.onWaste();
    let need = this.top + k;
    // Before growing, slide the runs together if that wins a sixteenth.
    if (need > this.segN.length && this.onWaste !== null && this.freeBlocks * 16 >= this.top) {
      this.onWaste();
      need = this.top + k;
    }
    if (need > this.segN.length) {
      if (need > this.maxBlocks)
        throw new Error(`nbtree: an index of more than ${this.maxBlocks * SEG} TIDs' room (a typed array holds at most 2^32 − 1 elements)`);
      this.grow(Math.min(this.maxBlocks, Math.max(need, Math.ceil(this.segN.length * ARENA_GROWTH))));
    }
    const at = this.top;
    this.top += k;
    if (this.top > this.highWater) this.highWater = this.top;
    return at;
  }

  /** Run [from, from + k) moved to start at block `to` (to < from, or runs that do not overlap). */
  moveRun(from: number, to: number, k: number): void {
    const m = this.m;
    if (!this.implicit) this.keys.copyWithin(to * SEG * m, from * SEG * m, (from + k) * SEG * m);
    const w = this.w;
    this.meta.copyWithin(to * SEG * w, from * SEG * w, (from + k) * SEG * w);
    this.segN.copyWithin(to, from, from + k);
  }

  /** After the runs in use were slid down to [0, top): no runs given back. */
  compacted(top: number): void {
    this.top = top;
    this.free.length = 0;
    this.freeBlocks = 0;
  }

  release(at: number, k: number): void {
    if (k === 0) return;
    (this.free[k] ??= []).push(at);
    this.freeBlocks += k;
  }

  /**
   * Bytes of the blocks ever handed out (the arrays' pages past the most blocks in use at once are
   * never written, so they take no memory: an arena reserved for a build's leaves costs only what the
   * leaves made real use).
   */
  bytes(): number {
    return this.highWater * (SEG * ((this.implicit ? 0 : this.m * 8) + this.w * 4) + 4);
  }

  /** Keep the keys from now on: every TID's key so far is its row id. */
  explicit(): void {
    if (!this.implicit) return;
    const keys = new Float64Array(this.segN.length * SEG);
    const meta = this.meta;
    const n = this.top * SEG;
    const w = this.w;
    for (let j = 0; j < n; j++) keys[j] = meta[j * w + 2]!;
    this.keys = keys;
    this.implicit = false;
  }

  /** Can the layout hold a TID of heap block `blk` whose tuple takes `base` bytes (`piv` as a pivot)? Narrow: the first TID sets the bytes every TID must have. */
  holds(blk: number, base: number, piv: number): boolean {
    if (this.w === META) return true;
    if (this.base < 0) {
      this.base = base;
      this.piv = piv;
    }
    return base === this.base && piv === this.piv && blk >= 0 && blk <= NARROW_BLK_MASK;
  }

  /** Keep META words a TID from now on (the arrays are replaced). */
  wide(): void {
    if (this.w === META) return;
    const from = this.meta;
    const meta = new Int32Array(this.segN.length * SEG * META);
    const bytes = this.base | (this.piv << PIV_SHIFT);
    const n = this.top * SEG;
    for (let j = 0; j < n; j++) {
      const o = j * NARROW;
      const w0 = from[o]!;
      const q = j * META;
      meta[q] = w0 & NARROW_BLK_MASK;
      meta[q + 1] = from[o + 1]!;
      meta[q + 2] = from[o + 2]!;
      meta[q + 3] = bytes | ((w0 >>> NARROW_FLAG_SHIFT) << FLAG_SHIFT);
    }
    this.meta = meta;
    this.w = META;
  }

  /** Room for `blocks` blocks without growing (reserved, not written). */
  reserve(blocks: number): void {
    blocks = Math.min(blocks, this.maxBlocks);
    if (blocks > this.segN.length) this.grow(blocks);
  }

  private grow(blocks: number): void {
    const used = this.top;
    const keys = this.implicit ? this.keys : new Float64Array(blocks * SEG * this.m);
    if (!this.implicit) keys.set(this.keys.subarray(0, used * SEG * this.m));
    const meta = new Int32Array(blocks * SEG * this.w);
    meta.set(this.meta.subarray(0, used * SEG * this.w));
    const segN = new Int32Array(blocks);
    segN.set(this.segN.subarray(0, used));
    this.keys = keys;
    this.meta = meta;
    this.segN = segN;
  }
}

/** Blocks for n TIDs and LEAF_GROWTH_MIN more. */
function blocksFor(n: number): number {
  return Math.ceil((n + LEAF_GROWTH_MIN) / SEG);
}

/** One leaf page: its TIDs in (key, TID) order, each tuple's first TID flagged HEAD. */
class Leaf {
  n = 0;
  /** Bytes of the data items and their line pointers. */
  used = 0;
  /** Bytes of the high key and its line pointer (0 on the rightmost leaf). */
  hikey = 0;
  /** Tuples marked LP_DEAD. */
  dead = 0;
  /** A built leaf not yet materialised: its TIDs are the build's [vFrom, vTo). */
  vFrom = -1;
  vTo = -1;
  /** The leaf's run of blocks in the arena: its first block and their count (0: none yet, a virtual leaf). Slot j of the leaf is the arena's TID at·SEG + j. */
  at = 0;
  blocks = 0;
  /**
   * Laid out in segments (nseg > 0): segment s is the leaf's block s, holding its first segN[at + s]
   * slots, in order, segment after segment; TID i (its place in the leaf's order) is at slot(i).
   * Otherwise (nseg 0) TID i is at slot i. Everything but an insert's search and placing works on a
   * contiguous leaf (flatten()).
   */
  nseg = 0;
  /** Inserts since the leaf was last made contiguous. */
  flatInserts = 0;

  /** A leaf of `blocks` blocks' room (0: a virtual leaf). */
  constructor(
    readonly m: number,
    readonly id: number,
    readonly arena: Arena,
    blocks: number,
  ) {
    if (blocks > 0) {
      this.at = arena.alloc(blocks);
      this.blocks = blocks;
    }
  }

  /** The arena index of slot j's first key column (keys) and first word (meta). */
  k0(j: number): number {
    return (this.at * SEG + j) * this.m;
  }
  m0(j: number): number {
    return (this.at * SEG + j) * this.arena.w;
  }

  key(j: number, c: number): number {
    const a = this.arena;
    return a.implicit ? a.meta[(this.at * SEG + j) * a.w + 2]! : a.keys[(this.at * SEG + j) * this.m + c]!;
  }
  blkAt(j: number): number {
    const a = this.arena;
    const v = a.meta[(this.at * SEG + j) * a.w]!;
    return a.w === NARROW ? v & NARROW_BLK_MASK : v;
  }
  seqAt(j: number): number {
    const a = this.arena;
    return a.meta[(this.at * SEG + j) * a.w + 1]!;
  }
  rowAt(j: number): number {
    const a = this.arena;
    return a.meta[(this.at * SEG + j) * a.w + 2]!;
  }
  baseAt(j: number): number {
    const a = this.arena;
    return a.w === NARROW ? a.base : a.meta[(this.at * SEG + j) * META + 3]! & BYTES_MASK;
  }
  pivAt(j: number): number {
    const a = this.arena;
    return a.w === NARROW ? a.piv : (a.meta[(this.at * SEG + j) * META + 3]! >>> PIV_SHIFT) & BYTES_MASK;
  }
  flagAt(j: number): number {
    const a = this.arena;
    return a.w === NARROW
      ? a.meta[(this.at * SEG + j) * NARROW]! >>> NARROW_FLAG_SHIFT
      : a.meta[(this.at * SEG + j) * META + 3]! >>> FLAG_SHIFT;
  }
  setFlag(j: number, f: number): void {
    const a = this.arena;
    const meta = a.meta;
    if (a.w === NARROW) {
      const o = (this.at * SEG + j) * NARROW;
      meta[o] = (meta[o]! & NARROW_BLK_MASK) | (f << NARROW_FLAG_SHIFT);
    } else {
      const o = (this.at * SEG + j) * META + 3;
      meta[o] = (meta[o]! & ((1 << FLAG_SHIFT) - 1)) | (f << FLAG_SHIFT);
    }
  }
  set(j: number, key: Float64Array, row: number, blk: number, seq: number, base: number, piv: number, flag: number): void {
    const m = this.m;
    const a = this.arena;
    if (a.implicit && key[0] !== row) a.explicit();
    if (!a.implicit) {
      const keys = a.keys;
      const k = (this.at * SEG + j) * m;
      for (let c = 0; c < m; c++) keys[k + c] = key[c]!;
    }
    this.setMeta(j, row, blk, seq, base, piv, flag);
  }
  setMeta(j: number, row: number, blk: number, seq: number, base: number, piv: number, flag: number): void {
    const a = this.arena;
    if (!a.holds(blk, base, piv)) a.wide();
    const meta = a.meta;
    if (a.w === NARROW) {
      const o = (this.at * SEG + j) * NARROW;
      meta[o] = blk | (flag << NARROW_FLAG_SHIFT);
      meta[o + 1] = seq;
      meta[o + 2] = row;
    } else {
      const o = (this.at * SEG + j) * META;
      meta[o] = blk;
      meta[o + 1] = seq;
      meta[o + 2] = row;
      meta[o + 3] = base | (piv << PIV_SHIFT) | (flag << FLAG_SHIFT);
    }
  }
  /** Slot j's key column c (a materialised TID, its words set first). */
  setKey(j: number, c: number, v: number): void {
    const a = this.arena;
    if (a.implicit) {
      if (v === this.rowAt(j)) return;
      a.explicit();
    }
    a.keys[(this.at * SEG + j) * this.m + c] = v;
  }

  /** Room for n TIDs (contiguous leaf): a leaf grows to the blocks n TIDs and LEAF_GROWTH_MIN more need (blocksFor), not by doubling, so its run stays near its size. */
  ensure(n: number): void {
    if (n > this.blocks * SEG) this.move(blocksFor(n));
  }

  /** A new run of k blocks (contiguous leaf), the TIDs copied, the old run given back. */
  private move(k: number): void {
    const a = this.arena;
    const at = a.alloc(k);
    const m = this.m;
    if (!a.implicit) a.keys.copyWithin(at * SEG * m, this.at * SEG * m, (this.at * SEG + this.n) * m);
    const w = a.w;
    a.meta.copyWithin(at * SEG * w, this.at * SEG * w, (this.at * SEG + this.n) * w);
    a.release(this.at, this.blocks);
    this.at = at;
    this.blocks = k;
  }

  /** After a split: a run no longer than the TIDs left need (contiguous leaf). */
  fit(): void {
    const k = blocksFor(this.n);
    if (this.blocks > k + 1) this.move(k);
  }

  /** The run given back (a deleted leaf). */
  release(): void {
    this.arena.release(this.at, this.blocks);
    this.at = 0;
    this.blocks = 0;
    this.n = 0;
  }

  /** Copy `count` TIDs from slot `from` to slot `to` of this leaf (overlapping runs as memmove does). */
  private copy(to: number, from: number, count: number): void {
    const a = this.arena;
    const m = this.m;
    const b = this.at * SEG;
    if (!a.implicit) a.keys.copyWithin((b + to) * m, (b + from) * m, (b + from + count) * m);
    const w = a.w;
    a.meta.copyWithin((b + to) * w, (b + from) * w, (b + from + count) * w);
  }

  /** Open a gap of one TID at i (contiguous leaf). */
  openAt(i: number): void {
    this.ensure(this.n + 1);
    this.copy(i + 1, i, this.n - i);
    this.n++;
  }

  /** The slot of TID i (i < n). */
  slot(i: number): number {
    if (this.nseg === 0) return i;
    const c = this.arena.segN;
    let s = this.at;
    while (i >= c[s]!) {
      i -= c[s]!;
      s++;
    }
    return (s - this.at) * SEG + i;
  }

  /** Lay a contiguous leaf out in segments filled evenly to at most SEG_FILL (the last TIDs move first, so none is overwritten). */
  spread(): void {
    const n = this.n;
    const nseg = Math.max(1, Math.ceil(n / SEG_FILL));
    this.ensure(nseg * SEG);
    const per = Math.floor(n / nseg);
    const extra = n % nseg;
    const segN = this.arena.segN;
    for (let s = nseg - 1; s >= 0; s--) {
      const cnt = per + (s < extra ? 1 : 0);
      const from = s * per + Math.min(s, extra);
      if (from !== s * SEG) this.copy(s * SEG, from, cnt);
      segN[this.at + s] = cnt;
    }
    this.nseg = nseg;
  }

  /** Make a segmented leaf contiguous again (TID i at slot i). */
  flatten(): void {
    this.flatInserts = 0;
    if (this.nseg === 0) return;
    const segN = this.arena.segN;
    let w = 0;
    for (let s = 0; s < this.nseg; s++) {
      const cnt = segN[this.at + s]!;
      if (cnt > 0 && w !== s * SEG) this.copy(w, s * SEG, cnt);
      w += cnt;
    }
    this.nseg = 0;
  }

  /** Open a gap for a new TID i (i ≤ n) and return its slot: in a segment with room, else in a full segment split in two (a block to spare), else laid out anew. */
  openSlot(i: number): number {
    if (this.nseg === 0) {
      this.openAt(i);
      return i;
    }
    const c = this.arena.segN;
    const first = this.at;
    let acc = 0;
    for (let s = 0; s < this.nseg; s++) {
      const cnt = c[first + s]!;
      if (i <= acc + cnt) {
        let seg = s;
        let o = i - acc;
        if (cnt === SEG) {
          // The end of a full segment is also the start of the next.
          if (o === cnt && s + 1 < this.nseg && c[first + s + 1]! < SEG) {
            seg = s + 1;
            o = 0;
          } else if (this.nseg < this.blocks) {
            this.splitSegment(s);
            return this.openSlot(i);
          } else {
            this.flatten();
            this.spread();
            return this.openSlot(i);
          }
        }
        const at = seg * SEG + o;
        const end = seg * SEG + c[first + seg]!;
        if (end - at > SHORT_MOVE) this.copy(at + 1, at, end - at);
        else {
          // A short move: a loop costs less than copyWithin's call.
          const m = this.m;
          const b = this.at * SEG;
          const keys = this.arena.keys;
          const meta = this.arena.meta;
          if (!this.arena.implicit) for (let w = (b + end) * m - 1; w >= (b + at) * m; w--) keys[w + m] = keys[w]!;
          const tw = this.arena.w;
          for (let w = (b + end) * tw - 1; w >= (b + at) * tw; w--) meta[w + tw] = meta[w]!;
        }
        c[first + seg]!++;
        this.n++;
        return at;
      }
      acc += cnt;
    }
    throw new Error(`nbtree: TID ${i} is past the leaf's ${this.n}`);
  }

  /**
   * Split full segment s in two, with a block to spare after the last segment: the segments after it
   * move up a block, its second half to the block that frees (cheaper than laying the leaf out anew).
   */
  private splitSegment(s: number): void {
    const segN = this.arena.segN;
    const first = this.at;
    const after = this.nseg - s - 1;
    if (after > 0) {
      this.copy((s + 2) * SEG, (s + 1) * SEG, after * SEG);
      segN.copyWithin(first + s + 2, first + s + 1, first + this.nseg);
    }
    const half = SEG >> 1;
    this.copy((s + 1) * SEG, s * SEG + half, SEG - half);
    segN[first + s] = half;
    segN[first + s + 1] = SEG - half;
    this.nseg++;
  }

  /** The slot of the last TID of the tuple TID i is in (TID i is not its first). */
  lastInTuple(i: number): number {
    if (this.nseg === 0) return this.tupleEnd(i) - 1;
    const c = this.arena.segN;
    const first = this.at;
    let s = 0;
    let o = i;
    while (o >= c[first + s]!) {
      o -= c[first + s]!;
      s++;
    }
    let prev = s * SEG + o;
    for (;;) {
      o++;
      while (s < this.nseg && o >= c[first + s]!) {
        o = 0;
        s++;
      }
      if (s >= this.nseg) break;
      const p = s * SEG + o;
      if (this.flagAt(p) & HEAD) break;
      prev = p;
    }
    return prev;
  }

  /** Keep the TIDs whose keep[i] is 1, in order (contiguous leaf). */
  compact(keep: Uint8Array): void {
    const m = this.m;
    const keys = this.arena.keys;
    const meta = this.arena.meta;
    const tw = this.arena.w;
    const b = this.at * SEG;
    let w = 0;
    for (let i = 0; i < this.n; i++) {
      if (!keep[i]) continue;
      if (w !== i) {
        if (!this.arena.implicit) for (let c = 0; c < m; c++) keys[(b + w) * m + c] = keys[(b + i) * m + c]!;
        for (let c = 0; c < tw; c++) meta[(b + w) * tw + c] = meta[(b + i) * tw + c]!;
      }
      w++;
    }
    this.n = w;
  }

  /** The index of the TID after tuple i's last (contiguous leaf). */
  tupleEnd(i: number): number {
    let j = i + 1;
    while (j < this.n && (this.flagAt(j) & HEAD) === 0) j++;
    return j;
  }

  /**
   * Take TIDs [from, n) into a new leaf (contiguous leaf). This leaf keeps its run: the caller fits it
   * (fit()) once the new leaf is among the index's leaves, since a run taken for it may make the arena
   * slide the leaves' runs together, and a leaf it does not know of would be overwritten.
   */
  splitOff(from: number, id: number): Leaf {
    const moved = this.n - from;
    const right = new Leaf(this.m, id, this.arena, blocksFor(moved));
    const a = this.arena;
    const m = this.m;
    if (!a.implicit) a.keys.copyWithin(right.at * SEG * m, (this.at * SEG + from) * m, (this.at * SEG + this.n) * m);
    const w = a.w;
    a.meta.copyWithin(right.at * SEG * w, (this.at * SEG + from) * w, (this.at * SEG + this.n) * w);
    right.n = moved;
    this.n = from;
    return right;
  }
}

export class NbtreeIndex {
  private leaves: Leaf[] = [];
  /** Per leaf, the smallest (key …, block, place in block) it holds: stride m + 2; the first leaf's is −∞. Room to spare after the last leaf's. */
  private lows = new Float64Array(0);
  /** Per leaf, its page name (Leaf.id), beside its low bound so that a read need not load the leaf. */
  private ids = new Int32Array(0);
  private nextId = 0;
  /** Pages of the relation but its metapage (leaves and the levels above: in use, deleted and waiting, free for reuse). */
  private allocated = 0;
  private deletedPending = 0;
  private freePages = 0;
  /** The levels above the leaves. */
  private readonly upper: UpperLevels;
  /** Writes since the last VACUUM (a page deleted then becomes recyclable at the next one). */
  private writesSinceVacuum = false;
  /** TIDs held (live and dead). */
  tids = 0;
  private readonly m: number;
  private readonly stride: number;
  private src: BuildSource | null = null;
  private readonly scratchKey: Float64Array;
  /** The leaves' arrays given back, for reuse. */
  private arena: Arena;
  // What the index did, counted (tests read them).
  dedupPasses = 0;
  bottomUpPasses = 0;
  bottomUpDeleted = 0;
  simpleDeleted = 0;
  splits = 0;

  constructor(
    m: number,
    private readonly rules: NbtreeRules,
    private readonly versions: VersionState,
  ) {
    this.m = m;
    this.stride = m + 2;
    this.scratchKey = new Float64Array(m);
    this.arena = this.newArena();
    this.upper = new UpperLevels(rules, rules.minusInfinityBytes, () => this.allocatePage());
  }

  // ---- size -------------------------------------------------------------------------------------

  /** Pages of the relation but its metapage: leaves and the levels above, in use, deleted or free for reuse (a relation does not shrink). */
  relationPages(): number {
    return this.allocated;
  }

  /** Pages of each level above the leaves in use, lowest first. */
  upperLevels(): number[] {
    return this.upper.levelPages();
  }

  /** Pages above the leaves in use. */
  upperPages(): number {
    return this.upper.pages();
  }

  /** Leaves in use (with a downlink). */
  liveLeaves(): number {
    return this.leaves.length;
  }

  memoryBytes(): number {
    const b = this.lows.byteLength + this.arena.bytes();
    return b;
  }

  private maxalign(n: number): number {
    const a = this.rules.maxalign;
    return Math.ceil(n / a) * a;
  }

  /** Bytes of a tuple of `t` TIDs whose plain tuple takes `base` bytes. */
  private tupleBytes(base: number, t: number): number {
    return t === 1 ? base : this.maxalign(base + t * this.rules.tidBytes);
  }

  private exactFree(l: Leaf): number {
    return this.rules.pageRoomBytes - l.hikey - l.used;
  }

  /** PageGetFreeSpace: exact free space less one line pointer. */
  private free(l: Leaf): number {
    return Math.max(0, this.exactFree(l) - this.rules.lineBytes);
  }

  // ---- build ------------------------------------------------------------------------------------

  /**
   * CREATE INDEX over `count` TIDs in key order (src.rowAt(k)): the tuples as nbtsort.c forms them
   * (posting lists when the index deduplicates), the leaves as it fills them. The leaves stay virtual.
   */
  build(count: number, src: BuildSource): void {
    this.src = src;
    this.leaves = [];
    this.arena = this.newArena();
    this.tids = count;
    this.deletedPending = 0;
    this.freePages = 0;
    this.writesSinceVacuum = false;
    const r = this.rules;
    const lp = r.lineBytes;
    const full = Math.floor((r.blockBytes * (100 - r.leafFillfactor)) / 100);
    const empty = r.pageRoomBytes - 2 * lp;
    const starts: number[] = [];
    const used: number[] = [];
    // The tuple stream (a tuple: its first TID, its bytes, its posting list's bytes), filled into pages as _bt_buildadd does.
    let pgspc = empty;
    let pageUsed = 0;
    let items = 0;
    let lastExtra = 0;
    let lastStart = 0;
    let lastSize = 0;
    let k = 0;
    const dedup = r.dedup && !r.unique;
    const key = this.scratchKey;
    while (k < count) {
      const row = src.rowAt(k);
      const base = src.tupleBytes(row);
      let t = 1;
      if (dedup) {
        for (let c = 0; c < this.m; c++) key[c] = src.key(c, row);
        while (k + t < count && this.maxalign(base + (t + 1) * r.tidBytes) <= r.buildPostingBytes) {
          const next = src.rowAt(k + t);
          let equal = true;
          for (let c = 0; c < this.m && equal; c++) equal = src.key(c, next) === key[c];
          if (!equal) break;
          t++;
        }
      }
      const size = this.tupleBytes(base, t);
      const extra = t > 1 ? size - base : 0;
      if (items === 0) starts.push(k);
      else if (pgspc < size + r.pivotTidBytes || (pgspc + lastExtra < full && items >= 2)) {
        // The page is finished: its last tuple moves to the next page (a copy becomes the high key).
        used.push(pageUsed - (lastSize + lp));
        starts.push(lastStart);
        pgspc = empty - (lastSize + lp);
        pageUsed = lastSize + lp;
        items = 1;
      }
      pgspc -= size + lp;
      pageUsed += size + lp;
      items++;
      lastExtra = extra;
      lastStart = k;
      lastSize = size;
      k += t;
    }
    if (starts.length === 0) starts.push(0);
    used.push(pageUsed);
    const n = starts.length;
    this.lows = new Float64Array(n * this.stride);
    this.ids = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const leaf = new Leaf(this.m, this.nextId++, this.arena, 0);
      this.ids[i] = leaf.id;
      leaf.vFrom = starts[i]!;
      leaf.vTo = i + 1 < n ? starts[i + 1]! : count;
      leaf.used = used[i]!;
      this.leaves.push(leaf);
      this.setLowFromSource(i, leaf.vFrom, count);
    }
    for (let i = 0; i + 1 < n; i++) this.leaves[i]!.hikey = this.buildHighKey(i) + lp;
    // The levels above: each leaf's downlink is its left neighbour's high key (the first, minus infinity).
    this.upper.build(this.leaves.map((l, i) => (i === 0 ? r.minusInfinityBytes : this.leaves[i - 1]!.hikey - lp)));
    this.allocated = n + this.upper.pagesAllocated;
    let blocks = 0;
    for (const l of this.leaves) blocks += blocksFor(l.vTo - l.vFrom);
    this.arena.reserve(Math.ceil(blocks * ARENA_BUILD_RESERVE));
  }

  /** The high key nbtsort.c gives leaf i: its last TID against the next leaf's first, truncated. */
  private buildHighKey(i: number): number {
    const src = this.src!;
    const a = this.leaves[i]!;
    const b = this.leaves[i + 1]!;
    const left = src.rowAt(a.vTo - 1);
    const right = src.rowAt(b.vFrom);
    let natts = this.m + 1;
    for (let c = 0; c < this.m; c++) {
      if (src.key(c, left) !== src.key(c, right)) {
        natts = c + 1;
        break;
      }
    }
    return this.pivotSize(natts, src.tupleBytes(right), src.pivotBytes(right));
  }

  /** Bytes of a pivot keeping `natts` key columns of a tuple (plain bytes `base`, first-column pivot `piv`); m + 1: all, with a heap TID. */
  private pivotSize(natts: number, base: number, piv: number): number {
    if (natts === 1) return piv;
    if (natts <= this.m) return base;
    return base + this.rules.pivotTidBytes;
  }

  /**
   * Leaf i's low bound as the build leaves it: the key of its first TID (k), truncated as its left
   * neighbour's high key is (suffix truncation: the columns after the first that differs from the
   * left page's last TID are minus infinity, and so is the TID unless every key column is equal).
   */
  private setLowFromSource(i: number, k: number, count: number): void {
    const o = i * this.stride;
    if (i === 0 || k >= count) {
      this.lows.fill(-Infinity, o, o + this.stride);
      return;
    }
    const src = this.src!;
    const row = src.rowAt(k);
    const prev = src.rowAt(k - 1);
    let keep = this.m + 1;
    for (let c = 0; c < this.m; c++) {
      if (src.key(c, prev) !== src.key(c, row)) {
        keep = c + 1;
        break;
      }
    }
    for (let c = 0; c < this.m; c++) this.lows[o + c] = c < keep ? src.key(c, row) : -Infinity;
    this.lows[o + this.m] = keep > this.m ? src.block(row) : -Infinity;
    this.lows[o + this.m + 1] = keep > this.m ? src.seq(row) : -Infinity;
  }

  /** A virtual leaf's TIDs, tuples and sizes made real (as the build formed them). */
  private materialise(leaf: Leaf): void {
    if (leaf.vFrom < 0) return;
    const src = this.src!;
    const r = this.rules;
    const from = leaf.vFrom;
    const to = leaf.vTo;
    leaf.vFrom = leaf.vTo = -1;
    const count = to - from;
    // Room for the inserts that made it real to come: a leaf that will be laid out in segments gets room for them at once.
    leaf.ensure(count + SEG_AFTER_INSERTS >= SEG_MIN_TIDS ? Math.ceil((count + SEG_AFTER_INSERTS + 1) / SEG_FILL) * SEG : count);
    leaf.n = count;
    const m = this.m;
    const dedup = r.dedup && !r.unique;
    let used = 0;
    let headAt = 0;
    let t = 0;
    for (let k = 0; k < count; k++) {
      const row = src.rowAt(from + k);
      leaf.setMeta(k, row, src.block(row), src.seq(row), src.tupleBytes(row), src.pivotBytes(row), 0);
      for (let c = 0; c < m; c++) leaf.setKey(k, c, src.key(c, row));
      // Grouped as the build grouped them: into the tuple before when its key is equal and the posting list still fits.
      let join = false;
      if (
        dedup &&
        k > 0 &&
        this.sameKey(leaf, headAt, k) &&
        this.maxalign(leaf.baseAt(headAt) + (t + 1) * r.tidBytes) <= r.buildPostingBytes
      )
        join = true;
      if (join) {
        leaf.setFlag(k, 0);
        t++;
      } else {
        if (k > 0) used += this.tupleBytes(leaf.baseAt(headAt), t) + r.lineBytes;
        leaf.setFlag(k, HEAD);
        headAt = k;
        t = 1;
      }
    }
    if (count > 0) used += this.tupleBytes(leaf.baseAt(headAt), t) + r.lineBytes;
    leaf.used = used;
    leaf.dead = 0;
  }

  private sameKey(l: Leaf, i: number, j: number): boolean {
    const m = this.m;
    for (let c = 0; c < m; c++) if (l.key(i, c) !== l.key(j, c)) return false;
    return true;
  }

  /** keep_natts: the 1-based key column where the TIDs i (of a) and j (of b) first differ; m + 1 when equal. */
  private keepNatts(a: Float64Array, ai: number, b: Float64Array, bi: number): number {
    const m = this.m;
    for (let c = 0; c < m; c++) if (a[ai * m + c] !== b[bi * m + c]) return c + 1;
    return m + 1;
  }

  // ---- finding ----------------------------------------------------------------------------------

  /** Compare (key, TID = block and place) with leaf l's TID i: < 0 when it sorts before. */
  private cmpTid(key: Float64Array, blk: number, seq: number, l: Leaf, i: number): number {
    const m = this.m;
    const arena = this.arena;
    const meta = arena.meta;
    const o = l.m0(i);
    if (arena.implicit) {
      const a = key[0]!;
      const b = meta[o + 2]!;
      if (a !== b) return a < b ? -1 : 1;
    } else {
      const keys = arena.keys;
      const k = l.k0(i);
      for (let c = 0; c < m; c++) {
        const a = key[c]!;
        const b = keys[k + c]!;
        if (a !== b) return a < b ? -1 : 1;
      }
    }
    const b = arena.w === NARROW ? meta[o]! & NARROW_BLK_MASK : meta[o]!;
    if (blk !== b) return blk < b ? -1 : 1;
    const s = meta[o + 1]!;
    return seq === s ? 0 : seq < s ? -1 : 1;
  }

  private cmpLow(key: Float64Array, blk: number, seq: number, li: number): number {
    const o = li * this.stride;
    const lows = this.lows;
    const m = this.m;
    for (let c = 0; c < m; c++) {
      const b = lows[o + c]!;
      if (key[c] !== b) return key[c]! < b ? -1 : 1;
    }
    const b2 = lows[o + m]!;
    if (blk !== b2) return blk < b2 ? -1 : 1;
    const b3 = lows[o + m + 1]!;
    return seq === b3 ? 0 : seq < b3 ? -1 : 1;
  }

  /** The leaf found last: the next search tries it first (a row's change reads its leaf, then puts its new entry there). */
  private lastLeaf = 0;

  /** The leaf whose key space holds (key, TID): the last whose low bound is ≤ it. */
  findLeaf(key: Float64Array, blk: number, seq: number): number {
    const n = this.leaves.length;
    const h = this.lastLeaf;
    if (h < n && this.cmpLow(key, blk, seq, h) >= 0 && (h === n - 1 || this.cmpLow(key, blk, seq, h + 1) < 0)) return h;
    const lo = this.searchLeaf(key, blk, seq);
    this.lastLeaf = lo;
    return lo;
  }

  /** findLeaf without the hint: the last leaf whose low bound is ≤ (key, TID). */
  private searchLeaf(key: Float64Array, blk: number, seq: number): number {
    const n = this.leaves.length;
    let lo = 0;
    let hi = n - 1;
    // A guess from the first key column between the second leaf's low bound and the last's (the first's
    // is minus infinity), then steps out by doubling and halving: the leaf a plain binary search finds.
    const s = this.stride;
    if (n > 16) {
      const first = this.lows[s]!;
      const last = this.lows[(n - 1) * s]!;
      const k = key[0]!;
      if (k > first && k < last) {
        const g = 1 + Math.floor(((k - first) / (last - first)) * (n - 2));
        if (g >= 1 && g < n) {
          if (this.cmpLow(key, blk, seq, g) >= 0) {
            lo = g;
            let step = 1;
            let p = g + 1;
            while (p < n && this.cmpLow(key, blk, seq, p) >= 0) {
              lo = p;
              step *= 2;
              p = g + step;
            }
            hi = Math.min(p - 1, n - 1);
          } else {
            hi = g - 1;
            let step = 1;
            let p = g - 1;
            while (p >= 1 && this.cmpLow(key, blk, seq, p) < 0) {
              hi = p - 1;
              step *= 2;
              p = g - step;
            }
            lo = Math.max(p, 0);
          }
        }
      }
    }
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.cmpLow(key, blk, seq, mid) >= 0) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The leaf prefetch() found last, and per key of its batch the leaf, then the slot where the key goes. */
  private prefetchLeaf = 0;
  private prefetchAt = new Int32Array(0);

  /**
   * Read, without changing anything, what the inserts of `count` keys (first key columns, keys[k]) will
   * read first: the leaf that holds each, its segment counts and the TIDs about where the key goes. Called
   * for a batch of rows before they are worked on, in passes (the leaves, their segments, their TIDs), so
   * that the loads of a pass (seldom in the cache) overlap instead of each waiting for the one before; the
   * sum means nothing.
   */
  prefetch(keys: Float64Array, count: number): number {
    const n = this.leaves.length;
    if (n === 0 || this.m !== 1) return 0;
    if (this.prefetchAt.length < count) this.prefetchAt = new Int32Array(count);
    const at = this.prefetchAt;
    const key = this.scratchKey;
    const lows = this.lows;
    const s = this.stride;
    let sum = 0;
    // The leaves (their low bounds are in the cache): each Leaf's fields.
    let li = this.prefetchLeaf;
    for (let k = 0; k < count; k++) {
      key[0] = keys[k]!;
      if (!(
        li < n &&
        this.cmpLow(key, -Infinity, -Infinity, li) >= 0 &&
        (li === n - 1 || this.cmpLow(key, -Infinity, -Infinity, li + 1) < 0)
      ))
        li = this.searchLeaf(key, -Infinity, -Infinity);
      at[k] = li;
      sum += this.leaves[li]!.n;
    }
    this.prefetchLeaf = li;
    // Where each key goes, by interpolation between the leaf's bounds (as position() guesses), as a slot (reading the leaf's segment counts).
    for (let k = 0; k < count; k++) {
      const i = at[k]!;
      const l = this.leaves[i]!;
      at[k] = -1;
      if (l.vFrom >= 0 || l.n === 0) continue;
      const first = i > 0 ? lows[i * s]! : -Infinity;
      const last = i + 1 < n ? lows[(i + 1) * s]! : Infinity;
      const v = keys[k]!;
      if (!(v > first && v < last) || first === -Infinity || last === Infinity) continue;
      const g = Math.floor(((v - first) / (last - first)) * (l.n - 1));
      if (g < 0 || g >= l.n) continue;
      at[k] = (l.at * SEG + l.slot(g)) * this.arena.w;
    }
    // The TIDs there, to the end of their segment (an insert moves them): a word of every cache line (four TIDs).
    const meta = this.arena.meta;
    const tw = this.arena.w;
    for (let k = 0; k < count; k++) {
      const w = at[k]!;
      if (w < 0) continue;
      const end = w - (w % (SEG * tw)) + SEG * tw;
      for (let o = w; o < end; o += 16) sum += meta[o]!;
    }
    return sum;
  }

  /**
   * The position in leaf l (at li among the leaves) where (key, TID) goes: the first TID that does not
   * sort before it. The first key column's value between the leaf's low bound and the next leaf's (the
   * leaf's first and last keys where there is none) gives a guess by interpolation; from there the
   * search steps out by doubling until it brackets the answer, then halves (the answer is the one a
   * plain binary search finds, whatever the guess, in fewer reads of a leaf that is seldom in the cache;
   * the bounds are read from `lows`, which the search for the leaf has just read, not from the leaf). A
   * key at or after the one placed last in the same leaf is looked for from that TID's position instead.
   */
  private position(l: Leaf, li: number, key: Float64Array, blk: number, seq: number): number {
    const n = l.n;
    let lo = 0;
    let hi = n;
    if (n > 16) {
      const s = this.stride;
      // Every key of the leaf is ≥ its low bound's first column and ≤ the next leaf's.
      let first = li > 0 ? this.lows[li * s]! : -Infinity;
      let last = li + 1 < this.leaves.length ? this.lows[(li + 1) * s]! : Infinity;
      if (first === -Infinity) first = l.key(l.slot(0), 0);
      if (last === Infinity) last = l.key(l.slot(n - 1), 0);
      const k = key[0]!;
      if (k > first && k < last) {
        // Past the TID placed last in this leaf (inserts in key order), by as many as the keys between take; else from the leaf's low bound.
        const pk = this.placedKey;
        let g: number;
        if (l === this.placedLeaf && this.placedAt < n && k >= pk)
          g = Math.min(n - 1, this.placedAt + 1 + Math.floor(((k - pk) / (last - first)) * (n - 1)));
        else g = Math.floor(((k - first) / (last - first)) * (n - 1));
        if (g >= 0 && g < n) {
          if (this.cmpTid(key, blk, seq, l, l.slot(g)) > 0) {
            lo = g + 1;
            let step = 1;
            let p = g + 1;
            while (p < n && this.cmpTid(key, blk, seq, l, l.slot(p)) > 0) {
              lo = p + 1;
              step *= 2;
              p = g + step;
            }
            hi = Math.min(p, n);
          } else {
            hi = g;
            let step = 1;
            let p = g - 1;
            while (p >= 0 && this.cmpTid(key, blk, seq, l, l.slot(p)) <= 0) {
              hi = p;
              step *= 2;
              p = g - step;
            }
            lo = Math.max(p + 1, 0);
          }
        }
      }
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cmpTid(key, blk, seq, l, l.slot(mid)) > 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The leaf holding (key, TID): its position among the leaves (then leafId(index) is its page name, for the buffer cache and reads). */
  leafAt(key: Float64Array, blk: number, seq: number): number {
    return this.leaves.length === 0 ? 0 : this.findLeaf(key, blk, seq);
  }

  /** The page name of the leaf at `index` (0 when there is none). */
  leafId(index: number): number {
    return index < this.leaves.length ? this.ids[index]! : 0;
  }

  /** Make the leaf holding a row's entry real before the row changes (its TIDs read the heap as it is now). */
  touch(key: Float64Array, blk: number, seq: number): void {
    if (this.leaves.length === 0) return;
    this.materialise(this.leaves[this.findLeaf(key, blk, seq)]!);
  }

  // ---- inserting --------------------------------------------------------------------------------

  /** A new TID of `row`'s version `seq` at heap block `blk`, whose plain tuple takes `base` bytes (`piv` for its first column's pivot). */
  insert(key: Float64Array, row: number, blk: number, seq: number, base: number, piv: number, kind: InsertKind): void {
    this.writesSinceVacuum = true;
    if (this.leaves.length === 0) {
      const leaf = new Leaf(this.m, this.nextId++, this.arena, 1);
      this.leaves.push(leaf);
      this.lows = new Float64Array(this.stride).fill(-Infinity);
      this.ids = Int32Array.of(leaf.id);
      this.allocated = Math.max(this.allocated, 1);
    }
    let li = this.findLeaf(key, blk, seq);
    let leaf = this.leaves[li]!;
    this.materialise(leaf);
    const r = this.rules;
    if (this.free(leaf) < base) {
      leaf.flatten();
      let uniquedup = kind === InsertKind.Unchanged;
      if (r.unique && !uniquedup) uniquedup = this.hasKey(leaf, li, key);
      if (leaf.dead > 0) {
        this.simpleDeletion(leaf, blk);
        uniquedup = true;
      }
      if (this.free(leaf) < base && !(r.unique && !uniquedup)) {
        let skipDedup = false;
        if (kind === InsertKind.Unchanged || uniquedup) skipDedup = this.bottomUpPass(leaf, base);
        if (!skipDedup && r.dedup) this.dedupPass(leaf, key, base, kind === InsertKind.Unchanged || uniquedup);
      }
      if (this.free(leaf) < base) {
        this.stage(key, blk, seq, base, piv);
        li = this.split(li, key, blk, seq, base);
        leaf = this.leaves[li]!;
      }
    }
    this.place(leaf, li, key, row, blk, seq, base, piv);
  }

  /**
   * Runs given back (a leaf that grows or splits takes a run of another length) make up an eighth of
   * the arena's: the leaves' runs are slid down to the start, in order, and the runs given back are
   * forgotten.
   */
  private newArena(): Arena {
    const a = new Arena(this.m);
    a.onWaste = () => this.compactArena();
    return a;
  }

  private compactArena(): void {
    const a = this.arena;
    const live = this.leaves.filter((l) => l.blocks > 0).sort((x, y) => x.at - y.at);
    let to = 0;
    for (const l of live) {
      if (l.at !== to) a.moveRun(l.at, to, l.blocks);
      l.at = to;
      to += l.blocks;
    }
    a.compacted(to);
  }

  private hasKey(l: Leaf, li: number, key: Float64Array): boolean {
    const i = this.position(l, li, key, -Infinity, -Infinity);
    if (i >= l.n) return false;
    for (let c = 0; c < this.m; c++) if (l.key(i, c) !== key[c]) return false;
    return true;
  }

  /** The leaf a TID was placed in last, its position there and its first key column (position() starts from there). */
  private placedLeaf: Leaf | null = null;
  private placedAt = 0;
  private placedKey = 0;

  /** Put the TID into leaf l at its place; inside a posting list, the list's last TID leaves it as a plain tuple (a posting list split). */
  private place(l: Leaf, li: number, key: Float64Array, row: number, blk: number, seq: number, base: number, piv: number): void {
    const i = this.position(l, li, key, blk, seq);
    this.placedLeaf = l;
    this.placedAt = i;
    this.placedKey = key[0]!;
    if (l.nseg === 0 && ++l.flatInserts > SEG_AFTER_INSERTS && l.n >= SEG_MIN_TIDS) l.spread();
    const inside = i > 0 && i < l.n && (l.flagAt(l.slot(i)) & HEAD) === 0;
    const at = l.openSlot(i);
    l.set(at, key, row, blk, seq, base, piv, 0);
    if (inside) {
      l.setFlag(at, 0);
      const last = l.lastInTuple(i);
      l.setFlag(last, HEAD);
      l.used += l.baseAt(last) + this.rules.lineBytes;
    } else {
      l.setFlag(at, HEAD);
      l.used += base + this.rules.lineBytes;
    }
    this.tids++;
  }

  // ---- deleting ---------------------------------------------------------------------------------

  /** Recount a leaf's bytes and LP_DEAD tuples after TIDs were taken out (a posting list shrinks; one TID left is a plain tuple). */
  private recount(l: Leaf): void {
    let used = 0;
    let dead = 0;
    for (let i = 0; i < l.n;) {
      const end = l.tupleEnd(i);
      used += this.tupleBytes(l.baseAt(i), end - i) + this.rules.lineBytes;
      if (l.flagAt(i) & DEAD) dead++;
      i = end;
    }
    l.used = used;
    l.dead = dead;
  }

  /** Take out the TIDs with drop[i] = 1; a tuple's head moves to its first kept TID (with its LP_DEAD mark). */
  private removeTids(l: Leaf, drop: Uint8Array): number {
    let removed = 0;
    for (let i = 0; i < l.n;) {
      const end = l.tupleEnd(i);
      const headFlag = l.flagAt(i);
      let first = true;
      for (let j = i; j < end; j++) {
        if (drop[j]) {
          removed++;
          continue;
        }
        l.setFlag(j, first ? headFlag : 0);
        first = false;
      }
      i = end;
    }
    if (removed === 0) return 0;
    for (let j = 0; j < l.n; j++) drop[j] = drop[j] ? 0 : 1;
    l.compact(drop);
    this.tids -= removed;
    this.recount(l);
    return removed;
  }

  private dropBuffer = new Uint8Array(64);
  private drop(n: number): Uint8Array {
    if (this.dropBuffer.length < n) this.dropBuffer = new Uint8Array(Math.max(n, this.dropBuffer.length * 2));
    this.dropBuffer.fill(0, 0, n);
    return this.dropBuffer;
  }

  /**
   * Simple deletion (_bt_simpledel_pass): the LP_DEAD tuples, and every TID on their heap blocks or on
   * the new item's that the heap finds dead.
   */
  private simpleDeletion(l: Leaf, newBlk: number): void {
    const blocks = new Set<number>([newBlk]);
    for (let i = 0; i < l.n;) {
      const end = l.tupleEnd(i);
      if (l.flagAt(i) & DEAD) for (let j = i; j < end; j++) blocks.add(l.blkAt(j));
      i = end;
    }
    const drop = this.drop(l.n);
    for (let i = 0; i < l.n;) {
      const end = l.tupleEnd(i);
      const dead = (l.flagAt(i) & DEAD) !== 0;
      for (let j = i; j < end; j++) if (dead || (blocks.has(l.blkAt(j)) && this.versions.deletable(l.rowAt(j), l.seqAt(j)))) drop[j] = 1;
      i = end;
    }
    this.simpleDeleted += this.removeTids(l, drop);
  }

  /**
   * Bottom-up deletion (_bt_bottomupdel_pass, heapam.c heap_index_delete_tuples): TIDs in groups of
   * equal keys are promising; heap blocks are visited most promising first (counts rounded up to powers
   * of two, at least 4), at most `bottomUpMaxBlocks` of them, stopping when a block frees nothing more or
   * the space target is met (the target halves before each block that is not within
   * `bottomUpToleranceBlocks` of the one before, among the leading run of such blocks). True: skip
   * deduplication.
   */
  private bottomUpPass(l: Leaf, itemBytes: number): boolean {
    this.bottomUpPasses++;
    const r = this.rules;
    const newItem = itemBytes + r.lineBytes;
    const n = l.n;
    // Nothing anywhere is deletable (the first statement that changes rows, before it commits): the
    // blocks the pass would visit hold no TID to drop, so the leaf is as it was and the answer is the one
    // the whole pass gives: whether any two neighbouring tuples have equal keys, and if so whether the
    // leaf has the room (test/nbtree.test.ts runs the same inserts through both and compares the leaves).
    if (this.versions.anyDeletable?.() === false) {
      let dup = false;
      for (let i = 0, next = l.tupleEnd(0); next < n; i = next, next = l.tupleEnd(next)) {
        if (this.sameKey(l, i, next)) {
          dup = true;
          break;
        }
      }
      return !dup || this.exactFree(l) >= Math.max(r.bottomUpEnoughBytes, newItem);
    }
    const sc = this.scratch(n);
    const promising = sc.promising;
    const freeSpace = sc.free;
    let intervals = 0;
    for (let i = 0; i < n;) {
      // An interval of tuples with equal keys.
      let end = l.tupleEnd(i);
      let tuples = 1;
      while (end < n && this.sameKey(l, i, end)) {
        end = l.tupleEnd(end);
        tuples++;
      }
      const dup = tuples > 1;
      if (dup) intervals++;
      for (let t = i; t < end;) {
        const te = l.tupleEnd(t);
        if (te - t === 1) {
          promising[t] = dup ? 1 : 0;
          freeSpace[t] = l.baseAt(t) + r.lineBytes;
        } else {
          const cnt = te - t;
          let firstP = false;
          let lastP = false;
          if (dup) {
            const minB = l.blkAt(t);
            const midB = l.blkAt(t + (cnt >> 1));
            const maxB = l.blkAt(te - 1);
            firstP = minB === midB;
            lastP = !firstP && midB === maxB;
          }
          for (let j = t; j < te; j++) {
            promising[j] = (firstP && j === t) || (lastP && j === te - 1) ? 1 : 0;
            freeSpace[j] = r.tidBytes;
          }
        }
        t = te;
      }
      i = end;
    }
    // The heap blocks (sorted, each with its TIDs and promising TIDs). Within a block the order of TIDs
    // does not matter: every deletable TID of a visited block goes.
    const blocks = sc.order;
    for (let i = 0; i < n; i++) blocks[i] = l.blkAt(i);
    blocks.subarray(0, n).sort();
    const gBlk = sc.gBlk;
    const gCount = sc.gCount;
    const gProm = sc.gProm;
    let groups = 0;
    for (let k = 0; k < n; k++) {
      if (groups > 0 && gBlk[groups - 1] === blocks[k]) gCount[groups - 1]!++;
      else {
        gBlk[groups] = blocks[k]!;
        gCount[groups] = 1;
        gProm[groups] = 0;
        groups++;
      }
    }
    for (let i = 0; i < n; i++) {
      if (!promising[i]) continue;
      let lo = 0;
      let hi = groups - 1;
      const b = l.blkAt(i);
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (gBlk[mid]! < b) lo = mid + 1;
        else hi = mid;
      }
      gProm[lo]!++;
    }
    const pow2 = (x: number) => (x <= 1 ? 1 : 2 ** Math.ceil(Math.log2(x)));
    for (let g = 0; g < groups; g++) gProm[g] = gProm[g]! <= 4 ? 4 : pow2(gProm[g]!);
    // The most promising blocks first (promising TIDs, then TIDs, as powers of two), lower blocks first among equals; at most bottomUpMaxBlocks.
    const before = (a: number, b: number) =>
      gProm[a]! > gProm[b]! ||
      (gProm[a] === gProm[b] && (pow2(gCount[a]!) > pow2(gCount[b]!) || (pow2(gCount[a]!) === pow2(gCount[b]!) && a < b)));
    const gOrder = sc.gOrder;
    let visit = 0;
    for (let g = 0; g < groups; g++) {
      if (visit === r.bottomUpMaxBlocks && !before(g, gOrder[visit - 1]!)) continue;
      let at = visit < r.bottomUpMaxBlocks ? visit++ : visit - 1;
      while (at > 0 && before(g, gOrder[at - 1]!)) {
        gOrder[at] = gOrder[at - 1]!;
        at--;
      }
      gOrder[at] = g;
    }
    let favorable = 0;
    for (let g = 0; g < visit; g++) {
      if (g > 0 && Math.abs(gBlk[gOrder[g]!]! - gBlk[gOrder[g - 1]!]!) > r.bottomUpToleranceBlocks) break;
      favorable++;
    }
    let target = Math.max(r.bottomUpTargetBytes, newItem);
    let actual = 0;
    let last = 0;
    let finalBlock = false;
    let accessed = 0;
    const drop = this.drop(n);
    for (let v = 0; v < visit; v++) {
      if (finalBlock) break;
      if (accessed >= 1 && actual === last) break;
      last = actual;
      if (favorable > 0) favorable--;
      else target = Math.floor(target / 2);
      accessed++;
      const b = gBlk[gOrder[v]!]!;
      for (let i = 0; i < n; i++) {
        if (l.blkAt(i) !== b || !this.versions.deletable(l.rowAt(i), l.seqAt(i))) continue;
        drop[i] = 1;
        actual += freeSpace[i]!;
        if (actual >= target) finalBlock = true;
      }
    }
    this.bottomUpDeleted += this.removeTids(l, drop);
    if (intervals === 0) return true;
    return this.exactFree(l) >= Math.max(r.bottomUpEnoughBytes, newItem);
  }

  private scratchArrays = {
    promising: new Uint8Array(0),
    free: new Int32Array(0),
    order: new Int32Array(0),
    gBlk: new Int32Array(0),
    gCount: new Int32Array(0),
    gProm: new Int32Array(0),
    gOrder: new Int32Array(0),
  };
  private scratch(n: number): typeof this.scratchArrays {
    const s = this.scratchArrays;
    if (s.order.length < n) {
      const c = Math.max(n, s.order.length * 2, 64);
      this.scratchArrays = {
        promising: new Uint8Array(c),
        free: new Int32Array(c),
        order: new Int32Array(c),
        gBlk: new Int32Array(c),
        gCount: new Int32Array(c),
        gProm: new Int32Array(c),
        gOrder: new Int32Array(c),
      };
    }
    return this.scratchArrays;
  }

  /**
   * A deduplication pass (_bt_dedup_pass): runs of equal keys merged into posting lists of at most
   * maxPostingBytes. With the single-value strategy (the page and the new item one value, no bottom-up
   * pass before), after five full-size posting lists the sixth is made smaller by the space a 96% split
   * leaves free and the pass stops after it.
   */
  private dedupPass(l: Leaf, newKey: Float64Array, itemBytes: number, afterBottomUp: boolean): void {
    this.dedupPasses++;
    const r = this.rules;
    const n = l.n;
    if (n === 0) return;
    const m = this.m;
    const newItem = itemBytes + r.lineBytes;
    let single = false;
    if (!afterBottomUp) {
      let firstEq = true;
      let lastEq = true;
      for (let c = 0; c < m; c++) {
        if (l.key(0, c) !== newKey[c]) firstEq = false;
        if (l.key(n - 1, c) !== newKey[c]) lastEq = false;
      }
      single = firstEq && lastEq;
    }
    let maxPosting = r.maxPostingBytes;
    let deduplicate = true;
    let maxItems = 0;
    let merged = false;
    // Walk the tuples: head = the pending list's first TID, count its TIDs.
    let head = 0;
    let count = l.tupleEnd(0);
    for (let i = count; i < n;) {
      const end = l.tupleEnd(i);
      const cnt = end - i;
      const fits = this.maxalign(l.baseAt(head) + (count + cnt) * r.tidBytes) <= maxPosting;
      if (deduplicate && this.sameKey(l, head, i) && fits) {
        l.setFlag(i, 0);
        count += cnt;
        merged = true;
      } else {
        if (deduplicate && this.sameKey(l, head, i) && !fits && count > r.singleValueTids) maxItems++;
        if (single) {
          if (maxItems === r.singleValueMaxItems) {
            const leftFree = r.pageRoomBytes - newItem - r.pivotTidBytes;
            const reduction = Math.floor(leftFree * ((100 - r.singleValueFillfactor) / 100));
            maxPosting = maxPosting > reduction ? maxPosting - reduction : 0;
          } else if (maxItems === r.singleValueMaxItems + 1) {
            deduplicate = false;
            single = false;
          }
        }
        head = i;
        count = cnt;
      }
      i = end;
    }
    if (merged) this.recount(l);
  }

  // ---- splitting --------------------------------------------------------------------------------

  /**
   * _bt_split with _bt_findsplitloc: leaf li splits for a new item of (key, TID) taking `itemBytes`; the
   * right half becomes a new leaf after it. Returns the leaf the new item now belongs on.
   */
  private split(li: number, key: Float64Array, blk: number, seq: number, itemBytes: number): number {
    this.splits++;
    const r = this.rules;
    const lp = r.lineBytes;
    const l = this.leaves[li]!;
    const m = this.m;
    const rightmost = li === this.leaves.length - 1;
    // The imaginary page: its tuples with the new item among them (after a posting list it falls inside).
    const heads: number[] = [];
    for (let i = 0; i < l.n; i = l.tupleEnd(i)) heads.push(i);
    // The new item is item q: after every tuple that starts before its place (after a posting list it falls inside).
    const pos = this.position(l, li, key, blk, seq);
    let q = 0;
    while (q < heads.length && heads[q]! < pos) q++;
    const nItems = heads.length + 1;
    const size = new Int32Array(nItems);
    const postingOf = new Int32Array(nItems);
    const tupleAt = (j: number) => (j < q ? heads[j]! : j === q ? -1 : heads[j - 1]!);
    let total = 0;
    for (let j = 0; j < nItems; j++) {
      const h = tupleAt(j);
      if (h < 0) size[j] = itemBytes + lp;
      else {
        const cnt = l.tupleEnd(h) - h;
        const s = this.tupleBytes(l.baseAt(h), cnt);
        size[j] = s + lp;
        postingOf[j] = cnt > 1 ? s - l.baseAt(h) : 0;
        total += s + lp;
      }
    }
    const leftSpace = r.pageRoomBytes;
    const rightSpace = r.pageRoomBytes - (rightmost ? 0 : l.hikey);
    const newSize = itemBytes + lp;
    // Candidate split points: before item j (1 ≤ j < nItems).
    const cand: { j: number; lf: number; rf: number; delta: number }[] = [];
    let toLeft = 0;
    let minFirstRight = Infinity;
    for (let j = 1; j < nItems; j++) {
      toLeft += size[j - 1]!;
      const fr = size[j]!;
      const posting = fr > 64 ? postingOf[j]! : 0;
      const lf = leftSpace - toLeft - (fr + r.pivotTidBytes - posting);
      const rf = rightSpace - (total + newSize - toLeft);
      if (lf >= 0 && rf >= 0) {
        cand.push({ j, lf, rf, delta: 0 });
        if (fr < minFirstRight) minFirstRight = fr;
      }
    }
    if (cand.length === 0) cand.push({ j: Math.max(1, Math.min(nItems - 1, q)), lf: 0, rf: 0, delta: 0 });
    // Keys of item j for the penalty: a tuple's first TID, or the new item's key.
    const keyOf = (j: number, out: Float64Array) => {
      const h = tupleAt(j);
      if (h < 0) for (let c = 0; c < m; c++) out[c] = key[c]!;
      else for (let c = 0; c < m; c++) out[c] = l.key(h, c);
    };
    const ka = new Float64Array(m);
    const kb = new Float64Array(m);
    const natts = (a: number, b: number) => {
      keyOf(a, ka);
      keyOf(b, kb);
      return this.keepNatts(ka, 0, kb, 0);
    };
    const ff = r.leafFillfactor / 100;
    let usemult = false;
    let mult = 0.5;
    if (rightmost) {
      usemult = true;
      mult = ff;
    } else {
      const after = this.afterNewItem(l, heads, q, nItems, total, newSize, minFirstRight, blk, natts);
      if (after === 'exact') {
        const exact = cand.find((c) => c.j === q + 1);
        if (exact) return this.doSplit(li, exact.j, q, natts);
      } else if (after === 'mult') {
        usemult = true;
        mult = ff;
      }
    }
    const leftPage = cand[0]!;
    const rightPage = cand[cand.length - 1]!;
    const sortByDelta = (fm: number, um: boolean) => {
      for (const c of cand) c.delta = Math.abs(um ? Math.trunc(fm * c.lf - (1 - fm) * c.rf) : c.lf - c.rf);
      cand.sort((a, b) => a.delta - b.delta || a.j - b.j);
    };
    sortByDelta(mult, usemult);
    // _bt_defaultinterval: the splits within LEAF_SPLIT_DISTANCE of the space-optimal one.
    const tolerance = Math.trunc(total * r.leafSplitDistance);
    const opt = cand[0]!;
    let interval = splitInterval(cand, tolerance);
    // _bt_strategy.
    let leftEdge = opt;
    let rightEdge = opt;
    let foundL = false;
    let foundR = false;
    for (let i = interval - 1; i >= 0 && !(foundL && foundR); i--) {
      const c = cand[i]!;
      if (c.j < opt.j && !foundL) {
        leftEdge = c;
        foundL = true;
      } else if (c.j > opt.j && !foundR) {
        rightEdge = c;
        foundR = true;
      }
    }
    let perfect = natts(leftEdge.j - 1, rightEdge.j);
    let strategy: 'default' | 'many' | 'single' = 'default';
    if (perfect > m) {
      perfect = natts(leftPage.j - 1, rightPage.j);
      if (perfect <= m) {
        strategy = 'many';
        perfect = m;
        interval = cand.length;
      } else if (rightmost) strategy = 'single';
      else {
        // The high key against the new item: a different value means this is the last page of the duplicates.
        const o = (li + 1) * this.stride;
        let differ = false;
        for (let c = 0; c < m; c++) if (this.lows[o + c] !== key[c]) differ = true;
        if (differ) strategy = 'single';
      }
    }
    if (strategy === 'single') {
      sortByDelta(r.singleValueFillfactor / 100, true);
      interval = 1;
    }
    // _bt_bestsplitloc: the lowest penalty within the interval.
    let best = 0;
    let bestPenalty = Infinity;
    const hi = Math.min(interval, cand.length);
    for (let i = 0; i < hi; i++) {
      const c = cand[i]!;
      const p = natts(c.j - 1, c.j);
      if (p < bestPenalty) {
        bestPenalty = p;
        best = i;
      }
      if (p <= perfect) break;
    }
    let chosen = cand[best]!;
    if (strategy === 'many' && !rightmost && chosen.j === q) chosen = cand[0]!;
    return this.doSplit(li, chosen.j, q, natts);
  }

  /**
   * _bt_afternewitemoff (composite keys only): an ascending run inside a group of the leading columns
   * splits just after the new item ('exact') or at the fillfactor ('mult'); otherwise 'no'.
   */
  private afterNewItem(
    l: Leaf,
    heads: number[],
    q: number,
    nItems: number,
    total: number,
    newSize: number,
    minFirstRight: number,
    blk: number,
    natts: (a: number, b: number) => number,
  ): 'no' | 'exact' | 'mult' {
    const m = this.m;
    const r = this.rules;
    if (m === 1 || q === 0) return 'no';
    if (newSize !== minFirstRight || newSize * heads.length !== total) return 'no';
    if (newSize > this.maxalign(8 + 16) + r.lineBytes) return 'no';
    const ff = r.leafFillfactor / 100;
    if (q === nItems - 1) {
      const k = natts(q - 1, q);
      return k > 1 && k <= m ? 'mult' : 'no';
    }
    const prev = heads[q - 1]!;
    if (l.tupleEnd(prev) - prev > 1) return 'no';
    if (l.blkAt(prev) !== blk) return 'no';
    const k = natts(q - 1, q);
    if (!(k > 1 && k <= m)) return 'no';
    // Offsets as the page numbers them (the high key first).
    const interp = (q + 2) / (heads.length + 2);
    return interp > ff ? 'mult' : 'exact';
  }

  /** Split leaf li before item j of the imaginary page (new item at q); returns the leaf the new item goes on. */
  private doSplit(li: number, j: number, q: number, natts: (a: number, b: number) => number): number {
    const r = this.rules;
    const l = this.leaves[li]!;
    const m = this.m;
    const heads: number[] = [];
    for (let i = 0; i < l.n; i = l.tupleEnd(i)) heads.push(i);
    // The first TID that goes right: the tuple at item j (items after the new item are shifted by one).
    const firstRightTuple = j <= q ? j : j - 1;
    const cut = firstRightTuple < heads.length ? heads[firstRightTuple]! : l.n;
    // The new high key of the left page: the first item on the right, truncated against the last on the left (read before the split: natts reads the page as it was).
    const keep = natts(j - 1, j);
    const right = l.splitOff(cut, this.nextId++);
    right.hikey = l.hikey;
    let base: number;
    let piv: number;
    if (j === q) {
      base = -1;
      piv = -1;
    } else {
      base = right.baseAt(0);
      piv = right.pivAt(0);
    }
    this.recount(l);
    this.recount(right);
    // The new item's sizes stand in when it is the first on the right: the caller places it there.
    const pivot = base < 0 ? this.pendingPivot(keep) : this.pivotSize(keep, base, piv);
    l.hikey = pivot + r.lineBytes;
    // The right leaf's low bound.
    this.leaves.splice(li + 1, 0, right);
    l.fit();
    // The bounds after li move up one place (the array keeps room to spare: it doubles when full).
    const s = this.stride;
    const had = (this.leaves.length - 1) * s;
    if (this.lows.length < had + s) {
      const next = new Float64Array(Math.max(had + s, this.lows.length * 2));
      next.set(this.lows.subarray(0, had));
      this.lows = next;
      const ids = new Int32Array(next.length / s);
      ids.set(this.ids.subarray(0, had / s));
      this.ids = ids;
    }
    const lows = this.lows;
    lows.copyWithin((li + 2) * s, (li + 1) * s, had);
    this.ids.copyWithin(li + 2, li + 1, had / s);
    this.ids[li + 1] = right.id;
    const o = (li + 1) * this.stride;
    // The right leaf's low bound: its first item's key, truncated as the new high key is.
    if (this.firstKey.length !== m) this.firstKey = new Float64Array(m);
    const firstKey = this.firstKey;
    for (let c = 0; c < m; c++) firstKey[c] = j === q ? this.pendingKey[c]! : right.key(0, c);
    for (let c = 0; c < m; c++) lows[o + c] = c < keep ? firstKey[c]! : -Infinity;
    lows[o + m] = keep > m ? (j === q ? this.pendingTid[0]! : right.blkAt(0)) : -Infinity;
    lows[o + m + 1] = keep > m ? (j === q ? this.pendingTid[1]! : right.seqAt(0)) : -Infinity;
    this.allocatePage();
    // The parent gets the new right page's downlink: the left page's new high key.
    this.upper.childSplit(0, li, l.hikey - r.lineBytes);
    return j <= q ? li + 1 : li;
  }

  /** The new item of the split in progress (its key and TID), for a split that makes it the first on the right. */
  private pendingKey = new Float64Array(0);
  /** The right leaf's first key in a split. */
  private firstKey = new Float64Array(0);
  private pendingTid = new Float64Array(2);
  private pendingBase = 0;
  private pendingPiv = 0;
  private pendingPivot(keep: number): number {
    return this.pivotSize(keep, this.pendingBase, this.pendingPiv);
  }

  /** A new page: a free one (deleted by an earlier VACUUM, recyclable now), else the relation grows. */
  private allocatePage(): void {
    if (this.freePages > 0) this.freePages--;
    else this.allocated++;
  }

  // ---- scans and VACUUM -------------------------------------------------------------------------

  /**
   * An index scan for `key` found row's versions: the tuples whose TIDs are all versions of the row the
   * heap finds dead get LP_DEAD (_bt_killitems; a posting list only when every TID in it is one).
   * `visit`: told the heap block of every TID of the row other than its version `current` in a tuple not
   * yet LP_DEAD, in index order: the scan fetches each (before marking it). True when the heap found
   * some TID dead (the scan's numKilled > 0, after which _bt_killitems reads the leaf again).
   */
  kill(key: Float64Array, row: number, visit?: (blk: number) => void, current = -1): boolean {
    if (this.leaves.length === 0) return false;
    let found = false;
    let li = this.findLeaf(key, -Infinity, -Infinity);
    for (; li < this.leaves.length; li++) {
      const l = this.leaves[li]!;
      this.materialise(l);
      l.flatten();
      let i = this.position(l, li, key, -Infinity, -Infinity);
      let past = false;
      while (i < l.n) {
        if (!this.sameKeyAs(l, i, key)) {
          past = true;
          break;
        }
        const end = l.tupleEnd(i);
        if ((l.flagAt(i) & DEAD) === 0) {
          for (let j = i; j < end; j++) {
            if (l.rowAt(j) !== row || l.seqAt(j) === current) continue;
            if (visit !== undefined) visit(l.blkAt(j));
            if (this.versions.deletable(row, l.seqAt(j))) found = true;
          }
          let all = true;
          let mine = false;
          for (let j = i; j < end && all; j++) {
            if (l.rowAt(j) === row) mine = true;
            if (l.rowAt(j) !== row || !this.versions.deletable(row, l.seqAt(j))) all = false;
          }
          if (mine && all) {
            l.setFlag(i, l.flagAt(i) | DEAD);
            l.dead++;
          }
        }
        i = end;
      }
      if (past) break;
    }
    return found;
  }

  private sameKeyAs(l: Leaf, i: number, key: Float64Array): boolean {
    const m = this.m;
    for (let c = 0; c < m; c++) if (l.key(i, c) !== key[c]) return false;
    return true;
  }

  /**
   * VACUUM (btbulkdelete): every TID of a dead version goes; a leaf left empty is deleted (not the
   * rightmost), its key space going to its right sibling. Pages deleted by the VACUUM before are free for
   * reuse now if anything was written since (their deletion XID must be older than every snapshot).
   */
  vacuum(): void {
    if (this.writesSinceVacuum) {
      this.freePages += this.deletedPending;
      this.deletedPending = 0;
    }
    this.writesSinceVacuum = false;
    for (let li = 0; li < this.leaves.length; li++) {
      const l = this.leaves[li]!;
      if (l.vFrom >= 0) continue;
      l.flatten();
      const drop = this.drop(l.n);
      let any = false;
      for (let i = 0; i < l.n;) {
        const end = l.tupleEnd(i);
        const dead = (l.flagAt(i) & DEAD) !== 0;
        for (let j = i; j < end; j++) {
          if (dead || this.versions.deletable(l.rowAt(j), l.seqAt(j))) {
            drop[j] = 1;
            any = true;
          }
        }
        i = end;
      }
      if (any) {
        this.removeTids(l, drop);
        l.fit();
      }
      if (l.n === 0 && li < this.leaves.length - 1 && this.upper.canDelete(0, li)) {
        // The page is deleted; the right sibling takes its key space, and its downlink goes (with a parent left empty).
        const upperDeleted = this.upper.deleted;
        this.upper.childDeleted(0, li);
        this.deletedPending += this.upper.deleted - upperDeleted;
        const s = this.stride;
        this.lows.copyWithin((li + 1) * s, li * s, (li + 1) * s);
        this.lows.copyWithin(li * s, (li + 1) * s, this.leaves.length * s);
        this.ids.copyWithin(li, li + 1, this.leaves.length);
        this.leaves.splice(li, 1)[0]!.release();
        this.deletedPending++;
        li--;
      }
    }
  }

  /** Bytes used on the leaves and their count (tests). */
  leafStats(): { leaves: number; tids: number; used: number[] } {
    return { leaves: this.leaves.length, tids: this.tids, used: this.leaves.map((l) => l.used) };
  }

  /** Set the new item for a split that may make it the first on the right (called by insert before split). */
  private stage(key: Float64Array, blk: number, seq: number, base: number, piv: number): void {
    if (this.pendingKey.length !== this.m) this.pendingKey = new Float64Array(this.m);
    this.pendingKey.set(key.subarray(0, this.m));
    this.pendingTid[0] = blk;
    this.pendingTid[1] = seq;
    this.pendingBase = base;
    this.pendingPiv = piv;
  }
}
