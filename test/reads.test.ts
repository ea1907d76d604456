/**
 * Read phases: the buffer cache against a plain reference, what each engine reads for a row and for a
 * scan (forwarded, migrated and chained rows; PostgreSQL's dead versions, HOT chains and pruning on
 * access), each format's rule for comparing a column with a parameter of another type, and reading
 * large objects in chunks (the bytes DERBY-3766 reports).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseType } from '../src/config/column-types.js';
import type { PhaseSpec } from '../src/config/spec.js';
import { BufferCache, PG_MAX_USAGE_COUNT } from '../src/heap/buffer-cache.js';
import { getFormat } from '../src/formats/registry.js';
import { derbyLobStore, lobReadCost, pgToastStore } from '../src/formats/lob.js';
import { runStorage } from '../src/workload/runner.js';
import { col, engine, storage, table } from './helpers/spec.js';

/** A plain LRU: an array, most recent first. */
function referenceLru(pages: number, accesses: [number, number][]): boolean[] {
  const list: string[] = [];
  return accesses.map(([o, p]) => {
    const key = `${o}:${p}`;
    const at = list.indexOf(key);
    if (at >= 0) list.splice(at, 1);
    else if (list.length === pages) list.pop();
    list.unshift(key);
    return at >= 0;
  });
}

/** A plain clock sweep with usage counts up to 5 (PostgreSQL's StrategyGetBuffer). */
function referenceClock(pages: number, accesses: [number, number][]): boolean[] {
  const keys: (string | null)[] = new Array(pages).fill(null);
  const usage = new Array<number>(pages).fill(0);
  let hand = 0;
  let used = 0;
  return accesses.map(([o, p]) => {
    const key = `${o}:${p}`;
    const at = keys.indexOf(key);
    if (at >= 0) {
      usage[at] = Math.min(PG_MAX_USAGE_COUNT, usage[at]! + 1);
      return true;
    }
    let victim: number;
    if (used < pages) victim = used++;
    else {
      for (;;) {
        const f = hand;
        hand = (hand + 1) % pages;
        if (usage[f] === 0) {
          victim = f;
          break;
        }
        usage[f]!--;
      }
    }
    keys[victim] = key;
    usage[victim] = 1;
    return false;
  });
}

describe('BufferCache', () => {
  const accesses = fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: -5, max: 40 })), { maxLength: 400 });
  it('LRU: every hit and miss as a plain most-recent-first list says', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), accesses, (pages, seq) => {
        const c = new BufferCache(pages, 'lru');
        expect(seq.map(([o, p]) => c.access(o, p))).toEqual(referenceLru(pages, seq));
      }),
    );
  });
  it("clock: every hit and miss as PostgreSQL's clock sweep with usage counts up to 5 says", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), accesses, (pages, seq) => {
        const c = new BufferCache(pages, 'clock');
        expect(seq.map(([o, p]) => c.access(o, p))).toEqual(referenceClock(pages, seq));
      }),
    );
  });
  it('a scan larger than an LRU cache hits nothing the second time; a clock cache does no better', () => {
    for (const policy of ['lru', 'clock'] as const) {
      const c = new BufferCache(100, policy);
      for (let p = 0; p < 150; p++) c.access(0, p);
      let hits = 0;
      for (let p = 0; p < 150; p++) hits += c.access(0, p) ? 1 : 0;
      expect(hits, policy).toBe(0);
    }
  });
});

