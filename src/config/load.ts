/**
 * Load a config file: YAML → schema → resolved run specification. Every problem is reported with
 * file, line, column, key path, what was expected and what was found (InputError).
 */
import { dirname, resolve as resolvePath } from 'node:path';
import { LineCounter, isAlias, isScalar, parseAllDocuments, parseDocument, visit, type Document } from 'yaml';
import type { z } from 'zod';
import { DdlError, parseDdl } from '../table/ddl.js';
import { parseType, SchemaError } from '../table/column-types.js';
import { defaultEngineSpec, getFormat, availableFormats } from '../formats/registry.js';
import { EngineSettingError } from '../formats/types.js';
import { parseCount } from '../util/units.js';
import { describeFound, InputError, keyPathString, MAX_REPORTED_PROBLEMS, nearest, type InputProblem, type KeyPath, YamlLocator } from './errors.js';
import { readInputText } from './read.js';
import {
  FORMAT_IDS,
  ORDER_RE,
  PHASE_KINDS,
  PHASE_SCHEMAS,
  engineSchema,
  tableSchema,
  topSchema,
  type DistInput,
  type FormatId,
} from './schema.js';
import type {
  EngineSettings,
  ColumnDef,
  Dist,
  EngineSpec,
  IndexDef,
  Order,
  PhaseSpec,
  SetSpec,
  StorageSpec,
  SweepPoint,
  TableDef,
  ValueSpec,
} from './spec.js';
import { sectionSchemas, type SectionResults } from './sections.js';

export const DEFAULT_SEED = 42;

export interface RunConfig {
  file: string;
  name: string;
  seed: number;
  /** One storage point per sweep combination; empty when the config has no table/workload. */
  storage: SweepPoint[];
  sweepKeys: string[];
  sections: SectionResults;
  /** Positions of the config's keys, for problems found after loading (limits). */
  loc: YamlLocator;
}


export class Problems {
  list: InputProblem[] = [];
  constructor(readonly loc: YamlLocator) {}
  add(path: KeyPath, message: string, preferKey = false): void {
    // Past the reported few, a problem is only counted: locating it would make checking a file with
    // thousands of mistakes quadratic.
    if (this.list.length >= MAX_REPORTED_PROBLEMS) this.list.push({ file: this.loc.file, message });
    else this.list.push(this.loc.problem(path, message, preferKey));
  }
}

/** The largest sweep a run accepts unless --max-points says otherwise. */
export const DEFAULT_MAX_SWEEP_POINTS = 1000;

/** Options of loadConfig. */
export interface LoadOptions {
  /** Refuse sweeps of more points than this (default DEFAULT_MAX_SWEEP_POINTS). */
  maxPoints?: number;
}

/** A parsed config document: the plain value and a locator for positioned problems. */
export interface ParsedConfig {
  raw: unknown;
  loc: YamlLocator;
}

/** Alias expansions a config may use; more is a resource-exhaustion attack ("billion laughs"). */
export const MAX_ALIAS_EXPANSIONS = 100;

/** Read and parse a config file's YAML (no schema yet). Throws InputError on unreadable or invalid YAML. */
export function parseConfigSource(file: string, text?: string): ParsedConfig {
  let source = text;
  if (source === undefined) {
    const read = readInputText(file);
    if (!read.ok) throw new InputError([{ file, message: `expected ${read.problem}` }]);
    source = read.text;
  }
  const lines = new LineCounter();
  // Duplicate keys are found below in linear time (the parser's own uniqueKeys check is quadratic).
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  const loc = new YamlLocator(doc, lines, file);
  const at = (offset: number) => {
    const pos = lines.linePos(offset);
    return { file, line: pos.line, column: pos.col };
  };
  if (doc.errors.length > 0) {
    throw new InputError(
      doc.errors.map((e) =>
        e.code === 'MULTIPLE_DOCS'
          ? { ...at(e.pos[0]), message: 'expected one YAML document, found a second one (after ---): run, validate and estimate read one config per file; rowsize and pg-check read several' }
          : { ...at(e.pos[0]), message: `expected valid YAML: ${e.message.split('\n')[0]}` },
      ),
    );
  }
  const problems: InputProblem[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Map<unknown, number>();
      for (const pair of map.items) {
        if (!isScalar(pair.key) || !pair.key.range) continue;
        const key = pair.key.value;
        const first = seen.get(key);
        if (first === undefined) seen.set(key, pair.key.range[0]);
        else if (problems.length < MAX_REPORTED_PROBLEMS) problems.push({ ...at(pair.key.range[0]), message: `expected each key once in a mapping, found "${String(key)}" again (first at line ${lines.linePos(first).line})` });
      }
    },
    Pair(_, pair) {
      // `null: true` is a key in the config format: YAML reads an unquoted null key as the null value.
      if (isScalar(pair.key) && pair.key.value === null) pair.key.value = pair.key.source || 'null';
      // A key that would set an object's prototype is never a config key.
      if (isScalar(pair.key) && pair.key.value === '__proto__' && pair.key.range) {
        problems.push({ ...at(pair.key.range[0]), message: 'expected a config key, found "__proto__"' });
      }
    },
  });
  if (problems.length) throw new InputError(problems);
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: MAX_ALIAS_EXPANSIONS });
  } catch (err) {
    throw new InputError([aliasProblem(doc, file, at, err)]);
  }
  return { raw, loc };
}

