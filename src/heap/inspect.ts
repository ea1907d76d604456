/**
 * What an engine can say about one page of its table, for the drawings and the trace (src/mechanism):
 * the entries of the page's slot array, the bytes of each, the free space. Engines keep byte totals and
 * row placements, not the positions of rows inside a page nor the slot numbers the DBMS would give, so
 * an inspector numbers a page's entries in a fixed order (rows whose home is the page by row id, then rows
 * forwarded in by row id) and the drawings say so.
 */

/**
 * What one entry of a page's slot array (row offset table, line pointers, slot array, row directory)
 * holds: a row's body (`row`), a forwarding stub at the row's home (`stub`), a body that lives here away
 * from home (`forwarded`), PostgreSQL's heap-only tuple (`heap-only`), versions whose deleting
 * transaction is open (`pending`) or committed (`dead`), a chain root kept by pruning (`redirect`; the
 * engines count LP_REDIRECT and LP_DEAD together, the page book of src/mechanism tells LP_DEAD apart as
 * `dead-lp`), and unused line pointers (`unused`).
 */
export type SlotKind = 'row' | 'stub' | 'forwarded' | 'heap-only' | 'pending' | 'dead' | 'redirect' | 'dead-lp' | 'unused';

export interface SlotRef {
  page: number;
  slot: number;
}

export interface SlotDetail {
  /** Position in the page's slot array, in the format's own numbering (PostgreSQL's lp from 1). */
  slot: number;
  kind: SlotKind;
  /** The row's id in the simulation (absent for entries that are counted, not named). */
  row?: number;
  /** Bytes of what this entry points to on this page: a body, a stub (0: a line pointer without storage). */
  bytes: number;
  /** Bytes charged for the row's growth (exp_row_size) beyond its body. */
  reserved?: number;
  /** A stub: where the row's body lives. */
  to?: SlotRef;
  /** A forwarded body: the home page and slot whose stub points here. */
  from?: SlotRef;
  /** Oracle: blocks the row continues on (chained row pieces), beyond this one. */
  pieces?: number;
  /** Entries the engine counts but does not name (dead versions, unused line pointers): how many. */
  count?: number;
  /** Where its storage starts, in bytes from the row area's origin (set only when the page is positioned: see PageDetail). */
  offset?: number;
  /** PostgreSQL: an old version whose update was HOT (its t_ctid, `to`, leads along the HOT chain). */
  hot?: boolean;
}

/** What the engine knows about one page. */
export interface PageDetail {
  page: number;
  /** Pages the table has allocated. */
  pages: number;
  /** Page numbers in use run from 0 to this − 1 (more than `pages` once pages were given back). */
  numbered?: number;
  allocated: boolean;
  slots: SlotDetail[];
  /** Bytes of bodies and stubs (PostgreSQL: tuple storage, MAXALIGNed). */
  storedBytes: number;
  /** Bytes of the slot array. */
  slotArrayBytes: number;
  /** Bytes charged for growth (exp_row_size), part of the free space. */
  reservedBytes: number;
  /** Free bytes in holes between rows (left by rows that shrank, moved or were deleted). */
  fragmentedBytes: number;
  /** Free bytes in one piece, where a new or rewritten row goes without compacting the page. */
  contiguousBytes: number;
  /** A clustered table's page: the range of row ids (keys) it holds and its neighbours in key order. */
  keyRange?: { first: number; last: number; prev: number; next: number };
  /** Engine flags worth showing (PostgreSQL PD_PAGE_FULL). */
  flags: string[];
  /**
   * Real slot numbers and byte positions (the page book, src/mechanism/page-book.ts): every entry with
   * storage has its `offset`, and `to` / `from` name real slots. Without it, the engines' own order and
   * totals: the drawing packs rows in slot order.
   */
  positioned?: boolean;
}

/** Every page of the table at one moment, read once (building it costs one pass over the rows). */
export interface PageInspector {
  /** Pages of the table (allocated or not: the highest page number + 1). */
  readonly pages: number;
  page(p: number): PageDetail;
  /** Where a live row's slot is (its home), or null. */
  locate(row: number): SlotRef | null;
}

/**
 * An inspector that holds what `page` said of every page (or of the pages `only` names) when it was made: later changes to the engine
 * do not reach it (the trace draws a page before a step from one taken before the step). A row's place is
 * its entry at home (a body there, or the stub of a forwarded row).
 */
