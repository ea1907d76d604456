/**
 * pg-check: run a config's table and workload on a live PostgreSQL and put the simulator's prediction
 * beside what the server stores. The simulation runs first with an observer that records every
 * operation the engine accepted (runner.ts, one code path for both); the same rows, changes and
 * transaction boundaries are then replayed as SQL:
 *   - CREATE TABLE … WITH (fillfactor, autovacuum off); indexes created after the first phase that
 *     leaves rows (as the simulator builds them: CREATE INDEX on the loaded table);
 *   - inserts as multi-row INSERTs in one transaction per phase; updates and deletes one statement per
 *     row through the first index (index scans forced, so pages are pruned on access as an application
 *     finding rows by key would), in one transaction per phase or per row as the phase says;
 *   - vacuum → VACUUM (INDEX_CLEANUP ON); rebuild → VACUUM FULL.
 * After each phase: pg_relation_size of the heap and of each index, n_tup_upd, n_tup_hot_upd and (16+)
 * n_tup_newpage_upd from pg_stat_user_tables after pg_stat_force_next_flush().
 * Everything lives in a scratch schema of its own (scratch.ts), dropped when the check ends, failed or not.
 */
import type pg from 'pg';
import type { PhaseSpec, StorageSpec } from '../config/spec.js';
import { pgLayout, postgresHeap } from '../formats/postgres.js';
import type { ColumnLayout } from '../layout/table-layout.js';
import type { ReorgKind } from '../heap/engine.js';
import { metric } from '../heap/metrics.js';
import { runStorage, type PhaseResult } from '../workload/runner.js';
import { DEFAULT_SCHEMA_PREFIX, ScratchSchema } from './scratch.js';
import { columnsSql, quoteIdent, valueFor, type ColumnSql, type SqlValue } from './values.js';

export interface Comparison {
  phase: number;
  label: string;
  metric: string;
  predicted: number;
  observed: number | null;
  /** (observed − predicted) / observed × 100, rounded to 0.01; null when not observed. */
  diff_pct: number | null;
}

export interface PgCheckResult {
  label: string;
  server_version: string;
  notes: string[];
  comparisons: Comparison[];
}

type Op =
  | { k: 'phase'; index: number; phase: PhaseSpec }
  | { k: 'insert'; row: number; lens: Uint16Array }
  | { k: 'update'; row: number; cols: readonly ColumnLayout[]; lens: Uint16Array }
  | { k: 'delete'; row: number }
  | { k: 'commit' }
  | { k: 'reorg'; kind: ReorgKind }
  | { k: 'end'; index: number; result: PhaseResult };

export class PgCheckError extends Error {}

/** Rows per multi-row INSERT statement. */
const INSERT_BATCH_ROWS = 200;

function diffPct(predicted: number, observed: number | null): number | null {
  if (observed === null) return null;
  if (observed === 0) return predicted === 0 ? 0 : null;
  return Math.round(((observed - predicted) / observed) * 10000) / 100;
}

interface PgCheckOptions {
  /** The scratch schema is named <prefix>_<12 random hex> (default rowsim_check). */
  schemaPrefix?: string;
  label?: string;
  /** The client's backend (SELECT pg_backend_pid()), written into the schema's marker; asked when not given. */
  backendPid?: number;
  /**
   * Told the scratch schema before its CREATE is sent, and undefined once it is dropped. When the check
   * fails without dropping it (the connection is gone), the last schema told is still there to drop
   * from another connection.
   */
  onSchema?: (schema: ScratchSchema | undefined) => void;
}

