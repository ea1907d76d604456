/**
 * The leaf level of an nbtree: its leaves in key order with, beside them, each leaf's low bound (the
 * smallest (key …, heap block, place in block) it may hold, as its left neighbour's high key truncates
 * it) and its page name; the levels above (nbtree-upper.ts); the pages of the relation, in use, deleted
 * and free. What every mechanism reads and changes (nbtsort.ts builds it, nbtree.ts inserts, the passes
 * and the split change its leaves): the sizes of tuples and pivots, a leaf's free space, the search for
 * a leaf and for the position of a (key, TID) in it (the hottest code of a postgres-heap run), and the
 * taking out of TIDs (recount(), removeTids()). Its fields are the mechanisms' shared state, read and
 * written by the other files of src/btree and by nothing outside it (NbtreeIndex's methods are the API).
 */
import { Arena, DEAD, Leaf, SEG } from './leaf.js';
import { UpperLevels } from './nbtree-upper.js';
import type { BuildSource, NbtreeRules, VersionState } from './nbtree-rules.js';

export class LeafLevel {
  leaves: Leaf[] = [];
  /** Per leaf, the smallest (key …, block, place in block) it holds: stride m + 2; the first leaf's is −∞. Room to spare after the last leaf's. */
  lows = new Float64Array(0);
  /** Per leaf, its page name (Leaf.id), beside its low bound so that a read need not load the leaf. */
  ids = new Int32Array(0);
  nextId = 0;
  /** Pages of the relation but its metapage (leaves and the levels above: in use, deleted and waiting, free for reuse). */
  allocated = 0;
  deletedPending = 0;
  freePages = 0;
  /** The levels above the leaves. */
  readonly upper: UpperLevels;
  /** Writes since the last VACUUM (a page deleted then becomes recyclable at the next one). */
  writesSinceVacuum = false;
  /** TIDs held (live and dead). */
  tids = 0;
  readonly m: number;
  readonly stride: number;
  /** The build's TIDs, which virtual leaves read when they are made real (nbtsort.ts). */
  src: BuildSource | null = null;
  readonly scratchKey: Float64Array;
  /** The leaves' TIDs. */
  arena: Arena;
  // What the index did, counted (tests read them).
  dedupPasses = 0;
  bottomUpPasses = 0;
  bottomUpDeleted = 0;
  simpleDeleted = 0;
  splits = 0;

  constructor(
    m: number,
    readonly rules: NbtreeRules,
    readonly versions: VersionState,
  ) {
    this.m = m;
    this.stride = m + 2;
    this.scratchKey = new Float64Array(m);
    this.arena = this.newArena();
    this.upper = new UpperLevels(rules, rules.minusInfinityBytes, () => this.allocatePage());
  }

  // ---- sizes ------------------------------------------------------------------------------------

  maxalign(n: number): number {
    const a = this.rules.maxalign;
    return Math.ceil(n / a) * a;
  }

  /** Bytes of a tuple of `t` TIDs whose plain tuple takes `base` bytes. */
  tupleBytes(base: number, t: number): number {
    return t === 1 ? base : this.maxalign(base + t * this.rules.tidBytes);
  }

  exactFree(l: Leaf): number {
    return this.rules.pageRoomBytes - l.hikey - l.used;
  }

  /** PageGetFreeSpace: exact free space less one line pointer. */
  free(l: Leaf): number {
    return Math.max(0, this.exactFree(l) - this.rules.lineBytes);
  }

  /** Bytes of a pivot keeping `natts` key columns of a tuple (plain bytes `base`, first-column pivot `piv`); m + 1: all, with a heap TID. */
  pivotSize(natts: number, base: number, piv: number): number {
    if (natts === 1) return piv;
    if (natts <= this.m) return base;
    return base + this.rules.pivotTidBytes;
  }

  sameKey(l: Leaf, i: number, j: number): boolean {
    const m = this.m;
    for (let c = 0; c < m; c++) if (l.key(i, c) !== l.key(j, c)) return false;
    return true;
  }

