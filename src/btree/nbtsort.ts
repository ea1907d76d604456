/**
 * CREATE INDEX (nbtsort.c): the TIDs sorted by (key, TID), equal keys merged into posting lists of at
 * most `buildPostingBytes` when the index deduplicates (not for a unique index), leaves filled to the
 * fillfactor as _bt_buildadd fills them (the last tuple moving to the next page, a posting list's TIDs
 * not counted in the page's last tuple: it becomes the truncated high key), each leaf's high key and
 * low bound truncated against its neighbour (suffix truncation), the levels above built from the
 * leaves' downlinks (nbtree-upper.ts).
 *
 * The leaves stay virtual (a range of the build's TIDs and the page's bytes, no per-TID memory) until an
 * operation touches one: materialise() then forms its tuples from the build's TIDs as the build formed
 * them. A large load costs no per-entry memory until it changes.
 */
import { ARENA_BUILD_RESERVE, blocksFor, HEAD, Leaf, SEG, SEG_AFTER_INSERTS, SEG_FILL, SEG_MIN_TIDS } from './leaf.js';
import type { LeafLevel } from './leaf-level.js';
import type { BuildSource } from './nbtree-rules.js';

/** Where the build's pages start (their first TIDs, in build order) and the bytes each holds. */
interface BuiltPages {
  starts: number[];
  used: number[];
}

/**
 * CREATE INDEX over `count` TIDs in key order (src.rowAt(k)): the tuples as nbtsort.c forms them
 * (posting lists when the index deduplicates), the leaves as it fills them. The leaves stay virtual.
 */
export function buildLeaves(ix: LeafLevel, count: number, src: BuildSource): void {
  ix.src = src;
  ix.leaves = [];
  ix.arena = ix.newArena();
  ix.tids = count;
  ix.deletedPending = 0;
  ix.freePages = 0;
  ix.writesSinceVacuum = false;
  makeLeaves(ix, fillPages(ix, count, src), count);
}

/** TIDs of the tuple the build forms from TID k on: 1, or as many TIDs of k's key as a posting list of buildPostingBytes holds. */
function postingRun(ix: LeafLevel, src: BuildSource, k: number, count: number, base: number): number {
  const r = ix.rules;
  const m = ix.m;
  const key = ix.scratchKey;
  const row = src.rowAt(k);
  let t = 1;
  for (let c = 0; c < m; c++) key[c] = src.key(c, row);
  while (k + t < count && ix.maxalign(base + (t + 1) * r.tidBytes) <= r.buildPostingBytes) {
    const next = src.rowAt(k + t);
    let equal = true;
    for (let c = 0; c < m && equal; c++) equal = src.key(c, next) === key[c];
    if (!equal) break;
    t++;
  }
  return t;
}

/** The tuple stream (a tuple: its first TID, its bytes, its posting list's bytes), filled into pages as _bt_buildadd does. */
function fillPages(ix: LeafLevel, count: number, src: BuildSource): BuiltPages {
  const r = ix.rules;
  const lp = r.lineBytes;
  const full = Math.floor((r.blockBytes * (100 - r.leafFillfactor)) / 100);
  const empty = r.pageRoomBytes - 2 * lp;
  const starts: number[] = [];
  const used: number[] = [];
  let pgspc = empty;
  let pageUsed = 0;
  let items = 0;
  let lastExtra = 0;
  let lastStart = 0;
  let lastSize = 0;
  let k = 0;
  const dedup = r.dedup && !r.unique;
  while (k < count) {
    const base = src.tupleBytes(src.rowAt(k));
    const t = dedup ? postingRun(ix, src, k, count, base) : 1;
    const size = ix.tupleBytes(base, t);
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
  return { starts, used };
}

/** The virtual leaves of the pages, their bounds and high keys, the levels above, and the arena's room. */
function makeLeaves(ix: LeafLevel, pages: BuiltPages, count: number): void {
  const { starts, used } = pages;
  const r = ix.rules;
  const lp = r.lineBytes;
  const n = starts.length;
  ix.lows = new Float64Array(n * ix.stride);
  ix.ids = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const leaf = new Leaf(ix.m, ix.nextId++, ix.arena, 0);
    ix.ids[i] = leaf.id;
    leaf.vFrom = starts[i]!;
    leaf.vTo = i + 1 < n ? starts[i + 1]! : count;
    leaf.used = used[i]!;
    ix.leaves.push(leaf);
    setLowFromSource(ix, i, leaf.vFrom, count);
  }
  for (let i = 0; i + 1 < n; i++) ix.leaves[i]!.hikey = buildHighKey(ix, i) + lp;
  // The levels above: each leaf's downlink is its left neighbour's high key (the first, minus infinity).
  ix.upper.build(ix.leaves.map((l, i) => (i === 0 ? r.minusInfinityBytes : ix.leaves[i - 1]!.hikey - lp)));
  ix.allocated = n + ix.upper.pagesAllocated;
  let blocks = 0;
  for (const l of ix.leaves) blocks += blocksFor(l.vTo - l.vFrom);
  ix.arena.reserve(Math.ceil(blocks * ARENA_BUILD_RESERVE));
}

