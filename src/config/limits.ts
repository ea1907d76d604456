/**
 * The limits of rowsim's input: one set, applied wherever a config is read (run, validate, estimate,
 * rowsize, pg-check, page, trace: src/loader/source.ts parseConfigSource) and wherever an output folder
 * is checked (src/report/output.ts checkOutputFolder), so that `rowsim validate` and `rowsim run` can
 * never disagree. Each limit is checked before any work and refused with exit status 2, the file, line,
 * key and the limit named (docs/config.md, "Limits").
 */
import { keyPathString, type InputProblem, type KeyPath } from './errors.js';
import type { YamlLocator } from './locate.js';

/** The longest name of one file or folder (NAME_MAX of Linux's file systems), in bytes. */
export const FILE_NAME_BYTES = 255;
/** The longest path the kernel takes (PATH_MAX, with its terminating NUL), in bytes. */
export const PATH_BYTES = 4096;
/**
 * What rowsim adds to an output folder's name for the staging folder beside it
 * (`.<name>.rowsim-tmp-<pid>-<12 hex digits>`, src/report/output.ts; a pid has at most 7 digits).
 */
export const STAGING_SUFFIX_BYTES = '.'.length + '.rowsim-tmp-'.length + 7 + '-'.length + 12;
/** A run's name names its output folder, out/<name>: what a file name holds less the staging suffix. */
export const MAX_NAME_BYTES = FILE_NAME_BYTES - STAGING_SUFFIX_BYTES;
/**
 * What rowsim writes below an output folder at most: its staging folder, then `charts/` and a chart's
 * file name (one file-name component at most).
 */
export const OUTPUT_DEPTH_BYTES = 1 + STAGING_SUFFIX_BYTES + '/charts/'.length + FILE_NAME_BYTES;
/** The longest output folder path (`--out`, resolved): PATH_MAX less its NUL and what rowsim writes below it. */
export const MAX_OUT_PATH_BYTES = PATH_BYTES - 1 - OUTPUT_DEPTH_BYTES;

/** A config file: a few kilobytes (1,000 phases and 1,600 columns take about 100 kB); lengths data goes in CSV files. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/** Table, column and index names: the longest identifier of any format (ASE's 255 bytes). */
export const MAX_IDENTIFIER_BYTES = 255;
/** Any mapping key of a config (config keys, column names, choice values). */
export const MAX_KEY_BYTES = 255;
/** An inline DDL (`table.ddl`). */
export const MAX_DDL_BYTES = 256 * 1024;
/** Any other string of a config (file paths, types, orders): PATH_MAX. */
export const MAX_STRING_BYTES = PATH_BYTES;
/** Columns of a table: PostgreSQL's MaxHeapAttributeNumber, the most of any format. */
export const MAX_COLUMNS = 1600;
/** Indexes of a table (SQL Server's 999 nonclustered and one clustered). */
export const MAX_INDEXES = 1000;
/** Columns of an index key: INDEX_MAX_KEYS (PostgreSQL), SQL Server's 32 key columns. */
export const MAX_INDEX_COLUMNS = 32;
/** Phases of a workload. */
export const MAX_PHASES = 1000;
/** Keys of a sweep, and values of one swept key (the points are limited apart, by --max-points). */
export const MAX_SWEEP_KEYS = 16;
export const MAX_SWEEP_VALUES = 10_000;
/** A sweep point's label names its chart files (charts/pagemap-<label>-final.png): this many characters. */
export const MAX_POINT_LABEL = 160;
/** Items of any other list (a `sequence:` of lengths, contention's user counts …). */
export const MAX_LIST_ITEMS = 100_000;

/** UTF-8 bytes of a string, without encoding it when it cannot be over `limit`. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** A value shown in a message: at most 40 characters of it. */
export function shortText(text: string): string {
  return text.length > 40 ? `${JSON.stringify(text.slice(0, 40))}…` : JSON.stringify(text);
}

const grouped = (n: number) => n.toLocaleString('en-US');

/** The string limit of the string at `path`, and what it is. */
function stringLimit(path: KeyPath): { bytes: number; what: string; why: string } {
  const s = keyPathString(path);
  if (s === 'name')
    return {
      bytes: MAX_NAME_BYTES,
      what: 'a run name',
      why: ` (it names out/<name>: NAME_MAX ${FILE_NAME_BYTES} less ${STAGING_SUFFIX_BYTES} for rowsim's staging folder)`,
    };
  if (s === 'table.ddl') return { bytes: MAX_DDL_BYTES, what: 'an inline DDL', why: ' (a longer one goes in a .sql file)' };
  if (/^table\.(name|columns\[\d+\]\.name|indexes\[\d+\]\.(name|columns\[\d+\]))$/.test(s))
    return { bytes: MAX_IDENTIFIER_BYTES, what: 'a name', why: ' (the longest identifier of any format)' };
  return { bytes: MAX_STRING_BYTES, what: 'a string', why: '' };
}

