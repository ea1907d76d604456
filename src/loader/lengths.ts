/**
 * Length distributions and lengths in a given order, resolved from the config (`length:`, `grow:`) and
 * the CSV files they name. Every length written is checked against the column it is for: a value the
 * column cannot hold (over its declared length, a numeric's precision, or the longest large object
 * rowsim keeps) is refused where it is written — a number, a choice or histogram length, a length in
 * order, a uniform's min, a normal's mean, a lognormal's median — as are fractions among the lengths
 * themselves and cells that are not decimal numbers. The draws of a distribution's upper part (a
 * uniform's up to a larger max, a normal's or lognormal's tail) are clipped to the column (docs/config.md).
 */
import { resolve as resolvePath } from 'node:path';
import type { KeyPath } from '../config/errors.js';
import { readInputText } from '../config/read.js';
import type { DistInput } from '../config/schema.js';
import type { ColumnDef, Dist } from '../config/spec.js';
import { groupedNumber } from '../util/numbers.js';
import { LOB_MAX_BYTES } from '../workload/row-values.js';
import type { Problems } from './problems.js';

/** The longest length a column's values can have, in the units its lengths count, and why (for messages). */
export interface LengthBound {
  max: number;
  why: string;
}

/** Any column: the longest value rowsim keeps a length for. */
export const ANY_LENGTH: LengthBound = {
  max: LOB_MAX_BYTES,
  why: "the longest large object rowsim keeps: SQL Server's and ASE's 2 GB limit",
};

/** The longest length of `col`: its declared length (characters or bytes), a numeric's digits, else ANY_LENGTH. */
export function lengthBound(col: ColumnDef): LengthBound {
  const t = col.type;
  if (t.family === 'numeric') return { max: t.precision, why: `${col.name} is ${t.sql}: digits up to its precision` };
  const declared = t.family === 'char' || t.family === 'varchar' || t.family === 'binary' || t.family === 'varbinary';
  if (declared && !t.lob) return { max: t.length, why: `${col.name} is ${t.sql}` };
  return ANY_LENGTH;
}

/** `from 0 to N`, what else is allowed (`or null`), then why N. */
const range = (b: LengthBound, orElse = ''): string => `from 0 to ${groupedNumber(b.max)}${orElse} (${b.why})`;

/** A decimal number as a CSV writes one (3000, 3000.0, 3e3); not 0x10, Infinity or 1_000. */
const DECIMAL = /^\+?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/** What was expected of `v`, a length in order, when it is not a whole length the bound allows (`orElse`: NULL's spelling). */
function badLength(v: number, bound: LengthBound, orElse: string): string | undefined {
  if (!Number.isInteger(v) || v < 0) return `a whole length ≥ 0${orElse}`;
  if (v > bound.max) return `a length ${range(bound, orElse)}`;
  return undefined;
}

/** A length distribution (or lengths in order) at `path`; every length written must fit `bound`. */
export function resolveDist(d: DistInput, path: KeyPath, baseDir: string, P: Problems, bound = ANY_LENGTH): Dist | undefined {
  const over = (at: KeyPath, what: string, v: number, b = bound): boolean => {
    if (v <= b.max) return false;
    P.add(at, `expected ${what} ${range(b)}, found ${v}`);
    return true;
  };
  if (typeof d === 'number') return over(path, 'a length', d) ? undefined : { kind: 'const', value: d };
  if ('uniform' in d) {
    const [min, max] = d.uniform;
    if (min < 0 || max < min) {
      P.add([...path, 'uniform'], `expected [min, max] with 0 ≤ min ≤ max, found [${min}, ${max}]`);
      return undefined;
    }
    // Every draw over the column (min) is a contradiction; draws up to a larger max are clipped (docs/config.md).
    const at = [...path, 'uniform'];
    return over(at, 'a minimum length', min) || over(at, 'a maximum length', max, ANY_LENGTH) ? undefined : { kind: 'uniform', min, max };
  }
  if ('normal' in d) {
    const [mean, sd] = d.normal;
    if (sd < 0) {
      P.add([...path, 'normal'], `expected [mean, sd] with sd ≥ 0, found sd ${sd}`);
      return undefined;
    }
    return over([...path, 'normal'], 'a mean length', mean) ? undefined : { kind: 'normal', mean, sd };
  }
  if ('lognormal' in d) {
    const [median, sigma] = d.lognormal;
    if (median <= 0 || sigma < 0) {
      P.add([...path, 'lognormal'], `expected [median, sigma] with median > 0 and sigma ≥ 0, found [${median}, ${sigma}]`);
      return undefined;
    }
    return over([...path, 'lognormal'], 'a median length', median) ? undefined : { kind: 'lognormal', median, sigma };
  }
  if ('choice' in d) return resolveChoice(d.choice, [...path, 'choice'], P, bound);
  if ('sequence' in d) return resolveSequence(d.sequence, [...path, 'sequence'], P, bound);
  if ('csv' in d) return readLengthsCsv(resolvePath(baseDir, d.csv), d.column, [...path, 'csv'], P, bound);
  return readHistogram(resolvePath(baseDir, d.histogram), [...path, 'histogram'], P, bound);
}

