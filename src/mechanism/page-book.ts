/**
 * The page book: an inspection engine that replays a bulk engine's event stream (src/heap/events.ts) and
 * keeps, for the pages it is asked to follow, what the bulk engines do not: each entry's real slot number,
 * the byte position of every row, stub and version on the page, the holes rows left, and PostgreSQL's
 * version links (t_ctid, HOT chains, redirects). The bulk engines keep byte totals only, so a run of a
 * million rows pays nothing for it; `rowsim trace` and `rowsim page` run the book beside the engine and
 * check it against the engine's own totals after every step (compareBook): a book that drifted from the
 * engine is reported, never drawn.
 *
 * Page rules, and where they come from:
 * - ASE: rows fill the page from just after the header, the row offset table (2 bytes a row) grows from
 *   the end of the page (SAP ASE manual "Estimating table and index size", Performance and Tuning:
 *   Physical Database Tuning; shared reference storage-ase.md [G]). A row that grows is rewritten into
 *   the contiguous free space and leaves a hole; the page is compacted only when a row needs the room and
 *   only the total free space has it (contiguous vs total free space [W]: "Deleted space is reclaimed
 *   after commit by later compaction"). A forwarded row's 10-byte stub stays in the row's place [E][Q].
 * - SQL Server: records after the 96-byte header, the slot array (2 bytes a slot) from the end of the page
 *   (Microsoft Learn, "Pages and extents architecture guide"); the forwarding stub stays in the record's
 *   slot (Microsoft Learn, "Heaps (tables without clustered indexes)").
 * - Oracle: the row directory follows the block header, row data fill the block from its end ("Oracle
 *   Database Concepts", Data Blocks: "row data ... from the bottom up"); a migrated row leaves its head
 *   piece (the forwarding address) in its place.
 * - PostgreSQL: line pointers after the 24-byte page header, tuples from the end of the page down
 *   (src/include/storage/bufpage.h: pd_lower, pd_upper); PageAddItem takes the first unused line pointer
 *   (bufpage.c); an updated tuple's t_ctid points to its new version, and a heap-only tuple is reached
 *   from its chain's root along t_ctid (src/backend/access/heap/README.HOT); pruning turns a dead root
 *   into LP_REDIRECT (to the chain's first live member) or LP_DEAD, a dead heap-only tuple's line pointer
 *   into LP_UNUSED, and PageRepairFragmentation moves the remaining tuples together (pruneheap.c,
 *   bufpage.c). Only pruning compacts a PostgreSQL page.
 *
 * Where a rule is rowsim's own choice it says so beside the code. Pure TypeScript with no Node import: the
 * browser playground runs it as it is.
 */
import type { HeapEvent } from '../heap/events.js';
import type { PageDetail, PageInspector, SlotDetail, SlotKind, SlotRef } from '../heap/inspect.js';

/** Which page rules the book follows: a forwarding heap (ASE, SQL Server, Oracle) or PostgreSQL's heap. */
export type BookKind = 'forwarding' | 'postgres';

export interface BookGeometry {
  /** Bytes for rows and the slot array (the engine's usableBytes). */
  usable: number;
  /** Bytes of one slot-array entry. */
  slotBytes: number;
}

/** One entry of a page's slot array as the book holds it. */
export interface BookEntry {
  kind: SlotKind;
  row?: number;
  /** Where its storage starts, in bytes from the row area's origin (ASE / SQL Server: the header's end; Oracle / PostgreSQL: the page's end, growing down). */
  start: number;
  bytes: number;
  reserved: number;
  /** A stub: where the body lives; PostgreSQL: t_ctid (the newer version) or a redirect's target. */
  to?: SlotRef;
  /** A forwarded body: its home stub. */
  from?: SlotRef;
  /** PostgreSQL: a heap-only tuple (reached along a HOT chain), and an old version whose update was HOT. */
  heapOnly?: boolean;
  hotUpdated?: boolean;
}

