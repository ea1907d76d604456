/**
 * The charts of read phases: page reads a statement by kind for every read phase of every sweep point
 * (reads.png), the buffer cache's hit ratio where a config sets one (reads-hit-ratio.png), and the bytes a
 * large-object read processed (lob-reads.png: against the chunk size when the points vary it, so that a
 * stream restarted for every chunk shows as the quadratic it is beside the linear one that keeps its place).
 */
import { PALETTE, renderBarChart, renderLineChart, type Series } from './charts.js';
import { readRows, type ReadRow } from './reads.js';
import type { StorageEntry } from './storage.js';

/** Bars whose tallest is more than this many times the shortest are drawn side by side on a log axis. */
const LOG_AXIS_SPREAD = 30;

/** A read phase's name on the x axis: its point and its phase (numbered as in the workload) where the run has several of either. */
function categories(rows: readonly ReadRow[]): string[] {
  const points = new Set(rows.map((r) => r.point)).size;
  const phasesOfAPoint = Math.max(...[...new Set(rows.map((r) => r.point))].map((p) => rows.filter((r) => r.point === p).length));
  const phase = (r: ReadRow) => `${r.number}. ${r.phase}`;
  return rows.map((r) => (points > 1 && phasesOfAPoint > 1 ? `${r.point}: ${phase(r)}` : points > 1 ? r.point : phase(r)));
}

/** A value's size as a reader says it: 1 MiB, 64 MiB, 2.5 kiB, 300 bytes. */
function sizeWords(bytes: number): string {
  const units: [number, string][] = [
    [1 << 30, 'GiB'],
    [1 << 20, 'MiB'],
    [1 << 10, 'kiB'],
  ];
  for (const [u, name] of units) if (bytes >= u) return `${Number((bytes / u).toPrecision(3))} ${name}`;
  return `${Math.round(bytes)} bytes`;
}

const perStatement = (r: ReadRow, n: number): number => n / Math.max(1, r.reads.statements);

/** Page reads a statement by kind: index pages, the rows' own pages, forwarded hops, chained pieces, LOB pages. */
export function readsChart(entries: StorageEntry[], title: string): Buffer {
  const rows = readRows(entries, false);
  const kinds: { label: string; value: (r: ReadRow) => number }[] = [
    { label: 'index pages', value: (r) => r.reads.index_page_reads },
    // data_page_reads counts the second page of a forwarded row and each chained piece too: drawn apart.
    {
      label: "data pages (the rows' own)",
      value: (r) => Math.max(0, r.reads.data_page_reads - r.reads.forwarded_hops - r.reads.chained_piece_reads),
    },
    { label: 'forwarded hops (a page more each)', value: (r) => r.reads.forwarded_hops },
    { label: 'chained pieces', value: (r) => r.reads.chained_piece_reads },
    { label: 'LOB pages', value: (r) => r.reads.lob_page_reads },
  ];
  const series = kinds
    .map((k, i) => ({ label: k.label, values: rows.map((r) => perStatement(r, k.value(r))), color: PALETTE[i % PALETTE.length]! }))
    .filter((s) => s.values.some((v) => v > 0));
  const totals = rows.map((r) => perStatement(r, r.reads.logical_reads)).filter((t) => t > 0);
  const log = totals.length > 0 && Math.max(...totals) > LOG_AXIS_SPREAD * Math.min(...totals);
  return renderBarChart({
    title: `${title}: page reads a statement`,
    subtitle: `logical page reads of one statement of each read phase, by kind${log ? '; log axis, the kinds side by side (the phases differ by more than ' + LOG_AXIS_SPREAD + '×)' : ', stacked'}`,
    categories: categories(rows),
    xLabel: 'read phase',
    yLabel: 'page reads (pages a statement)',
    series,
    stacked: !log,
    yLog: log,
    valueLabels: true,
  });
}

/** The buffer cache's hit ratio of each read phase that ran with one. */
export function readCacheChart(entries: StorageEntry[], title: string): Buffer {
  const rows = readRows(entries, false).filter((r) => r.reads.cache);
  const caches = [...new Set(rows.map((r) => `${r.reads.cache!.pages} pages, ${r.reads.cache!.policy}`))];
  return renderBarChart({
    title: `${title}: buffer cache hit ratio`,
    subtitle: `page reads found in the cache, in % of the phase's logical reads (cache: ${caches.join('; ')})`,
    categories: categories(rows),
    xLabel: 'read phase',
    yLabel: 'hit ratio (%)',
    series: [{ label: 'hit ratio (%)', values: rows.map((r) => r.reads.cache!.hit_ratio * 100), color: PALETTE[2]! }],
    valueLabels: true,
  });
}

/** Bytes a large-object read processed for each value, against the value's own bytes. */
export function lobReadsChart(entries: StorageEntry[], title: string): Buffer {
  const rows = readRows(entries, true);
  const lob = (r: ReadRow) => r.reads.lob!;
  const valueBytes = (r: ReadRow) => (lob(r).values_read ? lob(r).value_bytes / lob(r).values_read : 0);
  const processed = (r: ReadRow) => (lob(r).values_read ? lob(r).bytes_processed / lob(r).values_read : 0);
  const chunks = new Set(rows.map((r) => lob(r).chunk));
  if (chunks.size >= 2) {
    // One line per value size and reposition, over the chunk sizes: restart falls as 1/chunk, keep is flat.
    const groups = new Map<string, ReadRow[]>();
    for (const r of rows) {
      const key = `${sizeWords(valueBytes(r))} value, reposition: ${lob(r).reposition}`;
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    const series: Series[] = [...groups].map(([label, list], i) => ({
      label,
      points: list.map((r) => [lob(r).chunk, processed(r)] as [number, number]).sort((a, b) => a[0] - b[0]),
      color: PALETTE[i % PALETTE.length]!,
      dashed: list[0]!.reads.lob!.reposition === 'keep',
    }));
    return renderLineChart({
      title: `${title}: bytes processed to read a value in chunks`,
      subtitle: 'restart: every chunk read starts again from the first byte (s + b·n(n − 1)/2 bytes); keep: each read continues (s bytes)',
      xLabel: 'chunk (bytes a read)',
      yLabel: 'processed (bytes a value)',
      xLog: true,
      yLog: true,
      series,
    });
  }
  const values = [...rows.map(processed), ...rows.map(valueBytes)].filter((v) => v > 0);
  return renderBarChart({
    title: `${title}: bytes processed to read a value in chunks`,
    subtitle: `chunks of ${sizeWords([...chunks][0] ?? 0)}; restart reads from the first byte for every chunk, keep continues`,
    categories: categories(rows),
    xLabel: 'read phase',
    yLabel: 'size (bytes a value)',
    series: [
      { label: 'bytes processed', values: rows.map(processed), color: PALETTE[0]! },
      { label: "the value's bytes", values: rows.map(valueBytes), color: PALETTE[1]! },
    ],
    yLog: values.length > 0 && Math.max(...values) > LOG_AXIS_SPREAD * Math.min(...values),
    valueLabels: true,
  });
}