const reading = (phases: PhaseSpec[]) => phases;
const t = table(
  [col('id', 'int'), col('code', 'varchar(36)'), col('body', 'varchar(600)', true)],
  [
    { name: 'pk', columns: ['id'], unique: true, clustered: false },
    { name: 'by_code', columns: ['code'], unique: false, clustered: false },
  ],
);
const load: PhaseSpec = {
  op: 'insert',
  rows: { kind: 'count', n: 5000 },
  values: { code: { null: 0, length: { kind: 'const', value: 36 } }, body: { null: 0, length: { kind: 'uniform', min: 0, max: 40 } } },
};
const grow: PhaseSpec = {
  op: 'update',
  rows: { kind: 'percent', pct: 60 },
  order: { kind: 'random' },
  transaction: 'statement',
  set: { body: { kind: 'grow', dist: { kind: 'uniform', min: 100, max: 400 } } },
};
const select = (
  via: 'scan' | 'index' | 'rowid',
  rows: PhaseSpec extends never ? never : { kind: 'count'; n: number } | { kind: 'all' },
  extra: object = {},
): PhaseSpec =>
  ({
    op: 'select',
    rows,
    order: { kind: 'sequential' },
    via,
    repeat: 1,
    ...(via === 'index' ? { index: 'pk' } : {}),
    ...extra,
  }) as PhaseSpec;

