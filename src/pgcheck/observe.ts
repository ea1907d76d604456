/**
 * What the server says about a replayed table after a phase. Nothing here changes the table: sizes come
 * from pg_relation_size, counters from pg_stat_user_tables, and pgstattuple scans the heap without the
 * page-at-a-time mode, in which alone a scan prunes pages (heapam.c heapgetpage: heap_page_prune_opt
 * only under SO_ALLOW_PAGEMODE; pgstattuple.c pgstat_heap begins its scan with allow_pagemode false), so
 * observing a phase does not prune what the next phase would find.
 */
import type pg from 'pg';
import { quoteIdent } from './values.js';
import type { PhaseResult } from '../workload/run-types.js';
import type { SelectReplay } from './select.js';

/** Where pgstattuple can be called, or why it cannot. */
export type Pgstattuple = { usable: true; fn: string } | { usable: false; why: string };

const NOT_INSTALLED =
  "pgstattuple is not installed in this database: live and dead tuples and free space are not observed (n/a); CREATE EXTENSION pgstattuple (as a superuser; it ships with PostgreSQL, in Debian's postgresql package) makes pg-check compare them";

/** pgstattuple installed in this database (any schema) and callable by this role. */
export async function findPgstattuple(client: pg.Client): Promise<Pgstattuple> {
  const r = await client.query(
    `SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pgstattuple'`,
  );
  if (r.rows.length === 0) return { usable: false, why: NOT_INSTALLED };
  const fn = `${quoteIdent(r.rows[0].nspname as string)}.pgstattuple`;
  const ok = await client.query(`SELECT has_function_privilege($1, 'EXECUTE') AS ok`, [`${fn}(regclass)`]);
  if (!ok.rows[0].ok) {
    return {
      usable: false,
      why: `pgstattuple is installed, but this role may not call ${fn}(regclass): live and dead tuples and free space are not observed (n/a); a member of pg_stat_scan_tables may`,
    };
  }
  return { usable: true, fn };
}

export interface Observation {
  heapPages: number;
  fsmPages: number;
  vmPages: number;
  /** The TOAST relation's pages and its index's (0 when the table has no TOAST relation). */
  toastPages: number;
  toastIndexPages: number;
  indexPages: Record<string, number>;
  updates: number;
  hotUpdates: number;
  /** n_tup_newpage_upd (PostgreSQL 16 on), else undefined. */
  newpage?: number;
  /** pgstattuple's figures, when it can be called. */
  stat?: { liveTuples: number; deadTuples: number; freeBytes: number };
}

export async function observe(
  client: pg.Client,
  schema: string,
  table: string,
  indexes: string[],
  withNewpage: boolean,
  stattuple: Pgstattuple,
): Promise<Observation> {
  const rel = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const sizes = await client.query(
    `SELECT pg_relation_size(c.oid) / b AS heap, pg_relation_size(c.oid, 'fsm') / b AS fsm, pg_relation_size(c.oid, 'vm') / b AS vm,
            COALESCE(pg_relation_size(NULLIF(c.reltoastrelid, 0)) / b, 0) AS toast,
            COALESCE((SELECT sum(pg_relation_size(i.indexrelid)) FROM pg_index i WHERE i.indrelid = c.reltoastrelid AND c.reltoastrelid <> 0) / b, 0) AS toast_index
       FROM pg_class c, (SELECT current_setting('block_size')::int AS b) s WHERE c.oid = $1::regclass`,
    [rel],
  );
  const idx = await client.query(
    `SELECT c.relname, pg_relation_size(c.oid) / current_setting('block_size')::int AS pages FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = $1::regclass`,
    [rel],
  );
  const indexPages: Record<string, number> = {};
  for (const name of indexes) {
    const row = idx.rows.find((x) => x.relname === name);
    if (row) indexPages[name] = Number(row.pages);
  }
  let stat: Observation['stat'];
  if (stattuple.usable) {
    const s = await client.query(`SELECT tuple_count, dead_tuple_count, free_space FROM ${stattuple.fn}($1::regclass)`, [rel]);
    stat = {
      liveTuples: Number(s.rows[0].tuple_count),
      deadTuples: Number(s.rows[0].dead_tuple_count),
      freeBytes: Number(s.rows[0].free_space),
    };
  }
  // Counters reach pg_stat_user_tables when the backend goes idle: force it, then read in a new statement.
  await client.query('SELECT pg_stat_force_next_flush()');
  await client.query('SELECT pg_stat_clear_snapshot()');
  const cols = `n_tup_upd, n_tup_hot_upd${withNewpage ? ', n_tup_newpage_upd' : ''}`;
  const st = await client.query(`SELECT ${cols} FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2`, [schema, table]);
  const row = st.rows[0] ?? {};
  const s = sizes.rows[0];
  return {
    heapPages: Number(s.heap),
    fsmPages: Number(s.fsm),
    vmPages: Number(s.vm),
    toastPages: Number(s.toast),
    toastIndexPages: Number(s.toast_index),
    indexPages,
    updates: Number(row.n_tup_upd ?? 0),
    hotUpdates: Number(row.n_tup_hot_upd ?? 0),
    ...(withNewpage ? { newpage: Number(row.n_tup_newpage_upd ?? 0) } : {}),
    ...(stat ? { stat } : {}),
  };
}

/**
 * Other sessions of this database that hold a snapshot (backend_xmin) now: while one does, pruning and
 * VACUUM keep every version it may still see, and the replay's dead tuples, free space, HOT updates and
 * pages can differ from a quiet server's. Their pids (those this role may see).
 */
