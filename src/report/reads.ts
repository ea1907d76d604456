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

/** A column of a reads table: its header and its cell for a row. */
interface ReadColumn {
  header: string;
  cell: (r: ReadRow) => string;
}

const column = (header: string, cell: ReadColumn['cell']): ReadColumn => ({ header, cell });

function columnsTable(columns: readonly ReadColumn[], rows: readonly ReadRow[]): string {
  return mdTable(
    columns.map((c) => c.header),
    rows.map((r) => columns.map((c) => c.cell(r))),
  );
}

/** The select phases' columns; the hit ratio and the estimated time only when some phase has them. */
function selectColumns(withCache: boolean, withCost: boolean): ReadColumn[] {
  const columns = [
    column('point', (r) => r.point),
    column('phase', (r) => r.phase),
    column('plan', (r) => r.reads.plan),
    column('statements', (r) => fmt(r.reads.statements)),
    column('page reads a statement', (r) => fmt(Math.round((r.reads.logical_reads / Math.max(1, r.reads.statements)) * 100) / 100)),
    column('data', (r) => fmt(r.reads.data_page_reads)),
    column('index', (r) => fmt(r.reads.index_page_reads)),
    column('forwarded hops', (r) => fmt(r.reads.forwarded_hops)),
    column('vs first read phase', against),
    column('DBMS counters', (r) => counters(r.reads)),
  ];
  if (withCache) columns.push(column('hit ratio', (r) => (r.reads.cache ? `${(r.reads.cache.hit_ratio * 100).toFixed(1)}%` : '')));
  if (withCost)
    columns.push(
      column('estimated ms a statement', (r) =>
        r.reads.estimated_ms !== undefined ? fmtMs(r.reads.estimated_ms / Math.max(1, r.reads.statements)) : '',
      ),
    );
  return columns;
}

/** The large-object phases' columns. */
function lobColumns(): ReadColumn[] {
  const lob = (f: (l: NonNullable<ReadResult['lob']>) => string) => (r: ReadRow) => f(r.reads.lob!);
  return [
    column('point', (r) => r.point),
    column('phase', (r) => r.phase),
    column(
      'store',
      lob((l) => l.store),
    ),
    column(
      'values',
      lob((l) => fmt(l.values_read)),
    ),
    column(
      'bytes a value',
      lob((l) => fmt(l.values_read ? Math.round(l.value_bytes / l.values_read) : 0)),
    ),
    column(
      'chunk',
      lob((l) => fmt(l.chunk)),
    ),
    column(
      'reposition',
      lob((l) => l.reposition),
    ),
    column(
      'chunk reads',
      lob((l) => fmt(l.chunk_reads)),
    ),
    column(
      'bytes processed',
      lob((l) => fmt(l.bytes_processed)),
    ),
    column(
      "× the values' bytes",
      lob((l) => (l.value_bytes ? fmtRatio(l.bytes_processed / l.value_bytes) : '')),
    ),
    column(
      'LOB pages read',
      lob((l) => fmt(l.pages_processed)),
    ),
  ];
}

/** The select phases: the table, whether times are estimated, and the plans' conversions. */
function selectsMarkdown(selects: readonly ReadRow[]): string[] {
  const withCache = selects.some((r) => r.reads.cache);
  const withCost = selects.some((r) => r.reads.estimated_ms !== undefined);
  const out = [
    "Each read phase as the engine read it: page reads by kind (data pages include a forwarded row's second page and chained pieces), the counters the DBMS would show, and each statement's reads against the first read phase of its point.",
    '',
    columnsTable(selectColumns(withCache, withCost), selects),
    '',
  ];
  const estimated = selects.find((r) => r.reads.estimate_from);
  if (estimated) out.push(`Estimated times are ${estimated.reads.estimate_from!.replace(/: .*/, '')}: not a measurement.`, '');
  const conversions = [
    ...new Map(
      selects.filter((r) => r.reads.conversion && r.reads.conversion.converted !== 'none').map((r) => [r.reads.plan, r.reads]),
    ).values(),
  ];
  for (const c of conversions) out.push(`- ${c.plan} ${c.conversion!.source}`);
  if (conversions.length) out.push('');
  return out;
}

/** The large-object phases: the table and what was assumed. */
function lobsMarkdown(lobs: readonly ReadRow[]): string[] {
  const out = ['### Large objects', '', columnsTable(lobColumns(), lobs), ''];
  const assumed = [...new Set(lobs.flatMap((r) => r.reads.lob!.assumed))];
  if (assumed.length) out.push(...assumed.map((a) => `- Assumed: ${a}.`), '');
  return out;
}

/** summary.md's Reads section ('' when the run has no read phase). */
export function readsMarkdown(entries: readonly ReadingEntry[]): string {
  const selects = readRows(entries, false);
  const lobs = readRows(entries, true);
  if (selects.length === 0 && lobs.length === 0) return '';
  return ['## Reads', '', ...(selects.length ? selectsMarkdown(selects) : []), ...(lobs.length ? lobsMarkdown(lobs) : [])].join('\n');
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
