/**
 * What pg-check replays, decided before anything is sent: the simulated run's operations as the runner's
 * observer saw them (every row operation the engine accepted, with the row's stored lengths), a code for
 * every value (values.ts makes the value of a code), and an audit of those values: where a type or a
 * length has fewer values than the column needs, where an update the simulation counts as changing an
 * indexed column leaves every indexed value as it was (NULL stays NULL), and whether the rows can be
 * found by the first index's key. Pure: no server.
 */
import type { PhaseSpec, StorageSpec, TableDef } from '../config/spec.js';
import type { ReorgKind } from '../heap/engine.js';
import type { ColumnLayout } from '../layout/table-layout.js';
import { MAX_STORED_LEN, NULL_LEN } from '../layout/table-layout.js';
import { runStorage, type PhaseResult, type WorkloadObserver } from '../workload/runner.js';
import { IndexEntryRefusal, type IndexRefusal } from '../workload/index-refusal.js';
import { PgCheckError } from './errors.js';
import { keyColumnOf } from './select.js';
import { ColumnValues, columnKeyWidth, compressibleKeyWidth, storedLength, type ColumnSql, type SqlValue } from './values.js';
import { groupedNumber } from '../util/numbers.js';
import { lowerBound, sortedDistinct } from '../util/arrays.js';

/**
 * A value's code is bases[column] + rank: the phase's first code for the column, and the op's rank in
 * the phase; for a keyed column (keys[column] not NaN: a column an index reads or a config describes),
 * codes[column], the rank of its key among all the column's keys, so values sort and repeat as the keys do.
 */
interface Coded {
  rank: number;
  bases: Float64Array;
  keys: Float64Array;
  codes: Float64Array;
}

export type Op =
  | { k: 'phase'; index: number; phase: PhaseSpec }
  | ({ k: 'insert'; row: number; lens: RowLens; levels: Uint8Array | null } & Coded)
  | ({ k: 'update'; row: number; cols: readonly ColumnLayout[]; lens: RowLens; levels: Uint8Array | null } & Coded)
  | { k: 'delete'; row: number }
  | { k: 'commit' }
  | { k: 'rollback' }
  | { k: 'reorg'; kind: ReorgKind }
  /** A select phase's row fetch (an index seek or a row-id fetch): one statement. */
  | { k: 'read'; row: number }
  /** A select phase's table scan, returning the chosen rows. */
  | { k: 'scan'; rows: Int32Array }
  | { k: 'end'; index: number; result: PhaseResult }
  /** The simulation stopped: the server refuses the statement that adds this entry (the run's last op). */
  | { k: 'refused'; refusal: IndexRefusal };

const NO_BASES = new Float64Array(0);

/** A row's stored lengths as the replay sends them: the row store's, a large object's whole length where the run kept it. */
export type RowLens = Uint16Array | Float64Array;

/** The row's lengths lens[base … base + width), with the whole lengths of values longer than the row store keeps. */
function rowLens(
  lens: Uint16Array,
  base: number,
  width: number,
  row: number,
  whole: ReadonlyMap<number, Uint32Array> | null | undefined,
): RowLens {
  const l = lens.slice(base, base + width);
  if (!whole) return l;
  let out: Float64Array | null = null;
  for (const [v, arr] of whole) {
    const w = row < arr.length ? arr[row]! : 0;
    if (l[v] === NULL_LEN || w <= MAX_STORED_LEN) continue;
    out ??= Float64Array.from(l);
    out[v] = w;
  }
  return out ?? l;
}

/**
 * Run the simulation and record what the engine accepted, in order (the runner's WorkloadObserver): each
 * row's stored lengths (`width` varying columns) and, where values have a compressibility, each column's.
 */
export function recordRun(spec: StorageSpec, width: number): Op[] {
  const ops: Op[] = [];
  const ncols = spec.table.columns.length;
  const levelsOf = (levels: Uint8Array | null, at: number) => (levels ? levels.slice(at, at + ncols) : null);
  try {
    runStorage(spec, { observer: recorder(ops, width, levelsOf) });
  } catch (err) {
    // An entry over an index's limit: the replay sends the statements up to the refused one (its row recorded).
    if (!(err instanceof IndexEntryRefusal)) throw err;
    ops.push({ k: 'refused', refusal: err.refusal });
  }
  return ops;
}

