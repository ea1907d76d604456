/**
 * The forwarding heap's inspector (ForwardingHeap.inspect): each page's slot array as rowsim numbers it,
 * the rows whose home the page is (bodies or stubs) in row order, then the bodies forwarded in, with the
 * page's byte totals. Only the rows of the pages asked for, and of the pages their stubs point to and their
 * forwarded bodies come from, are bucketed: for a few pages of a large table nothing is made for every row.
 */
import type { PageGeometry } from './engine.js';
import { Page, PageState, Row, type ChainPieces } from './forwarding-pages.js';
import {
  frozenInspector,
  inspectedPages,
  PAGE_ASKED,
  scratchInt32,
  slotIn,
  type PageDetail,
  type PageInspector,
  type RowBuckets,
  type SlotDetail,
} from './inspect.js';

/** What the inspector reads of the heap, as the heap holds it (ForwardingHeap.inspect hands it over). */
export interface ForwardingHeapView {
  readonly rows: Int32Array;
  readonly rowHigh: number;
  readonly pageCount: number;
  readonly allocatedPages: number;
  readonly lastPage: number;
  readonly geometry: PageGeometry;
  readonly pageFields: Uint16Array;
  readonly state: Uint8Array;
  readonly stubBytes: number;
  readonly chainPieceOverheadBytes: number;
  readonly chain: ChainPieces | null;
}

/** The rows by home page and the forwarded bodies by the page they are on, on the pages inspected. */
interface PageRows {
  atHome: RowBuckets;
  movedIn: RowBuckets;
}

export function forwardingInspector(heap: ForwardingHeapView, only?: readonly number[]): PageInspector {
  const need = inspectedPages(heap.pageCount, only);
  if (only !== undefined) markLinkedPages(heap, need);
  const rows = bucketByPage(heap, need);
  return frozenInspector(heap.pageCount, (p) => pageDetail(heap, rows, p), only);
}

/**
 * The pages linked to those asked for: the pages their stubs point to and their forwarded bodies come
 * from (a slot on one names its place on the other). The tests run in the order that keeps the branches
 * predictable: few pages are asked for, while whether a row is forwarded is as good as random after
 * random updates.
 */
function markLinkedPages(heap: ForwardingHeapView, need: Uint8Array): void {
  const rows = heap.rows;
  const end = heap.rowHigh * Row.STRIDE;
  for (let i = 0; i < end; i += Row.STRIDE) {
    const h = rows[i + Row.HOME]!;
    if (h < 0) continue;
    const c = rows[i + Row.CUR]!;
    if (need[h] === PAGE_ASKED) {
      if (c !== h && need[c] === 0) need[c] = 1;
    } else if (need[c] === PAGE_ASKED && need[h] === 0) need[h] = 1;
  }
}

/**
 * The rows by home page and the forwarded bodies by the page they are on, in row order, on the pages
 * needed: a counting sort of both at once, on scratch arrays (inspect.ts, scratchInt32), which
 * frozenInspector has read every page it keeps from before the inspector is returned.
 */
function bucketByPage(heap: ForwardingHeapView, need: Uint8Array): PageRows {
  const n = heap.pageCount;
  const rows = heap.rows;
  const end = heap.rowHigh * Row.STRIDE;
  const homeStart = scratchInt32(0, n + 1).fill(0);
  const bodyStart = scratchInt32(2, n + 1).fill(0);
  let homes = 0;
  let bodies = 0;
  for (let i = 0; i < end; i += Row.STRIDE) {
    const h = rows[i + Row.HOME]!;
    if (h < 0) continue;
    if (need[h] !== 0) {
      homeStart[h + 1]!++;
      homes++;
    }
    const c = rows[i + Row.CUR]!;
    if (need[c] !== 0 && c !== h) {
      bodyStart[c + 1]!++;
      bodies++;
    }
  }
  for (let p = 0; p < n; p++) {
    homeStart[p + 1]! += homeStart[p]!;
    bodyStart[p + 1]! += bodyStart[p]!;
  }
  const homeRows = scratchInt32(1, homes);
  const bodyRows = scratchInt32(3, bodies);
  const nextHome = homeStart.slice(0, n);
  const nextBody = bodyStart.slice(0, n);
  for (let r = 0, i = 0; i < end; r++, i += Row.STRIDE) {
    const h = rows[i + Row.HOME]!;
    if (h < 0) continue;
    if (need[h] !== 0) homeRows[nextHome[h]!++] = r;
    const c = rows[i + Row.CUR]!;
    if (need[c] !== 0 && c !== h) bodyRows[nextBody[c]!++] = r;
  }
  return { atHome: { start: homeStart, rows: homeRows }, movedIn: { start: bodyStart, rows: bodyRows } };
}

