/**
 * The postgres-heap differential: every figure a run of postgres-heap gives (heap, index, TOAST, HOT,
 * dead, free: the whole storage result but the engine's count of its own memory, which a change of
 * structure is meant to move) reduced to one SHA-256, for the sim-configs that use the format and for
 * random workloads. test/postgres-differential.test.ts compares them with the digests recorded before a
 * change to the heap or B-tree structures (test/fixtures/postgres-digests.json); a change of structure
 * must leave every one as it was.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import type { StorageSpec } from '../../src/config/spec.js';
import { loadConfig } from '../../src/loader/config.js';
import { runStorage } from '../../src/workload/runner.js';
import { ROOT } from './cli.js';

/** The digest of a run's results, its memory count set apart. */
export function resultDigest(specs: readonly StorageSpec[]): string {
  const h = createHash('sha256');
  for (const spec of specs) h.update(JSON.stringify(runStorage(spec), (k, v: unknown) => (k === 'memory_bytes' ? undefined : v)));
  return h.digest('hex');
}

/** Every YAML file under sim-configs/ that names postgres-heap, with its storage points (a file of several documents: each). */
export function postgresConfigs(): { file: string; specs: StorageSpec[] }[] {
  const out: { file: string; specs: StorageSpec[] }[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.yaml')) {
        const text = readFileSync(path, 'utf8');
        if (!text.includes('postgres-heap')) continue;
        const specs: StorageSpec[] = [];
        for (const doc of text.split(/\n---\n/)) {
          let cfg;
          try {
            cfg = loadConfig(path, doc);
          } catch {
            continue; // an estimate config: no storage points
          }
          for (const p of cfg.storage ?? []) specs.push(p.spec);
        }
        if (specs.length > 0) out.push({ file: relative(ROOT, path), specs });
      }
    }
  };
  walk(join(ROOT, 'sim-configs'));
  return out;
}

const transaction = fc.constantFrom('', ', transaction: row', ', transaction: statement', ', transaction: batch(37)');
const order = fc.constantFrom('random', 'sequential');

/** One phase after the load: a growing or shrinking update (of the key's column or not), a delete, a VACUUM or a VACUUM FULL. */
const phase = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1, max: 100 }), order, fc.integer({ min: 0, max: 120 }), fc.boolean(), transaction)
    .map(([pct, o, len, grp, t]) =>
      grp
        ? `  - update: { rows: ${pct}%, order: ${o}${t}, set: { grp: changed } }`
        : `  - update: { rows: ${pct}%, order: ${o}${t}, set: { body: { length: { uniform: [${len}, ${len + 80}] } } } }`,
    ),
  fc.tuple(fc.integer({ min: 1, max: 40 }), order, transaction).map(([pct, o, t]) => `  - delete: { rows: ${pct}%, order: ${o}${t} }`),
  fc.constantFrom('  - vacuum:', '  - reorg: rebuild'),
);

/** A random postgres-heap workload as a config: a unique key, a low-cardinality second index (deduplicated), a varchar that changes size. */
export const pgWorkload = fc
  .record({
    rows: fc.integer({ min: 200, max: 6000 }),
    fillfactor: fc.constantFrom(60, 90, 100),
    groups: fc.integer({ min: 1, max: 400 }),
    phases: fc.array(phase, { minLength: 1, maxLength: 5 }),
  })
  .map(
    (w) => `name: pg-differential
seed: 7
table:
  name: t
  columns:
    - { name: id, type: int }
    - { name: grp, type: int }
    - { name: body, type: varchar(300), null: true }
  indexes:
    - { name: t_pk, columns: [id], unique: true }
    - { name: t_grp, columns: [grp] }
engine: { format: postgres-heap, fillfactor: ${w.fillfactor} }
workload:
  - insert: { rows: ${w.rows}, values: { grp: { distinct: ${w.groups}, order: random }, body: { length: { uniform: [0, 60] } } } }
${w.phases.join('\n')}
`,
  );

/** The random workloads the digests are recorded for: the same every time (a fixed fast-check seed). */
export function sampledWorkloads(count: number): string[] {
  return fc.sample(pgWorkload, { seed: 20261207, numRuns: count });
}
