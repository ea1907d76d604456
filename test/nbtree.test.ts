/**
 * The PostgreSQL B-tree model (src/btree/nbtree.ts) against figures read from PostgreSQL 15 with
 * pageinspect (bt_page_stats, bt_page_items, bt_metap) and against the rules of the source it follows
 * (nbtsort.c, nbtdedup.c, nbtsplitloc.c, heapam.c's bottom-up deletion, nbtpage.c).
 *
 * The server's figures: PostgreSQL 15.20 (Debian), 8k pages, a throw-away cluster (.ci/pg-cluster.sh):
 *   CREATE TABLE t1 (id int, d date, n int);
 *   INSERT INTO t1 SELECT g, date '2024-01-01' + (g % 365), NULL FROM generate_series(1, 100000) g;
 *   CREATE INDEX t1_d ON t1 (d);                         -- 94 pages; leaf 1: 13 items, free_size 1,304
 *   CREATE INDEX t1_d_nodedup ON t1 (d) WITH (deduplicate_items = off);  -- 278; leaf 1: 367 items, 800
 *   CREATE INDEX t1_n ON t1 (n);                         -- 87 (every key NULL); leaf 1: 10 items, 812
 *   CREATE INDEX t1_id ON t1 (id);                       -- 276; leaf 1: 367 items, 808
 * bt_page_items of t1_d's first leaf: posting lists of 808 bytes (132 TIDs). live_items counts the
 * high key: 13 items are 12 tuples.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IndexSet } from '../src/btree/index-set.js';
import { InsertKind, NbtreeIndex, type BuildSource, type NbtreeRules } from '../src/btree/nbtree.js';
import { pgBtreeMaxItemBytes, pgIndexTupleBytes, pgLayout, pgToastIndexTarget } from '../src/formats/postgres.js';
import { getFormat, indexGeometries } from '../src/formats/registry.js';
import { runStorage } from '../src/workload/runner.js';
import { loadConfig } from '../src/loader/config.js';
import { IndexEntryRefusal } from '../src/workload/index-refusal.js';
import { byDelta, mergeFromLeast } from '../src/btree/nbtsplitloc.js';
import { col, engine, table } from './helpers/spec.js';

const pgE = engine({ format: 'postgres-heap', page_size: 8192 });

/** The nbtree rules of an index on `type` (with its options), as postgres.ts gives them. */
function rulesFor(type: string, options: { unique?: boolean; deduplicate_items?: boolean; fillfactor?: number } = {}): NbtreeRules {
  const t = table([col('k', type, true)], [{ name: 'i', columns: ['k'], unique: options.unique ?? false, clustered: false, ...options }]);
  const [g] = indexGeometries(getFormat('postgres-heap'), t, pgLayout(t, pgE));
  return g!.nbtree!;
}

/** A build over `n` rows whose keys are key(row), sorted by (key, row); heap blocks of 185 rows, TIDs in row order. */
function source(n: number, key: (row: number) => number, tupleBytes = 16): BuildSource & { order: Int32Array } {
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => key(a) - key(b) || a - b);
  return {
    order,
    rowAt: (k) => order[k]!,
    key: (_c, r) => key(r),
    block: (r) => Math.floor(r / 185),
    seq: (r) => r,
    tupleBytes: () => tupleBytes,
    pivotBytes: () => tupleBytes,
  };
}

const never = { deletable: () => false };

/** A leaf's TIDs as the tests read them (the index's private leaves). */
interface LeafView {
  n: number;
  blkAt(j: number): number;
  seqAt(j: number): number;
  rowAt(j: number): number;
  baseAt(j: number): number;
  pivAt(j: number): number;
  flagAt(j: number): number;
  flatten(): void;
}

/** Tuples (posting lists counted once) of a leaf, as sizes in TIDs. */
function tuples(nb: NbtreeIndex, leaf: number): number[] {
  const l = (nb as unknown as { leaves: { n: number; tupleEnd(i: number): number; vFrom: number }[] }).leaves[leaf]!;
  const out: number[] = [];
  for (let i = 0; i < l.n; i = l.tupleEnd(i)) out.push(l.tupleEnd(i) - i);
  return out;
}

/** PageGetFreeSpace of a leaf (exact free space less a line pointer). */
function freeSpace(nb: NbtreeIndex, leaf: number): number {
  const l = (nb as unknown as { leaves: { used: number; hikey: number }[] }).leaves[leaf]!;
  return Math.max(0, 8152 - l.hikey - l.used - 4);
}

/** Make every leaf real (the build leaves them virtual), by touching its first key. */
function materialiseAll(nb: NbtreeIndex, src: BuildSource, n: number): void {
  for (let k = 0; k < n; k += 50) nb.touch(Float64Array.of(src.key(0, src.rowAt(k))), src.block(src.rowAt(k)), src.seq(src.rowAt(k)));
}