describe('what a read reads', () => {
  it('forwarding heaps: a row-id fetch reads two pages for a forwarded row, one otherwise; a scan reads what table_scan_page_reads says', () => {
    for (const format of ['ase-dol', 'sqlserver-heap', 'oracle-heap'] as const) {
      const r = runStorage(
        storage(
          t,
          engine({ format, exp_row_size: 1 }),
          reading([load, grow, select('rowid', { kind: 'all' }), select('scan', { kind: 'all' })]),
        ),
      );
      const before = r.phases[1]!.metrics;
      const fetch = r.phases[2]!.reads!;
      expect(fetch.statements, format).toBe(5000);
      expect(fetch.data_page_reads, format).toBe(5000 + before.forwarded_rows);
      expect(fetch.forwarded_hops, format).toBe(before.forwarded_rows);
      const scan = r.phases[3]!.reads!;
      expect(scan.data_page_reads, format).toBe(before.table_scan_page_reads);
      expect(scan.rows_returned, format).toBe(5000);
    }
  });

  it("the engines' own counters: forwarded_fetch_count (SQL Server), table fetch continued row (Oracle, migrated and chained), forwarded row reads (ASE)", () => {
    const names = {
      'ase-dol': 'forwarded_row_reads',
      'sqlserver-heap': 'forwarded_fetch_count',
      'oracle-heap': 'table_fetch_continued_row',
    } as const;
    for (const [format, name] of Object.entries(names)) {
      const r = runStorage(
        storage(t, engine({ format: format as 'ase-dol', exp_row_size: 1 }), [load, grow, select('rowid', { kind: 'all' })]),
      );
      expect(r.phases[2]!.reads!.engine_counters[name], format).toBe(
        r.phases[2]!.reads!.forwarded_hops + r.phases[2]!.reads!.chained_piece_reads,
      );
      expect(r.phases[2]!.reads!.forwarded_hops, format).toBeGreaterThan(0);
    }
  });

  it('an index seek reads the index from root to leaf (its levels) and then the row', () => {
    const r = runStorage(storage(t, engine({ format: 'sqlserver-heap' }), [load, select('index', { kind: 'count', n: 100 })]));
    const reads = r.phases[1]!.reads!;
    const levels = r.phases[0]!.index_pages.levels.pk!;
    expect(reads.index_page_reads).toBe(100 * levels);
    expect(reads.data_page_reads).toBe(100);
  });

  it('PostgreSQL: an index scan visits the dead versions its entries still point to once, then they are killed; VACUUM removes them', () => {
    const pg = engine({ format: 'postgres-heap', fillfactor: 100 });
    const twice = select('index', { kind: 'all' });
    // The primary key at fillfactor 50: the updates' new entries fit on the leaves, no posting list forms.
    const roomy = table(t.columns, [{ name: 'pk', columns: ['id'], unique: true, clustered: false, fillfactor: 50 }]);
    const r = runStorage(
      storage(roomy, pg, [load, grow, twice, twice, { op: 'reorg', kind: 'vacuum' }, grow, { op: 'reorg', kind: 'vacuum' }, twice]),
    );
    const first = r.phases[2]!.reads!;
    const second = r.phases[3]!.reads!;
    // Every non-HOT update left an entry on a dead version; the first scan visits each once, on the
    // page where that version is (the update moved it: not the row's page), then reads the leaf again
    // to mark it (_bt_killitems).
    const moved = r.phases[1]!.metrics.updates - r.phases[1]!.metrics.hot_updates;
    expect(first.engine_counters.dead_versions_visited).toBe(moved);
    expect(first.data_page_reads).toBe(5000 + moved);
    expect(first.index_page_reads).toBe(second.index_page_reads + moved);
    expect(second.engine_counters.dead_versions_visited).toBe(0);
    expect(r.phases[7]!.reads!.engine_counters.dead_versions_visited).toBe(0);
    // The scan pruned the pages of the dead versions it visited: none is left.
    expect(r.phases[2]!.metrics.dead_tuples).toBe(0);
    expect(r.phases[1]!.metrics.dead_tuples).toBeGreaterThan(0);
  });

  it('PostgreSQL: entries merged into a posting list with the live row cannot be killed, so a second scan visits those dead versions again (as the server does)', () => {
    const pg = engine({ format: 'postgres-heap', fillfactor: 100 });
    const twice = select('index', { kind: 'all' });
    // The primary key at its default fillfactor (90): the updates' new entries overflow leaves, and
    // deduplication merges a key's two versions into one posting list.
    const r = runStorage(storage(t, pg, [load, grow, twice, twice]));
    const first = r.phases[2]!.reads!.engine_counters.dead_versions_visited;
    const second = r.phases[3]!.reads!.engine_counters.dead_versions_visited;
    expect(first).toBe(r.phases[1]!.metrics.updates - r.phases[1]!.metrics.hot_updates);
    expect(second).toBeGreaterThan(0);
    expect(second).toBeLessThan(first);
  });

  it('PostgreSQL: reads prune pages on access (heap_page_prune_opt), so a later scan finds fewer dead versions', () => {
    const pg = engine({ format: 'postgres-heap', fillfactor: 100 });
    const r = runStorage(storage(t, pg, [load, grow, select('scan', { kind: 'all' }), select('scan', { kind: 'all' })]));
    const scan1 = r.phases[2]!.reads!.engine_counters;
    expect(scan1.pages_pruned).toBeGreaterThan(0);
    expect(r.phases[2]!.metrics.dead_tuples).toBeLessThan(r.phases[1]!.metrics.dead_tuples);
    expect(r.phases[3]!.reads!.engine_counters.pages_pruned).toBe(0);
    // A scan examines every version on a page it reads, after pruning: at least the live rows.
    expect(scan1.tuples_visited).toBeGreaterThanOrEqual(5000);
  });

  it('PostgreSQL: a fetch through a HOT chain steps over the heap-only versions not yet pruned', () => {
    const pg = engine({ format: 'postgres-heap', fillfactor: 50 });
    const small: PhaseSpec = {
      op: 'update',
      rows: { kind: 'all' },
      order: { kind: 'sequential' },
      transaction: 'row',
      set: { body: { kind: 'length', dist: { kind: 'const', value: 10 } } },
    };
    const r = runStorage(storage(t, pg, [load, small, small, select('index', { kind: 'all' })]));
    const hot = r.phases[2]!.metrics.hot_updates;
    expect(hot).toBeGreaterThan(0);
    expect(r.phases[3]!.reads!.engine_counters.hot_chain_hops).toBeGreaterThan(0);
    expect(r.phases[3]!.reads!.engine_counters.hot_chain_hops).toBeLessThanOrEqual(hot);
  });

  it('a buffer cache: hits, physical reads and a ratio per phase; a bigger cache never reads more from disk; costs give an estimate labelled as one', () => {
    const phases = [load, grow, select('index', { kind: 'count', n: 2000 }, { order: { kind: 'random' } })];
    const physical = [50, 200, 1000, 5000].map((pages) => {
      const spec = {
        ...storage(t, engine({ format: 'ase-dol' }), phases),
        cache: { pages, policy: 'lru' as const },
        costs: { logical_read_ns: 2000, physical_read_ns: 100_000 },
      };
      const reads = runStorage(spec).phases[2]!.reads!;
      expect(reads.cache!.hits + reads.cache!.physical_reads).toBe(reads.logical_reads);
      expect(reads.estimate_from).toMatch(/^an estimate from the configured costs alone/);
      expect(reads.estimated_ms).toBeCloseTo((reads.logical_reads * 2000 + reads.cache!.physical_reads * 100_000) / 1e6, 6);
      return reads.cache!.physical_reads;
    });
    for (let i = 1; i < physical.length; i++) expect(physical[i]!).toBeLessThanOrEqual(physical[i - 1]!);
  });
});