/** Where and why an alias could not be expanded: an undefined anchor, or too many expansions. */
type Position = { file: string; line?: number; column?: number };

function aliasProblem(doc: Document, file: string, at: (offset: number) => Position, err: unknown): InputProblem {
  let first: Position | undefined;
  let unresolved: InputProblem | undefined;
  visit(doc, {
    Alias(_, node) {
      const pos = node.range ? at(node.range[0]) : { file };
      first ??= pos;
      if (!unresolved && isAlias(node) && node.resolve(doc) === undefined) unresolved = { ...pos, message: `expected an alias of an anchor defined before it, found *${node.source} with no anchor &${node.source} above` };
    },
  });
  if (unresolved) return unresolved;
  if (/alias count/i.test((err as Error).message ?? '')) {
    return { ...(first ?? { file }), message: `expected aliases that expand to at most ${MAX_ALIAS_EXPANSIONS} nodes, found more (a YAML alias bomb?)` };
  }
  return { ...(first ?? { file }), message: `expected valid YAML aliases: ${(err as Error).message ?? String(err)}` };
}

/**
 * The documents of a YAML file of several configs separated by `---` (rowsize and pg-check read such
 * files), each as a text that keeps its line and column numbers in the file: the text before the
 * document is blanked out except for its line breaks. A file of one document gives one text. Throws
 * InputError when the file cannot be read.
 */
export function configDocuments(file: string): string[] {
  const read = readInputText(file);
  if (!read.ok) throw new InputError([{ file, message: `expected ${read.problem}` }]);
  const source = read.text;
  if (!/^---/m.test(source)) return [source];
  const docs = parseAllDocuments(source, { uniqueKeys: false });
  if (!Array.isArray(docs) || docs.length <= 1) return [source];
  return docs.map((d) => `${source.slice(0, d.range[0]).replace(/[^\n]/g, '')}${source.slice(d.range[0], d.range[2])}`);
}

/** Parse, validate and resolve a config file. Throws InputError. */
export function loadConfig(file: string, text?: string, options: LoadOptions = {}): RunConfig {
  const { raw, loc } = parseConfigSource(file, text);
  const P = new Problems(loc);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    P.add([], `expected a mapping with name, table, engine and workload (or contention), found ${describeFound(raw)}`);
    throw new InputError(P.list);
  }
  const top = zodCheck(topSchema, raw, [], P);
  if (!top) throw new InputError(P.list);
  const obj = raw as Record<string, unknown>;
  const seed = top.seed ?? DEFAULT_SEED;

  const hasStorage = obj.table !== undefined || obj.engine !== undefined || obj.workload !== undefined;
  const sections: SectionResults = {};
  for (const [key, schema] of Object.entries(sectionSchemas())) {
    if (obj[key] !== undefined) {
      const value = zodCheck(schema, obj[key], [key], P);
      if (value !== undefined) (sections as Record<string, unknown>)[key] = value;
    }
  }
  if (!hasStorage && Object.keys(sections).length === 0 && P.list.length === 0) {
    P.add([], 'expected table, engine and workload (a storage run) or contention, found neither');
  }

  let storage: SweepPoint[] = [];
  const sweepKeys = Object.keys(top.sweep ?? {});
  if (hasStorage) {
    for (const [name, missing] of [
      ['table', obj.table === undefined],
      ['engine', obj.engine === undefined],
      ['workload', obj.workload === undefined],
    ] as const) {
      if (missing) {
        const hint = name === 'workload' && obj.estimate !== undefined ? '; a config with measured data is for rowsim estimate' : '';
        P.add([], `expected ${name === 'engine' ? 'an' : 'a'} ${name} section (a storage run needs table, engine and workload), found none${hint}`);
      }
    }
    if (P.list.length === 0 && checkSweep(obj, top.sweep ?? {}, options.maxPoints ?? DEFAULT_MAX_SWEEP_POINTS, P)) {
      storage = sweepPoints(obj, top.name, seed, dirname(resolvePath(file)), top.sweep ?? {}, P);
    }
  } else if (top.sweep) {
    P.add(['sweep'], 'expected sweep only with a storage run (table, engine, workload); contention takes lists directly', true);
  }
  if (P.list.length > 0) throw new InputError(P.list);
  return { file, name: top.name, seed, storage, sweepKeys, sections, loc };
}

