/**
 * Reading a config file: YAML text → a plain value and a locator for positions. Refuses what is not a
 * config before any schema is applied: non-regular files, invalid YAML, alias bombs, duplicate keys.
 */
import { LineCounter, isAlias, isScalar, parseAllDocuments, parseDocument, visit, type Document } from 'yaml';
import { InputError, MAX_REPORTED_PROBLEMS, type InputProblem } from '../config/errors.js';
import { YamlLocator } from '../config/locate.js';
import { readInputText } from '../config/read.js';
import { configLimitProblems, MAX_CONFIG_BYTES } from '../config/limits.js';

/** A config file is read only up to the config size limit: a larger one is refused before any parsing. */
const readConfigText = (file: string) => readInputText(file, MAX_CONFIG_BYTES, 'a config file (lengths data goes in a CSV file)');

/** A parsed config document: the plain value and a locator for positioned problems. */
export interface ParsedConfig {
  raw: unknown;
  loc: YamlLocator;
}

/** Alias expansions a config may use; more is a resource-exhaustion attack ("billion laughs"). */
const MAX_ALIAS_EXPANSIONS = 100;

/** Read and parse a config file's YAML (no schema yet). Throws InputError on unreadable or invalid YAML. */
export function parseConfigSource(file: string, text?: string): ParsedConfig {
  let source = text;
  if (source === undefined) {
    const read = readConfigText(file);
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
          ? {
              ...at(e.pos[0]),
              message:
                'expected one YAML document, found a second one (after ---): run, validate and estimate read one config per file; rowsize and pg-check read several',
            }
          : /call stack/i.test(e.message)
            ? { ...at(e.pos[0]), message: 'expected YAML nested a few levels deep, found nesting too deep to read' }
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
        else if (problems.length < MAX_REPORTED_PROBLEMS)
          problems.push({
            ...at(pair.key.range[0]),
            message: `expected each key once in a mapping, found "${String(key)}" again (first at line ${lines.linePos(first).line})`,
          });
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
  const beyond = configLimitProblems(raw, loc);
  if (beyond.length) throw new InputError(beyond);
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
      if (!unresolved && isAlias(node) && node.resolve(doc) === undefined)
        unresolved = {
          ...pos,
          message: `expected an alias of an anchor defined before it, found *${node.source} with no anchor &${node.source} above`,
        };
    },
  });
  if (unresolved) return unresolved;
  if (/alias count/i.test((err as Error).message ?? '')) {
    return {
      ...(first ?? { file }),
      message: `expected aliases that expand to at most ${MAX_ALIAS_EXPANSIONS} nodes, found more (a YAML alias bomb?)`,
    };
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
  const read = readConfigText(file);
  if (!read.ok) throw new InputError([{ file, message: `expected ${read.problem}` }]);
  const source = read.text;
  if (!/^---/m.test(source)) return [source];
  const docs = parseAllDocuments(source, { uniqueKeys: false });
  if (!Array.isArray(docs) || docs.length <= 1) return [source];
  return docs.map((d) => `${source.slice(0, d.range[0]).replace(/[^\n]/g, '')}${source.slice(d.range[0], d.range[2])}`);
}