interface BookPage {
  /** Slot-array entries by slot number from 0 (null: unused). */
  entries: (BookEntry | null)[];
  /** Forwarding heap: the row area's high-water mark; PostgreSQL: bytes of tuple storage from the end. */
  top: number;
  /** A compaction the engine announced, applied where the operation that caused it does (see apply). */
  compactPending: boolean;
}

/** Where a row is: its body (current version) and, when forwarded, its home stub. */
interface RowPlace {
  body: SlotRef;
  home?: SlotRef;
}

/** Rows the book follows at most (a page drawing of a larger table packs its rows: the bulk engine's totals). */
export const BOOK_MAX_ROWS = 200_000;

const ref = (page: number, slot: number): SlotRef => ({ page, slot });

export class PageBook {
  private pages: BookPage[] = [];
  private rows = new Map<number, RowPlace>();
  /** PostgreSQL: versions whose deleting transaction is open (made dead at its commit). */
  private pending: SlotRef[] = [];
  /** A rebuild (reorg rebuild, VACUUM FULL) is writing a new table. */
  private rebuilding = false;
  /** What the book could not follow (an event it did not expect): non-empty means do not draw from it. */
  readonly problems: string[] = [];

  constructor(
    readonly kind: BookKind,
    readonly geometry: BookGeometry,
  ) {}

  // ---- reading ---------------------------------------------------------------------------------

  get pageCount(): number {
    return this.pages.length;
  }

  entry(at: SlotRef): BookEntry | null {
    return this.pages[at.page]?.entries[at.slot] ?? null;
  }

  /** The slot of a row's body (current version) on `page`, or undefined. */
  bodySlot(row: number, page: number): number | undefined {
    const p = this.rows.get(row);
    return p && p.body.page === page ? p.body.slot : undefined;
  }

  /** A row's slot at home: its stub when forwarded, else its body. */
  homeSlot(row: number): SlotRef | undefined {
    const p = this.rows.get(row);
    return p ? (p.home ?? p.body) : undefined;
  }

  /** The page's totals: bytes stored, slot-array entries and bytes, holes, contiguous free space, reserved. */
  totals(page: number): { stored: number; entries: number; slotArray: number; holes: number; contiguous: number; reserved: number } {
    const pg = this.pages[page];
    if (!pg) return { stored: 0, entries: 0, slotArray: 0, holes: 0, contiguous: this.geometry.usable, reserved: 0 };
    let stored = 0;
    let used = 0;
    let reserved = 0;
    for (const e of pg.entries) {
      if (e === null) continue;
      stored += e.bytes;
      used++;
      reserved += e.reserved;
    }
    // PostgreSQL keeps every line pointer, used or not, in pd_lower; a forwarding heap's entries are its live ones.
    const entries = this.kind === 'postgres' ? pg.entries.length : used;
    const slotArray = entries * this.geometry.slotBytes;
    return { stored, entries, slotArray, holes: pg.top - stored, contiguous: this.geometry.usable - pg.top - slotArray, reserved };
  }

  /** Page `page` as a PageDetail with real slot numbers (from 0) and each entry's storage position. */
  detail(page: number, engine: PageDetail): PageDetail {
    const pg = this.pages[page];
    const t = this.totals(page);
    const slots: SlotDetail[] = [];
    pg?.entries.forEach((e, slot) => {
      if (e === null) {
        if (this.kind === 'postgres') slots.push({ slot, kind: 'unused', bytes: 0 });
        return;
      }
      const s: SlotDetail = { slot, kind: e.kind, bytes: e.bytes, offset: e.start };
      if (e.row !== undefined) s.row = e.row;
      if (e.reserved > 0) s.reserved = e.reserved;
      if (e.to) s.to = { ...e.to };
      if (e.from) s.from = { ...e.from };
      if (e.hotUpdated) s.hot = true;
      const pieces = engine.slots.find((x) => x.row === e.row && x.pieces)?.pieces;
      if (pieces && e.kind !== 'stub') s.pieces = pieces;
      slots.push(s);
    });
    return {
      ...engine,
      slots,
      positioned: true,
      storedBytes: t.stored,
      slotArrayBytes: t.slotArray,
      reservedBytes: t.reserved,
      fragmentedBytes: t.holes,
      contiguousBytes: t.contiguous,
    };
  }

