/**
 * What the server shows of the scratch table after a phase: `ANALYZE TABLE` (persistent statistics),
 * then per index `mysql.innodb_index_stats` n_leaf_pages and size (the pages its segments own), the pages
 * of the index in the buffer pool from `information_schema.INNODB_BUFFER_PAGE` (leaf and non-leaf
 * together: the view has no level; BLOB pages carry no index name and are not among them) with their
 * records and data bytes, and the table's DATA_LENGTH, INDEX_LENGTH and DATA_FREE.
 */
import type { MysqlConnection } from './connection.js';

export interface IndexFigures {
  /** The index as the server names it (PRIMARY, GEN_CLUST_INDEX, or the config's name). */
  index: string;
  /** mysql.innodb_index_stats n_leaf_pages (for the clustered index: with its off-page column pages). */
  leaf_pages: number | null;
  /** mysql.innodb_index_stats size: pages the index's segments own, used or not. */
  size_pages: number | null;
  /** INNODB_BUFFER_PAGE: the index's pages in the pool, their records (node pointers included), their average DATA_SIZE. */
  pool_pages: number;
  records: number;
  avg_data_size: number | null;
}

export interface ServerFigures {
  indexes: IndexFigures[];
  data_length: number;
  index_length: number;
  data_free: number;
  /** information_schema.TABLES TABLE_ROWS: InnoDB's estimate, shown, not compared. */
  table_rows: number;
}

type Row = Record<string, unknown>;

async function rows(conn: MysqlConnection, sql: string, params: unknown[]): Promise<Row[]> {
  const [r] = await conn.query(sql, params);
  return r as Row[];
}

const num = (v: unknown): number => Number(v ?? 0);

export async function observeTable(conn: MysqlConnection, database: string, table: string, indexes: string[]): Promise<ServerFigures> {
  await conn.query(`ANALYZE TABLE \`${database.replace(/`/g, '``')}\`.\`${table.replace(/`/g, '``')}\``);
  const stats = await rows(
    conn,
    `SELECT index_name, stat_name, stat_value FROM mysql.innodb_index_stats
     WHERE database_name = ? AND table_name = ? AND stat_name IN ('n_leaf_pages', 'size')`,
    [database, table],
  );
  const pool = await rows(
    conn,
    `SELECT INDEX_NAME AS index_name, COUNT(*) AS pages, SUM(NUMBER_RECORDS) AS records, AVG(DATA_SIZE) AS avg_data_size
     FROM information_schema.INNODB_BUFFER_PAGE WHERE TABLE_NAME = ? AND PAGE_TYPE = 'INDEX' GROUP BY INDEX_NAME`,
    [`\`${database}\`.\`${table}\``],
  );
  const [t] = await rows(
    conn,
    'SELECT TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH, DATA_FREE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
    [database, table],
  );
  const stat = (index: string, name: string) => {
    const r = stats.find((s) => s.index_name === index && s.stat_name === name);
    return r ? num(r.stat_value) : null;
  };
  const figures = indexes.map((index) => {
    const p = pool.find((x) => x.index_name === index);
    return {
      index,
      leaf_pages: stat(index, 'n_leaf_pages'),
      size_pages: stat(index, 'size'),
      pool_pages: p ? num(p.pages) : 0,
      records: p ? num(p.records) : 0,
      avg_data_size: p ? Math.round(num(p.avg_data_size) * 10) / 10 : null,
    };
  });
  return {
    indexes: figures,
    data_length: num(t?.DATA_LENGTH),
    index_length: num(t?.INDEX_LENGTH),
    data_free: num(t?.DATA_FREE),
    table_rows: num(t?.TABLE_ROWS),
  };
}

/** Bound on the wait for purge where the server cannot be told to wait (MySQL, or no SUPER). */
const PURGE_POLL_LIMIT_MS = 120_000;

/**
 * Wait until InnoDB's purge has removed what the phase's deletes and updates left (delete-marked records,
 * old secondary entries): `SET GLOBAL innodb_max_purge_lag_wait = 0` (MariaDB 10.5.7+) returns once the
 * history list is empty; elsewhere the history length is polled. A note when it could not be waited for.
 */
export async function waitForPurge(conn: MysqlConnection): Promise<string | undefined> {
  try {
    await conn.query('SET GLOBAL innodb_max_purge_lag_wait = 0');
    return undefined;
  } catch {
    // not MariaDB, or no privilege: poll below
  }
  const until = Date.now() + PURGE_POLL_LIMIT_MS;
  for (;;) {
    const r = await rows(conn, "SELECT COUNT AS n FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'", []).catch(
      () => [],
    );
    if (r.length === 0)
      return 'the purge could not be waited for (no innodb_max_purge_lag_wait, no INNODB_METRICS): figures may include delete-marked records';
    if (num(r[0]!.n) === 0) return undefined;
    if (Date.now() > until)
      return `the purge did not finish within ${PURGE_POLL_LIMIT_MS / 1000} s: figures may include delete-marked records`;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