/** The observer that records the run's operations into `ops`. */
function recorder(ops: Op[], width: number, levelsOf: (levels: Uint8Array | null, at: number) => Uint8Array | null): WorkloadObserver {
  return {
    phaseStart: (index, phase) => ops.push({ k: 'phase', index, phase }),
    insert: (row, lens, base, keys, levels, at, whole) =>
      ops.push({
        k: 'insert',
        row,
        lens: rowLens(lens, base, width, row, whole),
        levels: levelsOf(levels, at),
        rank: 0,
        bases: NO_BASES,
        keys,
        codes: NO_BASES,
      }),
    update: (row, cols, lens, base, keys, levels, at, whole) =>
      ops.push({
        k: 'update',
        row,
        cols,
        lens: rowLens(lens, base, width, row, whole),
        levels: levelsOf(levels, at),
        rank: 0,
        bases: NO_BASES,
        keys,
        codes: NO_BASES,
      }),
    delete: (row) => ops.push({ k: 'delete', row }),
    commit: () => ops.push({ k: 'commit' }),
    rollback: () => ops.push({ k: 'rollback' }),
    reorg: (kind) => ops.push({ k: 'reorg', kind }),
    read: (row) => ops.push({ k: 'read', row }),
    scan: (rows) => ops.push({ k: 'scan', rows: rows.slice() }),
    phaseEnd: (index, result) => ops.push({ k: 'end', index, result }),
  };
}

/**
 * Number every value: a phase's codes come after those of the phases before it (so a phase's new keys
 * are larger than every key before, as the simulation's indexes place them: at the right edge); an
 * insert phase's in row order; an update phase's by (how many times the row was already changed in the
 * phase, row): the keys of one pass over the rows fall in the order the phase visits its rows (random
 * order: random places in the new key range). Sets rank and bases on the ops; returns the codes per column.
 */
export function numberValues(ops: Op[], ncols: number): Float64Array {
  const next = new Float64Array(ncols);
  let phaseOps: Extract<Op, { k: 'insert' | 'update' }>[] = [];
  const close = () => {
    if (phaseOps.length === 0) return;
    const bases = Float64Array.from(next);
    if (phaseOps[0]!.k === 'update') {
      const seen = new Map<number, number>();
      const occ = phaseOps.map((o) => {
        const n = seen.get(o.row) ?? 0;
        seen.set(o.row, n + 1);
        return n;
      });
      const order = Array.from(phaseOps.keys()).sort((a, b) => occ[a]! - occ[b]! || phaseOps[a]!.row - phaseOps[b]!.row);
      order.forEach((k, rank) => (phaseOps[k]!.rank = rank));
    } else phaseOps.forEach((o, rank) => (o.rank = rank));
    for (const o of phaseOps) o.bases = bases;
    const first = phaseOps[0]!;
    const setCols = first.k === 'update' ? first.cols.map((c) => c.index) : Array.from({ length: ncols }, (_, i) => i);
    for (const ci of setCols) next[ci]! += phaseOps.length;
    phaseOps = [];
  };
  for (const op of ops) {
    if (op.k === 'phase') close();
    else if (op.k === 'insert' || op.k === 'update') phaseOps.push(op);
  }
  close();
  rankKeys(ops, ncols, next);
  return next;
}

/**
 * Keyed columns: each value's code is the rank of its key among the distinct finite keys the column
 * takes over the run (a NULL's key is infinite; its value is NULL anyway). totals[column] becomes the
 * number of distinct keys.
 */
function rankKeys(ops: Op[], ncols: number, totals: Float64Array): void {
  const coded = ops.filter((o): o is Extract<Op, { k: 'insert' | 'update' }> => o.k === 'insert' || o.k === 'update');
  const sorted: (Float64Array | null)[] = [];
  for (let ci = 0; ci < ncols; ci++) {
    const keys = new Float64Array(coded.length);
    let n = 0;
    let keyed = false;
    for (const o of coded) {
      const k = o.keys[ci];
      if (k === undefined || Number.isNaN(k)) continue;
      if (o.k === 'update' && !o.cols.some((c) => c.index === ci)) continue;
      keyed = true;
      if (Number.isFinite(k)) keys[n++] = k;
    }
    if (!keyed) {
      sorted.push(null);
      continue;
    }
    const unique = sortedDistinct(keys, n).slice();
    sorted.push(unique);
    totals[ci] = unique.length;
  }
  if (sorted.every((x) => x === null)) return;
  for (const o of coded) {
    const codes = new Float64Array(ncols).fill(NaN);
    for (let ci = 0; ci < ncols; ci++) {
      const u = sorted[ci];
      const k = o.keys[ci];
      if (!u || k === undefined || Number.isNaN(k)) continue;
      codes[ci] = Number.isFinite(k) ? lowerBound(u, k) : 0;
    }
    o.codes = codes;
  }
}

