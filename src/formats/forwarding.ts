/**
 * What the formats whose rows live in place and move away with a forwarding address have in common:
 * SAP ASE, SQL Server heaps and Oracle heap tables (src/heap/forwarding-heap.ts is their page engine).
 * Each of them still fills its own StorageFormat; these are the shared answers.
 */
import { indexGeometry, type IndexGeometry, type IndexGeometryFields } from '../btree/geometry.js';
import type { ReorgKind } from '../heap/engine.js';

/** The summary's per-phase columns for a forwarding heap. */
export const FORWARDING_PHASE_METRICS = [
  'rows',
  'pages',
  'forwarded_rows',
  'table_scan_page_reads',
  'space_used_pct',
  'updates_in_place',
  'forwarded_updates',
  'reforwarded_updates',
  'row_moves',
  'compactions',
  'exclusive_table_locks',
  'rows_moved_home',
  'rows_rehomed',
] as const;

/** A forwarding heap has no MVCC versions: VACUUM (a PostgreSQL phase) does nothing on it. */
export function forwardingReorgNote(id: string): (kind: ReorgKind) => string | undefined {
  return (kind) => (kind === 'vacuum' ? `vacuum applies to postgres-heap only; on ${id} it does nothing` : undefined);
}

/** Index geometry of pages packed greedily (no nbtsort emulation): every non-leaf entry is a full pivot, as the manuals' formulas count them. */
export function greedyIndexGeometry(g: Omit<IndexGeometryFields, 'nbtsort' | 'minusInfinityBytes' | 'leafTidSlackBytes'>): IndexGeometry {
  return indexGeometry({ ...g, nbtsort: false, minusInfinityBytes: 0, leafTidSlackBytes: 0 });
}
