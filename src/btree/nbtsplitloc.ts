/**
 * Where a full leaf splits (nbtsplitloc.c _bt_findsplitloc): every split point of the imaginary page
 * (the page's tuples with the new item among them) is weighed by the free space it leaves on each side.
 * The rightmost leaf is split to leave the left page `leafFillfactor` full, others 50:50
 * (_bt_afternewitemoff may ask for the fillfactor, or a split just after the new item, inside an
 * ascending run of a composite key); within LEAF_SPLIT_DISTANCE of the best balance the point that
 * truncates the new high key most wins. A page of duplicates splits at the edge of the group (many
 * duplicates) or leaves the left page `singleValueFillfactor` full (single value). nbtsplit.ts carries
 * the split out.
 */
import type { Leaf } from './leaf.js';
import type { LeafLevel } from './leaf-level.js';
import { splitInterval } from './nbtree-upper.js';

/** A split point: before item j of the imaginary page, the free space it leaves on the left and the right, its distance from the aim. */
interface SplitPoint {
  j: number;
  lf: number;
  rf: number;
  delta: number;
}

type Strategy = 'default' | 'many' | 'single';

/**
 * The imaginary page of a split: leaf li's tuples with the new item (key, TID) of `itemBytes` among them,
 * and the split points that fit. One page is kept by each index's splitter and set anew for every split
 * (reset()): its arrays and split points are reused, so that a split makes no garbage (a page of 400
 * tuples made 44 kB of it, most of a postgres-heap run's allocation).
 */
export class SplitPage {
  l!: Leaf;
  li = 0;
  key!: Float64Array;
  rightmost = false;
  /** The leaf's tuples, by their first TIDs: heads[0, nHeads). */
  heads = new Int32Array(64);
  nHeads = 0;
  /** The new item is item q: after every tuple that starts before its place (after a posting list it falls inside). */
  q = 0;
  nItems = 0;
  /** Per item, its bytes with its line pointer, and a posting list's TIDs' bytes. */
  private size = new Int32Array(64);
  private postingOf = new Int32Array(64);
  /** Bytes of the leaf's items with their line pointers, and of the new item's. */
  total = 0;
  newSize = 0;
  /** The smallest first item on the right among the split points that fit. */
  minFirstRight = Infinity;
  /** The split points that fit (at least one: the new item's place when none does), taken from `points`. */
  readonly cand: SplitPoint[] = [];
  private readonly points: SplitPoint[] = [];
  private readonly ka: Float64Array;
  private readonly kb: Float64Array;

  constructor(private readonly ix: LeafLevel) {
    this.ka = new Float64Array(ix.m);
    this.kb = new Float64Array(ix.m);
  }

  /** The page of leaf li and the new item, its split points found. */
  reset(li: number, key: Float64Array, blk: number, seq: number, itemBytes: number): this {
    const ix = this.ix;
    const l = ix.leaves[li]!;
    this.l = l;
    this.li = li;
    this.key = key;
    this.rightmost = li === ix.leaves.length - 1;
    if (this.heads.length < l.n) this.heads = new Int32Array(Math.max(l.n, this.heads.length * 2));
    let h = 0;
    for (let i = 0; i < l.n; i = l.tupleEnd(i)) this.heads[h++] = i;
    this.nHeads = h;
    const pos = ix.position(l, li, key, blk, seq);
    let q = 0;
    while (q < h && this.heads[q]! < pos) q++;
    this.q = q;
    this.nItems = h + 1;
    if (this.size.length < this.nItems) {
      this.size = new Int32Array(Math.max(this.nItems, this.size.length * 2));
      this.postingOf = new Int32Array(this.size.length);
    }
    this.newSize = itemBytes + ix.rules.lineBytes;
    this.measure(itemBytes);
    this.findCandidates();
    return this;
  }

  /** A split point to fill in: the k-th of the pool. */
  private point(k: number): SplitPoint {
    const pool = this.points;
    if (k === pool.length) pool.push({ j: 0, lf: 0, rf: 0, delta: 0 });
    return pool[k]!;
  }

  /** The leaf's first TID of item j, or −1 for the new item. */
  tupleAt(j: number): number {
    const q = this.q;
    return j < q ? this.heads[j]! : j === q ? -1 : this.heads[j - 1]!;
  }

  /** Each item's bytes and the total. */
  private measure(itemBytes: number): void {
    const ix = this.ix;
    const l = this.l;
    const lp = ix.rules.lineBytes;
    let total = 0;
    for (let j = 0; j < this.nItems; j++) {
      const h = this.tupleAt(j);
      if (h < 0) {
        this.size[j] = itemBytes + lp;
        this.postingOf[j] = 0;
      } else {
        const cnt = l.tupleEnd(h) - h;
        const s = ix.tupleBytes(l.baseAt(h), cnt);
        this.size[j] = s + lp;
        this.postingOf[j] = cnt > 1 ? s - l.baseAt(h) : 0;
        total += s + lp;
      }
    }
    this.total = total;
  }

