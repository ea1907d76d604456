/**
 * The registry of storage formats, and the engine defaults derived from them once: every setting's
 * default is declared by the format that reads it (StorageFormat.defaults); the page size by each
 * format's defaultPageBytes. Adding a format: one module with its StorageFormat (which adds its id to
 * FormatIds), one line in BUILT_IN. The compiler refuses a registry without a line for a declared id, or
 * with a line for an undeclared one.
 */
import type { EvidenceKind } from '../config/evidence-kinds.js';
import type { DbmsId, FormatId, SettingsFragment, Zod } from '../config/format-ids.js';
import type { EngineSettings, EngineSpec, TableDef } from '../config/spec.js';
import { keyColumns, type IndexGeometry } from '../btree/geometry.js';
import { addColumnTypes } from '../config/column-types.js';
import type { TableLayout } from '../layout/table-layout.js';
import { aseApl, aseDol } from './ase.js';
import type { StorageFormat } from './format.js';
import type { DdlClauses, DdlGrammar, OptionRule } from '../config/ddl-clauses.js';
import { oracleHeap } from './oracle.js';
import { postgresHeap } from './postgres.js';
import { sqlserverHeap } from './sqlserver.js';
import { innodb } from './innodb.js';

const BUILT_IN = {
  'ase-dol': aseDol,
  'ase-apl': aseApl,
  'sqlserver-heap': sqlserverHeap,
  'postgres-heap': postgresHeap,
  'oracle-heap': oracleHeap,
  innodb,
} as const satisfies Record<FormatId, StorageFormat>;

const FORMATS: Record<string, StorageFormat> = { ...BUILT_IN };

/** Every format's id, in the registry's order (the order of `rowsim rowsize` and of the reference). */
export const FORMAT_IDS = Object.keys(FORMATS) as [FormatId, ...FormatId[]];
for (const id of FORMAT_IDS) {
  if (FORMATS[id]!.id !== id) throw new Error(`the registry files format ${FORMATS[id]!.id} under ${id}`);
  checkDbmsName(FORMATS[id]!);
}

/** Formats of one DBMS give it one name. */
function checkDbmsName(format: StorageFormat): void {
  const other = Object.values(FORMATS).find((f) => f.dbms === format.dbms && f.dbmsName !== format.dbmsName);
  if (other) throw new Error(`formats ${other.id} and ${format.id} name DBMS ${format.dbms} ${other.dbmsName} and ${format.dbmsName}`);
}

for (const format of Object.values(FORMATS)) if (format.columnTypes) addColumnTypes(format.columnTypes, format.id);

let version = 0;

/**
 * Add a format after the built-in ones (a test's or an extension's module): its id, settings, defaults,
 * DDL clauses and column types join the registry's as if it had a line in BUILT_IN.
 */
export function registerFormat(format: StorageFormat): void {
  if (isFormatId(format.id)) throw new Error(`format ${format.id} is in the registry already`);
  checkDbmsName(format);
  if (format.columnTypes) addColumnTypes(format.columnTypes, format.id);
  FORMATS[format.id] = format;
  FORMAT_IDS.push(format.id);
  version++;
  Object.assign(ENGINE_DEFAULTS, mergeDefaults());
}

/** Bumped whenever a format is registered: what is derived from the registry and kept is derived again. */
export function registryVersion(): number {
  return version;
}

export function getFormat(id: FormatId): StorageFormat {
  return FORMATS[id]!;
}

export function availableFormats(): FormatId[] {
  return [...FORMAT_IDS];
}

/**
 * The format a table is taken to be in when only its DBMS's tool outputs say (rowsim estimate --ddl
 * without --format): the first format whose DBMS produces one of them, else the registry's first.
 */
export function formatForEvidence(kinds: readonly EvidenceKind[]): FormatId {
  return FORMAT_IDS.find((id) => FORMATS[id]!.evidence.some((k) => kinds.includes(k))) ?? FORMAT_IDS[0];
}

/** The name of a DBMS in messages (SAP ASE, PostgreSQL …), as the formats that model it give it. */
export function dbmsName(dbms: DbmsId): string {
  return Object.values(FORMATS).find((f) => f.dbms === dbms)?.dbmsName ?? dbms;
}

/** The DBMS whose tools produce `kind` (optdiag: ASE): the DBMS of the formats that read it; undefined where formats of two DBMSs read it (sp_spaceused). */
export function evidenceDbms(kind: EvidenceKind): DbmsId | undefined {
  const dbmses = new Set(
    Object.values(FORMATS)
      .filter((f) => f.evidence.includes(kind))
      .map((f) => f.dbms),
  );
  return dbmses.size === 1 ? [...dbmses][0] : undefined;
}

/** Whether `name` is the id of a format this version has. */
export function isFormatId(name: string): name is FormatId {
  return Object.hasOwn(FORMATS, name);
}

