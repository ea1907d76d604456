/**
 * The innodb format and its engine (src/innodb) against figures no one here wrote: record sizes worked
 * by hand from rem0rec.cc's rules, page_get_free_space_of_empty() and the 8,126-byte limit of the
 * manuals, the 15/16 fill of sequential inserts derived from btr_cur_optimistic_insert's reserve.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, rowsim } from './helpers/cli.js';
import { readFileSync } from 'node:fs';
import { parseDdl } from '../src/table/ddl.js';
import { innodbFixedBytes } from '../src/formats/innodb-records.js';
import { loadConfig } from '../src/loader/config.js';
import { runStorage } from '../src/workload/runner.js';
import type { IndexOrganizedMetrics } from '../src/heap/metrics.js';
import {
  clusteredRecord,
  createTableMaxRecord,
  freeSpaceOfEmpty,
  innodbLayout,
  offPagePages,
  recordLimit,
} from '../src/formats/innodb-records.js';
import { col, engine, table } from './helpers/spec.js';

const NULL = 0xffff;

function run(yaml: string): { final: IndexOrganizedMetrics; phases: IndexOrganizedMetrics[] } {
  const cfg = loadConfig('innodb-test.yaml', yaml);
  const r = runStorage(cfg.storage[0]!.spec, { checkInvariants: true });
  return { final: r.final as unknown as IndexOrganizedMetrics, phases: r.phases.map((p) => p.metrics as unknown as IndexOrganizedMetrics) };
}

const config = (workload: string, extra = '', columns = '{ name: pad, type: char(100) }') => `
name: t
seed: 7
table:
  name: t
  columns:
    - { name: id, type: bigint }
    - ${columns}
  indexes:
    - { name: PRIMARY, columns: [id], unique: true, clustered: true }
engine: { format: innodb${extra} }
workload:
${workload}
`;

/**
 * The table the live-MariaDB figures below were measured on: (id BIGINT PRIMARY KEY, pad VARCHAR(200) NULL) utf8mb4,
 * seed 42 (the insert order mysql-check replayed), with the given workload lines.
 */
const padTable = (workload: string) => `
name: t
seed: 42
table:
  name: t
  columns:
    - { name: id, type: bigint }
    - { name: pad, type: varchar(200), null: true }
  indexes:
    - { name: PRIMARY, columns: [id], unique: true, clustered: true }
engine: { format: innodb, encoding: utf8 }
workload:
${workload}
`;