  /** Candidate split points: before item j (1 ≤ j < nItems), where both halves fit (the left with its new high key). */
  private findCandidates(): void {
    const r = this.ix.rules;
    const leftSpace = r.pageRoomBytes;
    const rightSpace = r.pageRoomBytes - (this.rightmost ? 0 : this.l.hikey);
    const cand = this.cand;
    let k = 0;
    let minFirstRight = Infinity;
    let toLeft = 0;
    for (let j = 1; j < this.nItems; j++) {
      toLeft += this.size[j - 1]!;
      const fr = this.size[j]!;
      const posting = fr > 64 ? this.postingOf[j]! : 0;
      const lf = leftSpace - toLeft - (fr + r.pivotTidBytes - posting);
      const rf = rightSpace - (this.total + this.newSize - toLeft);
      if (lf >= 0 && rf >= 0) {
        this.setPoint(k++, j, lf, rf);
        if (fr < minFirstRight) minFirstRight = fr;
      }
    }
    if (k === 0) this.setPoint(k++, Math.max(1, Math.min(this.nItems - 1, this.q)), 0, 0);
    cand.length = k;
    this.minFirstRight = minFirstRight;
  }

  /** Split point k of the candidates: before item j, leaving lf and rf free. */
  private setPoint(k: number, j: number, lf: number, rf: number): void {
    const c = this.point(k);
    c.j = j;
    c.lf = lf;
    c.rf = rf;
    c.delta = 0;
    if (k < this.cand.length) this.cand[k] = c;
    else this.cand.push(c);
  }

  /** Keys of item j for the penalty: a tuple's first TID, or the new item's key. */
  private keyOf(j: number, out: Float64Array): void {
    const m = this.ix.m;
    const h = this.tupleAt(j);
    if (h < 0) for (let c = 0; c < m; c++) out[c] = this.key[c]!;
    else for (let c = 0; c < m; c++) out[c] = this.l.key(h, c);
  }

  /** keep_natts of items a and b: the columns a pivot between them keeps (m + 1: every column and the heap TID). */
  natts(a: number, b: number): number {
    this.keyOf(a, this.ka);
    this.keyOf(b, this.kb);
    return this.ix.keepNatts(this.ka, 0, this.kb, 0);
  }

  /** Sort the split points by their distance from the aim: a share `fm` of the free space left (um), or equal halves. */
  sortByDelta(fm: number, um: boolean): void {
    for (const c of this.cand) c.delta = Math.abs(um ? Math.trunc(fm * c.lf - (1 - fm) * c.rf) : c.lf - c.rf);
    if (!mergeFromLeast(this.cand)) this.cand.sort(byDelta);
  }
}

/** The order of split points: by distance from the aim, then by item. */
export function byDelta(a: SplitPoint, b: SplitPoint): number {
  return a.delta - b.delta || a.j - b.j;
}

/** mergeFromLeast's scratch, kept from split to split. */
let merged: SplitPoint[] = [];

/**
 * Sort split points held in item order by byDelta where their distances fall to a least one and rise
 * after it (the free space on the left falls as the split point moves right and the right's rises, so
 * the distance from the aim nearly always does): the two sides merged outward from the least, in one
 * pass. The result is kept only when it is in byDelta order throughout (then it is the sorted order,
 * the keys being distinct); else the points are left as they were and false returned (the caller sorts).
 */
export function mergeFromLeast(cand: SplitPoint[]): boolean {
  const n = cand.length;
  if (n < 3) return false;
  let least = 0;
  for (let i = 1; i < n; i++) if (byDelta(cand[i]!, cand[least]!) < 0) least = i;
  if (merged.length < n) merged = new Array<SplitPoint>(Math.max(n, merged.length * 2)).fill(cand[0]!);
  let left = least - 1;
  let right = least + 1;
  merged[0] = cand[least]!;
  for (let k = 1; k < n; k++) {
    const c = right >= n || (left >= 0 && byDelta(cand[left]!, cand[right]!) < 0) ? cand[left--]! : cand[right++]!;
    if (byDelta(merged[k - 1]!, c) > 0) return false;
    merged[k] = c;
  }
  for (let k = 0; k < n; k++) cand[k] = merged[k]!;
  return true;
}