/**
 * Every engine setting's default, merged from the formats that own them. Two formats that read one
 * setting must agree on its default: checked here, once, when the module loads.
 */
export const ENGINE_DEFAULTS: Readonly<Omit<EngineSettings, 'page_size'>> = mergeDefaults();

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

/**
 * The engine settings the formats declare, as one zod shape (the config loader adds the common settings
 * and `format`): each format's fragment in the registry's order. A fragment two formats share is taken
 * once; two fragments that declare one key are refused.
 */
export function formatSettingsShape(zod: Zod): ReturnType<SettingsFragment> {
  const shape: ReturnType<SettingsFragment> = {};
  const owner: Record<string, FormatId> = {};
  const seen = new Set<SettingsFragment>();
  for (const format of Object.values(FORMATS) as StorageFormat[]) {
    const fragment = format.settingsShape;
    if (!fragment || seen.has(fragment)) continue;
    seen.add(fragment);
    for (const [key, schema] of Object.entries(fragment(zod))) {
      if (key in shape) throw new Error(`formats ${owner[key]} and ${format.id} both declare engine setting ${key}: share one fragment`);
      shape[key] = schema;
      owner[key] = format.id;
    }
  }
  return shape;
}

let grammarKept: { version: number; grammar: DdlGrammar } | undefined;

/**
 * Every format's DDL storage clauses joined, in the registry's order, for the DDL reader (one DDL serves
 * every format: the reader reads what any format's DDL may state). Two formats that read one clause
 * must read it alike.
 */
export function ddlGrammar(): DdlGrammar {
  if (grammarKept?.version === version) return grammarKept.grammar;
  const locks = new Map<string, string>();
  const join = (part: 'with' | 'withParens' | 'words' | 'indexWords' | 'assignments') => {
    const merged: Record<string, OptionRule> = {};
    for (const format of Object.values(FORMATS)) {
      for (const [name, rule] of Object.entries(format.ddl?.[part] ?? {})) {
        if (name in merged && JSON.stringify(merged[name]) !== JSON.stringify(rule))
          throw new Error(`format ${format.id} reads DDL option ${name} otherwise than a format before it`);
        merged[name] = rule;
      }
    }
    return merged;
  };
  const harmless = new Set<NonNullable<DdlClauses['harmlessParameters']>>();
  const signs: DdlGrammar['signs'][number][] = [];
  const engineKeys: string[] = [];
  const nullableByDefault = new Set<string>();
  const charsets = new Set<string>();
  for (const format of Object.values(FORMATS)) {
    if (format.ddl?.nullableByDefault) nullableByDefault.add(format.dbms);
    for (const c of format.ddl?.charsets ?? []) charsets.add(c);
    for (const lock of [...(format.ddlLocks ?? [])].sort()) locks.set(lock.toUpperCase(), format.dbms);
    if (format.ddl?.harmlessParameters) harmless.add(format.ddl.harmlessParameters);
    const comments = Object.values(format.ddl?.assignments ?? {}).flatMap((r) => (r.kind === 'comment' ? [r.settings] : []));
    for (const rules of [format.ddl?.with, format.ddl?.withParens, format.ddl?.words, format.ddl?.assignments, ...comments]) {
      for (const rule of Object.values(rules ?? {})) {
        if (rule.kind !== 'setting' && rule.kind !== 'word') continue;
        if (rule.sign && !signs.some((s) => s.key === rule.key)) signs.push({ key: rule.key, sign: rule.sign, dbms: format.dbms });
        if (rule.engine && !engineKeys.includes(rule.key)) engineKeys.push(rule.key);
      }
    }
  }
  const grammar: DdlGrammar = {
    locks: new Map([...locks].sort(([a], [b]) => a.localeCompare(b))),
    with: join('with'),
    withParens: join('withParens'),
    harmlessParameters: [...harmless],
    words: join('words'),
    indexWords: join('indexWords'),
    assignments: join('assignments'),
    signs,
    engineKeys,
    nullableByDefault,
    charsets: [...charsets],
  };
  grammarKept = { version, grammar };
  return grammar;
}

/** Engine settings for `format` with every default filled; `given` overrides (undefined keys ignored). */
export function defaultEngineSpec(format: FormatId, given: Partial<EngineSpec> = {}): EngineSpec {
  const spec: EngineSpec = { ...ENGINE_DEFAULTS, page_size: FORMATS[format]!.defaultPageBytes, format, ignored: [] };
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
  spec.encoding = FORMATS[format]!.encodingFor(spec.encoding);
  return spec;
}

/** The B-tree geometries of a table's indexes in `format`. */
export function indexGeometries(format: StorageFormat, table: TableDef, layout: TableLayout): IndexGeometry[] {
  return table.indexes.map((idx) => format.indexes.indexGeometry(table, layout, idx, keyColumns(table, idx)));
}
