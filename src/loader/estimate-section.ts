/**
 * The `estimate:` section of a config, validated with zod through the config loader's positioned
 * problems (file, line, column, key path). The config's `table:` and `engine:` are reused; the rows
 * come from `workload:` (insert + growth) or from `estimate.measured` (src/loader/estimate-measured.ts: a CSV
 * of per-row data lengths, per-column length histograms, optdiag figures, or the output of the DBA's
 * tools, which the estimate also calibrates to).
 */
import { z } from 'zod';
import type { FormatId } from '../config/schema.js';
import type { EngineSpec, TableDef } from '../config/spec.js';
import { zCount } from '../config/zunits.js';
import { availableFormats, FORMAT_IDS, getFormat, registryVersion } from '../formats/registry.js';
import { EngineSettingError } from '../layout/table-layout.js';
import { zodCheck } from './problems.js';
import type { SectionContext } from './section.js';
import { checkLockScheme, checkTableLimit, ddlSettingsOverridden, engineSettingProblem, resolveWorkload } from './storage.js';
import { engineFor, estimateKnob, KnobError, reserveKnob, type ReserveKnob, type Setting } from '../estimate/knob.js';
import { resolveMeasured } from './estimate-measured.js';
import {
  ESTIMATE_DEFAULTS,
  ESTIMATE_RANGES,
  MAINTENANCE_DEFAULTS,
  type EstimateConfig,
  type EstimateOverrides,
  type MaintenanceSpec,
} from '../estimate/types.js';

const settingSchema = z.union([z.number().int().min(0), z.literal('max')]);

/** estimate.maintenance: the reorg what-if (src/estimate/maintenance.ts). */
const maintenanceSchema = z.strictObject({
  every_days: z.number().int().min(1).max(365).optional(),
  days: z.number().int().min(1).max(3650).optional(),
  growth_per_day: zCount().optional(),
});

/** `estimate:` (docs/estimate.md): built again when a format joins the registry (estimate.formats names the registry's). */
export function estimateSchema() {
  if (!estimateSchemaKept || estimateSchemaKept.version !== registryVersion()) {
    estimateSchemaKept = { version: registryVersion(), schema: buildEstimateSchema() };
  }
  return estimateSchemaKept.schema;
}
let estimateSchemaKept: { version: number; schema: ReturnType<typeof buildEstimateSchema> } | undefined;

const buildEstimateSchema = () =>
  z.strictObject({
    rows: z.number().int().positive().optional(),
    target_pct: z.number().positive().max(100).optional(),
    seeds: z.number().int().min(ESTIMATE_RANGES.seeds.min).max(ESTIMATE_RANGES.seeds.max).optional(),
    sample_rows: z.number().int().min(ESTIMATE_RANGES.sample_rows.min).max(ESTIMATE_RANGES.sample_rows.max).optional(),
    candidates: z
      .union([
        z.array(settingSchema).min(1),
        z.strictObject({ from: z.number().int().min(0), to: settingSchema, step: z.number().int().positive().optional() }),
      ])
      .optional(),
    refine: z.boolean().optional(),
    formats: z.array(z.enum(FORMAT_IDS)).optional(),
    measured: z.unknown().optional(),
    maintenance: maintenanceSchema.optional(),
  });

/**
 * The `estimate:` section (rowsim estimate), resolved against the config's table and engine: loaded by
 * the one config loader (src/loader/config.ts) like every section. Problems go to ctx.P; undefined when
 * the section cannot be resolved.
 */
export function resolveEstimateSection(rawSection: unknown, ctx: SectionContext, overrides: EstimateOverrides): EstimateConfig | undefined {
  const { P, table, engine } = ctx;
  const est = zodCheck(estimateSchema(), rawSection ?? {}, ['estimate'], P) ?? undefined;
  if (!table || !engine || !est) return undefined;
  const notes: string[] = [];
  const knob = primaryKnob(ctx, table, engine, notes);
  if (!knob) return undefined;
  const formats = otherFormats(ctx, est.formats, overrides.formats, table, engine);
  checkCandidates(ctx, est.candidates, knob, table, engine);
  const rows = source(ctx, rawSection, overrides, est.rows ?? overrides.rows, notes);
  if (!rows) return undefined;
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
    source: rows.source,
    ...(rows.evidence ? { evidence: rows.evidence } : {}),
    fit: rows.fit,
    ...('partitions' in rows && rows.partitions ? { partitions: rows.partitions } : {}),
    maintenance: maintenance(est.maintenance),
    notes: [...notes, ...rows.notes],
  };
}

/** The config's format: its settings valid, its lock scheme the DDL's, and a knob to tune (or none, SQL Server heaps). */
function primaryKnob(ctx: SectionContext, table: TableDef, engine: EngineSpec, notes: string[]): ReserveKnob | undefined {
  const { P } = ctx;
  const format = getFormat(engine.format);
  const layout = format.rows.layout(table, engine);
  try {
    format.resolve(engine, layout);
  } catch (err) {
    if (err instanceof EngineSettingError) engineSettingProblem(err, ctx.raw.engine, table, P);
    else throw err;
  }
  checkLockScheme(table, engine, P);
  checkTableLimit(table, engine, P);
  notes.push(...ddlSettingsOverridden(table, engine, ctx.raw.engine));
  try {
    return estimateKnob(engine.format, layout, engine);
  } catch (err) {
    if (!(err instanceof KnobError)) throw err;
    P.add(['engine', 'format'], `expected ${err.message}, found "${engine.format}"`);
    return undefined;
  }
}

