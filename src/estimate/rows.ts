/**
 * Measured row lengths: per-row data lengths (what `datalength()` summed over a row's columns returns)
 * at insert and now, read from a CSV, or synthesised from optdiag-style figures; and the mapping of a
 * row's data length onto the stored lengths of its columns. Pure except readLengthPairs (reads a file).
 */
import { readInputText } from '../config/read.js';
import type { Dist } from '../config/spec.js';
import type { InputProblem } from '../config/errors.js';
import type { StorageFormat } from '../formats/format.js';
import { MAX_STORED_LEN, NULL_LEN, type TableLayout } from '../layout/table-layout.js';

/** The data lengths a row of this table can have: fixed-length NOT NULL columns .. every column at its declared maximum. */
export function dataLengthRange(layout: TableLayout): { min: number; max: number } {
  return { min: layout.fixedNotNullBytes, max: layout.logicalMaxBytes };
}

/**
 * Write the stored lengths of the varying columns for a row of `dataLen` data bytes into
 * lens[base ..]. Nullable fixed-length columns are filled first (non-NULL) while they fit, the rest is
 * spread over the variable-length columns in proportion to their declared lengths. The sum of the
 * stored lengths is dataLen − fixed NOT NULL bytes whenever the columns can hold it exactly.
 */
export function fillRowLengths(layout: TableLayout, dataLen: number, lens: Uint16Array, base: number): void {
  const v = layout.varying;
  let rest = Math.max(0, dataLen - layout.fixedNotNullBytes);
  let varCapacity = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c.variableType) {
      varCapacity += Math.min(c.maxBytes, MAX_STORED_LEN);
      continue;
    }
    // A nullable fixed-length column: its value is all or nothing. Keep it NULL only when the
    // variable-length columns could not otherwise absorb the remainder exactly.
    if (rest >= c.fixedBytes) {
      lens[base + i] = c.fixedBytes;
      rest -= c.fixedBytes;
    } else {
      lens[base + i] = NULL_LEN;
    }
  }
  const share = varCapacity > 0 ? Math.min(1, rest / varCapacity) : 0;
  let placed = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (!c.variableType) continue;
    const n = Math.floor(Math.min(c.maxBytes, MAX_STORED_LEN) * share);
    lens[base + i] = n;
    placed += n;
  }
  let left = Math.min(rest, varCapacity) - placed;
  for (let i = 0; i < v.length && left > 0; i++) {
    const c = v[i]!;
    if (!c.variableType) continue;
    const room = Math.min(c.maxBytes, MAX_STORED_LEN) - lens[base + i]!;
    const add = Math.min(room, left);
    lens[base + i]! += add;
    left -= add;
  }
}

/**
 * The maximum-entropy distribution of whole lengths on [min, max] with the given mean: what optdiag's
 * minimum / average / maximum row length say and nothing more. p(x) ∝ exp(θ·x), θ found by bisection.
 */
export function maxEntropyLengths(min: number, max: number, mean: number): Dist {
  if (max <= min || mean <= min) return { kind: 'const', value: min };
  if (mean >= max) return { kind: 'const', value: max };
  const span = max - min;
  const n = span + 1;
  const meanFor = (theta: number): number => {
    // Normalise by the largest exponent to stay finite.
    const top = theta >= 0 ? theta * span : 0;
    let z = 0;
    let m = 0;
    for (let k = 0; k < n; k++) {
      const w = Math.exp(theta * k - top);
      z += w;
      m += w * k;
    }
    return min + m / z;
  };
  let lo = -400 / span;
  let hi = 400 / span;
  for (let it = 0; it < 200; it++) {
    const mid = (lo + hi) / 2;
    if (meanFor(mid) < mean) lo = mid;
    else hi = mid;
  }
  const theta = (lo + hi) / 2;
  const top = theta >= 0 ? theta * span : 0;
  const values: number[] = [];
  const weights: number[] = [];
  for (let k = 0; k < n; k++) {
    values.push(min + k);
    weights.push(Math.exp(theta * k - top));
  }
  return { kind: 'choice', values, weights };
}

export interface LengthPairs {
  insert: Int32Array;
  now: Int32Array;
}

const INSERT_NAMES = ['insert', 'insert_length', 'at_insert', 'inserted', 'before', 'initial'];
const NOW_NAMES = ['now', 'now_length', 'current', 'after', 'final'];

/** Where the lengths stand in the CSV's lines: as the header names them, or the first two cells. */
interface LengthColumns {
  /** Cells a data line may have: 2 (insert, now), or as many as the header names. */
  width: number;
  insertCol: number;
  nowCol: number;
  headerSeen: boolean;
}

/** The length range a row of the table can have, and the table's name for the message. */
interface LengthRange {
  min: number;
  max: number;
  table: string;
}

function isDataLine(line: string): boolean {
  const trimmed = line.trim();
  return trimmed !== '' && !trimmed.startsWith('#');
}

/** 1-based character column where cell `idx` of `line` starts (after leading blanks). */
function cellColumn(line: string, idx: number): number {
  let at = 0;
  for (let k = 0; k < idx; k++) {
    const next = line.slice(at).search(/[,;\t]/);
    if (next < 0) break;
    at += next + 1;
  }
  const rest = line.slice(at);
  return at + (rest.length - rest.trimStart().length) + 1;
}

/**
 * Read a CSV of per-row data lengths: `insert,now` per line (a header line naming the columns
 * insert and now is optional; without one the first two columns are taken), `#` comments. Every length
 * must be one a row of this table can have: [range.min, range.max]. Problems carry file, line, column.
 * The arrays live in shared memory, so worker threads read them without a copy.
 */
