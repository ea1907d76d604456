import { IndexEntryRefusal, type IndexRefusal, type OversizeEntry } from './index-refusal.js';
import { UserError } from '../config/errors.js';
import { rowsPerTransaction, type Dist, type Order, type StorageSpec, type TransactionScope, type ValueDomain } from '../config/spec.js';
import { getFormat, indexGeometries } from '../formats/registry.js';
import type { OutOfLineStore, StorageFormat } from '../formats/format.js';
import { NULL_LEN, type ColumnLayout, type ResolvedEngine, type TableLayout } from '../layout/table-layout.js';
import type { StorageEngine } from '../heap/engine.js';
import { IndexSet, type RowList } from '../btree/index-set.js';
import type { Prng } from '../util/prng.js';
import { resolveCount, type Count } from '../util/units.js';
import { RowPicker } from './select.js';
import { plannedInserts } from './planned-work.js';
import { BufferCache } from '../heap/buffer-cache.js';
import { ColumnKeys, KeyStore, NULL_KEY, type KeyContext } from './keys.js';
import { runLayout } from './constant-columns.js';
import { givesCompressibility, OffRowTally, RowStore } from './row-values.js';
import type { RunOptions, WorkloadObserver } from './run-types.js';

/** A keyed column's draws in a phase: the column, its position among the stored lengths (−1: none), its keys, its distinct values' lengths. */
export interface KeyDraw {
  col: number;
  at: number;
  keys: ColumnKeys;
  lens: Map<number, number> | null;
}

/**
 * What one run of a workload on one engine keeps from phase to phase: the rows' stored lengths, the
 * engine, the indexes, the keys; and the steps the phases share (a transaction's end, key draws, the
 * rows a phase picks). Each phase kind is a function of its own over it (phase-*.ts); runner.ts runs
 * them in turn and collects the results.
 */
export class RunState {
  readonly format: StorageFormat;
  /** The layout rows are sized with: columns the run never changes are fixed (workload/constant-columns.ts). */
  readonly layout: TableLayout;
  /** The table's layout as declared: what the result reports of it. */
  readonly schema: TableLayout;
  readonly resolved: ResolvedEngine;
  readonly capacity: number;
  readonly engine: StorageEngine;
  readonly width: number;
  readonly store: RowStore;
  readonly obs: WorkloadObserver | undefined;
  readonly indexes: IndexSet | null;
  /** MVCC indexes keep an entry per version: they follow commits and deletes. */
  readonly trackVersions: boolean;
  /** Off-row records (SQL Server row overflow), when the format keeps any. */
  readonly offRow: OffRowTally | null;
  /** The relation values move out of line to (PostgreSQL's TOAST relation), when the table has one: it sizes the rows. */
  readonly ool: OutOfLineStore | null;
  readonly ncols: number;
  /** Whole lengths of large-object values (the row store keeps at most MAX_STORED_LEN): by varIndex, when a read_lob phase reads them. */
  readonly lobs: Map<number, Uint32Array> | null;
  nextRow = 0;
  /** What the touch before each batch read (kept so the reads are not optimised away). */
  touched = 0;
  /** The buffer cache of read phases (`cache:`), made at the first. */
  bufferCache: BufferCache | null = null;
  /** Keys of the columns indexes read and configs describe (workload/keys.ts). */
  readonly keys: KeyStore;
  /** Per column, the values its latest insert phase described (`distinct`, `frequency`, `order`): an update's new values are drawn from them. */
  readonly domains: (ValueDomain | undefined)[];
  /** Per column, the lengths its latest insert phase drew (undefined: its type's full size): a NULL an update gives a value back takes one. */
  readonly insertLengths: (Dist | undefined)[];
  /** Per column, the key range its random distinct values were placed in (kept for later phases). */
  readonly randomRanges = new Map<number, { lo: number; span: number }>();
  /** Per column, the stored bytes of each distinct value (its key): every row with the value has its length. */
  readonly valueLens = new Map<number, Map<number, number>>();
  /** The phase running (its place in the workload). */
  phaseIndex = -1;

