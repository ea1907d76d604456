/**
 * One InnoDB index as a B+tree of pages (README.md beside this file): records in key order on leaf pages, node pointers on the levels
 * above, the splits, reorganisations and merges of the MariaDB source (storage/innobase/btr/btr0cur.cc, btr0btr.cc, btr0bulk.cc). A page is
 * its records' bytes (`data`, as PAGE_HEAP_TOP less the free list), its deleted records' bytes (PAGE_GARBAGE), its record count and
 * PAGE_LAST_INSERT; what a record is made of is the format's business (src/formats/innodb.ts).
 */
import { grown } from '../util/arrays.js';
import { dirReserved, Entries, type TreeCounters, type TreeOptions } from './entries.js';
import { Segment, type Direction } from './segment.js';

export { dirReserved, type TreeCounters, type TreeOptions };

export class IndexTree {
  readonly leaf = new Entries();
  readonly ptr = new Entries();
  readonly leafSegment: Segment;
  readonly topSegment: Segment;
  /** Per page: its records (entry ids, child pages above the leaves) in key order. */
  private ents: number[][] = [];
  private data = new Int32Array(16);
  private garbage = new Int32Array(16);
  /**
   * Per page: the bytes of the deleted records on its free list (PAGE_FREE), the head last. An insert reuses the head when it is large
   * enough; PAGE_N_HEAP counts them until a reorganisation.
   */
  private freeList: number[][] = [];
  private last = new Int32Array(16);
  /**
   * Per page: the live record with the highest heap number (the last written above the heap), or −1. Deleted, it goes back to the heap
   * (PAGE_HEAP_TOP, PAGE_N_HEAP − 1), not to PAGE_FREE (page0cur.cc page_mem_free).
   */
  private top = new Int32Array(16);
  /** Per page: where on its free list the heap's top slot is, or −1; a record that reuses it is the top (it takes its heap number). */
  private topFree = new Int32Array(16);
  private level = new Uint8Array(16);
  /** Per page: its page number in the file (space.ts), the hint for pages beside it and for its freeing. */
  private slot = new Int32Array(16);
  private pageCount = 0;
  private freePages: number[] = [];
  /** Per level, the pages in key order. */
  private order: number[][] = [];
  readonly counters: TreeCounters = { page_splits: 0, page_merges: 0, page_reorganizes: 0, inserts_to_right_sibling: 0 };
  /** Told of each leaf split: the page split, the new page, the entries that moved to it. */
  onSplit: ((page: number, newPage: number, moved: number[]) => void) | null = null;
  /** Told of leaf entries a merge moved from one page to another. */
  onMerge: ((moved: readonly number[], from: number, to: number) => void) | null = null;
  /** Told of each record a sorted build puts on a leaf (BtrBulk::insert stores its off-page columns then). */
  onBulkLeafRecord: ((id: number, page: number) => void) | null = null;

  constructor(readonly options: TreeOptions) {
    this.leafSegment = new Segment(options.extentPages, options.space);
    this.topSegment = new Segment(options.extentPages, options.space);
    this.reset();
  }

  /** The empty index: a root page, allocated in the non-leaf segment (btr_create). */
  private reset(): void {
    this.ents = [];
    this.pageCount = 0;
    this.freePages = [];
    this.order = [[this.newPage(0)]];
    this.leafSegment.reset();
    this.topSegment.reset();
    this.allocFor(1, 0);
  }

  private segment(level: number): Segment {
    return level === 0 ? this.leafSegment : this.topSegment;
  }

  /** Page p taken from the segment of `level` (1: the non-leaf segment), beside page `near` (the page split) going `dir`; its place is kept for its freeing. */
  private allocFor(level: number, p: number, near = -1, dir: Direction = 'none'): void {
    const seg = this.segment(level);
    this.slot[p] = seg.alloc(near < 0 ? 0 : seg.beside(this.slot[near]!, dir), dir);
  }

  // ---- pages -----------------------------------------------------------------------------------

  private newPage(level: number): number {
    const p = this.freePages.pop() ?? this.pageCount++;
    if (p >= this.data.length) {
      this.data = grown(this.data, p + 1);
      this.garbage = grown(this.garbage, p + 1);
      this.last = grown(this.last, p + 1);
      this.top = grown(this.top, p + 1);
      this.topFree = grown(this.topFree, p + 1);
      this.level = grown(this.level, p + 1);
      this.slot = grown(this.slot, p + 1);
    }
    this.ents[p] = [];
    this.data[p] = this.garbage[p] = 0;
    this.freeList[p] = [];
    this.last[p] = -1;
    this.top[p] = this.topFree[p] = -1;
    this.level[p] = level;
    this.ptr.ensure(p + 1);
    return p;
  }

