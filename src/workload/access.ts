/**
 * How an update or delete phase reaches its rows (`via:`), and so the order it meets them in and the
 * pages it reads on the way:
 *
 * - `index` (the default): each row found through the first index by its key, one statement a row, in
 *   the phase's order (a RowPicker); the engine reads the row's page for each row (PostgreSQL prunes it
 *   there, heapam_index_fetch_tuple → heap_page_prune_opt).
 * - `scan`: one statement that reads the table by a sequential scan. The rows the phase's order picks
 *   are met in scan order: by the page the scan reaches each from (engine.scanPageOf: a forwarded row's
 *   home, where the scan meets its stub; Oracle's migrated row where it lies), then by line pointer, at
 *   the statement's start; each once (a version the statement writes is not visible to its own scan:
 *   PostgreSQL's snapshot, SQL Server's and ASE's scans skip forwarded bodies, Oracle reads consistently
 *   as of the statement's start). Every page of the table at the start is read once, in order, before its
 *   rows are changed (engine.visitPage: PostgreSQL prunes it then, heapgetpage → heap_page_prune_opt,
 *   and not again while its rows are updated); pages added by the statement are not read (the scan ends
 *   at the block count it started with, heapam.c initscan rs_nblocks).
 * - `range`: one statement over a run of consecutive keys of the first index's leading column
 *   (`WHERE id BETWEEN a AND b`): the oldest keys, the newest, or a run from a random place, met in key
 *   order; a row's page is read when the index scan moves to it from another page (PostgreSQL prunes
 *   then: heapam_index_fetch_tuple prunes only when the fetch changes buffer).
 */
import type { Order, PhaseSpec, RowAccess } from '../config/spec.js';
import type { StorageEngine } from '../heap/engine.js';
import type { Prng } from '../util/prng.js';
import type { RunState } from './run-state.js';

/** Rows handed out a batch at a time (a RowPicker, or a statement's rows in the order it meets them). */
export interface RowSource {
  readonly total: number;
  next(out: Int32Array): number;
}

type RowPhase = Extract<PhaseSpec, { op: 'update' | 'delete' }>;

/** The phase's `via` (index when the spec has none: specs made in code before it existed). */
export function accessOf(phase: RowPhase): RowAccess {
  return phase.via ?? 'index';
}

/** The rows of the phase in the order it meets them: a picker for `via: index`, else the statement's rows. */
export function phaseRows(run: RunState, phase: RowPhase, rng: Prng): RowSource {
  const via = accessOf(phase);
  if (via === 'index') return run.picker(phase.rows, phase.order, rng);
  if (via === 'scan') return scanRows(run, phase, rng);
  return rangeRows(run, phase.order, run.picker(phase.rows, { kind: 'sequential' }, rng).total, rng);
}

/** The picked rows in scan order, with the pages the scan reads around them. */
function scanRows(run: RunState, phase: RowPhase, rng: Prng): StatementRows {
  const picker = run.picker(phase.rows, phase.order, rng);
  const rows = new Int32Array(picker.total);
  let n = 0;
  for (let got = picker.next(rows); got > 0 && n < rows.length; got = picker.next(rows.subarray(n))) n += got;
  const engine = run.engine;
  const pageOf = (r: number) => engine.scanPageOf?.(r) ?? engine.rowPage(r);
  const slot = engine.rowSlot?.bind(engine);
  const chosen = Array.from(rows.subarray(0, n));
  chosen.sort((a, b) => pageOf(a) - pageOf(b) || (slot ? slot(a) - slot(b) : 0) || a - b);
  const ordered = Int32Array.from(chosen);
  return new StatementRows(engine, ordered, Int32Array.from(ordered, pageOf), 'scan', engine.scanExtent?.() ?? 0);
}

/** A run of `count` consecutive keys of the first index's leading column: the oldest, the newest, or from a random place; in key order. */
function rangeRows(run: RunState, order: Order, count: number, rng: Prng): StatementRows {
  const engine = run.engine;
  const idx = run.spec.table.indexes[0];
  const col = idx ? run.layout.columns.findIndex((c) => c.name.toLowerCase() === idx.columns[0]!.toLowerCase()) : -1;
  const live: number[] = [];
  for (let r = 0; r < run.nextRow; r++) if (engine.isLive(r)) live.push(r);
  const keys = run.keys;
  const keyOf = (r: number) => (col >= 0 ? keys.get(col, r) : r);
  live.sort((a, b) => keyOf(a) - keyOf(b) || a - b);
  const k = Math.min(count, live.length);
  const start = order.kind === 'newest' ? live.length - k : order.kind === 'random' ? rng.int(live.length - k + 1) : 0;
  const rows = Int32Array.from(live.slice(start, start + k));
  return new StatementRows(
    engine,
    rows,
    Int32Array.from(rows, (r) => engine.rowPage(r)),
    'range',
    0,
  );
}

/**
 * A statement's rows in the order it meets them, handed out a page at a time (a batch never spans two
 * pages), the pages read as the statement reaches them: a scan reads every page from the last one read
 * up to the next row's (and, after the last row, to the end of the table as it was at the start); a range
 * reads a row's page when it differs from the row before's.
 */
export class StatementRows implements RowSource {
  private at = 0;
  /** The last page read (−1: none yet). */
  private read = -1;

  constructor(
    private readonly engine: StorageEngine,
    private readonly rows: Int32Array,
    private readonly pages: Int32Array,
    private readonly kind: 'scan' | 'range',
    /** Pages the scan reads in all (the table's at the statement's start). */
    private readonly extent: number,
  ) {}

  get total(): number {
    return this.rows.length;
  }

  next(out: Int32Array): number {
    const n = this.rows.length;
    if (this.at >= n) {
      // The scan reads the rest of the table after its last chosen row.
      if (this.kind === 'scan') this.readTo(this.extent - 1);
      return 0;
    }
    const page = this.pages[this.at]!;
    if (this.kind === 'scan') this.readTo(page);
    else if (page !== this.read) {
      this.engine.visitPage?.(page);
      this.read = page;
    }
    let got = 0;
    while (got < out.length && this.at < n && this.pages[this.at] === page) out[got++] = this.rows[this.at++]!;
    return got;
  }

  private readTo(page: number): void {
    const visit = this.engine.visitPage?.bind(this.engine);
    if (visit) for (let p = this.read + 1; p <= page; p++) visit(p);
    if (page > this.read) this.read = page;
  }
}