/** Top-level keys under which a sweep may change values; `seed` itself may be swept too. */
const SWEEPABLE_ROOTS = ['table', 'engine', 'workload', 'seed'] as const;
/** Path segments that would reach an object's prototype instead of a config key. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

type SweepValues = Record<string, (string | number | boolean)[]>;

/**
 * Check the sweep before any point is built: every key a path of this config that may be swept (one
 * problem per bad path, not per value), a swept seed a valid seed, and no more points than `maxPoints`.
 */
function checkSweep(obj: Record<string, unknown>, sweep: SweepValues, maxPoints: number, P: Problems): boolean {
  const before = P.list.length;
  let points = 1;
  for (const [key, values] of Object.entries(sweep)) {
    points *= values.length;
    const path = parseDotted(key);
    const at: KeyPath = ['sweep', key];
    if (!path) {
      P.add(at, `expected a key path such as engine.exp_row_size or workload[1].update.rows, found "${key}"`, true);
    } else if (path.some((seg) => typeof seg === 'string' && FORBIDDEN_SEGMENTS.has(seg))) {
      P.add(at, `expected a key path of the config, found "${key}" (${path.find((seg) => typeof seg === 'string' && FORBIDDEN_SEGMENTS.has(seg))} is not a config key)`, true);
    } else if (!(SWEEPABLE_ROOTS as readonly (string | number)[]).includes(path[0]!)) {
      const guess = nearest(String(path[0]), SWEEPABLE_ROOTS);
      P.add(at, `expected a key under ${SWEEPABLE_ROOTS.slice(0, 3).join(', ')}, or seed, found "${key}"${path[0] === 'name' || path[0] === 'contention' || path[0] === 'sweep' || path[0] === 'estimate' ? ` (${path[0]} cannot be swept${path[0] === 'contention' ? '; contention takes lists directly' : ''})` : guess ? `; did you mean "${guess}"?` : ''}`, true);
    } else if (path[0] === 'seed') {
      if (path.length > 1) P.add(at, `expected seed, found "${key}"`, true);
      values.forEach((v, i) => {
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > Number.MAX_SAFE_INTEGER) P.add([...at, i], `expected a seed: a whole number ≥ 0, found ${describeFound(v)}`);
      });
    } else if (!parentExists(obj, path)) {
      P.add(at, `expected a key path that exists in this config (its parent ${keyPathString(path.slice(0, -1))} is missing), found "${key}"`, true);
    }
  }
  if (P.list.length > before) return false;
  if (points > maxPoints) {
    const sizes = Object.values(sweep).map((v) => v.length).join(' × ');
    P.add(['sweep'], `expected at most ${maxPoints} sweep points (raise the limit with --max-points N), found ${points} (${sizes})`, true);
    return false;
  }
  return true;
}

