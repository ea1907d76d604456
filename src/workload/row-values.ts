/**
 * The rows' values as a run keeps them (RowStore: the stored lengths of the varying columns; OffRowTally:
 * SQL Server's off-row records) and how a phase draws them: ColumnValues, a column's lengths and NULLs for
 * a batch of rows from streams of its own; ColumnChange, an update's change to one column.
 */
import { COMPRESSIBILITY_STEPS, type Compressibility, type Dist, type EngineSpec, type PhaseSpec, type SetSpec } from '../config/spec.js';
import type { ColumnType } from '../config/column-types.js';
import type { OffRowStore } from '../formats/format.js';
import { fullLengthBytes, MAX_STORED_LEN, NULL_LEN, utf8WidthShares, type ColumnLayout } from '../layout/table-layout.js';
import { grown } from '../util/arrays.js';
import { Prng } from '../util/prng.js';
import type { LengthSource } from './dist.js';
import { lengthSource, MultibyteShares } from './dist.js';

/**
/**
 * A table's rows: the stored lengths of the varying columns, NULL_LEN for NULL; and, when the workload
 * gives values a compressibility and the format compresses, each column's value's, in 64ths.
 */
export class RowStore {
  lens: Uint16Array;
  levels: Uint8Array | null;
  constructor(
    readonly width: number,
    capacity: number,
    readonly columns: number,
    withLevels: boolean,
  ) {
    this.lens = new Uint16Array(Math.max(1, width * Math.max(16, capacity)));
    this.levels = withLevels ? new Uint8Array(Math.max(1, columns * Math.max(16, capacity))) : null;
  }
  /** Room for rows 0 … count − 1 (the arrays grow only past the capacity they were made with). */
  ensureRows(count: number): void {
    this.lens = grown(this.lens, count * this.width);
    if (this.levels) this.levels = grown(this.levels, count * this.columns);
  }
  /** Read each row's first length (so the loads of a batch overlap); the sum means nothing. */
  touch(rows: Int32Array, count: number): number {
    const lens = this.lens;
    const w = this.width;
    let sum = 0;
    for (let i = 0; i < count; i++) sum += lens[rows[i]! * w]!;
    return sum;
  }
}

/** The off-row records of the rows (SQL Server ROW_OVERFLOW_DATA): bytes per row and in all. */
export class OffRowTally {
  private bytes: Uint32Array;
  total = 0;
  constructor(
    readonly store: OffRowStore,
    capacity: number,
  ) {
    this.bytes = new Uint32Array(Math.max(16, capacity));
  }
  set(row: number, lens: Uint16Array, base: number): void {
    if (row >= this.bytes.length) this.bytes = grown(this.bytes, row + 1);
    const b = this.store.recordBytes(lens, base);
    this.total += b - this.bytes[row]!;
    this.bytes[row] = b;
  }
  clear(row: number): void {
    if (row < this.bytes.length) {
      this.total -= this.bytes[row]!;
      this.bytes[row] = 0;
    }
  }
}

/** The longest large-object value rowsim keeps a length for: 2^31 − 1 bytes (SQL Server's and ASE's 2 GB limit; PostgreSQL's is 1 GB). */
export const LOB_MAX_BYTES = 0x7fffffff;

/** Rows a phase generates, sizes and hands to the engine at a time (column by column within a batch). */
export const BATCH = 256;

/**
 * Stored bytes of a value of `units` characters or bytes in column `col` (capped at its declared
 * length, its most bytes and the row store's limit).
 */
function toBytes(col: ColumnLayout, units: number, bytesPerChar = col.bytesPerChar): number {
  if (!col.variableType) return col.fixedBytes;
  const u = Math.min(units, col.declaredLength);
  const bytes = col.bytesOfLength ? col.bytesOfLength(u) : col.character ? Math.round(u * bytesPerChar) : u;
  return Math.min(bytes, col.maxBytes, MAX_STORED_LEN);
}

/**
 * The per-value shares of multi-byte characters of a column, where the engine draws them
 * (multibyte_vary: utf8, a character column of the charset, not a national one); else null.
 */
