/**
 * pg-check's replay of an update or delete phase that reaches its rows in one statement (`via: scan`,
 * `via: range`: workload/access.ts): the phase's rows and their new values, as the simulation recorded
 * them, sent as the one set-based statement a user would send, in a transaction of its own.
 *
 * The new values are rowsim's (values.ts): each row's differs in length and content, which no SQL
 * expression over the row makes. They go first into a staging table of the scratch schema (one row per
 * changed row: its row number, its key before the change and its new values, a primary key on the key),
 * read by the statement through scalar subqueries by key, so the table itself is read as the phase says:
 *   - scan:  UPDATE t SET (c, …) = (SELECT n.c, … FROM n WHERE n.k = t.k) [WHERE (SELECT true FROM n WHERE n.k = t.k)]
 *            DELETE FROM t [WHERE (SELECT true FROM n WHERE n.k = t.k)]
 *            (the WHERE only when the phase changes some of the live rows; a scalar subquery is never
 *            turned into a join, so t is read by one sequential scan and each row tested as it is met;
 *            sequential scans on for the statement);
 *   - range: UPDATE t SET (c, …) = (SELECT …) WHERE t.lead BETWEEN $1 AND $2 / DELETE FROM t WHERE t.lead BETWEEN $1 AND $2
 *            (the replay's settings force the index scan).
 * The staging table is made and filled before the statement, in transactions of its own, and dropped
 * after: it is another relation, and nothing of it reaches the table's pages. The server's plan of the
 * statement is asked first (EXPLAIN, not executed) and must read the table as the phase says.
 */
import type pg from 'pg';
import type { RowAccess } from '../config/spec.js';
import { PgCheckError } from './errors.js';
import { columnDdlType, quoteIdent, type ColumnSql, type SqlValue } from './values.js';

/** A query run at the replay's place (its errors name the phase). */
export type Query = (text: string, params?: unknown[], row?: string) => Promise<pg.QueryResult>;

/** One row of a set-based phase: its id, its key before the change, the new values of the phase's columns (none for a delete). */
export interface SetRow {
  row: number;
  key: SqlValue;
  lead: SqlValue;
  values: SqlValue[];
}

export interface SetStatement {
  op: 'update' | 'delete';
  via: Exclude<RowAccess, 'index'>;
  /** The table, schema-qualified and quoted; the staging table's name likewise. */
  table: string;
  stage: string;
  /** The column rows are matched by (distinct, not NULL), and the first index's leading column (a range's). */
  key: ColumnSql;
  lead: ColumnSql;
  /** The columns an update sets, in order; the position among them of the key column, −1 when it keeps its value. */
  cols: ColumnSql[];
  keyChanged: number;
  rows: SetRow[];
  /** The live rows when the phase started: a phase that changes them all needs no WHERE (a scan). */
  liveAtStart: number;
}

/** The statement's text and parameters (a range's bounds). */
export function statementSql(s: SetStatement): { text: string; params: SqlValue[] } {
  const k = s.key.ident;
  const match = `${s.stage} n WHERE n.k = ${s.table}.${k}`;
  let where = '';
  const params: SqlValue[] = [];
  if (s.via === 'range') {
    params.push(s.rows[0]!.lead, s.rows[s.rows.length - 1]!.lead);
    where = ` WHERE ${s.lead.ident} BETWEEN $1 AND $2`;
  } else if (s.rows.length !== s.liveAtStart) where = ` WHERE (SELECT true FROM ${match})`;
  if (s.op === 'delete') return { text: `DELETE FROM ${s.table}${where}`, params };
  const targets = s.cols.map((c) => c.ident).join(', ');
  const sources = s.cols.map((_, j) => `n.v${j}`).join(', ');
  const after = s.keyChanged >= 0 ? `v${s.keyChanged}` : 'k';
  const returning = ` RETURNING ctid, (SELECT n.r FROM ${s.stage} n WHERE n.${after} = ${s.table}.${k}) AS r`;
  return { text: `UPDATE ${s.table} SET (${targets}) = (SELECT ${sources} FROM ${match})${where}${returning}`, params };
}