  constructor(
    readonly spec: StorageSpec,
    readonly options: RunOptions,
  ) {
    this.format = getFormat(spec.engine.format);
    const layouts = runLayout(this.format, spec, options.observer !== undefined);
    this.layout = layouts.layout;
    this.schema = layouts.schema;
    this.resolved = this.format.resolve(spec.engine, this.schema);
    this.capacity = plannedInserts(spec.workload);
    this.engine = this.format.pages.createEngine(this.layout, this.resolved, spec, this.capacity);
    if (options.events) this.engine.setEvents(options.events);
    options.onEngine?.(this.engine);
    this.width = this.layout.varying.length;
    this.ncols = this.layout.columns.length;
    this.ool = this.format.allocation.outOfLine?.(this.layout, spec, this.capacity) ?? null;
    this.store = new RowStore(this.width, this.capacity, this.ncols, this.ool !== null && givesCompressibility(spec.workload));
    this.layout.bindRowLevels?.(() => this.store.levels, this.width, this.ncols);
    this.obs = options.observer;
    // Keys for the columns a simulated (nbtree) index reads and the columns a config gives values to.
    const geometries = indexGeometries(this.format, spec.table, this.layout);
    const keyed = new Uint8Array(spec.table.columns.length);
    for (const g of geometries) if (g.nbtree) for (const c of g.columns) keyed[c] = 1;
    for (const c of this.engine.keyColumns ?? []) keyed[c] = 1;
    for (const ph of spec.workload) {
      const given =
        ph.op === 'insert'
          ? Object.entries(ph.values)
              .filter(([, v]) => v.domain)
              .map(([k]) => k)
          : ph.op === 'update'
            ? Object.entries(ph.set)
                .filter(([, v]) => v.kind !== 'same' && v.domain)
                .map(([k]) => k)
            : [];
      for (const name of given) keyed[this.layout.columns.findIndex((c) => c.name === name)] = 1;
    }
    this.keys = new KeyStore(keyed, this.capacity);
    this.engine.useRowSource?.({ key: (col, row) => this.keys.get(col, row), lens: () => this.store.lens, width: this.width });
    this.domains = spec.table.columns.map(() => undefined);
    this.insertLengths = spec.table.columns.map(() => undefined);
    const keys = this.keys;
    // Indexes grow with updates only where every update that is not heap-only adds entries (MVCC).
    this.indexes =
      spec.table.indexes.length > 0
        ? new IndexSet(geometries, this.layout, this.format.indexes.versionedIndexes, {
            key: (col, row) => keys.get(col, row),
            keyIsRowId: (col) => keys.implicit(col),
            rowPage: (row) => this.engine.rowPage(row),
            lens: () => this.store.lens,
            visitBlock: (page) => this.engine.visitPage?.(page),
          })
        : null;
    this.trackVersions = this.indexes !== null && this.format.indexes.versionedIndexes;
    const offRowStore = this.format.allocation.offRow?.(this.layout);
    this.offRow = offRowStore ? new OffRowTally(offRowStore, this.capacity) : null;
    this.lobs = spec.workload.some((ph) => ph.op === 'read_lob')
      ? new Map(
          this.layout.varying
            .filter((c) => spec.table.columns[c.index]!.type.lob)
            .map((c) => [c.varIndex, new Uint32Array(Math.max(16, this.capacity))]),
        )
      : null;
    if (this.lobs) this.ool?.useWholeLengths?.(this.lobs);
  }

  commitTransaction(): void {
    this.engine.commit();
    this.ool?.commit();
    if (this.trackVersions) this.indexes!.commit();
    this.obs?.commit?.();
  }

  // ---- a phase's transactions: N rows each, COMMIT or ROLLBACK ----------------------------------

  /** Rows a transaction of the phase takes (Infinity: the whole phase), rows in the open one, and whether each ends in ROLLBACK. */
  private txnRows = Infinity;
  private txnCount = 0;
  rollingBack = false;
  /** The rows the open transaction changed, as they were before it (a rolled-back phase's): lengths, levels, keys, live. */
  private undo: Map<number, { lens: Uint16Array; levels: Uint8Array | null; keys: Float64Array; live: boolean }> | null = null;

  /** A phase that changes rows starts; returns whether it ends transactions before its end (row, batch(N)). */
  startTransactions(scope: TransactionScope, rollback: boolean): boolean {
    this.txnRows = rowsPerTransaction(scope);
    this.txnCount = 0;
    this.rollingBack = rollback;
    if (rollback) this.beginLog();
    return Number.isFinite(this.txnRows);
  }

  private beginLog(): void {
    this.undo = new Map();
    this.engine.beginTransactionLog?.();
    if (this.trackVersions) this.indexes!.beginTransactionLog();
  }