describe('nbtree: the numbers it lives by (8k pages)', () => {
  it('BTMaxItemSize 2,704 (1,336 on 4k), posting lists of at most 1,352 bytes (a pass) and 812 (CREATE INDEX), TOAST_INDEX_TARGET 510', () => {
    expect(pgBtreeMaxItemBytes(8192)).toBe(2704);
    expect(pgBtreeMaxItemBytes(4096)).toBe(1336);
    const r = rulesFor('date');
    expect(r.maxItemBytes).toBe(2704);
    expect(r.maxPostingBytes).toBe(1352);
    expect(r.buildPostingBytes).toBe(812);
    expect(r.bottomUpTargetBytes).toBe(512);
    expect(r.bottomUpEnoughBytes).toBe(341);
    expect(pgToastIndexTarget(8192)).toBe(510);
  });

  it('deduplication: on for equalimage types (date, int, text, uuid …), off for numeric, real and double precision, and with deduplicate_items = off', () => {
    for (const t of ['date', 'int', 'bigint', 'varchar(20)', 'uuid', 'boolean', 'timestamptz', 'money', 'char(4)', 'bytea'])
      expect({ t, dedup: rulesFor(t).dedup }).toEqual({ t, dedup: true });
    for (const t of ['numeric(10,2)', 'real', 'double precision']) expect({ t, dedup: rulesFor(t).dedup }).toEqual({ t, dedup: false });
    expect(rulesFor('date', { deduplicate_items: false }).dedup).toBe(false);
  });

  it('index_form_tuple compresses a key above TOAST_INDEX_TARGET where the value compresses, not one at or below it', () => {
    const t = table([col('k', 'varchar(2000)')]);
    const layout = pgLayout(t, pgE);
    const lens = new Uint16Array([600]);
    expect(pgIndexTupleBytes(layout, [0], lens, 0)).toBe(8 + 608); // 4-byte varlena header: MAXALIGN(8 + 4 + 600)
    layout.pg.compressedBytes = (_ci, len) => Math.floor(len / 3);
    expect(pgIndexTupleBytes(layout, [0], lens, 0)).toBe(216); // MAXALIGN(8 + 4 + 200)
    lens[0] = 500; // 504 bytes with its header: not above 510
    expect(pgIndexTupleBytes(layout, [0], lens, 0)).toBe(512);
  });
});

describe('nbtree: CREATE INDEX as nbtsort.c builds it, against PostgreSQL 15', () => {
  const N = 100_000;
  const day = (r: number) => (r + 1) % 365;
  it('365 distinct dates over 100,000 rows: 94 pages, posting lists of 132 TIDs, 12 tuples and 1,304 bytes free on the first leaf', () => {
    const src = source(N, day);
    const nb = new NbtreeIndex(1, rulesFor('date'), never);
    nb.build(N, src);
    expect(nb.relationPages() + 1).toBe(94);
    materialiseAll(nb, src, 400);
    expect(tuples(nb, 0)).toEqual([132, 132, 9, 132, 132, 10, 132, 132, 10, 132, 132, 10].slice(0, tuples(nb, 0).length));
    expect(tuples(nb, 0).length).toBe(12);
    expect(freeSpace(nb, 0)).toBe(1304);
    // The root holds the 92 leaves' downlinks.
    expect(nb.upperLevels()).toEqual([1]);
  });

  it('the same with deduplicate_items off: 278 pages, 366 tuples and 800 bytes free on the first leaf', () => {
    const src = source(N, day);
    const nb = new NbtreeIndex(1, rulesFor('date', { deduplicate_items: false }), never);
    nb.build(N, src);
    expect(nb.relationPages() + 1).toBe(278);
    materialiseAll(nb, src, 400);
    expect(tuples(nb, 0).length).toBe(366);
    expect(freeSpace(nb, 0)).toBe(800);
  });

  it('every key NULL (one value for deduplication): 87 pages, 9 tuples and 812 bytes free on the first leaf; unique keys: 276 pages, 808 free', () => {
    const nulls = source(N, () => Infinity);
    const nb = new NbtreeIndex(1, rulesFor('int'), never);
    nb.build(N, nulls);
    expect(nb.relationPages() + 1).toBe(87);
    materialiseAll(nb, nulls, 200);
    expect(tuples(nb, 0).length).toBe(9);
    expect(freeSpace(nb, 0)).toBe(812);
    const ids = source(N, (r) => r + 1);
    const u = new NbtreeIndex(1, rulesFor('int'), never);
    u.build(N, ids);
    expect(u.relationPages() + 1).toBe(276);
    materialiseAll(u, ids, 400);
    expect(freeSpace(u, 0)).toBe(808);
  });
});

