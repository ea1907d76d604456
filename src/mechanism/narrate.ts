/**
 * A trace step in words, one event at a time, from the state the drawings are made of: the free space of
 * the event's page as the page book held it when the event came (the "before" drawing's figures: see
 * pageFigures in svg.ts), and the slots rows have after it. Without a page book (a clustered table) the
 * event's own figures and the engine's slot order.
 */
import type { HeapEvent } from '../heap/events.js';
import type { SlotRef } from '../heap/inspect.js';
import type { PageFigures } from './svg.js';

/** How the format numbers and names things in a narrative. */
export interface NarrateWords {
  word: string;
  first: number;
  move?: string;
  stub?: string;
  /** PostgreSQL: bytes of a line pointer (a new version's free space is the page's less one). */
  linePointer?: number;
}

/** What the narration reads of the pages around one event. */
export interface NarrationContext {
  words: NarrateWords;
  /** The event's page as the event found it (undefined: the event's own figures). */
  room?: PageFigures;
  /** An earlier event of the step compacted the event's page. */
  compacted: boolean;
  /** A row's body (current version) on a page after the event, 0-based; and its slot at home. */
  slotOf(row: number, page: number): number | undefined;
  homeSlot(row: number): SlotRef | undefined;
  /** The page's band as the DBMS shows it (SQL Server PFS), for an insert that passed a page over. */
  band?(page: number): string | undefined;
}

const B = (n: number) => `${n} B`;
const s = (n: number, one = '', many = 's') => (n === 1 ? one : many);

function slotText(ctx: NarrationContext, slot: number | undefined): string {
  return slot === undefined ? '' : ` ${ctx.words.word} ${slot + ctx.words.first}`;
}

/** One event in words (undefined: an event the narration does not tell). */
export function eventText(e: HeapEvent, ctx: NarrationContext): string | undefined {
  switch (e.op) {
    case 'insert':
      return insertText(e, ctx);
    case 'update':
      return updateText(e, ctx);
    case 'compact': {
      // A row coming home gives up its stub just before the compaction: those bytes are squeezed out too.
      const holes = ctx.room?.holes ?? e.freedBytes;
      const stub = e.freedBytes > holes ? ` and the ${B(e.freedBytes - holes)} of the stub the returning row gives up` : '';
      return `page ${e.page} is compacted: ${B(holes)} of holes${stub} squeezed into contiguous free space`;
    }
    case 'delete':
      return `delete row ${e.row}: its ${B(e.bytes)} on page ${e.page} are freed${e.home >= 0 ? `, and its stub on page ${e.home}` : ''}`;
    case 'split':
      return `page ${e.page} is split: ${e.rows.length} row${s(e.rows.length)} (${e.rows[0]}${e.rows.length > 1 ? `–${e.rows[e.rows.length - 1]}` : ''}) move to a new page ${e.newPage} linked after it`;
    case 'prune':
      return `page ${e.page} is pruned${e.by === 'access' ? ' on access' : ' by VACUUM'}: ${e.versions} dead version${s(e.versions)} removed, ${B(e.freedBytes)} freed; the tuples left are moved together (the page's only compaction)`;
    case 'commit':
      return `commit: ${e.versions} old version${s(e.versions)} on page${s(e.pages.length)} ${e.pages.slice(0, 6).join(', ')}${e.pages.length > 6 ? ', …' : ''} become${s(e.versions, 's', '')} dead, to be pruned`;
    case 'reorg-row': {
      const home = ctx.homeSlot(e.row);
      return e.outcome === 'moved-home'
        ? `row ${e.row} comes home from page ${e.from} to page ${e.home}${slotText(ctx, home?.slot)}`
        : e.outcome === 'rehomed'
          ? `row ${e.row} does not fit at home (page ${e.home}): deleted and re-inserted on page ${e.to}${slotText(ctx, ctx.slotOf(e.row, e.to))}, its new home`
          : `row ${e.row} rewritten from page ${e.from} to page ${e.to}`;
    }
    case 'rewrite':
      return `${e.kind}: the table now has ${e.pages} page${s(e.pages)}`;
    case 'index-read':
      return `read index ${e.index} from its root to the leaf: ${e.pages} page${s(e.pages)}`;
    case 'read':
      return readText(e, ctx.words);
    case 'scan':
      return scanText(e, ctx.words);
  }
  return undefined;
}

function insertText(e: Extract<HeapEvent, { op: 'insert' }>, ctx: NarrationContext): string {
  const charged = e.reserved ? `, charged ${B(e.bytes + e.reserved)} with its ${B(e.reserved)} reservation` : '';
  let why = '';
  if (e.passed) {
    const p = e.passed;
    const band = ctx.band?.(p.page);
    why =
      p.why === 'pfs'
        ? `: page ${p.page} has ${B(p.free)} free, but its PFS band (${band ?? 'its fullness'}) promises only ${B(p.room)} and the row needs ${B(p.need)}; SQL Server reads the band, not the bytes`
        : `: page ${p.page} has ${B(p.free)} free, but inserts must leave the free space kept for updates (PCTFREE): ${B(p.room)} left for new rows, the row needs ${B(p.need)}`;
  }
  return `insert row ${e.row} (${B(e.bytes)}${charged}) → page ${e.page}${slotText(ctx, ctx.slotOf(e.row, e.page))}${e.newPage ? ', a new page' : ''}${why}`;
}

