/**
 * A leaf split (nbtinsert.c _bt_split): when neither deletion nor deduplication made room for a new item,
 * the leaf splits where nbtsplitloc.ts chooses; the tuples from there on go to a new right sibling (the
 * old high key with them), the left page's new high key is the first item on the right truncated
 * against the last on the left (suffix truncation), which is also the right page's low bound and the
 * downlink the parent gets (nbtree-upper.ts, which may split in turn). The new page is a free one if
 * VACUUM left one recyclable, else the relation grows.
 */
import type { LeafLevel } from './leaf-level.js';
import { findSplitLoc, SplitPage } from './nbtsplitloc.js';

/** Leaf splits of an index, with the new item of the split in progress. */
export class LeafSplit {
  /** The new item of the split in progress (its key and TID, its tuple's and pivot's bytes), for a split that makes it the first on the right. */
  private pendingKey = new Float64Array(0);
  private pendingTid = new Float64Array(2);
  private pendingBase = 0;
  private pendingPiv = 0;
  /** The right leaf's first key in a split. */
  private firstKey = new Float64Array(0);

  /** The imaginary page, set anew for each split. */
  private readonly page: SplitPage;

  constructor(private readonly ix: LeafLevel) {
    this.page = new SplitPage(ix);
  }

  /**
   * _bt_split with _bt_findsplitloc: leaf li splits for a new item of (key, TID = blk, seq) whose plain
   * tuple takes `base` bytes (`piv` its first column's pivot); the right half becomes a new leaf after
   * it. Returns the leaf the new item now belongs on (the caller places it).
   */
  split(li: number, key: Float64Array, blk: number, seq: number, base: number, piv: number): number {
    this.stage(key, blk, seq, base, piv);
    this.ix.splits++;
    const page = this.page.reset(li, key, blk, seq, base);
    const j = findSplitLoc(this.ix, page, blk);
    return this.splitAt(page, j);
  }

  private stage(key: Float64Array, blk: number, seq: number, base: number, piv: number): void {
    const m = this.ix.m;
    if (this.pendingKey.length !== m) this.pendingKey = new Float64Array(m);
    this.pendingKey.set(key.subarray(0, m));
    this.pendingTid[0] = blk;
    this.pendingTid[1] = seq;
    this.pendingBase = base;
    this.pendingPiv = piv;
  }

  /** Split the page's leaf before item j of the imaginary page; returns the leaf the new item goes on. */
  private splitAt(page: SplitPage, j: number): number {
    const ix = this.ix;
    const { l, li, q, heads, nHeads } = page;
    // The first TID that goes right: the tuple at item j (items after the new item are shifted by one).
    const firstRightTuple = j <= q ? j : j - 1;
    const cut = firstRightTuple < nHeads ? heads[firstRightTuple]! : l.n;
    // The new high key of the left page: the first item on the right, truncated against the last on the left (read before the split: natts reads the page as it was).
    const keep = page.natts(j - 1, j);
    const right = l.splitOff(cut, ix.nextId++);
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
    ix.recount(l);
    ix.recount(right);
    // The new item's sizes stand in when it is the first on the right: the caller places it there.
    const pivot = base < 0 ? ix.pivotSize(keep, this.pendingBase, this.pendingPiv) : ix.pivotSize(keep, base, piv);
    l.hikey = pivot + ix.rules.lineBytes;
    ix.leaves.splice(li + 1, 0, right);
    l.fit();
    ix.openLeafBound(li + 1, right.id);
    this.setRightLow(li + 1, keep, j === q);
    ix.allocatePage();
    // The parent gets the new right page's downlink: the left page's new high key.
    ix.upper.childSplit(0, li, l.hikey - ix.rules.lineBytes);
    return j <= q ? li + 1 : li;
  }

  /** The low bound of the new right leaf at ri: its first item's key (the new item's when `first`), truncated to `keep` as the new high key is. */
  private setRightLow(ri: number, keep: number, first: boolean): void {
    const ix = this.ix;
    const m = ix.m;
    const right = ix.leaves[ri]!;
    const lows = ix.lows;
    const o = ri * ix.stride;
    if (this.firstKey.length !== m) this.firstKey = new Float64Array(m);
    const firstKey = this.firstKey;
    for (let c = 0; c < m; c++) firstKey[c] = first ? this.pendingKey[c]! : right.key(0, c);
    for (let c = 0; c < m; c++) lows[o + c] = c < keep ? firstKey[c]! : -Infinity;
    lows[o + m] = keep > m ? (first ? this.pendingTid[0]! : right.blkAt(0)) : -Infinity;
    lows[o + m + 1] = keep > m ? (first ? this.pendingTid[1]! : right.seqAt(0)) : -Infinity;
  }
}
