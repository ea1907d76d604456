/**
 * PostgreSQL's value sizes as rowsim models them, without a server: numeric by the digits of its values
 * (figures measured on PostgreSQL 15.20 with pg_column_size; the same values on a live server:
 * test/pgcheck.test.ts), and utf8 characters of 2, 3 and 4 bytes.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/loader/config.js';
import { pgNumericBytes } from '../src/formats/postgres.js';
import { runStorage } from '../src/workload/runner.js';
import { getFormat } from '../src/formats/registry.js';
import { utf8BytesPerChar, utf8WidthShares } from '../src/layout/table-layout.js';
import type { StorageSpec } from '../src/config/spec.js';
import { col, engine, table } from './helpers/spec.js';

const spec = (yaml: string): StorageSpec => loadConfig('inline.yaml', yaml).storage[0]!.spec;

describe('numeric sized by its digits [PG-NUMERIC]', () => {
  it('the data bytes pg_column_size measured on PostgreSQL 15.20 (less its 4-byte header): 1234.56 6, 0 2, 0.05 4, 100000001 8, 12345.6 8', () => {
    // pg_column_size(1234.56::numeric(12,2)) = 10, (0) = 6, (0.05) = 8, (100000001::numeric(10,0)) = 12, (12345.6::numeric(12,1)) = 12.
    expect(pgNumericBytes(6, 2)).toBe(6);
    expect(pgNumericBytes(0, 2)).toBe(2);
    expect(pgNumericBytes(1, 2)).toBe(4);
    expect(pgNumericBytes(9, 0)).toBe(8);
    expect(pgNumericBytes(6, 1)).toBe(8);
  });
  it('with all p digits it is the old full-precision size 2 + 2 × (⌈(p − s)/4⌉ + ⌈s/4⌉)', () => {
    for (const [p, s] of [[12, 2], [38, 10], [4, 4], [1, 0], [18, 0], [10, 6]] as const) {
      expect(pgNumericBytes(p, s)).toBe(2 + 2 * (Math.ceil((p - s) / 4) + Math.ceil(s / 4)));
    }
  });
  it('a workload length sizes a numeric column on postgres-heap: 20,000 amounts of 3–8 digits take fewer pages than at full precision', () => {
    const yaml = (length: string) => `name: n
table:
  name: p
  columns: [{ name: id, type: int }, { name: amount, type: "numeric(12,2)" }, { name: fee, type: "numeric(12,2)" }, { name: tax, type: "numeric(12,2)" }]
  indexes: [{ name: p_amount, columns: [amount] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 20000${length} }
`;
    const full = runStorage(spec(yaml('')));
    const digits = '{ length: { uniform: [3, 8] } }';
    const real = runStorage(spec(yaml(`, values: { amount: ${digits}, fee: ${digits}, tax: ${digits} }`)));
    expect(real.final.pages).toBeLessThan(full.final.pages);
    expect(real.index_pages.by_index.p_amount!).toBeLessThan(full.index_pages.by_index.p_amount!);
  });
});

describe('utf8 characters of 2, 3 and 4 bytes [UTF-8]', () => {
  const e = (widths: string) => spec(`name: u
table: { name: t, columns: [{ name: id, type: int }, { name: v, type: varchar(200) }] }
engine: { format: postgres-heap, encoding: utf8, ${widths} }
workload: [{ insert: { rows: 1000, values: { v: { length: 100 } } } }]
`);
  it('a character takes 1 + s2 + 2 s3 + 3 s4 bytes on average; multibyte_share is the share of 2-byte characters', () => {
    const w = e('multibyte_widths: { 2: 0.1, 3: 0.2, 4: 0.05 }').engine;
    expect(utf8WidthShares(w)).toEqual([0.1, 0.2, 0.05]);
    expect(utf8BytesPerChar(w)).toBeCloseTo(1.65, 12);
    const share = e('multibyte_share: 0.3').engine;
    expect(utf8WidthShares(share)).toEqual([0.3, 0, 0]);
    expect(utf8BytesPerChar(share)).toBeCloseTo(1.3, 12);
    expect(utf8BytesPerChar(e('multibyte_widths: { 4: 1 }').engine)).toBe(4);
  });
  it('100 characters of varchar(200) take 165 bytes on postgres-heap (a 200-byte tuple), 160 with 20% 4-byte characters; the note says which', () => {
    const run = (widths: string) => runStorage(e(widths));
    const mixed = run('multibyte_widths: { 2: 0.1, 3: 0.2, 4: 0.05 }');
    // 24 (header) + 4 (int) + 4 + 165 (a 4-byte varlena header, aligned to 4) = 197, MAXALIGNed: 200.
    expect(mixed.row_bytes.avg).toBe(200);
    expect(mixed.notes).toContain('utf8: of the characters 10% 2, 20% 3, 5% 4 bytes');
    const emoji = run('multibyte_widths: { 4: 0.2 }');
    expect(emoji.row_bytes.avg).toBe(192);
    expect(emoji.notes).toContain('utf8: of the characters 20% 4 bytes');
    expect(run('multibyte_share: 0.3').notes).toContain('utf8: 30% of characters take 2 bytes');
  });
  it('every format that stores utf8 char/varchar in characters sizes them so (oracle-heap); SQL Server and ASE declare varchar(n) in bytes', () => {
    const t = table([col('id', 'int'), col('v', 'varchar(100)')]);
    const widths = { encoding: 'utf8' as const, multibyte_widths: { 2: 0.1, 3: 0.2, 4: 0.05 } };
    const maxBytes = (format: 'postgres-heap' | 'oracle-heap' | 'sqlserver-heap' | 'ase-dol') => getFormat(format)!.layout(t, engine({ format, ...widths })).columns[1]!.maxBytes;
    expect([maxBytes('postgres-heap'), maxBytes('oracle-heap'), maxBytes('sqlserver-heap'), maxBytes('ase-dol')]).toEqual([165, 165, 100, 100]);
  });
});
