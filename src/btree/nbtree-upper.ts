/**
 * The levels of a PostgreSQL B-tree above its leaves, page by page: each internal page holds one
 * downlink item per child (its first a bare "minus infinity" tuple, the others the child's low key as a
 * truncated pivot), and a high key unless it is the rightmost of its level. Built as nbtsort.c builds
 * them (to BTREE_NONLEAF_FILLFACTOR, the last item moving to the next page), then grown by the leaves'
 * splits: every split adds the new right page's pivot after its left sibling's downlink, and a full
 * internal page splits as nbtsplitloc.c splits internal pages (the rightmost at the non-leaf fillfactor,
 * others evenly, within INTERNAL_SPLIT_DISTANCE of the best balance the point with the smallest new high
 * key; the first item on the right becomes minus infinity). VACUUM's deletion of a leaf takes its
 * downlink out (the right sibling's downlink takes its key), and an internal page left without children
 * is deleted too. Sizes only: an item is its bytes.
 */
/** What the upper levels need of an nbtree's rules (nbtree.ts NbtreeRules has them). */
/**
 * _bt_defaultinterval: how many of the split points, sorted best first by their delta, keep both halves
 * within `tolerance` bytes of the best one's (the first point beyond it ends the interval).
 */
export function splitInterval(cand: readonly { lf: number; rf: number }[], tolerance: number): number {
  const opt = cand[0]!;
  for (let i = 1; i < cand.length; i++) {
    const c = cand[i]!;
    if (c.lf < opt.lf - tolerance || c.rf < opt.rf - tolerance || c.lf > opt.lf + tolerance || c.rf > opt.rf + tolerance) return i;
  }
  return cand.length;
}

export interface UpperRules {
  blockBytes: number;
  pageRoomBytes: number;
  lineBytes: number;
  nonLeafFillfactor: number;
}

/** nbtsplitloc.c INTERNAL_SPLIT_DISTANCE. */
const INTERNAL_SPLIT_DISTANCE = 0.075;

/** One internal page: its items' bytes (without line pointers; item 0 minus infinity), its high key's bytes with its line pointer (0: rightmost). */
interface Node {
  items: number[];
  hikey: number;
}

export class UpperLevels {
  /** levels[0] is the level above the leaves; each level's pages in key order. */
  private levels: Node[][] = [];
  /** Pages of internal levels ever allocated (a relation does not shrink). */
  pagesAllocated = 0;
  /** Internal pages deleted by VACUUM (freed for reuse by the caller's page pool). */
  deleted = 0;

  constructor(
    private readonly rules: UpperRules,
    /** Bytes of a non-leaf page's bare first item and of its line pointer. */
    private readonly minusInfinityBytes: number,
    /** A new internal page: the caller takes one from its free pages or extends the relation. */
    private readonly allocate: () => void,
  ) {}

  /** Pages of each level above the leaves, lowest first. */
  levelPages(): number[] {
    return this.levels.map((l) => l.length);
  }

  pages(): number {
    return this.levels.reduce((a, l) => a + l.length, 0);
  }

  private fullBytes(): number {
    return Math.floor((this.rules.blockBytes * (100 - this.rules.nonLeafFillfactor)) / 100);
  }

  /**
   * nbtsort.c's upper levels over `children` pages whose low keys take pivots[i] bytes (pivots[0], the
   * leftmost, is never stored: minus infinity): items fill a page until the next does not fit or the
   * free space falls under the fill target with two items on it; the last item then moves to the next
   * page, where it is the bare first item, and becomes the finished page's high key.
   */
  build(pivots: number[]): void {
    this.levels = [];
    this.pagesAllocated = 0;
    this.deleted = 0;
    let keys = pivots;
    while (keys.length > 1) {
      const level = this.fillLevel(keys);
      this.levels.push(level.nodes);
      this.pagesAllocated += level.nodes.length;
      keys = level.lowKeys;
    }
  }

  private fillLevel(keys: number[]): { nodes: Node[]; lowKeys: number[] } {
    const lp = this.rules.lineBytes;
    const empty = this.rules.pageRoomBytes - 2 * lp;
    const full = this.fullBytes();
    const nodes: Node[] = [];
    const lowKeys: number[] = [];
    let cur: Node = { items: [], hikey: 0 };
    let pgspc = empty;
    for (let k = 0; k < keys.length; k++) {
      const size = cur.items.length === 0 ? this.minusInfinityBytes : keys[k]!;
      if (cur.items.length > 0 && (pgspc < keys[k]! || (pgspc < full && cur.items.length >= 2))) {
        // Finish the page: its last item moves on (the bare first item there) and is its high key.
        const moved = k - 1;
        cur.items.pop();
        cur.hikey = keys[moved]! + lp;
        nodes.push(cur);
        lowKeys.push(keys[moved]!);
        cur = { items: [this.minusInfinityBytes], hikey: 0 };
        pgspc = empty - (this.minusInfinityBytes + lp);
      }
      const stored = cur.items.length === 0 ? this.minusInfinityBytes : size;
      cur.items.push(stored);
      pgspc -= stored + lp;
    }
    nodes.push(cur);
    // The first page's low key is minus infinity: its own downlink is the bare first item of the level above.
    return { nodes, lowKeys: [this.minusInfinityBytes, ...lowKeys] };
  }

