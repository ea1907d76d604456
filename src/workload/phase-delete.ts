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

export function deletePhase(run: RunState, phase: Extract<PhaseSpec, { op: 'delete' }>, rng: Prng): PhaseOutcome {
  const via = accessOf(phase);
  const picker = phaseRows(run, phase, rng);
  const n = picker.total;
  const perRow = phase.transaction === 'row';
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
      if (run.trackVersions && run.indexes!.built && via !== 'scan') run.indexes!.locate(row);
      run.engine.delete(row, scanned);
      run.ool?.delete(row);
      run.offRow?.clear(row);
      if (run.trackVersions) run.indexes!.remove(row, run.store.lens, row * run.width);
      affected++;
      run.obs?.delete?.(row);
      if (perRow) run.commitTransaction();
    }
  }
  if (!perRow) run.commitTransaction();
  return { affected, label: `delete ${n} ${n === 1 ? 'row' : 'rows'} (${accessName(phase)})` };
}
