/**
 * estimate.measured, resolved: where the rows' lengths come from (a CSV of per-row lengths, per-column
 * histograms, optdiag figures, or the average row the DBA's tools report) and the evidence the estimate
 * calibrates to or checks against (optdiag, sp_spaceused, sys.dm_db_index_physical_stats, pgstattuple,
 * pg_stat_user_tables). Files are read through the evidence readers; problems carry positions.
 */
import { resolve as resolvePath } from 'node:path';
import { z } from 'zod';
import { describeFound, nearest, type KeyPath } from '../config/errors.js';
import { valueSpecSchema } from '../config/schema.js';
import type { Dist, EngineSpec, PhaseSpec, SetSpec, TableDef, ValueSpec } from '../config/spec.js';
import { getFormat } from '../formats/registry.js';
import type { TableLayout } from '../layout/table-layout.js';
import { Problems, zodCheck } from './problems.js';
import type { EstimateSource, MeasuredFiles, PartitionSource } from '../estimate/types.js';
import { lengthBound } from './lengths.js';
import { resolveDist } from './storage.js';
import { mergeEvidence, type Measurements } from '../estimate/evidence/merge.js';
import { readEvidence } from '../estimate/evidence/read.js';
import { checkFacts, consistencyProblems } from '../estimate/evidence/consistency.js';
import type { Evidence, Figure } from '../estimate/evidence/types.js';
import { EVIDENCE_KINDS } from '../config/evidence-kinds.js';
import { dataLengthFor, dataLengthRange, maxEntropyLengths, readLengthPairs } from '../estimate/rows.js';
import { lengthsFromEvidence } from './evidence-lengths.js';
import { groupedNumber } from '../util/numbers.js';

const optdiagFiguresSchema = z.strictObject({
  rows: z.number().int().positive(),
  min: z.number().int().min(0),
  avg: z.number().min(0),
  max: z.number().int().min(0),
  forwarded: z.number().int().min(0).optional(),
  /** Average data length at insert; default: rows were inserted at the minimum length. */
  insert_avg: z.number().min(0).optional(),
});

const columnMeasureSchema = z.strictObject({
  insert: valueSpecSchema.optional(),
  now: valueSpecSchema.optional(),
});

/** estimate.measured: one source of row lengths (csv, columns, optdiag figures) and/or the DBA's tools' output files. */
const measuredSchema = z.strictObject({
  csv: z.string().min(1).optional(),
  columns: z.record(z.string(), columnMeasureSchema).optional(),
  optdiag: z.union([z.string().min(1), optdiagFiguresSchema]).optional(),
  sp_spaceused: z.string().min(1).optional(),
  index_physical_stats: z.string().min(1).optional(),
  pgstattuple: z.string().min(1).optional(),
  pg_stat_user_tables: z.string().min(1).optional(),
});
type MeasuredInput = z.infer<typeof measuredSchema>;
const MEASURED_KEYS = Object.keys(measuredSchema.shape) as (keyof MeasuredInput)[];

interface MeasuredResult {
  source: EstimateSource;
  /** Each partition's own source and evidence (optdiag's partition blocks). */
  partitions?: PartitionSource[];
  evidence?: Measurements;
  /** The rows' lengths at insert are unknown: fit them to the evidence. */
  fit: boolean;
  notes: string[];
}

interface Ctx {
  table: TableDef;
  engine: EngineSpec;
  layout: TableLayout;
  baseDir: string;
  P: Problems;
  rows: number | undefined;
  cli: MeasuredFiles;
}

const AT: KeyPath = ['estimate', 'measured'];
const WHAT =
  'csv (per-row data lengths), columns (per-column length histograms), optdiag (its text output, or { rows, min, avg, max } figures), sp_spaceused, index_physical_stats, pgstattuple or pg_stat_user_tables (their output files)';

