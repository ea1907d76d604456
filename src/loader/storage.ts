/**
 * The storage part of a config, resolved: the table (columns or DDL), the engine settings and the
 * workload phases with their length distributions (histogram CSVs read here).
 */
import { resolve as resolvePath } from 'node:path';
import { z } from 'zod';
import { DdlError, parseDdl } from '../table/ddl.js';
import { parseType, SchemaError } from '../config/column-types.js';
import {
  defaultEngineSpec,
  FORMAT_IDS,
  ddlGrammar,
  formatSettingsShape,
  getFormat,
  registryVersion,
  availableFormats,
  indexGeometries,
} from '../formats/registry.js';
import type { StorageFormat } from '../formats/format.js';
import { EngineSettingError, NULL_LEN, type TableLayout } from '../layout/table-layout.js';
import { nearest } from '../config/errors.js';
import { readInputText } from '../config/read.js';
import type { FormatSettings, Zod } from '../config/format-ids.js';
import {
  INDEX_SETTING_KEYS,
  type IndexInput,
  type FormatId,
  cacheSchema,
  costsSchema,
  commonEngineSettingsShape,
  tableSchema,
} from '../config/schema.js';
import type {
  EngineSettings,
  ColumnDef,
  ColumnStorage,
  EngineSpec,
  IndexDef,
  PhaseSpec,
  StorageSpec,
  TableDef,
  TableStorage,
  DdlSetting,
} from '../config/spec.js';
import { resolveDist, resolveWorkload } from './workload.js';
import { Problems, zodCheck } from './problems.js';
import { splitMultibyteDists } from './multibyte.js';
import { resolveCount } from '../util/units.js';
import { groupedNumber } from '../util/numbers.js';

/** `engine:`: the format, one of the registry's, the settings every format may read and those the formats declare (docs/config.md). */
export function engineSchema() {
  if (!engineSchemaKept || engineSchemaKept.version !== registryVersion()) {
    engineSchemaKept = { version: registryVersion(), schema: buildEngineSchema() };
  }
  return engineSchemaKept.schema;
}
let engineSchemaKept: { version: number; schema: ReturnType<typeof buildEngineSchema> } | undefined;

function buildEngineSchema() {
  const builders: Zod = { enum: z.enum, literal: z.literal, number: z.number, union: z.union, string: z.string, boolean: z.boolean };
  const formats = formatSettingsShape(builders) as unknown as {
    [K in keyof FormatSettings]-?: z.ZodOptional<z.ZodType<FormatSettings[K]>>;
  };
  return z.strictObject({ format: z.enum(FORMAT_IDS), ...commonEngineSettingsShape, ...formats });
}

