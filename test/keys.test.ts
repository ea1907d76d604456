/**
 * Keys (src/workload/keys.ts): the values a column takes as `distinct`, `frequency` and `order` say, as
 * the runner's observer sees them, and pg-check's values made from them (equal keys, equal values; values
 * sort as their keys).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadConfig } from '../src/loader/config.js';
import { runStorage } from '../src/workload/runner.js';
import { KeyStore } from '../src/workload/keys.js';
import { pgLayout } from '../src/formats/postgres.js';
import { NULL_LEN } from '../src/layout/table-layout.js';
import { numberValues, recordRun, ValueStream } from '../src/pgcheck/plan.js';
import { columnsSql } from '../src/pgcheck/values.js';
import type { StorageSpec } from '../src/config/spec.js';

function spec(
  workload: string,
  columns = '[{ name: id, type: int }, { name: k, type: int, null: true }, { name: s, type: varchar(40) }]',
  indexes = '[{ name: t_k, columns: [k] }, { name: t_s, columns: [s] }]',
): StorageSpec {
  return loadConfig(
    'inline.yaml',
    `name: keys
seed: 5
table:
  name: t
  columns: ${columns}
  indexes: ${indexes}
engine: { format: postgres-heap }
workload:
${workload}`,
  ).storage[0]!.spec;
}

/** Per phase, the keys of column c the observer saw (inserts and updates in order), with their rows and stored lengths. */
function observed(s: StorageSpec, c: number, v = -1): { phase: number; row: number; key: number; len: number }[][] {
  const out: { phase: number; row: number; key: number; len: number }[][] = [];
  let phase = -1;
  runStorage(s, {
    observer: {
      phaseStart: (i) => {
        phase = i;
        out[i] = [];
      },
      insert: (row, lens, base, keys) => out[phase]!.push({ phase, row, key: keys[c]!, len: v >= 0 ? lens[base + v]! : 0 }),
      update: (row, cols, lens, base, keys) => {
        if (cols.some((x) => x.index === c)) out[phase]!.push({ phase, row, key: keys[c]!, len: v >= 0 ? lens[base + v]! : 0 });
      },
    },
  });
  return out;
}

describe('keys: distinct, frequency, order', () => {
  it('ascending with distinct: N values in runs of consecutive rows, rising; a later ascending phase above them all', () => {
    const [a, b] = observed(
      spec('  - insert: { rows: 1000, values: { k: { distinct: 40 } } }\n  - insert: { rows: 500, values: { k: { distinct: 10 } } }'),
      1,
    );
    expect(new Set(a!.map((x) => x.key)).size).toBe(40);
    for (let i = 1; i < a!.length; i++) expect(a![i]!.key).toBeGreaterThanOrEqual(a![i - 1]!.key);
    expect(new Set(b!.map((x) => x.key)).size).toBe(10);
    expect(Math.min(...b!.map((x) => x.key))).toBeGreaterThan(Math.max(...a!.map((x) => x.key)));
  });

  it('random with distinct: the same N values in every phase that draws them, in no order; NULLs are +∞', () => {
    const [a, b] = observed(
      spec(
        '  - insert: { rows: 2000, values: { k: { distinct: 30, order: random, null: 0.2 } } }\n  - insert: { rows: 2000, values: { k: { distinct: 30, order: random } } }',
      ),
      1,
    );
    const va = new Set(a!.map((x) => x.key).filter(Number.isFinite));
    const vb = new Set(b!.map((x) => x.key));
    expect(va.size).toBe(30);
    expect([...vb].every((k) => va.has(k))).toBe(true);
    const nulls = a!.filter((x) => x.key === Infinity).length;
    expect(nulls).toBeGreaterThan(300);
    expect(nulls).toBeLessThan(500);
    let falls = 0;
    for (let i = 1; i < a!.length; i++) if (a![i]!.key < a![i - 1]!.key) falls++;
    expect(falls).toBeGreaterThan(500);
  });

  it('zipf(1.2) frequency: the most frequent of 50 values takes far more than a fiftieth of the rows', () => {
    const [a] = observed(spec('  - insert: { rows: 5000, values: { k: { distinct: 50, order: random, frequency: zipf(1.2) } } }'), 1);
    const counts = new Map<number, number>();
    for (const x of a!) counts.set(x.key, (counts.get(x.key) ?? 0) + 1);
    expect(Math.max(...counts.values())).toBeGreaterThan(5 * (5000 / 50));
  });

  it('clustered with distinct: new rows repeat the keys of existing rows; without distinct each new key sits just above an existing one', () => {
    const [a, b] = observed(
      spec(
        '  - insert: { rows: 3000, values: { k: { order: random } } }\n  - insert: { rows: 1000, values: { k: { distinct: 20, order: clustered } } }',
      ),
      1,
    );
    const existing = new Set(a!.map((x) => x.key));
    expect(b!.every((x) => existing.has(x.key))).toBe(true);
    expect(new Set(b!.map((x) => x.key)).size).toBeLessThanOrEqual(20);
    const [c, d] = observed(
      spec('  - insert: { rows: 3000, values: { k: { order: random } } }\n  - insert: { rows: 1000, values: { k: { order: clustered } } }'),
      1,
    );
    const sorted = c!.map((x) => x.key).sort((x, y) => x - y);
    let next = 0;
    for (const x of d!) {
      // Just above an existing key: the nearest existing key below it is within a thousandth of the average gap.
      let lo = 0;
      let hi = sorted.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (sorted[mid]! < x.key) lo = mid;
        else hi = mid - 1;
      }
      if (x.key - sorted[lo]! < 1e-3 * ((sorted[sorted.length - 1]! - sorted[0]!) / 3000) && !existing.has(x.key)) next++;
    }
    expect(next).toBe(d!.length);
  });

  it('a distinct value has one length: every row with it stores the length the first row with it drew', () => {
    const [a] = observed(
      spec('  - insert: { rows: 2000, values: { s: { distinct: 25, order: random, length: { uniform: [5, 40] } } } }'),
      2,
      1,
    );
    const byKey = new Map<number, Set<number>>();
    for (const x of a!) byKey.set(x.key, (byKey.get(x.key) ?? new Set()).add(x.len));
    expect(byKey.size).toBe(25);
    for (const lens of byKey.values()) expect(lens.size).toBe(1);
    expect(new Set([...byKey.values()].map((l) => [...l][0])).size).toBeGreaterThan(5);
  });

  it("an update draws from the column's last insert values: a changed key is another of the same N", () => {
    const [a, , u] = observed(
      spec(
        '  - insert: { rows: 2000, values: { k: { distinct: 12, order: random } } }\n  - vacuum:\n  - update: { rows: 30%, order: random, set: { k: changed } }',
      ),
      1,
    );
    const values = new Set(a!.map((x) => x.key));
    const before = new Map(a!.map((x) => [x.row, x.key]));
    expect(u!.length).toBe(600);
    for (const x of u!) {
      expect(values.has(x.key)).toBe(true);
      expect(x.key).not.toBe(before.get(x.row));
    }
  });

  it('pg-check: equal keys make equal values, values sort as their keys, NULL stays NULL', () => {
    const s = spec(
      '  - insert: { rows: 1500, values: { k: { distinct: 40, order: random, null: 0.1 }, s: { distinct: 60, order: random, length: { uniform: [8, 30] } } } }',
    );
    const layout = pgLayout(s.table, s.engine);
    const cols = columnsSql(s.table, layout, s.engine);
    const ops = recordRun(s, layout.varying.length);
    const totals = numberValues(ops, cols.length);
    const stream = new ValueStream(cols, s.seed, totals, 1500, ValueStream.minCapacities(cols, s.seed, totals, ops));
    const byKey = [new Map<number, string>(), new Map<number, string>()];
    const pairs: { key: number; value: string }[] = [];
    for (const op of ops) {
      if (op.k !== 'insert') continue;
      const values = stream.insert(op);
      for (const [j, c] of [1, 2].entries()) {
        const key = op.keys[c]!;
        const v = values[c];
        if (key === Infinity) {
          expect(v).toBeNull();
          expect(op.lens[layout.columns[c]!.varIndex]).toBe(NULL_LEN);
          continue;
        }
        const seen = byKey[j]!.get(key);
        if (seen !== undefined) expect(String(v)).toBe(seen);
        byKey[j]!.set(key, String(v));
        if (c === 1) pairs.push({ key, value: String(v) });
      }
    }
    expect(byKey[0]!.size).toBe(40);
    expect(byKey[1]!.size).toBe(60);
    // int values sort as their keys.
    pairs.sort((x, y) => x.key - y.key);
    for (let i = 1; i < pairs.length; i++) expect(Number(pairs[i]!.value)).toBeGreaterThanOrEqual(Number(pairs[i - 1]!.value));
    // varchar values (COLLATE "C": bytewise) sort as their keys.
    const strs = [...byKey[1]!].sort((x, y) => x[0] - y[0]).map((x) => x[1]);
    expect([...strs].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)))).toEqual(strs);
  });
});