/** The split point of the page for its new item at TID block `blk`: the item that goes first on the right. */
export function findSplitLoc(ix: LeafLevel, page: SplitPage, blk: number): number {
  const r = ix.rules;
  const ff = r.leafFillfactor / 100;
  let usemult = false;
  let mult = 0.5;
  if (page.rightmost) {
    usemult = true;
    mult = ff;
  } else {
    const after = afterNewItem(ix, page, blk);
    if (after === 'exact') {
      const exact = page.cand.find((c) => c.j === page.q + 1);
      if (exact) return exact.j;
    } else if (after === 'mult') {
      usemult = true;
      mult = ff;
    }
  }
  const cand = page.cand;
  const leftPage = cand[0]!;
  const rightPage = cand[cand.length - 1]!;
  page.sortByDelta(mult, usemult);
  // _bt_defaultinterval: the splits within LEAF_SPLIT_DISTANCE of the space-optimal one.
  const tolerance = Math.trunc(page.total * r.leafSplitDistance);
  const s = chooseStrategy(ix, page, splitInterval(cand, tolerance), leftPage, rightPage);
  if (s.strategy === 'single') {
    page.sortByDelta(r.singleValueFillfactor / 100, true);
    s.interval = 1;
  }
  let chosen = cand[bestSplitLoc(page, s.interval, s.perfect)]!;
  if (s.strategy === 'many' && !page.rightmost && chosen.j === page.q) chosen = cand[0]!;
  return chosen.j;
}

/**
 * _bt_afternewitemoff (composite keys only): an ascending run inside a group of the leading columns
 * splits just after the new item ('exact') or at the fillfactor ('mult'); otherwise 'no'.
 */
function afterNewItem(ix: LeafLevel, page: SplitPage, blk: number): 'no' | 'exact' | 'mult' {
  const m = ix.m;
  const r = ix.rules;
  const { l, heads, nHeads, q, newSize } = page;
  if (m === 1 || q === 0) return 'no';
  if (newSize !== page.minFirstRight || newSize * nHeads !== page.total) return 'no';
  if (newSize > ix.maxalign(8 + 16) + r.lineBytes) return 'no';
  const ff = r.leafFillfactor / 100;
  if (q === page.nItems - 1) {
    const k = page.natts(q - 1, q);
    return k > 1 && k <= m ? 'mult' : 'no';
  }
  const prev = heads[q - 1]!;
  if (l.tupleEnd(prev) - prev > 1) return 'no';
  if (l.blkAt(prev) !== blk) return 'no';
  const k = page.natts(q - 1, q);
  if (!(k > 1 && k <= m)) return 'no';
  // Offsets as the page numbers them (the high key first).
  const interp = (q + 2) / (nHeads + 2);
  return interp > ff ? 'mult' : 'exact';
}

/**
 * _bt_strategy: from the split points sorted by delta and the first `interval` of them, the strategy,
 * the penalty that is perfect (the best a pivot can truncate to) and the interval to search. A page
 * whose edges of the interval do not differ in key is split at the group's edge (many duplicates) or as
 * one value (single: the rightmost, or the last page of the value).
 */
function chooseStrategy(
  ix: LeafLevel,
  page: SplitPage,
  interval: number,
  leftPage: SplitPoint,
  rightPage: SplitPoint,
): { strategy: Strategy; perfect: number; interval: number } {
  const m = ix.m;
  const cand = page.cand;
  const opt = cand[0]!;
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
  const perfect = page.natts(leftEdge.j - 1, rightEdge.j);
  if (perfect <= m) return { strategy: 'default', perfect, interval };
  const whole = page.natts(leftPage.j - 1, rightPage.j);
  if (whole <= m) return { strategy: 'many', perfect: m, interval: cand.length };
  if (page.rightmost || highKeyDiffers(ix, page)) return { strategy: 'single', perfect: whole, interval };
  return { strategy: 'default', perfect: whole, interval };
}

/** The high key against the new item: a different value means this is the last page of the duplicates. */
function highKeyDiffers(ix: LeafLevel, page: SplitPage): boolean {
  const m = ix.m;
  const o = (page.li + 1) * ix.stride;
  let differ = false;
  for (let c = 0; c < m; c++) if (ix.lows[o + c] !== page.key[c]) differ = true;
  return differ;
}

/** _bt_bestsplitloc: the split point (its place in the sorted candidates) of the lowest penalty within the interval. */
function bestSplitLoc(page: SplitPage, interval: number, perfect: number): number {
  const cand = page.cand;
  let best = 0;
  let bestPenalty = Infinity;
  const hi = Math.min(interval, cand.length);
  for (let i = 0; i < hi; i++) {
    const c = cand[i]!;
    const p = page.natts(c.j - 1, c.j);
    if (p < bestPenalty) {
      bestPenalty = p;
      best = i;
    }
    if (p <= perfect) break;
  }
  return best;
}