export function resolveStorage(
  obj: Record<string, unknown>,
  name: string,
  seed: number,
  baseDir: string,
  P: Problems,
): StorageSpec | undefined {
  const before = P.list.length;
  const table = resolveTable(obj.table, baseDir, P);
  const engine = resolveEngine(obj.engine, P, table);
  if (!table || !engine) return undefined;
  const format = getFormat(engine.format);
  if (!format) {
    P.add(['engine', 'format'], `expected a format this version implements (${availableFormats().join(', ')}), found "${engine.format}"`);
    return undefined;
  }
  const workload = resolveWorkload(obj.workload, table, baseDir, P);
  if (!workload) return undefined;
  const spec: StorageSpec = { name, seed, table, engine, workload };
  const cache = obj.cache === undefined ? undefined : zodCheck(cacheSchema, obj.cache, ['cache'], P);
  if (cache) spec.cache = { pages: cache.pages, policy: cache.policy ?? 'lru' };
  const costs = obj.costs === undefined ? undefined : zodCheck(costsSchema, obj.costs, ['costs'], P);
  if (costs) spec.costs = { logical_read_ns: costs.logical_read, physical_read_ns: costs.physical_read ?? costs.logical_read };
  checkPhasesAgainstFormat(format, table, engine, workload, P);
  if ((cache || costs) && !workload.some((ph) => ph.op === 'select' || ph.op === 'read_lob')) {
    P.add(
      [cache ? 'cache' : 'costs'],
      `expected ${cache ? 'cache' : 'costs'} only with a read phase (select or read_lob) in the workload, found none`,
      true,
    );
  }
  checkUniqueDistinct(table, workload, P);
  checkColumnSettings(format, table, P);
  checkIndexSettings(
    format,
    table,
    Array.isArray((obj.table as { indexes?: unknown } | undefined)?.indexes) ? (obj.table as { indexes: unknown[] }).indexes.length : 0,
    P,
  );
  try {
    const layout = format.rows.layout(table, engine);
    format.resolve(engine, layout);
    const limit = format.rows.tableLimit?.(table, layout);
    if (limit) addTableProblem(table, limit, P);
    else if (layout.minRowBytes > layout.geometry.maxRowBytes) {
      addTableProblem(
        table,
        `expected rows that fit on a ${engine.page_size}-byte page (at most ${layout.geometry.maxRowBytes} bytes), found a shortest row of ${layout.minRowBytes} bytes`,
        P,
      );
    }
    checkIndexEntries(
      format,
      table,
      layout,
      Array.isArray((obj.table as { indexes?: unknown } | undefined)?.indexes) ? (obj.table as { indexes: unknown[] }).indexes.length : 0,
      P,
    );
  } catch (err) {
    if (err instanceof EngineSettingError) engineSettingProblem(err, obj.engine, table, P);
    else throw err;
  }
  checkLockScheme(table, engine, P);
  return P.list.length === before ? spec : undefined;
}

/** The phases' demands on the format: a LOB store for read_lob from the table, a comparison the server can make for a select's predicate. */
function checkPhasesAgainstFormat(format: StorageFormat, table: TableDef, engine: EngineSpec, workload: PhaseSpec[], P: Problems): void {
  workload.forEach((ph, i) => {
    if (ph.op === 'read_lob' && ph.store === 'table' && !format.reads.lobStore) {
      P.add(
        ['workload', i, 'read_lob', 'store'],
        `expected store: derby, or a format whose LOB storage rowsim models (${availableFormats()
          .filter((id) => getFormat(id).reads.lobStore)
          .join(', ')}), found ${format.id}, whose LOB storage is not modelled`,
      );
    }
    if (ph.op === 'select' && ph.predicate) {
      const column = table.columns.find((c) => c.name === ph.predicate!.column)!;
      const rule = format.reads.comparison(column, ph.predicate.parameter, engine);
      if (rule.access === 'error')
        P.add(
          ['workload', i, 'select', 'predicate', 'parameter'],
          `expected a parameter type the server can compare with ${column.name} (${column.type.sql}), found ${ph.predicate.parameterText}: ${rule.why}`,
        );
    }
  });
}

/**
 * A unique index cannot hold repeating keys: an insert phase whose `distinct` values of every column of
 * a unique index give fewer combinations than the phase's rows would make the server refuse the rows.
 */
function checkUniqueDistinct(table: TableDef, workload: PhaseSpec[], P: Problems): void {
  let live = 0;
  workload.forEach((ph, i) => {
    if (ph.op === 'delete') live -= Math.min(live, resolveCount(ph.rows, live));
    if (ph.op !== 'insert') return;
    const rows = resolveCount(ph.rows, live);
    live += rows;
    for (const idx of table.indexes) {
      if (!idx.unique) continue;
      const cols = idx.columns.map((c) => Object.keys(ph.values).find((k) => k.toLowerCase() === c.toLowerCase()));
      const distinct = cols.map((c) => (c === undefined ? undefined : ph.values[c]!.domain?.distinct));
      if (distinct.some((d) => d === undefined)) continue;
      const combinations = distinct.reduce<number>((a, d) => a * d!, 1);
      if (combinations < rows) {
        P.add(
          ['workload', i, 'insert', 'values', cols[0]!, 'distinct'],
          `expected keys unique index ${idx.name} can hold (${groupedNumber(rows)} rows need as many distinct keys), found ${distinct.join(' × ')} = ${groupedNumber(combinations)} distinct key${combinations === 1 ? '' : 's'}`,
        );
      }
    }
  });
}