describe('nbtree: inserts, deduplication passes and splits', () => {
  it('duplicates arriving with ever higher TIDs fill each page with five posting lists of 222 TIDs and one of 219, then split with the new item alone on the right (PostgreSQL 15: bt_page_items 1,352 × 5 + 1,336, free_size 0)', () => {
    const n = 6000;
    const src = source(n, (r) => (r < 3000 ? 0 : 1));
    const nb = new NbtreeIndex(1, rulesFor('boolean'), never);
    nb.build(n, src);
    for (let i = 0; i < 3000; i++)
      nb.insert(Float64Array.of(0), (i * 7919) % 3000, 100 + Math.floor(i / 100), n + i, 16, 16, InsertKind.Unchanged);
    const filled = (nb as unknown as { leaves: unknown[] }).leaves
      .map((_, i) => i)
      .filter((i) => tuples(nb, i).join(',') === '222,222,222,222,222,219');
    expect(filled.length).toBeGreaterThanOrEqual(1);
    for (const i of filled) expect(freeSpace(nb, i)).toBe(0);
  });

  it('ascending keys split the rightmost leaf at the fillfactor (90%), keys inside the index split a leaf in the middle', () => {
    const n = 1000;
    const src = source(n, (r) => r * 10);
    const nb = new NbtreeIndex(1, rulesFor('int'), never);
    nb.build(n, src);
    for (let i = 0; i < 4000; i++) nb.insert(Float64Array.of((n + i) * 10), n + i, 100, n + i, 16, 16, InsertKind.Insert);
    const last = nb.liveLeaves() - 1;
    // Every leaf but the last filled to about 90%: 8,152 bytes less the fillfactor's 819 (± a tuple).
    for (let i = 3; i < last; i++) expect(Math.abs(freeSpace(nb, i) - 819)).toBeLessThanOrEqual(24);
    const before = nb.liveLeaves();
    // Keys between the first leaf's: it fills and splits evenly (both halves about half empty).
    for (let i = 0; nb.liveLeaves() === before; i++)
      nb.insert(Float64Array.of(5 + i * 0.01), 10_000 + i, 200, 10_000 + i, 16, 16, InsertKind.Insert);
    const a = freeSpace(nb, 0);
    const b = freeSpace(nb, 1);
    expect(Math.abs(a - b)).toBeLessThanOrEqual(40);
    expect(a).toBeGreaterThan(3900);
  });
});

describe('nbtree: bottom-up deletion visits at most 6 heap blocks and stops as heapam.c does', () => {
  /**
   * One leaf of 360 distinct keys (rows 0 … 359, TIDs 5 a heap block at blocks blockOf(row)), each row
   * then updated without its key changing (its new TID on block 1000+); old versions are dead when
   * deadOld(row). The leaf fills after about 40 new TIDs: the first bottom-up pass is the one measured.
   */
  function firstPass(blockOf: (row: number) => number, deadOld: (row: number) => boolean): { passes: number; deleted: number } {
    const n = 360;
    const src: BuildSource = {
      rowAt: (k) => k,
      key: (_c, r) => r,
      block: blockOf,
      seq: (r) => r,
      tupleBytes: () => 16,
      pivotBytes: () => 16,
    };
    const versions = { deletable: (row: number, seq: number) => seq < 100_000 && deadOld(row) };
    const nb = new NbtreeIndex(1, rulesFor('int'), versions);
    nb.build(n, src);
    for (let i = 0; i < n && nb.bottomUpPasses === 0; i++)
      nb.insert(Float64Array.of(i), i, 1000 + Math.floor(i / 5), 100_000 + i, 16, 16, InsertKind.Unchanged);
    return { passes: nb.bottomUpPasses, deleted: nb.bottomUpDeleted };
  }

  it('contiguous blocks are favorable: the target (512 bytes) is met in the sixth block, 5 TIDs of 20 bytes a block: 30 TIDs', () => {
    expect(
      firstPass(
        (r) => Math.floor(r / 5),
        () => true,
      ),
    ).toEqual({ passes: 1, deleted: 30 });
  });

  it('blocks 5 apart are not: the target halves before the second and third block (256, 128): 3 blocks, 15 TIDs', () => {
    expect(
      firstPass(
        (r) => 5 * Math.floor(r / 5),
        () => true,
      ),
    ).toEqual({ passes: 1, deleted: 15 });
  });

  it('a first block with nothing dead ends the pass, whatever dead TIDs other blocks hold', () => {
    expect(
      firstPass(
        (r) => Math.floor(r / 5),
        (r) => r >= 5,
      ),
    ).toEqual({ passes: 1, deleted: 0 });
  });
});

