/**
 * The `estimate:` section of a config, validated with zod through the config loader's positioned
 * problems (file, line, column, key path). The config's `table:` and `engine:` are reused; the rows
 * come from `workload:` (insert + growth) or from `estimate.measured` (a CSV of per-row data lengths at
 * insert and now, per-column length histograms, or optdiag figures).
 */
import { resolve as resolvePath } from 'node:path';
import { z } from 'zod';
import { describeFound, nearest, type KeyPath } from '../config/errors.js';
import { FORMAT_IDS, valueSpecSchema, type FormatId } from '../config/schema.js';
import type { Dist, EngineSpec, PhaseSpec, SetSpec, TableDef, ValueSpec } from '../config/spec.js';
import { availableFormats, getFormat } from '../formats/registry.js';
import { EngineSettingError } from '../formats/types.js';
import { Problems, zodCheck } from '../loader/problems.js';
import type { SectionContext } from '../loader/section.js';
import { checkLockScheme, engineSettingProblem, resolveDist, resolveWorkload } from '../loader/storage.js';
import { engineFor, KnobError, reserveKnob, type Setting } from './knob.js';
import { dataLengthRange, maxEntropyLengths, readLengthPairs, type LengthPairs } from './rows.js';

export const ESTIMATE_DEFAULTS = {
  target_pct: 1,
  seeds: 5,
  sample_rows: 20_000,
} as const;

const settingSchema = z.union([z.number().int().min(0), z.literal('max')]);

