/**
 * The trace's check: its events replayed on their own, row by row, must end where the engine ended. A
 * trace that skipped or garbled an event (a wrong page, a lost move) ends somewhere else, and the
 * differences are named page by page.
 */
import type { HeapEvent } from '../heap/events.js';
import type { PageInspector } from '../heap/inspect.js';

interface Placed {
  home: number;
  cur: number;
  bytes: number;
}

/** Where every live row is after `events`, from nothing: its home (where its slot is), its body's page, its bytes. */
export function replayEvents(events: readonly HeapEvent[]): Map<number, Placed> {
  const rows = new Map<number, Placed>();
  const must = (r: number, what: string): Placed => {
    const p = rows.get(r);
    if (!p) throw new Error(`replay: ${what} of row ${r}, which no earlier event inserted`);
    return p;
  };
  for (const e of events) {
    switch (e.op) {
      case 'insert':
        rows.set(e.row, { home: e.page, cur: e.page, bytes: e.bytes });
        break;
      case 'update': {
        const p = must(e.row, 'an update');
        p.bytes = e.toBytes;
        p.cur = e.toPage;
        if (
          e.outcome === 'moved' ||
          e.outcome === 'split' ||
          e.outcome === 'in-place' ||
          e.outcome === 'new-page' ||
          e.outcome === 'hot' ||
          e.outcome === 'same-page'
        )
          p.home = e.toPage;
        else if (e.outcome === 'moved-home') p.cur = p.home;
        break;
      }
      case 'split':
        for (const r of e.rows) {
          const p = must(r, 'a split');
          p.home = p.cur = e.newPage;
        }
        break;
      case 'delete':
        must(e.row, 'a delete');
        rows.delete(e.row);
        break;
      case 'reorg-row': {
        const p = must(e.row, 'a reorganisation');
        p.bytes = e.bytes;
        if (e.outcome === 'moved-home') p.cur = p.home;
        else p.home = p.cur = e.to;
        break;
      }
      default:
        break;
    }
  }
  return rows;
}

/** Differences between the replayed rows and the engine's pages (empty: the trace ends where the run did). */
export function compareReplay(rows: Map<number, Placed>, inspector: PageInspector): string[] {
  const bad: string[] = [];
  const seen = new Set<number>();
  for (let page = 0; page < inspector.pages; page++) {
    for (const s of inspector.page(page).slots) {
      if (s.row === undefined) continue;
      const p = rows.get(s.row);
      if (!p) {
        bad.push(`page ${page}: row ${s.row} is there, the trace has no such live row`);
        continue;
      }
      if (s.kind === 'stub') {
        if (p.home !== page || p.cur === page)
          bad.push(`page ${page}: a stub of row ${s.row}, the trace has its home on page ${p.home} and its body on ${p.cur}`);
        continue;
      }
      seen.add(s.row);
      if (p.cur !== page) bad.push(`page ${page}: row ${s.row}'s body, the trace has it on page ${p.cur}`);
      else if (p.bytes !== s.bytes) bad.push(`page ${page}: row ${s.row} is ${s.bytes} B, the trace says ${p.bytes} B`);
      if (s.kind === 'forwarded' && p.home !== s.from?.page)
        bad.push(`page ${page}: row ${s.row} forwarded from page ${s.from?.page}, the trace has its home on page ${p.home}`);
      if (s.kind !== 'forwarded' && p.home !== page)
        bad.push(`page ${page}: row ${s.row} at home, the trace has its home on page ${p.home}`);
    }
  }
  for (const r of rows.keys()) if (!seen.has(r)) bad.push(`row ${r}: live in the trace, on no page of the engine`);
  return bad;
}
