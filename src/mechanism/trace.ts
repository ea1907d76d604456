/**
 * The step-by-step trace: a storage point run with the engine's event stream switched on, cut into
 * steps (one row operation, a commit, a reorganisation), each narrated from the engine's own events and
 * drawn before and after on the pages it changed. Nothing here decides where a row goes: the engine did.
 */
import type { StorageSpec } from '../config/spec.js';
import { eventPages, type HeapEvent } from '../heap/events.js';
import type { PageInspector } from '../heap/inspect.js';
import type { StorageEngine } from '../heap/engine.js';
import { runStorage } from '../workload/runner.js';
import { getFormat } from '../formats/registry.js';
import type { PageDrawing } from './drawing.js';
import { drawer } from './capture.js';

export interface TraceFilter {
  /** Only operations on rows first..last. */
  rows?: [number, number];
  /** Only steps that change this page. */
  page?: number;
  /** Stop after this many steps. */
  steps: number;
}

export interface TraceStep {
  step: number;
  /** 1-based phase number and its label. */
  phase: number;
  phaseLabel: string;
  op: 'insert' | 'update' | 'delete' | 'commit' | 'reorg' | 'select' | 'scan';
  row?: number;
  /** What happened, in words, from the events. */
  text: string;
  events: HeapEvent[];
  /** The pages the step changed (at most MAX_PAGES_DRAWN), before (null: the page did not exist) and after. */
  pages: { page: number; before: PageDrawing | null; after: PageDrawing }[];
}

export interface Trace {
  steps: TraceStep[];
  /** The trace stopped at the step limit before the workload ended. */
  truncated: boolean;
}

const MAX_PAGES_DRAWN = 3;

class StopTrace extends Error {}

type StepOp = TraceStep['op'];

/** The step being gathered: its operation, row, whether the filter keeps it, its events and the pages before it. */
interface OpenStep {
  op: StepOp;
  row?: number;
  keep: boolean;
  events: HeapEvent[];
  before: PageInspector | null;
}

/** Cuts a run's event stream into steps and draws each kept one before and after. */
class Tracer {
  readonly steps: TraceStep[] = [];
  engine: StorageEngine | null = null;
  phase = 0;
  phaseLabel = '';
  private cur: OpenStep | null = null;
  /** The last row operation was one the filter chose (a commit right after it is shown with it). */
  private lastKept = false;
  /** --page: the watched page's last drawing, the "before" of the next step that changes it. */
  private watched: PageDrawing | null = null;
  /** The pages as read after the last step drawn, while no event has changed them since: the next step's "before". */
  private unchanged: PageInspector | null = null;
  private readonly draw: (insp: PageInspector) => (page: number) => PageDrawing;

  constructor(
    spec: StorageSpec,
    private readonly filter: TraceFilter,
    private readonly words: NarrateWords,
  ) {
    this.draw = (insp) => drawer(spec, insp);
  }

  private wanted(row: number): boolean {
    return this.filter.rows === undefined || (row >= this.filter.rows[0] && row <= this.filter.rows[1]);
  }

  /** Close the open step: narrate and draw it when the filter keeps it and it changed something. */
  flush(): void {
    const c = this.cur;
    this.cur = null;
    if (c === null || !c.keep || c.events.length === 0) return;
    const touched = [...new Set(c.events.flatMap(eventPages))];
    const page = this.filter.page;
    if (page !== undefined && !touched.includes(page)) return;
    const after = this.engine!.inspect();
    this.unchanged = after;
    const drawAfter = this.draw(after);
    const drawBefore = c.before ? this.draw(c.before) : null;
    const pagesToDraw = page !== undefined ? [page] : touched.slice(0, MAX_PAGES_DRAWN);
    const pages = pagesToDraw.map((p) => {
      const before = page !== undefined ? this.watched : drawBefore !== null && p < c.before!.pages ? drawBefore(p) : null;
      const a = drawAfter(p);
      if (page !== undefined) this.watched = a;
      return { page: p, before, after: a };
    });
    this.steps.push({
      step: this.steps.length + 1,
      phase: this.phase,
      phaseLabel: this.phaseLabel,
      op: c.op,
      ...(c.row !== undefined ? { row: c.row } : {}),
      text: narrate(c.op, c.row, c.events, after, this.words),
      events: c.events,
      pages,
    });
    if (this.steps.length >= this.filter.steps) throw new StopTrace();
  }

