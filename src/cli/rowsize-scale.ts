/**
 * rowsim rowsize on a sample: the figures of `sample` simulated rows scaled to the n rows asked for
 * (src/cli/rowsize.ts sampleRows says when). Counts grow with the rows (heap pages, rows, refused rows,
 * TOAST and overflow pages, index leaves); the levels above an index's leaves are built again over the
 * scaled leaves by the format's own geometry, and the allocation pages are the format's for the scaled
 * pages. Row bytes, rows per page and entry sizes are the sample's.
 */
import { levelPages, type IndexGeometry, type IndexPages } from '../btree/geometry.js';
import type { EngineMetrics } from '../heap/engine.js';
import type { StorageFormat } from '../formats/format.js';
import type { TableLayout } from '../layout/table-layout.js';
import { allocationPages, type StorageRunResult } from '../workload/runner.js';

/** Metrics that are not counts of rows or pages: kept as the sample has them. */
const NOT_COUNTS = /(_pct|^avg_.*)$/;

function scaledMetrics(m: EngineMetrics, factor: number, sample: number, n: number): EngineMetrics {
  const out: Record<string, unknown> = { ...m };
  for (const [key, v] of Object.entries(m)) {
    if (typeof v !== 'number' || NOT_COUNTS.test(key)) continue;
    // Every row refused in the sample: every row of the table is.
    out[key] = key === 'rows_rejected' && v === sample ? n : Math.round(v * factor);
  }
  return out as unknown as EngineMetrics;
}

/** A probe row at the columns' longest lengths (as rowsize's index entry bytes are shown). */
function probeRow(layout: TableLayout): Uint16Array {
  const probe = new Uint16Array(Math.max(1, layout.varying.length));
  layout.varying.forEach((c, i) => (probe[i] = c.variableType ? Math.min(c.maxBytes, 0xfffe) : c.fixedBytes));
  return probe;
}

function scaledIndexes(index: IndexPages, geoms: IndexGeometry[], layout: TableLayout, dataPages: number, factor: number): IndexPages {
  const probe = probeRow(layout);
  const out: IndexPages = { total: 0, by_index: {}, levels: {}, nonleaf_by_index: {} };
  for (const g of geoms) {
    const pages = index.by_index[g.name] ?? 0;
    const upperSample = index.nonleaf_by_index[g.name] ?? 0;
    const leaves = g.leafIsData ? pages - upperSample : Math.round((pages - upperSample) * factor);
    const above = levelPages(g, g.leafIsData ? dataPages : Math.max(1, leaves), g.pivotBytes(probe, 0));
    const upper = above.reduce((a, b) => a + b, 0);
    out.by_index[g.name] = leaves + upper;
    out.nonleaf_by_index[g.name] = upper;
    out.levels[g.name] = above.length + (g.leafIsData ? 0 : 1);
    out.total += leaves + upper;
  }
  return out;
}

/** The run of `sample` rows as the run of n rows (the same run when sample is n). */
export function scaledRun(
  r: StorageRunResult,
  sample: number,
  n: number,
  context: { format: StorageFormat; layout: TableLayout; geoms: IndexGeometry[] },
): StorageRunResult {
  if (sample >= n) return r;
  const factor = n / sample;
  const final = scaledMetrics(r.final, factor, sample, n);
  const index_pages = scaledIndexes(r.index_pages, context.geoms, context.layout, final.pages, factor);
  return {
    ...r,
    final,
    index_pages,
    allocation_pages: allocationPages(context.format, context.layout, final, index_pages),
    notes: [
      `sized from ${sample.toLocaleString('en-US')} rows simulated, scaled to ${n.toLocaleString('en-US')} (a wide or long table is sampled: rowsim rowsize answers in about a second)`,
      ...r.notes,
    ],
  };
}