  /** Pages the engine gave back (no entries left) start again from nothing when it takes them back, as the engine's do. */
  forgetUnallocated(inspector: PageInspector): void {
    this.pages.forEach((pg, p) => {
      if (p < inspector.pages && pg.entries.every((e) => e === null) && !inspector.page(p).allocated) {
        pg.entries = [];
        pg.top = 0;
      }
    });
  }

  // ---- the events ------------------------------------------------------------------------------

  /** Apply every compaction announced and not yet applied (between steps: nothing else will). */
  settle(): void {
    this.pages.forEach((pg, p) => {
      if (pg.compactPending) this.compact(p);
    });
  }

  /**
   * One engine event. A compaction is announced before the operation that needed it, and happens in the
   * engine after the operation's removals (a stub given up, a body moved away) and before its placements:
   * the book applies it at the same point.
   */
  apply(e: HeapEvent): void {
    if (this.rows.size > BOOK_MAX_ROWS) {
      if (this.problems.length === 0) this.problems.push(`more than ${BOOK_MAX_ROWS} rows: the page book follows small tables only`);
      return;
    }
    switch (e.op) {
      case 'insert':
        if (this.rebuilding) this.endRebuild();
        this.settle();
        this.placeNew(e.page, e.row, e.bytes, e.reserved, 'row');
        break;
      case 'update':
        if (this.kind === 'postgres') this.pgUpdate(e);
        else this.fwdUpdate(e);
        break;
      case 'delete':
        this.settle();
        this.remove(e);
        break;
      case 'compact':
        this.page(e.page).compactPending = true;
        break;
      case 'commit':
        this.commit(e.versions);
        break;
      case 'prune':
        this.settle();
        this.prune(e.page, e.freedBytes);
        break;
      case 'reorg-row':
        this.reorgRow(e);
        break;
      case 'rewrite':
        this.rebuilding = false;
        if (e.kind === 'vacuum') this.vacuumLps();
        this.settle();
        break;
      default:
        break;
    }
  }

  private page(p: number): BookPage {
    while (this.pages.length <= p) this.pages.push({ entries: [], top: 0, compactPending: false });
    return this.pages[p]!;
  }

  /** A slot for a new entry: the first unused one, else a new one at the end (PostgreSQL's PageAddItem; rowsim's choice for the others, whose manuals do not say). */
  private freeSlot(pg: BookPage): number {
    const k = pg.entries.indexOf(null);
    return k >= 0 ? k : pg.entries.length;
  }

  /** Storage for `bytes` at the top of the row area (the contiguous free space), in a new slot or `slot`. */
  private placeNew(p: number, row: number, bytes: number, reserved: number, kind: SlotKind, slot?: number): number {
    const pg = this.page(p);
    const k = slot ?? this.freeSlot(pg);
    while (pg.entries.length < k) pg.entries.push(null);
    pg.entries[k] = { kind, row, start: pg.top, bytes, reserved };
    pg.top += bytes;
    if (kind !== 'stub' && kind !== 'pending' && kind !== 'dead') this.rows.set(row, { body: ref(p, k) });
    return k;
  }

  /** The slot gives up its entry (its storage becomes a hole); trailing unused slots of a forwarding heap are dropped. */
  private freeEntry(at: SlotRef): void {
    const pg = this.page(at.page);
    pg.entries[at.slot] = null;
    if (this.kind === 'forwarding') while (pg.entries.length > 0 && pg.entries[pg.entries.length - 1] === null) pg.entries.pop();
  }

  /** Squeeze the holes out: every entry's storage moved together in the order it lies on the page. */
  private compact(p: number): void {
    const pg = this.page(p);
    pg.compactPending = false;
    const live = pg.entries.filter((e): e is BookEntry => e !== null && e.bytes > 0).sort((a, b) => a.start - b.start);
    let at = 0;
    for (const e of live) {
      e.start = at;
      at += e.bytes;
    }
    pg.top = at;
  }