/**
 * The values in the order they are sent: each column's value of a code at a stored length. Where a code
 * is beyond what the length or type can hold it wraps (code mod capacity), and is moved one on when that
 * would give the row the value it has, so that a value set by an update changes whenever a second value
 * of its length exists.
 */
export class ValueStream {
  readonly columns: ColumnValues[];
  /** The effective code of each row's current value, for columns whose codes can wrap. */
  private readonly prevCode: (Float64Array | null)[];
  /** Each row's current stored lengths (the lengths of the last insert or update of the row). */
  private readonly rowLens: (RowLens | undefined)[] = [];

  constructor(
    readonly cols: ColumnSql[],
    seed: number,
    readonly totals: Float64Array,
    rows: number,
    /** Per column: the smallest capacity of any value it takes (wrapCapacities); a column whose values all fit never wraps. */
    minCapacity: Float64Array,
  ) {
    this.columns = cols.map((c, ci) => new ColumnValues(c, ci, seed, columnKeyWidth(c, totals[ci]!), compressibleKeyWidth(c, totals[ci]!)));
    this.prevCode = cols.map((_, ci) => (minCapacity[ci]! < totals[ci]! ? new Float64Array(rows) : null));
    this.keyedCode = cols.map(() => null);
    this.rows = Math.max(1, rows);
  }
  /** Per keyed column, each row's current code (made when first needed). */
  private readonly keyedCode: (Float64Array | null)[];
  private readonly rows: number;

  /** The smallest capacity of any value of each column in `ops` (before the stream runs). */
  static minCapacities(cols: ColumnSql[], seed: number, totals: Float64Array, ops: readonly Op[]): Float64Array {
    const values = cols.map((c, ci) => new ColumnValues(c, ci, seed, columnKeyWidth(c, totals[ci]!), compressibleKeyWidth(c, totals[ci]!)));
    const min = new Float64Array(cols.length).fill(Infinity);
    const byLen = cols.map(() => new Map<number, number>());
    const see = (ci: number, len: number, level: number) => {
      if (len === NULL_LEN) return;
      const at = len * 256 + level;
      let cap = byLen[ci]!.get(at);
      if (cap === undefined) byLen[ci]!.set(at, (cap = values[ci]!.capacity(len, level)));
      if (cap < min[ci]!) min[ci] = cap;
    };
    for (const op of ops) {
      if (op.k === 'insert') cols.forEach((c, ci) => see(ci, storedLength(c, op.lens, 0), op.levels?.[ci] ?? 0));
      else if (op.k === 'update')
        for (const c of op.cols) see(c.index, storedLength(cols[c.index]!, op.lens, 0), op.levels?.[c.index] ?? 0);
    }
    return min;
  }

  /** The row's state in the stream now, and how to put it back (a transaction that ends in ROLLBACK). */
  saveRow(row: number): () => void {
    const lens = this.rowLens[row];
    const prev = this.prevCode.map((a) => (a ? a[row]! : 0));
    const keyed = this.keyedCode.map((a) => (a ? a[row]! : NaN));
    return () => {
      this.rowLens[row] = lens;
      this.prevCode.forEach((a, ci) => a && (a[row] = prev[ci]!));
      this.keyedCode.forEach((a, ci) => a && (a[row] = keyed[ci]!));
    };
  }

  /** The row's stored lengths before this op (undefined for a new row). */
  lensOf(row: number): RowLens | undefined {
    return this.rowLens[row];
  }

  /** The code of column ci's value in op: its key's rank for a keyed column, else its number in the phase. */
  private static code(op: Extract<Op, { k: 'insert' | 'update' }>, ci: number): { raw: number; keyed: boolean } {
    const c = op.codes[ci];
    if (c !== undefined && !Number.isNaN(c)) return { raw: c, keyed: true };
    return { raw: op.bases[ci]! + op.rank, keyed: false };
  }

  /** The values of an insert, every column. */
  insert(op: Extract<Op, { k: 'insert' }>): SqlValue[] {
    return this.chooseInsert(op).map((c) => this.make(c));
  }