export function frozenInspector(pages: number, page: (p: number) => PageDetail, only?: readonly number[]): PageInspector {
  const details = new Map<number, PageDetail>();
  const home = new Map<number, SlotRef>();
  const read = (p: number) => {
    const d = page(p);
    d.numbered = pages;
    details.set(p, d);
    for (const s of d.slots) if (s.row !== undefined && s.kind !== 'forwarded') home.set(s.row, { page: p, slot: s.slot });
  };
  if (only) for (const p of only) read(p);
  else for (let p = 0; p < pages; p++) read(p);
  const beyond = page(pages);
  return {
    pages,
    page: (p) => {
      const d = details.get(p);
      if (d) return d;
      if (p >= 0 && p < pages) throw new Error(`page ${p} was not read when the inspector was made`);
      return { ...beyond, page: p, slots: [], flags: [], numbered: pages };
    },
    locate: (row) => home.get(row) ?? null,
  };
}

/**
 * Int32Arrays kept from one call to the next on a thread, by slot, for what an inspector or a scan builds
 * and drops before it returns (the buckets below, a row's slot on its page). A page map's drawings inspect
 * a 1M-row table twice a run; fresh arrays of 4 MB each cost a page fault for every 4 kB page first
 * touched (15–20 µs each on a virtual machine), more than filling them does. The contents are whatever
 * the last user left: callers write every element they read.
 */
const kept: Int32Array[] = [];
/** Elements of the largest array kept (8 MB): a larger table's arrays are made for the call and dropped, so a thread holds at most 32 MB of these between calls. */
const KEEP_MAX = 1 << 21;

/** Scratch slot `slot` (0 … 3: bucketRows, and the forwarding heap inspector's buckets) as an Int32Array of `length` elements, contents undefined. */
export function scratchInt32(slot: number, length: number): Int32Array {
  if (length > KEEP_MAX) return new Int32Array(length);
  let a = kept[slot];
  if (!a || a.length < length) {
    a = new Int32Array(Math.min(KEEP_MAX, Math.max(length, Math.ceil((a?.length ?? 0) * 1.25))));
    kept[slot] = a;
  }
  return a.subarray(0, length);
}

/** Rows bucketed by page, in row-id order: page p's are rows[start[p] … start[p + 1]). */
export interface RowBuckets {
  start: Int32Array;
  rows: Int32Array;
}

/**
 * Rows bucketed by page, in row-id order: a counting sort of `pageOf` (−1: none). With `slot` (0 or 1),
 * on scratch arrays (scratchInt32 slots 2·slot and 2·slot + 1) that the next call with that slot
 * overwrites: for a caller that is done with the buckets before it returns.
 */
export function bucketRows(rowHigh: number, pages: number, pageOf: (r: number) => number, slot?: 0 | 1): RowBuckets {
  const start = slot === undefined ? new Int32Array(pages + 1) : scratchInt32(2 * slot, pages + 1).fill(0);
  let n = 0;
  for (let r = 0; r < rowHigh; r++) {
    const p = pageOf(r);
    if (p >= 0) {
      start[p + 1]!++;
      n++;
    }
  }
  for (let p = 0; p < pages; p++) start[p + 1]! += start[p]!;
  const fill = start.slice(0, pages);
  const rows = slot === undefined ? new Int32Array(n) : scratchInt32(2 * slot + 1, n);
  for (let r = 0; r < rowHigh; r++) {
    const p = pageOf(r);
    if (p >= 0) rows[fill[p]!++] = r;
  }
  return { start, rows };
}

/** In inspectedPages' answer: a page asked for (1: a page linked to one). */
export const PAGE_ASKED = 2;

/**
 * Which pages an inspector's buckets cover (non-zero: covered): every page (1), or the pages `only` names
 * (PAGE_ASKED). An engine whose page details name other pages (a forwarding stub, a forwarded body) marks
 * those pages 1 as well: a slot on one names its place on the other.
 */
export function inspectedPages(pages: number, only: readonly number[] | undefined): Uint8Array {
  const need = new Uint8Array(pages);
  if (only === undefined) return need.fill(1);
  for (const p of only) if (p >= 0 && p < pages) need[p] = PAGE_ASKED;
  return need;
}

/** Where row `row` is among the rows `buckets` holds for page `page` (they are in row order): its index there, or −1. */
export function slotIn(buckets: RowBuckets, page: number, row: number): number {
  let lo = buckets.start[page]!;
  let hi = buckets.start[page + 1]! - 1;
  const first = lo;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const r = buckets.rows[mid]!;
    if (r === row) return mid - first;
    if (r < row) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
