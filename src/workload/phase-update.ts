/**
 * An update phase: the rows the phase picks, a batch at a time, each given the new lengths (and keys,
 * compressibilities) its `set` draws and handed to the engine; a refused update puts the row back.
 */
import type { PhaseSpec, SetSpec, ValueDomain } from '../config/spec.js';
import { transactionLabel } from './phase-insert.js';
import type { ColumnLayout } from '../layout/table-layout.js';
import type { UpdateInfo } from '../heap/engine.js';
import type { IndexSet } from '../btree/index-set.js';
import type { Prng } from '../util/prng.js';
import { accessOf, phaseRows, type RowSource } from './access.js';
import { BATCH, ColumnChange, levelOf, multibyteFor } from './row-values.js';
import { accessName, type KeyDraw, type RunState } from './run-state.js';
import type { PhaseOutcome } from './run-types.js';

/** What an update phase keeps from batch to batch (updatePhase). */
interface UpdateBatch {
  setColumns: ColumnLayout[];
  /** The changes to the columns whose stored lengths the phase can change, and their old lengths in the row being changed. */
  sized: ColumnChange[];
  old: Int32Array;
  info: UpdateInfo;
  /** Transactions end within the phase (row, batch(N)): each row's change counts towards one. */
  batched: boolean;
  /** The phase's transactions end in ROLLBACK: each row is noted before it changes. */
  rolling: boolean;
  /** Rows are found through the first index (its leaf read, dead versions' entries marked): not by a sequential scan. */
  locate: boolean;
  keyChanged: ReturnType<IndexSet['keysChanged']> | null;
  /** An index refuses entries over a size (updates that would make one are refused). */
  limit: boolean;
  /** The keyed columns the phase changes, their new keys and old lengths in the row being changed. */
  keyDraws: KeyDraw[];
  newKeys: Float64Array;
  /** The keys the new ones replace (put back when the engine refuses the update). */
  oldKeys: Float64Array;
  oldLens: Int32Array;
  /** Per column, 1 where the phase gives it a new value. */
  changed: Uint8Array;
  /** The compressibilities the phase sets, and their old values in the row being changed. */
  levelSets: { at: number; level: number }[];
  oldLevels: Uint8Array;
  /** Rows changed so far (a key draw's position). */
  visited: number;
}

export function updatePhase(run: RunState, phase: Extract<PhaseSpec, { op: 'update' }>, index: number, rng: Prng): PhaseOutcome {
  const { layout, indexes } = run;
  const via = accessOf(phase);
  const picker = phaseRows(run, phase, rng);
  const n = picker.total;
  // `same` writes the row's own value back (SET c = c): no new length, key or value, and no indexed column changed.
  const setColumns = Object.keys(phase.set)
    .filter((name) => phase.set[name]!.kind !== 'same')
    .map((name) => layout.columns.find((c) => c.name === name)!);
  const sized = sizedColumns(run, phase, setColumns, index);
  // Keyed columns the set changes: new keys from the set's values, else those the column's last insert described.
  const keyDraws = setColumns
    .filter((col) => run.keys.keyed[col.index])
    .map((col) => run.columnKeys(col, setDomain(phase.set[col.name]!) ?? run.domains[col.index], index, 'update', n));
  // The columns the update gives new values (the TOAST relation keeps the others as they are stored).
  const changed = new Uint8Array(run.ncols);
  for (const col of setColumns) changed[col.index] = 1;
  // New compressibilities: a new length's value has the set's (default 0); a grown value keeps its own unless the set gives one.
  const levelSets = setColumns.flatMap((col) => {
    const set = phase.set[col.name]!;
    if (set.kind === 'length' || (set.kind === 'grow' && set.compressibility !== undefined))
      return [{ at: col.index, level: levelOf(set.compressibility) }];
    return [];
  });
  const u: UpdateBatch = {
    setColumns,
    sized,
    old: new Int32Array(Math.max(1, sized.length)),
    info: { indexedChanged: setColumns.some((col) => col.indexed), scanned: via !== 'index' },
    batched: run.startTransactions(phase.transaction, phase.rollback === true),
    rolling: phase.rollback === true,
    locate: via !== 'scan',
    keyChanged: indexes ? indexes.keysChanged(new Set(setColumns.map((c) => c.index))) : null,
    limit: indexes !== null && indexes.hasLimit,
    keyDraws,
    newKeys: new Float64Array(keyDraws.length),
    oldKeys: new Float64Array(keyDraws.length),
    oldLens: new Int32Array(keyDraws.length),
    changed,
    levelSets,
    oldLevels: new Uint8Array(Math.max(1, levelSets.length)),
    visited: 0,
  };
  const affected = updateBatches(run, u, picker, isPlain(run, u), phase.order.kind !== 'sequential');
  run.endTransactions();
  const cols = Object.entries(phase.set).map(([c, v]) => (v.kind === 'same' ? `${c} = ${c}` : c));
  return {
    affected,
    label: `update ${n} ${n === 1 ? 'row' : 'rows'} (${accessName(phase)}, ${cols.join(', ')})${transactionLabel(phase)}`,
  };
}

