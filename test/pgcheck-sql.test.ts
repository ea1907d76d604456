/**
 * rowsim's model against tables a user fills with plain SQL on a live PostgreSQL (not pg-check's own
 * values): repetitive text (repeat(md5(…), k)) compressed by pglz and LZ4, utf8 text whose share of
 * multi-byte characters differs from row to row, and lengths inserted in a given order. The model runs
 * the shipped sim-config that describes each table; its heap and TOAST pages (and free space) are
 * compared with what the server reports after each phase. pg-check's replay of the same configs is
 * exact (test/pgcheck-toast.test.ts, test/pgcheck-values.test.ts). npm test gives the file a throw-away
 * cluster of its own (test/helpers/pg-cluster.ts).
 */
import pg from 'pg';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/loader/config.js';
import { runStorage } from '../src/workload/runner.js';
import { findPgstattuple, observe, type Observation } from '../src/pgcheck/observe.js';
import { ScratchSchema } from '../src/pgcheck/scratch.js';
import type { StorageSpec } from '../src/config/spec.js';
import { ROOT } from './helpers/cli.js';
import { needsServer, URL } from './helpers/pg-live.js';

needsServer('the model against tables filled with plain SQL on a live PostgreSQL');

/** The spec of a shipped sim-config's sweep point `label` (the first point when none is given). */
function shipped(file: string, label?: string): StorageSpec {
  const points = loadConfig(join(ROOT, 'sim-configs', 'pg-check', file)).storage;
  return (label === undefined ? points[0] : points.find((p) => p.label.includes(label)))!.spec;
}

/** A figure of the model and of the server, and how far apart (% of the server's). */
interface Pair {
  phase: number;
  metric: string;
  model: number;
  server: number;
  pct: number;
}

const pct = (model: number, server: number) => (server === 0 ? (model === 0 ? 0 : Infinity) : (100 * (model - server)) / server);

