/**
 * Bottom-up deletion (nbtdedup.c _bt_bottomupdel_pass, with heapam.c heap_index_delete_tuples' limits):
 * when an UPDATE that left this index's columns alone (or an insert into a unique index that holds
 * duplicates of the key) finds its leaf full, the index asks the heap which of the page's TIDs of
 * duplicated keys (versions of the same rows) are dead, before it deduplicates or splits. TIDs in groups
 * of equal keys are promising; heap blocks are visited most promising first (counts rounded up to powers
 * of two, at least 4), at most `bottomUpMaxBlocks` of them, stopping when a block frees nothing more or
 * the space target is met (the target halves before each block that is not within
 * `bottomUpToleranceBlocks` of the one before, among the leading run of such blocks). Every deletable TID
 * of a visited block goes.
 */
import type { Leaf } from './leaf.js';
import type { LeafLevel } from './leaf-level.js';

/** x rounded up to a power of two (at least 1). */
function pow2(x: number): number {
  return x <= 1 ? 1 : 2 ** Math.ceil(Math.log2(x));
}

/** A bottom-up pass over an index's leaves, with its arrays for a page's TIDs and heap blocks (kept from pass to pass). */
export class BottomUpDeletion {
  /** Per TID of the page: whether it is promising, and the bytes its deletion frees. */
  private promising = new Uint8Array(0);
  private freeSpace = new Int32Array(0);
  /** The page's TIDs' heap blocks, sorted. */
  private order = new Int32Array(0);
  /** Per heap block of the page (sorted): its number, its TIDs, its promising TIDs (then as powers of two). */
  private gBlk = new Int32Array(0);
  private gCount = new Int32Array(0);
  private gProm = new Int32Array(0);
  /** The blocks to visit, most promising first. */
  private gOrder = new Int32Array(0);

  constructor(private readonly ix: LeafLevel) {}

  /** The pass over leaf l, for a new item of `itemBytes`. True: skip deduplication (the pass freed enough, or the page has no duplicates). */
  pass(l: Leaf, itemBytes: number): boolean {
    const ix = this.ix;
    ix.bottomUpPasses++;
    const r = ix.rules;
    const newItem = itemBytes + r.lineBytes;
    if (ix.versions.anyDeletable?.() === false) return this.answerWithoutDeleting(l, newItem);
    this.reserve(l.n);
    const intervals = this.markPromising(l);
    const groups = this.groupBlocks(l);
    const visit = this.orderBlocks(groups);
    this.deleteFromBlocks(l, visit, newItem);
    if (intervals === 0) return true;
    return ix.exactFree(l) >= Math.max(r.bottomUpEnoughBytes, newItem);
  }

  /**
   * Nothing anywhere is deletable (the first statement that changes rows, before it commits): the
   * blocks the pass would visit hold no TID to drop, so the leaf is as it was and the answer is the one
   * the whole pass gives: whether any two neighbouring tuples have equal keys, and if so whether the
   * leaf has the room (test/nbtree.test.ts runs the same inserts through both and compares the leaves).
   */
  private answerWithoutDeleting(l: Leaf, newItem: number): boolean {
    const ix = this.ix;
    const n = l.n;
    let dup = false;
    for (let i = 0, next = l.tupleEnd(0); next < n; i = next, next = l.tupleEnd(next)) {
      if (ix.sameKey(l, i, next)) {
        dup = true;
        break;
      }
    }
    return !dup || ix.exactFree(l) >= Math.max(ix.rules.bottomUpEnoughBytes, newItem);
  }

  /** Room for n TIDs in every array (they grow to twice, at least 64). */
  private reserve(n: number): void {
    if (this.order.length >= n) return;
    const c = Math.max(n, this.order.length * 2, 64);
    this.promising = new Uint8Array(c);
    this.freeSpace = new Int32Array(c);
    this.order = new Int32Array(c);
    this.gBlk = new Int32Array(c);
    this.gCount = new Int32Array(c);
    this.gProm = new Int32Array(c);
    this.gOrder = new Int32Array(c);
  }

  /**
   * Each TID's promise and the bytes its deletion frees, interval by interval of tuples with equal keys:
   * a plain tuple in a group of duplicates is promising; of a posting list in such a group, its first TID
   * when it shares its heap block with the list's middle one, else its last when the middle one shares the
   * last's. Returns how many groups of duplicates there are.
   */
  private markPromising(l: Leaf): number {
    const ix = this.ix;
    const n = l.n;
    let intervals = 0;
    for (let i = 0; i < n;) {
      // An interval of tuples with equal keys.
      let end = l.tupleEnd(i);
      let tuples = 1;
      while (end < n && ix.sameKey(l, i, end)) {
        end = l.tupleEnd(end);
        tuples++;
      }
      const dup = tuples > 1;
      if (dup) intervals++;
      for (let t = i; t < end;) {
        const te = l.tupleEnd(t);
        this.markTuple(l, t, te, dup);
        t = te;
      }
      i = end;
    }
    return intervals;
  }

