/**
 * docs/config.md cannot drift from the schemas: every key a section's schema accepts has a row in that
 * section's table (between its markers), with the schema's default in the row and every value an enum
 * allows. A key added to a schema without documentation, or a default changed in one place only, fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { PHASE_SCHEMAS, cacheSchema, costsSchema, tableSchema } from '../src/config/schema.js';
import { engineSchema } from '../src/loader/storage.js';
import { contentionSchema } from '../src/contention/schema.js';
import { estimateSchema } from '../src/loader/estimate-section.js';
import { ENGINE_DEFAULTS } from '../src/formats/registry.js';
import { ROOT } from './helpers/cli.js';

interface KeyFacts {
  path: string;
  default?: unknown;
  values?: string[];
}

type Def = { type: string; [k: string]: unknown };
const defOf = (s: unknown): Def => (s as { _zod: { def: Def } })._zod.def;

/** Every key an object schema accepts, with its default and enum values, as dotted paths (`[]` for list items). */
function schemaKeys(schema: unknown, prefix = '', placeholder = '<key>'): KeyFacts[] {
  let s = schema;
  let dflt: unknown;
  for (let i = 0; i < 10; i++) {
    const d = defOf(s);
    if (d.type === 'default' || d.type === 'prefault')
      dflt = typeof d.defaultValue === 'function' ? (d.defaultValue as () => unknown)() : d.defaultValue;
    if (['optional', 'default', 'prefault', 'nullable', 'readonly'].includes(d.type)) s = d.innerType;
    else if (d.type === 'pipe') s = d.in;
    else break;
  }
  const d = defOf(s);
  if (d.type === 'object') {
    return Object.entries(d.shape as Record<string, unknown>).flatMap(([k, v]) =>
      schemaKeys(v, prefix ? `${prefix}.${k}` : k, placeholder),
    );
  }
  if (d.type === 'array' && defOf(d.element).type === 'object') return schemaKeys(d.element, `${prefix}[]`, placeholder);
  if (d.type === 'record') return schemaKeys(d.valueType, `${prefix}.${placeholder}`, placeholder);
  const facts: KeyFacts = { path: prefix };
  if (dflt !== undefined) facts.default = dflt;
  if (d.type === 'enum') facts.values = Object.values(d.entries as Record<string, string>);
  return [facts];
}

/** The rows of a section's key table in docs/config.md: first cell (its backticked keys) → the whole row. */
function documentedRows(section: string): { keys: string[]; row: string; cells: string[]; defaultAt: number }[] {
  const text = readFileSync(join(ROOT, 'docs', 'config.md'), 'utf8');
  const start = text.indexOf(`<!-- generated: ${section} -->`);
  const end = text.indexOf(`<!-- end generated: ${section} -->`);
  expect(start, `docs/config.md has the ${section} markers`).toBeGreaterThanOrEqual(0);
  const lines = text.slice(start, end).split('\n');
  const header = (lines.find((l) => l.startsWith('| key')) ?? '').split('|').map((c) => c.trim());
  const defaultAt = header.indexOf('default');
  return lines
    .filter((l) => l.startsWith('| `'))
    .map((row) => ({ keys: [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!), row, cells: row.split('|'), defaultAt }));
}

function check(section: string, keys: KeyFacts[], docPath: (k: string) => string, defaults: Record<string, unknown> = {}): string[] {
  const rows = documentedRows(section);
  const problems: string[] = [];
  for (const k of keys) {
    const name = docPath(k.path);
    const found = rows.find((r) => r.keys.includes(name));
    if (!found) {
      problems.push(`${section}: no row for \`${name}\``);
      continue;
    }
    const dflt = k.default ?? defaults[k.path];
    if (dflt !== undefined) {
      const wanted = Array.isArray(dflt) ? dflt.map(String) : [typeof dflt === 'number' ? dflt.toLocaleString('en-US') : String(dflt)];
      const defaultCell = found.cells[found.defaultAt] ?? found.row;
      for (const w of wanted)
        if (!defaultCell.includes(w) && !defaultCell.includes(w.replace(/,/g, '')))
          problems.push(`${section}: \`${name}\` documents default ${defaultCell.trim()}, the schema's is ${w}`);
    }
    for (const v of k.values ?? [])
      if (!found.row.includes(v)) problems.push(`${section}: \`${name}\` does not list the allowed value ${v}`);
  }
  return problems;
}

describe('docs/config.md against the schemas', () => {
  it("engine: every key, its default (the formats') and its allowed values", () => {
    const keys = schemaKeys(engineSchema());
    expect(check('engine', keys, (p) => p, ENGINE_DEFAULTS as unknown as Record<string, unknown>)).toEqual([]);
  });
  it('table: every key', () => {
    expect(check('table', schemaKeys(tableSchema), (p) => `table.${p}`)).toEqual([]);
  });
  it('workload: every key of every phase, and its allowed values', () => {
    const keys = Object.entries(PHASE_SCHEMAS).flatMap(([phase, schema]) => schemaKeys(schema, phase, '<column>'));
    expect(check('workload', keys, (p) => p)).toEqual([]);
  });
  it('cache and costs: every key, its default and its allowed values', () => {
    expect(check('reads', [...schemaKeys(cacheSchema, 'cache'), ...schemaKeys(costsSchema, 'costs')], (p) => p)).toEqual([]);
  });
  it('estimate: every key and its default', () => {
    expect(check('estimate', schemaKeys(estimateSchema() as unknown as z.ZodType), (p) => p)).toEqual([]);
  });
  it('contention: every key, its default and its allowed values', () => {
    expect(check('contention', schemaKeys(contentionSchema), (p) => p)).toEqual([]);
  });
  it('the checker finds a key the page lacks and a default that differs', () => {
    const problems = check('engine', [{ path: 'no_such_key' }, { path: 'fillfactor', default: 77 }], (p) => p);
    expect(problems).toEqual(['engine: no row for `no_such_key`', "engine: `fillfactor` documents default 100, the schema's is 77"]);
  });
});
