/**
 * A buffer cache of a fixed number of pages, for read phases: every page read is a hit or a miss.
 *
 * Pages are named by (object, page): object 0 is the table's heap, then its LOB/TOAST store, then one
 * object per index (src/heap/page-reads.ts numbers them). Two replacement policies:
 *
 * - `lru`: least recently used. A hit moves the page to the front; a miss evicts the page at the back.
 * - `clock`: PostgreSQL's clock sweep (src/backend/storage/buffer/freelist.c StrategyGetBuffer, README
 *   "Buffer Ring Replacement Strategy"): each buffer has a usage count, raised by one on every access up to
 *   BM_MAX_USAGE_COUNT = 5 (buf_internals.h); to find a victim the hand moves round the buffers, taking the
 *   first whose count is 0 and lowering the count of every other it passes. PostgreSQL's ring buffer for
 *   large sequential scans is not modelled: a scan goes through the cache like any read.
 *
 * Lookups go through an open-addressing hash table (linear probing, deletion by backward shift), so a
 * read costs a few array accesses and no allocation.
 */

/** BM_MAX_USAGE_COUNT (PostgreSQL buf_internals.h): the most a buffer's usage count rises to. */
export const PG_MAX_USAGE_COUNT = 5;

export type CachePolicy = 'lru' | 'clock';

const EMPTY = -1;

export class BufferCache {
  /** Page held by each frame: its object and page number (−1: the frame is free). */
  private readonly frameObject: Int32Array;
  private readonly framePage: Int32Array;
  /** LRU: the frames as a list, most recent first. */
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private head = EMPTY;
  private tail = EMPTY;
  /** Clock: the usage count of each frame and the hand. */
  private readonly usage: Uint8Array;
  private hand = 0;
  private used = 0;
  /** Hash slots: the frame whose page hashes here (−1: empty). */
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(
    readonly pages: number,
    readonly policy: CachePolicy,
  ) {
    if (!(pages >= 1 && Number.isInteger(pages))) throw new RangeError(`a cache of at least one page, found ${pages}`);
    this.frameObject = new Int32Array(pages).fill(EMPTY);
    this.framePage = new Int32Array(pages).fill(EMPTY);
    this.prev = new Int32Array(policy === 'lru' ? pages : 0).fill(EMPTY);
    this.next = new Int32Array(policy === 'lru' ? pages : 0).fill(EMPTY);
    this.usage = new Uint8Array(policy === 'clock' ? pages : 0);
    let size = 4;
    while (size < pages * 2) size *= 2;
    this.slots = new Int32Array(size).fill(EMPTY);
    this.mask = size - 1;
  }

  private hash(object: number, page: number): number {
    let h = Math.imul(page ^ Math.imul(object + 1, 0x9e3779b1), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    return (h ^ (h >>> 16)) & this.mask;
  }

  /** The frame holding (object, page), or −1. */
  private find(object: number, page: number): number {
    for (let i = this.hash(object, page); ; i = (i + 1) & this.mask) {
      const f = this.slots[i]!;
      if (f === EMPTY) return EMPTY;
      if (this.framePage[f] === page && this.frameObject[f] === object) return f;
    }
  }

  private insertSlot(f: number): void {
    let i = this.hash(this.frameObject[f]!, this.framePage[f]!);
    while (this.slots[i] !== EMPTY) i = (i + 1) & this.mask;
    this.slots[i] = f;
  }

  /** Remove frame f's page from the hash table (backward-shift deletion keeps every probe chain whole). */
  private removeSlot(f: number): void {
    let i = this.hash(this.frameObject[f]!, this.framePage[f]!);
    while (this.slots[i] !== f) i = (i + 1) & this.mask;
    let j = i;
    for (;;) {
      j = (j + 1) & this.mask;
      const g = this.slots[j]!;
      if (g === EMPTY) break;
      const home = this.hash(this.frameObject[g]!, this.framePage[g]!);
      // g may move into the hole at i when its home slot is not in (i, j] (cyclically).
      if (i <= j ? home <= i || home > j : home <= i && home > j) {
        this.slots[i] = g;
        i = j;
      }
    }
    this.slots[i] = EMPTY;
  }

  /** Read (object, page): true on a hit; on a miss the page is brought in, evicting one if the cache is full. */
  access(object: number, page: number): boolean {
    const f = this.find(object, page);
    if (f !== EMPTY) {
      if (this.policy === 'lru') this.toFront(f);
      else if (this.usage[f]! < PG_MAX_USAGE_COUNT) this.usage[f]!++;
      return true;
    }
    const victim = this.policy === 'lru' ? this.lruVictim() : this.clockVictim();
    if (this.frameObject[victim] !== EMPTY) this.removeSlot(victim);
    this.frameObject[victim] = object;
    this.framePage[victim] = page;
    this.insertSlot(victim);
    if (this.policy === 'lru') this.toFront(victim);
    else this.usage[victim] = 1;
    return false;
  }

  /** LRU: a free frame while there is one, else the least recently used. */
  private lruVictim(): number {
    if (this.used < this.pages) return this.used++;
    return this.tail;
  }

  /** Clock sweep: the first frame with usage 0, lowering the others the hand passes. */
  private clockVictim(): number {
    if (this.used < this.pages) return this.used++;
    for (;;) {
      const f = this.hand;
      this.hand = f + 1 === this.pages ? 0 : f + 1;
      if (this.usage[f] === 0) return f;
      this.usage[f]!--;
    }
  }

  private toFront(f: number): void {
    if (this.head === f) return;
    // Unlink: a frame in the list that is not its head has a predecessor; a new frame has none.
    const p = this.prev[f]!;
    if (p !== EMPTY) {
      const n = this.next[f]!;
      this.next[p] = n;
      if (n !== EMPTY) this.prev[n] = p;
      else this.tail = p;
    }
    this.prev[f] = EMPTY;
    this.next[f] = this.head;
    if (this.head !== EMPTY) this.prev[this.head] = f;
    this.head = f;
    if (this.tail === EMPTY) this.tail = f;
  }

  /** Pages held now. */
  get resident(): number {
    return this.used;
  }

  /** Forget pages of `object` from `fromPage` on (a table rewritten or truncated): they are no longer the same pages. */
  invalidate(object: number, fromPage = 0): void {
    for (let f = 0; f < this.used; f++) {
      if (this.frameObject[f] === object && this.framePage[f]! >= fromPage) {
        this.removeSlot(f);
        // The frame keeps its place in the list or the clock; a page no one will ask for ages out.
        this.frameObject[f] = -2;
        this.framePage[f] = -2 - f;
        this.insertSlot(f);
      }
    }
  }
}