  /** The promise and freed bytes of the TIDs of tuple [t, te), in a group of duplicates or not. */
  private markTuple(l: Leaf, t: number, te: number, dup: boolean): void {
    const r = this.ix.rules;
    const promising = this.promising;
    const freeSpace = this.freeSpace;
    if (te - t === 1) {
      promising[t] = dup ? 1 : 0;
      freeSpace[t] = l.baseAt(t) + r.lineBytes;
      return;
    }
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

  /**
   * The heap blocks of the page's TIDs (sorted, each with its TIDs and its promising TIDs, the latter
   * rounded up to a power of two, at least 4). Within a block the order of TIDs does not matter: every
   * deletable TID of a visited block goes. Returns how many blocks.
   */
  private groupBlocks(l: Leaf): number {
    const n = l.n;
    const blocks = this.order;
    const gBlk = this.gBlk;
    const gCount = this.gCount;
    const gProm = this.gProm;
    for (let i = 0; i < n; i++) blocks[i] = l.blkAt(i);
    blocks.subarray(0, n).sort();
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
      if (!this.promising[i]) continue;
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
    for (let g = 0; g < groups; g++) gProm[g] = gProm[g]! <= 4 ? 4 : pow2(gProm[g]!);
    return groups;
  }

  /** Whether block group a is visited before b: more promising TIDs, then more TIDs (as powers of two), then the lower block. */
  private before(a: number, b: number): boolean {
    const gProm = this.gProm;
    const gCount = this.gCount;
    return (
      gProm[a]! > gProm[b]! ||
      (gProm[a] === gProm[b] && (pow2(gCount[a]!) > pow2(gCount[b]!) || (pow2(gCount[a]!) === pow2(gCount[b]!) && a < b)))
    );
  }

  /** The most promising blocks first, at most bottomUpMaxBlocks, into gOrder: returns how many. */
  private orderBlocks(groups: number): number {
    const max = this.ix.rules.bottomUpMaxBlocks;
    const gOrder = this.gOrder;
    let visit = 0;
    for (let g = 0; g < groups; g++) {
      if (visit === max && !this.before(g, gOrder[visit - 1]!)) continue;
      let at = visit < max ? visit++ : visit - 1;
      while (at > 0 && this.before(g, gOrder[at - 1]!)) {
        gOrder[at] = gOrder[at - 1]!;
        at--;
      }
      gOrder[at] = g;
    }
    return visit;
  }

  /** The leading blocks of the order each within bottomUpToleranceBlocks of the one before (the first counts). */
  private favorableBlocks(visit: number): number {
    const gBlk = this.gBlk;
    const gOrder = this.gOrder;
    let favorable = 0;
    for (let g = 0; g < visit; g++) {
      if (g > 0 && Math.abs(gBlk[gOrder[g]!]! - gBlk[gOrder[g - 1]!]!) > this.ix.rules.bottomUpToleranceBlocks) break;
      favorable++;
    }
    return favorable;
  }

  /**
   * Visit the first `visit` blocks of the order, taking out every TID of each that the heap finds
   * deletable, until a block frees nothing more or the space target is met (halved before each block
   * past the favorable ones).
   */
  private deleteFromBlocks(l: Leaf, visit: number, newItem: number): void {
    const ix = this.ix;
    const n = l.n;
    let favorable = this.favorableBlocks(visit);
    let target = Math.max(ix.rules.bottomUpTargetBytes, newItem);
    let actual = 0;
    let last = 0;
    let finalBlock = false;
    let accessed = 0;
    const drop = ix.drop(n);
    for (let v = 0; v < visit; v++) {
      if (finalBlock) break;
      if (accessed >= 1 && actual === last) break;
      last = actual;
      if (favorable > 0) favorable--;
      else target = Math.floor(target / 2);
      accessed++;
      const b = this.gBlk[this.gOrder[v]!]!;
      for (let i = 0; i < n; i++) {
        if (l.blkAt(i) !== b || !ix.versions.deletable(l.rowAt(i), l.seqAt(i))) continue;
        drop[i] = 1;
        actual += this.freeSpace[i]!;
        if (actual >= target) finalBlock = true;
      }
    }
    ix.bottomUpDeleted += ix.removeTids(l, drop);
  }
}
