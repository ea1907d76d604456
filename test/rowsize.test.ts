import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, rowsim } from './helpers/cli.js';

describe('rowsim rowsize', () => {
  it('one row per engine format for a CREATE TABLE .sql file; --json; --rows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-rowsize-'));
    writeFileSync(
      join(dir, 't.sql'),
      'CREATE TABLE t (id int NOT NULL, code char(12) NOT NULL, note varchar(100) NULL, PRIMARY KEY (id));',
    );
    const text = rowsim(['rowsize', join(dir, 't.sql'), '--rows', '10000']);
    expect(text.code).toBe(0);
    for (const f of ['ase-dol', 'ase-apl', 'sqlserver-heap', 'postgres-heap', 'oracle-heap', 'innodb']) expect(text.stdout).toContain(f);
    const json = JSON.parse(rowsim(['rowsize', join(dir, 't.sql'), '--rows', '10000', '--json']).stdout);
    expect(json.rows).toHaveLength(6);
    const pg = json.rows.find((r: { format: string }) => r.format === 'postgres-heap');
    // 24-byte header + int4 + char(12) (1-byte header + 12) + varchar(100) at its maximum (101 ≤ 127: 1-byte header): 24 + 4 + 13 + 101 = 142 → 144
    expect(pg.row_bytes).toMatchObject({ min: 144, max: 144 });
    expect(pg.index_entry_bytes).toEqual({ t_pk: 20 });
    expect(pg.rows).toBe(10000);
    expect(pg.pages).toBe(Math.ceil(10000 / Math.floor(8168 / (144 + 4))));
    expect(pg.total_bytes).toBe(pg.bytes + pg.index_bytes);
    // InnoDB clusters on the primary key: 5-byte header + NULL bitmap 1 + a length byte + 4 + DB_TRX_ID 6 + DB_ROLL_PTR 7 + 12 + 100.
    const innodb = json.rows.find((r: { format: string }) => r.format === 'innodb');
    expect(innodb.row_bytes).toMatchObject({ min: 136, max: 136 });
  });

  it('uuid vs char(35) (the schema of [S-BUNNIES]): char(35) takes about twice the bytes in PostgreSQL', () => {
    const out = JSON.parse(
      rowsim(['rowsize', join(ROOT, 'sim-configs', 'uuid-vs-char35.yaml'), '--formats', 'postgres-heap', '--json']).stdout,
    );
    const total = (g: string) => out.totals.find((t: { group: string }) => t.group === g).total_bytes;
    expect(out.tables).toHaveLength(6);
    const answer = out.tables.find((t: { name: string }) => t.name === 'uuid.answer').rows[0];
    expect(answer.index_entry_bytes).toEqual({ answer_idx: 28 }); // 8 + 16, MAXALIGNed, + 4
    expect(total('char35') / total('uuid')).toBeGreaterThan(1.7);
    expect(total('char35') / total('uuid')).toBeLessThan(2.1); // the seed measured 311 / 164 = 1.9
  });

  it('bad arguments are input errors (exit 2)', () => {
    expect(rowsim(['rowsize', join(ROOT, 'sim-configs', 'quickstart.yaml'), '--rows', 'lots']).code).toBe(2);
    expect(rowsim(['rowsize', join(ROOT, 'sim-configs', 'quickstart.yaml'), '--formats', 'mysql']).code).toBe(2);
    expect(rowsim(['rowsize', '/nonexistent.sql']).code).toBe(2);
  });
});

