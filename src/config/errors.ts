/**
 * Operating errors for bad input (YAML, CSV, DDL, arguments): what the user must fix, where. The CLI
 * prints `file:line:column: key.path: message` and exits with status 2.
 */

export type KeyPath = readonly (string | number)[];

export interface InputProblem {
  file: string;
  line?: number;
  column?: number;
  /** Dotted key path such as `engine.exp_row_size` or `workload[1].update.set.summary`. */
  key?: string;
  message: string;
}

/**
 * A problem the user must fix (a file, an argument, a folder): the CLI prints the message as it is, on
 * one line where it can, and exits with status 2. Never a stack trace.
 */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

/**
 * Worker threads cannot throw a UserError across the thread boundary (errors arrive as plain Errors):
 * a worker marks a user's error with this prefix on its message, and the pool turns it back.
 */
export const WORKER_USER_ERROR_PREFIX = 'rowsim-user-error: ';

/**
 * A user's error as printed: every line begins with `error: `, as commander's own errors do (one prefix
 * for every refusal, whatever found it).
 */
export function errorText(message: string): string {
  return message
    .split('\n')
    .map((line) => (line.startsWith('error: ') ? line : `error: ${line}`))
    .join('\n');
}

/** Most problems reported at once; the rest are counted in one last line. */
export const MAX_REPORTED_PROBLEMS = 50;

export class InputError extends UserError {
  readonly problems: InputProblem[];
  constructor(problems: InputProblem[]) {
    const shown = problems.slice(0, MAX_REPORTED_PROBLEMS).map(formatProblem);
    if (problems.length > MAX_REPORTED_PROBLEMS)
      shown.push(`… and ${problems.length - MAX_REPORTED_PROBLEMS} more problems (the first ${MAX_REPORTED_PROBLEMS} are shown)`);
    super(shown.join('\n'));
    this.problems = problems;
    this.name = 'InputError';
  }
}

function formatProblem(p: InputProblem): string {
  let where = p.file;
  if (p.line !== undefined) where += `:${p.line}${p.column !== undefined ? `:${p.column}` : ''}`;
  return `${where}: ${p.key ? `${p.key}: ` : ''}${p.message}`;
}

export function keyPathString(path: KeyPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

/** Describe a found value briefly for messages. */
export function describeFound(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list';
  if (typeof value === 'object' && Object.keys(value).length === 0) return 'an empty mapping';
  return 'a mapping';
}

/** Levenshtein distance, for "did you mean" suggestions. */
function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(word.length / 2)) ? best : undefined;
}