/** A column's storage or character set the format refuses (PostgreSQL: a fixed-length type can only be plain). */
function checkColumnSettings(format: StorageFormat, table: TableDef, P: Problems): void {
  table.columns.forEach((col, i) => {
    const charsets = format.ddl?.charsets ?? [];
    if (col.type.characterSet !== undefined && !charsets.includes(col.type.characterSet))
      P.add(
        ['table', 'columns', i, 'type'],
        charsets.length === 0
          ? `expected a type without a character set (${format.dbmsName} columns take the engine's encoding), found ${col.type.characterSet}`
          : `expected a character set ${charsets.join(', ')} for column ${col.name}, found ${col.type.characterSet}`,
      );
    if (col.storage === undefined) return;
    try {
      format.rows.checkColumn?.(col);
    } catch (err) {
      if (!(err instanceof EngineSettingError)) throw err;
      P.add(['table', 'columns', i, err.key], `expected ${err.message}`);
    }
  });
}

/**
 * An index whose every entry is larger than the DBMS takes (PostgreSQL's BTMaxItemSize, 2,704 bytes on
 * 8k pages): the server would refuse every row, so the config is refused. Entries of some rows only
 * (a varying key) stop the run where the server refuses their statement (workload/index-refusal.ts).
 */
function checkIndexEntries(format: StorageFormat, table: TableDef, layout: TableLayout, given: number, P: Problems): void {
  const fromDdl = table.indexes.length - given;
  const shortest = new Uint16Array(Math.max(1, layout.varying.length));
  layout.varying.forEach((c, i) => (shortest[i] = c.nullable ? NULL_LEN : c.variableType ? 0 : c.fixedBytes));
  indexGeometries(format, table, layout).forEach((g, i) => {
    if (g.maxTupleBytes === undefined) return;
    const least = g.leafTupleBytes(shortest, 0);
    if (least <= g.maxTupleBytes) return;
    P.add(
      i >= fromDdl ? ['table', 'indexes', i - fromDdl] : ['table', 'ddl'],
      `expected index entries of at most ${g.maxTupleBytes} bytes (the largest a ${layout.geometry.pageBytes}-byte B-tree page takes), found every entry of index ${g.name} at least ${least} bytes: the server refuses every row (or the CREATE INDEX after the load)`,
    );
  });
}

/** The format's own ranges for the settings of the config's indexes (the last `given` of table.indexes; the DDL's at the line that sets them). */
function checkIndexSettings(format: StorageFormat, table: TableDef, given: number, P: Problems): void {
  const fromDdl = table.indexes.length - given;
  table.indexes.forEach((idx, i) => {
    try {
      format.indexes.checkIndex?.(idx);
    } catch (err) {
      if (!(err instanceof EngineSettingError)) throw err;
      if (i >= fromDdl) {
        P.add(['table', 'indexes', i - fromDdl, err.key], `expected ${err.message}`);
        return;
      }
      const at = table.storage?.indexOptions?.find((o) => o.index === idx.name && o.key === err.key) ?? table.storage?.created;
      if (at) addDdlProblem(table, at, `index ${idx.name}: ${err.key}: expected ${err.message}`, P);
      else P.add(['table', 'ddl'], `expected ${err.message}`);
    }
  });
}

export function resolveTable(raw: unknown, baseDir: string, P: Problems): TableDef | undefined {
  const t = zodCheck(tableSchema, raw, ['table'], P);
  if (!t) return undefined;
  if (t.columns && t.ddl) {
    P.add(['table', 'ddl'], 'expected either columns or ddl, found both', true);
    return undefined;
  }
  if (!t.ddl && !t.columns) {
    P.add(['table'], 'expected columns (a list of { name, type, null }) or ddl (CREATE TABLE text or a .sql file), found neither');
    return undefined;
  }
  const declared: DeclaredTable | undefined = t.ddl
    ? tableFromDdl(t.ddl, baseDir, P)
    : { columns: tableColumns(t.columns!, P), indexes: [] };
  if (!declared) return undefined;
  const { columns, indexes, storage } = declared;
  const tableName = t.name ?? declared.name;
  if (!tableName) {
    P.add(['table'], 'expected a table name (table.name), found none', true);
    return undefined;
  }
  addConfigIndexes(t.indexes ?? [], columns, indexes, P);
  checkIndexes(indexes, t.indexes?.length ?? 0, P);
  return storage ? { name: tableName, columns, indexes, storage } : { name: tableName, columns, indexes };
}