/** The staging table's statements: CREATE, the INSERTs (at most `batch` rows each), ANALYZE. */
function stageSql(s: SetStatement, batch: number): { text: string; params: SqlValue[] }[] {
  const cols = [`r int NOT NULL`, `k ${columnDdlType(s.key)} PRIMARY KEY`, ...s.cols.map((c, j) => `v${j} ${columnDdlType(c)}`)];
  const out = [{ text: `CREATE UNLOGGED TABLE ${s.stage} (${cols.join(', ')})`, params: [] as SqlValue[] }];
  if (s.keyChanged >= 0) out.push({ text: `CREATE INDEX ON ${s.stage} (v${s.keyChanged})`, params: [] });
  for (let i = 0; i < s.rows.length; i += batch) {
    const params: SqlValue[] = [];
    const tuples = s.rows.slice(i, i + batch).map((r) => {
      const vals = [r.row, r.key, ...r.values];
      return `(${vals.map((v) => (params.push(v), `$${params.length}`)).join(', ')})`;
    });
    out.push({ text: `INSERT INTO ${s.stage} VALUES ${tuples.join(', ')}`, params });
  }
  out.push({ text: `ANALYZE ${s.stage}`, params: [] });
  return out;
}

/** The node types of a JSON plan that read `relation`, depth first. */
function scansOf(plan: unknown, relation: string): string[] {
  const out: string[] = [];
  const walk = (node: Record<string, unknown>) => {
    if (node['Relation Name'] === relation && node['Node Type'] !== 'ModifyTable') out.push(String(node['Node Type']));
    for (const child of (node['Plans'] as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  const root = (plan as { Plan: Record<string, unknown> }[])[0]!.Plan;
  walk(root);
  return out;
}

/** What the statement did: the rows' new ctids (an update's), and the server's plan of the table's read. */
export interface SetOutcome {
  ctids: Map<number, string>;
  plan: string;
}

/**
 * Stage the values, explain and run the statement (one transaction), drop the staging table. The
 * statement must change exactly the phase's rows and read the table as the phase says.
 */
export async function runSetStatement(q: Query, s: SetStatement, relation: string, batch: number, where: string): Promise<SetOutcome> {
  const per = Math.max(1, Math.min(batch, Math.floor(65_535 / (2 + s.cols.length))));
  const staged = s.op === 'update' || (s.via === 'scan' && s.rows.length !== s.liveAtStart);
  if (staged) for (const st of stageSql(s, per)) await q(st.text, st.params);
  // The replay's settings keep sequential scans off (rows found by key); a scan phase's statement is one.
  if (s.via === 'scan') await q('SET enable_seqscan = on');
  const st = statementSql(s);
  const ex = await q(`EXPLAIN (FORMAT JSON) ${st.text}`, st.params, 'its EXPLAIN');
  const reads = scansOf(ex.rows[0]['QUERY PLAN'], relation);
  const want = s.via === 'scan' ? 'Seq Scan' : 'Index Scan';
  const plan = reads.join(', ') || 'none';
  if (reads.length !== 1 || reads[0] !== want)
    throw new PgCheckError(`${where}: the server reads table ${relation} by ${plan}, not one ${want} as the phase says (${st.text})`);
  const r = await q(st.text, st.params, `its ${s.op.toUpperCase()} of ${s.rows.length} rows`);
  if (r.rowCount !== s.rows.length)
    throw new PgCheckError(`${where}: its ${s.op.toUpperCase()} changed ${r.rowCount ?? 0} rows instead of ${s.rows.length} (${st.text})`);
  if (s.via === 'scan') await q('SET enable_seqscan = off');
  const ctids = new Map<number, string>();
  if (s.op === 'update') for (const x of r.rows) ctids.set(Number(x.r), String(x.ctid));
  if (staged) await q(`DROP TABLE ${s.stage}`);
  return { ctids, plan };
}

/** The staging table's name for phase `index`, in the scratch schema. */
export function stageName(schema: string, index: number): string {
  return `${quoteIdent(schema)}.${quoteIdent(`rowsim_stage_${index + 1}`)}`;
}
