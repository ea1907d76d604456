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
import type { PageDetail } from '../heap/inspect.js';
import type { PageDrawing } from './drawing.js';
import { bookFor, detailDrawer } from './capture.js';
import { compareBook, type PageBook } from './page-book.js';
import { eventText, type NarrateWords, type NarrationContext } from './narrate.js';
import { pageFigures, type PageFigures } from './svg.js';

export type { NarrateWords } from './narrate.js';

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
  op: 'insert' | 'update' | 'delete' | 'commit' | 'prune' | 'reorg' | 'select' | 'scan';
  row?: number;
  /** The rows the step changed or read: its slides highlight them. */
  rows: number[];
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
  /** Why (some of) the drawings are not at byte positions, when they are not. */
  note?: string;
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
  /** Its sentences, one per event told, made as the events came. */
  texts: string[];
  before: PageInspector | null;
  /** The book's pages as the step found them, taken when an event first names them. */
  snaps: Map<number, PageDetail>;
  /** Closed after the engine went on (an on-access prune): not checked against the engine, which is past it. */
  deferred?: boolean;
}

/** Cuts a run's event stream into steps, follows them in the page book, narrates and draws each kept one before and after. */
class Tracer {
  readonly steps: TraceStep[] = [];
  engine: StorageEngine | null = null;
  /** The page book beside the engine (null: a clustered table, or it disagreed with the engine: see bookNote). */
  book: PageBook | null = null;
  bookNote: string | null = null;
  phase = 0;
  phaseLabel = '';
  private cur: OpenStep | null = null;
  /** The row operation an on-access prune interrupted, resumed at its next event. */
  private resume: { op: StepOp; row?: number; keep: boolean } | null = null;
  /** The last row operation was one the filter chose (a commit right after it is shown with it). */
  private lastKept = false;
  /** --page: the watched page's last drawing, the "before" of the next step that changes it. */
  private watched: PageDrawing | null = null;
  /** The pages as read after the last step drawn, while no event has changed them since: the next step's "before". */
  private unchanged: PageInspector | null = null;
  private readonly draw: (detail: PageDetail) => PageDrawing;

  constructor(
    private readonly spec: StorageSpec,
    private readonly filter: TraceFilter,
    private readonly words: TraceWords,
  ) {
    this.draw = detailDrawer(spec);
  }

  attach(engine: StorageEngine): void {
    this.engine = engine;
    this.book = bookFor(this.spec, engine);
    if (this.book === null) this.bookNote = 'a clustered table: rows are drawn packed in key order, not at their byte positions';
  }

  private wanted(row: number): boolean {
    return this.filter.rows === undefined || (row >= this.filter.rows[0] && row <= this.filter.rows[1]);
  }

  /** The book's pages against the engine's after a step; on a difference the book is dropped and the drawings say so. */
  private checkBook(after: PageInspector, pages: number[]): void {
    const book = this.book;
    if (book === null) return;
    book.settle();
    book.forgetUnallocated(after);
    const bad = compareBook(
      book,
      after,
      pages.filter((p) => p < after.pages),
    );
    if (bad.length > 0) {
      this.book = null;
      this.bookNote = `from step ${this.steps.length + 1} the drawings pack rows in slot order: the page book disagreed with the engine (${bad[0]})`;
    }
  }

  /** Page p's detail now: the book's when it follows the pages, else the engine's. */
  private detail(insp: PageInspector, p: number): PageDetail {
    const d = insp.page(p);
    return this.book ? this.book.detail(p, d) : d;
  }

  /** Close the open step: narrate and draw it when the filter keeps it and it changed something. */
  flush(): void {
    const c = this.cur;
    this.cur = null;
    if (c === null || c.events.length === 0) return;
    const touched = [...new Set(c.events.flatMap(eventPages))];
    const after = this.engine!.inspect();
    if (c.deferred) this.book?.settle();
    else {
      this.checkBook(after, touched);
      this.unchanged = after;
    }
    const page = this.filter.page;
    if (!c.keep || (page !== undefined && !touched.includes(page))) return;
    const passed = c.events.flatMap((e) => (e.op === 'insert' && e.passed ? [e.passed.page] : []));
    const pagesToDraw = page !== undefined ? [page] : [...new Set([...passed, ...touched])].slice(0, MAX_PAGES_DRAWN);
    const pages = pagesToDraw.map((p) => {
      const snap = c.snaps.get(p);
      const before =
        page !== undefined
          ? this.watched
          : snap !== undefined
            ? this.draw(snap)
            : c.before !== null && p < c.before.pages
              ? this.draw(c.before.page(p))
              : null;
      const a = this.draw(this.detail(after, p));
      if (page !== undefined) this.watched = a;
      return { page: p, before, after: a };
    });
    const rows = [...new Set(c.events.flatMap(eventRows))];
    this.steps.push({
      step: this.steps.length + 1,
      phase: this.phase,
      phaseLabel: this.phaseLabel,
      op: c.op,
      ...(c.row !== undefined ? { row: c.row } : {}),
      rows,
      text: joinParts(c.op, c.row, c.texts),
      events: c.events,
      pages,
    });
    if (this.steps.length >= this.filter.steps) throw new StopTrace();
  }

  begin(op: StepOp, row: number | undefined, keep: boolean): void {
    this.resume = null;
    this.flush();
    const before = keep && this.filter.page === undefined ? (this.unchanged ?? this.engine!.inspect()) : null;
    this.cur = { op, ...(row !== undefined ? { row } : {}), keep, events: [], texts: [], before, snaps: new Map() };
  }