describe('nbtree: VACUUM', () => {
  it("deletes empty leaves (not the rightmost, not a parent's last child with siblings); their pages are reused after the next VACUUM once something was written; the relation never shrinks", () => {
    const n = 20_000;
    const dead = new Set<number>();
    for (let r = 0; r < 8000; r++) dead.add(r);
    const versions = { deletable: (row: number) => dead.has(row) };
    const src = source(n, (r) => r);
    const nb = new NbtreeIndex(1, rulesFor('int'), versions);
    nb.build(n, src);
    materialiseAll(nb, src, n);
    const pages = nb.relationPages();
    const leaves = nb.liveLeaves();
    nb.vacuum();
    expect(nb.relationPages()).toBe(pages);
    expect(nb.liveLeaves()).toBeLessThan(leaves - 15);
    const deleted = leaves - nb.liveLeaves();
    // New keys at the right edge: the deleted pages are not free yet, the relation grows.
    for (let i = 0; i < 2000; i++) nb.insert(Float64Array.of(n + i), n + i, 500, n + i, 16, 16, InsertKind.Insert);
    const grown = nb.relationPages();
    expect(grown).toBeGreaterThan(pages);
    nb.vacuum();
    for (let i = 2000; i < 2000 + 367 * deleted; i++) nb.insert(Float64Array.of(n + i), n + i, 600, n + i, 16, 16, InsertKind.Insert);
    expect(nb.relationPages()).toBeLessThanOrEqual(grown + 2);
  });
});

describe('nbtree: in a run', () => {
  /** A run of table t (id, title varchar(3000)), indexes t_pk and t_title, whose workload is `phases`. */
  const run = (phases: string, when = '') =>
    runStorage(
      loadConfig(
        'inline.yaml',
        `name: big
table:
  name: t
  columns: [{ name: id, type: int }, { name: title, type: varchar(3000) }]
  indexes: [{ name: t_pk, columns: [id], unique: true${when} }, { name: t_title, columns: [title]${when} }]
engine: { format: postgres-heap }
workload:
${phases}
`,
      ).storage[0]!.spec,
    );
  const refusal = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      if (err instanceof IndexEntryRefusal) return err;
      throw err;
    }
    throw new Error('expected the run to stop with an IndexEntryRefusal');
  };

  it('an entry of exactly 2,704 bytes is accepted: a title of 2,692 bytes takes MAXALIGN(8 + 4 + 2,692)', () => {
    const r = run(`  - insert: { rows: 1000, values: { title: { length: { uniform: [2600, 2692] } } } }
  - insert: { rows: 20, values: { title: { length: 2692 } } }
  - update: { rows: 50%, order: random, set: { title: { length: 2692 } } }`);
    expect(r.phases.map((p) => p.rows_affected)).toEqual([1000, 20, 510]);
    expect(r.final.rows_rejected).toBe(0);
    expect(r.final.index_entries).toBeGreaterThan(2 * 1020);
  });

  it('loaded before the index exists, rows over the limit are accepted and CREATE INDEX fails on the first in key order, as the server does', () => {
    const e = refusal(() => run(`  - insert: { rows: 1000, values: { title: { length: { uniform: [2600, 2800] } } } }`));
    expect(e.refusal).toMatchObject({ step: 'create index', phase: 0, index: 't_title', limit: 2704 });
    expect(e.refusal.bytes).toBeGreaterThan(2704);
    expect(e.message).toContain(`ERROR: index row size ${e.refusal.bytes} exceeds btree version 4 maximum 2704 for index "t_title"`);
    expect(e.message).toContain('CREATE INDEX t_title');
  });

  it('one byte over on an existing index: the INSERT is refused (its statement: the run stops), and so is an UPDATE', () => {
    const load = `  - insert: { rows: 1000, values: { title: { length: { uniform: [2600, 2692] } } } }\n`;
    const ins = refusal(() => run(`${load}  - insert: { rows: 20, values: { title: { length: 2693 } } }`));
    expect(ins.refusal).toMatchObject({ step: 'insert', phase: 1, row: 1000, index: 't_title', bytes: 2712, limit: 2704 });
    const upd = refusal(() => run(`${load}  - update: { rows: 50%, order: random, transaction: row, set: { title: { length: 2693 } } }`));
    expect(upd.refusal).toMatchObject({ step: 'update', phase: 1, index: 't_title', bytes: 2712 });
    expect(upd.message).toContain('UPDATE of row');
  });

  it('indexes built before the load (when: before_load): the first INSERT with an entry over the limit is refused', () => {
    const e = refusal(() =>
      run(`  - insert: { rows: 100, values: { title: { length: { uniform: [2690, 2700] } } } }`, ', when: before_load'),
    );
    expect(e.refusal).toMatchObject({ step: 'insert', phase: 0, index: 't_title', limit: 2704 });
  });

  it('an entry over 8,191 bytes: index_form_tuple refuses it first ("index row requires N bytes, maximum size is 8191")', () => {
    const e = refusal(() =>
      runStorage(
        loadConfig(
          'inline.yaml',
          `name: huge
table:
  name: h
  columns: [{ name: id, type: int }, { name: body, type: text }]
  indexes: [{ name: h_body, columns: [body] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 10, values: { body: { length: 9600 } } }
`,
        ).storage[0]!.spec,
      ),
    );
    // The server's words for 9,600 incompressible bytes: 8 + 4 + 9,600 = 9,612, MAXALIGNed.
    expect(e.message).toContain('ERROR: index row requires 9616 bytes, maximum size is 8191');
    expect(e.refusal).toMatchObject({ step: 'create index', row: 0 });
  });
});

