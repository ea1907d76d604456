/**
 * The rows' data lengths now, built from the DBA's evidence, most specific first: optdiag's per-column
 * statistics (Average column width, the histogram's NULL step) for the columns it has them for, the
 * average row (optdiag's Data row size, the DMV's or pgstattuple's average, less the format's row
 * overhead) for the rest, and the range a row can have (the DDL's, or the DMV's smallest and largest
 * records). What no file says is how widely the lengths spread around their averages: that is one
 * parameter, the spread d ∈ [0, 1], which the calibration fits to the measured data pages
 * (src/estimate/fit.ts) or, without them, assumes.
 *
 * A column's length (or, with no column statistics, the row's) at spread d follows the maximum-entropy
 * distribution with its mean on [mean − d·(mean − lo), mean + d·(hi − mean)]: d = 0 gives every row the
 * mean (two neighbouring whole lengths), d = 1 the whole range the column allows with nothing assumed
 * beyond the mean. A row is the sum of its columns, drawn independently (the distribution of the sum is
 * computed exactly, by convolution). Pure.
 */
import type { Dist } from '../config/spec.js';
import type { TableLayout } from '../layout/table-layout.js';
import { maxEntropyLengths } from './rows.js';

/** One varying column's lengths (a variable-length column, or a nullable fixed-length one). */
export interface ColumnLengths {
  name: string;
  /** Average bytes of its non-NULL values. */
  mean: number;
  /** Share of rows where it is NULL (0 bytes). */
  nullShare: number;
  /** The bytes a non-NULL value may take: [lo, hi] (lo = hi for a fixed-length column). */
  lo: number;
  hi: number;
  /** Where the mean came from: the file and line of its optdiag block, or the row's remainder. */
  from: 'column statistics' | 'the rest of the average row';
}

export interface LengthModel {
  /** Bytes every row has: the fixed-length NOT NULL columns. */
  fixedBytes: number;
  /** Per varying column, when optdiag gave column statistics; else one row-level range. */
  columns?: ColumnLengths[];
  /** The row's data length range and mean (what the row-level model spreads over). */
  min: number;
  max: number;
  mean: number;
}

/** Probabilities under this are dropped from a convolution's tails (their total is below 1e-9). */
const TAIL = 1e-13;

/** A distribution of whole lengths as an array of probabilities from `offset`. */
interface Pmf {
  offset: number;
  p: Float64Array;
}

function pmfOf(d: Dist): Pmf {
  if (d.kind === 'const') {
    const p = new Float64Array(1);
    p[0] = 1;
    return { offset: Math.round(d.value), p };
  }
  if (d.kind !== 'choice') throw new Error(`length model: unexpected distribution ${d.kind}`);
  const lo = Math.min(...d.values);
  const hi = Math.max(...d.values);
  const p = new Float64Array(hi - lo + 1);
  const total = d.weights.reduce((s, w) => s + w, 0);
  d.values.forEach((v, i) => (p[v - lo]! += d.weights[i]! / total));
  return { offset: lo, p };
}

/** Lengths with mean `mean` on [lo, hi], spread d: two neighbouring whole lengths at d = 0. */
export function spreadLengths(lo: number, hi: number, mean: number, d: number): Dist {
  const m = Math.min(hi, Math.max(lo, mean));
  const a = Math.floor(m);
  if (d <= 0 || hi <= lo) {
    if (a === m) return { kind: 'const', value: a };
    return { kind: 'choice', values: [a, a + 1], weights: [a + 1 - m, m - a] };
  }
  const from = Math.max(lo, Math.min(a, Math.floor(m - d * (m - lo))));
  const to = Math.min(hi, Math.max(a + 1, Math.ceil(m + d * (hi - m))));
  return maxEntropyLengths(from, to, m);
}

function convolve(a: Pmf, b: Pmf): Pmf {
  const out = new Float64Array(a.p.length + b.p.length - 1);
  for (let i = 0; i < a.p.length; i++) {
    const x = a.p[i]!;
    if (x === 0) continue;
    for (let j = 0; j < b.p.length; j++) out[i + j]! += x * b.p[j]!;
  }
  let first = 0;
  let last = out.length - 1;
  while (first < last && out[first]! < TAIL) first++;
  while (last > first && out[last]! < TAIL) last--;
  return { offset: a.offset + b.offset + first, p: out.slice(first, last + 1) };
}

function columnPmf(c: ColumnLengths, d: number): Pmf {
  const nonNull = pmfOf(spreadLengths(c.lo, c.hi, c.mean, d));
  if (c.nullShare <= 0) return nonNull;
  // NULL is 0 bytes: mix it in at offset 0.
  const top = nonNull.offset + nonNull.p.length;
  const p = new Float64Array(top);
  p[0] = c.nullShare;
  for (let i = 0; i < nonNull.p.length; i++) p[nonNull.offset + i]! += (1 - c.nullShare) * nonNull.p[i]!;
  return { offset: 0, p };
}