export async function otherSnapshots(client: pg.Client): Promise<number[]> {
  const r = await client.query(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL ORDER BY pid`,
  );
  return r.rows.map((x) => Number(x.pid));
}

/** A table's read counters at one moment (pg_statio_user_tables, pg_stat_user_tables, pg_stat_user_indexes). */
export interface ReadCounters {
  heapRead: number;
  heapHit: number;
  /** Summed over the table's indexes. */
  idxRead: number;
  idxHit: number;
  seqScan: number;
  seqTupRead: number;
  idxScan: number;
  idxTupFetch: number;
  /** Per index: idx_tup_read (entries returned, those of dead versions not yet killed included) and idx_tup_fetch (live rows fetched). */
  byIndex: Record<string, { tupRead: number; tupFetch: number }>;
}

/**
 * The table's read counters once every count of this session so far is visible. PostgreSQL 15 keeps the
 * cumulative statistics in shared memory; a backend adds its pending counts there when it goes idle
 * outside a transaction, but not more often than once a second (PGSTAT_MIN_INTERVAL), so a count can lag
 * by up to that. pg_stat_force_next_flush() makes the flush at the end of its own statement unconditional
 * (pgstat.c pgstat_report_stat); the counters are then read by the next statement, in a transaction of
 * its own (the view's values are cached per transaction: stats_fetch_consistency).
 */
export async function readCounters(client: pg.Client, schema: string, table: string): Promise<ReadCounters> {
  const rel = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  await client.query('SELECT pg_stat_force_next_flush()');
  const t = await client.query(
    `SELECT s.heap_blks_read, s.heap_blks_hit, COALESCE(s.idx_blks_read, 0) AS idx_blks_read, COALESCE(s.idx_blks_hit, 0) AS idx_blks_hit,
            u.seq_scan, u.seq_tup_read, COALESCE(u.idx_scan, 0) AS idx_scan, COALESCE(u.idx_tup_fetch, 0) AS idx_tup_fetch
       FROM pg_statio_user_tables s JOIN pg_stat_user_tables u ON u.relid = s.relid WHERE s.relid = $1::regclass`,
    [rel],
  );
  const i = await client.query(`SELECT indexrelname, idx_tup_read, idx_tup_fetch FROM pg_stat_user_indexes WHERE relid = $1::regclass`, [
    rel,
  ]);
  const r = t.rows[0] ?? {};
  const byIndex: ReadCounters['byIndex'] = {};
  for (const x of i.rows) byIndex[x.indexrelname as string] = { tupRead: Number(x.idx_tup_read), tupFetch: Number(x.idx_tup_fetch) };
  return {
    heapRead: Number(r.heap_blks_read ?? 0),
    heapHit: Number(r.heap_blks_hit ?? 0),
    idxRead: Number(r.idx_blks_read ?? 0),
    idxHit: Number(r.idx_blks_hit ?? 0),
    seqScan: Number(r.seq_scan ?? 0),
    seqTupRead: Number(r.seq_tup_read ?? 0),
    idxScan: Number(r.idx_scan ?? 0),
    idxTupFetch: Number(r.idx_tup_fetch ?? 0),
    byIndex,
  };
}

/** A select phase's read figures as the simulation reports them. */

type SelectReads = NonNullable<PhaseResult['reads']>;

/**
 * What a select phase's reads are compared on: each counter's name, the model's figure, and how the
 * server's is read from pg_statio / pg_stat (the change over the phase). Blocks fetched always; read and
 * hit apart when the model has a buffer cache; the index or sequential scan counters of its path.
 */
export function readComparisons(
  model: SelectReplay['model'],
  reads: SelectReads,
  liveRows: number,
): [string, number, (c: ReadCounters) => number][] {
  const ec = reads.engine_counters;
  const at = (k: string) => ec[k] ?? 0;
  const cached = reads.cache !== undefined;
  const out: [string, number, (c: ReadCounters) => number][] = [
    ['heap_blks_fetched', cached ? at('heap_blks_read') + at('heap_blks_hit') : at('heap_blks_fetched'), (c) => c.heapRead + c.heapHit],
    ['idx_blks_fetched', cached ? at('idx_blks_read') + at('idx_blks_hit') : at('idx_blks_fetched'), (c) => c.idxRead + c.idxHit],
  ];
  if (cached) {
    out.push(['heap_blks_read', at('heap_blks_read'), (c) => c.heapRead], ['heap_blks_hit', at('heap_blks_hit'), (c) => c.heapHit]);
    out.push(['idx_blks_read', at('idx_blks_read'), (c) => c.idxRead], ['idx_blks_hit', at('idx_blks_hit'), (c) => c.idxHit]);
  }
  if (model.path === 'index') {
    const ix = (c: ReadCounters) => c.byIndex[model.index!] ?? { tupRead: 0, tupFetch: 0 };
    out.push(['idx_scan', reads.statements, (c) => c.idxScan], ['idx_tup_fetch', reads.rows_returned, (c) => c.idxTupFetch]);
    // Entries returned whose heap tuple was not visible: the dead versions the scans visited.
    out.push(['dead_versions_visited', at('dead_versions_visited'), (c) => ix(c).tupRead - ix(c).tupFetch]);
  } else if (model.path === 'scan') {
    out.push(['seq_scan', reads.statements, (c) => c.seqScan]);
    // A sequential scan counts every visible tuple it returns to the executor: the live rows, each scan.
    out.push(['seq_tup_read', liveRows * reads.statements, (c) => c.seqTupRead]);
  }
  return out;
}