/** The list limit of the list at `path`, and what it holds. */
function listLimit(path: KeyPath): { items: number; what: string } {
  const s = keyPathString(path);
  if (s === 'table.columns') return { items: MAX_COLUMNS, what: 'columns (PostgreSQL’s 1,600, the most of any format)' };
  if (s === 'table.indexes') return { items: MAX_INDEXES, what: 'indexes' };
  if (/^table\.indexes\[\d+\]\.columns$/.test(s)) return { items: MAX_INDEX_COLUMNS, what: 'index key columns' };
  if (s === 'workload') return { items: MAX_PHASES, what: 'phases' };
  if (path.length === 2 && path[0] === 'sweep') return { items: MAX_SWEEP_VALUES, what: 'values of one swept key' };
  return { items: MAX_LIST_ITEMS, what: 'items' };
}

/**
 * The problems of a parsed config's value against the limits above: strings, keys and lists, each
 * at its key path (its file, line and column). A list over its limit is not walked into.
 */
export function configLimitProblems(raw: unknown, loc: YamlLocator): InputProblem[] {
  const problems: InputProblem[] = [];
  const add = (path: KeyPath, message: string, preferKey = false) => {
    if (problems.length < 20) problems.push(loc.problem(path, message, preferKey));
  };
  const stack: { value: unknown; path: KeyPath }[] = [{ value: raw, path: [] }];
  while (stack.length > 0 && problems.length < 20) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const limit = stringLimit(path);
      const bytes = value.length > limit.bytes / 4 ? utf8Bytes(value) : 0;
      if (bytes > limit.bytes)
        add(
          path,
          `expected ${limit.what} of at most ${grouped(limit.bytes)} bytes${limit.why}, found ${grouped(bytes)} (${shortText(value)})`,
        );
    } else if (Array.isArray(value)) {
      const limit = listLimit(path);
      if (value.length > limit.items) add(path, `expected at most ${grouped(limit.items)} ${limit.what}, found ${grouped(value.length)}`);
      else for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i] });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      if (path.length === 0 || keys.length <= MAX_LIST_ITEMS) checkKeys(keys, path, add);
      if (path.length === 1 && path[0] === 'sweep' && keys.length > MAX_SWEEP_KEYS)
        add(path, `expected at most ${MAX_SWEEP_KEYS} swept keys, found ${grouped(keys.length)}`);
      else if (keys.length > MAX_LIST_ITEMS)
        add(path, `expected at most ${grouped(MAX_LIST_ITEMS)} keys in a mapping, found ${grouped(keys.length)}`);
      else
        for (let i = keys.length - 1; i >= 0; i--)
          stack.push({ value: (value as Record<string, unknown>)[keys[i]!], path: [...path, keys[i]!] });
    }
  }
  return problems;
}

function checkKeys(keys: string[], path: KeyPath, add: (path: KeyPath, message: string, preferKey?: boolean) => void): void {
  for (const key of keys) {
    if (key.length <= MAX_KEY_BYTES / 4) continue;
    const bytes = utf8Bytes(key);
    if (bytes > MAX_KEY_BYTES)
      add([...path, key], `expected a key of at most ${MAX_KEY_BYTES} bytes, found ${grouped(bytes)} (${shortText(key)})`, true);
  }
}

/** A sweep point's label over MAX_POINT_LABEL (it names chart files): the message, or undefined. */
export function pointLabelProblem(label: string): string | undefined {
  if (label.length <= MAX_POINT_LABEL) return undefined;
  return `expected sweep points whose labels (the swept keys' last names and values, which name the chart files) take at most ${MAX_POINT_LABEL} characters, found ${grouped(label.length)} (${shortText(label)})`;
}

/**
 * An output folder's path against PATH_MAX and NAME_MAX: the problem (to follow "--out <path>: "), or
 * undefined. `resolved` is the absolute path.
 */
export function outputPathProblem(resolved: string): string | undefined {
  const bytes = utf8Bytes(resolved);
  if (bytes > MAX_OUT_PATH_BYTES)
    return `expected a folder path of at most ${grouped(MAX_OUT_PATH_BYTES)} bytes (PATH_MAX ${grouped(PATH_BYTES)} less ${OUTPUT_DEPTH_BYTES} for what rowsim writes below it), found ${grouped(bytes)}`;
  const parts = resolved.split('/').filter(Boolean);
  for (const [i, part] of parts.entries()) {
    const last = i === parts.length - 1;
    const limit = last ? MAX_NAME_BYTES : FILE_NAME_BYTES;
    const n = utf8Bytes(part);
    if (n > limit)
      return `expected folder names of at most ${limit} bytes (${last ? `NAME_MAX ${FILE_NAME_BYTES} less ${STAGING_SUFFIX_BYTES} for rowsim's staging folder beside it` : `NAME_MAX`}), found ${grouped(n)} (${shortText(part)})`;
  }
  return undefined;
}