describe('innodb pages and records [page0page.h, rem0rec.cc]', () => {
  it('an empty page offers 16,252 bytes at 16K (COMPACT): 16384 − FIL 38 − page header 36 − FSEG 20 − infimum/supremum 26 − trailer 8 − 2 slots', () => {
    expect(freeSpaceOfEmpty(16384, 'dynamic')).toBe(16252);
    expect(freeSpaceOfEmpty(16384, 'redundant')).toBe(16384 - 38 - 36 - 20 - 31 - 8 - 4);
    // The manuals' limit: a record under half a page, 8,126 bytes at 16K; 16,383 at 64K (REC_MAX_DATA_SIZE − 1).
    expect(recordLimit(16384, 'dynamic')).toBe(8126);
    expect(recordLimit(65536, 'dynamic')).toBe(16383);
    expect(recordLimit(4096, 'compact')).toBe(1982);
  });

  it('a COMPACT/DYNAMIC record: 5-byte header, NULL bitmap, 1- or 2-byte lengths, key, DB_TRX_ID 6, DB_ROLL_PTR 7', () => {
    const t = table(
      [col('id', 'bigint'), col('pad', 'char(100)'), col('note', 'varchar(200)', true)],
      [{ name: 'PRIMARY', columns: ['id'], unique: true, clustered: true }],
    );
    const l = innodbLayout(t, engine({ format: 'innodb' }));
    // 5 + 1 (NULL bitmap of one nullable column) + 1 (length < 255-byte column) + 8 + 6 + 7 + 100 + 150
    expect(clusteredRecord(l.innodb, Uint16Array.from([150]), 0).bytes).toBe(5 + 1 + 1 + 8 + 13 + 100 + 150);
    expect(clusteredRecord(l.innodb, Uint16Array.from([NULL]), 0).bytes).toBe(5 + 1 + 8 + 13 + 100);
    // utf8mb4: varchar(200) may hold 800 bytes, a "big" column: 2 length bytes from 128 bytes on.
    const u = innodbLayout(t, engine({ format: 'innodb', encoding: 'utf8' }));
    const pad = u.columns[1]!.varIndex;
    const lens = new Uint16Array(2);
    lens[pad] = 100;
    lens[u.columns[2]!.varIndex] = 150;
    expect(clusteredRecord(u.innodb, lens, 0).bytes).toBe(5 + 1 + 1 + 2 + 8 + 13 + 100 + 150);
    // No primary key: a hidden 6-byte DB_ROW_ID.
    const heap = innodbLayout(table([col('id', 'bigint'), col('pad', 'char(100)')]), engine({ format: 'innodb' }));
    expect(heap.innodb.clusteredName).toBe('GEN_CLUST_INDEX');
    expect(heap.minRowBytes).toBe(5 + 8 + 100 + 6 + 13);
  });

  it('REDUNDANT: a 6-byte header and a 1-byte end offset per field while the data is ≤ 127 bytes, 2 bytes after', () => {
    const t = table(
      [col('id', 'int'), col('a', 'varchar(200)', true)],
      [{ name: 'PRIMARY', columns: ['id'], unique: true, clustered: true }],
    );
    const l = innodbLayout(t, engine({ format: 'innodb', row_format: 'redundant' }));
    // Fields: id, DB_TRX_ID, DB_ROLL_PTR, a. Data 4 + 13 + 50 = 67 ≤ 127.
    expect(clusteredRecord(l.innodb, Uint16Array.from([50]), 0).bytes).toBe(6 + 4 * 1 + 67);
    expect(clusteredRecord(l.innodb, Uint16Array.from([150]), 0).bytes).toBe(6 + 4 * 2 + 167);
  });

  it('off-page values: DYNAMIC moves a long value whole behind a 20-byte pointer, COMPACT keeps a 768-byte prefix', () => {
    const t = table(
      [col('id', 'bigint'), col('body', 'text', true)],
      [{ name: 'PRIMARY', columns: ['id'], unique: true, clustered: true }],
    );
    const dyn = innodbLayout(t, engine({ format: 'innodb' }));
    const r = clusteredRecord(dyn.innodb, Uint16Array.from([10000]), 0);
    expect(r).toEqual({ bytes: 5 + 1 + 2 + 8 + 13 + 20, offPage: [10000] });
    expect(offPagePages(dyn.innodb, Uint16Array.from([40000]), 0)).toBe(Math.ceil(40000 / (16384 - 38 - 8 - 8)));
    const compact = innodbLayout(t, engine({ format: 'innodb', row_format: 'compact' }));
    expect(clusteredRecord(compact.innodb, Uint16Array.from([10000]), 0)).toEqual({
      bytes: 5 + 1 + 2 + 8 + 13 + 788,
      offPage: [10000 - 768],
    });
    // A record under the limit stays whole.
    expect(clusteredRecord(dyn.innodb, Uint16Array.from([8000]), 0).offPage).toEqual([]);
  });
});

