/**
 * An insert phase: new rows a batch at a time, their lengths drawn column by column, their keys drawn or
 * laid out as a run, then each row sized by the format (or its TOAST relation) and placed by the engine.
 */
import { transactionText, type PhaseSpec, type TransactionScope } from '../config/spec.js';
import { NULL_LEN } from '../layout/table-layout.js';
import { grown } from '../util/arrays.js';
import { resolveCount } from '../util/units.js';
import { lengthSource } from './dist.js';
import { BATCH, batchHasNull, ColumnValues, levelOf, multibyteFor } from './row-values.js';
import type { KeyDraw, RunState } from './run-state.js';
import type { PhaseOutcome } from './run-types.js';

type InsertSpec = Extract<PhaseSpec, { op: 'insert' }>;

export function insertPhase(run: RunState, phase: InsertSpec, index: number): PhaseOutcome {
  const { engine, layout, width } = run;
  const n = resolveCount(phase.rows, engine.liveRows());
  const columns = layout.varying.map((col) => {
    const v = phase.values[col.name];
    run.insertLengths[col.index] = v?.length;
    return new ColumnValues(
      col,
      v?.length ? lengthSource(v.length) : null,
      col.nullable ? (v?.null ?? 0) : 0,
      run.spec.seed,
      index,
      'insert',
      multibyteFor(run.spec.engine, col, run.spec.table.columns[col.index]!.type),
    );
  });
  run.store.ensureRows(run.nextRow + n);
  const levels = run.store.levels;
  const insertLevels = levels ? Uint8Array.from(layout.columns, (c) => levelOf(phase.values[c.name]?.compressibility)) : null;
  const firstRow = run.nextRow;
  // Keyed columns: their keys drawn as the phase's `values` describe them.
  const keyDraws = layout.columns
    .filter((col) => run.keys.keyed[col.index])
    .map((col) => {
      const domain = phase.values[col.name]?.domain;
      if (domain) run.domains[col.index] = domain;
      return run.columnKeys(col, domain, index, 'insert', n);
    });
  let affected = 0;
  run.startTransactions(phase.transaction ?? 'statement', phase.rollback === true);
  for (let done = 0; done < n;) {
    const count = Math.min(BATCH, n - done);
    const first = run.nextRow;
    // Column by column: each column's lengths for the whole batch.
    for (let v = 0; v < width; v++) drawColumn(run, columns[v]!, v, first, count);
    drawKeys(run, keyDraws, first, count, firstRow);
    if (levels) for (let i = 0; i < count; i++) levels.set(insertLevels!, (first + i) * run.ncols);
    affected += insertRows(run, first, count);
    run.nextRow += count;
    done += count;
  }
  run.endTransactions();
  return { affected, label: `insert ${n} ${n === 1 ? 'row' : 'rows'}${transactionLabel(phase)}` };
}

/** What a phase's label says of its transactions, when not one committed transaction. */
export function transactionLabel(phase: { transaction?: TransactionScope; rollback?: boolean }): string {
  const t = phase.transaction ?? 'statement';
  const parts = [typeof t === 'string' ? '' : `transaction ${transactionText(t)}`, phase.rollback ? 'rolled back' : ''];
  const said = parts.filter(Boolean);
  return said.length ? `, ${said.join(', ')}` : '';
}

/** Column v's values for rows first … first + count − 1: their stored lengths, and a large object's whole lengths. */
function drawColumn(run: RunState, c: ColumnValues, v: number, first: number, count: number): void {
  const lens = run.store.lens;
  const width = run.width;
  c.draw(count);
  const units = c.units;
  for (let i = 0, at = first * width + v; i < count; i++, at += width) {
    const u = units[i]!;
    lens[at] = u < 0 ? NULL_LEN : c.bytes(u, i);
  }
  const lob = run.lobs?.get(v);
  if (lob) {
    if (lob.length < first + count) run.lobs!.set(v, grown(lob, first + count));
    const whole = run.lobs!.get(v)!;
    for (let i = 0; i < count; i++) whole[first + i] = units[i]! < 0 ? 0 : c.lobBytes(units[i]!);
  }
}

/** The keyed columns' keys of the batch (the phase's rows from `firstRow` on). */
function drawKeys(run: RunState, keyDraws: readonly KeyDraw[], first: number, count: number, firstRow: number): void {
  const lens = run.store.lens;
  for (const kd of keyDraws) {
    // Ascending keys of a load (no values to repeat, no NULL in the batch): a run, not a draw a row.
    if (kd.lens === null && kd.keys.plainAscending && !batchHasNull(lens, run.width, kd.at, first, count))
      run.keys.setRun(kd.col, first, count, kd.keys.ascendingKey(first - firstRow));
    else for (let i = 0; i < count; i++) run.drawKey(kd, first + i, first + i - firstRow, lens, NaN);
  }
}

/** Row by row: sized by the format (or its TOAST relation), placed by the engine. Returns the rows inserted. */
function insertRows(run: RunState, first: number, count: number): number {
  const { engine, format, layout, width, indexes, obs, ool, offRow, ncols } = run;
  const lens = run.store.lens;
  const levels = run.store.levels;
  const appendIndexes = indexes !== null && indexes.built;
  // Entries over an index's limit are refused where the index exists (before the first phase's rows
  // are loaded, the indexes are built after them: runner.ts).
  const limit = appendIndexes && indexes.hasLimit;
  const rolling = run.rollingBack;
  let affected = 0;
  for (let i = 0; i < count; i++) {
    const row = first + i;
    const base = row * width;
    const logical = format.rows.logicalBytes(layout, lens, base);
    obs?.beforeRow?.('insert', row);
    if (rolling) run.noteRow(row);
    const bytes = ool ? ool.sizeInsert(row, lens, base, levels, row * ncols) : format.rows.rowBytes(layout, lens, base, logical);
    if (engine.insert(row, bytes, logical)) {
      // An index entry larger than the index takes: the server refuses the INSERT (its statement, its transaction).
      const over = limit ? indexes.oversize(lens, base) : null;
      if (over) {
        obs?.insert?.(row, lens, base, run.keys.snapshot(row), levels, row * ncols, run.lobs);
        run.refuse('insert', over, row);
      }
      affected++;
      ool?.apply();
      if (appendIndexes) indexes.append(row, lens, base);
      offRow?.set(row, lens, base);
      obs?.insert?.(row, lens, base, run.keys.snapshot(row), levels, row * ncols, run.lobs);
    } else run.refuseRow('insert', row, bytes);
    run.rowDone();
  }
  return affected;
}