/** A row's entry for its body on the page where it lives. */
function bodyEntry(heap: ForwardingHeapView, r: number, kind: SlotDetail['kind'], slot: number): SlotDetail {
  const size = heap.rows[r * Row.STRIDE + Row.SIZE]!;
  const e: SlotDetail = { slot, kind, row: r, bytes: size & 0xffff };
  if (size >>> 16 > 0) e.reserved = size >>> 16;
  const pieces = heap.chain?.get(r) ?? 0;
  if (pieces > 0) e.pieces = pieces;
  return e;
}

/** A page's entries: the rows whose home it is (bodies or stubs), in row order, then the bodies forwarded in. */
function pageSlots(heap: ForwardingHeapView, { atHome, movedIn }: PageRows, p: number): SlotDetail[] {
  const slots: SlotDetail[] = [];
  const rows = heap.rows;
  const a = atHome.start[p]!;
  const homes = atHome.start[p + 1]! - a;
  for (let k = 0; k < homes; k++) {
    const r = atHome.rows[a + k]!;
    const c = rows[r * Row.STRIDE + Row.CUR]!;
    if (c === p) slots.push(bodyEntry(heap, r, 'row', k));
    else {
      const bodySlot = atHome.start[c + 1]! - atHome.start[c]! + slotIn(movedIn, c, r);
      slots.push({ slot: k, kind: 'stub', row: r, bytes: heap.stubBytes, to: { page: c, slot: bodySlot } });
    }
  }
  const b = movedIn.start[p]!;
  for (let k = b; k < movedIn.start[p + 1]!; k++) {
    const r = movedIn.rows[k]!;
    const h = rows[r * Row.STRIDE + Row.HOME]!;
    slots.push({ ...bodyEntry(heap, r, 'forwarded', homes + (k - b)), from: { page: h, slot: slotIn(atHome, h, r) } });
  }
  return slots;
}

/** Page p's slot array and byte totals (an empty page past the table's pages). */
function pageDetail(heap: ForwardingHeapView, rows: PageRows, p: number): PageDetail {
  const g = heap.geometry;
  const inTable = p >= 0 && p < heap.pageCount;
  const slots = inTable ? pageSlots(heap, rows, p) : [];
  const i = p * Page.STRIDE;
  const pg = heap.pageFields;
  const used = inTable ? pg[i + Page.USED]! : 0;
  const top = inTable ? pg[i + Page.TOP]! : 0;
  const slotArrayBytes = (inTable ? pg[i + Page.SLOTS]! : 0) * g.slotBytes;
  const flags: string[] = [];
  if (p === heap.lastPage) flags.push('last page: inserts go here');
  if (heap.chain !== null && slots.some((s) => s.pieces)) {
    const piece = g.usableBytes - g.slotBytes - heap.chainPieceOverheadBytes;
    flags.push(`chained rows continue on blocks of ${piece} bytes each`);
  }
  return {
    page: p,
    pages: heap.allocatedPages,
    allocated: inTable && heap.state[p] === PageState.ALLOCATED,
    slots,
    storedBytes: used,
    slotArrayBytes,
    reservedBytes: inTable ? pg[i + Page.RESERVED]! : 0,
    fragmentedBytes: top - used,
    contiguousBytes: g.usableBytes - top - slotArrayBytes,
    flags,
  };
}
