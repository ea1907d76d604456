/**
 * Parsers of command-line option values. Each throws commander's InvalidArgumentError, which the CLI
 * reports with the option's name and exit status 2. Kept apart from the commands so that `rowsim
 * --help` loads nothing else.
 */
import { InvalidArgumentError } from './commander.js';
import { CALIBRATE_DEFAULTS, CALIBRATE_RANGES, RUN_RANGES, type Range } from '../config/defaults.js';
import { ESTIMATE_DEFAULTS, ESTIMATE_RANGES } from '../estimate/types.js';
import { groupedNumber } from '../util/numbers.js';

/** Rows rowsize simulates per format: what a laptop does in seconds. */
const ROWSIZE_ROWS: Range = { min: 1, max: 50_000_000 };
const ROW_COUNT: Range = { min: 1, max: 1e15 };

/** A whole number in `range` (underscores and 1e6 notation accepted where `scientific`). */
function wholeNumber(value: string, { min, max }: Range, what: string, example: string | number, scientific = false): number {
  const text = value.trim().replace(/_/g, '');
  const n = Number(text);
  const ok = scientific ? text !== '' && Number.isInteger(n) : /^\d+$/.test(text);
  if (!ok || n < min || n > max) {
    throw new InvalidArgumentError(
      `expected a whole number of ${what} from ${groupedNumber(min)} to ${groupedNumber(max)}${example ? `, such as ${example}` : ''}, found "${value}"`,
    );
  }
  return n;
}

export const parseWorkers = (value: string): number => wholeNumber(value, RUN_RANGES.workers, 'worker threads', '');
export const parseMaxPoints = (value: string): number => wholeNumber(value, RUN_RANGES.maxSweepPoints, 'sweep points', '');
export const parseSeeds = (value: string): number => wholeNumber(value, ESTIMATE_RANGES.seeds, 'seeds', '');
export const parseRowCount = (value: string): number => wholeNumber(value, ROW_COUNT, 'rows', '1000000 or 1e9', true);
export const parseSampleRows = (value: string): number =>
  wholeNumber(value, ESTIMATE_RANGES.sample_rows, 'sample rows', ESTIMATE_DEFAULTS.sample_rows, true);
export const parseRowsizeRows = (value: string): number => wholeNumber(value, ROWSIZE_ROWS, 'rows', '1000000 or 1e6', true);

/** A percentage of rows above 0 and at most 100 (`1`, `0.5`, `2%`). */
export function parseTarget(value: string): number {
  const n = Number(value.trim().replace(/%$/, ''));
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n > 100)
    throw new InvalidArgumentError(`expected a percentage of rows above 0 and at most 100, such as 1 or 0.5, found "${value}"`);
  return n;
}

/**
 * A comma-separated list of one or more format names. Which names exist is the format registry's to say:
 * the command checks them (main.ts checkFormatNames), so that `--help` does not load the formats.
 */
/** The items of a comma-separated list; an empty one (`1,,2`, `a,`) is refused with `expected`. */
function commaList(value: string, expected: string): string[] {
  const list = value.split(',').map((v) => v.trim());
  if (list.some((v) => v === ''))
    throw new InvalidArgumentError(`expected ${expected}, with no empty item between commas, found "${value}"`);
  return list;
}

export function parseFormatList(value: string): string[] {
  return commaList(value, 'one or more formats (such as postgres-heap,oracle-heap) separated by commas');
}

/** One format name (checked against the registry by the command, as for parseFormatList). */
export function parseFormat(value: string): string {
  return value.trim();
}

/** A page size: 2048, 2k, 4k, 8k, 16k (which sizes a format accepts is checked with the config). */
export function parsePageSize(value: string): number {
  const m = /^\s*(\d+)\s*([kK])?\s*$/.exec(value);
  const n = m ? Number(m[1]) * (m[2] ? 1024 : 1) : NaN;
  if (!m || !Number.isInteger(n) || n < 1024 || n > 65536)
    throw new InvalidArgumentError(`expected a page size such as 2k, 4k, 8k or 16k, found "${value}"`);
  return n;
}

/** Milliseconds a calibration run lasts (50 … 60,000). */
export const parseDurationMs = (value: string): number =>
  wholeNumber(value, CALIBRATE_RANGES.durationMs, 'milliseconds', CALIBRATE_DEFAULTS.durationMs);