  /** An event: into the book (its pages kept as they were first), then narrated from the book's state around it. */
  private take(e: HeapEvent): void {
    const c = this.cur!;
    const book = this.book;
    const pages = e.op === 'insert' && e.passed ? [e.passed.page, ...eventPages(e)] : eventPages(e);
    if (book && c.before !== null)
      for (const p of pages) if (!c.snaps.has(p) && p < c.before.pages) c.snaps.set(p, book.detail(p, c.before.page(p)));
    const page = e.op === 'update' || e.op === 'compact' ? e.page : -1;
    const room = book && page >= 0 ? pageFigures(book.detail(page, emptyDetail(page))) : undefined;
    const compacted = c.events.some((x) => x.op === 'compact' && x.page === page);
    book?.apply(e);
    c.events.push(e);
    if (!c.keep) return;
    const text = eventText(e, this.narration(room, compacted));
    if (text !== undefined) c.texts.push(text);
  }

  private narration(room: PageFigures | undefined, compacted: boolean): NarrationContext {
    const book = this.book;
    const insp = book ? null : this.engine!.inspect();
    const anatomy = this.words.band;
    return {
      words: this.words,
      ...(room ? { room } : {}),
      compacted,
      slotOf: (r, p) => (book ? book.bodySlot(r, p) : insp!.page(p).slots.find((s) => s.row === r && s.kind !== 'stub')?.slot),
      homeSlot: (r) => (book ? book.homeSlot(r) : (insp!.locate(r) ?? undefined)),
      band: (p) => (anatomy && book ? anatomy(book.detail(p, emptyDetail(p))) : undefined),
    };
  }

  /** An engine event: a commit and an on-access prune are steps of their own (they belong to no one row's change). */
  event(e: HeapEvent): void {
    // Every change to a page comes with an event: the pages read before it are no longer the pages.
    this.unchanged = null;
    if (e.op === 'commit') {
      // Left open: the engine makes the versions dead after telling; the next step (or the phase's end) closes it.
      this.begin('commit', undefined, this.filter.rows === undefined || this.lastKept);
      this.take(e);
      return;
    }
    if (e.op === 'prune' && e.by === 'access' && this.cur !== null && this.cur.op !== 'reorg') {
      // Its own step, left open while the engine prunes (it tells first); the row operation resumes at its next event.
      const { op, row, keep } = this.cur;
      this.begin('prune', undefined, keep);
      this.take(e);
      this.resume = { op, ...(row !== undefined ? { row } : {}), keep };
      return;
    }
    if (this.resume !== null) {
      // The engine has already done this event's change: the prune step is closed from the book alone.
      const r = this.resume;
      if (this.cur !== null) this.cur.deferred = true;
      this.begin(r.op, r.row, r.keep);
    }
    if ((e.op === 'reorg-row' || e.op === 'rewrite') && this.cur?.op !== 'reorg') this.begin('reorg', undefined, true);
    if (this.cur === null) this.begin('reorg', undefined, true);
    this.take(e);
    // reorg forwarded_rows moves one row at a time: a step each (a rebuild's rows stay one step).
    if (e.op === 'reorg-row' && e.outcome !== 'rewritten') this.begin('reorg', undefined, true);
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

/** A page detail with nothing but its number: what the book's own detail is built on when the engine's is not needed. */
function emptyDetail(page: number): PageDetail {
  return {
    page,
    pages: 0,
    allocated: true,
    slots: [],
    storedBytes: 0,
    slotArrayBytes: 0,
    reservedBytes: 0,
    fragmentedBytes: 0,
    contiguousBytes: 0,
    flags: [],
  };
}

/** The rows an event names: the ones its slide highlights. */
function eventRows(e: HeapEvent): number[] {
  switch (e.op) {
    case 'insert':
    case 'update':
    case 'delete':
    case 'reorg-row':
    case 'read':
      return [e.row];
    case 'split':
      return e.rows;
    default:
      return [];
  }
}

/** The step's sentences; a reorganisation's many rows as the first ones and a count. */
function joinParts(op: StepOp, row: number | undefined, parts: string[]): string {
  if (parts.length === 0) return op === 'update' && row !== undefined ? `update row ${row}: rejected (too long for a page)` : op;
  if (op === 'reorg' && parts.length > 12)
    return [...parts.slice(0, 10), `… ${parts.length - 11} more rows`, parts[parts.length - 1]!].join('\n');
  return parts.join('\n');
}

/** The slot words of a format's page anatomy, as the narration uses them. */
type TraceWords = NarrateWords & { band?: (d: PageDetail) => string };

function narrateWords(spec: StorageSpec): TraceWords {
  const format = getFormat(spec.engine.format);
  const anatomy = format.pages.pageAnatomy(format.rows.layout(spec.table, spec.engine), spec.engine);
  return {
    word: anatomy.slotArray.firstSlot === 1 ? 'lp' : 'slot',
    first: anatomy.slotArray.firstSlot,
    ...(anatomy.words.move ? { move: anatomy.words.move } : {}),
    ...(anatomy.words.stubShort ? { stub: anatomy.words.stubShort } : {}),
    ...(anatomy.words.versionTakesSlot ? { linePointer: anatomy.slotArray.entryBytes } : {}),
    ...(anatomy.band ? { band: anatomy.band } : {}),
  };
}

/** Run `spec` and narrate it step by step, for the rows or page the filter chooses. */
export function traceRun(spec: StorageSpec, filter: TraceFilter): Trace {
  const t = new Tracer(spec, filter, narrateWords(spec));
  const done = (truncated: boolean): Trace => ({ steps: t.steps, truncated, ...(t.bookNote ? { note: t.bookNote } : {}) });
  try {
    runStorage(spec, {
      onEngine: (e: StorageEngine) => t.attach(e),
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
    return done(true);
  }
  return done(false);
}