  begin(op: StepOp, row: number | undefined, keep: boolean): void {
    this.flush();
    const before = keep && this.filter.page === undefined ? (this.unchanged ?? this.engine!.inspect()) : null;
    this.cur = { op, ...(row !== undefined ? { row } : {}), keep, events: [], before };
  }

  /** An engine event: a commit is a step of its own (the versions it makes dead belong to no one row). */
  event(e: HeapEvent): void {
    // Every change to a page comes with an event: the pages read before it are no longer the pages.
    this.unchanged = null;
    if (e.op === 'commit') {
      this.begin('commit', undefined, this.filter.rows === undefined || this.lastKept);
      this.cur!.events.push(e);
      this.flush();
      return;
    }
    if ((e.op === 'reorg-row' || e.op === 'rewrite') && this.cur?.op !== 'reorg') this.begin('reorg', undefined, true);
    if (this.cur === null) this.begin('reorg', undefined, true);
    this.cur!.events.push(e);
  }

  /** A row operation starts; a table scan reads every page, so it is shown whatever rows the trace follows. */
  beforeRow(op: StepOp, row: number): void {
    if (op === 'scan') {
      this.begin('scan', undefined, true);
      return;
    }
    this.lastKept = this.wanted(row);
    this.begin(op, row, this.lastKept);
  }
}

/** The slot words of a format's page anatomy, as the narration uses them. */
function narrateWords(spec: StorageSpec): NarrateWords {
  const format = getFormat(spec.engine.format);
  const anatomy = format.pageAnatomy(format.layout(spec.table, spec.engine), spec.engine);
  return {
    word: anatomy.slotArray.firstSlot === 1 ? 'lp' : 'slot',
    first: anatomy.slotArray.firstSlot,
    ...(anatomy.words.move ? { move: anatomy.words.move } : {}),
    ...(anatomy.words.stubShort ? { stub: anatomy.words.stubShort } : {}),
  };
}

/** Run `spec` and narrate it step by step, for the rows or page the filter chooses. */
export function traceRun(spec: StorageSpec, filter: TraceFilter): Trace {
  const t = new Tracer(spec, filter, narrateWords(spec));
  try {
    runStorage(spec, {
      onEngine: (e: StorageEngine) => {
        t.engine = e;
      },
      events: (e) => t.event(e),
      observer: {
        phaseStart: (index, ph) => {
          t.flush();
          t.phase = index + 1;
          t.phaseLabel = ph.op === 'reorg' ? (ph.kind === 'vacuum' ? 'vacuum' : `reorg ${ph.kind}`) : ph.op;
          if (ph.op === 'reorg') t.begin('reorg', undefined, true);
        },
        beforeRow: (op, row) => t.beforeRow(op, row),
        phaseEnd: () => t.flush(),
      },
    });
  } catch (err) {
    if (!(err instanceof StopTrace)) throw err;
    return { steps: t.steps, truncated: true };
  }
  return { steps: t.steps, truncated: false };
}

const B = (n: number) => `${n} B`;

/** What finds a row's slot after the step: on a given page, and at its home. */
interface SlotFinder {
  slotOf(r: number, page: number): string;
  homeSlot(r: number): string;
}

/** The step in words, from the engine's events (and the slots the rows have after it). */
export function narrate(
  op: TraceStep['op'],
  row: number | undefined,
  events: HeapEvent[],
  after: PageInspector,
  slots: NarrateWords = { word: 'slot', first: 0 },
): string {
  const find: SlotFinder = {
    slotOf: (r, page) => {
      const e = after.page(page).slots.find((s) => s.row === r && s.kind !== 'stub');
      return e ? ` ${slots.word} ${e.slot + slots.first}` : '';
    },
    homeSlot: (r) => {
      const at = after.locate(r);
      return at ? ` ${slots.word} ${at.slot + slots.first}` : '';
    },
  };
  const parts: string[] = [];
  for (const e of events) {
    const text = eventText(e, events, find, slots);
    if (text !== undefined) parts.push(text);
  }
  if (parts.length === 0) return op === 'update' && row !== undefined ? `update row ${row}: rejected (too long for a page)` : op;
  // A reorganisation's rows, many of them: the first ones and a count.
  if (op === 'reorg' && parts.length > 12)
    return [...parts.slice(0, 10), `… ${parts.length - 11} more rows`, parts[parts.length - 1]!].join('\n');
  return parts.join('\n');
}

