/**
 * Problems found in a config, each with its position: zod issues turned into "expected …, found …"
 * messages with the nearest valid key suggested.
 */
import type { z } from 'zod';
import { describeFound, keyPathString, MAX_REPORTED_PROBLEMS, nearest, type InputProblem, type KeyPath } from '../config/errors.js';
import { YamlLocator } from '../config/locate.js';

/**
 * The problems of one config. The same problem found twice (a table resolved for every sweep point, and
 * again for a section) is listed once.
 */
export class Problems {
  list: InputProblem[] = [];
  private readonly seen = new Set<string>();
  constructor(readonly loc: YamlLocator) {}
  add(path: KeyPath, message: string, preferKey = false): void {
    // Past the reported few, a problem is only counted: locating it would make checking a file with
    // thousands of mistakes quadratic.
    if (this.list.length >= MAX_REPORTED_PROBLEMS) this.push({ file: this.loc.file, key: keyPathString(path) || undefined, message });
    else this.push(this.loc.problem(path, message, preferKey));
  }
  /** Add a problem that already has its position (another file's, or relocated). */
  push(problem: InputProblem): void {
    const id = `${problem.file}:${problem.line}:${problem.column}:${problem.key}:${problem.message}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    this.list.push(problem);
  }
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
  for (const issue of r.error.issues) reportIssue(schema, value, base, [], issue, P);
  return undefined;
}

type Issue = z.core.$ZodIssue;

/** Root-level issues that say the value is not of a union branch's kind at all (a list given to a mapping). */
function isKindMismatch(issue: Issue): boolean {
  return issue.path.length === 0 && (issue.code === 'invalid_type' || issue.code === 'invalid_value');
}

/** One zod issue as a problem; `rel` is the issue's path prefix inside the schema (a union's branch). */
function reportIssue(schema: z.ZodType<unknown>, value: unknown, base: KeyPath, rel: (string | number)[], issue: Issue, P: Problems): void {
  const at = [...rel, ...(issue.path as (string | number)[])];
  const path = [...base, ...at];
  const found = getAt(value, at);
  const f = describeFound(found);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const valid = validKeys(schema, at);
      for (const key of issue.keys) {
        const guess = nearest(key, valid);
        P.add(
          [...path, key],
          `unknown key "${key}"${guess ? `; did you mean "${guess}"?` : ''}${valid.length ? ` (expected one of: ${valid.join(', ')})` : ''}`,
          true,
        );
      }
      return;
    }
    case 'invalid_type':
      if (found === undefined)
        P.add(
          path,
          `expected ${issue.expected === 'nonoptional' ? 'a value' : `a ${issue.expected}`} here, found nothing (the key is required)`,
          true,
        );
      else P.add(path, `expected ${article(issue.expected)}, found ${f}`);
      return;
    case 'invalid_value':
      P.add(path, `expected one of ${issue.values.map((v) => String(v)).join(', ')}, found ${f}`);
      return;
    case 'too_small':
      P.add(
        path,
        `expected ${issue.origin === 'array' ? `at least ${issue.minimum} item(s)` : issue.origin === 'string' ? 'a non-empty text' : `a number ${issue.inclusive === false ? '>' : '≥'} ${issue.minimum}`}, found ${f}`,
      );
      return;
    case 'too_big':
      P.add(
        path,
        `expected ${issue.origin === 'array' ? `at most ${issue.maximum} item(s)` : `a number ${issue.inclusive === false ? '<' : '≤'} ${issue.maximum}`}, found ${f}`,
      );
      return;
    case 'invalid_union':
      reportUnionIssue(schema, value, base, at, issue, P);
      return;
    case 'invalid_format':
      P.add(path, `expected ${issue.message && !issue.message.startsWith('Invalid') ? issue.message : issue.format}, found ${f}`);
      return;
    default:
      P.add(path, issue.message.startsWith('expected') ? issue.message : `expected ${issue.message}`);
  }
}

/** A value no branch of a union takes: the branch of the value's kind says what is wrong inside it, else what the union wants. */
function reportUnionIssue(
  schema: z.ZodType<unknown>,
  value: unknown,
  base: KeyPath,
  at: (string | number)[],
  issue: Extract<Issue, { code: 'invalid_union' }>,
  P: Problems,
): void {
  const path = [...base, ...at];
  const found = getAt(value, at);
  const f = describeFound(found);
  if (found === undefined) {
    P.add(path, `expected ${unionExpectation(path, issue.errors, issue.message)} here, found nothing (the key is required)`, true);
    return;
  }
  // The one branch of the value's kind (a list, a mapping, a scalar) says what is wrong inside it.
  const ofKind = issue.errors.filter((branch) => !branch.some(isKindMismatch));
  // Of several mapping branches, the one whose keys the mapping has ({ sequence: [3, .nan] }).
  const ofShape = ofKind.filter((branch) => !branch.some((i) => i.code === 'unrecognized_keys' && i.path.length === 0));
  const branch = ofKind.length === 1 ? ofKind[0] : ofShape.length === 1 ? ofShape[0] : undefined;
  if (branch) {
    for (const inner of branch) reportIssue(schema, value, base, at, inner, P);
    return;
  }
  // A mapping with a misspelt key ({ unifrom: … }): name the key and the nearest one accepted.
  const valid = validKeys(schema, at);
  const unknown =
    found !== null && typeof found === 'object' && !Array.isArray(found) && valid.length
      ? Object.keys(found).filter((k) => !valid.includes(k))
      : [];
  if (unknown.length) {
    for (const key of unknown) {
      const guess = nearest(key, valid);
      P.add(
        [...path, key],
        `unknown key "${key}"${guess ? `; did you mean "${guess}"?` : ''} (expected ${unionExpectation(path, issue.errors, issue.message)})`,
        true,
      );
    }
  } else P.add(path, `expected ${unionExpectation(path, issue.errors, issue.message)}, found ${f}`);
}

function article(t: string): string {
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

/** What a union wants at `path`: its schema's own words (a format's setting declares them with `error`), else what its branches want. */
function unionExpectation(path: KeyPath, branches: Issue[][] = [], message?: string): string {
  if (message && !message.startsWith('Invalid')) return message;
  const last = path[path.length - 1];
  const parent = path[path.length - 2];
  if (last === 'length' || last === 'grow') {
    return 'a length distribution: a number, { uniform: [min, max] }, { normal: [mean, sd] }, { lognormal: [median, sigma] }, { choice: { "10": 0.5, "200": 0.5 } }, { histogram: lengths.csv }, { sequence: [3000, 2500, null] } or { csv: lengths.csv, column: body }';
  }
  if (parent === 'set') return 'changed, or a mapping with length, grow and/or null';
  if (path.includes('sweep')) return 'a list of numbers or words';
  // Otherwise: what each branch wanted at this node (a number, max, a list, a mapping …).
  const wanted = branches.flatMap((b) =>
    b
      .filter((i) => i.path.length === 0)
      .flatMap((i) =>
        i.code === 'invalid_type'
          ? [article(i.expected === 'object' ? 'mapping' : i.expected === 'array' ? 'list' : String(i.expected))]
          : i.code === 'invalid_value'
            ? i.values.map(String)
            : [],
      ),
  );
  const unique = [...new Set(wanted)];
  return unique.length ? unique.join(' or ') : 'one of the forms docs/config.md describes';
}

/** The keys an object schema at `path` within `schema` accepts, for suggestions. */
function validKeys(schema: unknown, path: (string | number)[]): string[] {
  let s = schema as { _zod?: { def: Record<string, unknown> } } | undefined;
  const unwrap = () => {
    for (let i = 0; i < 10 && s?._zod; i++) {
      const def = s._zod.def;
      if (['optional', 'default', 'prefault', 'nullable', 'nonoptional', 'readonly', 'catch'].includes(def.type as string))
        s = def.innerType as typeof s;
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
      s =
        opts.find((o) => o?._zod?.def.type === 'object' && String(seg) in (o._zod.def.shape as object)) ??
        opts.find((o) => o?._zod?.def.type === 'object');
    } else return [];
    unwrap();
  }
  const def = s?._zod?.def;
  if (def?.type === 'object') return Object.keys(def.shape as object);
  if (def?.type === 'union') {
    const keys = new Set<string>();
    for (const o of def.options as (typeof s)[])
      if (o?._zod?.def.type === 'object') Object.keys(o._zod.def.shape as object).forEach((k) => keys.add(k));
    return [...keys];
  }
  return [];
}
