/**
 * What pg-check says of a storage point beside its figures: the settings it was checked with, and notes
 * on values the replay sends otherwise than the config describes them.
 */
import type { Dist, StorageSpec } from '../config/spec.js';
import { postgresHeap } from '../formats/postgres.js';
import { MAX_STORED_LEN, utf8WidthShares } from '../layout/table-layout.js';
import { distMax } from '../workload/dist.js';
import { groupedNumber } from '../util/numbers.js';

export function settingsOf(spec: StorageSpec): string {
  const e = spec.engine;
  const [s2, s3, s4] = utf8WidthShares(e);
  const shares = (
    [
      [s2, 2],
      [s3, 3],
      [s4, 4],
    ] as const
  )
    .filter(([sh], i) => sh > 0 || i === 0)
    .map(([sh, w]) => `${Math.round(sh * 1000) / 10}% ${w}-byte`);
  const enc = e.encoding === 'utf8' ? `utf8 (${shares.join(', ')} characters)` : e.encoding;
  const toast = [
    e.toast_tuple_target > 0 ? `toast_tuple_target ${e.toast_tuple_target}` : '',
    e.default_toast_compression !== 'pglz' ? `${e.default_toast_compression} compression` : '',
  ].filter(Boolean);
  return `${postgresHeap.id}, page ${e.page_size / 1024}k, fillfactor ${e.fillfactor}, ${enc}${toast.length ? `, ${toast.join(', ')}` : ''}`;
}

/** The longest stored length the replay knows: the row store keeps lengths in 16 bits. */
const REPLAY_MAX_BYTES = MAX_STORED_LEN;

/**
 * Values the config makes longer than the row store keeps (65,534 bytes): the simulation sizes them at
 * 65,534 bytes and pg-check sends them so, so the TOAST figures of their columns are those of a table of
 * shorter values than the config describes. Said, not hidden. A large-object column that a read_lob phase
 * reads keeps its whole lengths (lob-chunked-read's 1 MB and 64 MB Blobs), and is sent whole.
 */
export function longValueNotes(spec: StorageSpec): string[] {
  const long = new Set<string>();
  // The run keeps the whole lengths of large-object columns when the workload reads them (read_lob): sent whole.
  const whole = spec.workload.some((ph) => ph.op === 'read_lob');
  for (const ph of spec.workload) {
    const dists: [string, Dist | undefined][] =
      ph.op === 'insert'
        ? Object.entries(ph.values).map(([c, v]) => [c, v.length])
        : ph.op === 'update'
          ? Object.entries(ph.set).map(([c, v]) => [c, v.kind === 'length' || v.kind === 'grow' ? v.dist : undefined])
          : [];
    for (const [c, d] of dists)
      if (d && distMax(d) > REPLAY_MAX_BYTES && !(whole && spec.table.columns.find((col) => col.name === c)?.type.lob)) long.add(c);
  }
  return [...long].map(
    (c) =>
      `values of ${c} longer than ${groupedNumber(REPLAY_MAX_BYTES)} bytes are sent at ${groupedNumber(REPLAY_MAX_BYTES)} bytes (the row store keeps lengths in 16 bits, whole ones only for a large-object column of a workload with read_lob; the model sizes them so too): toast_pages and toast_index_pages compare a table of shorter values`,
  );
}