  /** A rolled-back phase: the row as it is before the transaction changes it (the first time only). */
  noteRow(row: number): void {
    const u = this.undo;
    if (u === null || u.has(row)) return;
    const base = row * this.width;
    const lv = this.store.levels;
    u.set(row, {
      lens: this.store.lens.slice(base, base + this.width),
      levels: lv ? lv.slice(row * this.ncols, (row + 1) * this.ncols) : null,
      keys: this.keys.snapshot(row).slice(),
      live: row < this.nextRow && this.engine.isLive(row),
    });
  }

  /** A row's change is done: the transaction ends after its N-th row. */
  rowDone(): void {
    if (++this.txnCount >= this.txnRows) this.endTransaction();
  }

  /** The open transaction ends: COMMIT, or ROLLBACK in a phase with `rollback: true`. */
  endTransaction(): void {
    this.txnCount = 0;
    if (!this.rollingBack) return this.commitTransaction();
    this.abortTransaction();
    this.beginLog();
  }

  /** The phase is over: its last transaction ended, nothing logged any more. */
  endTransactions(): void {
    if (this.txnCount > 0 || !Number.isFinite(this.txnRows)) this.endTransaction();
    this.rollingBack = false;
    this.undo = null;
    this.txnRows = Infinity;
  }

  /**
   * ROLLBACK: an MVCC engine leaves what its DBMS leaves (engine.abort); another engine's undo puts the
   * rows back as they were (a row the transaction inserted deleted, a changed row given its old size
   * again: the pages it allocated stay). The row store, keys and the indexes' versions as before it.
   */
  private abortTransaction(): void {
    const undo = this.undo!;
    for (const [row, was] of undo) {
      const base = row * this.width;
      this.store.lens.set(was.lens, base);
      if (was.levels) this.store.levels!.set(was.levels, row * this.ncols);
      for (let c = 0; c < was.keys.length; c++) if (this.keys.keyed[c]) this.keys.set(c, row, was.keys[c]!);
      if (this.engine.abort) continue;
      const liveNow = this.engine.isLive(row);
      if (!was.live && liveNow) this.engine.delete(row);
      else if (was.live && liveNow) {
        const logical = this.format.rows.logicalBytes(this.layout, this.store.lens, base);
        this.engine.update(row, this.format.rows.rowBytes(this.layout, this.store.lens, base, logical), logical, { indexedChanged: false });
      }
    }
    if (this.engine.abort) this.engine.abort();
    else this.engine.commit();
    this.ool?.commit();
    if (this.trackVersions) this.indexes!.abort();
    this.obs?.rollback?.();
  }

  /** `open_snapshot` / `close_snapshot`: another session holds a snapshot (MVCC engines keep what it may see). */
  holdSnapshot(hold: boolean): void {
    this.engine.holdSnapshot?.(hold);
    if (this.trackVersions) this.indexes!.hold(hold);
  }

  /**
   * The live rows in id order, for an index build: every id when every row is live (no list is made),
   * else a list of the live ids.
   */
  liveRowList(): RowList {
    const count = this.engine.liveRows();
    if (count === this.nextRow) return { count, at: (k) => k };
    const ids = new Int32Array(count);
    let k = 0;
    for (let r = 0; r < this.nextRow; r++) if (this.engine.isLive(r)) ids[k++] = r;
    return { count, at: (i) => ids[i]! };
  }

  /** A keyed column's key draws for a phase of `count` values (workload/keys.ts). */
  columnKeys(col: ColumnLayout, domain: ValueDomain | undefined, phase: number, op: string, count: number): KeyDraw {
    const width = this.width;
    const ctx: KeyContext = {
      store: this.keys,
      seed: this.spec.seed,
      phase,
      op,
      count,
      rowIds: this.nextRow,
      isLive: (r) => this.engine.isLive(r),
      bytesOf: (r) => (col.varIndex >= 0 ? this.store.lens[r * width + col.varIndex]! : col.fixedBytes),
    };
    const randomDistinct = domain?.distinct !== undefined && domain.order === 'random';
    const keys = new ColumnKeys(col.index, col.name, domain, ctx, randomDistinct ? this.randomRanges.get(col.index) : undefined);
    if (randomDistinct && !this.randomRanges.has(col.index)) this.randomRanges.set(col.index, keys.range());
    let lens: Map<number, number> | null = null;
    if (domain?.distinct !== undefined && col.varIndex >= 0) {
      lens = this.valueLens.get(col.index) ?? new Map<number, number>();
      this.valueLens.set(col.index, lens);
    }
    return { col: col.index, at: col.varIndex, keys, lens };
  }

