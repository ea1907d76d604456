/**
 * The leaf pages of an nbtree as the simulation keeps them (for speed and memory only; no figure depends
 * on it). A leaf (class Leaf) holds its TIDs in (key, TID) order, each tuple's first TID flagged HEAD (a
 * plain tuple, or the first TID of a posting list) and a tuple marked LP_DEAD flagged DEAD on its head;
 * beside them the page's bytes in use, its high key's bytes and its LP_DEAD tuples. A leaf of a CREATE
 * INDEX stays virtual (a range of the build's TIDs, sizes only) until an operation touches it
 * (nbtsort.ts, materialise()).
 *
 * Every leaf's TIDs are in one arena (class Arena: a Float64Array of keys and an Int32Array of three or
 * four words a TID, in blocks of SEG TIDs), a leaf holding a run of blocks, so that reading a TID takes
 * one load from memory after the leaf's own fields rather than a chain through arrays of its own. A
 * TID's words are its heap block, its place in the block and its row, and a fourth of its tuple's and
 * pivot's bytes and its flags; while every TID's tuple takes the same bytes (a fixed-size key) and every
 * heap block is below 2^30, those bytes are kept once for the arena and the flags in the block number's
 * top two bits: three words, 12 bytes a TID (the first TID that does not fit turns the arena to four
 * words for good). While every TID's key is its row id (one key column whose keys are the loaded rows'
 * ids, as an id primary key's), the keys are not kept at all. A leaf taking inserts is laid out in
 * segments (one block each, 61 of its 64 slots filled), so an insert moves the TIDs after it in its
 * segment only; a full segment splits in two while the leaf's run has a block to spare (else the leaf
 * is laid out anew); every other operation (deletion passes, deduplication, splits, scans, VACUUM) first
 * makes the leaf contiguous again (flatten()). Runs a leaf gives back when it grows or splits are
 * reused, and the arena slides its runs together when they are an eighth of it (the memory the arena
 * takes is the most blocks it ever handed out at once, so runs given back and not yet reused cost as
 * much as TIDs).
 *
 * Arena and Leaf share one file with their constants: the loops that read and move TIDs (a leaf's
 * methods, the hottest code of a postgres-heap run) read them as this module's own, not as imports.
 */

/** A TID's flags: the first TID of its tuple; its tuple is marked LP_DEAD (on the head only). */
export const HEAD = 1;
export const DEAD = 2;

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
export const SEG = 64;
export const SEG_FILL = 61;
export const SEG_MIN_TIDS = 96;
export const SEG_AFTER_INSERTS = 4;
/** The most TIDs an insert moves in a loop of its own; more take copyWithin (whose call costs about as much as moving 8 TIDs in a loop). */
const SHORT_MOVE = 8;
/** How much the arena grows when it is full. */
const ARENA_GROWTH = 1.5;
/** The fewest blocks given back that make the arena compact itself, and the share of its blocks (1 / ARENA_COMPACT_SHARE) they must be. */
const ARENA_COMPACT_MIN_BLOCKS = 64;
const ARENA_COMPACT_SHARE = 8;
/** A build reserves room in the arena for its leaves made real and this many times over (pages never written take no memory). */
export const ARENA_BUILD_RESERVE = 2.5;

/**
 * The leaves' TIDs, all in two arrays (keys, m a TID; META words a TID) cut into blocks of SEG TIDs: a
 * leaf holds a run of blocks. One array for every leaf means a TID is read at one remove from the leaf
 * (not through arrays of its own, each a load that may miss the cache first). A leaf that grows takes a
 * longer run and gives its old one back; runs given back are reused by size, first.
 */
export class Arena {
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
export function blocksFor(n: number): number {
  return Math.ceil((n + LEAF_GROWTH_MIN) / SEG);
}

/** One leaf page: its TIDs in (key, TID) order, each tuple's first TID flagged HEAD. */
export class Leaf {
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

  /** Compare (key, TID = block and place) with the TID at slot i: < 0 when it sorts before. */
  cmp(i: number, key: Float64Array, blk: number, seq: number): number {
    const m = this.m;
    const arena = this.arena;
    const meta = arena.meta;
    const o = this.m0(i);
    if (arena.implicit) {
      const a = key[0]!;
      const b = meta[o + 2]!;
      if (a !== b) return a < b ? -1 : 1;
    } else {
      const keys = arena.keys;
      const k = this.k0(i);
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