/** A table as its DDL or its `columns` declare it, before `table.indexes` and `table.name` are added. */
interface DeclaredTable {
  name?: string;
  columns: ColumnDef[];
  indexes: IndexDef[];
  storage?: TableStorage;
}

/** The columns, indexes, name and storage options of `table.ddl` (CREATE TABLE text or a .sql file). */
function tableFromDdl(ddl: string, baseDir: string, P: Problems): DeclaredTable | undefined {
  const isFile = !ddl.includes('\n') && /\.sql$/i.test(ddl.trim());
  const path = isFile ? resolvePath(baseDir, ddl.trim()) : undefined;
  let sql = ddl;
  if (path) {
    const read = readInputText(path);
    if (!read.ok) {
      P.add(['table', 'ddl'], `expected a readable .sql file at ${path}: ${read.problem}`);
      return undefined;
    }
    sql = read.text;
  }
  try {
    const parsed = parseDdl(sql);
    return {
      name: parsed.name,
      columns: parsed.columns,
      indexes: parsed.indexes,
      storage: { ...parsed.storage, ...(path ? { file: path } : {}) },
    };
  } catch (err) {
    if (!(err instanceof DdlError)) throw err;
    if (path) P.push({ file: path, line: err.line, column: err.column, message: err.message });
    else P.add(['table', 'ddl'], `DDL line ${err.line}, column ${err.column}: ${err.message}`);
    return undefined;
  }
}

/** `table.columns`: each type parsed, each name used once (a column whose type is wrong is left out, and said). */
function tableColumns(given: readonly { name: string; type: string; null?: boolean; storage?: ColumnStorage }[], P: Problems): ColumnDef[] {
  const columns: ColumnDef[] = [];
  const seen = new Map<string, number>();
  given.forEach((c, i) => {
    try {
      columns.push({ name: c.name, type: parseType(c.type), nullable: c.null ?? false, ...(c.storage ? { storage: c.storage } : {}) });
    } catch (err) {
      if (err instanceof SchemaError) P.add(['table', 'columns', i, 'type'], `expected ${err.message}`);
      else throw err;
    }
    const key = c.name.toLowerCase();
    if (seen.has(key))
      P.add(
        ['table', 'columns', i, 'name'],
        `expected a column name not used before, found "${c.name}" (also table.columns[${seen.get(key)!}].name)`,
      );
    seen.set(key, i);
  });
  return columns;
}

/** `table.indexes`, appended to the DDL's: each key column must be one of the table's. */
function addConfigIndexes(given: readonly IndexInput[], columns: ColumnDef[], indexes: IndexDef[], P: Problems): void {
  given.forEach((idx, i) => {
    idx.columns.forEach((c, j) => {
      if (!columns.some((col) => col.name.toLowerCase() === c.toLowerCase())) {
        const guess = nearest(
          c,
          columns.map((col) => col.name),
        );
        P.add(
          ['table', 'indexes', i, 'columns', j],
          `expected a column of the table${guess ? ` (did you mean "${guess}"?)` : ''}, found "${c}"`,
        );
      }
    });
    const settings = Object.fromEntries(INDEX_SETTING_KEYS.flatMap((k) => (idx[k] === undefined ? [] : [[k, idx[k]]])));
    const dedup = idx.deduplicate_items === undefined ? {} : { deduplicate_items: idx.deduplicate_items };
    indexes.push({
      name: idx.name,
      columns: idx.columns,
      unique: idx.unique ?? false,
      clustered: idx.clustered ?? false,
      ...settings,
      ...dedup,
      ...(idx.when === 'before_load' ? { when: 'before_load' as const } : {}),
    });
  });
}