/** One resolved storage spec per sweep combination; a problem under a swept key points at its value. */
function sweepPoints(obj: Record<string, unknown>, name: string, seed: number, baseDir: string, sweep: SweepValues, P: Problems): SweepPoint[] {
  const storage: SweepPoint[] = [];
  const seen = new Set<string>();
  for (const combo of sweepCombinations(sweep)) {
    const pointRaw = structuredClone(obj);
    let pointSeed = seed;
    for (const [key, { value }] of Object.entries(combo)) {
      if (key === 'seed') pointSeed = value as number;
      else setAt(pointRaw, parseDotted(key)!, value);
    }
    const pointProblems = new Problems(P.loc);
    const spec = resolveStorage(pointRaw, name, pointSeed, baseDir, pointProblems);
    for (const prob of pointProblems.list) {
      let relocated = prob;
      for (const [key, { index }] of Object.entries(combo)) {
        if (prob.key === key || prob.key?.startsWith(`${key}.`) || prob.key?.startsWith(`${key}[`)) {
          relocated = { ...P.loc.problem(['sweep', key, index], prob.message), key: `sweep.${key}[${index}]` };
        }
      }
      const id = `${relocated.line}:${relocated.column}:${relocated.key}:${relocated.message}`;
      if (!seen.has(id)) {
        seen.add(id);
        P.list.push(relocated);
      }
    }
    if (spec) {
      const params: Record<string, string | number | boolean> = Object.create(null);
      for (const [k, v] of Object.entries(combo)) params[k] = v.value;
      storage.push({ label: pointLabel(params), params, spec });
    }
  }
  return storage;
}

function pointLabel(params: Record<string, string | number | boolean>): string {
  const parts = Object.entries(params).map(([k, v]) => `${k.split('.').pop()}=${v}`);
  return parts.length ? parts.join(', ') : 'base';
}

type Combo = Record<string, { value: string | number | boolean; index: number }>;

function sweepCombinations(sweep: Record<string, (string | number | boolean)[]>): Combo[] {
  let combos: Combo[] = [{}];
  for (const [key, values] of Object.entries(sweep)) {
    const next: Combo[] = [];
    for (const c of combos) values.forEach((value, index) => next.push({ ...c, [key]: { value, index } }));
    combos = next;
  }
  return combos;
}

/** `engine.exp_row_size` or `workload[1].update.rows` → key path. */
function parseDotted(key: string): KeyPath | undefined {
  const path: (string | number)[] = [];
  for (const part of key.split('.')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) return undefined;
    path.push(m[1]!);
    for (const idx of m[2]!.matchAll(/\[(\d+)\]/g)) path.push(Number(idx[1]));
  }
  return path;
}

/** Does the parent of the node at `path` exist (own keys only, never a prototype's)? */
function parentExists(obj: unknown, path: KeyPath): boolean {
  let node = obj;
  for (let i = 0; i < path.length - 1; i++) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, path[i]!)) return false;
    node = (node as Record<string | number, unknown>)[path[i]!];
  }
  return node !== null && typeof node === 'object';
}

/** Set the node at `path` (its parent exists: checked by parentExists). */
function setAt(obj: unknown, path: KeyPath, value: unknown): void {
  let node = obj as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) node = node[path[i]!] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
}

function getAt(obj: unknown, path: KeyPath): unknown {
  let node = obj;
  for (const seg of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[seg];
  }
  return node;
}

// ---- zod issues → problems ---------------------------------------------------------------------

/** Validate `value` with `schema`; on failure add problems at `base` + issue path and return undefined. */
export function zodCheck<T>(schema: z.ZodType<T>, value: unknown, base: KeyPath, P: Problems): T | undefined {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  for (const issue of r.error.issues) {
    const path = [...base, ...(issue.path as (string | number)[])];
    const found = getAt(value, issue.path as (string | number)[]);
    const f = describeFound(found);
    switch (issue.code) {
      case 'unrecognized_keys': {
        const valid = validKeys(schema, issue.path as (string | number)[]);
        for (const key of issue.keys) {
          const guess = nearest(key, valid);
          P.add(
            [...path, key],
            `unknown key "${key}"${guess ? `; did you mean "${guess}"?` : ''}${valid.length ? ` (expected one of: ${valid.join(', ')})` : ''}`,
            true,
          );
        }
        break;
      }
      case 'invalid_type':
        if (found === undefined) P.add(path, `expected ${issue.expected === 'nonoptional' ? 'a value' : `a ${issue.expected}`} here, found nothing (the key is required)`, true);
        else P.add(path, `expected ${article(issue.expected)}, found ${f}`);
        break;
      case 'invalid_value':
        P.add(path, `expected one of ${issue.values.map((v) => String(v)).join(', ')}, found ${f}`);
        break;
      case 'too_small':
        P.add(path, `expected ${issue.origin === 'array' ? `at least ${issue.minimum} item(s)` : issue.origin === 'string' ? 'a non-empty text' : `a number ${issue.inclusive === false ? '>' : '≥'} ${issue.minimum}`}, found ${f}`);
        break;
      case 'too_big':
        P.add(path, `expected ${issue.origin === 'array' ? `at most ${issue.maximum} item(s)` : `a number ${issue.inclusive === false ? '<' : '≤'} ${issue.maximum}`}, found ${f}`);
        break;
      case 'invalid_union': {
        // A mapping with a misspelt key ({ unifrom: … }): name the key and the nearest one accepted.
        const valid = validKeys(schema, issue.path as (string | number)[]);
        const unknown = found !== null && typeof found === 'object' && !Array.isArray(found) && valid.length ? Object.keys(found).filter((k) => !valid.includes(k)) : [];
        if (unknown.length) {
          for (const key of unknown) {
            const guess = nearest(key, valid);
            P.add([...path, key], `unknown key "${key}"${guess ? `; did you mean "${guess}"?` : ''} (expected ${unionExpectation(path)})`, true);
          }
        } else P.add(path, `expected ${unionExpectation(path)}, found ${f}`);
        break;
      }
      case 'invalid_format':
        P.add(path, `expected ${issue.message && !issue.message.startsWith('Invalid') ? issue.message : issue.format}, found ${f}`);
        break;
      default:
        P.add(path, issue.message.startsWith('expected') ? issue.message : `expected ${issue.message}`);
    }
  }
  return undefined;
}

