/** Build the page engine for a format. */
import type { StorageSpec } from '../config/spec.js';
import { ASE_DOL_STUB_BYTES } from '../formats/ase.js';
import type { Format, ResolvedEngine, TableLayout } from '../formats/types.js';
import type { StorageEngine } from './engine.js';
import { ForwardingHeap } from './forwarding-heap.js';
import { PostgresHeap } from './postgres-heap.js';
import { ORACLE_CHAIN_PIECE_OVERHEAD_BYTES, ORACLE_MIGRATION_STUB_BYTES, oraclePctfreeBytes } from '../formats/oracle.js';
import { SQLSERVER_BACK_POINTER_BYTES, SQLSERVER_FORWARDING_STUB_BYTES, SQLSERVER_PFS_BAND_UPPER_PCT } from '../formats/sqlserver.js';

export function createEngine(
  format: Format,
  layout: TableLayout,
  resolved: ResolvedEngine,
  spec: StorageSpec,
  rowCapacity: number,
): StorageEngine {
  switch (format.id) {
    case 'ase-dol':
    case 'ase-apl':
      return new ForwardingHeap({
        geometry: layout.geometry,
        forwarding: format.id === 'ase-dol',
        stubBytes: ASE_DOL_STUB_BYTES,
        expRowSizeBytes: format.id === 'ase-dol' ? Number(resolved.exp_row_size) : 0,
        expRowSizeBasis: spec.engine.exp_row_size_basis,
        compaction: spec.engine.compaction === 'on',
        indexCount: spec.table.indexes.length,
        rowCapacity,
      });
    case 'sqlserver-heap':
      return new ForwardingHeap({
        geometry: layout.geometry,
        forwarding: true,
        stubBytes: SQLSERVER_FORWARDING_STUB_BYTES,
        expRowSizeBytes: 0,
        expRowSizeBasis: 'physical',
        compaction: spec.engine.compaction === 'on',
        indexCount: spec.table.indexes.length,
        rowCapacity,
        backPointerBytes: SQLSERVER_BACK_POINTER_BYTES,
        moveBackHome: (spec.engine.move_back_home ?? 'on') === 'on',
        freeSpaceSearch: (spec.engine.pfs_bands ?? 'on') === 'on' ? 'pfs' : 'exact',
        pfsBandUpperPct: SQLSERVER_PFS_BAND_UPPER_PCT,
        reorgForwardedRowsRebuilds: true,
      });
    case 'oracle-heap':
      return new ForwardingHeap({
        geometry: layout.geometry,
        forwarding: true,
        stubBytes: ORACLE_MIGRATION_STUB_BYTES,
        expRowSizeBytes: 0,
        expRowSizeBasis: 'physical',
        compaction: spec.engine.compaction === 'on',
        indexCount: spec.table.indexes.length,
        rowCapacity,
        insertReserveBytes: oraclePctfreeBytes(spec.engine.page_size, spec.engine.pctfree),
        freeSpaceSearch: 'exact',
        chaining: true,
        chainPieceOverheadBytes: ORACLE_CHAIN_PIECE_OVERHEAD_BYTES,
        scanFollowsForwarding: false,
        reorgForwardedRowsRebuilds: true,
      });
    case 'postgres-heap':
      return new PostgresHeap({
        geometry: layout.geometry,
        fillfactor: spec.engine.fillfactor,
        indexCount: spec.table.indexes.length,
        rowCapacity,
      });
    default:
      throw new Error(`no page engine for format ${format.id}`);
  }
}