/** Index names are unique per table, and a table's rows follow one order: at most one clustered index. (The last `given` came from table.indexes; the DDL reader checks its own.) */
function checkIndexes(indexes: IndexDef[], given: number, P: Problems): void {
  const fromDdl = indexes.length - given;
  const firstUse = new Map<string, number>();
  indexes.forEach((idx, i) => {
    const key = idx.name.toLowerCase();
    const before = firstUse.get(key);
    if (before === undefined) firstUse.set(key, i);
    else
      P.add(
        ['table', 'indexes', i - fromDdl, 'name'],
        `expected an index name not used before, found "${idx.name}" (also index ${before + 1})`,
      );
  });
  // One moment for every index: the run builds a table's indexes together (before the load or after it).
  const early = indexes.findIndex((idx) => idx.when === 'before_load');
  const late = indexes.findIndex((idx) => idx.when !== 'before_load');
  if (early >= 0 && late >= 0) {
    const at = Math.max(early, late);
    P.add(
      at >= fromDdl ? ['table', 'indexes', at - fromDdl, 'when'] : ['table', 'indexes', early - fromDdl, 'when'],
      `expected every index of the table created at the same moment (when: before_load on all of them, or on none), found ${indexes[early]!.name} before the load and ${indexes[late]!.name} after it`,
    );
  }
  const clustered = indexes.filter((idx) => idx.clustered);
  if (clustered.length > 1) {
    const second = indexes.indexOf(clustered[1]!);
    P.add(
      ['table', 'indexes', second - fromDdl, 'clustered'],
      `expected at most one clustered index, found ${clustered[1]!.name} after ${clustered[0]!.name}`,
    );
  }
}

/** The table options of a DDL that are engine settings, as the formats declare them (src/formats/registry.ts ddlGrammar). */
function ddlEngineKeys(): readonly string[] {
  return ddlGrammar().engineKeys;
}

/** The DDL's statement of `key` (a storage option of DdlStorage), if any. */
function ddlStated(storage: TableStorage, key: string): DdlSetting<number | string> | undefined {
  return (storage as Record<string, DdlSetting<number | string> | undefined>)[key];
}

/** Engine settings a table's DDL states, by the engine key they set (only the keys `format` reads). */
function tableEngineSettings(table: TableDef | undefined, format: FormatId): Record<string, number | string> {
  const s = table?.storage;
  if (!s) return {};
  const reads: readonly string[] = getFormat(format)?.settings ?? [];
  const out: Record<string, number | string> = {};
  for (const key of ddlEngineKeys()) {
    const v = ddlStated(s, key);
    if (v && reads.includes(key)) out[key] = v.value;
  }
  return out;
}

/** The DDL's statement of an engine setting that the config's engine section leaves unset: where it was written. */
export function ddlSettingSource(
  table: TableDef | undefined,
  key: string,
  rawEngine: unknown,
): { line: number; column: number; file?: string } | undefined {
  const given = rawEngine !== null && typeof rawEngine === 'object' ? (rawEngine as Record<string, unknown>)[key] : undefined;
  const s = table?.storage;
  if (given !== undefined || !s || !ddlEngineKeys().includes(key)) return undefined;
  const v = ddlStated(s, key);
  return v ? { line: v.line, column: v.column, file: s.file } : undefined;
}

/**
 * The engine settings the config's engine section sets to another value than the DDL states (the
 * section wins): one note each, as `rowsim estimate` reports them.
 */
export function ddlSettingsOverridden(table: TableDef, engine: EngineSpec, rawEngine: unknown): string[] {
  const s = table.storage;
  const reads: readonly string[] = getFormat(engine.format)?.settings ?? [];
  if (!s) return [];
  const current = engine as unknown as Record<string, unknown>;
  return ddlEngineKeys().flatMap((key) => {
    const stated = ddlStated(s, key);
    if (!stated || !reads.includes(key) || ddlSettingSource(table, key, rawEngine) || String(stated.value) === String(current[key]))
      return [];
    return [
      `engine.${key} ${current[key]} in the config is taken as the current setting, not the DDL's ${key} = ${stated.value} (line ${stated.line})`,
    ];
  });
}