export async function pgCheck(client: pg.Client, spec: StorageSpec, options: PgCheckOptions = {}): Promise<PgCheckResult> {
  if (spec.engine.format !== postgresHeap.id) throw new PgCheckError(`pg-check compares ${postgresHeap.id}, found ${spec.engine.format}`);
  const layout = pgLayout(spec.table, spec.engine);
  const width = layout.varying.length;
  const notes: string[] = [];
  const version = (await client.query('SHOW server_version')).rows[0].server_version as string;
  const blockSize = Number((await client.query('SHOW block_size')).rows[0].block_size);
  if (blockSize !== spec.engine.page_size) throw new PgCheckError(`the server's block_size is ${blockSize}, the config's page_size ${spec.engine.page_size}`);
  const major = Number(/^(\d+)/.exec(version)?.[1] ?? 0);
  if (major < 15) throw new PgCheckError(`PostgreSQL 15 or later (pg_stat_force_next_flush), found ${version}`);
  const encoding = (await client.query('SHOW server_encoding')).rows[0].server_encoding as string;
  if (spec.engine.encoding === 'utf8' && spec.engine.multibyte_share > 0 && encoding !== 'UTF8') {
    notes.push(`the database encoding is ${encoding}, not UTF8: multi-byte characters will not take 2 bytes`);
  }

  // Record the simulated run (the runner's observer sees exactly what the engine accepted).
  const ops: Op[] = [];
  runStorage(spec, {
    observer: {
      phaseStart: (index, phase) => ops.push({ k: 'phase', index, phase }),
      insert: (row, lens, base) => ops.push({ k: 'insert', row, lens: lens.slice(base, base + width) }),
      update: (row, cols, lens, base) => ops.push({ k: 'update', row, cols, lens: lens.slice(base, base + width) }),
      delete: (row) => ops.push({ k: 'delete', row }),
      commit: () => ops.push({ k: 'commit' }),
      reorg: (kind) => ops.push({ k: 'reorg', kind }),
      phaseEnd: (index, result) => ops.push({ k: 'end', index, result }),
    },
  });

  const cols = columnsSql(spec.table, layout);
  const locatorIdx = spec.table.indexes[0];
  const locator = locatorIdx ? locatorIdx.columns.map((c) => cols.findIndex((x) => x.name.toLowerCase() === c.toLowerCase())) : [];
  if (!locatorIdx && ops.some((o) => o.k === 'update' || o.k === 'delete')) {
    throw new PgCheckError('pg-check finds rows to update or delete through the table\'s first index: add one under table.indexes');
  }
  for (const ci of locator) {
    if (cols[ci]!.type.sql === 'boolean') throw new PgCheckError(`the first index's column ${cols[ci]!.name} is boolean: pg-check needs a key it can make distinct per row`);
  }

  const backendPid = options.backendPid ?? Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  const scratch = await ScratchSchema.create(client, options.schemaPrefix ?? DEFAULT_SCHEMA_PREFIX, backendPid, (s) => options.onSchema?.(s));
  let failed = true;
  try {
    const result = await replay(client, { spec, schema: scratch.name, ops, cols, locator, version, major, notes, label: options.label ?? 'base' });
    failed = false;
    return result;
  } finally {
    await dropScratch(client, scratch, failed, options.onSchema);
  }
}

/**
 * Drop the scratch schema. After a failure the replay's error is the one to report: a failed drop (the
 * connection is gone) is left to the caller, who still holds the schema through onSchema.
 */
async function dropScratch(client: pg.Client, scratch: ScratchSchema, failed: boolean, onSchema: PgCheckOptions['onSchema']): Promise<void> {
  // A failed statement leaves its transaction open and aborted, where a DROP would fail too.
  if (failed) await client.query('ROLLBACK').catch(() => undefined);
  try {
    await scratch.drop(client);
    onSchema?.(undefined);
  } catch (err) {
    if (!failed) throw err;
  }
}

/** What replay() needs: the recorded run, the table's columns and key, the server, where to create the table. */
interface ReplayPlan {
  spec: StorageSpec;
  schema: string;
  ops: Op[];
  cols: ColumnSql[];
  /** Columns of the first index, by which rows are found. */
  locator: number[];
  version: string;
  major: number;
  notes: string[];
  label: string;
}

/** Replay the recorded operations into a table of the scratch schema and compare after every phase. */
function replay(client: pg.Client, plan: ReplayPlan): Promise<PgCheckResult> {
  return new Replay(client, plan).run();
}

type OpOf<K extends Op['k']> = Extract<Op, { k: K }>;

/**
 * One replay: the table on the server, the rows' current versions and keys, the open transaction and the
 * inserts batched into it. Each recorded operation kind is one method.
 */
class Replay {
  private readonly table: string;
  private readonly versions: Int32Array;
  /** The locator columns' current values of each live row (how the row is found). */
  private readonly keyOf = new Map<number, SqlValue[]>();
  private readonly comparisons: Comparison[] = [];
  private indexesBuilt = false;
  private inTxn = false;
  private pendingInserts: SqlValue[][] = [];
  /** pg_stat_user_tables has n_tup_newpage_upd (PostgreSQL 16 on). */
  private hasNewpage: boolean;
  private phaseKind: PhaseSpec | undefined;
  /** The phase commits every row on its own (transaction: row). */
  private perRow = false;

  constructor(
    private readonly client: pg.Client,
    private readonly plan: ReplayPlan,
  ) {
    this.table = `${quoteIdent(plan.schema)}.${quoteIdent(plan.spec.table.name)}`;
    this.versions = new Int32Array(Math.max(16, plan.ops.length));
    this.hasNewpage = plan.major >= 16;
  }