export function multibyteFor(engine: EngineSpec, col: ColumnLayout, type: ColumnType): MultibyteShares | null {
  const vary = engine.multibyte_vary;
  if (!vary || engine.encoding !== 'utf8' || !col.character || !col.variableType || type.national || col.bytesOfLength) return null;
  return new MultibyteShares(utf8WidthShares(engine), vary);
}

/**
 * One column's values for a batch of rows, from two streams of its own (lengths, NULLs) derived from
 * the phase's: a column's values do not depend on the other columns' specs or on the batch size.
 */
export class ColumnValues {
  /** Units (characters or bytes) drawn for the batch; −1 for NULL. */
  readonly units = new Int32Array(BATCH);
  /** Bytes per character of each value of the batch, where the column's values draw their shares of multi-byte characters. */
  private readonly perChar: Float64Array | null;
  private readonly shareRng: Prng | null;
  private readonly lengthRng: Prng;
  private readonly nullRng: Prng;
  /** Bytes = min(units, plainCap) when the column sizes a unit as one byte (no conversion). */
  private readonly plainCap: number;

  constructor(
    readonly col: ColumnLayout,
    private readonly source: LengthSource | null,
    private readonly nullShare: number,
    seed: number,
    phase: number,
    op: string,
    private readonly shares: MultibyteShares | null = null,
  ) {
    this.perChar = shares ? new Float64Array(BATCH) : null;
    this.shareRng = shares ? Prng.derive(seed, 'phase', phase, op, 'column', col.name, 'multibyte') : null;
    this.lengthRng = Prng.derive(seed, 'phase', phase, op, 'column', col.name, 'length');
    this.nullRng = Prng.derive(seed, 'phase', phase, op, 'column', col.name, 'null');
    this.plainCap =
      col.variableType && !col.bytesOfLength && !shares && (!col.character || col.bytesPerChar === 1)
        ? Math.min(col.declaredLength, col.maxBytes, MAX_STORED_LEN)
        : -1;
  }

  /** Draw `count` values: units[i] (the length drawn, or −1 for NULL). */
  draw(count: number): void {
    const units = this.units;
    if (this.source) this.source.fill(this.lengthRng, units, count);
    else units.fill(0, 0, count);
    if (this.shares) for (let i = 0; i < count; i++) this.perChar![i] = this.shares.bytesPerChar(this.shareRng!);
    const share = this.nullShare;
    if (share > 0) {
      const rng = this.nullRng;
      for (let i = 0; i < count; i++) if (rng.float32() < share) units[i] = -1;
    }
  }

  /** Stored bytes of the batch's i-th draw (not NULL): a value of that length, or the type's size when no length is set. */
  bytes(units: number, i: number): number {
    if (!this.source) return fullLengthBytes(this.col);
    if (this.plainCap >= 0) return units < this.plainCap ? units : this.plainCap;
    return toBytes(this.col, units, this.perChar ? this.perChar[i] : this.col.bytesPerChar);
  }

  /** Whole bytes of a large-object value of `units` characters or bytes (not capped by the row store): a read_lob phase reads them. */
  lobBytes(units: number): number {
    const col = this.col;
    if (!this.source) return col.maxBytes;
    return Math.min(col.character ? Math.round(units * col.bytesPerChar) : units, LOB_MAX_BYTES);
  }

  /** Bytes a value of `old` stored bytes (NULL_LEN: NULL) takes after growing by the batch's i-th draw, `units` (added text draws its own shares). */
  grownBytes(old: number, units: number, i: number): number {
    const col = this.col;
    const base = old === NULL_LEN ? 0 : old;
    const added = col.bytesOfLength
      ? col.bytesOfLength(units) - col.bytesOfLength(0)
      : col.character
        ? Math.round(units * (this.perChar ? this.perChar[i]! : col.bytesPerChar))
        : units;
    return Math.min(base + added, col.maxBytes, MAX_STORED_LEN);
  }
}

/** Is the value at position `at` of any of rows first … first + count − 1 NULL (at −1: the column keeps no length, never)? */
export function batchHasNull(lens: Uint16Array, width: number, at: number, first: number, count: number): boolean {
  if (at < 0) return false;
  for (let i = 0, p = first * width + at; i < count; i++, p += width) if (lens[p] === NULL_LEN) return true;
  return false;
}