/** One event in words (undefined: an event the narration does not tell). */
function eventText(e: HeapEvent, events: HeapEvent[], find: SlotFinder, slots: NarrateWords): string | undefined {
  switch (e.op) {
    case 'insert':
      return `insert row ${e.row} (${B(e.bytes)}${e.reserved ? `, charged ${B(e.bytes + e.reserved)} with its ${B(e.reserved)} reservation` : ''}) → page ${e.page}${find.slotOf(e.row, e.page)}${e.newPage ? ', a new page' : ''}`;
    case 'update':
      return updateText(
        e,
        find.slotOf,
        find.homeSlot,
        slots,
        events.some((x) => x.op === 'compact' && x.page === e.page),
      );
    case 'compact':
      return `page ${e.page} is compacted: ${B(e.freedBytes)} of holes squeezed into contiguous free space`;
    case 'delete':
      return `delete row ${e.row}: its ${B(e.bytes)} on page ${e.page} are freed${e.home >= 0 ? `, and its stub on page ${e.home}` : ''}`;
    case 'split':
      return `page ${e.page} is split: ${e.rows.length} row${e.rows.length === 1 ? '' : 's'} (${e.rows[0]}${e.rows.length > 1 ? `–${e.rows[e.rows.length - 1]}` : ''}) move to a new page ${e.newPage} linked after it`;
    case 'prune':
      return `page ${e.page} is pruned${e.by === 'access' ? ' on access' : ' by VACUUM'}: ${e.versions} dead version${e.versions === 1 ? '' : 's'} removed, ${B(e.freedBytes)} freed`;
    case 'commit':
      return `commit: ${e.versions} old version${e.versions === 1 ? '' : 's'} on page${e.pages.length === 1 ? '' : 's'} ${e.pages.slice(0, 6).join(', ')}${e.pages.length > 6 ? ', …' : ''} become${e.versions === 1 ? 's' : ''} dead, to be pruned`;
    case 'reorg-row':
      return e.outcome === 'moved-home'
        ? `row ${e.row} comes home from page ${e.from} to page ${e.home}${find.homeSlot(e.row)}`
        : e.outcome === 'rehomed'
          ? `row ${e.row} does not fit at home (page ${e.home}): deleted and re-inserted on page ${e.to}, its new home`
          : `row ${e.row} rewritten from page ${e.from} to page ${e.to}`;
    case 'rewrite':
      return `${e.kind}: the table now has ${e.pages} page${e.pages === 1 ? '' : 's'}`;
    case 'index-read':
      return `read index ${e.index} from its root to the leaf: ${e.pages} page${e.pages === 1 ? '' : 's'}`;
    case 'read':
      return readText(e, slots);
    case 'scan':
      return scanText(e, slots);
  }
  return undefined;
}

/** A table scan in words: its pages, and the extra reads forwarded rows and chained pieces cost. */
function scanText(e: Extract<HeapEvent, { op: 'scan' }>, slots: NarrateWords): string {
  const one = (n: number, a: string, b: string) => (n === 1 ? a : b);
  const hops = e.hops
    ? `, and ${e.hops} ${slots.move ?? 'forwarded'} row${one(e.hops, '', 's')} read at ${one(e.hops, 'its', 'their')} ${slots.stub ?? 'stub'}${one(e.hops, '', 's')}: ${e.hops} page read${one(e.hops, '', 's')} more, ${e.pages + e.hops} in all`
    : '';
  const pieces = e.pieces
    ? `, ${e.pieces} chained piece${one(e.pieces, '', 's')} read from ${one(e.pieces, 'its', 'their')} head piece${one(e.pieces, '', 's')}`
    : '';
  return `table scan: the table's ${e.pages} page${one(e.pages, '', 's')} read${hops}${pieces}${e.tuples ? `, ${e.tuples} tuple versions examined` : ''}`;
}

