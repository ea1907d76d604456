/**
 * The objects the engines read in their hot loops keep one shape (one V8 map) however many runs a
 * process makes. A run builds its table layout and index geometries afresh; when they were made by
 * spreading (`{ ...defaults, ...fields }`), V8 gave them a map of their own each time once a process had
 * made a few (from the eighth on, or at once where the spread object varied), and every run from then on
 * deoptimised the code that read them: postgres-heap's inserts ran 2–3 times and its updates 15–30%
 * slower from the ninth run of a process on. V8's maps are only visible with --allow-natives-syntax, so
 * the check runs in a child process over the built dist/ (the bench's config from its build, bench/dist/).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';
import { BENCH_DIST } from '../bench/paths.js';

/** For each format: the first of 40 layouts at which the named object's map differs from the first's (−1: none). */
function firstNewMap(): Record<string, Record<string, number>> {
  const dist = (p: string) => JSON.stringify(pathToFileURL(join(ROOT, 'dist', p)).href);
  const script = `
    const { loadConfig } = await import(${dist('loader/config.js')});
    const { getFormat, indexGeometries, availableFormats } = await import(${dist('formats/registry.js')});
    const { BENCH_CONFIG_FILE, storageBenchConfig } = await import(${JSON.stringify(pathToFileURL(join(BENCH_DIST, 'storage.js')).href)});
    const same = new Function('a', 'b', 'return %HaveSameMap(a, b)');
    const out = {};
    for (const fmt of availableFormats()) {
      const spec = loadConfig(BENCH_CONFIG_FILE, storageBenchConfig(1000, fmt, 'random')).storage[0].spec;
      const f = getFormat(fmt);
      const parts = (layout) => ({ layout, column: layout.columns[2], geometry: indexGeometries(f, spec.table, layout)[0], ...(layout.pg ? { pgInfo: layout.pg } : {}) });
      const first = parts(f.rows.layout(spec.table, spec.engine));
      const at = Object.fromEntries(Object.keys(first).map((k) => [k, -1]));
      for (let i = 1; i < 40; i++) {
        const p = parts(f.rows.layout(spec.table, spec.engine));
        for (const k of Object.keys(at)) if (at[k] < 0 && !same(first[k], p[k])) at[k] = i;
      }
      out[fmt] = at;
    }
    console.log(JSON.stringify(out));
  `;
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Record<string, Record<string, number>>;
}

describe('hot objects keep one map from run to run', () => {
  it("every format's table layout, a column's layout and index geometry, and postgres-heap's row-format facts: one map over 40 layouts", () => {
    const seen = firstNewMap();
    expect(Object.keys(seen).sort()).toEqual(['ase-apl', 'ase-dol', 'innodb', 'oracle-heap', 'postgres-heap', 'sqlserver-heap']);
    for (const [fmt, at] of Object.entries(seen)) {
      expect(Object.keys(at).length, fmt).toBeGreaterThanOrEqual(3);
      for (const [what, i] of Object.entries(at)) expect({ fmt, what, firstNewMapAt: i }).toEqual({ fmt, what, firstNewMapAt: -1 });
    }
    expect(Object.keys(seen['postgres-heap']!)).toContain('pgInfo');
  });
});
