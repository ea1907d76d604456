/**
 * The workload forms of transactions and sessions, in the model (no server): transaction batch(N),
 * rollback, a snapshot held across phases, updates that keep the value, indexes made before the load.
 * test/pgcheck-forms.test.ts holds the same forms against a live PostgreSQL.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/loader/config.js';
import { UserError } from '../src/config/errors.js';
import { runStorage } from '../src/workload/runner.js';

const load = (yaml: string) => loadConfig('inline.yaml', yaml).storage[0]!.spec;
const cfg = (format: string, workload: string, index = '[{ name: t_pk, columns: [id], unique: true }]') => `name: f
table:
  name: t
  columns: [{ name: id, type: int }, { name: n, type: int }, { name: note, type: varchar(100) }]
  indexes: ${index}
engine: { format: ${format} }
workload:
  - insert: { rows: 2000, values: { note: { length: 60 } } }
${workload}`;

describe('workload forms: the config', () => {
  it('reads batch(N), rollback, open/close_snapshot, same and when: before_load', () => {
    const s = load(
      cfg(
        'postgres-heap',
        `  - open_snapshot:
  - update: { rows: 10%, transaction: batch(50), rollback: true, set: { n: same } }
  - close_snapshot:`,
        '[{ name: t_pk, columns: [id], unique: true, when: before_load }]',
      ),
    );
    expect(s.workload[1]).toEqual({ op: 'snapshot', action: 'open' });
    expect(s.workload[2]).toMatchObject({ op: 'update', transaction: { batch: 50 }, rollback: true, set: { n: { kind: 'same' } } });
    expect(s.table.indexes[0]!.when).toBe('before_load');
  });

  it('refuses batch(0), a second open_snapshot, a close without an open, and indexes made at two moments, naming the key', () => {
    const bad = (yaml: string) => {
      try {
        load(yaml);
      } catch (err) {
        if (err instanceof UserError) return err.message;
        throw err;
      }
      return 'accepted';
    };
    expect(bad(cfg('postgres-heap', '  - delete: { rows: 1, transaction: batch(0) }'))).toMatch(
      /workload\[1\]\.delete\.transaction: expected batch\(N\) with N ≥ 1/,
    );
    expect(bad(cfg('postgres-heap', '  - open_snapshot:\n  - open_snapshot:'))).toMatch(/one snapshot held at a time/);
    expect(bad(cfg('postgres-heap', '  - close_snapshot:'))).toMatch(/close_snapshot after an open_snapshot/);
    expect(bad(cfg('postgres-heap', '', '[{ name: a, columns: [id], when: before_load }, { name: b, columns: [n] }]'))).toMatch(
      /table\.indexes\[1\]\.when: expected every index of the table created at the same moment/,
    );
  });
});

describe('workload forms: postgres-heap', () => {
  const upd = '  - update: { rows: all, order: random, transaction: batch(100), set: { n: changed } }';
  it('a snapshot held keeps every version that dies meanwhile: no HOT, nothing pruned or vacuumed until the close', () => {
    const held = runStorage(
      load(cfg('postgres-heap', `  - open_snapshot:\n${upd}\n${upd}\n  - vacuum:\n  - close_snapshot:\n  - vacuum:`)),
    ).phases;
    const free = runStorage(load(cfg('postgres-heap', `${upd}\n${upd}\n  - vacuum:\n  - vacuum:`))).phases;
    expect(held[3]!.metrics.dead_tuples).toBe(4000);
    expect(held[4]!.metrics.dead_tuples).toBe(4000); // VACUUM keeps them
    expect(held[6]!.metrics.dead_tuples).toBe(0); // the close, then VACUUM
    expect(held[3]!.metrics.hot_updates).toBeLessThan(10);
    expect(free[2]!.metrics.hot_updates).toBeGreaterThan(3000);
    expect(held[3]!.metrics.pages).toBeGreaterThan(2.5 * free[2]!.metrics.pages);
    expect(held[3]!.index_pages.by_index.t_pk!).toBeGreaterThan(free[2]!.index_pages.by_index.t_pk!);
  });

  it('a rolled-back phase leaves the live rows as they were and its versions dead; pages never shrink', () => {
    fc.assert(
      fc.property(fc.constantFrom('statement', 'row', 'batch(7)'), fc.constantFrom('update', 'delete', 'insert'), (t, kind) => {
        const body =
          kind === 'update'
            ? `{ rows: 30%, transaction: ${t}, rollback: true, set: { note: { length: 90 } } }`
            : kind === 'delete'
              ? `{ rows: 30%, transaction: ${t}, rollback: true }`
              : `{ rows: 600, transaction: ${t}, rollback: true, values: { note: { length: 60 } } }`;
        const r = runStorage(load(cfg('postgres-heap', `  - ${kind}: ${body}\n  - vacuum:`)), { checkInvariants: true });
        const [loadPh, rb, vac] = r.phases;
        expect(rb!.metrics.rows).toBe(2000);
        expect(rb!.metrics.avg_row_bytes).toBe(loadPh!.metrics.avg_row_bytes);
        // One transaction: its 600 versions all dead at the end; in several, later ones prune the earlier ones' (dead at their ROLLBACK).
        if (kind === 'delete') expect(rb!.metrics.dead_tuples).toBe(0);
        else if (t === 'statement') expect(rb!.metrics.dead_tuples).toBe(600);
        else expect(rb!.metrics.dead_tuples).toBeLessThanOrEqual(600);
        expect(rb!.metrics.pages).toBeGreaterThanOrEqual(loadPh!.metrics.pages);
        expect(vac!.metrics.dead_tuples).toBe(0);
      }),
      { numRuns: 9 },
    );
  });

  it('an update that writes the value back is a new version, HOT when the page has room', () => {
    const r = runStorage(
      load(
        cfg('postgres-heap', '  - update: { rows: 20%, order: random, set: { id: same } }').replace(
          'format: postgres-heap',
          'format: postgres-heap, fillfactor: 70',
        ),
      ),
    );
    expect(r.phases[1]!.metrics.updates).toBe(400);
    expect(r.phases[1]!.metrics.hot_updates).toBe(400); // id is indexed, but its value does not change
    expect(r.phases[1]!.metrics.dead_tuples).toBe(400);
  });

  it('indexes made before the load grow by splits: random keys leave more leaves than a sorted build', () => {
    const wl = '  - update: { rows: 1, set: { n: same } }';
    const rnd = (when: string) =>
      runStorage(
        load(
          cfg('postgres-heap', wl, `[{ name: t_pk, columns: [id], unique: true${when} }, { name: t_n, columns: [n]${when} }]`).replace(
            '{ note: { length: 60 } }',
            '{ note: { length: 60 }, n: { order: random } }',
          ),
        ),
      ).phases[0]!.index_pages.by_index;
    const before = rnd(', when: before_load');
    const after = rnd('');
    expect(before.t_n!).toBeGreaterThan(after.t_n! * 1.2);
    expect(Math.abs(before.t_pk! - after.t_pk!)).toBeLessThanOrEqual(1);
  });
});

describe('workload forms: the other formats', () => {
  it('a snapshot changes nothing on their pages; a rolled-back phase leaves the rows as they were', () => {
    for (const f of ['ase-dol', 'sqlserver-heap', 'oracle-heap']) {
      const plain = runStorage(load(cfg(f, '  - update: { rows: 30%, set: { note: { length: 90 } } }'))).phases;
      const snap = runStorage(
        load(cfg(f, '  - open_snapshot:\n  - update: { rows: 30%, set: { note: { length: 90 } } }\n  - close_snapshot:')),
      ).phases;
      expect(snap[2]!.metrics.pages).toBe(plain[1]!.metrics.pages);
      const rb = runStorage(
        load(cfg(f, '  - update: { rows: 30%, rollback: true, set: { note: { length: 90 } } }\n  - delete: { rows: 10%, rollback: true }')),
      ).phases;
      expect(rb[1]!.metrics.rows).toBe(2000);
      expect(rb[2]!.metrics.rows).toBe(2000);
      expect(rb[1]!.metrics.avg_row_bytes).toBe(rb[0]!.metrics.avg_row_bytes);
    }
  });
});