  /** The values an update sets (its columns in order), and whether each differs from the row's value before. */
  update(op: Extract<Op, { k: 'update' }>): { values: SqlValue[]; changed: boolean[] } {
    const chosen = this.chooseUpdate(op);
    return { values: chosen.map((c) => this.make(c)), changed: chosen.map((c) => c.changed) };
  }

  /** An insert's values chosen, not made (the audit needs only their codes): the stream moves on as insert() moves it. */
  chooseInsert(op: Extract<Op, { k: 'insert' }>): Chosen[] {
    const out = this.cols.map((_, ci) => {
      const { raw, keyed } = ValueStream.code(op, ci);
      return this.next(ci, op.row, raw, op.lens, op.levels?.[ci] ?? 0, undefined, keyed);
    });
    this.rowLens[op.row] = op.lens;
    return out;
  }

  /** An update's values chosen, not made (its columns in order): the stream moves on as update() moves it. */
  chooseUpdate(op: Extract<Op, { k: 'update' }>): Chosen[] {
    const before = this.rowLens[op.row];
    const out = op.cols.map((c) => {
      const { raw, keyed } = ValueStream.code(op, c.index);
      return this.next(c.index, op.row, raw, op.lens, op.levels?.[c.index] ?? 0, before, keyed);
    });
    this.rowLens[op.row] = op.lens;
    return out;
  }

  /** The value chosen (pure: the same choice, the same value). */
  make(c: Chosen): SqlValue {
    return c.len === NULL_LEN ? null : this.columns[c.ci]!.value(c.code, c.len, c.row, c.draw, c.level);
  }

  /**
   * Column ci's value of code `raw` in `row` (of compressibility `level`), chosen. A keyed column's value
   * is the value of its code (equal keys, equal values: the random part too is made from the code); it
   * changed when its code or length did.
   */
  private next(ci: number, row: number, raw: number, lens: RowLens, level: number, before: RowLens | undefined, keyed = false): Chosen {
    const cv = this.columns[ci]!;
    const len = storedLength(cv.col, lens, 0);
    const prevLen = before ? storedLength(cv.col, before, 0) : -1;
    if (len === NULL_LEN) return { ci, len, code: 0, row, draw: 0, level, changed: prevLen !== NULL_LEN };
    const cap = cv.capacity(len, level);
    if (keyed) {
      const prev = (this.keyedCode[ci] ??= new Float64Array(this.rows).fill(NaN));
      let code = raw < cap ? raw : raw % cap;
      // A wrapped code (the type or length has fewer values than the keys) moves off the row's own value, as unkeyed codes do.
      if (raw >= cap && before && prevLen === len && prev[row] === code && cap > 1) code = (code + 1) % cap;
      const changed = !before || prevLen !== len || prev[row] !== code;
      prev[row] = code;
      return { ci, len, code, row: -1, draw: code, level, changed };
    }
    let code = raw < cap ? raw : raw % cap;
    const prev = this.prevCode[ci];
    if (prev) {
      if (before && prevLen === len && prev[row] === code && cap > 1) code = (code + 1) % cap;
      prev[row] = code;
    }
    // Codes below capacity never repeat in a column; a wrapped code was moved off the row's own.
    const changed = !before || prevLen !== len || cap > 1;
    return { ci, len, code, row, draw: raw, level, changed };
  }
}

/** A value chosen by the stream: what ColumnValues.value makes it from, and whether it changes the row's value (updates). */
export interface Chosen {
  ci: number;
  /** Stored bytes, or NULL_LEN. */
  len: number;
  code: number;
  row: number;
  draw: number;
  level: number;
  changed: boolean;
}

/** What the audit found about one column's values. */
export interface ColumnAudit {
  name: string;
  values: number;
  nulls: number;
  /** Values whose code is beyond what their length or type holds: values of the column may repeat. */
  wrapped: number;
  /** Values an update set that are the value the row had (NULL to NULL, or a length with one value such as ''). */
  unchanged: number;
  /** Values (not NULL) that repeat another value's key: the config's `distinct` (or a clustered repeat). */
  repeats: number;
}

export interface ValueAudit {
  columns: ColumnAudit[];
  /** Updates that set an indexed column, where every indexed column they set keeps its value. */
  indexedUpdatesUnchanged: number;
  /** Updates that set an indexed column. */
  indexedUpdates: number;
}

