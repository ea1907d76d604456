/**
 * How much memory a storage run needs, estimated before anything is built, so that a table that cannot
 * fit is refused with a message instead of growing until the machine kills the process.
 *
 * The figures are the engines' own arrays (src/heap): per row the row's fields, 2 bytes per varying
 * column of the row store; for a PostgreSQL index simulated entry by entry (src/btree/nbtree.ts), its
 * TIDs where a later phase touches the leaves (16 bytes and 8 a key column each, for two versions of
 * every row, arrays grown by half), else the build's key order (4 bytes), a key a row for every column
 * an index reads, and the rows' version numbers; per page the page fields (page arrays grow by
 * doubling). Phases pick their rows without a list of ids (src/workload/select.ts). `npm run bench`
 * measures the resident growth these figures stand for.
 */
import type { StorageSpec } from '../config/spec.js';
import { getFormat, indexGeometries } from '../formats/registry.js';
import { plannedInserts } from './planned-work.js';
import { runLayout } from './constant-columns.js';

/** Page fields (16) + free-space search (8), doubled for array growth. */
const PAGE_BYTES_BOUND = 48;
/** nbtree (src/btree/leaf.ts): a TID's words (block, place, row, sizes) and its key columns; two versions a row at most between VACUUMs, arrays grown by half. */
const NBTREE_TID_BYTES = 16;
const NBTREE_KEY_BYTES = 8;
const NBTREE_TIDS_PER_ROW = 2;
const NBTREE_GROWTH = 1.5;
/** The build's key order (a row id a TID) when the leaves stay as built. */
const NBTREE_BUILD_ORDER_BYTES = 4;
/** The rows' version numbers (workload/keys.ts, btree/index-set.ts): the current one and the committed one. */
const VERSION_ROW_BYTES = 12;
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

/** Bytes a row of the PostgreSQL indexes simulated entry by entry (none for other formats). */
function nbtreeRowBytes(
  spec: StorageSpec,
  format: ReturnType<typeof getFormat>,
  layout: ReturnType<ReturnType<typeof getFormat>['rows']['layout']>,
): number {
  const geometries = indexGeometries(format, spec.table, layout).filter((g) => g.nbtree);
  if (geometries.length === 0) return 0;
  // After the first phase that leaves rows, a write touches leaves (they become real, entry by entry).
  const first = spec.workload.findIndex((ph) => ph.op === 'insert');
  const later = spec.workload.slice(first + 1).some((ph) => ph.op === 'insert' || ph.op === 'update' || ph.op === 'delete');
  const keyed = new Set(geometries.flatMap((g) => g.columns)).size;
  let bytes = NBTREE_KEY_BYTES * keyed + (later ? VERSION_ROW_BYTES : 0);
  for (const g of geometries)
    bytes += later
      ? (NBTREE_TID_BYTES + NBTREE_KEY_BYTES * g.columns.length) * NBTREE_TIDS_PER_ROW * NBTREE_GROWTH
      : NBTREE_BUILD_ORDER_BYTES;
  return bytes;
}

/** The memory one storage point needs at its largest (every row it ever inserts alive at once). */
export function storageMemory(spec: StorageSpec): StorageMemory {
  const rows = plannedInserts(spec.workload);
  const format = getFormat(spec.engine.format);
  // The row store keeps no length for a column the run holds at one size (observed runs do, and are small).
  const { layout } = runLayout(format, spec, false);
  const reads = spec.workload.some((ph) => ph.op === 'select');
  const lobColumns = spec.workload.some((ph) => ph.op === 'read_lob') ? spec.table.columns.filter((c) => c.type.lob).length : 0;
  const perRow =
    format.pages.engineRowBytes +
    ROW_STORE_BYTES_PER_VARYING_COLUMN * layout.varying.length +
    nbtreeRowBytes(spec, format, layout) +
    (reads ? format.reads.readRowBytes : 0) +
    (spec.workload.some((ph) => ph.op === 'update' || ph.op === 'delete') ? (format.pages.churnRowBytes ?? 0) : 0) +
    LOB_LENGTH_BYTES * lobColumns;
  // Pages at most: every row at its longest, one page per row at worst.
  const g = layout.geometry;
  const rowsPerPage = Math.max(
    1,
    Math.min(g.maxRowsPerPage, Math.floor(g.usableBytes / (Math.min(layout.maxRowBytes, g.usableBytes) + g.slotBytes))),
  );
  const pages = Math.ceil(rows / rowsPerPage) + 1;
  const bytes = rows * perRow + pages * PAGE_BYTES_BOUND;
  return { rows, bytes, bytesPerRow: rows > 0 ? bytes / rows : perRow };
}