describe('nbtree: how a TID is kept (three words while it can be, else four)', () => {
  const view = (nb: NbtreeIndex) => nb as unknown as { leaves: LeafView[]; arena: { w: number; wide(): void } };
  /** Every TID of the index as [row, block, place, tuple bytes, pivot bytes, flags], in order. */
  const tids = (nb: NbtreeIndex) =>
    view(nb).leaves.flatMap((l) => {
      l.flatten();
      return Array.from({ length: l.n }, (_, j) => [l.rowAt(j), l.blkAt(j), l.seqAt(j), l.baseAt(j), l.pivAt(j), l.flagAt(j)]);
    });
  const MAX_NARROW_BLOCK = 2 ** 30 - 1;
  const MAX_SEQ = 2 ** 31 - 1;

  it('the edge values (block 0 and 2^30 − 1, place 0 and 2^31 − 1, both flags) read back as written, and again after a TID that needs four words', () => {
    const dead = new Set<number>([1]);
    const nb = new NbtreeIndex(1, rulesFor('int', { deduplicate_items: false }), { deletable: (row) => dead.has(row) });
    const put = (row: number, blk: number, seq: number, base = 16, piv = 16) =>
      nb.insert(Float64Array.of(row), row, blk, seq, base, piv, InsertKind.Insert);
    put(0, 0, 0);
    put(1, MAX_NARROW_BLOCK, MAX_SEQ);
    put(2, MAX_NARROW_BLOCK, 0);
    put(3, 0, MAX_SEQ);
    // Row 1's tuple is found dead: LP_DEAD beside a block number of 30 bits.
    expect(nb.kill(Float64Array.of(1), 1)).toBe(true);
    expect(view(nb).arena.w).toBe(3);
    const HEAD = 1;
    const DEAD = 2;
    const before = [
      [0, 0, 0, 16, 16, HEAD],
      [1, MAX_NARROW_BLOCK, MAX_SEQ, 16, 16, HEAD | DEAD],
      [2, MAX_NARROW_BLOCK, 0, 16, 16, HEAD],
      [3, 0, MAX_SEQ, 16, 16, HEAD],
    ];
    expect(tids(nb)).toEqual(before);
    // A block past 30 bits: four words a TID from then on, the TIDs before as they were.
    put(4, MAX_NARROW_BLOCK + 1, 7);
    expect(view(nb).arena.w).toBe(4);
    expect(tids(nb)).toEqual([...before, [4, MAX_NARROW_BLOCK + 1, 7, 16, 16, HEAD]]);
    const wide = new NbtreeIndex(1, rulesFor('int', { deduplicate_items: false }), never);
    wide.insert(Float64Array.of(0), 0, 5, 0, 16, 16, InsertKind.Insert);
    expect(view(wide).arena.w).toBe(3);
    // A tuple of other bytes (a key of another size) does too.
    wide.insert(Float64Array.of(1), 1, 5, 1, 24, 20, InsertKind.Insert);
    expect(view(wide).arena.w).toBe(4);
    expect(tids(wide)).toEqual([
      [0, 5, 0, 16, 16, HEAD],
      [1, 5, 1, 24, 20, HEAD],
    ]);
  });

  it('three words or four, the same index: a build, inserts that split and deduplicate, kills and VACUUM', () => {
    const run = (forceWide: boolean) => {
      const n = 30_000;
      const dead = new Set<number>();
      const nb = new NbtreeIndex(1, rulesFor('int'), { deletable: (row) => dead.has(row) });
      const src = source(n, (r) => r % 500);
      nb.build(n, src);
      if (forceWide) view(nb).arena.wide();
      for (let i = 0; i < 6000; i++) {
        const row = (i * 7919) % n;
        nb.insert(Float64Array.of(row % 500), row, 200 + (i % 40), n + i, 16, 16, InsertKind.Unchanged);
        if (i % 3 === 0) dead.add(row);
        if (i % 11 === 0) nb.kill(Float64Array.of(row % 500), row);
      }
      nb.vacuum();
      return {
        w: view(nb).arena.w,
        stats: nb.leafStats(),
        pages: nb.relationPages(),
        splits: nb.splits,
        dedup: nb.dedupPasses,
        bottomUp: nb.bottomUpDeleted,
        simple: nb.simpleDeleted,
        tids: tids(nb),
      };
    };
    const narrow = run(false);
    const wide = run(true);
    expect(narrow.w).toBe(3);
    expect(wide.w).toBe(4);
    expect(narrow.splits).toBeGreaterThan(0);
    expect(narrow.dedup).toBeGreaterThan(0);
    expect({ ...narrow, w: 0 }).toEqual({ ...wide, w: 0 });
  });
});