/** Run a stream over the ops without a server and count what the replay will send (its values chosen, none made). */
export function auditValues(stream: ValueStream, ops: readonly Op[]): ValueAudit {
  const cols = stream.cols;
  const columns: ColumnAudit[] = cols.map((c) => ({ name: c.name, values: 0, nulls: 0, wrapped: 0, unchanged: 0, repeats: 0 }));
  const seenCodes = cols.map(() => new Set<number>());
  let indexedUpdates = 0;
  let indexedUpdatesUnchanged = 0;
  const count = (ci: number, op: Extract<Op, { k: 'insert' | 'update' }>, chosen: Chosen) => {
    const a = columns[ci]!;
    a.values++;
    if (chosen.len === NULL_LEN) a.nulls++;
    else {
      const len = storedLength(cols[ci]!, op.lens, 0);
      const keyedCode = op.codes[ci];
      const keyed = keyedCode !== undefined && !Number.isNaN(keyedCode);
      const code = keyed ? keyedCode : op.bases[ci]! + op.rank;
      if (code >= stream.columns[ci]!.capacity(len, op.levels?.[ci] ?? 0)) a.wrapped++;
      if (keyed) {
        if (seenCodes[ci]!.has(code)) a.repeats++;
        else seenCodes[ci]!.add(code);
      }
    }
  };
  // A rolled-back transaction's rows are as they were before it (saved only when some transaction rolls back).
  let undo: (() => void)[] = [];
  const saved = new Set<number>();
  const rollsBack = ops.some((o) => o.k === 'rollback');
  const note = (row: number) => {
    if (rollsBack && !saved.has(row)) (saved.add(row), undo.push(stream.saveRow(row)));
  };
  for (const op of ops) {
    if (op.k === 'commit' || op.k === 'rollback') {
      if (op.k === 'rollback') for (const f of undo.reverse()) f();
      undo = [];
      saved.clear();
    } else if (op.k === 'insert') {
      note(op.row);
      stream.chooseInsert(op).forEach((c, ci) => count(ci, op, c));
    } else if (op.k === 'update') {
      note(op.row);
      const chosen = stream.chooseUpdate(op);
      let indexed = false;
      let indexedChanged = false;
      op.cols.forEach((c, j) => {
        count(c.index, op, chosen[j]!);
        if (!chosen[j]!.changed) columns[c.index]!.unchanged++;
        if (cols[c.index]!.indexed) {
          indexed = true;
          if (chosen[j]!.changed) indexedChanged = true;
        }
      });
      if (indexed) {
        indexedUpdates++;
        if (!indexedChanged) indexedUpdatesUnchanged++;
      }
    }
  }
  return { columns, indexedUpdates, indexedUpdatesUnchanged };
}

const fmtCount = (n: number) => groupedNumber(n);

/**
 * Refuse what the replay cannot do faithfully, before anything is created: rows found by a key that is
 * not distinct, a unique index whose keys repeat. Notes for what it can do but the model does not
 * expect (keys that repeat in a non-unique index; updates of an indexed column that change nothing).
 */
export function checkAudit(table: TableDef, cols: ColumnSql[], audit: ValueAudit, locator: number[], needLocator: boolean): string[] {
  const notes: string[] = [];
  const colIndex = (name: string) => cols.findIndex((c) => c.name.toLowerCase() === name.toLowerCase());
  const why = (ci: number) => {
    const a = audit.columns[ci]!;
    return `${cols[ci]!.name} (${cols[ci]!.type.sql}): ${fmtCount(a.wrapped)} of its ${fmtCount(a.values)} values are beyond the distinct values their length or type has`;
  };
  const repeatWhy = (ci: number) =>
    `${cols[ci]!.name} (${cols[ci]!.type.sql}): ${fmtCount(audit.columns[ci]!.repeats)} of its ${fmtCount(audit.columns[ci]!.values)} values repeat another's (its distinct values)`;
  const distinctCol = (ci: number) => audit.columns[ci]!.wrapped === 0 && audit.columns[ci]!.repeats === 0;
  if (needLocator) {
    const distinct = locator.some((ci) => distinctCol(ci) && audit.columns[ci]!.nulls === 0);
    if (!distinct) {
      const first = table.indexes[0]!;
      const reasons = locator.map((ci) =>
        audit.columns[ci]!.nulls > 0
          ? `${cols[ci]!.name} is NULL in ${fmtCount(audit.columns[ci]!.nulls)} rows`
          : audit.columns[ci]!.repeats > 0
            ? repeatWhy(ci)
            : why(ci),
      );
      throw new PgCheckError(
        `pg-check finds the rows it updates and deletes by the first index's key (${first.name}): expected a key distinct and not NULL in every row, found ${reasons.join('; ')}`,
      );
    }
  }
  for (const idx of table.indexes) {
    const cis = idx.columns.map(colIndex);
    if (idx.unique && !cis.some(distinctCol)) {
      throw new PgCheckError(
        `unique index ${idx.name}: expected keys pg-check can make distinct, found ${cis.map((ci) => (audit.columns[ci]!.repeats > 0 ? repeatWhy(ci) : why(ci))).join('; ')}`,
      );
    }
    // Keys the model means to repeat (distinct) are deduplicated in the model too; keys that repeat because a type or a length has too few values are not.
    if (cis.some((ci) => audit.columns[ci]!.wrapped === 0)) continue;
    notes.push(
      `index ${idx.name}: keys repeat beyond what the model expects (${cis.map(why).join('; ')}); PostgreSQL deduplicates equal keys (13+): its pages may come out below the prediction`,
    );
  }
  if (audit.indexedUpdatesUnchanged > 0) {
    notes.push(
      `${fmtCount(audit.indexedUpdatesUnchanged)} of ${fmtCount(audit.indexedUpdates)} updates set indexed columns without changing any of their values (NULL stays NULL, or a value with one possible content such as ''): PostgreSQL may do them HOT; the model counts every update of an indexed column as not HOT`,
    );
  }
  return notes;
}