/** A row read, in words: the pages in the order read and why there is more than one. */
function readText(e: Extract<HeapEvent, { op: 'read' }>, words: NarrateWords): string {
  const n = e.pages.length + e.pieces;
  const reads = `${n} data page read${n === 1 ? '' : 's'}`;
  if (e.forwarded)
    return `read row ${e.row}: page ${e.pages[0]} holds only its ${words.stub ?? 'stub'} → page ${e.pages[1]}, where the ${words.move ?? 'forwarded'} row lives: ${reads}`;
  const page = e.pages[e.pages.length - 1];
  const parts: string[] = [];
  if (e.deadVersions)
    parts.push(
      `read row ${e.row}: first ${e.deadVersions} dead version${e.deadVersions === 1 ? '' : 's'} its index entries still point to (a heap visit each; the scan then marks ${e.deadVersions === 1 ? 'that entry' : 'those entries'} LP_DEAD: later scans skip ${e.deadVersions === 1 ? 'it' : 'them'})`,
      `then the live version on page ${page}`,
    );
  else parts.push(`read row ${e.row}: page ${page}`);
  if (e.chainHops) parts.push(`${e.chainHops} step${e.chainHops === 1 ? '' : 's'} along its HOT chain to the live version`);
  if (e.pieces)
    parts.push(
      `then ${e.pieces} chained piece${e.pieces === 1 ? '' : 's'} on block${e.pieces === 1 ? '' : 's'} of ${e.pieces === 1 ? 'its' : 'their'} own`,
    );
  return `${parts.join('; ')}: ${reads}`;
}

/** How the format numbers and names things in a narrative. */
export interface NarrateWords {
  word: string;
  first: number;
  move?: string;
  stub?: string;
}

function updateText(
  e: Extract<HeapEvent, { op: 'update' }>,
  slotOf: (r: number, p: number) => string,
  homeSlot: (r: number) => string,
  words: NarrateWords,
  compacted: boolean,
): string {
  const size =
    e.toBytes > e.fromBytes
      ? `grows ${e.fromBytes} → ${B(e.toBytes)}`
      : e.toBytes < e.fromBytes
        ? `shrinks ${e.fromBytes} → ${B(e.toBytes)}`
        : `stays ${B(e.toBytes)}`;
  const room =
    e.totalFree === e.contiguousFree
      ? `page ${e.page} has ${B(e.totalFree)} free`
      : `page ${e.page} has ${B(e.contiguousFree)} contiguous and ${B(e.totalFree)} total free`;
  const head = `update row ${e.row}: ${size}`;
  const to = `page ${e.toPage}${slotOf(e.row, e.toPage)}${e.newPage ? ', a new page' : ''}`;
  switch (e.outcome) {
    case 'shrank':
      return `${head}: stays where it is; the ${B(e.fromBytes - e.toBytes)} it gave up become a hole until the page is compacted`;
    case 'rewritten':
      return `${head}; ${room} → rewritten into the contiguous free space; its old ${B(e.fromBytes)} become a hole`;
    case 'compacted':
      return compacted
        ? `${head}; ${room} → not in one piece: after the compaction the row is rewritten in place`
        : `${head}; ${room}, none of it in holes → the row grows where it is, the rows after it shifted to make room`;
    case 'forwarded': {
      const short = e.toBytes - e.fromBytes - e.totalFree;
      return `${head}; ${room} → does not fit (it needs ${B(e.toBytes - e.fromBytes)} more, ${B(short)} beyond the page's free space) → ${words.move ?? 'forwarded'} to ${to}; a ${B(e.stubBytes ?? 0)} ${words.stub ?? 'stub'} stays at page ${e.page}${homeSlot(e.row)}`;
    }
    case 'reforwarded':
      return `${head}; it is already forwarded (home page ${e.home}) and no longer fits page ${e.page} → moves again, to ${to}; the stub at page ${e.home} now points there (one hop at most)`;
    case 'moved-home':
      return `${head}; it was forwarded away from page ${e.home} → comes back home to page ${e.home}${homeSlot(e.row)} in place of its stub`;
    case 'moved':
      return `${head}; ${room} → does not fit → moves to ${to} with a new row id; every index entry for it is updated`;
    case 'in-place':
      return `${head}; ${room} → changes in place`;
    case 'split':
      return `${head}; ${room} → not enough: the page is split until it fits; the row is now on ${to}`;
    case 'hot':
      return `${head}; ${room} → new version on the same page, no indexed column changed: a heap-only tuple (HOT update); the old version stays until it is pruned`;
    case 'same-page':
      return `${head}; ${room} → new version on the same page, but an indexed column changed: not HOT, new index entries`;
    case 'new-page':
      return `${head}; ${room} → no room for the new version → it goes to ${to}; page ${e.page} gets PD_PAGE_FULL; new index entries (not HOT)`;
  }
}