/** lengthsNow's distributions by model and spread: the fit asks for each spread again for every insert share it tries. */
const nowBySpread = new WeakMap<LengthModel, Map<number, Dist>>();

/** The row data lengths now at spread d, as a distribution the samplers take (the same object for the same model and d: read only). */
export function lengthsNow(model: LengthModel, d: number): Dist {
  let bySpread = nowBySpread.get(model);
  if (!bySpread) nowBySpread.set(model, (bySpread = new Map()));
  let dist = bySpread.get(d);
  if (!dist) bySpread.set(d, (dist = convolvedLengths(model, d)));
  return dist;
}

function convolvedLengths(model: LengthModel, d: number): Dist {
  if (!model.columns) return spreadLengths(model.min, model.max, model.mean, d);
  let sum: Pmf = { offset: model.fixedBytes, p: Float64Array.of(1) };
  for (const c of model.columns) sum = convolve(sum, columnPmf(c, d));
  const values: number[] = [];
  const weights: number[] = [];
  sum.p.forEach((w, i) => {
    if (w > 0) {
      values.push(sum.offset + i);
      weights.push(w);
    }
  });
  return values.length === 1 ? { kind: 'const', value: values[0]! } : { kind: 'choice', values, weights };
}

/** Mean and standard deviation of a length distribution (for the report). */
export function lengthMoments(d: Dist): { mean: number; sd: number; p5: number; p95: number } {
  const { offset, p } = pmfOf(d);
  let mean = 0;
  for (let i = 0; i < p.length; i++) mean += (offset + i) * p[i]!;
  let v = 0;
  for (let i = 0; i < p.length; i++) v += (offset + i - mean) ** 2 * p[i]!;
  const quantile = (q: number) => {
    let acc = 0;
    for (let i = 0; i < p.length; i++) {
      acc += p[i]!;
      if (acc >= q - 1e-12) return offset + i;
    }
    return offset + p.length - 1;
  };
  return { mean, sd: Math.sqrt(v), p5: quantile(0.05), p95: quantile(0.95) };
}

/** Per-column figures as the evidence gives them, matched to the layout's varying columns. */
export interface ColumnEvidence {
  name: string;
  /** Average bytes over all rows (NULL counted as 0). */
  avgWidth?: number;
  nullShare?: number;
}

/**
 * The model from column statistics: each varying column with statistics keeps its own mean (its Average
 * column width over the rows that are not NULL) and NULL share. The columns without statistics are one
 * group: what the average row leaves, spread over their combined range as one length (nothing says they
 * vary independently, so they are not assumed to). Undefined when no varying column has statistics (the
 * row-level model applies).
 */
export function columnModel(layout: TableLayout, rowMean: number, stats: readonly ColumnEvidence[]): LengthModel | undefined {
  const byName = new Map(stats.map((s) => [s.name.toLowerCase(), s]));
  const varying = layout.varying;
  const known = varying.filter((c) => byName.get(c.name.toLowerCase())?.avgWidth !== undefined);
  if (known.length === 0) return undefined;
  const columns: ColumnLengths[] = known.map((c) => {
    const k = byName.get(c.name.toLowerCase())!;
    const avg = k.avgWidth!;
    if (!c.variableType) {
      // A nullable fixed-length column: its value is all or nothing, so its average says how often it is there.
      const present = k.nullShare !== undefined ? 1 - k.nullShare : Math.min(1, avg / Math.max(1, c.fixedBytes));
      return {
        name: c.name,
        mean: c.fixedBytes,
        nullShare: clamp01(1 - present),
        lo: c.fixedBytes,
        hi: c.fixedBytes,
        from: 'column statistics',
      };
    }
    const nullShare = c.nullable ? clamp01(k.nullShare ?? 0) : 0;
    const mean = nullShare < 1 ? avg / (1 - nullShare) : 0;
    return { name: c.name, mean: Math.min(c.maxBytes, mean), nullShare, lo: 0, hi: c.maxBytes, from: 'column statistics' };
  });
  const open = varying.filter((c) => !known.includes(c));
  if (open.length) {
    const knownBytes = columns.reduce((s, c) => s + (1 - c.nullShare) * c.mean, 0);
    const hi = open.reduce((s, c) => s + c.maxBytes, 0);
    const rest = Math.min(hi, Math.max(0, rowMean - layout.fixedNotNullBytes - knownBytes));
    columns.push({ name: open.map((c) => c.name).join(', '), mean: rest, nullShare: 0, lo: 0, hi, from: 'the rest of the average row' });
  }
  const mean = layout.fixedNotNullBytes + columns.reduce((s, c) => s + (1 - c.nullShare) * c.mean, 0);
  return { fixedBytes: layout.fixedNotNullBytes, columns, min: layout.fixedNotNullBytes, max: layout.logicalMaxBytes, mean };
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}
