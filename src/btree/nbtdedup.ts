/**
 * Deduplication (nbtdedup.c _bt_dedup_pass): when an insert finds its leaf full and deletion freed too
 * little, runs of TIDs of equal keys on the page are merged into posting lists (one key, several heap
 * TIDs) of at most maxPostingBytes, which frees the room of every key but the first of a run. Only an
 * index with deduplicate_items on whose every key column's operator class is equalimage (the rules'
 * `dedup`); a unique index deduplicates only a page that holds duplicates of the new item's key (versions
 * of one row waiting for VACUUM), and its CREATE INDEX never does (nbtsort.ts).
 */
import type { Leaf } from './leaf.js';
import type { LeafLevel } from './leaf-level.js';

/**
 * A deduplication pass (_bt_dedup_pass): runs of equal keys merged into posting lists of at most
 * maxPostingBytes. With the single-value strategy (the page and the new item one value, no bottom-up
 * pass before), after five full-size posting lists the sixth is made smaller by the space a 96% split
 * leaves free and the pass stops after it.
 */
export function dedupPass(ix: LeafLevel, l: Leaf, newKey: Float64Array, itemBytes: number, afterBottomUp: boolean): void {
  ix.dedupPasses++;
  const r = ix.rules;
  const n = l.n;
  if (n === 0) return;
  const m = ix.m;
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
    // Whether the list would fit is worked out only for equal keys (most pages of a unique index have none).
    const same = deduplicate && ix.sameKey(l, head, i);
    const fits = same && ix.maxalign(l.baseAt(head) + (count + cnt) * r.tidBytes) <= maxPosting;
    if (same && fits) {
      l.setFlag(i, 0);
      count += cnt;
      merged = true;
    } else {
      if (same && !fits && count > r.singleValueTids) maxItems++;
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
  if (merged) ix.recount(l);
}