function resolveChoice(choice: Record<string, number>, path: KeyPath, P: Problems, bound: LengthBound): Dist | undefined {
  const values: number[] = [];
  const weights: number[] = [];
  for (const [k, w] of Object.entries(choice)) {
    const v = Number(k);
    if (!DECIMAL.test(k.trim()) || !Number.isFinite(v) || v < 0) {
      P.add([...path, k], `expected a length (a number ≥ 0) as key, found "${k}"`, true);
      return undefined;
    }
    if (v > bound.max && w > 0) {
      P.add([...path, k], `expected a length ${range(bound)} as key, found "${k}"`, true);
      return undefined;
    }
    values.push(v);
    weights.push(w);
  }
  if (weights.reduce((s, w) => s + w, 0) <= 0) {
    P.add(path, 'expected at least one positive weight, found none');
    return undefined;
  }
  return { kind: 'choice', values, weights };
}

/** The lengths themselves: whole, within the bound; null is NULL (−1). */
function resolveSequence(sequence: (number | null)[], path: KeyPath, P: Problems, bound: LengthBound): Dist | undefined {
  const values: number[] = [];
  for (const [i, v] of sequence.entries()) {
    const bad = v === null ? undefined : badLength(v, bound, ', or null for NULL');
    if (bad) {
      P.add([...path, i], `expected ${bad}, found ${v}`);
      return undefined;
    }
    values.push(v === null ? -1 : v);
  }
  return { kind: 'sequence', values };
}

/** The lines of a CSV file that hold something (not blank, not a `#` comment), with their numbers; null: not readable (a problem at `path`). */
function csvLines(file: string, path: KeyPath, P: Problems): { line: number; text: string; cells: string[] }[] | null {
  const read = readInputText(file);
  if (!read.ok) {
    P.add(path, `expected a readable CSV file at ${file}: ${read.problem}`);
    return null;
  }
  return read.text
    .split(/\r?\n/)
    .map((text, i) => ({ line: i + 1, text, cells: text.split(/[,;\t]/).map((c) => c.trim()) }))
    .filter((l) => l.text.trim() !== '' && !l.text.trim().startsWith('#'));
}

/** Which cell of a lengths CSV holds the lengths (0-based) and its header line; undefined after a problem. */
function lengthsColumn(
  file: string,
  lines: { line: number; cells: string[] }[],
  column: string | number | undefined,
  P: Problems,
): { at: number; header: { line: number; cells: string[] } | undefined } | undefined {
  const first = lines[0];
  const header = first && first.cells.some((c) => c !== '' && !DECIMAL.test(c)) ? first : undefined;
  if (typeof column === 'string') {
    const at = header ? header.cells.findIndex((c) => c.replace(/^"|"$/g, '') === column) : -1;
    if (at >= 0) return { at, header };
    P.push({
      file,
      line: header?.line ?? 1,
      column: 1,
      message: `expected a header line naming column "${column}", found ${header ? header.cells.join(', ') : 'none'}`,
    });
    return undefined;
  }
  if (column === undefined && first && first.cells.length > 1) {
    P.push({
      file,
      line: first.line,
      column: 1,
      message: `expected one column of lengths, or csv.column naming one of ${first.cells.length}`,
    });
    return undefined;
  }
  return { at: typeof column === 'number' ? column - 1 : 0, header };
}