/** A compressibility as the row store keeps it: a share in 64ths, or 64 + N for { unit: N } (src/formats/pg-compression.ts). */
export const levelOf = (c: Compressibility | undefined): number =>
  typeof c === 'object' ? COMPRESSIBILITY_STEPS + c.unit : Math.round((c ?? 0) * COMPRESSIBILITY_STEPS);

/** Does the workload give any value a compressibility? */
export function givesCompressibility(workload: readonly PhaseSpec[]): boolean {
  return workload.some(
    (ph) =>
      (ph.op === 'insert' && Object.values(ph.values).some((v) => levelOf(v.compressibility) > 0)) ||
      (ph.op === 'update' &&
        Object.values(ph.set).some((c) => (c.kind === 'length' || c.kind === 'grow') && levelOf(c.compressibility) > 0)),
  );
}

/** What an update's `set` does to a column's stored length. */
const enum SetMode {
  /** A new value of the drawn length. */
  Length,
  /** The value grows by the drawn length. */
  Grow,
  /** Only the NULL share applies: a NULL value gets its type's size back. */
  NullOnly,
  /** A fixed-length type: a value keeps its size (or becomes NULL). */
  Fixed,
}

/** An update's change to one column whose stored length it can change, applied a row at a time. */
export class ColumnChange {
  readonly values: ColumnValues;
  readonly column: ColumnLayout;
  private readonly mode: SetMode;
  private readonly at: number;
  /** Stored bytes of a fixed-length type's value that is not NULL. */
  private readonly notNullBytes: number;

  constructor(
    col: ColumnLayout,
    set: SetSpec,
    seed: number,
    phase: number,
    shares: MultibyteShares | null = null,
    /** The lengths the column's latest insert drew. */
    insertLength?: Dist,
  ) {
    // `null` only: a NULL given a value back takes a length the column's latest insert drew (without one,
    // values.bytes() gives its type's full size).
    const dist =
      set.kind === 'length' || set.kind === 'grow' ? set.dist : set.kind === 'null' && col.variableType ? insertLength : undefined;
    const nullShare = col.nullable && set.kind !== 'changed' && set.kind !== 'same' ? (set.null ?? 0) : 0;
    this.values = new ColumnValues(col, dist ? lengthSource(dist) : null, nullShare, seed, phase, 'update', shares);
    this.column = col;
    this.mode =
      set.kind === 'null' ? SetMode.NullOnly : !col.variableType ? SetMode.Fixed : set.kind === 'grow' ? SetMode.Grow : SetMode.Length;
    this.at = col.varIndex;
    this.notNullBytes = fullLengthBytes(col);
  }

  /** Keep the whole lengths of this large-object column in `lob` (by row) as well. */
  trackLob(lob: Uint32Array): void {
    this.lob = lob;
  }
  private lob: Uint32Array | null = null;

  /** Change the row whose lengths start at lens[base], with the batch's i-th draw; returns the old length. */
  apply(lens: Uint16Array, base: number, i: number, row = -1): number {
    const at = base + this.at;
    const old = lens[at]!;
    const u = this.values.units[i]!;
    if (u < 0) lens[at] = NULL_LEN;
    else if (this.mode === SetMode.Length) lens[at] = this.values.bytes(u, i);
    else if (this.mode === SetMode.Grow) lens[at] = this.values.grownBytes(old, u, i);
    else if (this.mode === SetMode.Fixed) lens[at] = this.notNullBytes;
    else if (old === NULL_LEN) lens[at] = this.values.bytes(u, i);
    const lob = this.lob;
    if (lob !== null && row >= 0) {
      if (lens[at] === NULL_LEN) lob[row] = 0;
      else if (u < 0) lob[row] = 0;
      else if (this.mode === SetMode.Length) lob[row] = this.values.lobBytes(u);
      else if (this.mode === SetMode.Grow)
        lob[row] = Math.min(lob[row]! + this.values.lobBytes(u) - this.values.lobBytes(0), LOB_MAX_BYTES);
      else if (old === NULL_LEN) lob[row] = this.values.lobBytes(u);
    }
    return old;
  }

  /** Put back the length apply() returned (the engine refused the update). */
  restore(lens: Uint16Array, base: number, old: number): void {
    lens[base + this.at] = old;
  }
}