export function readLengthPairs(file: string, range: LengthRange): { pairs?: LengthPairs; problems: InputProblem[] } {
  const problems: InputProblem[] = [];
  const read = readInputText(file);
  if (!read.ok) return { problems: [{ file, message: `expected a readable CSV file of row lengths at ${file}: ${read.problem}` }] };
  const lines = read.text.split(/\r?\n/);
  // Count the data lines first, to size the shared arrays once.
  const count = lines.filter(isDataLine).length;
  const insert = new Int32Array(new SharedArrayBuffer(Math.max(1, count) * 4));
  const now = new Int32Array(new SharedArrayBuffer(Math.max(1, count) * 4));
  const columns: LengthColumns = { width: 2, insertCol: 0, nowCol: 1, headerSeen: false };
  let n = 0;
  for (let i = 0; i < lines.length && problems.length < 20; i++) {
    const line = lines[i]!;
    if (!isDataLine(line)) continue;
    const cells = line.split(/[,;\t]/).map((c) => c.trim());
    if (!columns.headerSeen && n === 0 && cells.some((c) => c !== '' && !Number.isFinite(Number(c)))) {
      const problem = readLengthHeader(cells, columns);
      if (problem === undefined) continue;
      problems.push({ file, line: i + 1, column: 1, message: `${problem}, found "${line.trim()}"` });
      break;
    }
    const pair = readLengthLine(file, i + 1, line, cells, columns, range, problems);
    if (!pair) continue;
    insert[n] = pair[0];
    now[n] = pair[1];
    n++;
  }
  if (problems.length === 0 && n === 0) {
    problems.push({ file, line: 1, column: 1, message: 'expected at least one row of lengths (insert,now), found none' });
  }
  if (problems.length) return { problems };
  return { pairs: { insert: insert.subarray(0, n), now: now.subarray(0, n) }, problems };
}

/** A header line: where it puts insert and now (into `columns`), or what was expected of it. */
function readLengthHeader(cells: string[], columns: LengthColumns): string | undefined {
  columns.headerSeen = true;
  const lower = cells.map((c) => c.toLowerCase());
  const ins = lower.findIndex((c) => INSERT_NAMES.includes(c));
  const nw = lower.findIndex((c) => NOW_NAMES.includes(c));
  if (ins < 0 || nw < 0)
    return 'expected a header naming the columns insert and now (or no header: the first two columns are insert and now)';
  columns.insertCol = ins;
  columns.nowCol = nw;
  columns.width = cells.length;
  return undefined;
}

/** One data line's [insert, now] lengths, or undefined with its problems added. */
function readLengthLine(
  file: string,
  lineNo: number,
  line: string,
  cells: string[],
  columns: LengthColumns,
  range: LengthRange,
  problems: InputProblem[],
): [number, number] | undefined {
  const trimmed = line.trim();
  const { width, insertCol, nowCol, headerSeen } = columns;
  if (cells.length > width) {
    problems.push({
      file,
      line: lineNo,
      column: cellColumn(line, width),
      message: `expected ${width} columns (${headerSeen ? 'as the header names' : "the row's data length at insert and now"}), found ${cells.length}: "${trimmed}"`,
    });
    return undefined;
  }
  const need = Math.max(insertCol, nowCol) + 1;
  if (cells.length < need) {
    problems.push({
      file,
      line: lineNo,
      column: line.length + 1,
      message: `expected ${need} columns (the row's data length at insert and now), found ${cells.length}: "${trimmed}"`,
    });
    return undefined;
  }
  let ok = true;
  const vals: number[] = [];
  for (const [idx, what] of [
    [insertCol, 'at insert'],
    [nowCol, 'now'],
  ] as const) {
    const cell = cells[idx]!;
    const v = Number(cell);
    const column = cellColumn(line, idx);
    if (cell === '' || !Number.isInteger(v) || v < 0) {
      problems.push({ file, line: lineNo, column, message: `expected a whole data length in bytes ${what}, found "${cell}"` });
      ok = false;
    } else if (v < range.min || v > range.max) {
      problems.push({
        file,
        line: lineNo,
        column,
        message: `expected a data length ${what} from ${range.min} to ${range.max} bytes (no row of table ${range.table} is shorter than its fixed-length NOT NULL columns or longer than its maximum data row length), found ${v}`,
      });
      ok = false;
    }
    vals.push(v);
  }
  return ok ? [vals[0]!, vals[1]!] : undefined;
}

/**
 * The data length whose physical row (on this format, with the data spread over the columns as
 * fillRowLengths does) is closest to `physBytes`: how a reported average row (optdiag's Data row size,
 * the DMV's avg_record_size_in_bytes, pgstattuple's tuple_len per tuple) becomes data bytes. Fractional
 * between the two whole lengths that bracket it.
 */
export function dataLengthFor(format: StorageFormat, layout: TableLayout, physBytes: number): number {
  const { min, max } = dataLengthRange(layout);
  const lens = new Uint16Array(Math.max(1, layout.varying.length));
  const phys = (d: number) => {
    fillRowLengths(layout, d, lens, 0);
    return format.rows.rowBytes(layout, lens, 0, format.rows.logicalBytes(layout, lens, 0));
  };
  if (physBytes <= phys(min)) return min - (phys(min) - physBytes);
  if (physBytes >= phys(max)) return max + (physBytes - phys(max));
  let lo = min;
  let hi = max;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (phys(mid) <= physBytes) lo = mid;
    else hi = mid;
  }
  const a = phys(lo);
  const b = phys(hi);
  return b > a ? lo + (physBytes - a) / (b - a) : lo;
}