/** The config's format first, then the other formats asked for (with a reserve knob each). */
function otherFormats(
  ctx: SectionContext,
  fromConfig: FormatId[] | undefined,
  fromCli: FormatId[] | undefined,
  table: TableDef,
  engine: EngineSpec,
): FormatId[] {
  const formats: FormatId[] = [engine.format];
  (fromCli ?? fromConfig ?? []).forEach((f, i) => {
    const add = (message: string) => {
      if (fromCli) ctx.P.push({ file: '--formats', message });
      else ctx.P.add(['estimate', 'formats', i], message);
    };
    if (formats.includes(f)) return;
    if (!getFormat(f)) {
      add(`expected a format this version implements (${availableFormats().join(', ')}), found "${f}"`);
      return;
    }
    const e = engineFor(engine, f);
    try {
      reserveKnob(f, getFormat(f)!.rows.layout(table, e), e);
    } catch (err) {
      if (!(err instanceof KnobError)) throw err;
      add(`expected ${err.message}, found "${f}"`);
      return;
    }
    formats.push(f);
  });
  return formats;
}

/** Candidates: values the DBMS accepts for this table. */
function checkCandidates(
  ctx: SectionContext,
  candidates: z.infer<ReturnType<typeof buildEstimateSchema>>['candidates'],
  knob: ReserveKnob,
  table: TableDef,
  engine: EngineSpec,
): void {
  if (!candidates) return;
  const { P } = ctx;
  const ok = (v: Setting) => (v !== 'max' && v >= knob.min && v <= knob.max) || knob.specials.some((s) => s.setting === v);
  const range = `${knob.min} to ${knob.max}${knob.specials.length ? ` or ${knob.specials.map((s) => s.setting).join(', ')}` : ''}`;
  const bad = (at: (string | number)[], v: Setting) =>
    P.add(
      ['estimate', 'candidates', ...at],
      `expected a ${knob.key} ${engine.format} accepts for table ${table.name} (${range}), found ${v}`,
    );
  if (Array.isArray(candidates)) {
    candidates.forEach((v, i) => {
      if (!ok(v)) bad([i], v);
    });
    return;
  }
  const { from, to } = candidates;
  if (!ok(from)) bad(['from'], from);
  if (!ok(to)) bad(['to'], to);
  const toValue = to === 'max' ? knob.max : to;
  if (ok(from) && ok(to) && from > toValue) P.add(['estimate', 'candidates'], `expected from ≤ to, found from ${from} and to ${to}`);
}

/** Where the rows come from: estimate.measured (and files on the command line) or the workload. */
function source(ctx: SectionContext, rawSection: unknown, overrides: EstimateOverrides, rows: number | undefined, notes: string[]) {
  const { P, table, engine, baseDir } = ctx;
  const obj = ctx.raw;
  const measured = (rawSection as Record<string, unknown> | undefined)?.measured;
  const cli = overrides.measured ?? {};
  if (measured !== undefined || Object.keys(cli).length) {
    if (obj.workload !== undefined) notes.push('estimate.measured is given: the workload section is not used by rowsim estimate');
    const layout = getFormat(engine!.format).rows.layout(table!, engine!);
    return resolveMeasured(measured, { table: table!, engine: engine!, layout, baseDir, P, rows }, cli);
  }
  if (obj.workload === undefined) {
    P.add(
      ['estimate'],
      'expected the rows to simulate: a workload section (insert, then growth) or estimate.measured (csv, columns, optdiag, sp_spaceused, index_physical_stats, pgstattuple or pg_stat_user_tables), found neither',
      true,
    );
    return undefined;
  }
  const workload = resolveWorkload(obj.workload, table!, baseDir, P);
  if (!workload) return undefined;
  let end = workload.length;
  while (end > 0 && workload[end - 1]!.op === 'reorg') end--;
  if (end < workload.length)
    notes.push('the workload ends with a reorg: the estimate looks at the table before it (a reorg would hide the forwarding)');
  if (end === 0) {
    P.add(['workload'], 'expected at least one insert before any reorg, found only reorgs');
    return undefined;
  }
  if (!workload.slice(0, end).some((p) => p.op === 'update'))
    notes.push('the workload has no update: rows never grow, so nothing is forwarded whatever the setting');
  return {
    source: { kind: 'workload' as const, workload: workload.slice(0, end) },
    fit: false,
    notes: [] as string[],
    evidence: undefined,
  };
}

function maintenance(m: z.infer<typeof maintenanceSchema> | undefined): MaintenanceSpec {
  const every = m?.every_days ?? MAINTENANCE_DEFAULTS.every_days;
  const assumed: string[] = [];
  if (m?.every_days === undefined) assumed.push(`every_days ${every}`);
  if (m?.growth_per_day === undefined) assumed.push('growth_per_day 1%');
  return {
    every_days: every,
    days: m?.days ?? every * MAINTENANCE_DEFAULTS.periods,
    growth_per_day: m?.growth_per_day ?? MAINTENANCE_DEFAULTS.growth_per_day,
    assumed,
  };
}
