/**
 * Taking entries out of an nbtree: simple deletion of LP_DEAD tuples when an insert finds its leaf full
 * (nbtinsert.c _bt_simpledel_pass), the LP_DEAD marks an index scan sets on tuples whose row versions
 * the heap finds dead (nbtutils.c _bt_killitems), and VACUUM (nbtree.c btbulkdelete, nbtpage.c): every
 * TID of a dead version goes, a leaf left empty is deleted (not the rightmost) and its page is reused by
 * later splits once a later VACUUM finds it recyclable. Bottom-up deletion, the other pass an insert
 * makes, is bottomup.ts.
 */
import { DEAD, HEAD, type Leaf } from './leaf.js';
import type { LeafLevel } from './leaf-level.js';
import { materialise } from './nbtsort.js';

/**
 * Simple deletion (_bt_simpledel_pass): the LP_DEAD tuples, and every TID on their heap blocks or on
 * the new item's that the heap finds dead.
 */
export function simpleDeletion(ix: LeafLevel, l: Leaf, newBlk: number): void {
  const blocks = new Set<number>([newBlk]);
  for (let i = 0; i < l.n;) {
    const end = l.tupleEnd(i);
    if (l.flagAt(i) & DEAD) for (let j = i; j < end; j++) blocks.add(l.blkAt(j));
    i = end;
  }
  const drop = ix.drop(l.n);
  for (let i = 0; i < l.n;) {
    const end = l.tupleEnd(i);
    const dead = (l.flagAt(i) & DEAD) !== 0;
    for (let j = i; j < end; j++) if (dead || (blocks.has(l.blkAt(j)) && ix.versions.deletable(l.rowAt(j), l.seqAt(j)))) drop[j] = 1;
    i = end;
  }
  ix.simpleDeleted += ix.removeTids(l, drop);
}

/**
 * An index scan for `key` found row's versions: the tuples whose TIDs are all versions of the row the
 * heap finds dead get LP_DEAD (_bt_killitems; a posting list only when every TID in it is one).
 * `visit`: told the heap block of every TID of the row other than its version `current` in a tuple not
 * yet LP_DEAD, in index order: the scan fetches each (before marking it). True when the heap found
 * some TID dead (the scan's numKilled > 0, after which _bt_killitems reads the leaf again).
 */
export function killItems(
  ix: LeafLevel,
  key: Float64Array,
  row: number,
  visit: ((blk: number) => void) | undefined,
  current: number,
): boolean {
  if (ix.leaves.length === 0) return false;
  let found = false;
  let li = ix.findLeaf(key, -Infinity, -Infinity);
  for (; li < ix.leaves.length; li++) {
    const l = ix.leaves[li]!;
    materialise(ix, l);
    l.flatten();
    let i = ix.position(l, li, key, -Infinity, -Infinity);
    let past = false;
    while (i < l.n) {
      if (!ix.sameKeyAs(l, i, key)) {
        past = true;
        break;
      }
      const end = l.tupleEnd(i);
      if ((l.flagAt(i) & DEAD) === 0) {
        for (let j = i; j < end; j++) {
          if (l.rowAt(j) !== row || l.seqAt(j) === current) continue;
          if (visit !== undefined) visit(l.blkAt(j));
          if (ix.versions.deletable(row, l.seqAt(j))) found = true;
        }
        let all = true;
        let mine = false;
        for (let j = i; j < end && all; j++) {
          if (l.rowAt(j) === row) mine = true;
          if (l.rowAt(j) !== row || !ix.versions.deletable(row, l.seqAt(j))) all = false;
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

/**
 * A unique index's check before an insert (nbtinsert.c _bt_check_unique): every tuple of `key`, from
 * the first leaf that may hold it rightwards while the key lasts, is looked up in the heap; one whose
 * every TID the heap finds dead to everyone (the whole HOT chain: heap_hot_search_buffer's all_dead)
 * gets LP_DEAD (a posting list only when all its TIDs are). Simple deletion then finds them when the
 * leaf is full. The leaf keeps its layout (an insert follows). Returns the tuples marked.
 */
export function uniqueCheckKills(ix: LeafLevel, key: Float64Array): number {
  if (ix.leaves.length === 0 || ix.versions.anyDeletable?.() === false) return 0;
  let marked = 0;
  for (let li = ix.findLeaf(key, -Infinity, -Infinity); li < ix.leaves.length; li++) {
    const l = ix.leaves[li]!;
    // A leaf still as the build left it holds no dead entry (a row's leaves are made real before it
    // changes): the check marks nothing there, and reading it would make it real before its time.
    if (l.vFrom >= 0) return marked;
    // TIDs by their place in the leaf's order (i), read at their slot (j): a leaf laid out in segments stays so.
    let i = ix.position(l, li, key, -Infinity, -Infinity);
    while (i < l.n) {
      const head = l.slot(i);
      if (!ix.sameKeyAs(l, head, key)) return marked;
      let all = (l.flagAt(head) & DEAD) === 0;
      for (let j = head; ;) {
        if (all && !ix.versions.deletable(l.rowAt(j), l.seqAt(j))) all = false;
        if (++i >= l.n) break;
        j = l.slot(i);
        if (l.flagAt(j) & HEAD) break;
      }
      if (all) {
        l.setFlag(head, l.flagAt(head) | DEAD);
        l.dead++;
        marked++;
      }
    }
  }
  return marked;
}

/**
 * VACUUM (btbulkdelete): every TID of a dead version goes; a leaf left empty is deleted (not the
 * rightmost), its key space going to its right sibling. Pages deleted by the VACUUM before are free for
 * reuse now if anything was written since (their deletion XID must be older than every snapshot).
 */
export function vacuumIndex(ix: LeafLevel): void {
  if (ix.writesSinceVacuum) {
    ix.freePages += ix.deletedPending;
    ix.deletedPending = 0;
  }
  ix.writesSinceVacuum = false;
  for (let li = 0; li < ix.leaves.length; li++) {
    const l = ix.leaves[li]!;
    if (l.vFrom >= 0) continue;
    removeDeadTids(ix, l);
    if (l.n === 0 && li < ix.leaves.length - 1 && ix.upper.canDelete(0, li)) {
      deleteLeaf(ix, li);
      li--;
    }
  }
}

/** VACUUM on one real leaf: every TID of an LP_DEAD tuple or of a version the heap finds deletable goes. */
function removeDeadTids(ix: LeafLevel, l: Leaf): void {
  l.flatten();
  const drop = ix.drop(l.n);
  let any = false;
  for (let i = 0; i < l.n;) {
    const end = l.tupleEnd(i);
    const dead = (l.flagAt(i) & DEAD) !== 0;
    for (let j = i; j < end; j++) {
      if (dead || ix.versions.deletable(l.rowAt(j), l.seqAt(j))) {
        drop[j] = 1;
        any = true;
      }
    }
    i = end;
  }
  if (any) {
    ix.removeTids(l, drop);
    l.fit();
  }
}

/** An empty leaf li is deleted: the right sibling takes its key space, and its downlink goes (with a parent left empty). */
function deleteLeaf(ix: LeafLevel, li: number): void {
  const upperDeleted = ix.upper.deleted;
  ix.upper.childDeleted(0, li);
  ix.deletedPending += ix.upper.deleted - upperDeleted;
  ix.removeLeaf(li);
  ix.deletedPending++;
}