export function resolveMeasured(measured: unknown, c: Omit<Ctx, 'cli'>, cli: MeasuredFiles = {}): MeasuredResult | undefined {
  const ctx: Ctx = { ...c, cli };
  const { P } = ctx;
  const isMap = measured !== null && typeof measured === 'object' && !Array.isArray(measured);
  const keys = isMap ? Object.keys(measured as object) : [];
  const unknown = keys.filter((k) => !(MEASURED_KEYS as string[]).includes(k));
  if (measured !== undefined && (!isMap || keys.length === 0 || unknown.length)) {
    const other = unknown[0];
    const guess = other ? nearest(other, MEASURED_KEYS) : undefined;
    P.add(
      other ? [...AT, other] : AT,
      `expected ${WHAT}, found ${keys.length ? keys.map((k) => `"${k}"`).join(', ') : describeFound(measured)}${guess ? `; did you mean "${guess}"?` : ''}`,
      !!other,
    );
    return undefined;
  }
  const m = (measured === undefined ? {} : zodCheck(measuredSchema, measured, AT, P)) as MeasuredInput | undefined;
  if (!m) return undefined;
  const lengthKeys = (['csv', 'columns'] as const).filter((k) => m[k] !== undefined);
  if (m.optdiag !== undefined && typeof m.optdiag === 'object') lengthKeys.push('optdiag' as never);
  if (lengthKeys.length > 1) {
    P.add(AT, `expected one source of row lengths (csv, columns or optdiag figures), found ${lengthKeys.join(' and ')}`);
    return undefined;
  }
  const evidence = readAll(m, ctx);
  if (evidence === undefined) return undefined;
  const notes: string[] = [];
  const kind = lengthKeys[0];
  if (kind === 'csv') return withEvidence({ source: csvSource(m.csv!, ctx), fit: false, notes }, evidence, ctx);
  if (kind === 'columns') return withEvidence({ source: columnsSource(m.columns!, ctx), fit: false, notes }, evidence, ctx);
  if (kind === 'optdiag') return optdiagFigures(m.optdiag as z.infer<typeof optdiagFiguresSchema>, evidence, ctx);
  return evidenceSource(evidence, ctx);
}

/** Every tool output given (config keys and command-line files), read and merged. */
function readAll(m: MeasuredInput, ctx: Ctx): Measurements | null | undefined {
  const inputs: Evidence[] = [];
  let bad = false;
  for (const kind of EVIDENCE_KINDS) {
    const fromCli = ctx.cli[kind];
    const given = fromCli ?? (typeof m[kind] === 'string' ? (m[kind] as string) : undefined);
    if (given === undefined) continue;
    const file = fromCli ? resolvePath(fromCli) : resolvePath(ctx.baseDir, given);
    const r = readEvidence(kind, file, ctx.table.name);
    if ('unreadable' in r) {
      if (fromCli) ctx.P.push({ file: `--${kind.replace(/_/g, '-')}`, message: r.unreadable });
      else ctx.P.add([...AT, kind], r.unreadable);
      bad = true;
    } else if (r.evidence) inputs.push(r.evidence);
    else {
      for (const p of r.problems) ctx.P.push(p);
      bad = true;
    }
  }
  if (bad) return undefined;
  if (inputs.length === 0) return null;
  const crossed = consistencyProblems(inputs, checkFacts(ctx.table, ctx.engine, ctx.layout, ctx.P.loc));
  for (const p of crossed) ctx.P.push(p);
  if (crossed.length) return undefined;
  const format = getFormat(ctx.engine.format);
  const merged = mergeEvidence(inputs, ctx.engine.page_size, ctx.table.name, format.words.movedRows.metric);
  for (const p of merged.problems) ctx.P.push(p);
  return merged.measurements;
}

function withEvidence(
  r: { source: EstimateSource | undefined; fit: boolean; notes: string[] },
  evidence: Measurements | null,
  ctx: Ctx,
): MeasuredResult | undefined {
  if (!r.source) return undefined;
  if (evidence?.moved === undefined && evidence)
    r.notes.push(
      `the measured figures (${evidence.kinds.join(', ')}) give no ${movedWord(ctx)} count: nothing to check the lengths against`,
    );
  return evidence ? { source: r.source, evidence, fit: r.fit, notes: r.notes } : { source: r.source, fit: r.fit, notes: r.notes };
}

function movedWord(ctx: Ctx): string {
  return getFormat(ctx.engine.format).words.movedRows.metric === 'newpage_updates' ? 'non-HOT update' : 'forwarded row';
}

function csvSource(csv: string, ctx: Ctx): EstimateSource | undefined {
  const path = resolvePath(ctx.baseDir, csv);
  const { pairs, problems } = readLengthPairs(path, { ...dataLengthRange(ctx.layout), table: ctx.table.name });
  if (!pairs) {
    // An unreadable file is the config's problem; a bad line is the CSV's.
    for (const p of problems) ctx.P.push(p.line === undefined ? ctx.P.loc.problem([...AT, 'csv'], p.message) : p);
    return undefined;
  }
  return { kind: 'csv', file: path, pairs };
}