  private must(row: number, what: string): RowPlace | null {
    const p = this.rows.get(row);
    if (!p) this.problems.push(`${what} of row ${row}, which the book does not hold`);
    return p ?? null;
  }

  // ---- forwarding heaps (ASE, SQL Server, Oracle) -----------------------------------------------

  private fwdUpdate(e: Extract<HeapEvent, { op: 'update' }>): void {
    const place = this.must(e.row, 'an update');
    if (!place) return;
    const body = this.entry(place.body);
    if (!body) return void this.problems.push(`update of row ${e.row}: no entry at its body`);
    const rsv = e.reserved ?? body.reserved;
    switch (e.outcome) {
      case 'shrank':
      case 'in-place':
        this.settle();
        body.bytes = e.toBytes;
        body.reserved = rsv;
        break;
      case 'rewritten': {
        // The grown row is written into the contiguous free space; its old bytes become a hole.
        this.settle();
        const pg = this.page(place.body.page);
        body.start = pg.top;
        body.bytes = e.toBytes;
        body.reserved = rsv;
        pg.top += e.toBytes;
        break;
      }
      case 'compacted':
        this.settle();
        this.growInPlace(place.body.page, body, e.toBytes - body.bytes);
        body.reserved = rsv;
        break;
      case 'forwarded':
        this.forward(e, place, body, rsv);
        break;
      case 'reforwarded':
      case 'moved':
        this.freeEntry(place.body);
        this.settle();
        this.relocate(e, place, rsv);
        break;
      case 'moved-home':
        this.freeEntry(place.body);
        this.bodyHome(e.row, place, e.toBytes, rsv);
        break;
      default:
        this.problems.push(`update of row ${e.row}: outcome ${e.outcome} is not a forwarding heap's`);
    }
  }

  /** After a compaction (top = stored bytes) the row grows where it is and the rows after it shift up. */
  private growInPlace(p: number, body: BookEntry, delta: number): void {
    const pg = this.page(p);
    for (const x of pg.entries) if (x !== null && x !== body && x.start > body.start) x.start += delta;
    body.bytes += delta;
    pg.top += delta;
  }

  /** First move: a stub stays in the row's place (its first bytes; the rest become a hole), the body goes to e.toPage. */
  private forward(e: Extract<HeapEvent, { op: 'update' }>, place: RowPlace, body: BookEntry, rsv: number): void {
    const home = place.body;
    body.kind = 'stub';
    body.bytes = e.stubBytes ?? 0;
    body.reserved = 0;
    this.settle();
    const slot = this.placeNew(e.toPage, e.row, e.toBytes, rsv, 'forwarded');
    body.to = ref(e.toPage, slot);
    this.entry(ref(e.toPage, slot))!.from = { ...home };
    this.rows.set(e.row, { body: ref(e.toPage, slot), home });
  }

  /** Moved again (the home stub follows) or, allpages locking, moved with a new row id. */
  private relocate(e: Extract<HeapEvent, { op: 'update' }>, place: RowPlace, rsv: number): void {
    if (e.outcome === 'moved') {
      this.placeNew(e.toPage, e.row, e.toBytes, rsv, 'row');
      return;
    }
    const home = place.home ?? place.body;
    const slot = this.placeNew(e.toPage, e.row, e.toBytes, rsv, 'forwarded');
    this.entry(ref(e.toPage, slot))!.from = { ...home };
    const stub = this.entry(home);
    if (stub) stub.to = ref(e.toPage, slot);
    this.rows.set(e.row, { body: ref(e.toPage, slot), home });
  }

