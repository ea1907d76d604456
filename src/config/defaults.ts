/**
 * The engine settings a config gets when it leaves them out: one place for every command (run,
 * rowsize, estimate), the benchmarks and the tests.
 */
import type { FormatId } from './schema.js';
import type { EngineSpec } from './spec.js';

/** Per-format default page size [storage-ase.md A; storage-other-engines.md]. */
export const DEFAULT_PAGE_BYTES: Record<FormatId, number> = {
  'ase-dol': 2048,
  'ase-apl': 2048,
  'sqlserver-heap': 8192,
  'postgres-heap': 8192,
  'oracle-heap': 8192,
};

/** Engine settings for `format` with every default filled; `given` overrides (undefined keys ignored). */
export function defaultEngineSpec(format: FormatId, given: Partial<EngineSpec> = {}): EngineSpec {
  const spec: EngineSpec = {
    format,
    page_size: DEFAULT_PAGE_BYTES[format],
    exp_row_size: 0,
    default_exp_row_size_percent: 5,
    exp_row_size_basis: 'physical',
    compaction: 'on',
    fillfactor: 100,
    pctfree: 10,
    pctused: 40,
    encoding: 'latin1',
    multibyte_share: 0,
    pfs_bands: 'on',
    move_back_home: 'on',
    row_versioning: 'off',
    ignored: [],
  };
  for (const [key, value] of Object.entries(given)) {
    if (value !== undefined) (spec as unknown as Record<string, unknown>)[key] = value;
  }
  return spec;
}

/**
 * The config's engine settings carried over to `format` (for rowsize and estimate, which look at one
 * table in several formats): the same settings, with the format's own default page size unless it is
 * the config's format.
 */
export function engineForFormat(base: EngineSpec | undefined, format: FormatId): EngineSpec {
  if (base?.format === format) return { ...base, ignored: [] };
  return defaultEngineSpec(format, { ...base, format, page_size: undefined, ignored: [] });
}