function columnsSource(columns: NonNullable<MeasuredInput['columns']>, ctx: Ctx): EstimateSource | undefined {
  const { P, table } = ctx;
  if (ctx.rows === undefined) {
    P.add(['estimate'], "expected estimate.rows (the table's row count) with measured column histograms, found none", true);
    return undefined;
  }
  const before = P.list.length;
  const values: Record<string, ValueSpec> = Object.create(null);
  const set: Record<string, SetSpec> = Object.create(null);
  for (const [name, spec] of Object.entries(columns)) {
    const where: KeyPath = [...AT, 'columns', name];
    const col = table.columns.find((c) => c.name === name);
    if (!col) {
      const guess = nearest(
        name,
        table.columns.map((c) => c.name),
      );
      P.add(where, `expected a column of table ${table.name}${guess ? ` (did you mean "${guess}"?)` : ''}, found "${name}"`, true);
      continue;
    }
    const side = (s: (typeof spec)['insert'], key: 'insert' | 'now'): { length?: Dist; null: number } | undefined => {
      if (s === undefined) return undefined;
      if ((s.null ?? 0) > 0 && !col.nullable)
        P.add([...where, key, 'null'], `expected a NULL share only on a nullable column, found ${s.null} on ${name}, which is NOT NULL`);
      return {
        null: s.null ?? 0,
        length: s.length === undefined ? undefined : resolveDist(s.length, [...where, key, 'length'], ctx.baseDir, P, lengthBound(col)),
      };
    };
    const ins = side(spec.insert, 'insert');
    const now = side(spec.now, 'now');
    const atInsert = ins ?? now;
    if (atInsert) values[name] = atInsert;
    if (now) set[name] = now.length ? { kind: 'length', dist: now.length, null: now.null } : { kind: 'null', null: now.null };
  }
  if (P.list.length > before) return undefined;
  const workload: PhaseSpec[] = [{ op: 'insert', rows: { kind: 'count', n: ctx.rows }, values, transaction: 'statement', rollback: false }];
  if (Object.keys(set).length)
    workload.push({
      op: 'update',
      rows: { kind: 'all' },
      order: { kind: 'random' },
      via: 'index',
      transaction: 'statement',
      rollback: false,
      set,
    });
  return { kind: 'columns', workload };
}

function optdiagFigures(o: z.infer<typeof optdiagFiguresSchema>, evidence: Measurements | null, ctx: Ctx): MeasuredResult | undefined {
  const { P, table } = ctx;
  const range = dataLengthRange(ctx.layout);
  const where: KeyPath = [...AT, 'optdiag'];
  const before = P.list.length;
  for (const k of ['min', 'avg', 'max', 'insert_avg'] as const) {
    const v = o[k];
    if (v !== undefined && (v < range.min || v > range.max)) {
      P.add(
        [...where, k],
        `expected a data row length from ${range.min} to ${range.max} bytes (table ${table.name}: fixed-length NOT NULL columns .. maximum data row length), found ${v}`,
      );
    }
  }
  if (P.list.length === before && !(o.min <= o.avg && o.avg <= o.max))
    P.add(where, `expected min ≤ avg ≤ max, found ${o.min}, ${o.avg}, ${o.max}`);
  if (o.insert_avg !== undefined && (o.insert_avg < o.min || o.insert_avg > o.max)) {
    P.add([...where, 'insert_avg'], `expected an average length at insert from min ${o.min} to max ${o.max}, found ${o.insert_avg}`);
  }
  if (o.forwarded !== undefined && o.forwarded > o.rows)
    P.add([...where, 'forwarded'], `expected at most ${o.rows} forwarded rows (rows), found ${o.forwarded}`);
  if (P.list.length > before) return undefined;
  const source: EstimateSource = {
    kind: 'optdiag',
    rows: o.rows,
    min: o.min,
    avg: o.avg,
    max: o.max,
    forwarded: o.forwarded,
    insertAvg: o.insert_avg,
    now: maxEntropyLengths(o.min, o.max, o.avg),
    model: { fixedBytes: range.min, min: o.min, max: o.max, mean: o.avg },
    insert: o.insert_avg === undefined ? { kind: 'const', value: o.min } : maxEntropyLengths(o.min, o.max, o.insert_avg),
  };
  let ev = evidence ?? undefined;
  if (o.forwarded !== undefined && !ev?.moved) {
    const line = P.loc.problem([...where, 'forwarded'], '').line ?? 0;
    const fig: Figure = { value: o.forwarded, kind: 'optdiag', label: 'estimate.measured.optdiag.forwarded', file: P.loc.file, line };
    const rowsFig: Figure = { ...fig, value: o.rows, label: 'estimate.measured.optdiag.rows' };
    ev = {
      ...(ev ?? { kinds: ['optdiag'], pageBytes: ctx.engine.page_size, notes: [] }),
      rows: ev?.rows ?? rowsFig,
      forwarded: fig,
      moved: {
        share: o.forwarded / o.rows,
        count: o.forwarded,
        basis: o.rows,
        basisWord: 'rows',
        label: `optdiag figures: ${groupedNumber(o.forwarded)} forwarded of ${groupedNumber(o.rows)} rows`,
        figures: [fig, rowsFig],
      },
    };
  }
  // Insert lengths unknown and a forwarded count to fit them to; with insert_avg they are given.
  return { source, ...(ev ? { evidence: ev } : {}), fit: o.insert_avg === undefined && ev?.moved !== undefined, notes: [] };
}

