/**
 * How much memory a storage run needs, estimated before anything is built, so that a table that cannot
 * fit is refused with a message instead of growing until the machine kills the process.
 *
 * The figures are the engines' own arrays (src/heap): per row the row's fields, 2 bytes per varying
 * column of the row store, and, on formats whose indexes keep an entry per version (PostgreSQL), 4 bytes
 * per index for the leaf each row's entry is on; per page the page fields (page arrays grow by
 * doubling). Phases pick their rows without a list of ids (src/workload/select.ts). `npm run bench`
 * measures the resident growth these figures stand for.
 */
import type { StorageSpec } from '../config/spec.js';
import { getFormat } from '../formats/registry.js';
import { plannedInserts } from './runner.js';

/** Page fields (16) + free-space search (8), doubled for array growth. */
const PAGE_BYTES_BOUND = 48;
const INDEX_TRACKER_ROW_BYTES = 4;
/** A large-object value's whole length, kept when a read_lob phase reads the column. */
const LOB_LENGTH_BYTES = 4;
const ROW_STORE_BYTES_PER_VARYING_COLUMN = 2;

/** Row ids are 32-bit signed integers in the engines' arrays. */
export const MAX_TABLE_ROWS = 2 ** 31 - 1;

interface StorageMemory {
  rows: number;
  bytes: number;
  bytesPerRow: number;
}

/** The memory one storage point needs at its largest (every row it ever inserts alive at once). */
export function storageMemory(spec: StorageSpec): StorageMemory {
  const rows = plannedInserts(spec.workload);
  const format = getFormat(spec.engine.format);
  const layout = format.layout(spec.table, spec.engine);
  const reads = spec.workload.some((ph) => ph.op === 'select');
  const lobColumns = spec.workload.some((ph) => ph.op === 'read_lob') ? spec.table.columns.filter((c) => c.type.lob).length : 0;
  const perRow =
    format.engineRowBytes +
    ROW_STORE_BYTES_PER_VARYING_COLUMN * layout.varying.length +
    (format.versionedIndexes ? INDEX_TRACKER_ROW_BYTES * spec.table.indexes.length : 0) +
    (reads ? format.readRowBytes : 0) +
    LOB_LENGTH_BYTES * lobColumns;
  // Pages at most: every row at its longest, one page per row at worst.
  const g = layout.geometry;
  const rowsPerPage = Math.max(1, Math.min(g.maxRowsPerPage, Math.floor(g.usableBytes / (Math.min(layout.maxRowBytes, g.usableBytes) + g.slotBytes))));
  const pages = Math.ceil(rows / rowsPerPage) + 1;
  const bytes = rows * perRow + pages * PAGE_BYTES_BOUND;
  return { rows, bytes, bytesPerRow: rows > 0 ? bytes / rows : perRow };
}