describe('the clustered B+tree [btr0cur.cc, btr0btr.cc]', () => {
  it('inserts in key order fill each leaf until 1/16 of the page would be left: 120 records of 126 bytes, ~15/16 full', () => {
    const { final } = run(config('  - insert: { rows: 30000 }'));
    // The largest n with 126 + 1024 ≤ 16252 − 126n − ⌈(n + 1)/2⌉ is 119: the 120th record goes in, the 121st splits.
    let n = 0;
    while (126 + 16384 / 16 <= 16252 - 126 * n - Math.ceil((n + 1) / 2)) n++;
    expect(n).toBe(120);
    const stats = final.innodb.indexes['PRIMARY']!;
    // The first split raises the root: its records move to a new page, split at the middle (PAGE_LAST_INSERT
    // not copied), which keeps 60; every later leaf takes 120.
    expect(stats.leaves).toBe(1 + Math.ceil((30000 - n / 2) / n));
    expect(stats.leaf_records).toBe(30000);
    expect(final.leaf_fill_pct).toBeGreaterThan(92);
    expect(final.leaf_fill_pct).toBeLessThan((15 / 16) * 100);
  });

  it('random keys split leaves in the middle: more leaves, filled between 1/2 and 15/16', () => {
    const seq = run(config('  - insert: { rows: 30000 }')).final;
    const rnd = run(config('  - insert: { rows: 30000, values: { id: { order: random } } }')).final;
    expect(rnd.innodb.indexes['PRIMARY']!.leaves).toBeGreaterThan(1.25 * seq.innodb.indexes['PRIMARY']!.leaves);
    expect(rnd.leaf_fill_pct).toBeGreaterThan(55);
    expect(rnd.leaf_fill_pct).toBeLessThan(80);
    expect(rnd.page_splits).toBeGreaterThan(seq.page_splits);
  });

  it('rows that grow are never forwarded: the pages split, every row stays in its leaf in key order', () => {
    const { phases } = run(
      config(
        `  - insert: { rows: 20000, values: { note: { length: { uniform: [0, 20] } } } }
  - update: { rows: all, order: random, set: { note: { length: { uniform: [80, 200] } } } }`,
        '',
        '{ name: note, type: varchar(200), null: true }',
      ),
    );
    const [load, grow] = phases;
    expect(grow!.forwarded_rows).toBe(0);
    expect(grow!.page_splits).toBeGreaterThan(load!.page_splits);
    expect(grow!.innodb.indexes['PRIMARY']!.leaves).toBeGreaterThan(2 * load!.innodb.indexes['PRIMARY']!.leaves);
    expect(grow!.rows).toBe(20000);
  });

  it('deletes are purged at commit and emptied pages merge below MERGE_THRESHOLD', () => {
    const { phases } = run(config(`  - insert: { rows: 20000 }\n  - delete: { rows: 90%, order: random }`));
    const [load, del] = phases;
    expect(del!.page_merges).toBeGreaterThan(0);
    expect(del!.delete_marked).toBe(0);
    expect(del!.innodb.indexes['PRIMARY']!.leaf_records).toBe(2000);
    expect(del!.innodb.indexes['PRIMARY']!.leaves).toBeLessThan(0.6 * load!.innodb.indexes['PRIMARY']!.leaves);
  });

  it('a freed page stays in its extent until the extent is empty, then the extent goes back to the file [fseg_free_page_low]', () => {
    // The first half of the keys deleted: the leaves of the first extents all merge away and their extents return.
    const wl = (order: string) => `  - insert: { rows: 50000 }\n  - delete: { rows: 50%, order: ${order} }`;
    const [load, del] = run(config(wl('sequential'))).phases;
    const before = load!.innodb.indexes['PRIMARY']!;
    const after = del!.innodb.indexes['PRIMARY']!;
    const freed = before.size_pages - after.size_pages;
    // ~417 leaves: the 32 fragment pages and the two whole extents below the middle key go back.
    expect(freed).toBe(32 + 2 * 64);
    // The extents returned are free extents of the file: DATA_FREE grows by 2 MiB.
    expect(del!.innodb.data_free - load!.innodb.data_free).toBe(2 * 1048576);
    // Half deleted at random: every leaf keeps records, few extents empty; the pages stay reserved.
    const [load2, del2] = run(config(wl('random'))).phases;
    expect(del2!.innodb.indexes['PRIMARY']!.size_pages).toBeGreaterThan(0.9 * load2!.innodb.indexes['PRIMARY']!.size_pages);
  });

  it('OPTIMIZE TABLE rebuilds sorted: innodb_fill_factor 100 leaves 1/16 free in the clustered index, 50 halves the pages filled', () => {
    const wl = `  - insert: { rows: 20000, values: { id: { order: random } } }\n  - reorg: rebuild`;
    const full = run(config(wl)).final.innodb.indexes['PRIMARY']!.leaves;
    const half = run(config(wl, ', innodb_fill_factor: 50')).final.innodb.indexes['PRIMARY']!.leaves;
    // PageBulk: a page closes when the next record would leave less than page/16 free: 1,024 bytes, as the inserts in order do.
    expect(full).toBe(Math.ceil(20000 / 120));
    expect(half).toBeGreaterThan(1.8 * full);
  });

  it('a secondary index carries the primary key and is built sorted on the loaded table', () => {
    const { final } = run(`
name: t
seed: 7
table:
  name: t
  columns:
    - { name: id, type: bigint }
    - { name: k, type: int }
  indexes:
    - { name: PRIMARY, columns: [id], unique: true, clustered: true }
    - { name: k_idx, columns: [k] }
engine: { format: innodb }
workload:
  - insert: { rows: 20000, values: { k: { order: random } } }
`);
    const k = final.innodb.indexes['k_idx']!;
    expect(k.leaf_records).toBe(20000);
    // 5-byte header + 4 (k) + 8 (id) = 17 bytes a record; a sorted build packs 16,252 bytes of records and slots.
    expect(k.leaves).toBe(Math.ceil(20000 / Math.floor(16252 / 17.5)));
    expect(final.index_length).toBe(k.size_pages * 16384);
  });

  it('a changed secondary key is a delete-mark and an insert; purge removes the old entry at commit', () => {
    const { phases } = run(`
name: t
seed: 7
table:
  name: t
  columns:
    - { name: id, type: bigint }
    - { name: k, type: int }
  indexes:
    - { name: PRIMARY, columns: [id], unique: true, clustered: true }
    - { name: k_idx, columns: [k] }
engine: { format: innodb }
workload:
  - insert: { rows: 20000 }
  - update: { rows: 50%, order: random, set: { k: { order: random } } }
`);
    const [load, update] = phases;
    // 30-byte clustered records in key order: 498 a leaf (30 + 1,024 ≤ 16,252 − 30n − ⌈(n + 1)/2⌉), 41 leaves, 40 splits.
    expect(load!.innodb.indexes['PRIMARY']!.leaves).toBe(41);
    expect(load!.page_splits).toBe(40);
    expect(update!.purged_records).toBe(10000);
    expect(update!.innodb.indexes['k_idx']!.leaf_records).toBe(20000);
    expect(update!.innodb.indexes['k_idx']!.leaves).toBeGreaterThan(load!.innodb.indexes['k_idx']!.leaves);
    expect(update!.innodb.indexes['PRIMARY']!.leaves).toBe(41);
  });
});

