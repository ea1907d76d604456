/**
 * Read phases: how a select reaches its rows (the plan, decided with the format's rule for comparing a
 * column with a parameter of another type) and what its reads come to (results.json `reads`).
 */
import type { ColumnType } from '../config/column-types.js';
import type { PhaseSpec, ReadCosts, StorageSpec } from '../config/spec.js';
import type { ComparisonRule, StorageFormat } from '../formats/format.js';
import type { PageReads } from '../heap/page-reads.js';
import { groupedNumber } from '../util/numbers.js';

export interface ReadPlan {
  path: 'scan' | 'index' | 'rowid';
  index?: string;
  /** The plan in a few words, for the phase's label: "index seek on t_code", "table scan". */
  short: string;
  /** The plan in a sentence, with why: the results and the summary. */
  text: string;
  /** The format's rule for the phase's predicate, when it has one. */
  comparison?: ComparisonRule;
}

/** The plan of a select phase: its access path, unless the predicate keeps the index from being sought. */
export function readPlan(format: StorageFormat, spec: StorageSpec, phase: Extract<PhaseSpec, { op: 'select' }>): ReadPlan {
  if (phase.via === 'rowid')
    return { path: 'rowid', short: 'row-id fetch', text: `each row fetched by its row id (${format.words.rowIdName})` };
  const comparison = phase.predicate ? comparisonOf(format, spec, phase.predicate.column, phase.predicate.parameter) : undefined;
  if (phase.via === 'scan') {
    return { path: 'scan', short: 'table scan', text: 'a table scan (via: scan)', ...(comparison ? { comparison } : {}) };
  }
  const index = phase.index!;
  if (comparison && comparison.access === 'scan') {
    return { path: 'scan', short: 'table scan', text: `a table scan instead of a seek on ${index}: ${comparison.why}`, comparison };
  }
  const how =
    comparison?.access === 'range-seek'
      ? `a seek on ${index} through a range computed from the converted parameter: ${comparison.why}`
      : `an index seek on ${index}${comparison && comparison.converted === 'parameter' ? `: ${comparison.why}` : ''}`;
  return {
    path: 'index',
    index,
    short: `${comparison?.access === 'range-seek' ? 'range seek' : 'index seek'} on ${index}`,
    text: how,
    ...(comparison ? { comparison } : {}),
  };
}

/** The format's rule for `column = @parameter`. */
export function comparisonOf(format: StorageFormat, spec: StorageSpec, column: string, parameter: ColumnType): ComparisonRule {
  const col = spec.table.columns.find((c) => c.name === column)!;
  return format.reads.comparison(col, parameter, spec.engine);
}

export interface ReadResult {
  via: 'scan' | 'index' | 'rowid';
  /** What ran: the access path taken and why (a predicate can turn an index seek into a scan). */
  plan: string;
  index?: string;
  /** The comparison's rule, when the phase has a predicate: which side is converted, and the source. */
  conversion?: { converted: 'column' | 'parameter' | 'none'; expression: string; source: string };
  statements: number;
  rows_returned: number;
  logical_reads: number;
  data_page_reads: number;
  index_page_reads: number;
  lob_page_reads: number;
  /** Rows read through a forwarding stub or migration pointer (one page read more each). */
  forwarded_hops: number;
  chained_piece_reads: number;
  /** The counters the DBMS's own tools show, under their names (forwarded_fetch_count, table fetch continued row …). */
  engine_counters: Record<string, number>;
  /** With a buffer cache: its size and policy, hits, reads that went to disk, and the hit ratio. */
  cache?: { pages: number; policy: string; hits: number; physical_reads: number; hit_ratio: number };
  /** With `costs:`: an estimate of the phase's elapsed time from those costs alone. */
  estimated_ms?: number;
  estimate_from?: string;
  /** A read_lob phase: the values read, their bytes, and what reading them in chunks processed. */
  lob?: {
    column: string;
    store: string;
    chunk: number;
    reposition: 'restart' | 'keep';
    values_read: number;
    value_bytes: number;
    chunk_reads: number;
    bytes_processed: number;
    pages_processed: number;
    lookup_pages: number;
    assumed: string[];
    source: string;
  };
}

/** The phase's reads as results.json reports them. */
export function readResult(
  format: StorageFormat,
  plan: ReadPlan,
  reads: PageReads,
  costs: ReadCosts | undefined,
  lobReads = 0,
): ReadResult {
  const r: ReadResult = {
    via: plan.path,
    plan: plan.text,
    ...(plan.index ? { index: plan.index } : {}),
    ...(plan.comparison
      ? { conversion: { converted: plan.comparison.converted, expression: plan.comparison.expression, source: plan.comparison.source } }
      : {}),
    statements: reads.statements,
    rows_returned: reads.rows,
    logical_reads: reads.logical,
    data_page_reads: reads.dataPages,
    index_page_reads: reads.indexPages,
    lob_page_reads: reads.lobPages + lobReads,
    forwarded_hops: reads.forwardedHops,
    chained_piece_reads: reads.chainedPieces,
    engine_counters: format.reads.readCounters(reads),
  };
  const cache = reads.cache;
  if (cache !== null) {
    const total = reads.hits + reads.misses;
    r.cache = {
      pages: cache.pages,
      policy: cache.policy,
      hits: reads.hits,
      physical_reads: reads.misses,
      hit_ratio: total > 0 ? round4(reads.hits / total) : 0,
    };
  }
  if (costs) {
    const physical = cache !== null ? reads.misses : 0;
    r.estimated_ms = round4((reads.logical * costs.logical_read_ns + physical * costs.physical_read_ns) / 1e6);
    r.estimate_from = `an estimate from the configured costs alone: ${groupedNumber(reads.logical)} logical reads × ${costs.logical_read_ns / 1000} µs${cache !== null ? ` + ${groupedNumber(physical)} physical reads × ${costs.physical_read_ns / 1000} µs` : ' (no cache: physical reads not simulated)'}`;
  }
  return r;
}

function round4(x: number): number {
  return Math.round(x * 10000) / 10000;
}