describe('comparing a column with a parameter of another type', () => {
  const rule = (
    format: 'ase-dol' | 'sqlserver-heap' | 'postgres-heap' | 'oracle-heap',
    column: string,
    parameter: string,
    collation: 'sql' | 'windows' = 'sql',
  ) =>
    getFormat(format).reads.comparison(
      col('c', column),
      parseType(parameter),
      engine({ format, ...(format === 'sqlserver-heap' ? { collation } : {}) }),
    );

  it('SQL Server: the lower precedence side is converted; varchar column vs nvarchar: a scan under a SQL collation, a range seek under a Windows one', () => {
    expect(rule('sqlserver-heap', 'varchar(36)', 'nvarchar(36)')).toMatchObject({
      access: 'scan',
      converted: 'column',
      expression: 'CONVERT_IMPLICIT(nvarchar(36), c, 0) = @p',
    });
    expect(rule('sqlserver-heap', 'varchar(36)', 'nvarchar(36)', 'windows')).toMatchObject({ access: 'range-seek', converted: 'column' });
    expect(rule('sqlserver-heap', 'nvarchar(36)', 'varchar(36)')).toMatchObject({ access: 'seek', converted: 'parameter' });
    expect(rule('sqlserver-heap', 'varchar(36)', 'varchar(10)')).toMatchObject({ access: 'seek', converted: 'none' });
    expect(rule('sqlserver-heap', 'varchar(20)', 'int')).toMatchObject({ access: 'scan', converted: 'column' });
    expect(rule('sqlserver-heap', 'int', 'varchar(20)')).toMatchObject({ access: 'seek', converted: 'parameter' });
    expect(rule('sqlserver-heap', 'int', 'bigint')).toMatchObject({ access: 'scan', converted: 'column' });
    expect(rule('sqlserver-heap', 'uuid', 'int').access).toBe('error');
  });

  it('PostgreSQL: one operator family keeps the index; an int column against numeric is cast and scanned; text against numeric is refused', () => {
    expect(rule('postgres-heap', 'int', 'bigint')).toMatchObject({ access: 'seek', converted: 'none' });
    expect(rule('postgres-heap', 'varchar(36)', 'text')).toMatchObject({ access: 'seek' });
    expect(rule('postgres-heap', 'varchar(36)', 'nvarchar(36)')).toMatchObject({ access: 'seek' });
    expect(rule('postgres-heap', 'int', 'numeric(10,2)')).toMatchObject({
      access: 'scan',
      converted: 'column',
      expression: '(c)::numeric = $1',
    });
    expect(rule('postgres-heap', 'int', 'float')).toMatchObject({ access: 'scan', converted: 'column' });
    expect(rule('postgres-heap', 'numeric(10,2)', 'int')).toMatchObject({ access: 'seek', converted: 'parameter' });
    expect(rule('postgres-heap', 'text', 'numeric(10,2)').access).toBe('error');
    expect(rule('postgres-heap', 'char(10)', 'text')).toMatchObject({ access: 'scan', converted: 'column' });
  });

  it('Oracle: the character side is converted; VARCHAR2 against NVARCHAR2 converts the column', () => {
    expect(rule('oracle-heap', 'varchar2(36)', 'nvarchar2(36)')).toMatchObject({
      access: 'scan',
      converted: 'column',
      expression: 'SYS_OP_C2C(c) = :b',
    });
    expect(rule('oracle-heap', 'varchar2(36)', 'number(10,0)')).toMatchObject({ access: 'scan', expression: 'TO_NUMBER(c) = :b' });
    expect(rule('oracle-heap', 'number(10,0)', 'varchar2(10)')).toMatchObject({ access: 'seek', converted: 'parameter' });
  });

  it("ASE: the index is considered when the column's type precedes the parameter's in the hierarchy: varchar against univarchar is not", () => {
    expect(rule('ase-dol', 'varchar(36)', 'univarchar(36)')).toMatchObject({ access: 'scan', converted: 'column' });
    expect(rule('ase-dol', 'univarchar(36)', 'varchar(36)')).toMatchObject({ access: 'seek', converted: 'parameter' });
    expect(rule('ase-dol', 'varchar(36)', 'char(36)')).toMatchObject({ access: 'seek', converted: 'none' });
    expect(rule('ase-dol', 'int', 'smallint')).toMatchObject({ access: 'seek' });
    expect(rule('ase-dol', 'smallint', 'int')).toMatchObject({ access: 'scan' });
  });

  it('a select whose predicate keeps the index from being sought reads the whole table, and says why', () => {
    const tt = table(
      [col('id', 'int'), col('code', 'varchar(36)')],
      [{ name: 'by_code', columns: ['code'], unique: false, clustered: false }],
    );
    const base: PhaseSpec = {
      op: 'insert',
      rows: { kind: 'count', n: 20000 },
      values: { code: { null: 0, length: { kind: 'const', value: 36 } } },
    };
    const q = (parameter: string): PhaseSpec => ({
      op: 'select',
      rows: { kind: 'count', n: 1 },
      order: { kind: 'random' },
      via: 'index',
      index: 'by_code',
      predicate: { column: 'code', parameterText: parameter, parameter: parseType(parameter) },
      repeat: 1,
    });
    const r = runStorage(storage(tt, engine({ format: 'sqlserver-heap' }), [base, q('varchar(36)'), q('nvarchar(36)')]));
    const seek = r.phases[1]!.reads!;
    const scan = r.phases[2]!.reads!;
    expect(seek.via).toBe('index');
    expect(seek.logical_reads).toBeLessThan(6);
    expect(scan.via).toBe('scan');
    expect(scan.data_page_reads).toBe(r.phases[0]!.metrics.pages);
    expect(scan.plan).toMatch(/CONVERT_IMPLICIT\(nvarchar\(36\), code, 0\)/);
  });
});