function article(t: string): string {
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

function unionExpectation(path: KeyPath): string {
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  if (last === 'exp_row_size') return '0 (server default), 1 (pack fully), a number of bytes, or max';
  if (last === 'length' || last === 'grow') {
    return 'a length distribution: a number, { uniform: [min, max] }, { normal: [mean, sd] }, { lognormal: [median, sigma] }, { choice: { "10": 0.5, "200": 0.5 } } or { histogram: lengths.csv }';
  }
  if (parent === 'set') return 'changed, or a mapping with length, grow and/or null';
  if (path.includes('sweep')) return 'a list of numbers or words';
  return 'one of the documented forms (see README, "The config")';
}

/** The keys an object schema at `path` within `schema` accepts, for suggestions. */
function validKeys(schema: unknown, path: (string | number)[]): string[] {
  let s = schema as { _zod?: { def: Record<string, unknown> } } | undefined;
  const unwrap = () => {
    for (let i = 0; i < 10 && s?._zod; i++) {
      const def = s._zod.def;
      if (['optional', 'default', 'prefault', 'nullable', 'nonoptional', 'readonly', 'catch'].includes(def.type as string)) s = def.innerType as typeof s;
      else if (def.type === 'pipe') s = def.in as typeof s;
      else break;
    }
  };
  unwrap();
  for (const seg of path) {
    const def = s?._zod?.def;
    if (!def) return [];
    if (def.type === 'object') s = (def.shape as Record<string, typeof s>)[String(seg)];
    else if (def.type === 'array') s = def.element as typeof s;
    else if (def.type === 'record') s = def.valueType as typeof s;
    else if (def.type === 'union') {
      const opts = def.options as (typeof s)[];
      s = opts.find((o) => o?._zod?.def.type === 'object' && String(seg) in (o._zod.def.shape as object)) ?? opts.find((o) => o?._zod?.def.type === 'object');
    } else return [];
    unwrap();
  }
  const def = s?._zod?.def;
  if (def?.type === 'object') return Object.keys(def.shape as object);
  if (def?.type === 'union') {
    const keys = new Set<string>();
    for (const o of def.options as (typeof s)[]) if (o?._zod?.def.type === 'object') Object.keys(o._zod.def.shape as object).forEach((k) => keys.add(k));
    return [...keys];
  }
  return [];
}

// ---- storage sections --------------------------------------------------------------------------

function resolveStorage(obj: Record<string, unknown>, name: string, seed: number, baseDir: string, P: Problems): StorageSpec | undefined {
  const before = P.list.length;
  const table = resolveTable(obj.table, baseDir, P);
  const engine = resolveEngine(obj.engine, P);
  if (!table || !engine) return undefined;
  const format = getFormat(engine.format);
  if (!format) {
    P.add(['engine', 'format'], `expected a format this version implements (${availableFormats().join(', ')}), found "${engine.format}"`);
    return undefined;
  }
  const workload = resolveWorkload(obj.workload, table, baseDir, P);
  if (!workload) return undefined;
  const spec: StorageSpec = { name, seed, table, engine, workload };
  try {
    const layout = format.layout(table, engine);
    format.resolve(engine, layout);
    if (layout.minRowBytes > layout.geometry.maxRowBytes) {
      P.add(['table'], `expected rows that fit on a ${engine.page_size}-byte page (at most ${layout.geometry.maxRowBytes} bytes), found a shortest row of ${layout.minRowBytes} bytes`);
    }
  } catch (err) {
    if (err instanceof EngineSettingError) P.add(['engine', err.key], `expected ${err.message}`);
    else throw err;
  }
  return P.list.length === before ? spec : undefined;
}

export function resolveTable(raw: unknown, baseDir: string, P: Problems): TableDef | undefined {
  const t = zodCheck(tableSchema, raw, ['table'], P);
  if (!t) return undefined;
  if (t.columns && t.ddl) {
    P.add(['table', 'ddl'], 'expected either columns or ddl, found both', true);
    return undefined;
  }
  let columns: ColumnDef[] = [];
  let indexes: IndexDef[] = [];
  let tableName = t.name;
  if (t.ddl) {
    const isFile = !t.ddl.includes('\n') && /\.sql$/i.test(t.ddl.trim());
    const path = isFile ? resolvePath(baseDir, t.ddl.trim()) : undefined;
    let sql = t.ddl;
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
      columns = parsed.columns;
      indexes = parsed.indexes;
      tableName ??= parsed.name;
    } catch (err) {
      if (!(err instanceof DdlError)) throw err;
      if (path) P.list.push({ file: path, line: err.line, column: err.column, message: err.message });
      else P.add(['table', 'ddl'], `DDL line ${err.line}, column ${err.column}: ${err.message}`);
      return undefined;
    }
  } else if (t.columns) {
    const seen = new Map<string, number>();
    t.columns.forEach((c, i) => {
      try {
        columns.push({ name: c.name, type: parseType(c.type), nullable: c.null ?? false });
      } catch (err) {
        if (err instanceof SchemaError) P.add(['table', 'columns', i, 'type'], `expected ${err.message}`);
        else throw err;
      }
      const key = c.name.toLowerCase();
      if (seen.has(key)) P.add(['table', 'columns', i, 'name'], `expected a column name not used before, found "${c.name}" (also column ${seen.get(key)! + 1})`);
      seen.set(key, i);
    });
  } else {
    P.add(['table'], 'expected columns (a list of { name, type, null }) or ddl (CREATE TABLE text or a .sql file), found neither');
    return undefined;
  }
  if (!tableName) {
    P.add(['table'], 'expected a table name (table.name), found none', true);
    return undefined;
  }
  (t.indexes ?? []).forEach((idx, i) => {
    idx.columns.forEach((c, j) => {
      if (!columns.some((col) => col.name.toLowerCase() === c.toLowerCase())) {
        const guess = nearest(c, columns.map((col) => col.name));
        P.add(['table', 'indexes', i, 'columns', j], `expected a column of the table${guess ? ` (did you mean "${guess}"?)` : ''}, found "${c}"`);
      }
    });
    indexes.push({ name: idx.name, columns: idx.columns, unique: idx.unique ?? false });
  });
  // Index names are unique per table (the DDL's first, then the config's table.indexes).
  const fromDdl = indexes.length - (t.indexes?.length ?? 0);
  const firstUse = new Map<string, number>();
  indexes.forEach((idx, i) => {
    const key = idx.name.toLowerCase();
    const before = firstUse.get(key);
    if (before === undefined) firstUse.set(key, i);
    else if (i < fromDdl) P.add(['table', 'ddl'], `expected index names not used before, found "${idx.name}" twice in the DDL`);
    else P.add(['table', 'indexes', i - fromDdl, 'name'], `expected an index name not used before, found "${idx.name}" (also index ${before + 1})`);
  });
  return { name: tableName, columns, indexes };
}