  async run(): Promise<PgCheckResult> {
    const { spec, cols, notes, version, label } = this.plan;
    const colDdl = cols.map((c) => `${c.ident} ${c.type.sql}${c.nullable ? '' : ' NOT NULL'}`).join(', ');
    await this.client.query(`CREATE TABLE ${this.table} (${colDdl}) WITH (fillfactor = ${spec.engine.fillfactor}, autovacuum_enabled = off, toast.autovacuum_enabled = off)`);
    await this.client.query('SET enable_seqscan = off');
    await this.client.query('SET enable_bitmapscan = off');
    await this.client.query('SET enable_tidscan = off');
    for (const op of this.plan.ops) await this.apply(op);
    if (!this.hasNewpage) notes.push(`n_tup_newpage_upd exists from PostgreSQL 16; this server is ${version}`);
    return { label, server_version: version, notes, comparisons: this.comparisons };
  }

  private async apply(op: Op): Promise<void> {
    switch (op.k) {
      case 'phase':
        this.phaseKind = op.phase;
        this.perRow = (op.phase.op === 'update' || op.phase.op === 'delete') && op.phase.transaction === 'row';
        return;
      case 'insert':
        return this.insert(op);
      case 'update':
        return this.update(op);
      case 'delete':
        return this.delete(op);
      case 'commit':
        return this.commit();
      case 'reorg':
        return this.reorg(op);
      case 'end':
        await this.commit();
        await this.buildIndexes(op);
        return this.compare(op);
    }
  }

  private value(ci: number, row: number, lens: Uint16Array): SqlValue {
    const { spec, cols } = this.plan;
    return valueFor(spec.seed, cols[ci]!, ci, row, this.versions[row]!, lens, 0, spec.engine);
  }

  private async begin(): Promise<void> {
    if (this.perRow || this.inTxn) return;
    await this.client.query('BEGIN');
    this.inTxn = true;
  }

  private async flushInserts(): Promise<void> {
    if (this.pendingInserts.length === 0) return;
    const params: SqlValue[] = [];
    const tuples = this.pendingInserts.map((vals) => `(${vals.map((v) => (params.push(v), `$${params.length}`)).join(', ')})`);
    await this.client.query(`INSERT INTO ${this.table} VALUES ${tuples.join(', ')}`, params);
    this.pendingInserts = [];
  }

  /** The WHERE clause that finds `row` by its locator columns; their values go to `params`. */
  private where(row: number, params: SqlValue[]): string {
    const key = this.keyOf.get(row)!;
    return this.plan.locator.map((ci, j) => (params.push(key[j]!), `${this.plan.cols[ci]!.ident} = $${params.length}`)).join(' AND ');
  }

  private async insert(op: OpOf<'insert'>): Promise<void> {
    await this.begin();
    const vals = this.plan.cols.map((_, ci) => this.value(ci, op.row, op.lens));
    this.keyOf.set(op.row, this.plan.locator.map((ci) => vals[ci]!));
    this.pendingInserts.push(vals);
    if (this.pendingInserts.length >= INSERT_BATCH_ROWS) await this.flushInserts();
  }

  private async update(op: OpOf<'update'>): Promise<void> {
    await this.begin();
    const params: SqlValue[] = [];
    const cond = this.where(op.row, params);
    this.versions[op.row]!++;
    const sets: string[] = [];
    const key = this.keyOf.get(op.row)!;
    for (const c of op.cols) {
      const v = this.value(c.index, op.row, op.lens);
      params.push(v);
      sets.push(`${this.plan.cols[c.index]!.ident} = $${params.length}`);
      const j = this.plan.locator.indexOf(c.index);
      if (j >= 0) key[j] = v;
    }
    await this.client.query(`UPDATE ${this.table} SET ${sets.join(', ')} WHERE ${cond}`, params);
  }

  private async delete(op: OpOf<'delete'>): Promise<void> {
    await this.begin();
    const params: SqlValue[] = [];
    await this.client.query(`DELETE FROM ${this.table} WHERE ${this.where(op.row, params)}`, params);
    this.keyOf.delete(op.row);
  }

  private async commit(): Promise<void> {
    await this.flushInserts();
    if (!this.inTxn) return;
    await this.client.query('COMMIT');
    this.inTxn = false;
  }