describe('nbtree: a bottom-up pass while nothing can be deletable', () => {
  /** Every TID of the index as [row, block, place, tuple bytes, flags], leaf by leaf. */
  const leafTids = (nb: NbtreeIndex) =>
    (nb as unknown as { leaves: LeafView[] }).leaves.map((l) => {
      l.flatten();
      return Array.from({ length: l.n }, (_, j) => [l.rowAt(j), l.blkAt(j), l.seqAt(j), l.baseAt(j), l.flagAt(j)]);
    });

  /**
   * Rows of `keys` distinct keys built, then `updates` entries added: each a new version of a row with
   * its key unchanged (a non-HOT UPDATE), or with `newRows` a new row whose key is already there. Full
   * leaves run bottom-up passes that find nothing (a unique index also for a new row's key it holds),
   * then deduplicate or split. `shortcut` tells the index that nothing is deletable (anyDeletable), else
   * it runs the whole pass.
   */
  function run(
    p: { rows: number; keys: number; updates: number; step: number; unique: boolean; dedup: boolean; newRows: boolean },
    shortcut: boolean,
  ) {
    const versions = shortcut ? { deletable: () => false, anyDeletable: () => false } : { deletable: () => false };
    const nb = new NbtreeIndex(1, rulesFor('int', { unique: p.unique, deduplicate_items: p.dedup }), versions);
    const src = source(p.rows, (r) => r % p.keys);
    nb.build(p.rows, src);
    for (let i = 0; i < p.updates; i++) {
      const row = (i * p.step) % p.rows;
      if (p.newRows) nb.insert(Float64Array.of(row % p.keys), p.rows + i, 400 + (i >> 6), p.rows + i, 16, 16, InsertKind.Insert);
      else nb.insert(Float64Array.of(row % p.keys), row, 400 + (i >> 6), p.rows + i, 16, 16, InsertKind.Unchanged);
    }
    return {
      tids: leafTids(nb),
      stats: nb.leafStats(),
      pages: nb.relationPages(),
      splits: nb.splits,
      dedup: nb.dedupPasses,
      bottomUp: nb.bottomUpPasses,
      deleted: nb.bottomUpDeleted,
    };
  }

  it('leaves every leaf, split and pass as the whole pass does (unique and plain indexes, with and without deduplication)', () => {
    fc.assert(
      fc.property(
        fc.record({
          rows: fc.integer({ min: 500, max: 6000 }),
          keys: fc.integer({ min: 1, max: 6000 }),
          updates: fc.integer({ min: 200, max: 4000 }),
          step: fc.constantFrom(1, 7, 7919),
          unique: fc.boolean(),
          dedup: fc.boolean(),
          newRows: fc.boolean(),
        }),
        (p) => {
          const q = { ...p, keys: p.unique ? p.rows : Math.min(p.keys, p.rows) };
          const whole = run(q, false);
          expect(run(q, true)).toEqual(whole);
        },
      ),
      // The example: a unique index's check once read a leaf still as the build left it, making it real early.
      { numRuns: 40, examples: [[{ rows: 1466, keys: 1, updates: 210, step: 7, unique: true, dedup: false, newRows: false }]] },
    );
  });

  it('a pass that finds neighbouring equal keys: the leaf is deduplicated (or split) after it', () => {
    const r = run({ rows: 4000, keys: 4000, updates: 3000, step: 7919, unique: true, dedup: true, newRows: false }, true);
    expect(r.bottomUp).toBeGreaterThan(0);
    expect(r.dedup).toBe(r.bottomUp);
    expect(r.splits).toBeGreaterThan(0);
  });

  it('a pass that finds none (a full leaf of distinct keys given a new row whose key it holds, in a unique index): the leaf splits, not deduplicated', () => {
    /** With `firstPair`, a new row first takes the key of the leaf's first tuple: the only equal keys are its first two tuples. */
    const once = (shortcut: boolean, firstPair: boolean) => {
      const versions = shortcut ? { deletable: () => false, anyDeletable: () => false } : { deletable: () => false };
      const nb = new NbtreeIndex(1, rulesFor('int', { unique: true }), versions);
      const n = 1000;
      nb.build(
        n,
        source(n, (r) => r),
      );
      // New rows with ever higher keys fill the rightmost leaf up to its last tuple's room.
      let row = n;
      const last = () => nb.liveLeaves() - 1;
      if (firstPair) {
        nb.touch(Float64Array.of(n - 1), Math.floor((n - 1) / 185), n - 1);
        nb.insert(Float64Array.of(leafTids(nb)[last()]![0]![0]!), row, 100, row, 16, 16, InsertKind.Insert);
        row++;
      }
      while (freeSpace(nb, last()) >= 20) {
        nb.insert(Float64Array.of(row), row, 100, row, 16, 16, InsertKind.Insert);
        row++;
      }
      const before = { passes: nb.bottomUpPasses, dedup: nb.dedupPasses, splits: nb.splits };
      nb.insert(Float64Array.of(row - 1), row, 101, row, 16, 16, InsertKind.Insert);
      return {
        before,
        after: { passes: nb.bottomUpPasses, dedup: nb.dedupPasses, splits: nb.splits },
        stats: nb.leafStats(),
        tids: leafTids(nb),
      };
    };
    const fast = once(true, false);
    expect(fast.before.passes).toBe(0);
    expect(fast.after).toEqual({ passes: 1, dedup: fast.before.dedup, splits: fast.before.splits + 1 });
    expect(fast).toEqual(once(false, false));
    // The leaf's first two tuples share a key: the pass finds them, and the leaf is deduplicated.
    const pair = once(true, true);
    expect(pair.after.passes).toBe(1);
    expect(pair.after.dedup).toBe(pair.before.dedup + 1);
    expect(pair).toEqual(once(false, true));
  });
});