/**
 * Refuse select phases the replay cannot send faithfully: it finds each row a phase reads by the value
 * of one column (the index's leading column, or the predicate's), which must then be distinct and not
 * NULL in every row, or a statement would return other rows than the one the simulation reads.
 */
export function checkReads(spec: StorageSpec, cols: ColumnSql[], audit: ValueAudit): void {
  spec.workload.forEach((phase, i) => {
    if (phase.op !== 'select') return;
    const ci = keyColumnOf(spec, phase, cols);
    if (ci < 0) return;
    const a = audit.columns[ci]!;
    if (a.wrapped === 0 && a.nulls === 0 && a.repeats === 0) return;
    const c = cols[ci]!;
    const why =
      a.nulls > 0
        ? `${c.name} is NULL in ${fmtCount(a.nulls)} rows`
        : a.repeats > 0
          ? `${c.name} (${c.type.sql}): ${fmtCount(a.repeats)} of its ${fmtCount(a.values)} values repeat another's (its distinct values)`
          : `${c.name} (${c.type.sql}): ${fmtCount(a.wrapped)} of its ${fmtCount(a.values)} values are beyond the distinct values their length or type has`;
    const by = phase.predicate ? `its predicate's column ${c.name}` : `the leading column of ${phase.index}, ${c.name}`;
    throw new PgCheckError(
      `phase ${i + 1} (select): pg-check finds each row it reads by ${by}: expected values distinct and not NULL in every row, found ${why}`,
    );
  });
}

/**
 * The place among the first index's columns of the one a set-based phase (`via: scan` or `range`)
 * matches rows by: distinct and not NULL in every row (-1: none, or no such phase). A key range is a
 * range of the leading column, which must then be distinct and not NULL itself, or `BETWEEN` would
 * take other rows than the simulation's.
 */
export function setBasedKey(spec: StorageSpec, cols: ColumnSql[], audit: ValueAudit, locator: number[]): number {
  const setBased = spec.workload
    .map((p, i) => [p, i] as const)
    .filter((e): e is readonly [Extract<PhaseSpec, { op: 'update' | 'delete' }>, number] => e[0].op === 'update' || e[0].op === 'delete')
    .filter(([p]) => (p.via ?? 'index') !== 'index');
  if (setBased.length === 0) return -1;
  const usable = (ci: number) => {
    const a = audit.columns[ci]!;
    return a.wrapped === 0 && a.repeats === 0 && a.nulls === 0;
  };
  const range = setBased.find(([p]) => p.via === 'range');
  if (range && !(locator[0]! >= 0 && usable(locator[0]!))) {
    const c = cols[locator[0]!]!;
    throw new PgCheckError(
      `phase ${range[1] + 1} (${range[0].op}, via: range): pg-check sends WHERE ${c.name} BETWEEN the range's first and last key: expected ${c.name} distinct and not NULL in every row, found values that repeat, wrap or are NULL`,
    );
  }
  return locator.findIndex(usable);
}
