/**
 * The registry of storage formats, and the engine defaults derived from them once: every setting's
 * default is declared by the format that reads it (StorageFormat.defaults); the page size by each
 * format's defaultPageBytes. Adding a format: one module with its StorageFormat (which adds its id to
 * FormatIds), one line in FORMATS. The compiler refuses a registry without a line for a declared id, or
 * with a line for an undeclared one.
 */
import type { EvidenceKind } from '../config/evidence-kinds.js';
import type { FormatId } from '../config/format-ids.js';
import type { EngineSettings, EngineSpec, TableDef } from '../config/spec.js';
import { keyColumns, type IndexGeometry } from '../btree/geometry.js';
import type { TableLayout } from '../layout/table-layout.js';
import { aseApl, aseDol } from './ase.js';
import type { StorageFormat } from './format.js';
import { oracleHeap } from './oracle.js';
import { postgresHeap } from './postgres.js';
import { sqlserverHeap } from './sqlserver.js';

const FORMATS = {
  'ase-dol': aseDol,
  'ase-apl': aseApl,
  'sqlserver-heap': sqlserverHeap,
  'postgres-heap': postgresHeap,
  'oracle-heap': oracleHeap,
} as const satisfies Record<FormatId, StorageFormat>;

/** Every format's id, in the registry's order (the order of `rowsim rowsize` and of the reference). */
export const FORMAT_IDS = Object.keys(FORMATS) as [FormatId, ...FormatId[]];
for (const id of FORMAT_IDS) {
  if (FORMATS[id].id !== id) throw new Error(`the registry files format ${FORMATS[id].id} under ${id}`);
}

export function getFormat(id: FormatId): StorageFormat {
  return FORMATS[id];
}

export function availableFormats(): FormatId[] {
  return [...FORMAT_IDS];
}

/**
 * The format a table is taken to be in when only its DBMS's tool outputs say (rowsim estimate --ddl
 * without --format): the first format whose DBMS produces one of them, else the registry's first.
 */
export function formatForEvidence(kinds: readonly EvidenceKind[]): FormatId {
  return FORMAT_IDS.find((id) => FORMATS[id].evidence.some((k) => kinds.includes(k))) ?? FORMAT_IDS[0];
}

/** Whether `name` is the id of a format this version has. */
export function isFormatId(name: string): name is FormatId {
  return Object.hasOwn(FORMATS, name);
}

/**
 * Every engine setting's default, merged from the formats that own them. Two formats that read one
 * setting must agree on its default: checked here, once, when the module loads.
 */
export const ENGINE_DEFAULTS: Readonly<Omit<EngineSettings, 'page_size'>> = Object.freeze(mergeDefaults());

function mergeDefaults(): Omit<EngineSettings, 'page_size'> {
  const merged: Record<string, unknown> = {};
  const owner: Record<string, FormatId> = {};
  for (const format of Object.values(FORMATS)) {
    for (const [key, value] of Object.entries(format.defaults)) {
      if (key in merged && merged[key] !== value) {
        throw new Error(
          `formats ${owner[key]} and ${format.id} disagree on the default of ${key}: ${String(merged[key])} and ${String(value)}`,
        );
      }
      merged[key] = value;
      owner[key] ??= format.id;
    }
  }
  return merged as Omit<EngineSettings, 'page_size'>;
}

/** Engine settings for `format` with every default filled; `given` overrides (undefined keys ignored). */
export function defaultEngineSpec(format: FormatId, given: Partial<EngineSpec> = {}): EngineSpec {
  const spec: EngineSpec = { ...ENGINE_DEFAULTS, page_size: FORMATS[format].defaultPageBytes, format, ignored: [] };
  for (const [key, value] of Object.entries(given)) {
    if (value !== undefined) (spec as unknown as Record<string, unknown>)[key] = value;
  }
  return spec;
}

/**
 * The config's engine settings carried over to `format` (rowsize and estimate look at one table in
 * several formats): the same settings, the format's own default page size unless it is the config's
 * format, and an encoding the format has.
 */
export function engineForFormat(base: EngineSpec | undefined, format: FormatId): EngineSpec {
  if (base?.format === format) return { ...base, ignored: [] };
  const spec = defaultEngineSpec(format, { ...base, format, page_size: undefined, ignored: [] });
  spec.encoding = FORMATS[format].encodingFor(spec.encoding);
  return spec;
}

/** The B-tree geometries of a table's indexes in `format`. */
export function indexGeometries(format: StorageFormat, table: TableDef, layout: TableLayout): IndexGeometry[] {
  return table.indexes.map((idx) => format.indexGeometry(table, layout, idx, keyColumns(table, idx)));
}