describe('keys: a run of ascending keys (KeyStore.setRun, what an insert batch of a load stores)', () => {
  it('leaves what set() row by row leaves: keys, smallest and largest, whether the keys are the row ids, memory (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 64 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: -3, max: 3 }),
        fc.option(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.double({ min: -10, max: 1e6, noNaN: true })), { nil: undefined }),
        (capacity, row0, count, offset, earlier) => {
          const a = new KeyStore(Uint8Array.of(0, 1), capacity);
          const b = new KeyStore(Uint8Array.of(0, 1), capacity);
          if (earlier) {
            a.set(1, earlier[0], earlier[1]);
            b.set(1, earlier[0], earlier[1]);
          }
          a.setRun(1, row0, count, row0 + offset);
          for (let i = 0; i < count; i++) b.set(1, row0 + i, row0 + offset + i);
          expect(a.implicit(1)).toBe(b.implicit(1));
          expect(a.minKey[1]).toBe(b.minKey[1]);
          expect(a.maxKey[1]).toBe(b.maxKey[1]);
          expect(a.memoryBytes()).toBe(b.memoryBytes());
          for (let r = 0; r < row0 + count + 4; r++) expect(a.get(1, r)).toBe(b.get(1, r));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('an insert of ascending keys with a few NULLs: batches with a NULL and batches without give key base + 1 + j, NULL +∞', () => {
    // 3,000 rows in batches of 256: with 1 NULL in 500, some batches hold a NULL and some none.
    const [a, b] = observed(spec('  - insert: { rows: 3000, values: { k: { null: 0.002 } } }\n  - insert: { rows: 700 }'), 1);
    const nulls = a!.filter((x) => x.key === Infinity).map((x) => x.row);
    expect(nulls.length).toBeGreaterThan(0);
    const batchesWithNull = new Set(nulls.map((r) => Math.floor(r / 256)));
    expect(batchesWithNull.size).toBeLessThan(Math.ceil(3000 / 256));
    a!.forEach((x, j) => expect(x.key).toBe(nulls.includes(x.row) ? Infinity : j));
    const top = Math.max(...a!.map((x) => x.key).filter(Number.isFinite));
    b!.forEach((x, j) => expect(x.key).toBe(top + 1 + j));
  });
});