/** A problem with a DDL-stated setting, at the DDL's line and column (the .sql file, or table.ddl when inline). */
function addDdlProblem(table: TableDef, at: { line: number; column: number }, message: string, P: Problems): void {
  const file = table.storage?.file;
  if (file) P.push({ file, line: at.line, column: at.column, message });
  else P.add(['table', 'ddl'], `DDL line ${at.line}, column ${at.column}: ${message}`);
}

/** A problem with the table as a whole: at its CREATE TABLE when it comes from DDL, else at `table.columns`. */
export function addTableProblem(table: TableDef, message: string, P: Problems): void {
  const at = table.storage?.created;
  if (at) addDdlProblem(table, at, message, P);
  else P.add(['table', table.storage ? 'ddl' : 'columns'], message);
}

/** The server's own limit on the table at CREATE TABLE (SQL Server's minimum row size, the most columns): a problem at the table. */
export function checkTableLimit(table: TableDef, engine: EngineSpec, P: Problems): void {
  const format = getFormat(engine.format);
  const limit = format.rows.tableLimit?.(table, format.rows.layout(table, engine));
  if (limit) addTableProblem(table, limit, P);
}

/** An engine setting the format refuses: at the config key, or at the DDL's `with …` when the DDL set it. */
export function engineSettingProblem(err: EngineSettingError, rawEngine: unknown, table: TableDef, P: Problems): void {
  const src = ddlSettingSource(table, err.key, rawEngine);
  if (src) addDdlProblem(table, src, `${err.key}: expected ${err.message}`, P);
  else P.add(['engine', err.key], `expected ${err.message}`);
}

/** The DDL's `lock` scheme against engine.format: an ASE table is data-only-locked (ase-dol) or allpages-locked (ase-apl). */
export function checkLockScheme(table: TableDef, engine: EngineSpec, P: Problems): void {
  const lock = table.storage?.lock;
  const accepts = getFormat(engine.format).ddlLocks;
  if (!lock || !accepts || accepts.includes(lock.value)) return;
  const other = availableFormats().find((id) => getFormat(id).ddlLocks?.includes(lock.value));
  addDdlProblem(
    table,
    lock,
    `expected lock ${accepts.join(' or ')} for engine.format ${engine.format}, found lock ${lock.value}${other ? ` (set engine.format: ${other} to model such a table)` : ''}`,
    P,
  );
}

/**
 * The engine settings: the config's engine section, with the settings the table's DDL states
 * (exp_row_size, fillfactor, PCTFREE) where the section leaves them unset; the rest defaults.
 */
export function resolveEngine(raw: unknown, P: Problems, table?: TableDef): EngineSpec | undefined {
  const split = splitMultibyteDists(raw, P);
  if (!split) return undefined;
  const e = zodCheck(engineSchema(), split.engine, ['engine'], P);
  if (!e) return undefined;
  if (e.multibyte_widths !== undefined) {
    if (e.multibyte_share !== undefined) {
      P.add(
        ['engine', 'multibyte_widths'],
        `expected either multibyte_share (the share of 2-byte characters) or multibyte_widths (shares of 2-, 3- and 4-byte characters), found both`,
      );
      return undefined;
    }
    const sum = Object.values(e.multibyte_widths).reduce<number>((s, v) => s + (v ?? 0), 0);
    if (sum > 1 + 1e-9) {
      P.add(
        ['engine', 'multibyte_widths'],
        `expected shares of the characters that add up to at most 1, found ${Math.round(sum * 1e6) / 1e6}`,
      );
      return undefined;
    }
  }
  const format = getFormat(e.format);
  const ignored = format ? Object.keys(e).filter((k) => k !== 'format' && !format.settings.includes(k as keyof EngineSettings)) : [];
  const spec = defaultEngineSpec(e.format, { ...tableEngineSettings(table, e.format), ...e, ignored });
  return split.vary ? { ...spec, multibyte_vary: split.vary } : spec;
}
export { resolveDist, resolveWorkload };
