/**
 * docs/results.md defines every key rowsim writes: each key of the shipped sim-configs' results.json,
 * estimate.json and rowsize --json output (test/golden) is named there. Keys that are the user's own
 * names (indexes, sweep parameters, allocation kinds by name, calibrated key paths) are not keys of the
 * format and are passed over.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

/** Objects whose keys are names the config or the table chose, not keys results.md defines. */
const NAMED_BY_THE_USER = new Set([
  'region',
  'collapsed_cells',
  'bimodal_cells',
  'lockless_collapsed_cells',
  'by_index',
  'levels',
  'nonleaf_by_index',
  'indexes',
  'index_entry_bytes',
  'params',
  'values',
  'replaced',
  'sources',
  'by_kind',
]);

/** Every key of `value` (at most `depth` objects deep), as `path.to.key`, except under NAMED_BY_THE_USER. */
export function keysOf(value: unknown, path = '', depth = 8): { key: string; path: string }[] {
  if (value === null || typeof value !== 'object' || depth === 0) return [];
  if (Array.isArray(value)) return value.slice(0, 5).flatMap((v) => keysOf(v, `${path}[]`, depth));
  return Object.entries(value as Record<string, unknown>).flatMap(([key, v]) => [
    { key, path: path ? `${path}.${key}` : key },
    ...(NAMED_BY_THE_USER.has(key) ? [] : keysOf(v, path ? `${path}.${key}` : key, depth - 1)),
  ]);
}

/** The keys of `keys` that `doc` never names as a code span (`key`, or inside one such as `{ total, by_kind }`). */
export function undefinedKeys(keys: { key: string; path: string }[], doc: string): string[] {
  // Code spans line by line, fenced blocks (whose backticks would pair wrongly) left out.
  const lines = doc.split('\n');
  const prose = lines.filter(
    (_, i) => lines.slice(0, i + 1).filter((l) => /^\s*```/.test(l)).length % 2 === 0 && !/^\s*```/.test(lines[i]!),
  );
  const spans = prose.flatMap((line) => [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  // … and the keys of the JSON examples in fenced blocks ("key": …).
  const example = lines.filter((l) => !prose.includes(l)).flatMap((l) => [...l.matchAll(/"([A-Za-z0-9_]+)"\s*:/g)].map((m) => m[1]!));
  const named = new Set([...spans.flatMap((s) => s.split(/[^A-Za-z0-9_]+/)), ...example].filter(Boolean));
  const missing = new Map<string, string>();
  for (const { key, path } of keys) if (!named.has(key) && !missing.has(key)) missing.set(key, path);
  return [...missing].map(([key, path]) => `${key} (at ${path})`);
}

describe('docs/results.md against what rowsim writes', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'results.md'), 'utf8');
  const golden = join(ROOT, 'test', 'golden');
  it.each(readdirSync(golden).filter((f) => f.endsWith('.json')))('names every key of %s', (file) => {
    const keys = keysOf(JSON.parse(readFileSync(join(golden, file), 'utf8')));
    expect(keys.length).toBeGreaterThan(10);
    expect(undefinedKeys(keys, doc)).toEqual([]);
  });

  it("the check finds a key the page does not name, and passes the user's own names", () => {
    const keys = keysOf({ final: { pages: 1, warp_factor: 2, index_pages: { by_index: { my_idx: 3 } } } });
    expect(undefinedKeys(keys, 'the `final` block: `pages`, `index_pages` `{ total, by_index }`')).toEqual([
      'warp_factor (at final.warp_factor)',
    ]);
  });
});