export const parseRepeats = (value: string): number => wholeNumber(value, CALIBRATE_RANGES.repeats, 'repeats', CALIBRATE_DEFAULTS.repeats);

/** A comma-separated list of thread counts from 1 to 256 (`1,2` or `1,2,4`). */
export function parseThreadList(value: string): number[] {
  const parts = commaList(
    value,
    `thread counts from ${CALIBRATE_RANGES.threads.min} to ${CALIBRATE_RANGES.threads.max} separated by commas, such as 1,2`,
  );
  const list = parts.map((p) => wholeNumber(p, CALIBRATE_RANGES.threads, 'threads', '1,2'));
  return [...new Set(list)].sort((a, b) => a - b);
}

/** A page number from 0 (which pages exist is the table's to say: the command checks). */
export const parsePageNumber = (value: string): number => wholeNumber(value, { min: 0, max: 2 ** 31 - 1 }, 'a page number from 0', 3);
/** A row id from 0. */
export const parseRowId = (value: string): number => wholeNumber(value, { min: 0, max: 2 ** 31 - 1 }, 'a row id from 0', 17);
/** After which phase: its number from 1, or `final`. */
export function parsePhase(value: string): number | 'final' {
  if (value.trim() === 'final') return 'final';
  return wholeNumber(value, { min: 1, max: 10_000 }, 'a phase number from 1 (or "final")', 2);
}
/** How the page is written: svg, png, text, json, or files (svg and png, with the text on the terminal). */
export function parsePageOutput(value: string): 'svg' | 'png' | 'text' | 'json' | 'files' {
  const v = value.trim();
  if (v === 'svg' || v === 'png' || v === 'text' || v === 'json' || v === 'files') return v;
  throw new InvalidArgumentError(`expected one of svg, png, text, json, files, found "${value}"`);
}
/** A parser of a scale from 1 to `max`, its refusal worded with `what`, an example and why the bound. */
function scaleParser(what: string, max: number, example: string, why = ''): (value: string) => number {
  return (value) => {
    const n = Number(value.trim());
    if (value.trim() === '' || !Number.isFinite(n) || n < 1 || n > max)
      throw new InvalidArgumentError(`expected ${what} from 1 to ${max}, such as ${example}, found "${value}"${why}`);
    return n;
  };
}
/** A PNG scale for projectors: 1 to 4. */
export const parseImageScale = scaleParser('a scale', 4, '2');
/** A slide deck's lettering scale: above 1.5 the sentences of a long step leave its drawings too little of a 16:9 slide. */
export const DECK_SCALE_MAX = 1.5;
export const parseDeckScale = scaleParser(
  'a lettering scale',
  DECK_SCALE_MAX,
  '1.4',
  " (larger lettering leaves a long step's drawings no room on a 16:9 slide)",
);
/** Rows a..b (or one row id). */
export function parseRowRange(value: string): [number, number] {
  const m = /^\s*(\d+)\s*(?:(?:\.\.|-)\s*(\d+)\s*)?$/.exec(value);
  const a = m ? Number(m[1]) : NaN;
  const b = m ? Number(m[2] ?? m[1]) : NaN;
  if (!m || b < a) throw new InvalidArgumentError(`expected a row id or a range of row ids such as 10..20, found "${value}"`);
  return [a, b];
}
export const parseSteps = (value: string): number => wholeNumber(value, { min: 1, max: 100_000 }, 'steps', 50);

/** `--shard K/N`: part K of N, 1 ≤ K ≤ N (a scheduler's array index from 0 is K − 1). */
export function parseShard(value: string): { index: number; count: number } {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  const k = m ? Number(m[1]) : NaN;
  const n = m ? Number(m[2]) : NaN;
  const { max } = RUN_RANGES.shards;
  if (!m || n < 1 || n > max || k < 1 || k > n) {
    const why = m && n >= 1 && n <= max ? ` (K counts from 1 to N = ${n})` : '';
    throw new InvalidArgumentError(
      `expected K/N, part K of N parts with 1 ≤ K ≤ N ≤ ${groupedNumber(max)}, such as 2/3, found "${value}"${why}`,
    );
  }
  return { index: k, count: n };
}