  /** keep_natts: the 1-based key column where the TIDs i (of a) and j (of b) first differ; m + 1 when equal. */
  keepNatts(a: Float64Array, ai: number, b: Float64Array, bi: number): number {
    const m = this.m;
    for (let c = 0; c < m; c++) if (a[ai * m + c] !== b[bi * m + c]) return c + 1;
    return m + 1;
  }

  sameKeyAs(l: Leaf, i: number, key: Float64Array): boolean {
    const m = this.m;
    for (let c = 0; c < m; c++) if (l.key(i, c) !== key[c]) return false;
    return true;
  }

  // ---- finding ----------------------------------------------------------------------------------

  cmpLow(key: Float64Array, blk: number, seq: number, li: number): number {
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
  lastLeaf = 0;

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
  searchLeaf(key: Float64Array, blk: number, seq: number): number {
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
  prefetchLeaf = 0;
  prefetchAt = new Int32Array(0);

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
  position(l: Leaf, li: number, key: Float64Array, blk: number, seq: number): number {
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
          if (l.cmp(l.slot(g), key, blk, seq) > 0) {
            lo = g + 1;
            let step = 1;
            let p = g + 1;
            while (p < n && l.cmp(l.slot(p), key, blk, seq) > 0) {
              lo = p + 1;
              step *= 2;
              p = g + step;
            }
            hi = Math.min(p, n);
          } else {
            hi = g;
            let step = 1;
            let p = g - 1;
            while (p >= 0 && l.cmp(l.slot(p), key, blk, seq) <= 0) {
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
      if (l.cmp(l.slot(mid), key, blk, seq) > 0) lo = mid + 1;
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

  // ---- pages and the arena ---------------------------------------------------------------------

  /**
   * Runs given back (a leaf that grows or splits takes a run of another length) make up an eighth of
   * the arena's: the leaves' runs are slid down to the start, in order, and the runs given back are
   * forgotten.
   */
  newArena(): Arena {
    const a = new Arena(this.m);
    a.onWaste = () => this.compactArena();
    return a;
  }

  compactArena(): void {
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

  /** The leaf a TID was placed in last, its position there and its first key column (position() starts from there). */
  placedLeaf: Leaf | null = null;
  placedAt = 0;
  placedKey = 0;

  /** A new page: a free one (deleted by an earlier VACUUM, recyclable now), else the relation grows. */
  allocatePage(): void {
    if (this.freePages > 0) this.freePages--;
    else this.allocated++;
  }

  // ---- deleting ---------------------------------------------------------------------------------

  /** Recount a leaf's bytes and LP_DEAD tuples after TIDs were taken out (a posting list shrinks; one TID left is a plain tuple). */
  recount(l: Leaf): void {
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
  removeTids(l: Leaf, drop: Uint8Array): number {
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

  dropBuffer = new Uint8Array(64);
  drop(n: number): Uint8Array {
    if (this.dropBuffer.length < n) this.dropBuffer = new Uint8Array(Math.max(n, this.dropBuffer.length * 2));
    this.dropBuffer.fill(0, 0, n);
    return this.dropBuffer;
  }

  /**
   * Make the place of a new leaf at `li` among the bounds and page names (the leaf is in `leaves`
   * already): those after it move up one place (the arrays keep room to spare: they double when full).
   * The new leaf's low bound is the caller's to write, at `li` · stride.
   */
  openLeafBound(li: number, id: number): void {
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
    this.lows.copyWithin((li + 1) * s, li * s, had);
    this.ids.copyWithin(li + 1, li, had / s);
    this.ids[li] = id;
  }

  /** Leaf li is gone (deleted by VACUUM): its right sibling takes its key space (its low bound), and its run goes back to the arena. */
  removeLeaf(li: number): void {
    const s = this.stride;
    this.lows.copyWithin((li + 1) * s, li * s, (li + 1) * s);
    this.lows.copyWithin(li * s, (li + 1) * s, this.leaves.length * s);
    this.ids.copyWithin(li, li + 1, this.leaves.length);
    this.leaves.splice(li, 1)[0]!.release();
  }
}