describe('the record limit, as the server enforces it [dict0dict.cc, btr0cur.cc]', () => {
  // 33 varchar(250) latin1 columns (not "big": at most 255 bytes, never off-page): 5 + 4 + 13 + 33 × 251 = 8,305 bytes.
  const letters = Array.from({ length: 33 }, (_, i) => `c${i}`);
  const wide = (strict: string) => `
name: wide
seed: 7
table:
  name: wide
  columns:
    - { name: id, type: int }
${letters.map((c) => `    - { name: ${c}, type: varchar(250) }`).join('\n')}
  indexes:
    - { name: PRIMARY, columns: [id], unique: true, clustered: true }
engine: { format: innodb${strict} }
workload:
  - insert: { rows: 10, values: { c0: { length: 10 } } }
  - insert: { rows: 10 }
`;
  const runFile = (text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-innodb-'));
    writeFileSync(join(dir, 'wide.yaml'), text);
    return rowsim(['run', join(dir, 'wide.yaml'), '--out', join(dir, 'out')]);
  };

  it("CREATE TABLE refuses a definition whose longest record reaches 8,126 bytes (innodb_strict_mode on): exit 2, the server's words", () => {
    const r = runFile(wide(''));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('wide.yaml:7:5: table.columns');
    expect(r.stderr).toContain('whose longest record would be 8305 bytes');
    expect(r.stderr).toContain(
      'Row size too large (> 8126). Changing some columns to TEXT or BLOB may help. In current row format, BLOB prefix of 0 bytes is stored inline.',
    );
  });

  it('with innodb_strict_mode off, the INSERT of a row over the limit fails instead and the run stops there', () => {
    const r = runFile(wide(', innodb_strict_mode: off'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/wide\.yaml:\d+:\d+: workload\[1\]\.insert: MySQL\/MariaDB refuses the INSERT of row 10 /);
    expect(r.stderr).toContain('(a record of 8305 bytes; expected records under 8126 bytes)');
  });
});

describe('against a live MariaDB 10.11 (docs/engines/innodb.md, "Measured")', () => {
  it('100,000 rows of (id BIGINT PRIMARY KEY, pad VARCHAR(200)) utf8mb4: load, growth in key order, OPTIMIZE', () => {
    const { phases } = run(
      padTable(`  - insert: { rows: 100000, values: { pad: { length: 100 } } }
  - update: { rows: all, order: sequential, set: { pad: { length: 180 } } }
  - reorg: rebuild`),
    );
    const figures = phases.map((m) => {
      const i = m.innodb.indexes['PRIMARY']!;
      return [i.leaf_pages, i.size_pages, m.innodb.data_length, m.innodb.data_free];
    });
    // n_leaf_pages, size, DATA_LENGTH, DATA_FREE as the server reported them.
    expect(figures).toEqual([
      [848, 865, 14_172_160, 4_194_304],
      [1695, 1955, 32_030_720, 6_291_456],
      [1389, 1635, 26_787_840, 0],
    ]);
  });
});

describe('freed pages and extents as a live MariaDB 10.11 showed them (docs/engines/innodb.md, "Measured")', () => {
  const phases = (load: string, grow: boolean) =>
    run(
      padTable(`  - insert: { rows: 100000, values: { ${load}pad: { length: 100 } } }
${grow ? '  - update: { rows: all, order: random, set: { pad: { length: 180 } } }\n' : ''}  - delete: { rows: 50%, order: random }`),
    ).phases;
  const measured = (load: string, grow: boolean) =>
    phases(load, grow).map((m) => [m.innodb.indexes['PRIMARY']!.size_pages, m.innodb.data_free / 1048576]);

  it('half the rows deleted at random: size falls by the freed fragment pages and the extents emptied', () => {
    // Server: keys in order 865 → 853 pages (DATA_FREE 4 → 4 MiB); random keys grown in random order 2,144 → 2,129 (7 → 7 MiB).
    expect(measured('', false)).toEqual([
      [865, 4],
      [853, 4],
    ]);
    // Random keys, grown, half deleted: over 16 server orders size went from 2,143-2,211 to 1,937-2,069 (mean 1,994).
    const [, grown, deleted] = measured('id: { order: random }, ', true);
    expect(grown![0]!).toBeGreaterThanOrEqual(2143);
    expect(grown![0]!).toBeLessThanOrEqual(2211);
    expect(deleted![0]!).toBeGreaterThanOrEqual(1937);
    expect(deleted![0]!).toBeLessThanOrEqual(2069);
  });

  it("mysql-check's replay of this model's keys (random, grown, half deleted): leaves and size the server's after every phase", () => {
    // rowsim mysql-check on this config, MariaDB 10.11: leaves / size 1,187 / 1,379, 1,898 / 2,210, 965 / 2,067, every
    // loaded leaf's page number, records and first key equal (.ibd). Two things make the load exact: a split's new page
    // gets its records one by one (PAGE_LAST_INSERT is the last copied), and a deleted heap-top record goes back to the heap.
    const figures = phases('id: { order: random }, ', true).map((m) => {
      const i = m.innodb.indexes['PRIMARY']!;
      return [i.leaf_pages, i.size_pages, m.innodb.data_free / 1048576];
    });
    expect(figures).toEqual([
      [1187, 1379, 4],
      [1898, 2210, 6],
      [965, 2067, 8],
    ]);
    // Its first 13,406 rows: 159 leaves on the server. At row 5,736 a split to the left deletes its moved records one by
    // one and the heap's top goes back to the heap (the server's page then keeps 76 deleted records, not 77); at row
    // 13,406 that page still has room above its heap for the record, where 77 would leave 60 bytes and split it.
    const first = run(padTable('  - insert: { rows: 13406, values: { id: { order: random }, pad: { length: 100 } } }'));
    expect(first.final.innodb.indexes['PRIMARY']!.leaf_pages).toBe(159);
  });

  it('random growth after random inserts: a record that fits after a reorganisation stays, so few splits undo themselves by merging', () => {
    // Server, 16 insert orders (each then grown in its own random order): splits 734-844, merges 84-132 of
    // 1,818-2,111 attempts, reorganisations 8,115-8,749, leaves 1,831-1,912; half deleted: merges 877-950, leaves 943-970.
    const [load, grown, deleted] = phases('id: { order: random }, ', true);
    const delta = (a: IndexOrganizedMetrics, b: IndexOrganizedMetrics) => [
      b.page_splits - a.page_splits,
      b.page_merges - a.page_merges,
      b.page_reorganizes - a.page_reorganizes,
    ];
    const [splits, merges, reorganizes] = delta(load!, grown!);
    expect(splits).toBeGreaterThanOrEqual(734);
    expect(splits).toBeLessThanOrEqual(844);
    expect(merges).toBeGreaterThanOrEqual(84);
    expect(merges).toBeLessThanOrEqual(132);
    expect(reorganizes).toBeGreaterThanOrEqual(8115);
    expect(reorganizes).toBeLessThanOrEqual(8749);
    expect(grown!.innodb.indexes['PRIMARY']!.leaf_pages).toBeGreaterThanOrEqual(1831);
    expect(grown!.innodb.indexes['PRIMARY']!.leaf_pages).toBeLessThanOrEqual(1912);
    const [, deleteMerges] = delta(grown!, deleted!);
    expect(deleteMerges).toBeGreaterThanOrEqual(877);
    expect(deleteMerges).toBeLessThanOrEqual(950);
  });

  it("off-page pages follow their record's leaf; a split under 1/8 free takes a new extent (fseg_alloc_free_page_low)", () => {
    // Server, (id BIGINT PRIMARY KEY, body TEXT) DYNAMIC latin1, 2,000 rows of 9,000 bytes by INSERT … SELECT:
    // n_leaf_pages 2,008, size 2,081 (its .ibd: 30 full extents, the 8th leaf alone at the start of a new one).
    const m = run(`
name: t
seed: 42
table:
  name: t
  columns:
    - { name: id, type: bigint }
    - { name: body, type: text, null: true }
  indexes:
    - { name: PRIMARY, columns: [id], unique: true, clustered: true }
engine: { format: innodb, encoding: latin1 }
workload:
  - insert: { rows: 2000, values: { body: { length: 9000 } } }
`).final;
    const i = m.innodb.indexes['PRIMARY']!;
    expect([i.leaf_pages, i.size_pages]).toEqual([2008, 2081]);
  });
});

describe('random inserts of rows of varying length, as a live MariaDB 10.11 showed them', () => {
  it('an insert reuses the head of the free list only when it is large enough (page_cur_insert_rec_low), else the heap, else a reorganisation', () => {
    // Server, 15 orders of (id BIGINT PRIMARY KEY, pad VARCHAR(200)) latin1, pad NULL for 20 % of the rows, else
    // 0-40 bytes: n_leaf_pages 406-435 (mean 418.5), index_page_reorg_attempts 384-418, no merge.
    const m = run(`
name: t
seed: 42
table:
  name: t
  columns:
    - { name: id, type: bigint }
    - { name: pad, type: varchar(200), null: true }
  indexes:
    - { name: PRIMARY, columns: [id], unique: true, clustered: true }
engine: { format: innodb }
workload:
  - insert: { rows: 100000, values: { id: { order: random }, pad: { length: { uniform: [0, 40] }, null: 0.2 } } }
`).final;
    expect(m.innodb.indexes['PRIMARY']!.leaf_pages).toBeGreaterThanOrEqual(406);
    expect(m.innodb.indexes['PRIMARY']!.leaf_pages).toBeLessThanOrEqual(435);
    expect(m.page_reorganizes).toBeGreaterThanOrEqual(384);
    expect(m.page_reorganizes).toBeLessThanOrEqual(418);
    expect(m.page_merges).toBe(0);
  });
});

describe('CREATE TABLE limits as a live MariaDB 10.11 enforced them (latin1, strict mode)', () => {
  const accepted = (rowFormat: string, types: string[]) => {
    const t = table(
      [col('id', 'int'), ...types.map((ty, i) => col(`c${i}`, ty))],
      [{ name: 'PRIMARY', columns: ['id'], unique: true, clustered: true }],
    );
    const l = innodbLayout(t, engine({ format: 'innodb', row_format: rowFormat as never }));
    return createTableMaxRecord(l.innodb, l) < l.innodb.limit;
  };
  const chars = (last: number) => [...Array.from({ length: 31 }, () => 'char(255)'), `char(${last})`];
  it('DYNAMIC and COMPACT: INT + 31 × CHAR(255) + CHAR(198) accepted, CHAR(199) refused; REDUNDANT: CHAR(124), CHAR(125)', () => {
    for (const f of ['dynamic', 'compact']) expect([accepted(f, chars(198)), accepted(f, chars(199))]).toEqual([true, false]);
    expect([accepted('redundant', chars(124)), accepted('redundant', chars(125))]).toEqual([true, false]);
  });
  it('TEXT columns: 385 accepted under DYNAMIC, 386 refused; 10 and 11 under COMPACT', () => {
    const texts = (n: number) => Array.from({ length: n }, () => 'text');
    expect([accepted('dynamic', texts(385)), accepted('dynamic', texts(386))]).toEqual([true, false]);
    expect([accepted('compact', texts(10)), accepted('compact', texts(11))]).toEqual([true, false]);
  });
});

describe('DDL as SHOW CREATE TABLE and mysqldump print it', () => {
  const t = parseDdl(readFileSync(join(ROOT, 'test', 'fixtures', 'mysql-orders.sql'), 'utf8'));

  it('backticks, display widths, ENUM, DEFAULT NULL columns nullable, inline PRIMARY KEY / UNIQUE KEY / KEY', () => {
    expect(t.columns.map((c) => [c.name, c.type.sql, c.nullable])).toEqual([
      ['id', 'bigint', false],
      ['customer_id', 'int', false],
      ['status', 'enum(3)', false],
      ['flags', 'tinyint', false],
      ['total', 'decimal(10,2)', true],
      ['placed', 'datetime', false],
      ['note', 'varchar(400)', true],
      ['body', 'mediumtext', true],
      ['attrs', 'json', true],
    ]);
    expect(t.indexes.map((i) => [i.name, i.columns, i.unique])).toEqual([
      ['orders_pk', ['id'], true],
      ['orders_ref', ['customer_id', 'placed'], true],
      ['orders_placed', ['placed'], false],
    ]);
    // ENUM of 3 members: 1 byte; DECIMAL(10,2): 4 + 1 bytes (manual, "Data Type Storage Requirements").
    expect(innodbFixedBytes(t.columns[2]!.type)).toBe(1);
    expect(innodbFixedBytes(t.columns[4]!.type)).toBe(5);
  });

  it("ENGINE=InnoDB shows the dialect; ROW_FORMAT and COMMENT='MERGE_THRESHOLD=N' are engine settings; other engines refused", () => {
    expect(t.storage.dialect).toMatchObject({ value: 'mysql', sign: 'ENGINE=InnoDB' });
    expect(t.storage.row_format).toMatchObject({ value: 'dynamic', line: 14 });
    expect(t.storage.merge_threshold).toMatchObject({ value: 45, line: 14 });
    // The index's own MERGE_THRESHOLD, the table's default character set, a column's own.
    expect(t.indexes.map((i) => i.merge_threshold)).toEqual([undefined, undefined, 40]);
    expect(t.storage.charset).toMatchObject({ value: 'utf8mb4', line: 14 });
    expect(t.columns.find((c) => c.name === 'note')?.type.characterSet).toBe('utf8mb4');
    expect(() => parseDdl('CREATE TABLE t (id int) ENGINE=MyISAM;')).toThrow(
      /expected ENGINE=innodb \(rowsim models InnoDB tables\), found ENGINE=MyISAM/,
    );
    expect(() => parseDdl('CREATE TABLE t (id int) ENGINE=InnoDB ROW_FORMAT=COMPRESSED;')).toThrow(/ROW_FORMAT=COMPRESSED is not modelled/);
  });
});

describe('growth after OPTIMIZE at innodb_fill_factor 30, as a live MariaDB 10.11 showed it (docs/engines/innodb.md)', () => {
  // 100,000 rows of (id BIGINT PRIMARY KEY, pad VARCHAR(400)) utf8mb4, pad 63 bytes, OPTIMIZE TABLE at fill 30,
  // then every pad grown to 173 bytes. A page under MERGE_THRESHOLD stays under it after one record grows, so
  // btr_cur_optimistic_update answers DB_UNDERFLOW and btr_cur_pessimistic_update ends in btr_cur_compress_if_useful.
  const grown = (order: string, mt: number) => {
    const { phases } = run(`
name: t
seed: 42
table:
  name: t
  columns:
    - { name: id, type: bigint }
    - { name: pad, type: varchar(400), null: true }
  indexes:
    - { name: PRIMARY, columns: [id], unique: true, clustered: true }
engine: { format: innodb, encoding: utf8, innodb_fill_factor: 30, merge_threshold: ${mt} }
workload:
  - insert: { rows: 100000, values: { pad: { length: 63 } } }
  - reorg: rebuild
  - update: { rows: all, order: ${order}, set: { pad: { length: 173 } } }
`);
    const [, rebuilt, end] = phases;
    const i = end!.innodb.indexes['PRIMARY']!;
    return {
      rebuilt: rebuilt!.innodb.indexes['PRIMARY']!.leaf_pages,
      leaf: i.leaf_pages,
      size: i.size_pages,
      splits: end!.page_splits - rebuilt!.page_splits,
      merges: end!.page_merges - rebuilt!.page_merges,
    };
  };

  it('MERGE_THRESHOLD 50: every page merges into its grown neighbour and splits again (server: 1,924 splits, 1,927 merges)', () => {
    // Server, key order: n_leaf_pages 1,924 → 1,923, size 2,217 → 2,211; index_page_splits 1,924, merges 1,927.
    const k = grown('sequential', 50);
    expect([k.rebuilt, k.leaf, k.size]).toEqual([1924, 1923, 2211]);
    expect(Math.abs(k.splits - 1924)).toBeLessThanOrEqual(3);
    expect(Math.abs(k.merges - 1927)).toBeLessThanOrEqual(3);
    // Server, random order: 1,924 → 1,520 leaves, size 1,999; 840 splits, 1,244 merges.
    const r = grown('random', 50);
    // Model: 1,518 leaves, size 1,999, 849 splits, 1,261 merges.
    expect(Math.abs(r.leaf - 1520) / 1520).toBeLessThan(0.015);
    expect(Math.abs(r.size - 1999) / 1999).toBeLessThan(0.03);
    expect(Math.abs(r.merges - 1244) / 1244).toBeLessThan(0.02);
    expect(Math.abs(r.splits - 840) / 840).toBeLessThan(0.03);
  });

  it('MERGE_THRESHOLD 15: no split, the 2 merges of the last pages only, in either order (server: the same)', () => {
    // Server, both orders: 1,924 → 1,923 leaves, size 2,216; 0 splits, 2 merges, 0 reorganisations.
    for (const order of ['sequential', 'random'])
      expect(grown(order, 15)).toEqual({ rebuilt: 1924, leaf: 1923, size: 2216, splits: 0, merges: 2 });
  });
});

describe("an index's own MERGE_THRESHOLD (COMMENT 'MERGE_THRESHOLD=N' on the index), as a live MariaDB 10.11 showed it", () => {
  // 100,000 rows (id BIGINT PRIMARY KEY, k INT, pad VARCHAR(200) of 100 bytes), a secondary index on k, then 60%
  // deleted at random (rowsim mysql-check): t_k keeps 108 leaves with MERGE_THRESHOLD=15 on it and falls to 60
  // with the table's 50 (size 161 and 147 pages); PRIMARY falls from 878 to 498 leaves either way.
  const ddl = (comment: string) => `
CREATE TABLE \`t\` (
  \`id\` bigint(20) NOT NULL,
  \`k\` int(11) NOT NULL,
  \`pad\` varchar(200) DEFAULT NULL,
  PRIMARY KEY (\`id\`),
  KEY \`t_k\` (\`k\`)${comment}
) ENGINE=InnoDB DEFAULT CHARSET=latin1;`;
  const yaml = (comment: string) =>
    `name: t\nseed: 11\ntable:\n  ddl: |${ddl(comment).replace(/\n/g, '\n    ')}\n  indexes: []\nengine: { format: innodb }\nworkload:\n  - insert: { rows: 100000, values: { pad: { length: 100 } } }\n  - delete: { rows: 60%, order: random }\n`;

  it('the DDL reader puts it on the index; the table keeps its own', () => {
    const t = parseDdl(ddl(" COMMENT 'MERGE_THRESHOLD=15'"));
    expect(t.indexes.find((i) => i.name === 't_k')?.merge_threshold).toBe(15);
    expect(t.storage.merge_threshold).toBeUndefined();
    expect(() => parseDdl(ddl(" COMMENT 'MERGE_THRESHOLD=60'"))).toThrow(/expected MERGE_THRESHOLD=a whole number from 1 to 50/);
  });

  it('it applies to that index only: t_k 108 leaves with 15, 60 with the table’s 50; PRIMARY 498 both', () => {
    const own = run(yaml(" COMMENT 'MERGE_THRESHOLD=15'")).final.innodb.indexes;
    const table = run(yaml('')).final.innodb.indexes;
    expect([own['t_k']!.leaves, table['t_k']!.leaves]).toEqual([108, 60]);
    expect([own['t_k']!.size_pages, table['t_k']!.size_pages]).toEqual([161, 147]);
    // The DDL's PRIMARY KEY (the reader names it t_pk; the server, PRIMARY).
    expect([own['t_pk']!.leaves, table['t_pk']!.leaves]).toEqual([498, 498]);
  });
});