  private async reorg(op: OpOf<'reorg'>): Promise<void> {
    if (op.kind === 'vacuum' || op.kind === 'compact') await this.client.query(`VACUUM (INDEX_CLEANUP ON) ${this.table}`);
    else if (op.kind === 'rebuild') await this.client.query(`VACUUM FULL ${this.table}`);
    else this.plan.notes.push(`reorg ${op.kind} has no PostgreSQL counterpart: skipped`);
  }

  /** The indexes are built once the table has rows (as the simulation builds them after the first insert phase). */
  private async buildIndexes(op: OpOf<'end'>): Promise<void> {
    if (this.indexesBuilt || (op.result.metrics.rows ?? 0) === 0) return;
    const { spec, cols } = this.plan;
    for (const idx of spec.table.indexes) {
      const list = idx.columns.map((c) => quoteIdent(cols.find((x) => x.name.toLowerCase() === c.toLowerCase())!.name)).join(', ');
      const withFill = idx.fillfactor !== undefined && idx.fillfactor >= 10 ? ` WITH (fillfactor = ${Math.trunc(idx.fillfactor)})` : '';
      await this.client.query(`CREATE ${idx.unique ? 'UNIQUE ' : ''}INDEX ${quoteIdent(idx.name)} ON ${this.table} (${list})${withFill}`);
    }
    this.indexesBuilt = true;
  }

  /** The phase's predicted figures beside what the server reports now. */
  private async compare(op: OpOf<'end'>): Promise<void> {
    const { spec, schema } = this.plan;
    const m = op.result.metrics;
    const obs = await observe(this.client, schema, spec.table.name, spec.table.indexes.map((i) => i.name), this.hasNewpage);
    if (obs.newpage === undefined) this.hasNewpage = false;
    const add = (name: string, predicted: number, observed: number | null) =>
      this.comparisons.push({ phase: op.index, label: op.result.label, metric: name, predicted, observed, diff_pct: diffPct(predicted, observed) });
    add('heap_pages', m.pages, obs.heapPages);
    if (this.phaseKind?.op === 'update' || m.updates > 0) {
      add('updates', m.updates, obs.updates);
      add('hot_updates', m.hot_updates, obs.hotUpdates);
      add('newpage_updates', metric(m, 'newpage_updates'), obs.newpage ?? null);
    }
    for (const [name, pages] of Object.entries(op.result.index_pages.by_index)) add(`index_pages.${name}`, pages, obs.indexPages[name] ?? null);
    add('fsm_pages', metric(m, 'fsm_pages'), obs.fsmPages);
    add('vm_pages', metric(m, 'vm_pages'), obs.vmPages);
  }
}

async function observe(
  client: pg.Client,
  schema: string,
  table: string,
  indexes: string[],
  withNewpage: boolean,
): Promise<{ heapPages: number; fsmPages: number; vmPages: number; indexPages: Record<string, number>; updates: number; hotUpdates: number; newpage?: number }> {
  const rel = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const heap = await client.query(
    `SELECT pg_relation_size($1::regclass) / b AS pages, pg_relation_size($1::regclass, 'fsm') / b AS fsm, pg_relation_size($1::regclass, 'vm') / b AS vm FROM (SELECT current_setting('block_size')::int AS b) s`,
    [rel],
  );
  const indexPages: Record<string, number> = {};
  for (const name of indexes) {
    const r = await client.query(`SELECT pg_relation_size($1::regclass) / current_setting('block_size')::int AS pages`, [`${quoteIdent(schema)}.${quoteIdent(name)}`]);
    indexPages[name] = Number(r.rows[0].pages);
  }
  // Counters reach pg_stat_user_tables when the backend goes idle: force it, then read in a new statement.
  await client.query('SELECT pg_stat_force_next_flush()');
  await client.query('SELECT pg_stat_clear_snapshot()');
  const cols = `n_tup_upd, n_tup_hot_upd${withNewpage ? ', n_tup_newpage_upd' : ''}`;
  let st;
  try {
    st = await client.query(`SELECT ${cols} FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2`, [schema, table]);
  } catch {
    st = await client.query('SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2', [schema, table]);
    withNewpage = false;
  }
  const row = st.rows[0] ?? {};
  return {
    heapPages: Number(heap.rows[0].pages),
    fsmPages: Number(heap.rows[0].fsm),
    vmPages: Number(heap.rows[0].vm),
    indexPages,
    updates: Number(row.n_tup_upd ?? 0),
    hotUpdates: Number(row.n_tup_hot_upd ?? 0),
    newpage: withNewpage ? Number(row.n_tup_newpage_upd ?? 0) : undefined,
  };
}

