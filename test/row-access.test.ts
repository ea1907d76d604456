/**
 * How update and delete phases reach their rows (`via: index | scan | range`, workload/access.ts) and the
 * newest/oldest orders: the loader's refusals, the rows each statement meets (each once, in scan or key
 * order), the engines' invariants in every format, the PostgreSQL figures of the whole-table scenario
 * against those a live PostgreSQL 15 gave (docs/engines/postgres.md), and pg-check's replay labels.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/config/errors.js';
import { loadConfig } from '../src/loader/config.js';
import { phaseReplays } from '../src/pgcheck/fidelity.js';
import { runStorage, type WorkloadObserver } from '../src/workload/runner.js';
import { ROOT } from './helpers/cli.js';

const BASE = (format: string, workload: string, extra = '') => `name: t
seed: 3
table:
  name: t
  columns:
    - { name: id, type: int }
    - { name: body, type: varchar(300) }
  indexes:
    - { name: t_pk, columns: [id], unique: true }
engine: { format: ${format}${extra} }
workload:
  - insert: { rows: 400, values: { body: { length: { uniform: [20, 120] } } } }
${workload}`;

function problems(text: string): string[] {
  try {
    loadConfig('c.yaml', text);
  } catch (err) {
    if (err instanceof InputError) return err.message.split('\n');
    throw err;
  }
  return [];
}

const spec = (text: string) => loadConfig('c.yaml', text).storage[0]!.spec;

describe('via and the newest/oldest orders in a config', () => {
  it('refuses what one statement cannot do, naming the key', () => {
    const p = (w: string) => problems(BASE('postgres-heap', w)).join('\n');
    expect(p('  - update: { rows: 10, via: scan, transaction: row, set: { body: changed } }')).toMatch(
      /workload\[1\]\.update\.transaction: expected transaction: statement with via: scan/,
    );
    expect(p('  - delete: { rows: 10, via: range, order: zipf(1.1) }')).toMatch(
      /workload\[1\]\.delete\.order: expected sequential, newest/,
    );
    expect(p('  - delete: { rows: 10, via: range, order: spread }')).toMatch(/with via: range, found spread/);
    expect(p('  - update: { rows: 10, via: sideways, set: { body: changed } }')).toMatch(/workload\[1\]\.update\.via/);
    const noIndex = BASE('postgres-heap', '  - delete: { rows: 10, via: range }').replace(/ {2}indexes:\n.*\n/, '');
    expect(problems(noIndex).join('\n')).toMatch(/workload\[1\]\.delete\.via: expected a table with an index for via: range/);
    expect(p('  - update: { rows: 10, order: oldest, via: scan, set: { body: changed } }')).toBe('');
  });

  it('oldest is sequential; newest the last live rows; via index by default', () => {
    const s = spec(
      BASE('postgres-heap', '  - update: { rows: 10, order: oldest, set: { body: changed } }\n  - delete: { rows: 5, order: newest }'),
    );
    expect(s.workload[1]).toMatchObject({ op: 'update', order: { kind: 'sequential' }, via: 'index' });
    expect(s.workload[2]).toMatchObject({ op: 'delete', order: { kind: 'newest' }, via: 'index' });
  });
});

/** The rows each update or delete phase met, in order. */
function rowsMet(text: string): number[][] {
  const phases: number[][] = [];
  const observer: WorkloadObserver = {
    phaseStart: () => phases.push([]),
    beforeRow: (op, row) => {
      if (op === 'update' || op === 'delete') phases[phases.length - 1]!.push(row);
    },
  };
  runStorage(spec(text), { observer, checkInvariants: true });
  return phases;
}