  /**
   * The key of `row`'s new value in a keyed column (the phase's j-th), NULL_KEY for a NULL; a distinct
   * value takes the length the first row with it had (a repeated existing value, that row's length).
   */
  drawKey(kd: KeyDraw, row: number, j: number, lens: Uint16Array, current: number, store = true): number {
    const at = kd.at;
    const base = row * this.width;
    let key: number;
    if (at >= 0 && lens[base + at] === NULL_LEN) key = NULL_KEY;
    else {
      key = kd.keys.next(j, current);
      if (kd.lens !== null && kd.keys.valueId >= 0) {
        const known = kd.lens.get(key);
        if (known !== undefined) lens[base + at] = known;
        else {
          const src = kd.keys.sourceRow;
          const b = src >= 0 ? this.store.lens[src * this.width + at]! : lens[base + at]!;
          if (b !== NULL_LEN) {
            kd.lens.set(key, b);
            lens[base + at] = b;
          }
        }
      }
    }
    if (store) this.keys.set(kd.col, row, key);
    return key;
  }

  /**
   * The server refuses the statement that adds an entry over the index's limit (btree/entry-limit.ts): the
   * run stops with its error. `row`'s values are those of the refused statement.
   */
  refuse(step: IndexRefusal['step'], over: OversizeEntry, row: number): never {
    const phase = this.spec.workload[Math.max(0, this.phaseIndex)]!;
    // The engine's slot counts from 0; the server's line pointers (the TID it names) from 1.
    const at = this.engine.isLive(row) ? this.engine.rowSlot?.(row) : undefined;
    const slot = at === undefined ? undefined : at + 1;
    throw new IndexEntryRefusal({
      ...over,
      phase: this.phaseIndex,
      op: phase.op,
      step,
      table: this.spec.table.name,
      row,
      page: this.engine.isLive(row) ? this.engine.rowPage(row) : -1,
      ...(slot === undefined ? {} : { slot }),
    });
  }

  /** The engine refused a row the server fails the statement for (StorageFormat.rows.refusal): the run stops with the server's error. */
  refuseRow(step: 'insert' | 'update', row: number, bytes: number): void {
    const error = this.format.rows.refusal?.(this.layout, bytes);
    if (error === undefined) return;
    const phase = this.spec.workload[Math.max(0, this.phaseIndex)]!;
    throw new UserError(
      `workload[${this.phaseIndex}].${phase.op}: ${this.format.dbmsName} refuses the ${step.toUpperCase()} of row ${row} of table ${this.spec.table.name} in this phase and the transaction it is in: ${error}; the run stops here, as the server's would`,
    );
  }

  /** The live rows in the order of their pages (by row id within a page). */
  rowsInPageOrder(): Int32Array {
    const ids: number[] = [];
    for (let r = 0; r < this.nextRow; r++) if (this.engine.isLive(r)) ids.push(r);
    const slot = this.engine.rowSlot?.bind(this.engine);
    ids.sort((a, b) => this.engine.rowPage(a) - this.engine.rowPage(b) || (slot ? slot(a) - slot(b) : 0) || a - b);
    return Int32Array.from(ids);
  }

  /** Rows of the phase, a batch at a time, in the phase's order ('order' stream: nothing else draws from it). */
  picker(count: Count, order: Order, rng: Prng): RowPicker {
    const live = this.engine.liveRows();
    return new RowPicker(order, resolveCount(count, live), this.nextRow, live, this.engine, rng);
  }

  /** The run's buffer cache, made at the first read phase (null without `cache:`). */
  cache(): BufferCache | null {
    if (!this.spec.cache) return null;
    this.bufferCache ??= new BufferCache(this.spec.cache.pages, this.spec.cache.policy);
    return this.bufferCache;
  }
}

/** An update's or delete's order and access as its label names them: `random`, `sequential, scan`, `newest, key range`. */
export function accessName(phase: { order: { kind: string; s?: number }; via?: string }): string {
  const via = phase.via === 'scan' ? ', scan' : phase.via === 'range' ? ', key range' : '';
  return `${orderName(phase.order)}${via}`;
}

/** An order as a phase's label names it. */
export function orderName(o: { kind: string; s?: number }): string {
  return o.kind === 'zipf' ? `zipf(${o.s})` : o.kind;
}