describe('rowsim rowsize on a sample (wide tables, many rows)', () => {
  const sql = (name: string, columns: string[], extra = '') =>
    `CREATE TABLE ${name} (\n${columns.map((c) => `  ${c}`).join(',\n')}${extra}\n);\n`;
  const size = (file: string, args: string[]) => {
    const r = rowsim(['rowsize', file, '--formats', 'postgres-heap', '--json', ...args]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout).rows[0];
  };

  it('1,000 int columns at the default million rows: a sample, and the closed form (24 + 4,000 bytes: 2 rows a page)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-rowsize-'));
    writeFileSync(
      join(dir, 'wide.sql'),
      sql(
        'wide',
        Array.from({ length: 1000 }, (_, i) => `c${i} int NOT NULL`),
      ),
    );
    const pg = size(join(dir, 'wide.sql'), []);
    expect(pg.notes.some((n: string) => /^sized from [\d,]+ rows simulated, scaled to 1,000,000/.test(n))).toBe(true);
    expect(pg.rows).toBe(1_000_000);
    expect(pg.row_bytes).toMatchObject({ min: 4024, max: 4024 });
    expect(pg.pages).toBe(500_000);
  });

  it('a narrow table past the budget: the scaled heap within 0.01% of the closed form, its index as twice the half', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-rowsize-'));
    writeFileSync(join(dir, 'n.sql'), sql('n', ['a int NOT NULL', 'b int NOT NULL', 'c int NOT NULL'], ', PRIMARY KEY (a)'));
    // 24 + 12 = 36 → MAXALIGN 40, + a 4-byte line pointer: floor(8,168 / 44) = 185 rows a page.
    const n = 2_666_666;
    const sampled = size(join(dir, 'n.sql'), ['--rows', String(n)]);
    expect(sampled.notes.some((x: string) => /^sized from/.test(x))).toBe(true);
    expect(sampled.rows).toBe(n);
    expect(Math.abs(sampled.pages - Math.ceil(n / 185)) / Math.ceil(n / 185)).toBeLessThan(1e-4);
    const half = size(join(dir, 'n.sql'), ['--rows', String(n / 2)]);
    expect(half.notes.some((x: string) => /^sized from/.test(x))).toBe(false);
    expect(Math.abs(sampled.index_pages.total - 2 * half.index_pages.total) / sampled.index_pages.total).toBeLessThan(0.01);
    expect(sampled.index_pages.levels.n_pkey).toBe(half.index_pages.levels.n_pkey);
  });
});

describe('one run, many engines', () => {
  it('a sweep over engine.format runs the same workload on each; inapplicable knobs are notes; engines.png', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-engines-'));
    writeFileSync(
      join(dir, 'm.yaml'),
      `name: m
table:
  name: t
  columns: [{ name: id, type: int }, { name: body, type: varchar(300), null: true }]
  indexes: [{ name: t_pk, columns: [id], unique: true }]
engine: { format: ase-dol, fillfactor: 90, pctfree: 20, exp_row_size: 100 }
workload:
  - insert: { rows: 3000, values: { body: { length: 20 } } }
  - update: { rows: all, set: { body: { length: 150 } } }
  - vacuum:
sweep:
  engine.format: [ase-dol, sqlserver-heap, postgres-heap, oracle-heap]
`,
    );
    const r = rowsim(['run', join(dir, 'm.yaml'), '--out', join(dir, 'out'), '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const res = JSON.parse(readFileSync(join(dir, 'out', 'results.json'), 'utf8'));
    expect(res.storage.map((s: { engine: { format: string } }) => s.engine.format)).toEqual([
      'ase-dol',
      'sqlserver-heap',
      'postgres-heap',
      'oracle-heap',
    ]);
    for (const s of res.storage) {
      expect(s.final.index_pages.total).toBeGreaterThan(0);
      expect(s.final.index_pages.by_index.t_pk).toBe(s.final.index_pages.total);
    }
    const pg = res.storage[2];
    expect(pg.notes).toContain('pctfree does not apply to postgres-heap and is ignored');
    expect(pg.notes).toContain('exp_row_size does not apply to postgres-heap and is ignored');
    expect(res.storage[0].notes.some((n: string) => /vacuum applies to postgres-heap only/.test(n))).toBe(true);
    expect(pg.final.hot_updates + pg.final.newpage_updates + pg.final.samepage_nonhot_updates).toBe(3000);
    expect(res.charts).toContain('charts/engines.png');
  });
});