/** The high key nbtsort.c gives leaf i: its last TID against the next leaf's first, truncated. */
function buildHighKey(ix: LeafLevel, i: number): number {
  const src = ix.src!;
  const a = ix.leaves[i]!;
  const b = ix.leaves[i + 1]!;
  const left = src.rowAt(a.vTo - 1);
  const right = src.rowAt(b.vFrom);
  let natts = ix.m + 1;
  for (let c = 0; c < ix.m; c++) {
    if (src.key(c, left) !== src.key(c, right)) {
      natts = c + 1;
      break;
    }
  }
  return ix.pivotSize(natts, src.tupleBytes(right), src.pivotBytes(right));
}

/**
 * Leaf i's low bound as the build leaves it: the key of its first TID (k), truncated as its left
 * neighbour's high key is (suffix truncation: the columns after the first that differs from the
 * left page's last TID are minus infinity, and so is the TID unless every key column is equal).
 */
function setLowFromSource(ix: LeafLevel, i: number, k: number, count: number): void {
  const o = i * ix.stride;
  const m = ix.m;
  if (i === 0 || k >= count) {
    ix.lows.fill(-Infinity, o, o + ix.stride);
    return;
  }
  const src = ix.src!;
  const row = src.rowAt(k);
  const prev = src.rowAt(k - 1);
  let keep = m + 1;
  for (let c = 0; c < m; c++) {
    if (src.key(c, prev) !== src.key(c, row)) {
      keep = c + 1;
      break;
    }
  }
  for (let c = 0; c < m; c++) ix.lows[o + c] = c < keep ? src.key(c, row) : -Infinity;
  ix.lows[o + m] = keep > m ? src.block(row) : -Infinity;
  ix.lows[o + m + 1] = keep > m ? src.seq(row) : -Infinity;
}

/** A virtual leaf's TIDs, tuples and sizes made real (as the build formed them); nothing for a real leaf. */
export function materialise(ix: LeafLevel, leaf: Leaf): void {
  if (leaf.vFrom < 0) return;
  const src = ix.src!;
  const r = ix.rules;
  const from = leaf.vFrom;
  const to = leaf.vTo;
  leaf.vFrom = leaf.vTo = -1;
  const count = to - from;
  // Room for the inserts that made it real to come: a leaf that will be laid out in segments gets room for them at once.
  leaf.ensure(count + SEG_AFTER_INSERTS >= SEG_MIN_TIDS ? Math.ceil((count + SEG_AFTER_INSERTS + 1) / SEG_FILL) * SEG : count);
  leaf.n = count;
  const m = ix.m;
  const dedup = r.dedup && !r.unique;
  let used = 0;
  let headAt = 0;
  let t = 0;
  for (let k = 0; k < count; k++) {
    const row = src.rowAt(from + k);
    leaf.setMeta(k, row, src.block(row), src.seq(row), src.tupleBytes(row), src.pivotBytes(row), 0);
    for (let c = 0; c < m; c++) leaf.setKey(k, c, src.key(c, row));
    // Grouped as the build grouped them: into the tuple before when its key is equal and the posting list still fits.
    const join =
      dedup && k > 0 && ix.sameKey(leaf, headAt, k) && ix.maxalign(leaf.baseAt(headAt) + (t + 1) * r.tidBytes) <= r.buildPostingBytes;
    if (join) {
      leaf.setFlag(k, 0);
      t++;
    } else {
      if (k > 0) used += ix.tupleBytes(leaf.baseAt(headAt), t) + r.lineBytes;
      leaf.setFlag(k, HEAD);
      headAt = k;
      t = 1;
    }
  }
  if (count > 0) used += ix.tupleBytes(leaf.baseAt(headAt), t) + r.lineBytes;
  leaf.used = used;
  leaf.dead = 0;
}
