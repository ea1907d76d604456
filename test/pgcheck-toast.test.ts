/**
 * rowsim pg-check against a live PostgreSQL: the values it sends (every generated value's stored bytes),
 * pglz and LZ4 compression, the toaster row by row, TOAST pages, and the TOAST, numeric and utf8 scenarios
 * of sim-configs/pg-check (heap and indexes: test/pgcheck.test.ts). npm test gives the file a throw-away
 * cluster of its own (test/helpers/pg-cluster.ts); without one (ROWSIM_PG_URL) these tests fail (they do
 * not pass silently) unless ROWSIM_SKIP_PG=1.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/loader/config.js';
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
import { ROOT } from './helpers/cli.js';
import { at, needsServer, spec, URL } from './helpers/pg-live.js';
import { join } from 'node:path';
import { readdirSync } from 'node:fs';

needsServer('pg-check of values, compression and TOAST against a live PostgreSQL');

describe.skipIf(!URL)('pg-check of values, compression and TOAST against a live PostgreSQL', () => {
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
    /^(toast-.*|numeric-amounts|utf8-widths|utf8-mixed)\.yaml$/.test(f),
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
});