  /** A forwarded row's body comes home in its stub's slot: the stub's bytes become a hole, the body goes into the contiguous free space (after a compaction when announced). */
  private bodyHome(row: number, place: RowPlace, bytes: number, rsv: number): void {
    const home = place.home;
    if (!home) return void this.problems.push(`row ${row} comes home but is not forwarded`);
    this.freeEntry(home);
    const pg = this.page(home.page);
    if (pg.compactPending) this.compact(home.page);
    this.settle();
    this.placeNew(home.page, row, bytes, rsv, 'row', home.slot);
  }

  private remove(e: Extract<HeapEvent, { op: 'delete' }>): void {
    const place = this.must(e.row, 'a delete');
    if (!place) return;
    if (this.kind === 'postgres') {
      this.retire(place.body);
      this.rows.delete(e.row);
      return;
    }
    this.freeEntry(place.body);
    if (place.home) this.freeEntry(place.home);
    this.rows.delete(e.row);
  }

  private reorgRow(e: Extract<HeapEvent, { op: 'reorg-row' }>): void {
    if (e.outcome === 'rewritten') {
      // A rebuild writes a new table from its first page: the old pages go when its first row arrives.
      if (!this.rebuilding) {
        this.rebuilding = true;
        this.pages = [];
        this.pending = [];
      }
      this.placeNew(e.to, e.row, e.bytes, e.reserved ?? 0, 'row');
      return;
    }
    const place = this.must(e.row, 'a reorganisation');
    if (!place) return;
    this.freeEntry(place.body);
    if (e.outcome === 'moved-home') {
      this.bodyHome(e.row, place, e.bytes, e.reserved ?? 0);
      return;
    }
    // Re-homed: deleted (stub and body) and inserted again, its new home.
    if (place.home) this.freeEntry(place.home);
    this.settle();
    this.placeNew(e.to, e.row, e.bytes, e.reserved ?? 0, 'row');
  }

  private endRebuild(): void {
    this.rebuilding = false;
  }

  // ---- PostgreSQL ------------------------------------------------------------------------------

  private pgUpdate(e: Extract<HeapEvent, { op: 'update' }>): void {
    const place = this.must(e.row, 'an update');
    if (!place) return;
    this.settle();
    const old = this.entry(place.body);
    if (!old) return void this.problems.push(`update of row ${e.row}: no version at ${place.body.page},${place.body.slot}`);
    const hot = e.outcome === 'hot';
    this.retire(place.body);
    // The new version: a heap-only tuple when the update is HOT (heapam.c heap_update).
    const slot = this.placeNew(e.toPage, e.row, e.toBytes, 0, hot ? 'heap-only' : 'row');
    const fresh = this.entry(ref(e.toPage, slot))!;
    if (hot) fresh.heapOnly = true;
    old.to = ref(e.toPage, slot);
    if (hot) old.hotUpdated = true;
  }

  /** A version replaced or deleted by the open transaction. */
  private retire(at: SlotRef): void {
    const v = this.entry(at);
    if (!v) return;
    v.kind = 'pending';
    this.pending.push(at);
  }

  private commit(versions: number): void {
    if (this.kind !== 'postgres') return;
    if (versions !== this.pending.length)
      this.problems.push(`commit: the engine made ${versions} versions dead, the book holds ${this.pending.length} pending`);
    for (const at of this.pending) {
      const v = this.entry(at);
      if (v && v.kind === 'pending') v.kind = 'dead';
    }
    this.pending = [];
  }