export function resolveEngine(raw: unknown, P: Problems): EngineSpec | undefined {
  const e = zodCheck(engineSchema, raw, ['engine'], P);
  if (!e) return undefined;
  const format = getFormat(e.format);
  const ignored = format ? Object.keys(e).filter((k) => k !== 'format' && !format.settings.includes(k as keyof EngineSettings)) : [];
  return defaultEngineSpec(e.format, { ...e, ignored });
}

export function resolveWorkload(raw: unknown, table: TableDef, baseDir: string, P: Problems): PhaseSpec[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    P.add(['workload'], `expected a list of phases (insert, update, delete, reorg), found ${describeFound(raw)}`);
    return undefined;
  }
  const before = P.list.length;
  const phases: PhaseSpec[] = [];
  const columnNames = table.columns.map((c) => c.name);
  const column = (name: string) => table.columns.find((c) => c.name === name);
  raw.forEach((item, i) => {
    const at: KeyPath = ['workload', i];
    if (item === null || typeof item !== 'object' || Array.isArray(item) || Object.keys(item).length !== 1) {
      P.add(at, `expected one phase: a mapping with one key of ${PHASE_KINDS.join(', ')}, found ${describeFound(item)}`);
      return;
    }
    const kind = Object.keys(item)[0]!;
    if (!(PHASE_KINDS as readonly string[]).includes(kind)) {
      const guess = nearest(kind, PHASE_KINDS);
      P.add([...at, kind], `unknown phase "${kind}"${guess ? `; did you mean "${guess}"?` : ''} (expected one of: ${PHASE_KINDS.join(', ')})`, true);
      return;
    }
    const body = (item as Record<string, unknown>)[kind];
    const path: KeyPath = [...at, kind];
    const checkColumn = (name: string, where: KeyPath): boolean => {
      if (column(name)) return true;
      const guess = nearest(name, columnNames);
      P.add(where, `expected a column of table ${table.name}${guess ? ` (did you mean "${guess}"?)` : ''}, found "${name}"`, true);
      return false;
    };
    const nullCheck = (name: string, share: number | undefined, where: KeyPath) => {
      if (share !== undefined && share > 0 && !column(name)!.nullable) {
        P.add(where, `expected a NULL share only on a nullable column, found ${share} on ${name}, which is NOT NULL (declare it with null: true)`);
      }
    };
    switch (kind) {
      case 'insert': {
        const v = zodCheck(PHASE_SCHEMAS.insert, body, path, P);
        if (!v) return;
        const values: Record<string, ValueSpec> = Object.create(null);
        for (const [name, spec] of Object.entries(v.values ?? {})) {
          const where = [...path, 'values', name];
          if (!checkColumn(name, where)) continue;
          nullCheck(name, spec.null, [...where, 'null']);
          values[name] = {
            null: spec.null ?? 0,
            length: spec.length === undefined ? undefined : resolveDist(spec.length, [...where, 'length'], baseDir, P),
          };
        }
        phases.push({ op: 'insert', rows: v.rows, values });
        break;
      }
      case 'update': {
        const v = zodCheck(PHASE_SCHEMAS.update, body, path, P);
        if (!v) return;
        const set: Record<string, SetSpec> = Object.create(null);
        if (Object.keys(v.set).length === 0) P.add([...path, 'set'], 'expected at least one column to change, found none');
        for (const [name, s] of Object.entries(v.set)) {
          const where = [...path, 'set', name];
          if (!checkColumn(name, where)) continue;
          if (s === 'changed') {
            set[name] = { kind: 'changed' };
            continue;
          }
          nullCheck(name, s.null, [...where, 'null']);
          if (s.length !== undefined && s.grow !== undefined) {
            P.add(where, 'expected either length (a new length) or grow (added to the old length), found both');
          } else if (s.length !== undefined) {
            const dist = resolveDist(s.length, [...where, 'length'], baseDir, P);
            if (dist) set[name] = { kind: 'length', dist, null: s.null };
          } else if (s.grow !== undefined) {
            const dist = resolveDist(s.grow, [...where, 'grow'], baseDir, P);
            if (dist) set[name] = { kind: 'grow', dist, null: s.null };
          } else if (s.null !== undefined) {
            set[name] = { kind: 'null', null: s.null };
          } else {
            P.add(where, 'expected changed, or a mapping with length, grow and/or null, found an empty mapping');
          }
        }
        phases.push({ op: 'update', rows: v.rows, order: resolveOrder(v.order ?? 'random'), transaction: v.transaction ?? 'statement', set });
        break;
      }
      case 'delete': {
        const v = zodCheck(PHASE_SCHEMAS.delete, body, path, P);
        if (!v) return;
        phases.push({ op: 'delete', rows: v.rows, order: resolveOrder(v.order ?? 'random'), transaction: v.transaction ?? 'statement' });
        break;
      }
      case 'reorg': {
        const v = zodCheck(PHASE_SCHEMAS.reorg, body, path, P);
        if (!v) return;
        phases.push({ op: 'reorg', kind: v });
        break;
      }
      case 'vacuum': {
        const v = zodCheck(PHASE_SCHEMAS.vacuum, body, path, P);
        if (v === undefined) return;
        phases.push({ op: 'reorg', kind: v?.full ? 'rebuild' : 'vacuum' });
        break;
      }
    }
  });
  return P.list.length === before ? phases : undefined;
}

