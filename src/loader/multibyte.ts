/**
 * engine.multibyte_share and multibyte_widths.N given as distributions (a share that differs from value
 * to value, docs/config.md "engine"): each is checked and resolved, its mean takes its place among the
 * settings (what the formats size char(n) and declared lengths by), and the distributions go to
 * EngineSpec.multibyte_vary, which the runner draws a share from for every value.
 */
import { shareDistSchema } from '../config/schema.js';
import type { ShareDist } from '../config/spec.js';
import type { KeyPath } from '../config/errors.js';
import { Problems, zodCheck } from './problems.js';

type Vary = [ShareDist | null, ShareDist | null, ShareDist | null];

/** The mean of a share distribution, its draws clipped to 0 … 1 (a normal one's mean as given). */
export function shareMean(d: ShareDist): number {
  switch (d.kind) {
    case 'uniform':
      return (d.min + d.max) / 2;
    case 'normal':
      return d.mean;
    case 'choice': {
      const total = d.weights.reduce((s, w) => s + w, 0);
      return d.values.reduce((s, v, i) => s + (v * d.weights[i]!) / total, 0);
    }
  }
}

function resolveShareDist(raw: unknown, path: KeyPath, P: Problems): ShareDist | undefined {
  const d = zodCheck(shareDistSchema, raw, path, P);
  if (!d) return undefined;
  if ('uniform' in d) {
    const [min, max] = d.uniform;
    if (max < min) {
      P.add([...path, 'uniform'], `expected [min, max] with min ≤ max, found [${min}, ${max}]`);
      return undefined;
    }
    return { kind: 'uniform', min, max };
  }
  if ('normal' in d) return { kind: 'normal', mean: d.normal[0], sd: d.normal[1] };
  const values: number[] = [];
  const weights: number[] = [];
  for (const [k, w] of Object.entries(d.choice)) {
    const v = Number(k);
    if (k.trim() === '' || !Number.isFinite(v) || v < 0 || v > 1) {
      P.add([...path, 'choice', k], `expected a share (0 … 1) as key, found "${k}"`, true);
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

const isDist = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The engine section with each multibyte distribution replaced by its mean, and the distributions
 * (undefined: none given); null when one of them is wrong (problems added).
 */
export function splitMultibyteDists(raw: unknown, P: Problems): { engine: unknown; vary?: Vary } | null {
  if (!isDist(raw)) return { engine: raw };
  const e = { ...(raw as Record<string, unknown>) };
  const vary: Vary = [null, null, null];
  let found = false;
  let ok = true;
  const take = (value: unknown, path: KeyPath, width: number, put: (mean: number) => void) => {
    if (!isDist(value)) return;
    const d = resolveShareDist(value, path, P);
    if (!d) {
      ok = false;
      return;
    }
    vary[width - 2] = d;
    found = true;
    put(shareMean(d));
  };
  take(e.multibyte_share, ['engine', 'multibyte_share'], 2, (m) => (e.multibyte_share = m));
  if (isDist(e.multibyte_widths)) {
    const w = { ...(e.multibyte_widths as Record<string, unknown>) };
    for (const width of [2, 3, 4]) take(w[width], ['engine', 'multibyte_widths', String(width)], width, (m) => (w[width] = m));
    e.multibyte_widths = w;
  }
  if (!ok) return null;
  return found ? { engine: e, vary } : { engine: e };
}