  /**
   * heap_page_prune: dead heap-only tuples' line pointers become unused; a dead root becomes LP_REDIRECT
   * to its chain's first member still there when its update was HOT, else LP_DEAD (no storage); then
   * PageRepairFragmentation moves the tuples together and trailing unused line pointers are cut off (as
   * the engine does, postgres-pages.ts prune).
   */
  private prune(p: number, freedBytes: number): void {
    const pg = this.page(p);
    // A chain's first member still there after the prune: past the dead ones on this page.
    const firstAlive = (to: SlotRef | undefined): SlotRef | undefined => {
      let at = to;
      for (let hops = 0; at && at.page === p && hops < 1000; hops++) {
        const v = this.entry(at);
        if (!v) return undefined;
        if (v.kind !== 'dead') return at;
        at = v.hotUpdated ? v.to : undefined;
      }
      return at;
    };
    const targets = pg.entries.map((v) =>
      v && (v.kind === 'redirect' || (v.kind === 'dead' && v.hotUpdated)) ? firstAlive(v.to) : undefined,
    );
    let freed = 0;
    pg.entries.forEach((v, k) => {
      if (v === null || (v.kind !== 'dead' && v.kind !== 'redirect')) return;
      if (v.kind === 'dead') freed += v.bytes;
      if (v.kind === 'dead' && v.heapOnly) {
        pg.entries[k] = null;
        return;
      }
      const to = targets[k];
      pg.entries[k] = {
        kind: to ? 'redirect' : 'dead-lp',
        start: 0,
        bytes: 0,
        reserved: 0,
        ...(v.row !== undefined ? { row: v.row } : {}),
        ...(to ? { to } : {}),
      };
    });
    while (pg.entries.length > 0 && pg.entries[pg.entries.length - 1] === null) pg.entries.pop();
    if (freed !== freedBytes) this.problems.push(`prune of page ${p}: the engine freed ${freedBytes} B, the book ${freed} B`);
    this.compact(p);
  }

  /** VACUUM's second pass: LP_DEAD line pointers become unused (their index entries are gone), trailing unused ones cut off keeping one. */
  private vacuumLps(): void {
    for (const pg of this.pages) {
      let changed = false;
      pg.entries.forEach((v, k) => {
        if (v !== null && v.kind === 'dead-lp') {
          pg.entries[k] = null;
          changed = true;
        }
      });
      if (changed) while (pg.entries.length > 1 && pg.entries[pg.entries.length - 1] === null) pg.entries.pop();
    }
  }
}

/**
 * The book's pages against the engine's: bytes stored, slot-array bytes, holes, contiguous free space,
 * reserved bytes, and each row's entries (kind and bytes). Empty when they agree.
 */
export function compareBook(book: PageBook, inspector: PageInspector, pages?: readonly number[]): string[] {
  const bad = [...book.problems];
  const list = pages ?? Array.from({ length: inspector.pages }, (_, p) => p);
  for (const p of list) {
    const e = inspector.page(p);
    const b = book.detail(p, e);
    const keys = ['storedBytes', 'slotArrayBytes', 'fragmentedBytes', 'contiguousBytes', 'reservedBytes'] as const;
    for (const k of keys) if (e[k] !== b[k]) bad.push(`page ${p}: ${k} ${b[k]} in the book, ${e[k]} in the engine`);
    const named = (d: PageDetail) =>
      d.slots
        .filter((s) => s.row !== undefined && s.count === undefined)
        .map((s) => `${s.row}:${s.kind}:${s.bytes}`)
        .sort()
        .join(' ');
    // The engine counts old versions, unused and redirect line pointers per kind; the book names them.
    const counted = (d: PageDetail, kinds: SlotKind[]) =>
      d.slots.filter((s) => kinds.includes(s.kind)).reduce((n, s) => n + (s.count ?? 1), 0);
    if (book.kind === 'postgres') {
      const live = (d: PageDetail) => named({ ...d, slots: d.slots.filter((s) => s.kind === 'row' || s.kind === 'heap-only') });
      if (live(e) !== live(b)) bad.push(`page ${p}: live versions ${live(b)} in the book, ${live(e)} in the engine`);
      for (const kinds of [['pending'], ['dead'], ['redirect', 'dead-lp'], ['unused']] as SlotKind[][]) {
        const want = counted(e, kinds.includes('dead-lp') ? ['redirect'] : kinds);
        if (counted(b, kinds) !== want) bad.push(`page ${p}: ${kinds.join('/')} ${counted(b, kinds)} in the book, ${want} in the engine`);
      }
    } else if (named(e) !== named(b)) bad.push(`page ${p}: entries ${named(b)} in the book, ${named(e)} in the engine`);
  }
  return bad;
}
