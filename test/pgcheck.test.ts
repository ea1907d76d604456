/**
 * rowsim pg-check against a live PostgreSQL. `.ci/run` starts a throw-away cluster and exports
 * ROWSIM_PG_URL; locally: eval "$(.ci/pg-cluster.sh start)" before npm test, .ci/pg-cluster.sh stop after.
 * Without ROWSIM_PG_URL these tests fail (they do not pass silently) unless ROWSIM_SKIP_PG=1.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/loader/config.js';
import type { StorageSpec } from '../src/config/spec.js';
import { pgCheck, type Comparison } from '../src/pgcheck/check.js';
import { pgLayout } from '../src/formats/postgres.js';
import { NULL_LEN } from '../src/layout/table-layout.js';
import { numberValues, recordRun, ValueStream } from '../src/pgcheck/plan.js';
import { ScratchSchema } from '../src/pgcheck/scratch.js';
import {
  ColumnValues,
  columnDdlType,
  columnKeyWidth,
  columnsSql,
  compressibleKeyWidth,
  storedLength,
  type SqlValue,
} from '../src/pgcheck/values.js';
import { compressedDatumBytes, repeatBytes } from '../src/formats/pg-compression.js';
import { pglzCompressedSize } from '../src/pgcheck/pglz.js';
import { lz4CompressedSize } from '../src/pgcheck/lz4.js';
import { KNOWN_INPUTS } from './helpers/compression-inputs.js';
import { ROOT, rowsim } from './helpers/cli.js';
import { runStorage } from '../src/workload/runner.js';
import { join } from 'node:path';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

const URL = process.env.ROWSIM_PG_URL;
const SKIP = process.env.ROWSIM_SKIP_PG === '1';
const HOWTO =
  'ROWSIM_PG_URL is not set: start a throw-away cluster with eval "$(.ci/pg-cluster.sh start)" (stop it with .ci/pg-cluster.sh stop), or run .ci/run; set ROWSIM_SKIP_PG=1 to skip the live PostgreSQL tests on purpose';

if (!URL && !SKIP) {
  describe('pg-check against a live PostgreSQL', () => {
    it('needs a server', () => {
      throw new Error(HOWTO);
    });
  });
}

function spec(yaml: string): StorageSpec {
  return loadConfig('inline.yaml', yaml).storage[0]!.spec;
}

const at = (cs: Comparison[], metric: string, phase?: number) =>
  cs.filter((c) => c.metric === metric && (phase === undefined || c.phase === phase));

describe.skipIf(!URL)('pg-check against a live PostgreSQL', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: URL });
    // pg emits 'error' when the server ends the connection; unheard, it would end the test process.
    client.on('error', () => undefined);
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });

  const widths = [0, 20, 100, 122, 123, 126, 127, 128, 250, 1000, 2100];
  it(`heap pages match exactly for row widths ${widths.join(', ')} (around the 127-byte varlena boundary and TOAST)`, async () => {
    for (const w of widths) {
      const s = spec(`name: w
table:
  name: w${w}
  columns: [{ name: id, type: int }, { name: flag, type: boolean }, { name: body, type: varchar(3000) }]
  indexes: [{ name: w${w}_pk, columns: [id], unique: true }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 3000, values: { body: { length: ${w} } } }
`);
      const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_widths' });
      const [heap] = at(r.comparisons, 'heap_pages');
      expect({ w, predicted: heap!.predicted, observed: heap!.observed }).toEqual({
        w,
        predicted: heap!.observed,
        observed: heap!.observed,
      });
      const [idx] = at(r.comparisons, `index_pages.w${w}_pk`);
      expect(idx!.predicted).toBe(idx!.observed);
    }
  });

  it('the free space map and visibility map forks match: 4 FSM pages past 4,069 heap pages, a VM page after VACUUM, neither after VACUUM FULL', async () => {
    const s = spec(`name: f
table:
  name: forks
  columns: [{ name: id, type: int }, { name: body, type: varchar(400) }]
  indexes: [{ name: forks_pk, columns: [id], unique: true }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 190000, values: { body: { length: 150 } } }
  - vacuum:
  - insert: { rows: 1000, values: { body: { length: 150 } } }
  - vacuum: { full: true }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_forks' });
    const forks = [...at(r.comparisons, 'fsm_pages'), ...at(r.comparisons, 'vm_pages')];
    for (const c of forks)
      expect({ phase: c.phase, metric: c.metric, value: c.predicted }).toEqual({ phase: c.phase, metric: c.metric, value: c.observed });
    expect(forks.map((c) => `${c.metric}@${c.phase}=${c.predicted}`).sort()).toEqual([
      'fsm_pages@0=4',
      'fsm_pages@1=4',
      'fsm_pages@2=4',
      'fsm_pages@3=0',
      'vm_pages@0=0',
      'vm_pages@1=1',
      'vm_pages@2=1',
      'vm_pages@3=0',
    ]);
  });

  it('an index fillfactor (CREATE INDEX … WITH (fillfactor = N)): index pages match for 100, 70 and 10', async () => {
    for (const ff of [100, 70, 10]) {
      const s = spec(`name: i
table:
  name: ixff${ff}
  columns: [{ name: id, type: int }, { name: code, type: char(20) }]
  indexes: [{ name: ixff${ff}_pk, columns: [id], unique: true, fillfactor: ${ff} }, { name: ixff${ff}_code, columns: [code] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 20000 }
`);
      const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_ixff' });
      for (const c of at(r.comparisons, `index_pages.ixff${ff}_pk`)) expect({ ff, value: c.predicted }).toEqual({ ff, value: c.observed });
    }
  });

  it('rows with NULLs (a null bitmap on some rows, not others): heap pages match', async () => {
    const s = spec(`name: n
table:
  name: nulls
  columns:
    - { name: id, type: bigint }
    - { name: a, type: int, null: true }
    - { name: b, type: varchar(200), null: true }
    - { name: c, type: timestamp, null: true }
    - { name: d, type: char(12), null: true }
    - { name: e, type: "numeric(12,2)", null: true }
  indexes: [{ name: nulls_pk, columns: [id], unique: true }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 4000, values: { a: { null: 0.5 }, b: { length: 40, null: 0.3 }, c: { null: 0.2 }, d: { null: 0.5 }, e: { null: 0.4 } } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_nulls' });
    const [heap] = at(r.comparisons, 'heap_pages');
    expect(heap!.predicted).toBe(heap!.observed);
  });

  it('fillfactor sweep with growing updates: heap pages and HOT counts match exactly, statement and per-row transactions', async () => {
    for (const ff of [100, 90, 80, 60]) {
      const s = spec(`name: ff
table:
  name: ff${ff}
  columns: [{ name: id, type: int }, { name: status, type: char(8) }, { name: body, type: varchar(400) }]
  indexes: [{ name: ff${ff}_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, fillfactor: ${ff} }
workload:
  - insert: { rows: 6000, values: { body: { length: 60 } } }
  - update: { rows: 60%, order: random, set: { body: { length: 90 } } }
  - update: { rows: 40%, order: random, transaction: row, set: { body: { length: 110 } } }
`);
      const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_ff' });
      for (const c of [...at(r.comparisons, 'heap_pages'), ...at(r.comparisons, 'hot_updates'), ...at(r.comparisons, 'updates')]) {
        expect({ ff, phase: c.phase, metric: c.metric, value: c.predicted }).toEqual({
          ff,
          phase: c.phase,
          metric: c.metric,
          value: c.observed,
        });
      }
      const hot = at(r.comparisons, 'hot_updates', 1)[0]!;
      if (ff <= 80) expect(hot.predicted).toBeGreaterThan(0);
    }
  });

  it('an update of an indexed column is never HOT; index pages grow with it, as predicted', async () => {
    const s = spec(`name: ix
table:
  name: ix
  columns: [{ name: id, type: int }, { name: code, type: char(12) }, { name: body, type: varchar(100) }]
  indexes: [{ name: ix_pk, columns: [id], unique: true }, { name: ix_code, columns: [code] }]
engine: { format: postgres-heap, fillfactor: 70 }
workload:
  - insert: { rows: 5000, values: { body: { length: 50 } } }
  - update: { rows: 50%, order: random, set: { code: changed } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_ix' });
    const hot = at(r.comparisons, 'hot_updates', 1)[0]!;
    expect(hot.predicted).toBe(0);
    expect(hot.observed).toBe(0);
    for (const c of at(r.comparisons, 'heap_pages')) expect(c.predicted).toBe(c.observed);
    for (const name of ['ix_pk', 'ix_code']) {
      const [built, grown] = at(r.comparisons, `index_pages.${name}`);
      expect(built!.predicted).toBe(built!.observed);
      expect(grown!.observed).toBeGreaterThan(built!.observed!);
      expect(grown!.predicted).toBe(grown!.observed);
    }
  });

  it('the generator on the server: every value stores exactly its simulated bytes (octet_length, pg_column_size), uncompressed, and reads back as sent', async () => {
    const s = spec(`name: v
seed: 11
table:
  name: vals
  columns:
    - { name: id, type: int }
    - { name: s2, type: smallint, null: true }
    - { name: i8, type: bigint }
    - { name: f4, type: real }
    - { name: f8, type: double precision }
    - { name: n1, type: "numeric(1,0)" }
    - { name: n12, type: "numeric(12,2)", null: true }
    - { name: n38, type: "numeric(38,10)" }
    - { name: n44, type: "numeric(4,4)" }
    - { name: m, type: money }
    - { name: d, type: date }
    - { name: t, type: time }
    - { name: ts, type: timestamp }
    - { name: tz, type: timestamptz }
    - { name: b, type: boolean }
    - { name: u, type: uuid }
    - { name: c1, type: char(1) }
    - { name: c35, type: char(35) }
    - { name: v, type: varchar(3000), null: true }
    - { name: tx, type: text }
    - { name: by, type: bytea }
  indexes: [{ name: vals_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, encoding: utf8, multibyte_share: 0.3 }
workload:
  - insert: { rows: 400, values: { s2: { null: 0.2 }, n12: { null: 0.2 }, v: { length: { uniform: [0, 2500] }, null: 0.1 }, tx: { length: { uniform: [0, 200] } }, by: { length: { uniform: [0, 3000] } } } }
  - update: { rows: all, order: random, set: { d: changed, ts: changed, n12: changed, v: { length: { uniform: [100, 130] } } } }
`);
    const layout = pgLayout(s.table, s.engine);
    const cols = columnsSql(s.table, layout, s.engine);
    const ops = recordRun(s, layout.varying.length);
    const totals = numberValues(ops, cols.length);
    const rows = 1 + ops.reduce((m, o) => (o.k === 'insert' && o.row > m ? o.row : m), -1);
    const stream = new ValueStream(cols, s.seed, totals, rows, ValueStream.minCapacities(cols, s.seed, totals, ops));
    const scratch = await ScratchSchema.create(client, 'rowsim_t_values', 0);
    const t = `"${scratch.name}".vals`;
    try {
      await client.query(`CREATE TABLE ${t} (${cols.map((c) => `${c.ident} ${columnDdlType(c)}`).join(', ')})`);
      await client.query(`SET lc_monetary = 'C'`);
      const expected = new Map<number, { lens: Uint16Array; values: SqlValue[] }>();
      for (const op of ops) {
        if (op.k === 'insert') {
          const values = stream.insert(op);
          await client.query(`INSERT INTO ${t} VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`, values);
          expected.set(op.row, { lens: op.lens, values });
        } else if (op.k === 'update') {
          const { values } = stream.update(op);
          const e = expected.get(op.row)!;
          await client.query(`UPDATE ${t} SET ${op.cols.map((c, j) => `${cols[c.index]!.ident} = $${j + 2}`).join(', ')} WHERE id = $1`, [
            e.values[0],
            ...values,
          ]);
          op.cols.forEach((c, j) => (e.values[c.index] = values[j]!));
          e.lens = op.lens;
        }
      }
      const text = (c: { kind: string; ident: string }) =>
        c.kind === 'bytea'
          ? `encode(${c.ident}, 'hex')`
          : c.kind === 'float4' || c.kind === 'float8'
            ? `${c.ident}::float8::text`
            : `${c.ident}::text`;
      const sel = cols.map(
        (c, i) =>
          `pg_column_size(${c.ident}) AS s${i}, ${['bpchar', 'varchar', 'text', 'bytea'].includes(c.kind) ? `octet_length(${c.ident})` : 'NULL'} AS o${i}, pg_column_compression(${c.ident}) AS z${i}, ${text(c)} AS t${i}`,
      );
      const got = await client.query(`SELECT id, ${sel.join(', ')} FROM ${t}`);
      expect(got.rows.length).toBe(expected.size);
      const problems: string[] = [];
      let checked = 0;
      for (const r of got.rows) {
        const e = [...expected.values()].find((x) => x.values[0] === r.id)!;
        cols.forEach((c, i) => {
          const len = storedLength(c, e.lens, 0);
          const v = e.values[i]!;
          if (len === NULL_LEN) {
            if (r[`s${i}`] !== null) problems.push(`${c.name} of row ${r.id}: not NULL`);
            return;
          }
          checked++;
          // pg_column_size: the datum as stored: a 1-byte header up to 126 bytes of data, 4 above (inline);
          // out of line (TOAST, uncompressed) the data alone; fixed-size types their size.
          // (A row above the TOAST threshold moves its biggest values out of line, so a long value may be either.)
          const varlena = c.type.kind !== 0;
          const inline = !varlena ? len : len + 1 <= 127 ? len + 1 : len + 4;
          const outOfLine = varlena && len > 24 ? len : inline;
          if (r[`s${i}`] !== inline && r[`s${i}`] !== outOfLine)
            problems.push(
              `${c.name} of row ${r.id}: pg_column_size ${r[`s${i}`]}, expected ${inline}${outOfLine !== inline ? ` or ${outOfLine} out of line` : ''} (${len} bytes)`,
            );
          if (r[`o${i}`] !== null && r[`o${i}`] !== len)
            problems.push(`${c.name} of row ${r.id}: octet_length ${r[`o${i}`]}, simulated ${len}`);
          if (r[`z${i}`] !== null) problems.push(`${c.name} of row ${r.id}: compressed (${r[`z${i}`]})`);
          const sent = Buffer.isBuffer(v) ? v.toString('hex') : c.kind === 'bool' ? String(v) : String(v);
          const back = r[`t${i}`] as string;
          const same =
            c.kind === 'bool'
              ? back === (v ? 'true' : 'false')
              : c.kind === 'time'
                ? back === sent.replace(/\.?0+$/, '')
                : c.kind === 'money'
                  ? back === `$${Number(v).toFixed(2)}` || back === `${v}`
                  : c.kind === 'timestamptz'
                    ? back.startsWith(String(v).slice(0, -3))
                    : c.kind === 'float4' || c.kind === 'float8'
                      ? Number(back) === v
                      : back === sent;
          if (!same) problems.push(`${c.name} of row ${r.id}: sent ${sent}, read back ${back}`);
        });
      }
      expect(problems.slice(0, 10)).toEqual([]);
      expect(checked).toBeGreaterThan(7000);
    } finally {
      await client.query('RESET lc_monetary');
      await scratch.drop(client);
    }
  });

  it('compression on the server: pglz and LZ4 sizes of known inputs and of every construction pg-check sends (text, utf8 text of 2-, 3- and 4-byte characters, bytea) are pg_column_size, compressed or not as pg_column_compression says', async () => {
    const scratch = await ScratchSchema.create(client, 'rowsim_t_compress', 0);
    const problems: string[] = [];
    let compared = 0;
    try {
      for (const kind of ['text', 'bytea']) {
        await client.query(`CREATE TABLE "${scratch.name}".c_${kind} (k int, v ${kind})`);
        // MAIN: a compressed value stays in the row, where pg_column_size is its varlena (8-byte header included).
        await client.query(`ALTER TABLE "${scratch.name}".c_${kind} ALTER COLUMN v SET STORAGE MAIN`);
      }
      const measure = async (kind: string, method: string, value: string | Buffer) => {
        const t = `"${scratch.name}".c_${kind}`;
        await client.query(`TRUNCATE ${t}`);
        await client.query(`INSERT INTO ${t} VALUES (1, $1)`, [value]);
        const r = await client.query(`SELECT pg_column_size(v) AS size, pg_column_compression(v) AS method FROM ${t}`);
        compared++;
        return r.rows[0] as { size: number; method: string | null };
      };
      for (const method of ['pglz', 'lz4'] as const) {
        await client.query(`SET default_toast_compression = ${method}`);
        for (const k of KNOWN_INPUTS) {
          const got = await measure('text', method, k.text);
          const len = Buffer.byteLength(k.text);
          const expected = k[method] ?? len + 4;
          const mine = (method === 'pglz' ? pglzCompressedSize : lz4CompressedSize)(Buffer.from(k.text));
          const mineStored = mine < 0 || mine + 8 >= len - 2 ? len + 4 : mine + 8;
          if (got.size !== expected || got.method !== (k[method] === null ? null : method) || mineStored !== expected) {
            problems.push(
              `${method} ${k.name}: server ${got.size} (${got.method}), recorded ${expected}, rowsim's ${method} ${mineStored}`,
            );
          }
        }
        for (const [type, engine] of [
          ['text', ''],
          ['text', ', encoding: utf8, multibyte_widths: { 2: 0.1, 3: 0.2, 4: 0.05 }'],
          ['bytea', ''],
        ] as const) {
          const s = spec(`name: c
table: { name: c, columns: [{ name: id, type: int }, { name: v, type: ${type} }] }
engine: { format: postgres-heap, default_toast_compression: ${method}${engine} }
workload: [{ insert: { rows: 1 } }]
`);
          const col = columnsSql(s.table, pgLayout(s.table, s.engine), s.engine)[1]!;
          const values = new ColumnValues(col, 1, 5, columnKeyWidth(col, 1000), compressibleKeyWidth(col, 1000));
          for (const len of [2100, 4000, 7000]) {
            for (const c of [0, 0.2, 0.3, 0.45, 0.6, 0.9]) {
              const level = Math.round(c * 64);
              const v = values.value(len + level, len, 0, len + level, level) as string | Buffer;
              const m = repeatBytes(level / 64);
              const model = compressedDatumBytes(method, len, m);
              const got = await measure(type, method, v);
              const expected = model > 0 ? { size: model, method } : { size: len + 4, method: null };
              if (got.size !== expected.size || got.method !== expected.method) {
                problems.push(
                  `${method} ${type}${engine ? ' (utf8)' : ''} of ${len} bytes, compressibility ${c}: server ${got.size} (${got.method}), model ${expected.size} (${expected.method})`,
                );
              }
            }
          }
        }
      }
    } finally {
      await client.query('RESET default_toast_compression');
      await scratch.drop(client);
    }
    expect(problems).toEqual([]);
    expect(compared).toBe(2 * (KNOWN_INPUTS.length + 3 * 3 * 6));
  });

  it("the toaster on the server, row by row: t_len (pgstattuple), which values are compressed (pg_column_compression) and the values moved out of line, in order, with their bytes (the TOAST relation's chunks)", async () => {
    // [storage of a, toast_tuple_target, compression, lengths of a, b, c, compressibilities (64ths)]
    const cases: [string, number, 'pglz' | 'lz4', number[], number[]][] = [
      ['extended', 0, 'pglz', [1500, 1800, 1000], [38, 0, 0]], // all compressed first, then the biggest moved
      ['extended', 0, 'pglz', [1500, 1500, 0], [0, 0, 0]], // a tie: the first column moves
      ['extended', 0, 'pglz', [1500, 1500, 1500], [38, 38, 38]],
      ['extended', 0, 'pglz', [3000, 3000, 3000], [38, 38, 38]],
      ['extended', 0, 'pglz', [6000, 1500, 0], [38, 0, 0]], // over the target even compressed: moved at once
      ['extended', 0, 'lz4', [1500, 1800, 600], [19, 0, 0]], // c = 0.3: LZ4 keeps it, pglz would not
      ['extended', 0, 'pglz', [1500, 1800, 600], [19, 0, 0]],
      ['external', 0, 'pglz', [3000, 100, 0], [38, 0, 0]],
      ['main', 0, 'pglz', [3000, 100, 0], [0, 0, 0]],
      ['main', 0, 'pglz', [3000, 100, 0], [38, 0, 0]],
      ['main', 0, 'pglz', [9000, 100, 0], [0, 0, 0]],
      ['plain', 0, 'pglz', [3000, 100, 0], [38, 0, 0]],
      ['extended', 256, 'pglz', [1200, 900, 0], [0, 0, 0]],
      ['extended', 256, 'pglz', [1000, 900, 0], [0, 0, 0]], // under the threshold: not toasted at all
      ['extended', 256, 'pglz', [1200, 900, 300], [38, 0, 38]],
      ['plain', 128, 'pglz', [100, 2000, 23], [0, 0, 0]], // c's 24 bytes stay, the row over the target
      ['plain', 128, 'pglz', [100, 2000, 24], [0, 0, 0]],
    ];
    const scratch = await ScratchSchema.create(client, 'rowsim_t_toaster', 0);
    const problems: string[] = [];
    try {
      for (const [n, [storage, target, method, lens, levels]] of cases.entries()) {
        const s = spec(`name: r
table:
  name: r${n}
  columns: [{ name: id, type: int }, { name: a, type: text, storage: ${storage} }, { name: b, type: text }, { name: c, type: text }]
engine: { format: postgres-heap, toast_tuple_target: ${target}, default_toast_compression: ${method} }
workload: [{ insert: { rows: 1 } }]
`);
        const layout = pgLayout(s.table, s.engine);
        const toaster = layout.pg.toaster;
        toaster.load(Uint16Array.from(lens), 0, Uint8Array.from([0, ...levels]), 0, null);
        const tLen = toaster.run();
        const predicted = {
          t_len: tLen,
          compressed: [1, 2, 3].map((i) => ((toaster.form[i]! & 1) !== 0 ? method : null)),
          chunks: Array.from(toaster.moved.subarray(0, toaster.movedCount), (i) => toaster.outBytes[i]!),
        };
        const cols = columnsSql(s.table, layout, s.engine);
        const values = cols.map((c, i) =>
          i === 0
            ? 1
            : new ColumnValues(c, i, 3, columnKeyWidth(c, 10), compressibleKeyWidth(c, 10)).value(n, lens[i - 1]!, 0, n, levels[i - 1]!),
        );
        const t = `"${scratch.name}".r${n}`;
        await client.query(`CREATE TABLE ${t} (id int, a text, b text, c text)${target ? ` WITH (toast_tuple_target = ${target})` : ''}`);
        await client.query(`ALTER TABLE ${t} ALTER COLUMN a SET STORAGE ${storage.toUpperCase()}`);
        await client.query(`SET default_toast_compression = ${method}`);
        await client.query(`INSERT INTO ${t} VALUES ($1, $2, $3, $4)`, values);
        const row = (
          await client.query(
            `SELECT pg_column_compression(a) AS a, pg_column_compression(b) AS b, pg_column_compression(c) AS c, (SELECT tuple_len FROM pgstattuple('${t}')) AS t_len FROM ${t}`,
          )
        ).rows[0];
        const toast = (await client.query(`SELECT reltoastrelid::regclass::text AS rel FROM pg_class WHERE oid = '${t}'::regclass`)).rows[0]
          .rel as string;
        const chunks = (
          await client.query(
            `SELECT chunk_id, sum(octet_length(chunk_data))::int AS bytes FROM ${toast} GROUP BY chunk_id ORDER BY chunk_id`,
          )
        ).rows.map((r) => r.bytes as number);
        const observed = { t_len: Number(row.t_len), compressed: [row.a, row.b, row.c], chunks };
        if (JSON.stringify(observed) !== JSON.stringify(predicted))
          problems.push(
            `${storage} ${target} ${method} ${lens} ${levels}: predicted ${JSON.stringify(predicted)}, observed ${JSON.stringify(observed)}`,
          );
      }
    } finally {
      await client.query('RESET default_toast_compression');
      await scratch.drop(client);
    }
    expect(problems).toEqual([]);
  });

  it('TOAST pages of values cut into 1,996-byte chunks (TOAST_MAX_CHUNK_SIZE), 4 to a page: 1 or 200 values of 3,992 / 3,993 / 7,984 / 7,985 bytes, and 20,000 of 3,000 (112 TOAST index pages)', async () => {
    const expected: Record<string, [number, number]> = {
      '3992x1': [1, 2],
      '3993x1': [1, 2],
      '7984x1': [1, 2],
      '7985x1': [2, 2],
      '3992x200': [100, 2],
      '3993x200': [134, 4],
      '7984x200': [200, 5],
      '7985x200': [202, 5],
      '3000x20000': [10000, 112],
    };
    for (const [key, [pages, indexPages]] of Object.entries(expected)) {
      const [len, rows] = key.split('x').map(Number);
      const s = spec(`name: ch
table: { name: ch, columns: [{ name: id, type: int }, { name: body, type: text }] }
engine: { format: postgres-heap }
workload: [{ insert: { rows: ${rows}, values: { body: { length: ${len} } } } }]
`);
      const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_chunks' });
      const got = [at(r.comparisons, 'toast_pages')[0]!, at(r.comparisons, 'toast_index_pages')[0]!, at(r.comparisons, 'heap_pages')[0]!];
      expect({ key, predicted: got.map((c) => c.predicted) }).toEqual({ key, predicted: got.map((c) => c.observed) });
      expect({ key, pages: got[0]!.observed, indexPages: got[1]!.observed }).toEqual({ key, pages, indexPages });
    }
  });

  it('a latin1 table of varchar(600) replayed on a UTF8 database: PostgreSQL gives it a TOAST relation (600 × 4 bytes could exceed the threshold), empty; predicted so, and noted', async () => {
    const s = spec(`name: e
table: { name: e600, columns: [{ name: id, type: int }, { name: v, type: varchar(600) }] }
engine: { format: postgres-heap }
workload: [{ insert: { rows: 300, values: { v: { length: 600 } } } }]
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_emptytoast' });
    expect(at(r.comparisons, 'toast_index_pages')[0]).toMatchObject({ predicted: 1, observed: 1 });
    expect(at(r.comparisons, 'toast_pages')[0]).toMatchObject({ predicted: 0, observed: 0 });
    expect(r.notes.join('\n')).toMatch(/gives table e600 a TOAST relation it would not have in a latin1 database/);
  });

  /**
   * The TOAST, numeric and utf8 scenarios of sim-configs/pg-check against the server: heap, TOAST and
   * TOAST index pages exact after every phase, but where docs/engines.md (TOAST, Measured) says they
   * are not; the other figures are printed by rowsim pg-check and quoted there.
   */
  const SCENARIO_MISSES: Record<string, (c: Comparison) => boolean> = {
    // VACUUM FULL re-toasts the values in an order the model approximates: within 1% and 10%.
    'toast-updates.yaml': (c) =>
      c.label === 'reorg rebuild' &&
      ((c.metric === 'toast_pages' && Math.abs(c.diff_pct!) < 1) || (c.metric === 'toast_index_pages' && Math.abs(c.diff_pct!) < 10)),
  };
  const scenarios = readdirSync(join(ROOT, 'sim-configs', 'pg-check')).filter((f) =>
    /^(toast-.*|numeric-amounts|utf8-widths)\.yaml$/.test(f),
  );
  it.each(scenarios)('sim-configs/pg-check/%s: heap, TOAST and TOAST index pages as predicted after every phase', async (file) => {
    const config = loadConfig(join(ROOT, 'sim-configs', 'pg-check', file));
    const misses: string[] = [];
    let compared = 0;
    for (const point of config.storage) {
      const r = await pgCheck(client, point.spec, { label: point.label, schemaPrefix: 'rowsim_t_scenario' });
      for (const c of r.comparisons.filter((x) => ['heap_pages', 'toast_pages', 'toast_index_pages'].includes(x.metric))) {
        compared++;
        if (c.predicted !== c.observed && !SCENARIO_MISSES[file]?.(c))
          misses.push(`${point.label} phase ${c.phase + 1} (${c.label}) ${c.metric}: predicted ${c.predicted}, observed ${c.observed}`);
      }
    }
    expect(misses).toEqual([]);
    expect(compared).toBeGreaterThan(2);
  });

  it('date, timestamp, numeric and money columns under an index, updated with `changed`: never HOT, as predicted (the old replay sent constants: the server did them HOT)', async () => {
    const s = spec(`name: chg
table:
  name: chg
  columns:
    - { name: id, type: int }
    - { name: d, type: date }
    - { name: ts, type: timestamptz }
    - { name: n, type: "numeric(10,2)" }
    - { name: m, type: money }
    - { name: note, type: varchar(100) }
  indexes: [{ name: chg_pk, columns: [id], unique: true }, { name: chg_d, columns: [d] }, { name: chg_ts, columns: [ts] }, { name: chg_n, columns: [n] }, { name: chg_m, columns: [m] }]
engine: { format: postgres-heap, fillfactor: 70 }
workload:
  - insert: { rows: 3000, values: { note: { length: 30 } } }
  - update: { rows: 50%, order: random, transaction: row, set: { d: changed } }
  - update: { rows: 50%, order: random, transaction: row, set: { ts: changed } }
  - update: { rows: 50%, order: random, transaction: row, set: { n: changed } }
  - update: { rows: 50%, order: random, transaction: row, set: { m: changed } }
  - update: { rows: 50%, order: random, transaction: row, set: { note: changed } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_changed' });
    for (const c of [
      ...at(r.comparisons, 'hot_updates'),
      ...at(r.comparisons, 'updates'),
      ...at(r.comparisons, 'heap_pages'),
      ...at(r.comparisons, 'live_tuples'),
    ]) {
      expect({ phase: c.phase, metric: c.metric, value: c.predicted }).toEqual({ phase: c.phase, metric: c.metric, value: c.observed });
    }
    // Phases 2-5 change an indexed column: no HOT; phase 6 a column no index covers: HOT where the page has room.
    expect(at(r.comparisons, 'hot_updates', 4)[0]!.observed).toBe(0);
    expect(at(r.comparisons, 'hot_updates', 5)[0]!.observed).toBeGreaterThan(1000);
  });

  it('one row updated 1,000 times (its int key and an indexed int counter): no overflow, every count as predicted', async () => {
    const s = spec(`name: many
table:
  name: many
  columns: [{ name: id, type: int }, { name: counter, type: int }, { name: note, type: varchar(40) }]
  indexes: [{ name: many_pk, columns: [id], unique: true }, { name: many_counter, columns: [counter] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 50, values: { note: { length: 20 } } }
${Array.from({ length: 1000 }, () => '  - update: { rows: 1, order: sequential, transaction: row, set: { counter: changed } }').join('\n')}
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_many' });
    const last = s.workload.length - 1;
    for (const metric of ['updates', 'hot_updates', 'heap_pages', 'live_tuples']) {
      const [c] = at(r.comparisons, metric, last);
      expect({ metric, value: c!.predicted }).toEqual({ metric, value: c!.observed });
    }
    expect(at(r.comparisons, 'updates', last)[0]!.observed).toBe(1000);
  });

  it('utf8 with 30% 2-byte characters in indexed varchar: heap pages and both indexes exact (keys of varying length)', async () => {
    const s = spec(`name: mb
table:
  name: mb
  columns: [{ name: id, type: int }, { name: name, type: varchar(120) }, { name: city, type: varchar(40) }]
  indexes: [{ name: mb_pk, columns: [id], unique: true }, { name: mb_name, columns: [name] }]
engine: { format: postgres-heap, encoding: utf8, multibyte_share: 0.3 }
workload:
  - insert: { rows: 20000, values: { name: { length: { uniform: [5, 120] } }, city: { length: { uniform: [3, 40] } } } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_mb' });
    for (const metric of ['heap_pages', 'index_pages.mb_pk', 'index_pages.mb_name', 'free_bytes', 'live_tuples']) {
      const [c] = at(r.comparisons, metric);
      expect({ metric, value: c!.predicted }).toEqual({ metric, value: c!.observed });
    }
  });

  /** Index pages of every index after every phase: exact, or within `tolerance` % where given. */
  function expectIndexPages(r: { comparisons: Comparison[] }, tolerance: Record<string, number> = {}): void {
    const idx = r.comparisons.filter((c) => c.metric.startsWith('index_pages.'));
    expect(idx.length).toBeGreaterThan(0);
    for (const c of idx) {
      const tol = tolerance[c.metric.slice('index_pages.'.length)];
      if (tol === undefined)
        expect({ metric: c.metric, phase: c.phase, pages: c.predicted }).toEqual({ metric: c.metric, phase: c.phase, pages: c.observed });
      else
        expect(
          Math.abs(c.diff_pct!),
          `${c.metric} after phase ${c.phase + 1}: ${c.predicted} predicted, ${c.observed} observed`,
        ).toBeLessThanOrEqual(tol);
    }
  }

  it('deduplication: dates of 365 values, NULL-heavy keys, deduplicate_items off, numeric keys (no deduplication): index pages exact after CREATE INDEX, inserts and non-HOT updates', async () => {
    const s = spec(`name: dd
seed: 4
table:
  name: dd
  columns:
    - { name: id, type: int }
    - { name: day, type: date }
    - { name: ref, type: int, null: true }
    - { name: price, type: "numeric(8,2)" }
    - { name: note, type: varchar(200) }
  indexes:
    - { name: dd_pk, columns: [id], unique: true }
    - { name: dd_day, columns: [day] }
    - { name: dd_day_nodedup, columns: [day], deduplicate_items: false }
    - { name: dd_ref, columns: [ref] }
    - { name: dd_price, columns: [price] }
engine: { format: postgres-heap }
workload:
  - insert: { rows: 15000, values: { day: { distinct: 365, order: random }, ref: { null: 0.9, distinct: 100, order: random }, price: { distinct: 150, order: random }, note: { length: { uniform: [10, 60] } } } }
  - insert: { rows: 10000, values: { day: { distinct: 365, order: random }, ref: { null: 0.9, distinct: 100, order: random }, price: { distinct: 150, order: random }, note: { length: { uniform: [10, 60] } } } }
  - update: { rows: 10%, order: random, transaction: row, set: { note: { length: { uniform: [150, 200] } } } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_dedup' });
    expectIndexPages(r);
    // Posting lists: the date index a third of its twin without deduplication.
    const day = at(r.comparisons, 'index_pages.dd_day', 0)[0]!.observed!;
    expect(at(r.comparisons, 'index_pages.dd_day_nodedup', 0)[0]!.observed!).toBeGreaterThan(2.5 * day);
  });

  it('random (uuid) keys split leaves in the middle; a composite key whose non-leading column changes keeps its place: index pages within 1%', async () => {
    const s = spec(`name: rk
seed: 6
table:
  name: rk
  columns: [{ name: id, type: int }, { name: token, type: uuid }, { name: customer, type: int }, { name: status, type: smallint }]
  indexes:
    - { name: rk_pk, columns: [id], unique: true }
    - { name: rk_token, columns: [token] }
    - { name: rk_customer_status, columns: [customer, status] }
engine: { format: postgres-heap }
workload:
  - insert: { rows: 12000, values: { token: { order: random }, customer: { distinct: 1500, order: random }, status: { distinct: 5, order: random } } }
  - insert: { rows: 12000, values: { token: { order: random }, customer: { distinct: 1500, order: random }, status: { distinct: 5, order: random } } }
  - update: { rows: 10%, order: random, transaction: row, set: { status: changed } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_random' });
    expectIndexPages(r, { rk_token: 1, rk_customer_status: 1 });
    // 50:50 splits: the random index grows more than the ascending one, whose leaves stay 90% full.
    const [built, grown] = at(r.comparisons, 'index_pages.rk_token');
    const [pkBuilt, pkGrown] = at(r.comparisons, 'index_pages.rk_pk');
    expect(grown!.observed! / built!.observed!).toBeGreaterThan((pkGrown!.observed! / pkBuilt!.observed!) * 1.05);
  });

  it('non-HOT updates of wide rows (5 a page), one a transaction: bottom-up deletion (at most 6 heap blocks a pass) keeps the unchanged indexes from growing as much as the changed one, exactly as predicted', async () => {
    const s = spec(`name: wide
seed: 21
table:
  name: wide
  columns: [{ name: id, type: int }, { name: policy, type: int }, { name: state, type: smallint }, { name: narrative, type: varchar(1600) }]
  indexes:
    - { name: wide_pk, columns: [id], unique: true }
    - { name: wide_policy, columns: [policy] }
    - { name: wide_state, columns: [state] }
engine: { format: postgres-heap }
workload:
  - insert: { rows: 5000, values: { policy: { distinct: 1200, order: random }, state: { distinct: 6, order: random }, narrative: { length: { uniform: [1500, 1560] } } } }
  - update: { rows: 60%, order: random, transaction: row, set: { state: changed } }
  - update: { rows: 60%, order: random, transaction: row, set: { state: changed } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_wide' });
    expect(at(r.comparisons, 'hot_updates', 2)[0]!.observed).toBe(0);
    for (const c of at(r.comparisons, 'heap_pages')) expect(c.predicted).toBe(c.observed);
    expectIndexPages(r, { wide_state: 3 });
    // The second round's UPDATEs find their rows through wide_pk, whose entries of the first round's dead
    // versions send each scan to the old page first, pruning it (heap_page_prune_opt): dead tuples and
    // free space exact after both rounds.
    for (const metric of ['dead_tuples', 'free_bytes']) {
      for (const c of at(r.comparisons, metric))
        expect({ phase: c.phase, metric, value: c.predicted }).toEqual({ phase: c.phase, metric, value: c.observed });
    }
  });

  it('deletes, VACUUM and inserts: VACUUM deletes the emptied leaves, whose pages the next VACUUM makes reusable; index pages exact', async () => {
    const s = spec(`name: dvi
seed: 17
table:
  name: dvi
  columns: [{ name: id, type: bigint }, { name: sensor, type: int }, { name: probe, type: uuid }]
  indexes:
    - { name: dvi_pk, columns: [id], unique: true }
    - { name: dvi_sensor, columns: [sensor] }
    - { name: dvi_probe, columns: [probe] }
engine: { format: postgres-heap }
workload:
  - insert: { rows: 20000, values: { sensor: { distinct: 150, order: random }, probe: { order: random } } }
  - delete: { rows: 40%, order: sequential }
  - vacuum:
  - insert: { rows: 5000, values: { sensor: { distinct: 150, order: random }, probe: { order: random } } }
  - vacuum:
  - insert: { rows: 8000, values: { sensor: { distinct: 150, order: random }, probe: { order: random } } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_dvi' });
    expectIndexPages(r, { dvi_probe: 1 });
    // The pk's new entries went to pages deleted two VACUUMs before: no growth in the last insert.
    const pk = at(r.comparisons, 'index_pages.dvi_pk');
    expect(pk[5]!.observed).toBeLessThanOrEqual(pk[4]!.observed! + 2);
  });

  it('index entries near and over 2,704 bytes: rows and updates whose entry would pass it are refused, as the server refuses them; the index pages exact', async () => {
    const s = spec(`name: wk
seed: 2
table:
  name: wk
  columns: [{ name: id, type: int }, { name: title, type: varchar(3000) }]
  indexes: [{ name: wk_pk, columns: [id], unique: true }, { name: wk_title, columns: [title] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 600, values: { title: { length: { uniform: [2600, 2760] }, order: random } } }
  - insert: { rows: 600, values: { title: { length: { uniform: [2600, 2760] }, order: random } } }
  - update: { rows: 30%, order: random, transaction: row, set: { title: { length: { uniform: [2650, 2760] }, order: random } } }
`);
    const sim = runStorage(s);
    expect(sim.phases[0]!.metrics.rows_rejected_by_index).toBeGreaterThan(100);
    expect(sim.phases[2]!.metrics.updates_rejected_by_index).toBeGreaterThan(10);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_wide_keys' });
    for (const metric of ['live_tuples', 'updates', 'heap_pages'])
      for (const c of at(r.comparisons, metric))
        expect({ metric, phase: c.phase, v: c.predicted }).toEqual({ metric, phase: c.phase, v: c.observed });
    expectIndexPages(r);
  });

  it('pruning, round after round: a session table updated whole 8 times, a row a transaction, at fillfactor 100 and 90: HOT updates, dead tuples and free space exact after every round', async () => {
    const rounds = Array.from(
      { length: 8 },
      () => '  - update: { rows: all, order: random, transaction: row, set: { seen: changed, data: { length: { uniform: [180, 220] } } } }',
    ).join('\n');
    for (const ff of [100, 90]) {
      const s = spec(`name: sr
seed: 11
table:
  name: sr
  columns: [{ name: id, type: int }, { name: seen, type: timestamp }, { name: data, type: varchar(400) }]
  indexes: [{ name: sr_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, fillfactor: ${ff} }
workload:
  - insert: { rows: 500, values: { data: { length: { uniform: [180, 220] } } } }
${rounds}
`);
      const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_rounds' });
      for (const metric of ['hot_updates', 'dead_tuples', 'free_bytes', 'heap_pages']) {
        const cs = at(r.comparisons, metric);
        expect(cs.length).toBeGreaterThanOrEqual(8);
        for (const c of cs) expect({ ff, metric, phase: c.phase, v: c.predicted }).toEqual({ ff, metric, phase: c.phase, v: c.observed });
      }
    }
  });

  it('index keys of compressible text over TOAST_INDEX_TARGET (510 bytes) are compressed in the entry, as index_form_tuple does: index pages exact, a key of 2,900 bytes accepted', async () => {
    const config = (c: number) =>
      spec(`name: ik
seed: 7
table:
  name: ik
  columns: [{ name: id, type: int }, { name: title, type: text }]
  indexes: [{ name: ik_pk, columns: [id], unique: true }, { name: ik_title, columns: [title] }]
engine: { format: postgres-heap }
workload:
  - insert: { rows: 1500, values: { title: { length: { uniform: [400, 2900] }, compressibility: ${c} } } }
  - update: { rows: 30%, order: random, set: { title: { length: { uniform: [400, 2900] }, compressibility: 0.3 } } }
`);
    const r = await pgCheck(client, config(0.6), { schemaPrefix: 'rowsim_t_ikeys' });
    expectIndexPages(r);
    for (const c of at(r.comparisons, 'live_tuples')) expect(c.observed).toBe(1500);
    // Compressed keys: far fewer pages than the same lengths uncompressed (and no key refused).
    const plain = runStorage(config(0)).phases[0]!;
    const packed = runStorage(config(0.6)).phases[0]!;
    expect(packed.metrics.rows_rejected_by_index ?? 0).toBe(0);
    expect(plain.metrics.rows_rejected_by_index).toBeGreaterThan(0);
    expect(packed.index_pages.by_index.ik_title!).toBeLessThan(plain.index_pages.by_index.ik_title! / 2);
  });

  it('pgstattuple: live and dead tuples and free space after a load, growing updates and VACUUM; the TOAST relation as predicted', async () => {
    const s = spec(`name: st
table:
  name: st
  columns: [{ name: id, type: int }, { name: body, type: varchar(4000) }]
  indexes: [{ name: st_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, fillfactor: 90 }
workload:
  - insert: { rows: 4000, values: { body: { length: { uniform: [40, 80] } } } }
  - update: { rows: 50%, order: random, set: { body: { grow: { uniform: [0, 30] } } } }
  - vacuum:
  - update: { rows: 5%, order: random, set: { body: { length: 3000 } } }
`);
    const r = await pgCheck(client, s, { schemaPrefix: 'rowsim_t_stat' });
    for (const metric of ['live_tuples', 'dead_tuples', 'free_bytes']) {
      for (const c of at(r.comparisons, metric).slice(0, 3))
        expect({ phase: c.phase, metric, value: c.predicted }).toEqual({ phase: c.phase, metric, value: c.observed });
    }
    expect(at(r.comparisons, 'dead_tuples', 1)[0]!.observed).toBe(2000);
    // 200 rows get 3,000-byte values: 2 chunks each (1,996 + 1,004 bytes), 2 values to a TOAST page.
    const toast = at(r.comparisons, 'toast_pages', 3)[0]!;
    expect(toast.observed).toBe(100);
    expect(toast.predicted).toBe(toast.observed);
    for (const c of at(r.comparisons, 'toast_index_pages'))
      expect({ phase: c.phase, value: c.predicted }).toEqual({ phase: c.phase, value: c.observed });
    expect(at(r.comparisons, 'toast_pages', 0)[0]).toMatchObject({ predicted: 0, observed: 0 });
  });

  it('several storage points in one run: a sweep and a multi-document file, a section each, each in its own scratch table', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-pgc-'));
    const doc = (name: string, ff: string) => `name: ${name}
table:
  name: pts
  columns: [{ name: id, type: int }, { name: body, type: varchar(100) }]
  indexes: [{ name: pts_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, fillfactor: 100 }
workload:
  - insert: { rows: 1500, values: { body: { length: 40 } } }
  - update: { rows: all, order: random, transaction: row, set: { body: { length: 60 } } }
${ff}`;
    writeFileSync(join(dir, 'multi.yaml'), `${doc('one', 'sweep:\n  engine.fillfactor: [100, 80]\n')}---\n${doc('two', '')}`);
    const out = rowsim(['pg-check', join(dir, 'multi.yaml'), '--url', URL!, '--json'], ROOT);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const results = JSON.parse(out.stdout).results as { label: string; comparisons: Comparison[] }[];
    expect(results.map((r) => r.label)).toEqual(['one: fillfactor=100', 'one: fillfactor=80', 'two: base']);
    for (const r of results) {
      for (const c of r.comparisons.filter((x) => ['heap_pages', 'hot_updates', 'updates'].includes(x.metric)))
        expect({ label: r.label, metric: c.metric, value: c.predicted }).toEqual({ label: r.label, metric: c.metric, value: c.observed });
    }
    const text = rowsim(['pg-check', join(dir, 'multi.yaml'), '--url', URL!], ROOT);
    expect(text.stdout.match(/^== \d\/3 /gm)).toHaveLength(3);
    expect(text.stdout).toMatch(/^== 2\/3 one: fillfactor=80: table pts, postgres-heap, page 8k, fillfactor 80, latin1/m);
  });

  it('rowsim pg-check prints prediction and observation side by side; --json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-pgc-'));
    writeFileSync(
      join(dir, 'c.yaml'),
      `name: cli
table:
  name: cli_t
  columns: [{ name: id, type: int }, { name: body, type: varchar(100) }]
  indexes: [{ name: cli_pk, columns: [id], unique: true }]
engine: { format: postgres-heap, fillfactor: 90 }
workload:
  - insert: { rows: 2000, values: { body: { length: 30 } } }
  - update: { rows: all, set: { body: { length: 60 } } }
  - vacuum:
`,
    );
    const text = rowsim(['pg-check', join(dir, 'c.yaml'), '--url', URL!], ROOT);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/predicted\s+observed\s+error\s+error %/);
    expect(text.stdout).toMatch(/^== base: table cli_t, postgres-heap, page 8k, fillfactor 90, latin1 \(PostgreSQL \d+/m);
    // varchar(100) in latin1 cannot exceed the TOAST threshold: no TOAST relation, predicted or observed.
    expect(text.stdout).toMatch(/toast_pages\s+0\s+0\s/);
    expect(text.stdout).toMatch(/^\d+ figures compared, \d+ exact/m);
    const json = rowsim(['pg-check', join(dir, 'c.yaml'), '--url', URL!, '--json'], ROOT);
    const out = JSON.parse(json.stdout);
    expect(out.results[0].comparisons.find((c: Comparison) => c.metric === 'hot_updates')).toMatchObject({ diff_pct: 0 });
  });
});

describe('pg-check without a server', () => {
  it('says how to give it one', () => {
    const r = rowsim(['pg-check', join(ROOT, 'sim-configs', 'quickstart.yaml'), '--url', 'postgres://nobody@127.0.0.1:1/none']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot connect/);
  });
});