  /** The page of `level` holding child `child` (children counted from the left), and the child's place in it. */
  private locate(level: number, child: number): { node: number; at: number } {
    const nodes = this.levels[level]!;
    let c = child;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i]!.items.length;
      if (c < n) return { node: i, at: c };
      c -= n;
    }
    return { node: nodes.length - 1, at: nodes[nodes.length - 1]!.items.length - 1 };
  }

  /** Child `child` of the level below `level` (−1: the leaves) split; the new right page's pivot takes `pivot` bytes. */
  childSplit(level: number, child: number, pivot: number): void {
    const lp = this.rules.lineBytes;
    if (level === this.levels.length) {
      // The root split: a new root above the two halves.
      this.levels.push([{ items: [this.minusInfinityBytes, pivot], hikey: 0 }]);
      this.allocate();
      this.pagesAllocated++;
      return;
    }
    const nodes = this.levels[level]!;
    const { node, at } = this.locate(level, child);
    const page = nodes[node]!;
    page.items.splice(at + 1, 0, pivot);
    const used = page.items.reduce((a, b) => a + b + lp, 0);
    if (used + page.hikey <= this.rules.pageRoomBytes) return;
    // The page overflows: split it (the new item is already in place; see nbtsplitloc.c for internal pages).
    const rightmost = node === nodes.length - 1;
    const j = this.splitPoint(page, rightmost, at + 1);
    const left = page.items.slice(0, j);
    const right = page.items.slice(j);
    const newHigh = right[0]!;
    right[0] = this.minusInfinityBytes;
    const rightNode: Node = { items: right, hikey: page.hikey };
    page.items = left;
    page.hikey = newHigh + lp;
    nodes.splice(node + 1, 0, rightNode);
    this.allocate();
    this.pagesAllocated++;
    // The page's own position among its level's pages, for the level above.
    this.childSplit(level + 1, node, newHigh);
  }

  /**
   * _bt_findsplitloc on an internal page whose items (with the new one at `newAt`) no longer fit: the
   * split item j (the first on the right) that balances free space (at the non-leaf fillfactor on the
   * rightmost page), among those within INTERNAL_SPLIT_DISTANCE the one with the smallest item.
   */
  private splitPoint(page: Node, rightmost: boolean, newAt: number): number {
    const lp = this.rules.lineBytes;
    const items = page.items;
    const n = items.length;
    const room = this.rules.pageRoomBytes;
    const rightSpace = room - (rightmost ? 0 : page.hikey);
    const newSize = items[newAt]! + lp;
    const total = items.reduce((a, b) => a + b + lp, 0) - newSize;
    const cand: { j: number; lf: number; rf: number; delta: number; fr: number }[] = [];
    let toLeft = 0;
    for (let j = 1; j < n; j++) {
      toLeft += items[j - 1]! + lp;
      const fr = items[j]! + lp;
      const lf = room - toLeft - fr;
      const rf = rightSpace - (total + newSize - toLeft) + fr - (this.minusInfinityBytes + lp);
      if (lf >= 0 && rf >= 0) cand.push({ j, lf, rf, delta: 0, fr });
    }
    if (cand.length === 0) return Math.max(1, Math.min(n - 1, newAt));
    const mult = this.rules.nonLeafFillfactor / 100;
    for (const c of cand) c.delta = Math.abs(rightmost ? Math.trunc(mult * c.lf - (1 - mult) * c.rf) : c.lf - c.rf);
    const perfect = Math.min(...cand.map((c) => c.fr));
    cand.sort((a, b) => a.delta - b.delta || a.j - b.j);
    const tolerance = Math.trunc(total * INTERNAL_SPLIT_DISTANCE);
    const interval = splitInterval(cand, tolerance);
    let best = cand[0]!;
    for (let i = 0; i < interval; i++) {
      const c = cand[i]!;
      if (c.fr < best.fr) best = c;
      if (c.fr <= perfect) break;
    }
    return best.j;
  }

  /**
   * May VACUUM delete child `child` of the level below `level` (nbtpage.c _bt_lock_subtree_parent)? Not
   * the rightmost downlink of a parent that has others (the parent's key space would change); the only
   * child of a parent only when the parent itself may go (not the root, not its level's rightmost page).
   */
  canDelete(level: number, child: number): boolean {
    if (level >= this.levels.length) return false;
    const nodes = this.levels[level]!;
    const { node, at } = this.locate(level, child);
    const page = nodes[node]!;
    if (at < page.items.length - 1) return true;
    if (page.items.length > 1) return false;
    if (node === nodes.length - 1) return false;
    return this.canDelete(level + 1, node);
  }

  /** VACUUM deleted child `child` of the level below `level`: its downlink goes (the right sibling's downlink takes its key); a page left empty goes too. */
  childDeleted(level: number, child: number): void {
    if (level >= this.levels.length) return;
    const nodes = this.levels[level]!;
    const { node, at } = this.locate(level, child);
    const page = nodes[node]!;
    if (at + 1 < page.items.length) page.items[at + 1] = page.items[at]!;
    page.items.splice(at, 1);
    if (page.items.length > 0) return;
    nodes.splice(node, 1);
    this.deleted++;
    this.childDeleted(level + 1, node);
  }
}
