/** Build the page engine for a format. */
import type { StorageSpec } from '../config/spec.js';
import { ASE_DOL_STUB_BYTES } from '../formats/ase.js';
import type { Format, ResolvedEngine, TableLayout } from '../formats/types.js';
import type { StorageEngine } from './engine.js';
import { ForwardingHeap } from './forwarding-heap.js';

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
    default:
      throw new Error(`no page engine for format ${format.id}`);
  }
}