describe('large objects read in chunks', () => {
  it('restart processes s + b·n(n − 1)/2 bytes: 70,459,204,864 for a 64 MB Blob read 32,000 bytes at a time, the count DERBY-3766 reports', () => {
    const mb64 = 64 * 1024 * 1024;
    expect(lobReadCost(mb64, 32_000, 'restart', derbyLobStore(), 1).bytes).toBe(70_459_204_864);
    expect(lobReadCost(mb64, 32_000, 'keep', derbyLobStore(), 1).bytes).toBe(mb64);
    // 1 MB in 32,000-byte reads: 33 reads; the approximation b·n(n+1)/2 = 17,952,000 drops s and uses n + 1.
    const mb1 = lobReadCost(1024 * 1024, 32_000, 'restart', derbyLobStore(), 1);
    expect(mb1.reads).toBe(33);
    expect(mb1.bytes).toBe(1024 * 1024 + (32_000 * 33 * 32) / 2);
  });

  it('keep reads every page once; restart reads the prefix again each time, quadratically', () => {
    const store = pgToastStore(8192, 1996);
    const keep = lobReadCost(1_000_000, 10_000, 'keep', store, 1);
    const restart = lobReadCost(1_000_000, 10_000, 'restart', store, 1);
    expect(keep.pages - keep.lookups).toBe(Math.ceil(1_000_000 / (1996 * 4)));
    expect(restart.pages - restart.lookups).toBeGreaterThan(40 * (keep.pages - keep.lookups));
  });

  it("a read_lob phase reads the column's values as the table stores them, or as Derby does", () => {
    const tl = table([col('id', 'int'), col('doc', 'blob', true)]);
    const ins: PhaseSpec = {
      op: 'insert',
      rows: { kind: 'count', n: 3 },
      values: { doc: { null: 0, length: { kind: 'const', value: 1024 * 1024 } } },
    };
    const read = (store: 'table' | 'derby', reposition: 'restart' | 'keep'): PhaseSpec => ({
      op: 'read_lob',
      rows: { kind: 'all' },
      order: { kind: 'sequential' },
      column: 'doc',
      chunk: 32_000,
      reposition,
      store,
    });
    const r = runStorage(storage(tl, engine({ format: 'postgres-heap' }), [ins, read('derby', 'restart'), read('table', 'keep')]));
    const derby = r.phases[1]!.reads!.lob!;
    expect(derby.values_read).toBe(3);
    expect(derby.value_bytes).toBe(3 * 1024 * 1024);
    expect(derby.bytes_processed).toBe(3 * (1024 * 1024 + (32_000 * 33 * 32) / 2));
    expect(r.phases[2]!.reads!.lob!.bytes_processed).toBe(3 * 1024 * 1024);
    expect(r.phases[2]!.reads!.lob!.store).toMatch(/TOAST/);
  });
});