/** The page's free space as the update found it, in the words the drawing uses. */
function roomText(e: Extract<HeapEvent, { op: 'update' }>, ctx: NarrationContext): string {
  const lp = ctx.words.linePointer;
  const free = ctx.room ? ctx.room.free : lp ? e.totalFree + lp : e.totalFree;
  const contiguous = ctx.room ? ctx.room.contiguous : e.contiguousFree;
  if (lp) return `page ${e.page} has ${B(free)} free (${B(Math.max(0, free - lp))} for a new version after its ${B(lp)} line pointer)`;
  const holes = ctx.room ? ctx.room.holes : e.totalFree - e.contiguousFree;
  return holes === 0 ? `page ${e.page} has ${B(free)} free` : `page ${e.page} has ${B(contiguous)} contiguous and ${B(free)} total free`;
}

function updateText(e: Extract<HeapEvent, { op: 'update' }>, ctx: NarrationContext): string {
  const size =
    e.toBytes > e.fromBytes
      ? `grows ${e.fromBytes} → ${B(e.toBytes)}`
      : e.toBytes < e.fromBytes
        ? `shrinks ${e.fromBytes} → ${B(e.toBytes)}`
        : `stays ${B(e.toBytes)}`;
  const room = roomText(e, ctx);
  const head = `update row ${e.row}: ${size}`;
  const to = `page ${e.toPage}${slotText(ctx, ctx.slotOf(e.row, e.toPage))}${e.newPage ? ', a new page' : ''}`;
  const home = slotText(ctx, ctx.homeSlot(e.row)?.slot);
  const w = ctx.words;
  switch (e.outcome) {
    case 'shrank':
      return `${head}: stays where it is; the ${B(e.fromBytes - e.toBytes)} it gave up become a hole until the page is compacted`;
    case 'rewritten':
      return `${head}; ${room} → rewritten into the contiguous free space; its old ${B(e.fromBytes)} become a hole`;
    case 'compacted':
      return ctx.compacted
        ? `${head}; ${room} → not in one piece: after the compaction the row grows where it is, the rows after it moved up`
        : `${head}; ${room}, none of it in holes → the row grows where it is, the rows after it shifted to make room`;
    case 'forwarded':
      return `${head}; ${room} → does not fit (it needs ${B(e.toBytes - e.fromBytes)} more) → ${w.move ?? 'forwarded'} to ${to}; a ${B(e.stubBytes ?? 0)} ${w.stub ?? 'stub'} stays at page ${e.page}${home}, its other ${B(e.fromBytes - (e.stubBytes ?? 0))} a hole`;
    case 'reforwarded':
      return `${head}; it is already forwarded (home page ${e.home}) and no longer fits page ${e.page} → moves again, to ${to}; the stub at page ${e.home}${home} now points there (one hop at most)`;
    case 'moved-home':
      return `${head}; it was forwarded away from page ${e.home} → comes back home to page ${e.home}${home} in place of its stub`;
    case 'moved':
      return `${head}; ${room} → does not fit → moves to ${to} with a new row id; every index entry for it is updated`;
    case 'in-place':
      return `${head}; ${room} → changes in place`;
    case 'split':
      return `${head}; ${room} → not enough: the page is split until it fits; the row is now on ${to}`;
    case 'hot':
      return `${head}; ${room} → new version at ${to}, no indexed column changed: a heap-only tuple (HOT update); the old version's t_ctid points to it, and it stays until it is pruned`;
    case 'same-page':
      return `${head}; ${room} → new version at ${to}, but an indexed column changed: not HOT, new index entries`;
    case 'new-page':
      return `${head}; ${room} → no room for the new version → it goes to ${to}; page ${e.page} gets PD_PAGE_FULL; new index entries (not HOT)`;
  }
}

/** A table scan in words: its pages, and the extra reads forwarded rows and chained pieces cost. */
function scanText(e: Extract<HeapEvent, { op: 'scan' }>, words: NarrateWords): string {
  const hops = e.hops
    ? `, and ${e.hops} ${words.move ?? 'forwarded'} row${s(e.hops)} read at ${s(e.hops, 'its', 'their')} ${words.stub ?? 'stub'}${s(e.hops)}: ${e.hops} page read${s(e.hops)} more, ${e.pages + e.hops} in all`
    : '';
  const pieces = e.pieces
    ? `, ${e.pieces} chained piece${s(e.pieces)} read from ${s(e.pieces, 'its', 'their')} head piece${s(e.pieces)}`
    : '';
  return `table scan: the table's ${e.pages} page${s(e.pages)} read${hops}${pieces}${e.tuples ? `, ${e.tuples} tuple versions examined` : ''}`;
}

/** A row read, in words: the pages in the order read and why there is more than one. */
function readText(e: Extract<HeapEvent, { op: 'read' }>, words: NarrateWords): string {
  const n = e.pages.length + e.pieces;
  const reads = `${n} data page read${s(n)}`;
  if (e.forwarded)
    return `read row ${e.row}: page ${e.pages[0]} holds only its ${words.stub ?? 'stub'} → page ${e.pages[1]}, where the ${words.move ?? 'forwarded'} row lives: ${reads}`;
  const page = e.pages[e.pages.length - 1];
  const parts: string[] = [];
  if (e.deadVersions)
    parts.push(
      `read row ${e.row}: first ${e.deadVersions} dead version${s(e.deadVersions)} its index entries still point to (a heap visit each; the scan then marks ${s(e.deadVersions, 'that entry', 'those entries')} LP_DEAD: later scans skip ${s(e.deadVersions, 'it', 'them')})`,
      `then the live version on page ${page}`,
    );
  else parts.push(`read row ${e.row}: page ${page}`);
  if (e.chainHops) parts.push(`${e.chainHops} step${s(e.chainHops)} along its HOT chain to the live version`);
  if (e.pieces) parts.push(`then ${e.pieces} chained piece${s(e.pieces)} on block${s(e.pieces)} of ${s(e.pieces, 'its', 'their')} own`);
  return `${parts.join('; ')}: ${reads}`;
}
