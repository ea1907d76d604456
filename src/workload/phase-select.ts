/**
 * A select phase: its statements, each a row fetched through the phase's access path (an index seek or a
 * row-id fetch) or a table scan, counted as the engine reads them.
 */
import type { PhaseSpec } from '../config/spec.js';
import { PageReads } from '../heap/page-reads.js';
import { Prng } from '../util/prng.js';
import { resolveCount } from '../util/units.js';
import { readPlan, readResult } from './reads.js';
import { BATCH } from './row-values.js';
import type { RunState } from './run-state.js';
import type { PhaseOutcome } from './run-types.js';
import type { RowPicker } from './select.js';

/**
 * A read phase: its statements, each a row fetched through the phase's access path or a table scan,
 * counted as the engine reads them (src/heap/page-reads.ts), through the run's buffer cache if it has one.
 */
export function selectPhase(run: RunState, phase: Extract<PhaseSpec, { op: 'select' }>, index: number): PhaseOutcome {
  const { engine, indexes, obs } = run;
  const plan = readPlan(run.format, run.spec, phase);
  const reads = new PageReads(run.cache());
  const dataPages = engine.metrics().pages;
  const indexNo = plan.path === 'index' && indexes ? indexes.indexOf(plan.index!) : -1;
  if (indexNo >= 0) indexes!.prepareReads(dataPages);
  const rows = new Int32Array(BATCH);
  let returned = 0;
  for (let rep = 0; rep < phase.repeat; rep++) {
    // Each repetition runs the same statement on the same rows: the order's stream starts afresh.
    const picker = run.picker(phase.rows, phase.order, Prng.derive(run.spec.seed, 'phase', index, phase.op));
    if (plan.path === 'scan') {
      run.obs?.beforeRow?.('scan', -1);
      engine.scanTable(reads);
      reads.statements++;
      reads.rows += picker.total;
      returned += picker.total;
      if (obs?.scan) obs.scan(pickAll(picker));
      continue;
    }
    for (;;) {
      const count = picker.next(rows);
      if (count === 0) break;
      run.touched +=
        (engine.prefetchRows?.(rows, count) ?? 0) + (indexNo >= 0 && run.trackVersions ? indexes!.prefetchReads(rows, count) : 0);
      for (let i = 0; i < count; i++) {
        const row = rows[i]!;
        run.obs?.beforeRow?.('select', row);
        if (indexNo >= 0) {
          const before = reads.indexPages;
          indexes!.readPath(indexNo, row, run.nextRow, engine.rowPage(row), dataPages, reads);
          run.options.events?.({ op: 'index-read', index: plan.index!, pages: reads.indexPages - before });
        }
        engine.fetchRow(row, reads, plan.path === 'index', indexNo >= 0 && run.trackVersions ? indexes!.dead : null);
        obs?.read?.(row);
      }
      reads.statements += count;
      reads.rows += count;
      returned += count;
    }
  }
  const n = resolveCount(phase.rows, engine.liveRows());
  return {
    affected: returned,
    label: `select ${n} ${n === 1 ? 'row' : 'rows'} (${plan.short}${phase.repeat > 1 ? `, ${phase.repeat} times` : ''})`,
    reads: readResult(run.format, plan, reads, run.spec.costs),
  };
}

/** Every row a picker hands out, in order (for an observer of a scan's rows). */
function pickAll(picker: RowPicker): Int32Array {
  const all = new Int32Array(picker.total);
  let n = 0;
  while (n < all.length) {
    const got = picker.next(all.subarray(n));
    if (got === 0) break;
    n += got;
  }
  return all.subarray(0, n);
}