/** Lengths from the tools' figures: column statistics, the average row, the range (src/loader/evidence-lengths.ts). */
function evidenceSource(evidence: Measurements | null, ctx: Ctx): MeasuredResult | undefined {
  const { P, table, layout } = ctx;
  if (!evidence || !evidence.avgRowBytes || !evidence.rows) {
    const have = evidence ? ` (${evidence.kinds.join(', ')} give${evidence.kinds.length === 1 ? 's' : ''} no average row)` : '';
    P.add(AT, `expected row lengths from csv, columns, optdiag (text or figures), index_physical_stats or pgstattuple${have}, found none`);
    return undefined;
  }
  const r = lengthsFromEvidence(evidence, { table, layout, format: getFormat(ctx.engine.format) });
  if ('problems' in r) {
    for (const p of r.problems) P.push(p);
    return undefined;
  }
  const notes = r.notes;
  if (!evidence.moved)
    notes.push(
      `the measured figures give no ${movedWord(ctx)} count: rows are assumed inserted at the shortest length (${r.source.min} bytes) and grown to their length now`,
    );
  const partitions = partitionSources(evidence, ctx);
  if (partitions === null) return undefined;
  return { source: r.source, evidence, fit: evidence.moved !== undefined, notes, ...(partitions ? { partitions } : {}) };
}

/**
 * The table's column statistics for one partition: optdiag's column statistics are the table's, so the
 * varying columns keep their shares of the row and are scaled to the partition's own average row.
 */
function partitionColumns(columns: NonNullable<Measurements['columns']>, rowBytes: number, ctx: Ctx): NonNullable<Measurements['columns']> {
  const varying = new Set(ctx.layout.varying.map((c) => c.name.toLowerCase()));
  const isVarying = (name: string) => varying.has(name.toLowerCase());
  const tableVarying = columns.filter((c) => isVarying(c.name)).reduce((s, c) => s + (c.avgWidth ?? 0), 0);
  const partVarying = Math.max(0, dataLengthFor(getFormat(ctx.engine.format), ctx.layout, rowBytes) - ctx.layout.fixedNotNullBytes);
  const known = ctx.layout.varying.every((v) =>
    columns.some((c) => c.name.toLowerCase() === v.name.toLowerCase() && c.avgWidth !== undefined),
  );
  // Only when every varying column has a width is the sum the varying part of the row; else the rest takes the difference.
  if (!known || tableVarying <= 0) return columns;
  const f = partVarying / tableVarying;
  return columns.map((c) => (isVarying(c.name) && c.avgWidth !== undefined ? { ...c, avgWidth: c.avgWidth * f } : c));
}

/** Each partition's own model and evidence, when optdiag gives the partitions' figures (undefined: none; null: a problem). */
function partitionSources(evidence: Measurements, ctx: Ctx): PartitionSource[] | undefined | null {
  if (!evidence.partitions || evidence.partitions.length < 2) return undefined;
  const out: PartitionSource[] = [];
  for (const p of evidence.partitions) {
    const ev: Measurements = {
      kinds: ['optdiag'],
      pageBytes: evidence.pageBytes,
      notes: [],
      rows: p.rows,
      pages: p.pages,
      avgRowBytes: p.avgRowBytes,
    };
    if (evidence.columns) ev.columns = partitionColumns(evidence.columns, p.avgRowBytes.value, ctx);
    if (p.emptyPages) ev.emptyPages = p.emptyPages;
    if (p.forwarded) {
      ev.forwarded = p.forwarded;
      const share = p.rows.value > 0 ? p.forwarded.value / p.rows.value : 0;
      ev.moved = {
        share,
        count: p.forwarded.value,
        basis: p.rows.value,
        basisWord: 'rows',
        label: `optdiag ${p.forwarded.label} ${groupedNumber(p.forwarded.value)} of ${groupedNumber(p.rows.value)} rows (partition ${p.name})`,
        figures: [p.forwarded, p.rows],
      };
    }
    const r = lengthsFromEvidence(ev, { table: ctx.table, layout: ctx.layout, format: getFormat(ctx.engine.format) });
    if ('problems' in r) {
      for (const q of r.problems) ctx.P.push(q);
      return null;
    }
    out.push({ name: p.name, file: p.rows.file, line: p.line, source: r.source, evidence: ev });
  }
  return out;
}