/** Columns whose stored length a `set` can change (a fixed NOT NULL column keeps its size; `changed` keeps the length). */
function sizedColumns(
  run: RunState,
  phase: Extract<PhaseSpec, { op: 'update' }>,
  setColumns: readonly ColumnLayout[],
  index: number,
): ColumnChange[] {
  const sized = setColumns
    .filter((col) => col.varying && phase.set[col.name]!.kind !== 'changed')
    .map(
      (col) =>
        new ColumnChange(
          col,
          phase.set[col.name]!,
          run.spec.seed,
          index,
          multibyteFor(run.spec.engine, col, run.spec.table.columns[col.index]!.type),
          run.insertLengths[col.index],
        ),
    );
  for (const ch of sized) {
    const lob = run.lobs?.get(ch.column.varIndex);
    if (lob) ch.trackLob(lob);
  }
  return sized;
}

/**
 * Nothing but the lengths and the engine (no keys, compressibilities kept, observer, index versions,
 * TOAST, off-row records or large objects): the batches take the short loop (updatePlain).
 */
function isPlain(run: RunState, u: UpdateBatch): boolean {
  return (
    u.keyDraws.length === 0 &&
    (u.levelSets.length === 0 || run.store.levels === null) &&
    !run.obs &&
    !run.trackVersions &&
    !run.ool &&
    !run.offRow &&
    !u.limit &&
    !u.rolling &&
    run.lobs === null &&
    run.engine.lastUpdateNewIndexEntries === undefined
  );
}

/** The values a set draws from, where it names them. */
function setDomain(set: SetSpec): ValueDomain | undefined {
  return set.kind === 'same' ? undefined : set.domain;
}

/**
 * An update phase's rows, a batch at a time; returns the rows changed. The loops are functions of their
 * own, apart from updatePhase()'s set-up, so that the compiler's code for them stays valid from run to
 * run: with them inside the set-up (which a run calls afresh, with new column objects) that code was dropped at the
 * start of a phase and compiled again on a thread of its own every few runs (the storage bench's CPU
 * time counted it: 20 ms in a 45 ms phase).
 */
function updateBatches(run: RunState, u: UpdateBatch, picker: RowSource, plain: boolean, touchFirst: boolean): number {
  const { engine, indexes, store } = run;
  const sized = u.sized;
  const rows = new Int32Array(BATCH);
  let affected = 0;
  for (;;) {
    const count = picker.next(rows);
    if (count === 0) break;
    // Touch every row's state before the first is worked on: the loads overlap instead of queueing. Rows
    // in id order need no such pass: they lie one after the other in the row arrays and mostly on the
    // page of the row before (the processor's own prefetching follows them).
    if (touchFirst) run.touched += store.touch(rows, count) + (engine.prefetchRows?.(rows, count) ?? 0);
    if (run.trackVersions) run.touched += indexes!.prefetchRows(rows, count);
    for (let c = 0; c < sized.length; c++) sized[c]!.values.draw(count);
    affected += plain ? updatePlain(run, u, rows, count) : updateRows(run, u, rows, count);
  }
  return affected;
}

/**
 * One batch of an update phase where only the rows' lengths and the engine take part (see `plain` in
 * updatePhase): the same changes as updateRows with none of its other work. Returns the rows changed.
 */
function updatePlain(run: RunState, u: UpdateBatch, rows: Int32Array, count: number): number {
  const { engine, format, layout, width } = run;
  const { sized, old, info, batched } = u;
  const lens = run.store.lens;
  let affected = 0;
  for (let i = 0; i < count; i++) {
    const row = rows[i]!;
    const base = row * width;
    for (let c = 0; c < sized.length; c++) old[c] = sized[c]!.apply(lens, base, i);
    const logical = format.rows.logicalBytes(layout, lens, base);
    const bytes = format.rows.rowBytes(layout, lens, base, logical);
    if (engine.update(row, bytes, logical, info)) affected++;
    else {
      run.refuseRow('update', row, bytes);
      for (let c = 0; c < sized.length; c++) sized[c]!.restore(lens, base, old[c]!);
    }
    if (batched) run.rowDone();
  }
  return affected;
}