function resolveOrder(text: string): Order {
  const m = ORDER_RE.exec(text)!;
  if (m[2] !== undefined) return { kind: 'zipf', s: Number(m[2]) };
  return { kind: m[1] as 'sequential' | 'random' | 'spread' };
}

export function resolveDist(d: DistInput, path: KeyPath, baseDir: string, P: Problems): Dist | undefined {
  if (typeof d === 'number') return { kind: 'const', value: d };
  if ('uniform' in d) {
    const [min, max] = d.uniform;
    if (min < 0 || max < min) {
      P.add([...path, 'uniform'], `expected [min, max] with 0 ≤ min ≤ max, found [${min}, ${max}]`);
      return undefined;
    }
    return { kind: 'uniform', min, max };
  }
  if ('normal' in d) {
    const [mean, sd] = d.normal;
    if (sd < 0) {
      P.add([...path, 'normal'], `expected [mean, sd] with sd ≥ 0, found sd ${sd}`);
      return undefined;
    }
    return { kind: 'normal', mean, sd };
  }
  if ('lognormal' in d) {
    const [median, sigma] = d.lognormal;
    if (median <= 0 || sigma < 0) {
      P.add([...path, 'lognormal'], `expected [median, sigma] with median > 0 and sigma ≥ 0, found [${median}, ${sigma}]`);
      return undefined;
    }
    return { kind: 'lognormal', median, sigma };
  }
  if ('choice' in d) {
    const values: number[] = [];
    const weights: number[] = [];
    for (const [k, w] of Object.entries(d.choice)) {
      const v = Number(k);
      if (!Number.isFinite(v) || v < 0) {
        P.add([...path, 'choice', k], `expected a length (a number ≥ 0) as key, found "${k}"`, true);
        return undefined;
      }
      values.push(v);
      weights.push(w);
    }
    if (weights.reduce((s, w) => s + w, 0) <= 0) {
      P.add([...path, 'choice'], 'expected at least one positive weight, found none');
      return undefined;
    }
    return { kind: 'choice', values, weights };
  }
  return readHistogram(resolvePath(baseDir, d.histogram), [...path, 'histogram'], P);
}