describe('IndexSet.anyDeletable: false only while no version is deletable', () => {
  /** An IndexSet over a table of one int key (its key the row id), and every (row, version) it has numbered. */
  function indexSet() {
    const t = table([col('k', 'int', true)], [{ name: 'i', columns: ['k'], unique: true, clustered: false }]);
    const layout = pgLayout(t, pgE);
    const lens = new Uint16Array(4096);
    const set = new IndexSet(indexGeometries(getFormat('postgres-heap'), t, layout), layout, true, {
      key: (_c, r) => r,
      keyIsRowId: () => true,
      rowPage: (r) => r >> 5,
      lens: () => lens,
    });
    const versions: [number, number][] = [];
    const seqOf = (row: number) => (set as unknown as { seqOf(row: number): number }).seqOf(row);
    const insert = (row: number) => {
      set.append(row, lens, row * layout.varying.length);
      versions.push([row, seqOf(row)]);
    };
    const update = (row: number) => {
      set.addVersion(row, lens, row * layout.varying.length);
      versions.push([row, seqOf(row)]);
    };
    const someDeletable = () => versions.some(([row, seq]) => set.deletable(row, seq));
    return { set, insert, update, someDeletable, versions };
  }

  it('rows inserted, then changed in an open transaction: none; after its commit, the old versions', () => {
    const s = indexSet();
    for (let r = 0; r < 100; r++) s.insert(r);
    s.set.commit();
    expect([s.set.anyDeletable(), s.someDeletable()]).toEqual([false, false]);
    for (const r of [5, 7, 5]) s.update(r);
    expect([s.set.anyDeletable(), s.someDeletable()]).toEqual([false, false]);
    s.set.commit();
    expect([s.set.anyDeletable(), s.someDeletable()]).toEqual([true, true]);
  });

  it('a transaction that changes most rows (kept as a bitmap, not a list): after its commit every replaced version, never a current one', () => {
    const s = indexSet();
    const seqOf = (row: number) => (s.set as unknown as { seqOf(row: number): number }).seqOf(row);
    const exact = () => s.versions.every(([row, seq]) => s.set.deletable(row, seq) === (seq !== seqOf(row)));
    for (let r = 0; r < 1000; r++) s.insert(r);
    s.set.commit();
    for (let r = 0; r < 1000; r++) s.update(r);
    for (let r = 0; r < 1000; r += 3) s.update(r);
    expect(s.someDeletable()).toBe(false);
    expect((s.set as unknown as { changedBits: Int32Array | null }).changedBits, 'the changed rows kept as a bitmap').not.toBeNull();
    s.set.commit();
    expect(exact()).toBe(true);
    // A snapshot held over a large transaction, then a transaction rolled back: its versions dead, the ones before it current again.
    s.set.hold(true);
    for (let r = 0; r < 500; r++) s.update(r);
    s.set.commit();
    expect(s.versions.filter(([row, seq]) => s.set.deletable(row, seq)).length).toBe(1334);
    s.set.beginTransactionLog();
    for (let r = 600; r < 640; r++) s.update(r);
    s.set.abort();
    s.set.hold(false);
    expect(exact()).toBe(true);
  });

  it('a row numbered below its id (inserted past the versions made so far) reads as deletable before any commit: anyDeletable says so', () => {
    const s = indexSet();
    for (let r = 0; r < 10; r++) s.insert(r);
    s.update(2);
    expect([s.set.anyDeletable(), s.someDeletable()]).toEqual([false, false]);
    s.insert(30);
    expect(s.someDeletable()).toBe(true);
    expect(s.set.anyDeletable()).toBe(true);
  });
});

