/**
 * A PostgreSQL B-tree (nbtree) simulated entry by entry at the leaf level: every heap TID an index holds,
 * in key order, grouped into index tuples (a plain tuple or a posting list of several TIDs of one key),
 * on leaf pages that fill, deduplicate, delete and split as nbtree does. The levels above the leaves
 * are sized from the leaf count (nbtree-upper.ts, as nbtsort.c builds them and splits grow them).
 * README.md beside this file is the map; the rules' numbers come from the format
 * (src/formats/postgres.ts, which cites them; docs/engines.md, "Index sizes").
 *
 * This file is the index as the rest of rowsim sees it (class NbtreeIndex) and its insert, which ties
 * the mechanisms together as nbtinsert.c does: an insert goes where its (key, TID) sorts; when the page
 * has no room (_bt_findinsertloc, _bt_delete_or_dedup_one_page) tuples marked LP_DEAD go first, with
 * every deletable TID on their heap blocks and the new item's (simple deletion, nbtvacuum.ts); then, for
 * an UPDATE that left this index's columns alone (or a unique index with duplicates of the key), a
 * bottom-up deletion pass (bottomup.ts); then a deduplication pass (nbtdedup.ts); then a split
 * (nbtsplitloc.ts chooses where, nbtsplit.ts splits). CREATE INDEX is nbtsort.ts, index scans' LP_DEAD
 * marks and VACUUM nbtvacuum.ts, the leaves and their TIDs leaf.ts, the leaf level (finding a leaf and a
 * place in it, sizes) leaf-level.ts.
 */
import { BottomUpDeletion } from './bottomup.js';
import { HEAD, Leaf, SEG_AFTER_INSERTS, SEG_MIN_TIDS } from './leaf.js';
import { LeafLevel } from './leaf-level.js';
import { dedupPass } from './nbtdedup.js';
import { InsertKind, type BuildSource } from './nbtree-rules.js';
import { buildLeaves, materialise } from './nbtsort.js';
import { LeafSplit } from './nbtsplit.js';
import { killItems, simpleDeletion, uniqueCheckKills, vacuumIndex } from './nbtvacuum.js';

export { InsertKind, type BuildSource, type NbtreeRules, type VersionState } from './nbtree-rules.js';

export class NbtreeIndex extends LeafLevel {
  private readonly bottomUp = new BottomUpDeletion(this);
  private readonly splitter = new LeafSplit(this);

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

  // ---- build and scans --------------------------------------------------------------------------

  /**
   * CREATE INDEX over `count` TIDs in key order (src.rowAt(k)): the tuples as nbtsort.c forms them
   * (posting lists when the index deduplicates), the leaves as it fills them. The leaves stay virtual.
   */
  build(count: number, src: BuildSource): void {
    buildLeaves(this, count, src);
  }

  /** Make the leaf holding a row's entry real before the row changes (its TIDs read the heap as it is now). */
  touch(key: Float64Array, blk: number, seq: number): void {
    if (this.leaves.length === 0) return;
    materialise(this, this.leaves[this.findLeaf(key, blk, seq)]!);
  }

  /**
   * An index scan for `key` found row's versions: the tuples whose TIDs are all versions of the row the
   * heap finds dead get LP_DEAD (_bt_killitems; a posting list only when every TID in it is one).
   * `visit`: told the heap block of every TID of the row other than its version `current` in a tuple not
   * yet LP_DEAD, in index order: the scan fetches each (before marking it). True when the heap found
   * some TID dead (the scan's numKilled > 0, after which _bt_killitems reads the leaf again).
   */
  kill(key: Float64Array, row: number, visit?: (blk: number) => void, current = -1): boolean {
    return killItems(this, key, row, visit, current);
  }

  /**
   * VACUUM (btbulkdelete): every TID of a dead version goes; a leaf left empty is deleted (not the
   * rightmost), its key space going to its right sibling. Pages deleted by the VACUUM before are free for
   * reuse now if anything was written since (their deletion XID must be older than every snapshot).
   */
  vacuum(): void {
    vacuumIndex(this);
  }

  /** Bytes used on the leaves and their count (tests). */
  leafStats(): { leaves: number; tids: number; used: number[] } {
    return { leaves: this.leaves.length, tids: this.tids, used: this.leaves.map((l) => l.used) };
  }

  // ---- inserting --------------------------------------------------------------------------------

  /** A new TID of `row`'s version `seq` at heap block `blk`, whose plain tuple takes `base` bytes (`piv` for its first column's pivot). */
  insert(key: Float64Array, row: number, blk: number, seq: number, base: number, piv: number, kind: InsertKind): void {
    this.writesSinceVacuum = true;
    if (this.leaves.length === 0) this.firstLeaf();
    if (this.rules.unique) uniqueCheckKills(this, key);
    let li = this.findLeaf(key, blk, seq);
    materialise(this, this.leaves[li]!);
    if (this.free(this.leaves[li]!) < base) li = this.makeRoom(li, key, blk, seq, base, piv, kind);
    this.place(this.leaves[li]!, li, key, row, blk, seq, base, piv);
  }

  /** The first leaf of an index that had none. */
  private firstLeaf(): void {
    const leaf = new Leaf(this.m, this.nextId++, this.arena, 1);
    this.leaves.push(leaf);
    this.lows = new Float64Array(this.stride).fill(-Infinity);
    this.ids = Int32Array.of(leaf.id);
    this.allocated = Math.max(this.allocated, 1);
  }

  /**
   * Leaf li has no room for a new item of `base` bytes (_bt_findinsertloc, _bt_delete_or_dedup_one_page):
   * simple deletion, then bottom-up deletion or deduplication as the insert's kind allows, then a split.
   * Returns the leaf the item goes on.
   */
  private makeRoom(li: number, key: Float64Array, blk: number, seq: number, base: number, piv: number, kind: InsertKind): number {
    const r = this.rules;
    const leaf = this.leaves[li]!;
    leaf.flatten();
    let uniquedup = kind === InsertKind.Unchanged;
    if (r.unique && !uniquedup) uniquedup = this.hasKey(leaf, li, key);
    if (leaf.dead > 0) {
      simpleDeletion(this, leaf, blk);
      uniquedup = true;
    }
    if (this.free(leaf) < base && !(r.unique && !uniquedup)) {
      let skipDedup = false;
      if (kind === InsertKind.Unchanged || uniquedup) skipDedup = this.bottomUp.pass(leaf, base);
      if (!skipDedup && r.dedup) dedupPass(this, leaf, key, base, kind === InsertKind.Unchanged || uniquedup);
    }
    if (this.free(leaf) < base) return this.splitter.split(li, key, blk, seq, base, piv);
    return li;
  }

  private hasKey(l: Leaf, li: number, key: Float64Array): boolean {
    const i = this.position(l, li, key, -Infinity, -Infinity);
    if (i >= l.n) return false;
    for (let c = 0; c < this.m; c++) if (l.key(i, c) !== key[c]) return false;
    return true;
  }

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
}