/**
 * A CSV of lengths, one value a line in the order the phase takes them: the only column, or the one
 * `column` names (by its header, or 1-based); an optional header line; an empty cell is NULL. A column
 * of empty cells only is refused (more likely the wrong column than a column of NULLs).
 */
function readLengthsCsv(
  file: string,
  column: string | number | undefined,
  path: KeyPath,
  P: Problems,
  bound: LengthBound,
): Dist | undefined {
  const lines = csvLines(file, path, P);
  if (!lines) return undefined;
  const found = lengthsColumn(file, lines, column, P);
  if (!found) return undefined;
  const { at, header } = found;
  const values: number[] = [];
  for (const l of lines) {
    if (l === header) continue;
    if (at >= l.cells.length) {
      const n = l.cells.length;
      P.push({ file, line: l.line, column: 1, message: `expected a length in column ${at + 1}, found ${n} column${n === 1 ? '' : 's'}` });
      return undefined;
    }
    const cell = l.cells[at]!;
    const orElse = ', or nothing for NULL';
    const bad = cell === '' ? undefined : DECIMAL.test(cell) ? badLength(Number(cell), bound, orElse) : `a whole length ≥ 0${orElse}`;
    if (bad) {
      P.push({ file, line: l.line, column: l.text.indexOf(cell) + 1, message: `expected ${bad}, found "${cell}"` });
      return undefined;
    }
    values.push(cell === '' ? -1 : Number(cell));
  }
  if (!values.some((v) => v >= 0)) {
    const n = values.length;
    const found = n ? `only ${n} empty cell${n === 1 ? '' : 's'} (NULLs; for NULLs only, give { sequence: [null] })` : 'none';
    P.push({ file, line: header?.line ?? 1, column: 1, message: `expected at least one length, found ${found}` });
    return undefined;
  }
  return { kind: 'sequence', values };
}

/**
 * A histogram CSV: one `length,count` (or weight) per line, an optional header line, `#` comments. A
 * length the column cannot hold is refused where its count is above 0.
 */
function readHistogram(file: string, path: KeyPath, P: Problems, bound: LengthBound): Dist | undefined {
  const lines = csvLines(file, path, P);
  if (!lines) return undefined;
  const values: number[] = [];
  const weights: number[] = [];
  for (const [i, { line, text, cells }] of lines.entries()) {
    const problem = (column: number, message: string): undefined => void P.push({ file, line, column, message });
    if (cells.length > 2) return problem(text.indexOf(cells[2]!) + 1, `expected two columns, length and count, found ${cells.length}`);
    if (i === 0 && !DECIMAL.test(cells[0]!)) continue; // a header line: its first cell no length
    if (cells.length < 2) return problem(1, `expected two columns, length and count, found "${text.trim()}"`);
    const [lengthCell, countCell] = cells as [string, string];
    const v = Number(lengthCell);
    const w = Number(countCell);
    if (!DECIMAL.test(lengthCell) || !Number.isInteger(v) || v < 0)
      return problem(1, `expected a whole length ≥ 0 in column 1, found "${lengthCell}"`);
    if (!DECIMAL.test(countCell) || !Number.isFinite(w) || w < 0)
      return problem(text.indexOf(countCell) + 1, `expected a count ≥ 0 in column 2, found "${countCell}"`);
    if (v > bound.max && w > 0) return problem(1, `expected a length ${range(bound)} in column 1, found "${lengthCell}"`);
    values.push(v);
    weights.push(w);
  }
  if (values.length === 0 || weights.reduce((s, w) => s + w, 0) <= 0) {
    P.push({ file, line: 1, column: 1, message: 'expected at least one length with a positive count, found none' });
    return undefined;
  }
  return { kind: 'choice', values, weights };
}