  private dropPage(p: number): void {
    this.ents[p] = [];
    this.freePages.push(p);
    this.segment(this.level[p]!).free(this.slot[p]!);
  }

  private store(level: number): Entries {
    return level === 0 ? this.leaf : this.ptr;
  }

  /** Bytes an insert may still take on p after a reorganisation, with a directory slot for `more` records. */
  private roomAfterReorganize(p: number, more = 1): number {
    return this.options.freeSpaceOfEmpty - this.data[p]! - dirReserved(this.ents[p]!.length + more);
  }

  /** The leaf entry an entry's key is: itself on the leaves, the copied record's for a node pointer. */
  private origin(s: Entries, a: number): number {
    return s === this.leaf ? a : s.origin[a]!;
  }

  /** Entry a of store sa against entry b of store sb: key, then tie, then the leaf entry each key was taken from. */
  private compare(sa: Entries, a: number, sb: Entries, b: number): number {
    return sa.key[a]! - sb.key[b]! || sa.tie[a]! - sb.tie[b]! || this.origin(sa, a) - this.origin(sb, b);
  }

  /** Index in order[level] of the page whose key range holds entry `id` of that level: the last whose node pointer is ≤ it. */
  private findPage(level: number, id: number): number {
    const pages = this.order[level]!;
    const s = this.store(level);
    let lo = 1;
    let hi = pages.length - 1;
    let at = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(this.ptr, pages[mid]!, s, id) <= 0) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return at;
  }

  /** Where entry `id` of `level` goes among page p's records. */
  private findPos(level: number, p: number, id: number): number {
    const e = this.ents[p]!;
    const s = this.store(level);
    let lo = 0;
    let hi = e.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(s, e[mid]!, s, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private place(level: number, p: number, pos: number, id: number): void {
    const s = this.store(level);
    this.ents[p]!.splice(pos, 0, id);
    this.data[p]! += s.bytes[id]!;
    this.last[p] = id;
    s.page[id] = p;
  }

  // ---- inserts ---------------------------------------------------------------------------------

  /** A record (entry id, key, tie, bytes) inserted where its key sorts, splitting pages as InnoDB does. */
  insert(id: number, key: number, tie: number, bytes: number): void {
    this.leaf.ensure(id + 1);
    this.leaf.key[id] = key;
    this.leaf.tie[id] = tie;
    this.leaf.bytes[id] = bytes;
    this.insertAt(0, id);
  }

  private insertAt(level: number, id: number): void {
    const p = this.order[level]![this.findPage(level, id)]!;
    const pos = this.findPos(level, p, id);
    if (!this.optimisticInsert(level, p, pos, id)) this.pessimisticInsert(level, p, pos, id);
  }

  /**
   * btr_cur_optimistic_insert: the record fits after a reorganisation, and on a clustered index's leaf with inserts converging on this
   * point (btr_page_get_split_rec_to_right/left) 1/16 of the page stays free: the page splits instead, which is why sequential inserts
   * leave leaves 15/16 full.
   */
  private optimisticInsert(level: number, p: number, pos: number, id: number): boolean {
    const bytes = this.store(level).bytes[id]!;
    const room = this.roomAfterReorganize(p);
    const n = this.ents[p]!.length;
    if (room < bytes) return false;
    if (this.garbage[p]! > 0 && room < this.options.reorganizeLimitBytes && n > 1 && this.heapFree(p) < bytes) return false;
    const converging = this.splitToRight(p, pos) >= 0 || this.splitToLeft(p, pos) >= 0;
    if (level === 0 && n >= 2 && this.options.convergingReserve + bytes > room && converging) return false;
    this.placeAt(level, p, pos, id);
    return true;
  }

  /**
   * page_get_max_insert_size(): the free bytes above the record heap for `more` records, the directory reserved for every record of the
   * heap (PAGE_N_HEAP), deleted ones on the free list included.
   */
  private heapFree(p: number, more = 1): number {
    return this.roomAfterReorganize(p, more + this.freeList[p]!.length) - this.garbage[p]!;
  }

  /**
   * btr_page_reorganize: the records copied to a fresh page in order; the free list and its garbage are gone, and PAGE_LAST_INSERT is the
   * last record copied.
   */
  private reorganize(p: number): void {
    this.garbage[p] = 0;
    this.freeList[p] = [];
    this.last[p] = this.top[p] = this.ents[p]!.at(-1) ?? -1;
    this.topFree[p] = -1;
    this.counters.page_reorganizes++;
  }

  /** Can a record of `bytes` be written on p without a reorganisation: in the free list's head record, or above the heap? */
  private fitsWithoutReorganize(p: number, bytes: number): boolean {
    return (this.freeList[p]!.at(-1) ?? 0) >= bytes || this.heapFree(p) >= bytes;
  }

  /**
   * Where page_cur_insert_rec_low writes a record of `bytes`: the head of the free list when it is large enough (PAGE_GARBAGE less the
   * record), else above the heap, else after btr_page_reorganize.
   */
  private placeAt(level: number, p: number, pos: number, id: number): void {
    const bytes = this.store(level).bytes[id]!;
    const reuse = (this.freeList[p]!.at(-1) ?? 0) >= bytes;
    if (reuse) {
      // PAGE_GARBAGE loses the new record's bytes; what the reused record had more stays garbage until a reorganisation.
      this.freeList[p]!.pop();
      this.garbage[p]! -= bytes;
    } else if (this.heapFree(p) < bytes) this.reorganize(p);
    this.place(level, p, pos, id);
    if (!reuse || this.topFree[p] === this.freeList[p]!.length) {
      this.top[p] = id;
      this.topFree[p] = -1;
    }
  }

  /** A record leaves page p's heap: onto the free list (PAGE_GARBAGE), or, the heap's top, back to the heap (page_mem_free). */
  private freeRecord(p: number, id: number, bytes: number): void {
    if (this.top[p] === id) {
      this.top[p] = -1;
      return;
    }
    this.garbage[p]! += bytes;
    this.freeList[p]!.push(bytes);
  }

  /**
   * btr_page_get_split_rec_to_right: the previous insert on this page was the record just before the insert point (PAGE_LAST_INSERT): the
   * split keeps one record after the insert point on this page and moves the rest; returns the first position that moves (n: the new record
   * goes alone to the new page, with the record after it), or −1 when the inserts do not converge here.
   */
  private splitToRight(p: number, pos: number): number {
    const e = this.ents[p]!;
    if (pos === 0 || this.last[p] !== e[pos - 1]) return -1;
    return pos + 1 < e.length ? pos + 1 : pos;
  }

  /** btr_page_get_split_rec_to_left: the previous insert was the record just after the insert point (descending inserts). */
  private splitToLeft(p: number, pos: number): number {
    const e = this.ents[p]!;
    if (pos >= e.length || this.last[p] !== e[pos]) return -1;
    return pos >= 2 ? pos - 1 : pos;
  }

  /**
   * btr_cur_pessimistic_insert → btr_page_split_and_insert: into the right sibling when the record goes last on its page and fits there
   * (btr_insert_into_right_sibling), else a split.
   */
  private pessimisticInsert(level: number, p: number, pos: number, id: number): void {
    const pages = this.order[level]!;
    const at = pages.indexOf(p);
    const next = pages[at + 1];
    const bytes = this.store(level).bytes[id]!;
    if (
      pos === this.ents[p]!.length &&
      next !== undefined &&
      this.roomAfterReorganize(next) >= bytes &&
      this.fitsWithoutReorganize(next, bytes)
    ) {
      this.placeAt(level, next, 0, id);
      this.counters.inserts_to_right_sibling++;
      // "We have to change the parent node pointer": the sibling's first record is now the new one.
      this.repoint(level, next, id);
      return;
    }
    this.split(level, p, pos, id);
  }

  /**
   * Page p's node pointer rebuilt from its first record `first` (btr_insert_into_right_sibling, and btr_cur_pessimistic_delete of a page's
   * first node pointer): the old one is deleted from the parent, the parent compressed if under MERGE_THRESHOLD
   * (btr_cur_compress_if_useful), and the new one inserted on the level above where its key sorts (btr_insert_on_non_leaf_level): below the
   * parent's first key, that is the parent's left sibling.
   */
  private repoint(level: number, p: number, first: number): void {
    const parent = this.ptr.page[p]!;
    this.removeAt(level + 1, parent, this.ents[parent]!.indexOf(p));
    const parentIsRoot = this.order.length === level + 2;
    if (!parentIsRoot && this.data[parent]! < this.options.mergeLimitBytes) this.compress(level + 1, parent);
    this.setPointer(level, p, first);
    this.insertAt(level + 1, p);
  }

  /**
   * btr_cur_pessimistic_delete of page p's first node pointer: on the level's leftmost page the next one becomes the minimum record
   * (btr_set_min_rec_mark); elsewhere p's own node pointer is rebuilt from it.
   */
  private firstPointerRemoved(level: number, p: number): void {
    const first = this.ents[p]![0]!;
    if (p !== this.order[level]![0]) return this.repoint(level, p, first);
    this.ptr.key[first] = -Infinity;
    this.ptr.tie[first] = -Infinity;
    this.ptr.origin[first] = -1;
  }

  /** The node pointer of page p takes the key of entry `id` (its first record). */
  private setPointer(level: number, p: number, id: number): void {
    const s = this.store(level);
    this.ptr.key[p] = s.key[id]!;
    this.ptr.tie[p] = s.tie[id]!;
    this.ptr.origin[p] = this.origin(s, id);
    this.ptr.bytes[p] = this.pointerBytes(level, id);
  }

  /** Bytes of a node pointer to a leaf whose first record is entry `id` (dict_index_build_node_ptr: its key fields and a 4-byte page number). */
  leafPointerBytes: (id: number) => number = () => 0;

  /** A node pointer to a page whose first record is `id` of `level`: above the leaves, a copy of that record's own pointer. */
  private pointerBytes(level: number, id: number): number {
    return level === 0 ? this.leafPointerBytes(id) : this.ptr.bytes[id]!;
  }

  /**
   * btr_page_split_and_insert: the split point by the insert heuristics, or the middle record (page_get_middle_rec); the upper half moves
   * to a new page; the record goes to its half, and when it still does not fit the half is split again at the point that halves the bytes
   * (btr_page_get_split_rec).
   */
  private split(level: number, p: number, pos: number, id: number): void {
    // btr_cur_pessimistic_insert: fsp_reserve_free_extents(⌊height / 16⌋ + 3) before the split.
    this.options.space.reserve(Math.floor(this.order.length / 16) + 3);
    // A full root is raised first (btr_root_raise_and_insert), and its copy is split as any page.
    if (this.order.length === level + 1) this.raiseRoot(level);
    const n = this.ents[p]!.length;
    let from = this.splitToRight(p, pos);
    // split_rec NULL: the new record is the first of the upper half.
    let upperFirst = from >= 0 && from === pos;
    let down = false;
    if (from < 0) {
      from = this.splitToLeft(p, pos);
      down = from >= 0;
    }
    if (from < 0) {
      from = n > 1 ? Math.floor((n + 2) / 2) - 1 : pos === 0 ? 0 : 1;
      upperFirst = n === 1 && pos === 1;
    }
    const halves = this.splitAt(level, p, from, down, upperFirst ? id : -1);
    this.insertIntoHalf(level, upperFirst || pos > from ? halves.upper : halves.lower, id);
  }

  /** The record into the half it belongs to; while it does not fit, that half is split by bytes again. */
  private insertIntoHalf(level: number, target: number, id: number): void {
    const s = this.store(level);
    let pos = this.findPos(level, target, id);
    for (let round = 0; this.roomAfterReorganize(target) < s.bytes[id]! && this.ents[target]!.length > 0 && round < 64; round++) {
      const k = this.byteSplitPoint(level, target, pos, id);
      const from = k > pos ? k - 1 : k;
      const halves = this.splitAt(level, target, from, false, pos >= k && from === this.ents[target]!.length ? id : -1);
      target = pos < k ? halves.lower : halves.upper;
      pos = this.findPos(level, target, id);
    }
    this.placeAt(level, target, pos, id);
    if (pos === 0 && target !== this.order[level]![0]) this.setPointer(level, target, id);
  }

  /**
   * btr_page_get_split_rec: records from the left, the new one included at its place, until they and their directory slots reach half of
   * the bytes; the next record starts the upper half when the included ones fit an empty page, else the last included does. Returns that
   * record's place among the page's records with the new one at `pos` (1 … records).
   */
  private byteSplitPoint(level: number, p: number, pos: number, id: number): number {
    const s = this.store(level);
    const e = this.ents[p]!;
    const m = e.length + 1;
    const bytesAt = (k: number) => s.bytes[k === pos ? id : e[k < pos ? k : k - 1]!]!;
    const total = this.data[p]! + s.bytes[id]! + dirReserved(m);
    let included = 0;
    let k = 0;
    do included += bytesAt(k++);
    while (included + dirReserved(k) < total / 2 && k < m);
    if (!(included + dirReserved(k) <= this.options.freeSpaceOfEmpty && k < m)) k--;
    return Math.min(Math.max(k, 1), m - 1);
  }

  /**
   * Records from position `from` of page p on move to a new page after it (down: the records before `from` move to a new page before it);
   * the node pointer of the upper half goes to the level above (btr_attach_half_pages), a new root level when p was the root. `firstId`:
   * the record that will be the upper half's first when none moves. Returns the two halves' pages.
   */
  private splitAt(level: number, p: number, from: number, down: boolean, firstId: number): { lower: number; upper: number } {
    if (this.order.length === level + 1) this.raiseRoot(level);
    const q = this.newPage(level);
    // btr_page_split_and_insert hints the page after the one split (FSP_UP), or before it (FSP_DOWN).
    this.allocFor(level, q, p, down ? 'down' : 'up');
    const e = this.ents[p]!;
    const s = this.store(level);
    const lower = down ? q : p;
    const upper = down ? p : q;
    const moved = down ? e.slice(0, from) : e.slice(from);
    this.ents[p] = down ? e.slice(from) : e.slice(0, from);
    this.ents[q] = moved;
    let bytes = 0;
    for (const m of moved) {
      bytes += s.bytes[m]!;
      s.page[m] = q;
    }
    this.data[p]! -= bytes;
    this.data[q] = bytes;
    this.freeMoved(level, p, moved, down);
    // The new page's records were copied in key order: its heap's top is the last.
    this.top[q] = moved.at(-1) ?? -1;
    this.last[p] = -1;
    // page_copy_rec_list_end/_start insert the copies one by one (page_cur_insert_rec_low): the last copied is PAGE_LAST_INSERT.
    this.last[q] = moved.at(-1) ?? -1;
    const pages = this.order[level]!;
    const at = pages.indexOf(p);
    pages.splice(down ? at : at + 1, 0, q);
    if (down) this.replaceChild(level, p, q);
    const first = this.ents[upper]![0] ?? firstId;
    this.setPointer(level, upper, first);
    this.insertAt(level + 1, upper);
    this.counters.page_splits++;
    if (level === 0 && this.onSplit) this.onSplit(p, q, moved);
    return { lower, upper };
  }

  /**
   * page_delete_rec_list_end/_start: the records moved off page p join its free list (PAGE_GARBAGE). page_delete_rec_list_end chains them
   * in key order (the first is the head); page_delete_rec_list_start deletes them one by one from the first (the last is the head) with
   * page_cur_delete_rec, whose page_mem_free gives the heap's top back to the heap (a live server's page headers say both).
   */
  private freeMoved(level: number, p: number, moved: readonly number[], down: boolean): void {
    const s = this.store(level);
    if (down) {
      for (const m of moved) this.freeRecord(p, m, s.bytes[m]!);
      return;
    }
    const at = moved.indexOf(this.top[p]!);
    if (at >= 0) {
      this.topFree[p] = this.freeList[p]!.length + moved.length - 1 - at;
      this.top[p] = -1;
    }
    for (const m of moved) this.garbage[p]! += s.bytes[m]!;
    this.freeList[p]!.push(...moved.map((m) => s.bytes[m]!).reverse());
  }

  /** FSP_DOWN: the parent's node pointer to p now points at its new lower half q, which takes p's key. */
  private replaceChild(level: number, p: number, q: number): void {
    this.ptr.key[q] = this.ptr.key[p]!;
    this.ptr.tie[q] = this.ptr.tie[p]!;
    this.ptr.origin[q] = this.ptr.origin[p]!;
    this.ptr.bytes[q] = this.ptr.bytes[p]!;
    const parent = this.ptr.page[p]!;
    const e = this.ents[parent]!;
    e[e.indexOf(p)] = q;
    this.ptr.page[q] = parent;
  }

  /**
   * btr_root_raise_and_insert: the root's records move to a new page of their level and the root, one level up, points at it. The root
   * stays in the non-leaf segment; the new page is taken from the segment of its level.
   */
  private raiseRoot(level: number): void {
    const only = this.order[level]![0]!;
    const root = this.newPage(level + 1);
    // The root keeps its page (and segment); `only` now stands for the page its records moved to.
    this.slot[root] = this.slot[only]!;
    this.allocFor(level, only);
    // The records copied to the new page leave it without PAGE_LAST_INSERT: its first split is at the middle.
    this.last[only] = -1;
    this.order.push([root]);
    this.ptr.key[only] = -Infinity;
    this.ptr.tie[only] = -Infinity;
    this.ptr.origin[only] = -1;
    this.ptr.bytes[only] = this.ents[only]!.length > 0 ? this.pointerBytes(level, this.ents[only]![0]!) : 0;
    this.place(level + 1, root, 0, only);
  }

  // ---- updates, purge, merges --------------------------------------------------------------------

  /**
   * A record's new size (btr_cur_optimistic_update, btr_cur_pessimistic_update): a shrinking record leaves garbage and may bring the page
   * under MERGE_THRESHOLD; a growing one is rewritten on its page when it fits after a reorganisation, else deleted and inserted again,
   * which splits the page (the delete resets PAGE_LAST_INSERT, the reorganisation sets it to the last record: a second-to-last record
   * splits to the left, any other at the middle). Returns true when it stayed in place.
   */
  resize(id: number, bytes: number): boolean {
    const p = this.leaf.page[id]!;
    const old = this.leaf.bytes[id]!;
    if (bytes === old) return true;
    if (bytes < old) {
      this.leaf.bytes[id] = bytes;
      this.data[p]! -= old - bytes;
      this.garbage[p]! += old - bytes;
      if (this.data[p]! < this.options.mergeLimitBytes) this.compress(0, p);
      return true;
    }
    // btr_cur_optimistic_update gives up below BTR_CUR_PAGE_REORGANIZE_LIMIT ("did not pay to reorganize"), but btr_cur_pessimistic_update
    // then deletes the record and tries btr_cur_insert_if_possible (insert, else btr_page_reorganize and insert) on the same page before
    // any split: the record stays wherever it fits.
    if (bytes <= old + this.roomAfterReorganize(p, 0)) {
      // The old version joins the free list (too small to take the new one), or the heap when it was its top; the new one is written above
      // the heap, after a reorganisation if it must.
      const wasTop = this.top[p] === id;
      if (bytes > this.heapFree(p) + (wasTop ? old : 0)) this.reorganize(p);
      else this.freeRecord(p, id, old);
      this.top[p] = id;
      this.topFree[p] = -1;
      this.data[p]! += bytes - old;
      this.leaf.bytes[id] = bytes;
      // Deleted and inserted again (btr_cur_insert_if_possible): the record is PAGE_LAST_INSERT.
      this.last[p] = id;
      // DB_UNDERFLOW: a page left under MERGE_THRESHOLD takes the pessimistic path, which ends in btr_cur_compress_if_useful.
      if (this.data[p]! < this.options.mergeLimitBytes) this.compress(0, p);
      return true;
    }
    const pos = this.ents[p]!.indexOf(id);
    this.removeAt(0, p, pos);
    // btr_cur_insert_if_possible reorganises the page before it gives up on it: a reorganisation, then the split.
    this.reorganize(p);
    this.leaf.bytes[id] = bytes;
    this.pessimisticInsert(0, p, this.findPos(0, p, id), id);
    return false;
  }

  private removeAt(level: number, p: number, pos: number): void {
    const s = this.store(level);
    const id = this.ents[p]![pos]!;
    this.ents[p]!.splice(pos, 1);
    this.data[p]! -= s.bytes[id]!;
    this.freeRecord(p, id, s.bytes[id]!);
    // page_cur_delete_rec resets PAGE_LAST_INSERT.
    this.last[p] = -1;
    s.page[id] = -1;
    if (level > 0 && pos === 0 && this.ents[p]!.length > 0) this.firstPointerRemoved(level, p);
  }

  /**
   * Purge removes a delete-marked record (row_purge_remove_clust_if_poss, btr_cur_optimistic_delete, btr_cur_pessimistic_delete): its bytes
   * become PAGE_GARBAGE; a page left empty is freed, one below MERGE_THRESHOLD is merged with a sibling where the records fit
   * (btr_cur_compress_if_useful).
   */
  purge(id: number): void {
    const p = this.leaf.page[id]!;
    if (p < 0) return;
    this.removeAt(0, p, this.ents[p]!.indexOf(id));
    if (this.data[p]! < this.options.mergeLimitBytes) this.compress(0, p);
  }

  /**
   * btr_compress: a page under the merge limit goes into its left sibling when its records fit there after a reorganisation
   * (btr_can_merge_with_page), else into its right sibling; an empty page is discarded (btr_discard_page). The parent loses the page's node
   * pointer and is compressed in turn; a root left with one child takes the child's place (btr_lift_page_up).
   */
  private compress(level: number, p: number): void {
    const pages = this.order[level]!;
    if (pages.length <= 1) return;
    const at = pages.indexOf(p);
    const e = this.ents[p]!;
    const fitsIn = (q: number | undefined) =>
      q !== undefined && this.data[p]! <= this.options.freeSpaceOfEmpty - this.data[q]! - dirReserved(this.ents[q]!.length + e.length);
    const left = pages[at - 1];
    const right = pages[at + 1];
    if (e.length > 0 && !fitsIn(left) && !fitsIn(right)) return;
    const into = e.length === 0 ? undefined : fitsIn(left) ? left! : right!;
    if (into !== undefined) this.moveAll(level, p, into, into === left);
    pages.splice(at, 1);
    if (into !== undefined && into === right) this.pointerToRight(level + 1, p, into);
    else this.removeChild(level + 1, p);
    this.dropPage(p);
    this.counters.page_merges++;
  }

  private moveAll(level: number, p: number, q: number, append: boolean): void {
    const s = this.store(level);
    const e = this.ents[p]!;
    for (const id of e) s.page[id] = q;
    if (level === 0 && this.onMerge) this.onMerge(e, p, q);
    // btr_can_merge_with_page reorganises the sibling when the records do not fit above its heap.
    if (this.heapFree(q, e.length) < this.data[p]!) this.reorganize(q);
    this.ents[q] = append ? [...this.ents[q]!, ...e] : [...e, ...this.ents[q]!];
    this.data[q]! += this.data[p]!;
    // Copied above q's heap in key order: the last copied is its top.
    if (e.length > 0) this.top[q] = e.at(-1)!;
    this.ents[p] = [];
    this.data[p] = 0;
  }

  /**
   * btr_compress into the right sibling: the merged page's node pointer now points at the sibling (btr_node_ptr_set_child_page_no; its key,
   * the leftmost's minimum record included) and the sibling's own node pointer is deleted (btr_cur_pessimistic_delete), which may rekey or
   * compress its page.
   */
  private pointerToRight(level: number, p: number, right: number): void {
    const parent = this.ptr.page[p]!;
    const oldParent = this.ptr.page[right]!;
    const e = this.ents[parent]!;
    e[e.indexOf(p)] = right;
    // The sibling's own pointer, after the merged page's in key order (the same page or the next).
    this.removeAt(level, oldParent, this.ents[oldParent]!.lastIndexOf(right));
    this.ptr.page[right] = parent;
    this.ptr.key[right] = this.ptr.key[p]!;
    this.ptr.tie[right] = this.ptr.tie[p]!;
    this.ptr.origin[right] = this.ptr.origin[p]!;
    this.ptr.bytes[right] = this.ptr.bytes[p]!;
    this.afterPointerRemoved(level, oldParent);
  }

  /** The node pointer to `child` leaves its page on `level`. */
  private removeChild(level: number, child: number): void {
    const parent = this.ptr.page[child]!;
    if (parent < 0 || level >= this.order.length) return;
    this.removeAt(level, parent, this.ents[parent]!.indexOf(child));
    this.afterPointerRemoved(level, parent);
  }

  /** A page that lost a node pointer: a root left with one child lifts it, another page under MERGE_THRESHOLD is compressed. */
  private afterPointerRemoved(level: number, parent: number): void {
    if (level === this.order.length - 1) {
      if (this.ents[parent]!.length === 1) this.liftUp(level);
    } else if (this.data[parent]! < this.options.mergeLimitBytes) this.compress(level, parent);
  }

  /** btr_lift_page_up: the root's only child's records move into the root; the child's page is freed. */
  private liftUp(level: number): void {
    const root = this.order[level]![0]!;
    this.order.pop();
    const child = this.ents[root]![0]!;
    this.ptr.page[child] = -1;
    this.ents[root] = [];
    this.freePages.push(root);
    // The root page stays (in the non-leaf segment); the child's page, of the level below, is given back.
    this.segment(level - 1).free(this.slot[child]!);
    this.slot[child] = this.slot[root]!;
  }

  // ---- sorted builds ---------------------------------------------------------------------------

  /**
   * A sorted index build (btr0bulk.cc: CREATE INDEX, OPTIMIZE TABLE / ALTER TABLE … FORCE): the records in key order onto new pages, each
   * level's page closed when the next record and its directory slot would leave less than the build reserve free (but never before two
   * records: PageBulk::isSpaceAvailable), the node pointers of a level built the same way above it; the last level's one page is copied
   * into the root (BtrBulk::finish).
   */
  build(ids: Int32Array | number[]): void {
    this.reset();
    this.topSegment.free(this.slot[this.order[0]![0]!]!);
    let level = 0;
    let children = Array.from(ids);
    for (;;) {
      const pages = this.bulkLevel(level, children);
      if (pages.length <= 1) break;
      children = pages;
      level++;
    }
    // BtrBulk::finish: the top page's records are copied into the root (the index's first page, in the non-leaf segment), and the top page
    // is freed.
    const top = this.order[level]![0]!;
    const topSlot = this.slot[top]!;
    this.allocFor(1, top);
    this.segment(level).free(topSlot);
  }

  private bulkLevel(level: number, ids: number[]): number[] {
    const s = this.store(level);
    const pages: number[] = [];
    let p = -1;
    let free = 0;
    for (const id of ids) {
      const n = p < 0 ? 0 : this.ents[p]!.length;
      const need = s.bytes[id]! + dirReserved(n + 1) - dirReserved(n);
      if (p < 0 || free < need || (n >= 2 && free - need < this.options.buildReserveBytes)) {
        p = this.newPage(level);
        // PageBulk::init: btr_page_alloc with no hint (page 0), FSP_UP.
        this.allocFor(level, p, -1, 'up');
        pages.push(p);
        free = this.options.freeSpaceOfEmpty;
        if (level > 0 || pages.length > 1) this.setPointer(level, p, id);
      }
      this.ents[p]!.push(id);
      this.data[p]! += s.bytes[id]!;
      this.last[p] = this.top[p] = id;
      s.page[id] = p;
      if (level === 0 && this.onBulkLeafRecord) this.onBulkLeafRecord(id, p);
      free -= s.bytes[id]! + dirReserved(this.ents[p]!.length) - dirReserved(this.ents[p]!.length - 1);
    }
    if (pages.length === 0) {
      pages.push(this.newPage(level));
      this.allocFor(level, pages[0]!, -1, 'up');
    }
    this.order[level] = pages;
    this.ptr.key[pages[0]!] = -Infinity;
    return pages;
  }

  /** Page p's page number in the file. */
  filePage(p: number): number {
    return this.slot[p]!;
  }

  /** The entry ids of the leaf level in key order. */
  leafEntries(): number[] {
    return this.order[0]!.flatMap((p) => this.ents[p]!);
  }

  // ---- observation -----------------------------------------------------------------------------

  get levels(): number {
    return this.order.length;
  }

  leafPageList(): readonly number[] {
    return this.order[0]!;
  }

  pagesAbove(): number {
    return this.order.slice(1).reduce((sum, pages) => sum + pages.length, 0);
  }

  /** Records on every page of the tree: the leaves' and the node pointers above them. */
  allRecords(): number {
    return this.order.reduce((sum, pages) => sum + pages.reduce((n, p) => n + this.ents[p]!.length, 0), 0);
  }

  records(): number {
    return this.order[0]!.reduce((sum, p) => sum + this.ents[p]!.length, 0);
  }

  /** A leaf record's page as an update finds it: free bytes after a reorganisation (its garbage included) and above the heap. */
  updateRoom(id: number): { free: number; contiguous: number } {
    const p = this.leaf.page[id]!;
    const free = this.roomAfterReorganize(p, 0);
    return { free, contiguous: free - this.garbage[p]! };
  }

  pageRecords(p: number): readonly number[] {
    return this.ents[p]!;
  }

  pageData(p: number): number {
    return this.data[p]!;
  }

  pageGarbage(p: number): number {
    return this.garbage[p]!;
  }

  /** Pages numbered so far (the highest page id + 1). */
  get numbered(): number {
    return this.pageCount;
  }

  /** Broken invariants of the tree, described. */
  check(): string[] {
    const bad: string[] = [];
    for (let level = 0; level < this.order.length; level++) {
      const s = this.store(level);
      let prev = -1;
      for (const p of this.order[level]!) {
        let bytes = 0;
        for (const id of this.ents[p]!) {
          bytes += s.bytes[id]!;
          if (s.page[id] !== p) bad.push(`${this.options.name}: entry ${id} of level ${level} says page ${s.page[id]}, is on ${p}`);
          if (prev >= 0 && this.compare(s, prev, s, id) >= 0)
            bad.push(`${this.options.name}: level ${level} out of key order at page ${p}`);
          prev = id;
        }
        const first = this.ents[p]![0];
        if (level > 0 && first !== undefined && p !== this.order[level]![0] && this.compare(this.ptr, p, this.ptr, first) > 0)
          bad.push(`${this.options.name}: page ${p} of level ${level} keyed above its first node pointer`);
        if (bytes !== this.data[p]) bad.push(`${this.options.name}: page ${p} keeps ${this.data[p]} bytes, holds ${bytes}`);
        if (this.roomAfterReorganize(p, 0) < 0) bad.push(`${this.options.name}: page ${p} holds more than a page`);
      }
    }
    return bad;
  }
}
