/**
 * What an nbtree (nbtree.ts) is given: the numbers it lives by, the heap's answer to whether a row
 * version is dead, the sorted TIDs of a CREATE INDEX, and how a new TID comes.
 */
/** The numbers an nbtree lives by, from the format (src/formats/postgres.ts). */
export interface NbtreeRules {
  /** BLCKSZ. */
  blockBytes: number;
  /** Bytes an empty page offers for items and line pointers: BLCKSZ − page header − special space. */
  pageRoomBytes: number;
  lineBytes: number;
  maxalign: number;
  /** sizeof(ItemPointerData): a heap TID in a posting list. */
  tidBytes: number;
  /** MAXALIGN(sizeof(ItemPointerData)): the heap TID a high key may need. */
  pivotTidBytes: number;
  /** Leaf fillfactor (the index's; 90 by default) and the fillfactor of the levels above (BTREE_NONLEAF_FILLFACTOR). */
  leafFillfactor: number;
  nonLeafFillfactor: number;
  /** Bytes of a non-leaf page's bare first ("minus infinity") item. */
  minusInfinityBytes: number;
  /** BTREE_SINGLEVAL_FILLFACTOR. */
  singleValueFillfactor: number;
  /** BTMaxItemSize: the largest index tuple. */
  maxItemBytes: number;
  /** A deduplication pass's posting list limit (BTMaxItemSize / 2). */
  maxPostingBytes: number;
  /** CREATE INDEX's posting list limit. */
  buildPostingBytes: number;
  /** deduplicate_items on and every key column's operator class equalimage. */
  dedup: boolean;
  unique: boolean;
  /** Bottom-up deletion's space target (BLCKSZ / 16) and the free space after which it skips deduplication (BLCKSZ / 24). */
  bottomUpTargetBytes: number;
  bottomUpEnoughBytes: number;
  /** heapam.c: the most heap blocks a bottom-up pass visits, and how far apart blocks may be to count as contiguous. */
  bottomUpMaxBlocks: number;
  bottomUpToleranceBlocks: number;
  /** nbtsplitloc.c LEAF_SPLIT_DISTANCE. */
  leafSplitDistance: number;
  /** nbtdedup.c: the single-value strategy stops after this many full-size posting lists, counting those of more than `singleValueTids` TIDs. */
  singleValueMaxItems: number;
  singleValueTids: number;
}

/** Row versions: whether a TID's version is dead to every transaction (its entry may go). */
export interface VersionState {
  /** The version of `row` made as `seq` (its TID's place, see BuildSource.seq) is replaced or deleted by a committed transaction. */
  deletable(row: number, seq: number): boolean;
  /**
   * False only when no version of any row can be deletable (no transaction that changed a row has
   * committed yet): a bottom-up pass then has nothing to find and only its answer is worked out. Absent:
   * assumed true.
   */
  anyDeletable?(): boolean;
}

/** The heap side of a virtual leaf's TIDs: the built list (row ids in key order) and each row's facts. */
export interface BuildSource {
  /** The k-th TID of the build, as a row id. */
  rowAt(k: number): number;
  /** Key column c (0 … m − 1 of the index) of a row. */
  key(c: number, row: number): number;
  /** The heap block of the row's current version, and its TID's place within the block: versions are numbered as they are made, so a later one sorts after (and names the version). */
  block(row: number): number;
  seq(row: number): number;
  /** Bytes of the row's plain leaf tuple (MAXALIGNed) and of a pivot holding its first key column. */
  tupleBytes(row: number): number;
  pivotBytes(row: number): number;
}

/** How a new TID comes: a new row, an UPDATE that left this index's columns alone, or one that changed them. */
export const enum InsertKind {
  Insert = 0,
  Unchanged = 1,
  Changed = 2,
}
