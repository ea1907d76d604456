/**
 * A reorg phase (reorg rebuild, forwarded_rows, compact, VACUUM): the engine's, then the TOAST relation's
 * and the indexes' (rebuilt after a rebuild; an MVCC index vacuumed); the buffer cache starts again.
 */
import type { ReorgKind } from '../heap/engine.js';
import type { RunState } from './run-state.js';
import type { PhaseOutcome } from './run-types.js';

export function reorgPhase(run: RunState, kind: ReorgKind): PhaseOutcome {
  const engine = run.engine;
  if (kind === 'rebuild' && run.ool?.rebuild && engine.resizeForRebuild) {
    // The rewrite reads the rows in page order and stores each one's values afresh, then writes them.
    run.ool.rebuild(run.rowsInPageOrder(), run.store.lens, run.width, run.store.levels, run.ncols, (row, bytes) =>
      engine.resizeForRebuild!(row, bytes),
    );
  }
  engine.reorg(kind);
  run.ool?.reorg(kind, () => run.rowsInPageOrder());
  // The pages after a reorganisation are not the pages the cache holds: it starts again.
  run.bufferCache = null;
  run.obs?.reorg?.(kind);
  const indexes = run.indexes;
  if (indexes?.built) {
    if (kind === 'rebuild') indexes.build(run.liveRowList(), run.store.lens, run.nextRow);
    else if (run.format.indexes.versionedIndexes && (kind === 'vacuum' || kind === 'compact')) indexes.vacuum(run.engine.liveRows());
  }
  return { affected: run.engine.liveRows(), label: kind === 'vacuum' ? 'vacuum' : `reorg ${kind}` };
}