describe('the rows a statement meets', () => {
  it('newest and oldest key ranges are the highest and lowest ids in key order; a random range is consecutive', () => {
    const [, newest, oldest, random] = rowsMet(
      BASE(
        'postgres-heap',
        `  - update: { rows: 50, order: newest, via: range, set: { body: changed } }
  - delete: { rows: 30, order: oldest, via: range }
  - update: { rows: 40, order: random, via: range, set: { body: changed } }`,
      ),
    );
    expect(newest).toEqual(Array.from({ length: 50 }, (_, i) => 350 + i));
    expect(oldest).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(random!.every((r, i) => i === 0 || r === random![i - 1]! + 1)).toBe(true);
  });

  it('every format: a scan or a range meets each chosen row once, the engines stay consistent', () => {
    const formats = ['postgres-heap', 'ase-dol', 'sqlserver-heap', 'oracle-heap', 'ase-apl'];
    fc.assert(
      fc.property(
        fc.constantFrom(...formats),
        fc.constantFrom('scan', 'range'),
        fc.constantFrom('sequential', 'newest', 'random'),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 150, max: 300 }),
        (format, via, order, pct, grow) => {
          const met = rowsMet(
            BASE(
              format,
              `  - update: { rows: ${pct}%, order: ${order}, via: ${via}, set: { body: { length: ${grow} } } }
  - delete: { rows: ${Math.ceil(pct / 2)}%, order: ${order}, via: ${via} }`,
            ),
          );
          for (const rows of met.slice(1)) expect(new Set(rows).size).toBe(rows.length);
          expect(met[1]!.length).toBe(Math.round((400 * pct) / 100));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a scan meets rows in page order: a forwarded row at its home page (ASE), where it lies (Oracle)', () => {
    const grow = `  - update: { rows: 50%, order: spread, set: { body: { length: 300 } } }
  - update: { rows: all, via: scan, set: { body: changed } }`;
    for (const format of ['ase-dol', 'oracle-heap']) {
      const met = rowsMet(BASE(format, grow));
      const scan = met[2]!;
      expect(scan.length).toBe(400);
      if (format === 'ase-dol') expect(scan).toEqual([...scan].sort((a, b) => a - b));
      else expect(scan).not.toEqual([...scan].sort((a, b) => a - b));
    }
  });
});

describe('PostgreSQL: set-based against row-at-a-time rounds', () => {
  const text = readFileSync(join(ROOT, 'sim-configs/pg-check/whole-table-updates.yaml'), 'utf8');
  it('via: scan gives the HOT updates and heap pages live PostgreSQL 15 gave for the one statement a round, via: index those of one a row', () => {
    const scan = runStorage(spec(text)).final;
    const index = runStorage(spec(text.replaceAll('via: scan, ', ''))).final;
    // Live PostgreSQL 15.18 (test/pgcheck-scan.test.ts sends the statements by hand): 1,204 / 583 and 1,906 / 562.
    expect([scan.hot_updates, scan.pages]).toEqual([1204, 583]);
    expect([index.hot_updates, index.pages]).toEqual([1906, 562]);
  });

  it("via: scan keeps the primary key's TIDs and pages as live PostgreSQL 15 keeps them, round by round", () => {
    const phases = runStorage(spec(text)).phases;
    // pg-check's replay of this config, read after each phase with pageinspect (the TIDs of bt_page_items
    // summed over the leaves) and pg_relation_size. Each round's UPDATE checks the key's other entries
    // for uniqueness and marks those of dead versions LP_DEAD (_bt_check_unique), which simple deletion
    // removes when a leaf fills; entries of a row's earlier versions are the heap's before the change.
    const tids = [
      1000, 2000, 2220, 2496, 2358, 2618, 2473, 2855, 2943, 2925, 2845, 2721, 2628, 2852, 2573, 2963, 2729, 2497, 2630, 2498, 2621,
    ];
    const pages = [5, 8, 9, 9, 9, 9, 9, 10, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11];
    expect(phases.map((p) => p.metrics.index_entries)).toEqual(tids);
    expect(phases.map((p) => p.index_pages.by_index['sess_pk'])).toEqual(pages);
  });
});

describe("pg-check's replay labels", () => {
  it('a statement where the replay sends what the config describes, an approximation and why where not', () => {
    const s = spec(
      BASE(
        'postgres-heap',
        `  - update: { rows: all, via: scan, set: { body: changed } }
  - delete: { rows: 10, via: range }
  - reorg: compact
  - reorg: forwarded_rows`,
      ),
    );
    const r = phaseReplays(s);
    expect(r.map((x) => x.replay)).toEqual(['statement', 'statement', 'statement', 'approximation', 'approximation']);
    expect(r[1]!.sends[0]).toBe('one UPDATE reading the table by a sequential scan, new values looked up by key in a staging table');
    expect(r[2]!.sends[0]).toMatch(/^one DELETE … WHERE <leading key of t_pk> BETWEEN \$1 AND \$2/);
    expect(r[3]!.why).toEqual(['PostgreSQL has no reorg compact: VACUUM stands in for it']);
  });
});