/** One batch of an update phase, with everything the run keeps beside the lengths. Returns the rows changed. */
function updateRows(run: RunState, u: UpdateBatch, rows: Int32Array, count: number): number {
  const { engine, format, layout, width, indexes, obs, ool, offRow, ncols } = run;
  const { setColumns, sized, old, info, batched, rolling, keyChanged, limit, keyDraws, newKeys, oldLens, changed, levelSets, oldLevels } =
    u;
  const lens = run.store.lens;
  const levels = run.store.levels;
  let affected = 0;
  for (let i = 0; i < count; i++) {
    const row = rows[i]!;
    const base = row * width;
    if (rolling) run.noteRow(row);
    for (let c = 0; c < sized.length; c++) old[c] = sized[c]!.apply(lens, base, i, row);
    for (let k = 0; k < keyDraws.length; k++) {
      const kd = keyDraws[k]!;
      oldLens[k] = kd.at >= 0 ? lens[base + kd.at]! : 0;
      newKeys[k] = run.drawKey(kd, row, u.visited, lens, run.keys.get(kd.col, row), false);
    }
    u.visited++;
    const levelBase = row * ncols;
    if (levels) {
      for (let k = 0; k < levelSets.length; k++) {
        oldLevels[k] = levels[levelBase + levelSets[k]!.at]!;
        levels[levelBase + levelSets[k]!.at] = levelSets[k]!.level;
      }
    }
    const logical = format.rows.logicalBytes(layout, lens, base);
    obs?.beforeRow?.('update', row);
    // The leaves of the row's entries made real (the heap as before the change); the row found through the
    // first index unless a scan reads it (its dead versions' entries marked), then changed.
    if (run.trackVersions && indexes!.built) indexes!.locate(row, u.locate);
    const bytes = ool ? ool.sizeUpdate(row, lens, base, levels, levelBase, changed) : format.rows.rowBytes(layout, lens, base, logical);
    takeNewKeys(run, u, row);
    if (engine.update(row, bytes, logical, info)) {
      // The new version's entries (not a HOT update), one over an index's limit: the server refuses the UPDATE
      // (the row keeps its new keys: the refused statement's values are what the replay sends).
      const over = limit && engine.lastUpdateNewIndexEntries ? indexes!.oversize(lens, base) : null;
      if (over) {
        obs?.update?.(row, setColumns, lens, base, run.keys.snapshot(row), levels, levelBase, run.lobs);
        run.refuse('update', over, row);
      }
      affected++;
      ool?.apply();
      if (indexes?.built && engine.lastUpdateNewIndexEntries) indexes.addVersion(row, lens, base, keyChanged);
      offRow?.set(row, lens, base);
      obs?.update?.(row, setColumns, lens, base, run.keys.snapshot(row), levels, levelBase, run.lobs);
    } else {
      run.refuseRow('update', row, bytes);
      restoreRow(run, u, row, levelBase);
    }
    if (batched) run.rowDone();
  }
  return affected;
}

/** The row's new keys before the engine changes it (an engine that orders rows or entries by them reads them); restoreRow puts the old ones back. */
function takeNewKeys(run: RunState, u: UpdateBatch, row: number): void {
  for (let k = 0; k < u.keyDraws.length; k++) {
    u.oldKeys[k] = run.keys.get(u.keyDraws[k]!.col, row);
    run.keys.set(u.keyDraws[k]!.col, row, u.newKeys[k]!);
  }
}

/** The engine refused the update: the row's lengths, keys and compressibilities as they were before it. */
function restoreRow(run: RunState, u: UpdateBatch, row: number, levelBase: number): void {
  const lens = run.store.lens;
  const levels = run.store.levels;
  const base = row * run.width;
  for (let c = 0; c < u.sized.length; c++) u.sized[c]!.restore(lens, base, u.old[c]!);
  for (let k = 0; k < u.keyDraws.length; k++) run.keys.set(u.keyDraws[k]!.col, row, u.oldKeys[k]!);
  for (let k = 0; k < u.keyDraws.length; k++) if (u.keyDraws[k]!.at >= 0) lens[base + u.keyDraws[k]!.at] = u.oldLens[k]!;
  if (levels) for (let k = 0; k < u.levelSets.length; k++) levels[levelBase + u.levelSets[k]!.at] = u.oldLevels[k]!;
}