/**
 * A histogram CSV: one `length,count` (or weight) per line, an optional header line, `#` comments.
 */
export function readHistogram(file: string, path: KeyPath, P: Problems): Dist | undefined {
  const read = readInputText(file);
  if (!read.ok) {
    P.add(path, `expected a readable CSV file at ${file}: ${read.problem}`);
    return undefined;
  }
  const text = read.text;
  const values: number[] = [];
  const weights: number[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const cells = line.split(/[,;\t]/).map((c) => c.trim());
    if (cells.length > 2) {
      P.list.push({ file, line: i + 1, column: lines[i]!.indexOf(cells[2]!) + 1, message: `expected two columns, length and count, found ${cells.length}` });
      return undefined;
    }
    if (values.length === 0 && cells.some((c) => c !== '' && !Number.isFinite(Number(c)))) continue; // header
    if (cells.length < 2) {
      P.list.push({ file, line: i + 1, column: 1, message: `expected two columns, length and count, found "${line}"` });
      return undefined;
    }
    const v = Number(cells[0]);
    const w = Number(cells[1]);
    if (!Number.isFinite(v) || v < 0 || !Number.isInteger(v)) {
      P.list.push({ file, line: i + 1, column: 1, message: `expected a whole length ≥ 0 in column 1, found "${cells[0]}"` });
      return undefined;
    }
    if (!Number.isFinite(w) || w < 0) {
      const col = lines[i]!.indexOf(cells[1]!) + 1;
      P.list.push({ file, line: i + 1, column: col, message: `expected a count ≥ 0 in column 2, found "${cells[1]}"` });
      return undefined;
    }
    values.push(v);
    weights.push(w);
  }
  if (values.length === 0 || weights.reduce((s, w) => s + w, 0) <= 0) {
    P.list.push({ file, line: 1, column: 1, message: 'expected at least one length with a positive count, found none' });
    return undefined;
  }
  return { kind: 'choice', values, weights };
}

export { parseCount, FORMAT_IDS };