describe("nbtree: a unique index's check before an insert (_bt_check_unique)", () => {
  /** Leaf 0's tuples as [TIDs, LP_DEAD] after `steps` (each inserts a new version of row 0 at heap block 900 + i). */
  function run(unique: boolean, deadBelow: (i: number) => number, steps: number) {
    let below = 0;
    // Versions of row 0 below `below` are dead to everyone (their whole HOT chain).
    const nb = new NbtreeIndex(1, rulesFor('int', { unique }), { deletable: (row, seq) => row === 0 && seq < below });
    const src = source(400, (r) => r);
    nb.build(400, src);
    for (let i = 0; i < steps; i++) {
      below = deadBelow(i);
      nb.insert(Float64Array.of(0), 0, 900 + i, 1000 + i, 16, 16, InsertKind.Unchanged);
    }
    const l = (nb as unknown as { leaves: { n: number; flatten(): void; tupleEnd(i: number): number; flagAt(j: number): number }[] })
      .leaves[0]!;
    l.flatten();
    const out: [number, boolean][] = [];
    for (let i = 0; i < l.n; i = l.tupleEnd(i)) out.push([l.tupleEnd(i) - i, (l.flagAt(i) & 2) !== 0]);
    return out.slice(0, 3);
  }

  it('marks LP_DEAD the tuples of the key whose versions are all dead, not the live ones, not in a plain index', () => {
    // Versions 0 (the build's) and 1000 dead when version 1001 comes: their tuples are marked.
    expect(run(true, (i) => (i < 1 ? 0 : 1001), 2)).toEqual([
      [1, true],
      [1, true],
      [1, false],
    ]);
    expect(run(false, (i) => (i < 1 ? 0 : 1001), 2)).toEqual([
      [1, false],
      [1, false],
      [1, false],
    ]);
  });

  it('a posting list only when every TID in it is dead', () => {
    // 60 versions, none dead, fill the first leaf (808 bytes free): deduplication makes them a posting list.
    const full = run(true, () => 0, 60);
    expect(full[0]![0]).toBeGreaterThan(1);
    const n = full[0]![0];
    // One TID of the list still live: not marked; every one dead: marked.
    expect(run(true, (i) => (i < 59 ? 0 : 1000 + n - 2), 60)[0]).toEqual([n, false]);
    expect(run(true, (i) => (i < 59 ? 0 : 1000 + n), 60)[0]).toEqual([n, true]);
  });
});

describe('split points in order of distance (nbtsplitloc.ts sortByDelta)', () => {
  /** Points in item order with the given distances (lf, rf unused by the order). */
  const points = (deltas: number[]) => deltas.map((delta, i) => ({ j: i + 1, lf: 0, rf: 0, delta }));

  it('the merge outward from the least distance gives the comparator sort, or leaves the points to it (property)', () => {
    // Distances falling to a least one and rising after it (most pages), with a few disordered (posting lists of other sizes), or any.
    const vShaped = fc
      .tuple(fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 300 }), fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 300 }))
      .map(([down, up]) => {
        let d = down.reduce((a, b) => a + b, 0);
        const out = down.map((x) => (d -= x) + x);
        let e = 0;
        for (const x of up) out.push((e += x));
        return out;
      });
    const bumped = fc.tuple(vShaped, fc.array(fc.nat(), { maxLength: 4 })).map(([d, at]) => {
      for (const a of at) if (d.length > 0) d[a % d.length] = d[a % d.length]! + 7;
      return d;
    });
    fc.assert(
      fc.property(fc.oneof(vShaped, bumped, fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 200 })), (deltas) => {
        const sorted = points(deltas).sort(byDelta);
        const cand = points(deltas);
        const before = cand.map((c) => c.j);
        if (mergeFromLeast(cand)) expect(cand).toEqual(sorted);
        else expect(cand.map((c) => c.j)).toEqual(before);
      }),
      { numRuns: 500 },
    );
  });

  it('takes the merge for a page whose distances fall and rise, and refuses one that does not', () => {
    const v = points([9, 5, 2, 0, 2, 4, 8]);
    expect(mergeFromLeast(v)).toBe(true);
    expect(v.map((c) => c.j)).toEqual([4, 3, 5, 6, 2, 7, 1]);
    const w = points([0, 9, 1, 8]);
    expect(mergeFromLeast(w)).toBe(false);
    expect(w.map((c) => c.j)).toEqual([1, 2, 3, 4]);
  });
});