describe('reads in the reports', () => {
  it('summary.md: each read phase with its plan, reads a statement and its ratio to the first read phase; the terminal a line each', async () => {
    const { readsMarkdown, readsTerminal } = await import('../src/report/reads.js');
    const tt = table(
      [col('id', 'int'), col('code', 'varchar(36)')],
      [{ name: 'by_code', columns: ['code'], unique: false, clustered: false }],
    );
    const base: PhaseSpec = {
      op: 'insert',
      rows: { kind: 'count', n: 20000 },
      values: { code: { null: 0, length: { kind: 'const', value: 36 } } },
    };
    const q = (parameter: string): PhaseSpec => ({
      op: 'select',
      rows: { kind: 'count', n: 1 },
      order: { kind: 'random' },
      via: 'index',
      index: 'by_code',
      predicate: { column: 'code', parameterText: parameter, parameter: parseType(parameter) },
      repeat: 10,
    });
    const spec = {
      ...storage(tt, engine({ format: 'sqlserver-heap' }), [base, q('varchar(36)'), q('nvarchar(36)')]),
      costs: { logical_read_ns: 2000, physical_read_ns: 2000 },
    };
    const r = runStorage(spec);
    const entries = [{ label: 'base', phases: r.phases }];
    const md = readsMarkdown(entries);
    const pages = r.phases[0]!.metrics.pages;
    const seek = r.phases[1]!.reads!.logical_reads / 10;
    expect(md).toContain('## Reads');
    expect(md).toContain(`| ${pages.toLocaleString('en-US')} |`);
    const ratio = pages / seek;
    expect(md).toContain(
      ratio >= 100 ? `${Math.round(ratio).toLocaleString('en-US')}×` : ratio >= 10 ? `${ratio.toFixed(1)}×` : `${ratio.toFixed(2)}×`,
    );
    expect(md).toMatch(
      /- a table scan instead of a seek on by_code: .*CONVERT_IMPLICIT\(nvarchar\(36\), code, 0\).* \[SS-PREC\]\[SS-COLL\]/,
    );
    expect(md).toContain('estimated ms a statement');
    const lines = readsTerminal(entries);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      new RegExp(`${pages.toLocaleString('en-US')} page reads a statement .*the first read phase\\), est\\. [\\d.]+ ms a statement`),
    );
    expect(readsMarkdown([{ label: 'x', phases: [r.phases[0]!] }])).toBe('');
  });
});