const optdiagSchema = z.strictObject({
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

const MEASURED_SCHEMAS = {
  csv: z.strictObject({ csv: z.string().min(1) }),
  optdiag: z.strictObject({ optdiag: optdiagSchema }),
  columns: z.strictObject({ columns: z.record(z.string(), columnMeasureSchema) }),
} as const;

export const estimateSchema = z.strictObject({
  rows: z.number().int().positive().optional(),
  target_pct: z.number().positive().max(100).optional(),
  seeds: z.number().int().min(1).max(30).optional(),
  sample_rows: z.number().int().min(100).max(5_000_000).optional(),
  candidates: z
    .union([
      z.array(settingSchema).min(1),
      z.strictObject({ from: z.number().int().min(0), to: settingSchema, step: z.number().int().positive().optional() }),
    ])
    .optional(),
  refine: z.boolean().optional(),
  formats: z.array(z.enum(FORMAT_IDS)).optional(),
  measured: z.unknown().optional(),
});

export type EstimateSource =
  | { kind: 'workload'; workload: PhaseSpec[] }
  | { kind: 'columns'; workload: PhaseSpec[] }
  | { kind: 'csv'; file: string; pairs: LengthPairs }
  | { kind: 'optdiag'; rows: number; min: number; avg: number; max: number; forwarded?: number; insertAvg?: number; insert: Dist; now: Dist };

export interface EstimateConfig {
  file: string;
  name: string;
  seed: number;
  table: TableDef;
  engine: EngineSpec;
  /** The config's format first, then any others asked for. */
  formats: FormatId[];
  target_pct: number;
  seeds: number;
  sample_rows: number;
  /** Rows of the table the estimate is for; absent: what the workload or measurements hold. */
  rows?: number;
  /** Candidate values for the config's format; absent: a grid over the whole accepted range. */
  candidates?: Setting[] | { from: number; to: Setting; step?: number };
  refine: boolean;
  source: EstimateSource;
  notes: string[];
}

export interface EstimateOverrides {
  target_pct?: number;
  seeds?: number;
  sample_rows?: number;
  rows?: number;
  formats?: FormatId[];
}

/**
 * The `estimate:` section (rowsim estimate), resolved against the config's table and engine: loaded by
 * the one config loader (src/loader/config.ts) like every section. Problems go to ctx.P; undefined when
 * the section cannot be resolved.
 */
export function resolveEstimateSection(rawSection: unknown, ctx: SectionContext, overrides: EstimateOverrides): EstimateConfig | undefined {
  const { P, baseDir, table, engine } = ctx;
  const obj = ctx.raw;
  const est = zodCheck(estimateSchema, rawSection ?? {}, ['estimate'], P) ?? undefined;
  if (!table || !engine || !est) return undefined;
  const notes: string[] = [];

  // The config's format must have a reserve knob and valid settings.
  const format = getFormat(engine.format);
  const layout = format.layout(table, engine);
  try {
    format.resolve(engine, layout);
  } catch (err) {
    if (err instanceof EngineSettingError) engineSettingProblem(err, obj.engine, table, P);
    else throw err;
  }
  checkLockScheme(table, engine, P);
  let knob;
  try {
    knob = reserveKnob(engine.format, layout, engine);
  } catch (err) {
    if (!(err instanceof KnobError)) throw err;
    P.add(['engine', 'format'], `expected ${err.message}, found "${engine.format}"`);
    return undefined;
  }

  // Other formats asked for.
  const formats: FormatId[] = [engine.format];
  const asked = overrides.formats ?? est.formats ?? [];
  asked.forEach((f, i) => {
    const add = (message: string) => {
      if (overrides.formats) P.push({ file: '--formats', message });
      else P.add(['estimate', 'formats', i], message);
    };
    if (formats.includes(f)) return;
    if (!getFormat(f)) {
      add(`expected a format this version implements (${availableFormats().join(', ')}), found "${f}"`);
      return;
    }
    const e = engineFor(engine, f);
    try {
      reserveKnob(f, getFormat(f)!.layout(table, e), e);
    } catch (err) {
      if (!(err instanceof KnobError)) throw err;
      add(`expected ${err.message}, found "${f}"`);
      return;
    }
    formats.push(f);
  });

  // Candidates: values the DBMS accepts for this table.
  if (est.candidates) {
    const ok = (v: Setting) => v === 'max' ? knob.key === 'exp_row_size' : (v >= knob.min && v <= knob.max) || knob.specials.some((s) => s.setting === v);
    const range = `${knob.min} to ${knob.max}${knob.specials.length ? ` or ${knob.specials.map((s) => s.setting).join(', ')}` : ''}`;
    if (Array.isArray(est.candidates)) {
      est.candidates.forEach((v, i) => {
        if (!ok(v)) P.add(['estimate', 'candidates', i], `expected a ${knob.key} ${engine.format} accepts for table ${table.name} (${range}), found ${v}`);
      });
    } else {
      const { from, to } = est.candidates;
      for (const [k, v] of [
        ['from', from],
        ['to', to],
      ] as const) {
        if (!ok(v)) P.add(['estimate', 'candidates', k], `expected a ${knob.key} ${engine.format} accepts for table ${table.name} (${range}), found ${v}`);
      }
      const toValue = to === 'max' ? knob.max : to;
      if (ok(from) && ok(to) && from > toValue) P.add(['estimate', 'candidates'], `expected from ≤ to, found from ${from} and to ${to}`);
    }
  }

  // Where the rows come from.
  let source: EstimateSource | undefined;
  const measured = (rawSection as Record<string, unknown> | undefined)?.measured;
  if (measured !== undefined) {
    if (obj.workload !== undefined) notes.push('estimate.measured is given: the workload section is not used by rowsim estimate');
    source = resolveMeasured(measured, table, engine, layout, baseDir, P, est.rows ?? overrides.rows);
  } else if (obj.workload !== undefined) {
    const workload = resolveWorkload(obj.workload, table, baseDir, P);
    if (workload) {
      let end = workload.length;
      while (end > 0 && workload[end - 1]!.op === 'reorg') end--;
      if (end < workload.length) notes.push('the workload ends with a reorg: the estimate looks at the table before it (a reorg would hide the forwarding)');
      if (end === 0) P.add(['workload'], 'expected at least one insert before any reorg, found only reorgs');
      else if (!workload.slice(0, end).some((p) => p.op === 'update')) notes.push('the workload has no update: rows never grow, so nothing is forwarded whatever the setting');
      source = { kind: 'workload', workload: workload.slice(0, end) };
    }
  } else {
    P.add(['estimate'], 'expected the rows to simulate: a workload section (insert, then growth) or estimate.measured (csv, columns or optdiag), found neither', true);
  }
  if (!source) return undefined;
  return {
    file: ctx.file,
    name: ctx.name,
    seed: ctx.seed,
    table,
    engine,
    formats,
    target_pct: overrides.target_pct ?? est.target_pct ?? ESTIMATE_DEFAULTS.target_pct,
    seeds: overrides.seeds ?? est.seeds ?? ESTIMATE_DEFAULTS.seeds,
    sample_rows: overrides.sample_rows ?? est.sample_rows ?? ESTIMATE_DEFAULTS.sample_rows,
    rows: overrides.rows ?? est.rows,
    candidates: est.candidates,
    refine: est.refine ?? true,
    source,
    notes,
  };
}

function resolveMeasured(
  measured: unknown,
  table: TableDef,
  engine: EngineSpec,
  layout: ReturnType<NonNullable<ReturnType<typeof getFormat>>['layout']>,
  baseDir: string,
  P: Problems,
  rows: number | undefined,
): EstimateSource | undefined {
  const at: KeyPath = ['estimate', 'measured'];
  const kinds = Object.keys(MEASURED_SCHEMAS) as (keyof typeof MEASURED_SCHEMAS)[];
  const keys = measured !== null && typeof measured === 'object' && !Array.isArray(measured) ? Object.keys(measured) : [];
  const kind = kinds.find((k) => keys.includes(k));
  if (!kind || keys.length !== 1) {
    const other = keys.find((k) => !kinds.includes(k as never));
    const guess = other ? nearest(other, kinds) : undefined;
    P.add(
      other ? [...at, other] : at,
      `expected one of csv (per-row data lengths at insert and now), columns (per-column length histograms) or optdiag (row count and min/avg/max row length), found ${keys.length ? keys.map((k) => `"${k}"`).join(', ') : describeFound(measured)}${guess ? `; did you mean "${guess}"?` : ''}`,
      !!other,
    );
    return undefined;
  }
  const range = dataLengthRange(layout);
  switch (kind) {
    case 'csv': {
      const m = zodCheck(MEASURED_SCHEMAS.csv, measured, at, P);
      if (!m) return undefined;
      const path = resolvePath(baseDir, m.csv);
      const { pairs, problems } = readLengthPairs(path, { ...range, table: table.name });
      if (!pairs) {
        // An unreadable file is the config's problem; a bad line is the CSV's.
        for (const p of problems) P.push(p.line === undefined ? P.loc.problem([...at, 'csv'], p.message) : p);
        return undefined;
      }
      return { kind: 'csv', file: path, pairs };
    }
    case 'optdiag': {
      const m = zodCheck(MEASURED_SCHEMAS.optdiag, measured, at, P);
      if (!m) return undefined;
      const o = m.optdiag;
      const where: KeyPath = [...at, 'optdiag'];
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
      if (P.list.length === before && !(o.min <= o.avg && o.avg <= o.max)) P.add(where, `expected min ≤ avg ≤ max, found ${o.min}, ${o.avg}, ${o.max}`);
      if (o.insert_avg !== undefined && (o.insert_avg < o.min || o.insert_avg > o.max)) {
        P.add([...where, 'insert_avg'], `expected an average length at insert from min ${o.min} to max ${o.max}, found ${o.insert_avg}`);
      }
      if (o.forwarded !== undefined && o.forwarded > o.rows) P.add([...where, 'forwarded'], `expected at most ${o.rows} forwarded rows (rows), found ${o.forwarded}`);
      if (P.list.length > before) return undefined;
      return {
        kind: 'optdiag',
        rows: o.rows,
        min: o.min,
        avg: o.avg,
        max: o.max,
        forwarded: o.forwarded,
        insertAvg: o.insert_avg,
        now: maxEntropyLengths(o.min, o.max, o.avg),
        insert: o.insert_avg === undefined ? { kind: 'const', value: o.min } : maxEntropyLengths(o.min, o.max, o.insert_avg),
      };
    }
    case 'columns': {
      const m = zodCheck(MEASURED_SCHEMAS.columns, measured, at, P);
      if (!m) return undefined;
      if (rows === undefined) {
        P.add(['estimate'], 'expected estimate.rows (the table\'s row count) with measured column histograms, found none', true);
        return undefined;
      }
      const before = P.list.length;
      const values: Record<string, ValueSpec> = Object.create(null);
      const set: Record<string, SetSpec> = Object.create(null);
      for (const [name, spec] of Object.entries(m.columns)) {
        const where: KeyPath = [...at, 'columns', name];
        const col = table.columns.find((c) => c.name === name);
        if (!col) {
          const guess = nearest(name, table.columns.map((c) => c.name));
          P.add(where, `expected a column of table ${table.name}${guess ? ` (did you mean "${guess}"?)` : ''}, found "${name}"`, true);
          continue;
        }
        const side = (s: typeof spec.insert, key: 'insert' | 'now'): { length?: Dist; null: number } | undefined => {
          if (!s) return undefined;
          if ((s.null ?? 0) > 0 && !col.nullable) {
            P.add([...where, key, 'null'], `expected a NULL share only on a nullable column, found ${s.null} on ${name}, which is NOT NULL`);
          }
          return { null: s.null ?? 0, length: s.length === undefined ? undefined : resolveDist(s.length, [...where, key, 'length'], baseDir, P) };
        };
        const ins = side(spec.insert, 'insert');
        const now = side(spec.now, 'now');
        const atInsert = ins ?? now;
        if (atInsert) values[name] = atInsert;
        if (now) {
          if (now.length) set[name] = { kind: 'length', dist: now.length, null: now.null };
          else set[name] = { kind: 'null', null: now.null };
        }
      }
      if (P.list.length > before) return undefined;
      const workload: PhaseSpec[] = [{ op: 'insert', rows: { kind: 'count', n: rows }, values }];
      if (Object.keys(set).length) workload.push({ op: 'update', rows: { kind: 'all' }, order: { kind: 'random' }, transaction: 'statement', set });
      return { kind: 'columns', workload };
    }
  }
}
