/**
 * Read phases in the reports: summary.md's "Reads" section (a row per read phase of every sweep point:
 * the plan, the reads by kind, the DBMS's counters, the cache, the estimate from costs; against the first
 * read phase of its point), large-object reads, and the lines the terminal prints after the storage table.
 */
import type { ReadResult } from '../workload/reads.js';
import { fmt, mdTable } from './tables.js';

/** What a storage entry gives this module: its label and its phases with their reads. */
interface ReadingEntry {
  label: string;
  phases: { label: string; reads?: ReadResult }[];
}

export interface ReadRow {
  point: string;
  phase: string;
  /** The phase's place in the workload, from 1. */
  number: number;
  reads: ReadResult;
  /** The point's first read phase (a select), to set this one against. */
  first: ReadResult | undefined;
}

/** The read phases of every point (select phases, or read_lob phases when `lob`), in the points' order. */
export function readRows(entries: readonly ReadingEntry[], lob: boolean): ReadRow[] {
  return entries.flatMap((e) => {
    const selects = e.phases.filter((p) => p.reads && !p.reads.lob);
    const first = selects[0]?.reads;
    return e.phases.flatMap((p, i) =>
      p.reads && Boolean(p.reads.lob) === lob ? [{ point: e.label, phase: p.label, number: i + 1, reads: p.reads, first }] : [],
    );
  });
}

/** "× 1,075" against the first read phase of the point, when this is not it. */
function against(r: ReadRow): string {
  if (!r.first || r.first === r.reads || r.first.logical_reads === 0) return '';
  const per = (x: ReadResult) => x.logical_reads / Math.max(1, x.statements);
  return `${fmtRatio(per(r.reads) / per(r.first))}`;
}

/** Milliseconds with three significant digits (0.00800, 8.60, 860). */
function fmtMs(x: number): string {
  return x >= 100 ? fmt(Math.round(x)) : String(Number(x.toPrecision(3)));
}

function fmtRatio(x: number): string {
  return x >= 100 ? `${fmt(Math.round(x))}×` : x >= 10 ? `${x.toFixed(1)}×` : `${x.toFixed(2)}×`;
}

function counters(r: ReadResult): string {
  return Object.entries(r.engine_counters)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${fmt(v)}`)
    .join(', ');
}

/** summary.md's Reads section ('' when the run has no read phase). */
export function readsMarkdown(entries: readonly ReadingEntry[]): string {
  const selects = readRows(entries, false);
  const lobs = readRows(entries, true);
  if (selects.length === 0 && lobs.length === 0) return '';
  const out: string[] = ['## Reads', ''];
  if (selects.length) {
    const withCache = selects.some((r) => r.reads.cache);
    const withCost = selects.some((r) => r.reads.estimated_ms !== undefined);
    out.push(
      "Each read phase as the engine read it: page reads by kind (data pages include a forwarded row's second page and chained pieces), the counters the DBMS would show, and each statement's reads against the first read phase of its point.",
      '',
    );
    out.push(
      mdTable(
        [
          'point',
          'phase',
          'plan',
          'statements',
          'page reads a statement',
          'data',
          'index',
          'forwarded hops',
          'vs first read phase',
          'DBMS counters',
          ...(withCache ? ['hit ratio'] : []),
          ...(withCost ? ['estimated ms a statement'] : []),
        ],
        selects.map((r) => [
          r.point,
          r.phase,
          r.reads.plan,
          fmt(r.reads.statements),
          fmt(Math.round((r.reads.logical_reads / Math.max(1, r.reads.statements)) * 100) / 100),
          fmt(r.reads.data_page_reads),
          fmt(r.reads.index_page_reads),
          fmt(r.reads.forwarded_hops),
          against(r),
          counters(r.reads),
          ...(withCache ? [r.reads.cache ? `${(r.reads.cache.hit_ratio * 100).toFixed(1)}%` : ''] : []),
          ...(withCost ? [r.reads.estimated_ms !== undefined ? fmtMs(r.reads.estimated_ms / Math.max(1, r.reads.statements)) : ''] : []),
        ]),
      ),
      '',
    );
    const estimated = selects.find((r) => r.reads.estimate_from);
    if (estimated) out.push(`Estimated times are ${estimated.reads.estimate_from!.replace(/: .*/, '')}: not a measurement.`, '');
    const conversions = [
      ...new Map(
        selects.filter((r) => r.reads.conversion && r.reads.conversion.converted !== 'none').map((r) => [r.reads.plan, r.reads]),
      ).values(),
    ];
    for (const c of conversions) out.push(`- ${c.plan} ${c.conversion!.source}`);
    if (conversions.length) out.push('');
  }
  if (lobs.length) {
    out.push('### Large objects', '');
    out.push(
      mdTable(
        [
          'point',
          'phase',
          'store',
          'values',
          'bytes a value',
          'chunk',
          'reposition',
          'chunk reads',
          'bytes processed',
          "× the values' bytes",
          'LOB pages read',
        ],
        lobs.map((r) => {
          const l = r.reads.lob!;
          return [
            r.point,
            r.phase,
            l.store,
            fmt(l.values_read),
            fmt(l.values_read ? Math.round(l.value_bytes / l.values_read) : 0),
            fmt(l.chunk),
            l.reposition,
            fmt(l.chunk_reads),
            fmt(l.bytes_processed),
            l.value_bytes ? fmtRatio(l.bytes_processed / l.value_bytes) : '',
            fmt(l.pages_processed),
          ];
        }),
      ),
      '',
    );
    const assumed = [...new Set(lobs.flatMap((r) => r.reads.lob!.assumed))];
    if (assumed.length) out.push(...assumed.map((a) => `- Assumed: ${a}.`), '');
  }
  return out.join('\n');
}

/** The terminal's lines for read phases: one a read phase, after the storage table ([] when none). */
export function readsTerminal(entries: readonly ReadingEntry[]): string[] {
  const out: string[] = [];
  for (const r of readRows(entries, false)) {
    const per = r.reads.logical_reads / Math.max(1, r.reads.statements);
    const vs = against(r);
    out.push(
      `reads: ${r.point}, ${r.phase}: ${fmt(Math.round(per * 100) / 100)} page reads a statement (${fmt(r.reads.logical_reads)} in all${vs ? `, ${vs} the first read phase` : ''})${r.reads.cache ? `, hit ratio ${(r.reads.cache.hit_ratio * 100).toFixed(1)}%` : ''}${r.reads.estimated_ms !== undefined ? `, est. ${fmtMs(r.reads.estimated_ms / Math.max(1, r.reads.statements))} ms a statement` : ''}`,
    );
  }
  for (const r of readRows(entries, true)) {
    const l = r.reads.lob!;
    out.push(
      `reads: ${r.point}, ${r.phase}: ${fmt(l.bytes_processed)} bytes processed for ${fmt(l.value_bytes)} bytes of values (${l.value_bytes ? fmtRatio(l.bytes_processed / l.value_bytes) : '–'}), ${fmt(l.pages_processed)} LOB pages`,
    );
  }
  return out;
}
