/**
 * Load a config file: YAML → schema → resolved run specification. Every part goes through this one
 * loader: the storage workload with its sweep, and the sections other models own (contention, estimate),
 * each resolved by its own SectionLoader against the same problems list. Every problem is reported with
 * file, line, column, key path, what was expected and what was found (InputError).
 */
import { dirname, resolve as resolvePath } from 'node:path';
import { describeFound, InputError } from '../config/errors.js';
import type { YamlLocator } from '../config/locate.js';
import { topSchema } from '../config/schema.js';
import type { SweepPoint } from '../config/spec.js';
import { contentionSchema, explicitContentionKeys, type ContentionSpec } from '../contention/schema.js';
import { applyCalibrationFile } from './calibration.js';
import { resolveEstimateSection } from './estimate-section.js';
import type { EstimateConfig, EstimateOverrides } from '../estimate/types.js';
import { RUN_DEFAULTS } from '../config/defaults.js';
import { Problems, zodCheck } from './problems.js';
import type { SectionContext } from './section.js';
import { parseConfigSource, type ParsedConfig } from './source.js';
import { resolveEngine, resolveTable } from './storage.js';
import { checkSweep, sweepPoints } from './sweep.js';

/** The sections models other than the storage workload own, resolved. */
interface Sections {
  contention?: ContentionSpec;
  estimate?: EstimateConfig;
}

export interface RunConfig {
  file: string;
  name: string;
  seed: number;
  /** One storage point per sweep combination; empty when the config has no workload. */
  storage: SweepPoint[];
  sweepKeys: string[];
  sections: Sections;
  /** Positions of the config's keys, for problems found after loading (limits). */
  loc: YamlLocator;
}

/** Options of loadConfig. */
interface LoadOptions {
  /** Refuse sweeps (and contention grids) of more points than this (default RUN_DEFAULTS.maxSweepPoints). */
  maxPoints?: number;
  /** rowsim estimate: resolve the estimate section even when the config has none, with these overrides. */
  estimate?: EstimateOverrides;
  /** The file's YAML already read and parsed (parseConfigSource of the same file and text): not read again. */
  source?: ParsedConfig;
}

/** How one section is loaded: when present (or asked for), from its raw value and the shared context. */
interface SectionLoader<K extends keyof Sections> {
  key: K;
  /** It reads the config's table and engine settings (SectionContext.table, .engine). */
  needsTable: boolean;
  wanted(raw: unknown, options: LoadOptions): boolean;
  load(raw: unknown, ctx: SectionContext, options: LoadOptions): Sections[K] | undefined;
}

const CONTENTION: SectionLoader<'contention'> = {
  key: 'contention',
  needsTable: false,
  wanted: (raw) => raw !== undefined,
  load(raw, ctx, options) {
    const parsed = zodCheck(contentionSchema, raw, ['contention'], ctx.P);
    if (!parsed) return undefined;
    let spec: ContentionSpec = { ...parsed, explicit_keys: explicitContentionKeys(raw) };
    const maxPoints = options.maxPoints ?? RUN_DEFAULTS.maxSweepPoints;
    const cells = spec.sweep ? spec.sweep.cells.length : 1;
    const points = spec.buffer_managers.length * spec.engines.length * spec.users.length * cells;
    if (points > maxPoints) {
      const sizes = `${spec.buffer_managers.length} buffer managers × ${spec.engines.length} engine counts × ${spec.users.length} populations${cells > 1 ? ` × ${cells} sweep cells` : ''}`;
      ctx.P.add(
        ['contention', spec.sweep ? 'sweep' : 'users'],
        `expected at most ${maxPoints} contention points (raise the limit with --max-points N), found ${points} (${sizes})`,
      );
      return undefined;
    }
    if (typeof (raw as Record<string, unknown>).calibration === 'string') {
      const applied = applyCalibrationFile(spec, (raw as Record<string, string>).calibration!, ctx);
      if (!applied) return undefined;
      spec = applied;
    }
    return spec;
  },
};

const ESTIMATE: SectionLoader<'estimate'> = {
  key: 'estimate',
  needsTable: true,
  // `rowsim run` carries an estimate section along without resolving it; `rowsim estimate` needs it.
  wanted: (_raw, options) => options.estimate !== undefined,
  load: (raw, ctx, options) => resolveEstimateSection(raw, ctx, options.estimate ?? {}),
};

