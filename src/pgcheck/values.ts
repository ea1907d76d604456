/**
 * Actual values for the rows the workload runner generates: a stored length per varying column becomes
 * a value of exactly that many bytes (strings of random characters, so pglz finds nothing to compress;
 * the multi-byte share as 2-byte characters under utf8); constant-size columns get a value of their
 * type. Indexed columns get distinct values (the row id is encoded first), so a row can be found by its
 * key. Pure and deterministic from (seed, row, column, version).
 */
import type { EngineSpec, TableDef } from '../config/spec.js';
import type { PgTableLayout, PgType } from '../formats/postgres.js';
import { NULL_LEN } from '../layout/table-layout.js';
import { Prng } from '../util/prng.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const MULTIBYTE = 'éèàçüößñ'; // 2 bytes each in UTF-8
const HEX = '0123456789abcdef';

export type SqlValue = string | number | boolean | Buffer | null;

export interface ColumnSql {
  name: string;
  /** Quoted identifier. */
  ident: string;
  type: PgType;
  nullable: boolean;
  indexed: boolean;
  varIndex: number;
  character: boolean;
  /** Bytes per character under the engine encoding (character columns). */
  bytesPerChar: number;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function columnsSql(table: TableDef, layout: PgTableLayout): ColumnSql[] {
  return table.columns.map((c, i) => {
    const cl = layout.columns[i]!;
    return {
      name: c.name,
      ident: quoteIdent(c.name),
      type: layout.pg.types[i]!,
      nullable: c.nullable,
      indexed: cl.indexed,
      varIndex: cl.varIndex,
      character: cl.character,
      bytesPerChar: cl.bytesPerChar,
    };
  });
}

function base62(n: number): string {
  let s = '';
  do {
    s = ALNUM[n % 62] + s;
    n = Math.floor(n / 62);
  } while (n > 0);
  return s;
}

/** The characters whose UTF-8 bytes equal `bytes` with the engine's multi-byte share (inverse of the runner's sizing). */
function charsFor(bytes: number, col: ColumnSql): { chars: number; multi: number } {
  if (!col.character || col.bytesPerChar <= 1) return { chars: bytes, multi: 0 };
  const share = col.bytesPerChar - 1;
  let chars = Math.max(0, Math.round(bytes / col.bytesPerChar));
  for (let step = 0; step < 4 && chars + Math.round(chars * share) !== bytes; step++) {
    chars += chars + Math.round(chars * share) < bytes ? 1 : -1;
  }
  const multi = bytes - chars;
  return { chars, multi: Math.max(0, Math.min(chars, multi)) };
}

/** The value of column `ci` of `row` at `version`, with the stored length the simulator gave it. */
export function valueFor(seed: number, col: ColumnSql, ci: number, row: number, version: number, lens: Uint16Array, base: number, engine: EngineSpec): SqlValue {
  const len = col.varIndex >= 0 ? lens[base + col.varIndex]! : -1;
  if (len === NULL_LEN) return null;
  const sql = col.type.sql;
  const unique = row + 1 + version * 4_000_000;
  if (sql === 'integer' || sql === 'bigint') return unique;
  if (sql === 'smallint') return unique % 32_000;
  if (sql === 'real' || sql === 'double precision') return unique + 0.5;
  if (sql === 'boolean') return (row + version) % 2 === 0;
  if (sql === 'money') return '1234.56';
  if (sql === 'date') return '2024-01-02';
  if (sql === 'time') return '12:34:56.789';
  if (sql === 'timestamp' || sql === 'timestamptz') return `2024-01-02 03:04:05.${String(row % 1_000_000).padStart(6, '0')}`;
  if (sql.startsWith('numeric(')) {
    const m = /numeric\((\d+),(\d+)\)/.exec(sql)!;
    const p = Number(m[1]);
    const s = Number(m[2]);
    const intPart = p - s > 0 ? '7'.repeat(p - s) : '0';
    return s > 0 ? `${intPart}.${'7'.repeat(s)}` : intPart;
  }
  const rng = Prng.derive(seed, 'value', row, ci, version);
  if (sql === 'uuid') {
    let h = '';
    const id = (unique >>> 0).toString(16).padStart(8, '0');
    for (let i = 0; i < 24; i++) h += HEX[rng.int(16)];
    h = id + h;
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
  }
  const bytes = len >= 0 ? len : col.type.bytes;
  if (sql === 'bytea') {
    const b = Buffer.alloc(bytes);
    for (let i = 0; i < bytes; i++) b[i] = rng.int(256);
    if (col.indexed) b.write(String(unique).padStart(10, '0').slice(0, bytes), 0, 'latin1');
    return b;
  }
  // char(n), varchar(n), text
  const { chars, multi } = charsFor(bytes, col);
  const out: string[] = [];
  // Keys sort in the order of (version, row) when the column is wide enough: new keys go to the right edge.
  const prefix = col.indexed ? (chars >= 11 ? `${String(unique).padStart(10, '0')}.` : `${base62(unique)}.`) : '';
  for (let i = 0; i < chars; i++) out.push(i < prefix.length ? prefix[i]! : ALNUM[rng.int(62)]!);
  // Multi-byte characters replace random positions after the key prefix.
  let placed = 0;
  for (let i = chars - 1; i >= prefix.length && placed < multi; i--) {
    if (rng.float() < multi / Math.max(1, chars - prefix.length) || chars - i <= multi - placed) {
      out[i] = MULTIBYTE[rng.int(MULTIBYTE.length)]!;
      placed++;
    }
  }
  void engine;
  return out.join('');
}
