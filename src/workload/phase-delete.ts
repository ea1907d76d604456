/**
 * A delete phase: the rows the phase picks, each taken out of the engine, its TOAST values, off-row
 * records and (MVCC) index entries; a transaction a row or one for the statement.
 */
import type { PhaseSpec } from '../config/spec.js';
import type { Prng } from '../util/prng.js';
import { BATCH } from './row-values.js';
import { accessName, type RunState } from './run-state.js';
import { accessOf, phaseRows } from './access.js';
import type { PhaseOutcome } from './run-types.js';
import { transactionLabel } from './phase-insert.js';

export function deletePhase(run: RunState, phase: Extract<PhaseSpec, { op: 'delete' }>, rng: Prng): PhaseOutcome {
  const via = accessOf(phase);
  const picker = phaseRows(run, phase, rng);
  const n = picker.total;
  run.startTransactions(phase.transaction, phase.rollback === true);
  // Another engine's undo puts a deleted row back where it was: the delete is not made (the rows stay as they are).
  const undoes = phase.rollback && !run.engine.abort;
  const scanned = via !== 'index';
  const rows = new Int32Array(BATCH);
  let affected = 0;
  for (;;) {
    const count = picker.next(rows);
    if (count === 0) break;
    for (let i = 0; i < count; i++) {
      const row = rows[i]!;
      if (!run.engine.isLive(row)) continue;
      run.obs?.beforeRow?.('delete', row);
      if (run.trackVersions && run.indexes!.built) run.indexes!.locate(row, via !== 'scan');
      if (undoes) {
        affected++;
        run.rowDone();
        continue;
      }
      run.noteRow(row);
      run.engine.delete(row, scanned);
      run.ool?.delete(row);
      run.offRow?.clear(row);
      if (run.trackVersions) run.indexes!.remove(row, run.store.lens, row * run.width);
      affected++;
      run.obs?.delete?.(row);
      run.rowDone();
    }
  }
  run.endTransactions();
  return { affected, label: `delete ${n} ${n === 1 ? 'row' : 'rows'} (${accessName(phase)})${transactionLabel(phase)}` };
}