describe.skipIf(!URL)('the model against tables filled with plain SQL on a live PostgreSQL', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: URL });
    client.on('error', () => undefined);
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS pgstattuple');
  });
  afterAll(async () => {
    await client?.end();
  });

  /**
   * Run `phases` (SQL, with {t} for the table) in a scratch schema after `create`, and the model of
   * `spec`; the figures of both after each phase.
   */
  async function compare(spec: StorageSpec, create: string, phases: string[], setup: string[] = []): Promise<Pair[]> {
    const model = runStorage(spec).phases;
    const scratch = await ScratchSchema.create(client, 'rowsim_t_sql', 0);
    const t = `"${scratch.name}".${spec.table.name}`;
    const pairs: Pair[] = [];
    try {
      for (const s of setup) await client.query(s);
      await client.query(create.replaceAll('{t}', t));
      const stattuple = await findPgstattuple(client);
      for (const [i, sql] of phases.entries()) {
        await client.query(sql.replaceAll('{t}', t));
        const obs: Observation = await observe(client, scratch.name, spec.table.name, [], false, stattuple);
        const m = model[i]!.metrics as unknown as Record<string, number>;
        const add = (metric: string, a: number, b: number) => pairs.push({ phase: i + 1, metric, model: a, server: b, pct: pct(a, b) });
        add('heap_pages', m.pages!, obs.heapPages);
        add('toast_pages', m.toast_pages ?? 0, obs.toastPages);
        add('free_bytes', m.free_bytes!, obs.stat!.freeBytes);
      }
    } finally {
      for (const s of setup) if (/^SET /i.test(s)) await client.query(`RESET ${s.split(/\s+/)[1]}`);
      await scratch.drop(client);
    }
    return pairs;
  }

  const REPETITIVE_TABLE = `CREATE TABLE {t} (id int PRIMARY KEY, title varchar(120), body text, attachment text);
    ALTER TABLE {t} ALTER COLUMN attachment SET STORAGE EXTERNAL`;
  const REPETITIVE_PHASES = [
    // 3,008-byte bodies of a 32-character unit; an 8,000-byte attachment on every fifth row.
    `INSERT INTO {t} SELECT g, 'Document ' || lpad(g::text, 4, '0'), repeat(md5(g::text), 94),
       CASE WHEN g % 5 = 0 THEN repeat(md5((-g)::text), 250) END FROM generate_series(1, 5000) g`,
    `UPDATE {t} SET body = repeat(md5(body), 188) WHERE id % 5 = 2`,
    `VACUUM {t}`,
  ];

  it.each(['pglz', 'lz4'])(
    'repeat(md5(…), 94): 3,008-byte repetitive bodies under %s, as sim-configs/pg-check/toast-repetitive.yaml models them: heap and TOAST pages within 2% after every phase',
    async (method) => {
      const pairs = await compare(shipped('toast-repetitive.yaml', method), REPETITIVE_TABLE, REPETITIVE_PHASES, [
        `SET default_toast_compression = ${method}`,
      ]);
      console.log(
        `toast-repetitive ${method}\n${pairs.map((p) => `${p.phase} ${p.metric} model ${p.model} server ${p.server} (${p.pct.toFixed(2)}%)`).join('\n')}`,
      );
      const pages = pairs.filter((p) => p.metric !== 'free_bytes');
      expect(pages.filter((p) => Math.abs(p.pct) > 2)).toEqual([]);
    },
  );

  /** Text of n characters in a script: ASCII letters (en), one in ten accented (fr, 2 bytes), CJK (zh, 3 bytes). */
  const TEXT_FN = `CREATE FUNCTION {s}.txt(lang int, n int) RETURNS text LANGUAGE sql AS $$
    SELECT coalesce(string_agg(CASE WHEN lang = 2 THEN chr(19968 + (random() * 20000)::int)
                                    WHEN lang = 1 AND random() < 0.1 THEN chr(224 + (random() * 27)::int)
                                    ELSE chr(97 + (random() * 25)::int) END, ''), '')
      FROM generate_series(1, n) $$`;
  const MIXED_PHASES = [
    // 60% en, 25% fr, 15% zh by id; titles of 10–120 characters, bodies of 50–500.
    `INSERT INTO {t} SELECT g, {s}.txt(l, 10 + (random() * 110)::int), {s}.txt(l, 50 + (random() * 450)::int)
       FROM generate_series(1, 10000) g, LATERAL (SELECT CASE WHEN g % 20 < 12 THEN 0 WHEN g % 20 < 17 THEN 1 ELSE 2 END AS l) x`,
    `UPDATE {t} SET body = body || {s}.txt(CASE WHEN id % 20 < 12 THEN 0 WHEN id % 20 < 17 THEN 1 ELSE 2 END, (random() * 40)::int)
       WHERE random() < 0.3`,
    `VACUUM {t}`,
  ];

  it('utf8 text in three scripts, written in plain SQL: free space nearer the server with a share drawn for every value (sim-configs/pg-check/utf8-mixed.yaml) than with one average share for all', async () => {
    const varying = shipped('utf8-mixed.yaml');
    const average = { ...varying, engine: { ...varying.engine, multibyte_vary: undefined } };
    const create = `CREATE TABLE {t} (id int PRIMARY KEY, title varchar(120), body text)`;
    const fn = (s: string) => s;
    const run = async (sp: StorageSpec) => {
      const schema = await ScratchSchema.create(client, 'rowsim_t_fn', 0);
      try {
        await client.query(TEXT_FN.replaceAll('{s}', `"${schema.name}"`));
        await client.query('SELECT setseed(0.42)');
        return await compare(
          sp,
          create,
          MIXED_PHASES.map((p) => fn(p).replaceAll('{s}', `"${schema.name}"`)),
        );
      } finally {
        await schema.drop(client);
      }
    };
    const perValue = await run(varying);
    const oneShare = await run(average);
    const show = (pairs: Pair[]) =>
      pairs.map((p) => `${p.phase} ${p.metric} model ${p.model} server ${p.server} (${p.pct.toFixed(2)}%)`).join('\n');
    console.log(`utf8-mixed, a share per value\n${show(perValue)}\nutf8-mixed, one average share\n${show(oneShare)}`);
    const free = (pairs: Pair[]) => pairs.filter((p) => p.metric === 'free_bytes');
    for (const [i, p] of free(perValue).entries()) expect(Math.abs(p.pct)).toBeLessThan(Math.abs(free(oneShare)[i]!.pct));
    expect(perValue.filter((p) => p.metric === 'heap_pages' && Math.abs(p.pct) > 2)).toEqual([]);
  });

  it('lengths in a given order (sim-configs/pg-check/toast-order.yaml, a CSV of 2,000 lengths): the TOAST pages of the same lengths inserted in plain SQL in that order, and sorted, each as the model gives them for that order', async () => {
    const given = shipped('toast-order.yaml');
    const lengths = (given.workload[0] as Extract<StorageSpec['workload'][number], { op: 'insert' }>).values.body!.length!;
    if (lengths.kind !== 'sequence') throw new Error('toast-order.yaml: expected a length sequence');
    const sorted = [...lengths.values].sort((a, b) => a - b);
    const create = `CREATE TABLE {t} (id int PRIMARY KEY, body text); ALTER TABLE {t} ALTER COLUMN body SET STORAGE EXTERNAL`;
    const insert = (values: number[]) =>
      `INSERT INTO {t} SELECT i, repeat('x', len) FROM unnest('{${values.join(',')}}'::int[]) WITH ORDINALITY AS u(len, i)`;
    const inOrder = await compare(given, create, [insert(lengths.values)]);
    const sortedSpec: StorageSpec = {
      ...given,
      workload: [
        {
          op: 'insert',
          rows: given.workload[0]!.op === 'insert' ? given.workload[0]!.rows : 0,
          values: { body: { null: 0, length: { kind: 'sequence', values: sorted } } },
        },
      ],
    };
    const inSort = await compare(sortedSpec, create, [insert(sorted)]);
    const toast = (pairs: Pair[]) => pairs.find((p) => p.metric === 'toast_pages')!;
    console.log(`toast-order: in order ${JSON.stringify(toast(inOrder))}, sorted ${JSON.stringify(toast(inSort))}`);
    expect(toast(inOrder).server).not.toBe(toast(inSort).server);
    for (const pairs of [inOrder, inSort]) expect(pairs.filter((p) => p.metric !== 'free_bytes' && p.model !== p.server)).toEqual([]);
  });
});
