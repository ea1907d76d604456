/**
 * What a page engine did, step by step, as it does it: the event stream `rowsim trace` narrates. The
 * engines emit these themselves from the branches that decide (never a second model that could
 * disagree); with no sink set they emit nothing and allocate nothing.
 */

/** Why an update left the row where it was, or where it went. */
export type UpdateOutcome =
  /** The row shrank or stayed the size: it keeps its place, the freed bytes become a hole. */
  | 'shrank'
  /** A clustered table's row changed size where it is: its page had room (rows there are not forwarded). */
  | 'in-place'
  /** The grown row was rewritten into the page's contiguous free space (its old body becomes a hole). */
  | 'rewritten'
  /** The growth fitted in the page's total free space only: the page was compacted, then the row rewritten. */
  | 'compacted'
  /** The row no longer fitted its page: its body moved, a stub stays at home. */
  | 'forwarded'
  /** A forwarded row moved again; the home stub now points to the new place (one hop at most). */
  | 'reforwarded'
  /** A forwarded row came back to its home page in place of its stub. */
  | 'moved-home'
  /** Allpages locking: the row moved to another page with a new row id; its index entries were updated. */
  | 'moved'
  /** A clustered table: the page was split so the row's growth fits. */
  | 'split'
  /** PostgreSQL: the new version went on the same page and no indexed column changed (heap-only tuple). */
  | 'hot'
  /** PostgreSQL: the new version went on the same page but an indexed column changed: new index entries. */
  | 'same-page'
  /** PostgreSQL: the page had no room for the new version: it went to another page, new index entries. */
  | 'new-page';

export type HeapEvent =
  | {
      op: 'insert';
      row: number;
      page: number;
      bytes: number;
      reserved: number;
      newPage: boolean;
      /**
       * A new page although the last page had the bytes free: the page passed over, its free bytes, the
       * room the engine would give a new row there and why less (a SQL Server PFS band, Oracle's PCTFREE).
       */
      passed?: { page: number; free: number; room: number; need: number; why: 'pfs' | 'reserve' };
    }
  | {
      op: 'update';
      row: number;
      /** The page the row's body was on, and its home when forwarded (−1 when not). */
      page: number;
      home: number;
      fromBytes: number;
      toBytes: number;
      /** The page's free space when the update arrived: total, and in one piece. */
      totalFree: number;
      contiguousFree: number;
      outcome: UpdateOutcome;
      /** Where the row's body is after the update. */
      toPage: number;
      /** The page it went to was new. */
      newPage: boolean;
      /** Bytes of the stub left at home (forwarded), of the back-pointer carried along (SQL Server). */
      stubBytes?: number;
      /** The row's reservation after the update (exp_row_size), where the engine keeps one. */
      reserved?: number;
    }
  | { op: 'delete'; row: number; page: number; home: number; bytes: number }
  | { op: 'compact'; page: number; freedBytes: number }
  | { op: 'split'; page: number; newPage: number; rows: number[] }
  | { op: 'prune'; page: number; versions: number; freedBytes: number; by: 'access' | 'vacuum' }
  | { op: 'commit'; pages: number[]; versions: number }
  | {
      op: 'reorg-row';
      row: number;
      from: number;
      home: number;
      to: number;
      bytes: number;
      outcome: 'moved-home' | 'rehomed' | 'rewritten';
      /** The row's reservation where it lands (exp_row_size). */
      reserved?: number;
    }
  /** A reorganisation that rewrote the whole table (rebuild, VACUUM FULL: its rows follow as reorg-row events) or visited every page (VACUUM). */
  | { op: 'rewrite'; kind: string; pages: number }
  /** A read went down an index from its root to the leaf (the workload runner reads indexes). */
  | { op: 'index-read'; index: string; pages: number }
  /**
   * A row read by its row id or an index entry: the data pages in the order read (the home page, then a
   * forwarded row's), chained pieces, and on PostgreSQL the dead versions visited first and the HOT
   * chain's steps.
   */
  | { op: 'read'; row: number; pages: number[]; forwarded: boolean; pieces: number; deadVersions: number; chainHops: number }
  /** A table scan: pages read, forwarded rows followed at their stubs, chained pieces, versions examined (PostgreSQL). */
  | { op: 'scan'; pages: number; hops: number; pieces: number; tuples: number };

export type HeapEventSink = (e: HeapEvent) => void;

/** The pages an event names: the ones whose drawing it changes. */
export function eventPages(e: HeapEvent): number[] {
  switch (e.op) {
    case 'insert':
    case 'compact':
    case 'prune':
      return [e.page];
    case 'update':
      return [...new Set([e.page, e.toPage, ...(e.home >= 0 ? [e.home] : [])])];
    case 'delete':
      return e.home >= 0 && e.home !== e.page ? [e.home, e.page] : [e.page];
    case 'split':
      return [e.page, e.newPage];
    case 'commit':
      return e.pages;
    case 'reorg-row':
      return [...new Set([e.home, e.from, e.to])];
    case 'rewrite':
    case 'index-read':
    case 'scan':
      return [];
    case 'read':
      return [...new Set(e.pages)];
  }
}
