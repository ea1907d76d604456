/**
 * A max-tree over pages: per page the bytes a new row may take there, and "the first page at or after
 * `from` with at least N bytes" in O(log pages). It stands for SQL Server's PFS pages, Oracle's ASSM
 * bitmap blocks and PostgreSQL's free space map (which is itself a tree of max values, fsm_internals.h).
 */
/** The value of a page that takes nothing (and of slots beyond the last page). */
const FREE_TREE_NONE = -0x80000000;

export class FreeTree {
  private size = 1;
  private nodes: Int32Array;

  constructor(capacity = 1024) {
    while (this.size < capacity) this.size *= 2;
    this.nodes = new Int32Array(2 * this.size).fill(FREE_TREE_NONE);
  }

  private grow(n: number): void {
    let size = this.size;
    while (size < n) size *= 2;
    const t = new Int32Array(2 * size).fill(FREE_TREE_NONE);
    t.set(this.nodes.subarray(this.size, 2 * this.size), size);
    this.size = size;
    this.nodes = t;
    for (let i = size - 1; i >= 1; i--) t[i] = Math.max(t[2 * i]!, t[2 * i + 1]!);
  }

  set(page: number, value: number): void {
    if (page >= this.size) this.grow(page + 1);
    let i = page + this.size;
    this.nodes[i] = value;
    for (i >>= 1; i >= 1; i >>= 1) {
      const v = Math.max(this.nodes[2 * i]!, this.nodes[2 * i + 1]!);
      if (this.nodes[i] === v) break;
      this.nodes[i] = v;
    }
  }

  get(page: number): number {
    return page < this.size ? this.nodes[page + this.size]! : FREE_TREE_NONE;
  }

  /** The first page ≥ from whose value is ≥ need, or −1. */
  findFrom(need: number, from = 0): number {
    const t = this.nodes;
    const size = this.size;
    if (from >= size || t[1]! < need) return -1;
    let i = from + size;
    if (t[i]! >= need) return from;
    // Climb until a right sibling holds a fit: the first such subtree holds the first fit after `from`.
    for (;;) {
      if ((i & 1) === 0 && t[i + 1]! >= need) {
        i++;
        break;
      }
      i >>= 1;
      if (i <= 1) return -1;
    }
    // Descend to its leftmost leaf with a fit.
    while (i < size) {
      i <<= 1;
      if (t[i]! < need) i++;
    }
    return i - size;
  }

  /** First fit at or after `from`, wrapping around to the start. */
  findWrapping(need: number, from: number): number {
    const a = this.findFrom(need, from);
    if (a >= 0 || from === 0) return a;
    return this.findFrom(need, 0);
  }

  clear(): void {
    this.nodes.fill(FREE_TREE_NONE);
  }

  get byteLength(): number {
    return this.nodes.byteLength;
  }
}

/**
 * PFS (SQL Server's Page Free Space): the room a page's band guarantees a new record, by the page's used
 * bytes (0 … usable): the page is in the first band whose upper bound (`uppers`, % full) its used share
 * does not exceed, and the band guarantees the rest of `baseBytes` above that bound [DBA-15026].
 */
export function pfsRoomTable(uppers: readonly number[], baseBytes: number, usable: number): Uint16Array {
  const guaranteed = uppers.map((upper) => Math.floor((baseBytes * (100 - upper)) / 100));
  if (guaranteed.some((g) => g < 0 || g > 0xffff)) throw new Error(`ForwardingHeap: PFS bands of ${baseBytes} bytes do not fit 16 bits`);
  const table = new Uint16Array(usable + 1);
  for (let used = 0; used <= usable; used++) {
    let band = 0;
    while (band < uppers.length - 1 && 100 * used > uppers[band]! * usable) band++;
    table[used] = guaranteed[band]!;
  }
  return table;
}