const SECTION_LOADERS = [CONTENTION, ESTIMATE] as const;

/** Parse, validate and resolve a config file. Throws InputError. */
export function loadConfig(file: string, text?: string, options: LoadOptions = {}): RunConfig {
  const { raw, loc } = options.source ?? parseConfigSource(file, text);
  const P = new Problems(loc);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    P.add([], `expected a mapping with name, table, engine and workload (or contention), found ${describeFound(raw)}`);
    throw new InputError(P.list);
  }
  const top = zodCheck(topSchema, raw, [], P);
  if (!top) throw new InputError(P.list);
  const obj = raw as Record<string, unknown>;
  const seed = top.seed ?? RUN_DEFAULTS.seed;
  const baseDir = dirname(resolvePath(file));
  const forEstimate = options.estimate !== undefined;

  // Storage: table, engine and workload; an estimate from measured rows needs no workload.
  const hasStorage = obj.table !== undefined || obj.engine !== undefined || obj.workload !== undefined;
  const needsWorkload = !(forEstimate && obj.workload === undefined);
  let storage: SweepPoint[] = [];
  if (hasStorage || forEstimate) {
    for (const [name, missing] of [
      ['table', obj.table === undefined],
      ['engine', obj.engine === undefined],
      ['workload', needsWorkload && obj.workload === undefined],
    ] as const) {
      if (missing) {
        const hint = name === 'workload' && obj.estimate !== undefined ? '; a config with measured data is for rowsim estimate' : '';
        P.add(
          [],
          `expected ${name === 'engine' ? 'an' : 'a'} ${name} section (${name === 'workload' ? 'a storage run needs table, engine and workload' : 'the table and its engine settings'}), found none${hint}`,
        );
      }
    }
    const maxPoints = options.maxPoints ?? RUN_DEFAULTS.maxSweepPoints;
    if (P.list.length === 0 && obj.workload !== undefined && checkSweep(obj, top.sweep ?? {}, maxPoints, P)) {
      storage = sweepPoints(obj, top.name, seed, baseDir, top.sweep ?? {}, P);
    }
  } else if (top.sweep) {
    P.add(
      ['sweep'],
      'expected sweep only with a storage run (table, engine, workload); contention takes lists directly and has its own sweep: contention.sweep',
      true,
    );
  }

  // Sections, against the config's table and engine (resolved again for them: a problem found twice is listed once).
  const ctx: SectionContext = { file, baseDir, name: top.name, seed, raw: obj, P };
  const wanted = SECTION_LOADERS.filter((loader) => loader.wanted(obj[loader.key], options));
  if (wanted.some((loader) => loader.needsTable)) {
    if (obj.table !== undefined) ctx.table = resolveTable(obj.table, baseDir, P);
    if (obj.engine !== undefined) ctx.engine = resolveEngine(obj.engine, P, ctx.table);
  }
  const sections: Sections = {};
  for (const loader of wanted) {
    const value = loader.load(obj[loader.key], ctx, options);
    if (value !== undefined) (sections as Record<string, unknown>)[loader.key] = value;
  }
  if (!hasStorage && Object.keys(sections).length === 0 && P.list.length === 0) {
    P.add([], 'expected table, engine and workload (a storage run) or contention, found neither');
  }
  if (P.list.length > 0) throw new InputError(P.list);
  return { file, name: top.name, seed, storage, sweepKeys: Object.keys(top.sweep ?? {}), sections, loc };
}

/**
 * The loading `rowsim run` and `rowsim validate` share: a config's `estimate:` section is checked as
 * `rowsim estimate` checks it (a run does not use it, but a section that cannot be used is a config
 * that cannot be used). validate checks it also in a config without a workload (one made for rowsim
 * estimate alone, which run refuses for its missing workload).
 */
export function checkedSections(raw: unknown, withoutWorkload: boolean): Pick<LoadOptions, 'estimate'> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const obj = raw as Record<string, unknown>;
  return obj.estimate !== undefined && (withoutWorkload || obj.workload !== undefined) ? { estimate: {} } : {};
}

/** Load a config for `rowsim estimate`: the whole config is checked, and its estimate section resolved. */
export function loadEstimateConfig(file: string, overrides: EstimateOverrides = {}, text?: string): EstimateConfig {
  const cfg = loadConfig(file, text, { estimate: overrides });
  return cfg.sections.estimate!;
}
