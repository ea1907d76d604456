/**
 * Units of the config format: sizes (`2k` = 2048 bytes), durations (`250ns`, `5us`, `2ms`, `1s`, all
 * returned in nanoseconds), and percentages (`20%`). Pure functions; each throws UnitError with what
 * was expected, and the config layer adds file, line and key.
 */
class UnitError extends Error {}

const SIZE_RE = /^\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)[bB]?\s*$/;

/** A byte count from a number or a string such as `2k`, `8k`, `16k`, `1m` (k = 1024). */
export function parseSize(value: unknown): number {
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0) return value;
    throw new UnitError(`a whole number of bytes, found ${value}`);
  }
  if (typeof value === 'string') {
    const m = SIZE_RE.exec(value);
    if (m) {
      const mult = { '': 1, k: 1024, m: 1024 * 1024, g: 1024 * 1024 * 1024 }[m[2]!.toLowerCase()]!;
      const bytes = Number(m[1]) * mult;
      if (Number.isInteger(bytes)) return bytes;
    }
  }
  throw new UnitError(`a size such as 2048, 2k or 8k, found ${JSON.stringify(value)}`);
}

const DURATION_NS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9 };
const DURATION_RE = /^\s*(\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*(ns|us|µs|ms|s)\s*$/;

/** A duration in nanoseconds from `250ns`, `5us`, `2ms`, `1s` (a bare 0 is accepted as zero). */
export function parseDurationNs(value: unknown): number {
  if (value === 0) return 0;
  if (typeof value === 'string') {
    const m = DURATION_RE.exec(value);
    if (m) return Number(m[1]) * DURATION_NS[m[2]!]!;
  }
  throw new UnitError(`a duration such as 250ns, 5us, 2ms or 1s, found ${JSON.stringify(value)}`);
}

export type Count = { kind: 'count'; n: number } | { kind: 'percent'; pct: number } | { kind: 'all' };

/** A row count: a whole number, a percentage such as `20%`, or `all`. */
export function parseCount(value: unknown): Count {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return { kind: 'count', n: value };
  if (value === 'all') return { kind: 'all' };
  if (typeof value === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(value);
    if (m && Number(m[1]) <= 100) return { kind: 'percent', pct: Number(m[1]) };
  }
  throw new UnitError(`a row count, a percentage up to 100% such as 20%, or all, found ${JSON.stringify(value)}`);
}

/** Resolve a count against the number of rows it refers to. Percentages round to the nearest row. */
export function resolveCount(count: Count, of: number): number {
  switch (count.kind) {
    case 'count':
      return count.n;
    case 'percent':
      return Math.round((of * count.pct) / 100);
    case 'all':
      return of;
  }
}

/** Bytes in a compact human form: 2048 → "2k", 1536 → "1536". */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024}k`;
  return String(bytes);
}

/** A label as a name part (file names, HTML ids): lower case, runs of anything but a–z and 0–9 as one `-`; `empty` when nothing is left. */
export function slug(text: string, empty = 'base'): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || empty
  );
}
