/**
 * pg-check: run a config's table and workload on a live PostgreSQL and put the simulator's prediction
 * beside what the server stores. The simulation runs first with an observer that records every
 * operation the engine accepted (runner.ts, one code path for both); plan.ts numbers the values and
 * refuses what cannot be replayed faithfully; the same rows, changes and transaction boundaries are then
 * replayed as SQL:
 *   - CREATE TABLE … WITH (fillfactor, autovacuum off), character columns COLLATE "C" (keys sort as
 *     they are made); indexes created after the first phase that leaves rows (as the simulator builds
 *     them: CREATE INDEX on the loaded table);
 *   - inserts as multi-row INSERTs in one transaction per phase; updates and deletes one statement per
 *     row through the first index (index scans forced, so pages are pruned on access as an application
 *     finding rows by key would), in one transaction per phase or per row as the phase says; every
 *     UPDATE and DELETE must find exactly its one row; INSERT, UPDATE, DELETE as prepared statements;
 *   - vacuum → VACUUM (INDEX_CLEANUP ON); rebuild → VACUUM FULL;
 *   - select → the same rows, in the same order, as many times, through the same access path
 *     (select.ts), the server's plan of its first statement explained; its reads are the difference of
 *     the table's read counters around the phase's statements (observe.ts readCounters).
 * After each phase (observe.ts): the heap's, its forks', each index's and the TOAST relation's pages,
 * n_tup_upd, n_tup_hot_upd, n_tup_newpage_upd (16+; before 16 counted from the rows' ctid blocks),
 * and pgstattuple's live and dead tuples and free space where the extension is installed.
 * Everything lives in a scratch schema of its own (scratch.ts), dropped when the check ends, failed or
 * not. A statement the server refuses ends the check with a PgServerError naming the phase and the row.
 */
import type pg from 'pg';
import type { PhaseSpec, StorageSpec } from '../config/spec.js';
import { pgLayout, postgresHeap } from '../formats/postgres.js';
import { metric } from '../heap/metrics.js';
import { PgCheckError, PgServerError, type ReplayPlace } from './errors.js';
import {
  findPgstattuple,
  observe,
  otherSnapshots,
  readComparisons,
  readCounters,
  type Observation,
  type Pgstattuple,
  type ReadCounters,
} from './observe.js';
import { auditValues, checkAudit, checkReads, numberValues, recordRun, setBasedKey, ValueStream, type Op } from './plan.js';
import { phaseReplays, type PhaseReplay } from './fidelity.js';
import { runSetStatement, stageName, type SetStatement } from './statement.js';
import { ScratchSchema } from './scratch.js';
import { diffs, type Comparison, type PgCheckResult, type PlanCheck } from './result.js';
import { acceptedRefusal, compareRefusal, type RefusalCheck } from './refusal.js';
import { checkForms, createIndexSql, isRowWrite, RowUndo, sameColumnsOf, SnapshotHolder } from './forms.js';
import { createScratch, deallocate, query, serverFacts, statementNamer } from './setup.js';
import {
  keyColumnOf,
  plansAgree,
  REPLAY_SETTINGS,
  SelectReplay,
  serverPlan,
  settingChanges,
  type ReadStatement,
  type SelectPhase,
} from './select.js';
import { columnDdlType, columnsSql, quoteIdent, type ColumnSql, type SqlValue } from './values.js';
import { longValueNotes, settingsOf } from './describe.js';
import { groupedNumber } from '../util/numbers.js';

export { PgCheckError, PgServerError };

export type { Comparison, PgCheckResult, PlanCheck };

/** Rows per multi-row INSERT statement (fewer for wide tables: at most 65,535 parameters a statement). */
const INSERT_BATCH_ROWS = 200;
const MAX_PARAMS = 65_535;

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

/** A storage point's replay, decided without a server: the recorded run, its values, how rows are found, the audit's notes. */
interface CheckPlan {
  cols: ColumnSql[];
  ops: Op[];
  totals: Float64Array;
  rows: number;
  minCaps: Float64Array;
  locator: number[];
  /** The place among the locator's columns of the one set-based phases match rows by (-1: none). */
  stageKey: number;
  notes: string[];
  /** Each phase's replay: the config's statement or an approximation, and why (fidelity.ts). */
  replays: PhaseReplay[];
}

/**
 * Run the simulation of a storage point and audit the values the replay would send; a PgCheckError
 * when it cannot be replayed faithfully (the CLI asks this of every point before it connects).
 */
export function planCheck(spec: StorageSpec): CheckPlan {
  if (spec.engine.format !== postgresHeap.id) throw new PgCheckError(`pg-check compares ${postgresHeap.id}, found ${spec.engine.format}`);
  const layout = pgLayout(spec.table, spec.engine);
  const cols = columnsSql(spec.table, layout, spec.engine);
  const ops = recordRun(spec, layout.varying.length);
  const totals = numberValues(ops, cols.length);
  const rows = 1 + ops.reduce((m, o) => (o.k === 'insert' && o.row > m ? o.row : m), -1);
  const minCaps = ValueStream.minCapacities(cols, spec.seed, totals, ops);
  const locatorIdx = spec.table.indexes[0];
  const locator = locatorIdx ? locatorIdx.columns.map((c) => cols.findIndex((x) => x.name.toLowerCase() === c.toLowerCase())) : [];
  const needLocator = ops.some((o) => o.k === 'update' || o.k === 'delete');
  if (!locatorIdx && needLocator) {
    throw new PgCheckError("pg-check finds rows to update or delete through the table's first index: add one under table.indexes");
  }
  const audit = auditValues(new ValueStream(cols, spec.seed, totals, rows, minCaps), ops);
  const notes = checkAudit(spec.table, cols, audit, locator, needLocator);
  checkReads(spec, cols, audit);
  checkForms(spec.workload);
  const stageKey = setBasedKey(spec, cols, audit, locator);
  notes.push(...longValueNotes(spec));
  return { cols, ops, totals, rows, minCaps, locator, stageKey, notes, replays: phaseReplays(spec) };
}

export async function pgCheck(client: pg.Client, spec: StorageSpec, options: PgCheckOptions = {}): Promise<PgCheckResult> {
  if (spec.engine.format !== postgresHeap.id) throw new PgCheckError(`pg-check compares ${postgresHeap.id}, found ${spec.engine.format}`);
  const notes: string[] = [];
  const { version, major, emptyToast } = await serverFacts(client, spec, notes);
  // The simulated run as the engine accepted it, every value numbered and audited before anything is created.
  const { cols, ops, totals, rows, minCaps, locator, stageKey, notes: audited, replays } = planCheck(spec);
  notes.push(...audited);
  const stattuple = await findPgstattuple(client);
  if (!stattuple.usable) notes.push(stattuple.why);
  const scratch = await createScratch(client, options);
  let failed = true;
  let prepared: string[] = [];
  try {
    const stream = new ValueStream(cols, spec.seed, totals, rows, minCaps);
    const label = options.label ?? 'base';
    const r = new Replay(client, {
      ...{ spec, schema: scratch.name, ops, cols, locator, stageKey, stream, rows, version, major },
      ...{ notes, stattuple, emptyToast, label, replays },
    });
    try {
      const result = await r.run();
      failed = false;
      return result;
    } finally {
      await r.releaseSnapshot();
      prepared = r.preparedNames();
    }
  } finally {
    await dropScratch(client, scratch, failed, options.onSchema);
    await deallocate(client, prepared).catch(() => undefined);
  }
}

/**
 * Drop the scratch schema. After a failure the replay's error is the one to report: a failed drop (the
 * connection is gone) is left to the caller, who still holds the schema through onSchema.
 */
async function dropScratch(
  client: pg.Client,
  scratch: ScratchSchema,
  failed: boolean,
  onSchema: PgCheckOptions['onSchema'],
): Promise<void> {
  // A failed statement leaves its transaction open and aborted, where a DROP would fail too.
  if (failed) await client.query('ROLLBACK').catch(() => undefined);
  try {
    await scratch.drop(client);
    onSchema?.(undefined);
  } catch (err) {
    if (!failed) throw PgServerError.from(err, { where: 'dropping the scratch schema' }) ?? err;
  }
}

/** What a replay needs: the recorded run and its values, the table's columns and key, the server, where to create the table. */
interface ReplayPlan {
  spec: StorageSpec;
  schema: string;
  ops: Op[];
  cols: ColumnSql[];
  /** Columns of the first index, by which rows are found; the place among them of the one set-based phases match by. */
  locator: number[];
  stageKey: number;
  stream: ValueStream;
  /** Row ids run from 0 to rows − 1. */
  rows: number;
  version: string;
  major: number;
  notes: string[];
  stattuple: Pgstattuple;
  /** The server gives the table an empty TOAST relation the model does not (a latin1 config on a UTF8 database). */
  emptyToast: boolean;
  label: string;
  replays: PhaseReplay[];
}

type OpOf<K extends Op['k']> = Extract<Op, { k: K }>;

/** The block and offset of a ctid '(block,offset)'. */
function ctidParts(ctid: string): [number, number] {
  const m = /^\((\d+),(\d+)\)$/.exec(ctid)!;
  return [Number(m[1]), Number(m[2])];
}

/**
 * One replay: the table on the server, the rows' keys and blocks, the open transaction and the inserts
 * batched into it. Each recorded operation kind is one method.
 */
class Replay {
  private readonly table: string;
  /** The locator columns' current values of each live row (how the row is found). */
  private readonly keyOf = new Map<number, SqlValue[]>();
  /** The block and offset of each row's current version (ctid): updates that moved to another page, row-id fetches. */
  private readonly blockOf: Int32Array;
  private readonly offsetOf: Int32Array;
  /** The current values of the columns select phases find rows by (column → value of each row). */
  private readonly tracked = new Map<number, SqlValue[]>();
  private liveRows = 0;
  /** The select phase being replayed, and its read counters before its first statement (null: not observed). */
  private select: SelectReplay | null = null;
  private window: { before: ReadCounters | null } | null = null;
  private readonly plans: PlanCheck[] = [];
  /** Whether the server counts reads (track_counts), asked at the first select phase. */
  private countsReads: boolean | undefined;
  private cacheNoted = false;
  private newpageByCtid = 0;
  private readonly comparisons: Comparison[] = [];
  private readonly labels = new Map<number, string>();
  private indexesBuilt = false;
  private inTxn = false;
  private pendingInserts: { row: number; values: SqlValue[] }[] = [];
  private readonly batchRows: number;
  /** Blocks are tracked when the workload has updates or row-id fetches. */
  private readonly trackBlocks: boolean;
  private phaseKind: PhaseSpec | undefined;
  private phaseIndex = -1;
  /** The phase commits every row on its own (transaction: row). */
  private perRow = false;
  private newpageDisagrees = false;
  /** The update or delete phase being replayed as one statement (via: scan or range), its rows gathered until its commit. */
  private setPhase: SetStatement | null = null;
  private toastNoted = false;
  /** Phases at whose start or end another session of the database held a snapshot, and those sessions. */
  private readonly heldBack = new Set<number>();
  private readonly holders = new Set<number>();
  /** The session holding the config's snapshot (open_snapshot … close_snapshot). */
  private readonly holder = new SnapshotHolder();
  /** The phase's transactions end in ROLLBACK: how to put back what the replay knows of each row the open one changed. */
  private readonly undo = new RowUndo({
    keyOf: this.keyOf,
    tracked: this.tracked,
    rowPlace: () => [this.blockOf, this.offsetOf],
    stream: () => this.plan.stream,
    addLive: (d) => (this.liveRows += d),
  });
  /** Columns the update phase writes back unchanged (`same`). */
  private sameColumns: number[] = [];

  constructor(
    private readonly client: pg.Client,
    private readonly plan: ReplayPlan,
  ) {
    this.table = `${quoteIdent(plan.schema)}.${quoteIdent(plan.spec.table.name)}`;
    this.blockOf = new Int32Array(Math.max(1, plan.rows));
    this.offsetOf = new Int32Array(Math.max(1, plan.rows));
    this.batchRows = Math.max(1, Math.min(INSERT_BATCH_ROWS, Math.floor(MAX_PARAMS / Math.max(1, plan.cols.length))));
    const selects = plan.spec.workload.flatMap((p) => (p.op === 'select' ? [p] : []));
    this.trackBlocks = plan.ops.some((o) => o.k === 'update') || selects.some((p) => p.via === 'rowid');
    for (const p of selects) {
      const ci = keyColumnOf(plan.spec, p, plan.cols);
      if (ci >= 0 && !this.tracked.has(ci)) this.tracked.set(ci, new Array<SqlValue>(plan.rows).fill(null));
    }
    for (const o of plan.ops) if (o.k === 'end') this.labels.set(o.index, o.result.label);
  }

  private place(row?: string): ReplayPlace {
    if (this.phaseIndex < 0) return { where: 'creating the table' };
    return { where: `phase ${this.phaseIndex + 1} (${this.labels.get(this.phaseIndex) ?? this.phaseKind?.op})`, ...(row ? { row } : {}) };
  }

  private q(text: string, params?: unknown[], row?: string): Promise<pg.QueryResult> {
    return query(this.client, this.place(row), text, params);
  }

  private readonly namer = statementNamer();
  /** The names of the prepared statements the replay made (deallocated when it ends). */
  preparedNames(): string[] {
    return this.namer.names();
  }
  /** A row's INSERT, UPDATE or DELETE: a named prepared statement (setup.ts statementNamer). */
  private prepared(text: string, params: unknown[], row?: string): Promise<pg.QueryResult> {
    return query(this.client, this.place(row), text, params, this.namer.name(text));
  }

  async run(): Promise<PgCheckResult> {
    const { spec, cols, notes, version, label } = this.plan;
    const colDdl = cols.map((c) => `${c.ident} ${columnDdlType(c)}${c.nullable ? '' : ' NOT NULL'}`).join(', ');
    const target = spec.engine.toast_tuple_target > 0 ? `, toast_tuple_target = ${spec.engine.toast_tuple_target}` : '';
    await this.q(
      `CREATE TABLE ${this.table} (${colDdl}) WITH (fillfactor = ${spec.engine.fillfactor}${target}, autovacuum_enabled = off, toast.autovacuum_enabled = off)`,
    );
    // A column's storage as the config gives it (SET STORAGE: CREATE TABLE takes it from PostgreSQL 16 on).
    for (const c of spec.table.columns) {
      if (c.storage !== undefined)
        await this.q(`ALTER TABLE ${this.table} ALTER COLUMN ${quoteIdent(c.name)} SET STORAGE ${c.storage.toUpperCase()}`);
    }
    // Rows are found through the index, as an application finds them by key (select.ts REPLAY_SETTINGS); money
    // reads '1234.56'; values are compressed with the config's method.
    for (const s of [
      ...settingChanges({}, REPLAY_SETTINGS),
      "SET lc_monetary = 'C'",
      `SET default_toast_compression = ${spec.engine.default_toast_compression}`,
    ])
      await this.q(s);
    // when: before_load: the indexes on the empty table, before the first phase.
    if (spec.table.indexes[0]?.when === 'before_load') await this.buildIndexes(Infinity);
    const refusal = await this.applyAll();
    if (this.plan.major < 16)
      notes.push(
        `n_tup_newpage_upd exists from PostgreSQL 16; this server is ${version}: new-page updates are counted from the rows' ctid blocks`,
      );
    if (this.newpageDisagrees)
      notes.push(`n_tup_newpage_upd and the rows' ctid blocks disagree on new-page updates (the table shows n_tup_newpage_upd)`);
    if (this.heldBack.size > 0) {
      notes.push(
        `another session of this database held a snapshot at the start or end of phase${this.heldBack.size > 1 ? 's' : ''} ${[...this.heldBack].map((p) => p + 1).join(', ')} (pid ${[...this.holders].join(', ')}): PostgreSQL keeps every version such a session may still see, so pruning and VACUUM remove less than on a quiet server and dead tuples, free space, HOT updates and pages can differ from the prediction; check on a database nobody else uses`,
      );
    }
    return {
      label,
      table: spec.table.name,
      settings: settingsOf(spec),
      server_version: version,
      notes,
      comparisons: this.comparisons,
      plans: this.plans,
      replays: this.plan.replays,
      ...(refusal ? { refusal } : {}),
    };
  }

  /** Every recorded op; where the simulation stopped at a statement the server refuses, the server's error beside it. */
  private async applyAll(): Promise<RefusalCheck | undefined> {
    const last = this.plan.ops[this.plan.ops.length - 1];
    const predicted = last?.k === 'refused' ? last.refusal : undefined;
    try {
      for (const op of this.plan.ops) await this.apply(op);
    } catch (err) {
      if (!predicted || !(err instanceof PgServerError)) throw err;
      // The failed statement aborted its transaction.
      await this.client.query('ROLLBACK').catch(() => undefined);
      this.inTxn = false;
      return compareRefusal(predicted, err, this.phaseIndex);
    }
    return predicted ? acceptedRefusal(predicted) : undefined;
  }

  private async apply(op: Op): Promise<void> {
    switch (op.k) {
      case 'phase':
        this.phaseKind = op.phase;
        this.phaseIndex = op.index;
        // A row a transaction in autocommit; a transaction that ends in ROLLBACK is opened with BEGIN.
        this.perRow = isRowWrite(op.phase) && op.phase.transaction === 'row' && op.phase.rollback !== true;
        this.setPhase = this.startSetPhase(op.phase, op.index);
        this.undo.start(isRowWrite(op.phase) && op.phase.rollback === true);
        this.sameColumns = op.phase.op === 'update' ? sameColumnsOf(op.phase, this.plan.cols) : [];
        // open_snapshot, close_snapshot: the second session's snapshot (forms.ts SnapshotHolder).
        if (op.phase.op === 'snapshot')
          await this.holder.apply(op.phase.action, this.client).catch((err: unknown) => {
            throw PgServerError.from(err, this.place(`the session that holds the snapshot (${op.phase.op})`)) ?? err;
          });
        await this.lookForSnapshots();
        if (op.phase.op === 'select') await this.startSelect(op.phase);
        return;
      case 'insert':
        return this.insert(op);
      case 'update':
        return this.update(op);
      case 'delete':
        return this.delete(op);
      case 'commit':
        this.undo.clear();
        return this.commit();
      case 'rollback':
        return this.rollback();
      case 'reorg':
        return this.reorg(op);
      case 'read':
        return this.read(op);
      case 'scan':
        return this.scan(op);
      case 'refused':
        // The statement the simulation stopped at: the last rows' INSERT (sent now), the CREATE INDEX; an UPDATE went already.
        await this.commit();
        return op.refusal.step === 'create index' ? this.buildIndexes(Infinity) : undefined;
      case 'end':
        await this.commit();
        if (this.select) await this.endSelect(op);
        await this.buildIndexes(op.result.metrics.rows ?? 0);
        await this.lookForSnapshots();
        return this.compare(op);
    }
  }

  /** Another session holding a snapshot now holds back pruning and VACUUM: noted for this phase. */
  private async lookForSnapshots(): Promise<void> {
    let pids: number[];
    try {
      pids = await otherSnapshots(this.client);
    } catch (err) {
      throw PgServerError.from(err, this.place('looking for other sessions')) ?? err;
    }
    pids = pids.filter((p) => p !== this.holder.pid);
    if (pids.length === 0) return;
    this.heldBack.add(this.phaseIndex);
    for (const p of pids) this.holders.add(p);
  }

  private async begin(): Promise<void> {
    if (this.perRow || this.inTxn) return;
    await this.q('BEGIN');
    this.inTxn = true;
  }

  private async flushInserts(): Promise<void> {
    const batch = this.pendingInserts;
    if (batch.length === 0) return;
    this.pendingInserts = [];
    const params: SqlValue[] = [];
    const tuples = batch.map(({ values }) => `(${values.map((v) => (params.push(v), `$${params.length}`)).join(', ')})`);
    const rows =
      batch.length === 1
        ? `row ${batch[0]!.row} (its INSERT)`
        : `rows ${batch[0]!.row}–${batch[batch.length - 1]!.row} (one INSERT of ${batch.length} rows)`;
    // RETURNING gives the rows in the order of the VALUES list: the executor inserts them in that order.
    const r = await this.prepared(
      `INSERT INTO ${this.table} VALUES ${tuples.join(', ')}${this.trackBlocks ? ' RETURNING ctid' : ''}`,
      params,
      rows,
    );
    if (this.trackBlocks) {
      if (r.rows.length !== batch.length)
        throw new PgCheckError(`${this.place().where}, ${rows}: the INSERT returned ${r.rows.length} rows`);
      batch.forEach(({ row }, i) => this.setCtid(row, r.rows[i].ctid as string));
    }
  }

  /** The WHERE clause that finds `row` by its locator columns (IS NULL for a NULL part); their values go to `params`. */
  private where(row: number, params: SqlValue[]): string {
    const key = this.keyOf.get(row)!;
    return this.plan.locator
      .map((ci, j) => {
        const ident = this.plan.cols[ci]!.ident;
        if (key[j] === null) return `${ident} IS NULL`;
        params.push(key[j]!);
        return `${ident} = $${params.length}`;
      })
      .join(' AND ');
  }

  private async insert(op: OpOf<'insert'>): Promise<void> {
    await this.begin();
    this.undo.note(op.row);
    const values = this.plan.stream.insert(op);
    this.keyOf.set(
      op.row,
      this.plan.locator.map((ci) => values[ci]!),
    );
    for (const [ci, of] of this.tracked) of[op.row] = values[ci]!;
    this.liveRows++;
    this.pendingInserts.push({ row: op.row, values });
    if (this.pendingInserts.length >= this.batchRows) await this.flushInserts();
  }

  /** Exactly one row changed, or the replay has lost its row (its key no longer finds it). */
  private expectOne(r: pg.QueryResult, what: string, row: number): void {
    if (r.rowCount !== 1)
      throw new PgCheckError(
        `${this.place().where}, row ${row}: its ${what} changed ${r.rowCount ?? 0} rows instead of 1 (the replay found the row by its key ${this.plan.spec.table.indexes[0]!.name})`,
      );
  }

  private async update(op: OpOf<'update'>): Promise<void> {
    if (this.setPhase) return this.stageUpdate(op, this.setPhase);
    await this.begin();
    this.undo.note(op.row);
    const params: SqlValue[] = [];
    const cond = this.where(op.row, params);
    const { values } = this.plan.stream.update(op);
    const key = this.keyOf.get(op.row)!;
    // `same`: the row's own value written back (SET c = c).
    const same = this.sameColumns.map((ci) => `${this.plan.cols[ci]!.ident} = ${this.plan.cols[ci]!.ident}`);
    const sets = op.cols.map((c, j) => {
      params.push(values[j]!);
      const k = this.plan.locator.indexOf(c.index);
      if (k >= 0) key[k] = values[j]!;
      const tracked = this.tracked.get(c.index);
      if (tracked) tracked[op.row] = values[j]!;
      return `${this.plan.cols[c.index]!.ident} = $${params.length}`;
    });
    const r = await this.prepared(
      `UPDATE ${this.table} SET ${[...sets, ...same].join(', ')} WHERE ${cond} RETURNING ctid`,
      params,
      `row ${op.row} (its UPDATE)`,
    );
    this.expectOne(r, 'UPDATE', op.row);
    const before = this.blockOf[op.row];
    this.setCtid(op.row, r.rows[0].ctid as string);
    if (this.blockOf[op.row] !== before) this.newpageByCtid++;
  }

  private async delete(op: OpOf<'delete'>): Promise<void> {
    if (this.setPhase) return this.stageDelete(op, this.setPhase);
    await this.begin();
    this.undo.note(op.row);
    const params: SqlValue[] = [];
    const r = await this.prepared(`DELETE FROM ${this.table} WHERE ${this.where(op.row, params)}`, params, `row ${op.row} (its DELETE)`);
    this.expectOne(r, 'DELETE', op.row);
    this.keyOf.delete(op.row);
    this.liveRows--;
  }

  private async commit(): Promise<void> {
    if (this.setPhase && this.setPhase.rows.length > 0) await this.runSetPhase(this.setPhase);
    await this.flushInserts();
    if (!this.inTxn) return;
    await this.q('COMMIT', undefined, 'its COMMIT');
    this.inTxn = false;
  }

  /** ROLLBACK of the open transaction: the rows as they were before it. */
  private async rollback(): Promise<void> {
    await this.flushInserts();
    this.undo.rollback();
    if (!this.inTxn) return;
    await this.q('ROLLBACK', undefined, 'its ROLLBACK');
    this.inTxn = false;
  }

  releaseSnapshot(): Promise<void> {
    return this.holder.release();
  }

  /** A phase that reaches its rows in one statement (via: scan or range): gathered, sent at its commit (statement.ts). */
  private startSetPhase(phase: PhaseSpec, index: number): SetStatement | null {
    if ((phase.op !== 'update' && phase.op !== 'delete') || (phase.via ?? 'index') === 'index') return null;
    const { cols, locator, stageKey, schema } = this.plan;
    const via = phase.via as 'scan' | 'range';
    const key = cols[locator[stageKey]!]!;
    const setCols = phase.op === 'update' ? Object.keys(phase.set).map((n) => cols.find((c) => c.name === n)!) : [];
    const lead = cols[locator[0]!]!;
    const stage = stageName(schema, index);
    return {
      op: phase.op,
      via,
      table: this.table,
      stage,
      key,
      lead,
      cols: setCols,
      keyChanged: setCols.indexOf(key),
      rows: [],
      liveAtStart: this.liveRows,
    };
  }

  private stageUpdate(op: OpOf<'update'>, s: SetStatement): void {
    const key = this.keyOf.get(op.row)!;
    const row = { row: op.row, key: key[this.plan.stageKey]!, lead: key[0]!, values: [] as SqlValue[] };
    const { values } = this.plan.stream.update(op);
    const byName = new Map(op.cols.map((c, j) => [c.index, values[j]!]));
    row.values = s.cols.map((c) => byName.get(this.plan.cols.indexOf(c)) ?? null);
    op.cols.forEach((c, j) => {
      const k = this.plan.locator.indexOf(c.index);
      if (k >= 0) key[k] = values[j]!;
      const tracked = this.tracked.get(c.index);
      if (tracked) tracked[op.row] = values[j]!;
    });
    s.rows.push(row);
  }

  private stageDelete(op: OpOf<'delete'>, s: SetStatement): void {
    const key = this.keyOf.get(op.row)!;
    s.rows.push({ row: op.row, key: key[this.plan.stageKey]!, lead: key[0]!, values: [] });
    this.keyOf.delete(op.row);
    this.liveRows--;
  }

  /** The gathered phase as its one statement, in a transaction of its own; the rows' new blocks. */
  private async runSetPhase(s: SetStatement): Promise<void> {
    const q = (text: string, params?: unknown[], row?: string) => this.q(text, params, row);
    const out = await runSetStatement(q, s, this.plan.spec.table.name, this.batchRows, this.place().where);
    for (const [row, ctid] of out.ctids) {
      const before = this.blockOf[row];
      this.setCtid(row, ctid);
      if (this.blockOf[row] !== before) this.newpageByCtid++;
    }
    s.rows = [];
  }

  private async reorg(op: OpOf<'reorg'>): Promise<void> {
    if (op.kind === 'vacuum' || op.kind === 'compact') await this.q(`VACUUM (INDEX_CLEANUP ON) ${this.table}`);
    else if (op.kind === 'rebuild') {
      await this.q(`VACUUM FULL ${this.table}`);
      // VACUUM FULL rewrites every row: their blocks are read again.
      if (this.trackBlocks) await this.readBlocks();
    } else this.plan.notes.push(`reorg ${op.kind} has no PostgreSQL counterpart: skipped`);
  }

  /** Every live row's block after a rewrite, found by its key. */
  private async readBlocks(): Promise<void> {
    for (const row of this.keyOf.keys()) {
      const params: SqlValue[] = [];
      const r = await this.q(
        `SELECT ctid FROM ${this.table} WHERE ${this.where(row, params)}`,
        params,
        `row ${row} (reading its ctid after VACUUM FULL)`,
      );
      if (r.rows.length !== 1)
        throw new PgCheckError(`${this.place().where}, row ${row}: found ${r.rows.length} rows by its key after VACUUM FULL instead of 1`);
      this.setCtid(row, r.rows[0].ctid as string);
    }
  }

  private setCtid(row: number, ctid: string): void {
    const [block, offset] = ctidParts(ctid);
    this.blockOf[row] = block;
    this.offsetOf[row] = offset;
  }

  /** A select phase begins: its planner settings, and once, whether the server counts reads and what its cache is. */
  private async startSelect(phase: SelectPhase): Promise<void> {
    const { spec, cols, notes } = this.plan;
    this.select = new SelectReplay(spec, phase, cols, this.table);
    this.window = null;
    for (const set of settingChanges(REPLAY_SETTINGS, this.select.settings)) await this.q(set);
    if (this.countsReads === undefined) {
      this.countsReads = (await this.q('SHOW track_counts')).rows[0].track_counts === 'on';
      if (!this.countsReads)
        notes.push("track_counts is off on this server: it counts no reads, and the select phases' read counters are not observed (n/a)");
    }
    if (spec.cache && !this.cacheNoted) {
      this.cacheNoted = true;
      const sb = Number(
        (await this.q(`SELECT pg_size_bytes(current_setting('shared_buffers')) / current_setting('block_size')::int AS pages`)).rows[0]
          .pages,
      );
      notes.push(
        `the config reads through a cache of ${groupedNumber(spec.cache.pages)} pages (${spec.cache.policy}); the server's shared_buffers holds ${groupedNumber(sb)} pages${sb === spec.cache.pages ? '' : ' (not the same size)'}. The server's split of heap_blks and idx_blks into read and hit depends on shared_buffers, on what it already holds (the replay's own inserts and updates left the table there; the model's cache starts empty at the first read phase) and on the operating system's cache (a read from it is a "read" too): only heap_blks_fetched and idx_blks_fetched (read + hit) check the model`,
      );
    }
  }

  /** A row fetched: one statement. */
  private async read(op: OpOf<'read'>): Promise<void> {
    const sel = this.select!;
    const key = sel.keyColumn >= 0 ? this.tracked.get(sel.keyColumn)![op.row]! : null;
    const st = sel.read(key, `(${this.blockOf[op.row]},${this.offsetOf[op.row]})`);
    await this.openWindow(st);
    await this.runRead(st, `row ${op.row} (its SELECT)`);
  }

  /** A table scan: one statement. */
  private async scan(op: OpOf<'scan'>): Promise<void> {
    const sel = this.select!;
    const of = sel.keyColumn >= 0 ? this.tracked.get(sel.keyColumn)! : null;
    const keys = of ? Array.from(op.rows, (r) => of[r]!) : [];
    const st = sel.scan(keys, new Set(op.rows).size, this.liveRows);
    await this.openWindow(st);
    await this.runRead(st, op.rows.length === 1 ? `row ${op.rows[0]} (its SELECT)` : `its scan of ${op.rows.length} rows`);
  }

  /**
   * Before the phase's first statement: the server's plan of it (EXPLAIN does not execute; its planning
   * reads no heap page), then the read counters, so that the phase's reads are those of its statements.
   */
  private async openWindow(st: ReadStatement | undefined): Promise<void> {
    if (this.window) return;
    const sel = this.select!;
    if (st) {
      const ex = await this.q(`EXPLAIN (FORMAT JSON) ${st.text}`, st.params, 'its EXPLAIN');
      const server = serverPlan(ex.rows[0]['QUERY PLAN'], this.plan.spec.table.name);
      this.plans.push({
        phase: this.phaseIndex,
        label: this.labels.get(this.phaseIndex) ?? 'select',
        statement: st.text,
        predicted: sel.modelText,
        observed: server.text,
        agree: plansAgree(sel.model, server),
      });
    }
    this.window = { before: this.countsReads ? await this.counters() : null };
  }

  private async counters(): Promise<ReadCounters> {
    try {
      return await readCounters(this.client, this.plan.schema, this.plan.spec.table.name);
    } catch (err) {
      throw PgServerError.from(err, this.place('reading the read counters')) ?? err;
    }
  }

  /** One read statement, which must return what the simulation read. */
  private async runRead(st: ReadStatement, what: string): Promise<void> {
    const r = await this.q(st.text, st.params, what);
    const e = st.expect;
    if ('rows' in e) {
      if (r.rows.length !== e.rows)
        throw new PgCheckError(`${this.place().where}, ${what}: returned ${r.rows.length} rows instead of ${e.rows} (${st.text})`);
    } else if (Number(r.rows[0]?.n) !== e.count) {
      throw new PgCheckError(`${this.place().where}, ${what}: counted ${r.rows[0]?.n} rows, the replayed table has ${e.count}`);
    }
  }

  /** A select phase ends: its reads beside the prediction, and the replay's planner settings back. */
  private async endSelect(op: OpOf<'end'>): Promise<void> {
    const sel = this.select!;
    await this.openWindow(undefined);
    const before = this.window!.before;
    const after = this.countsReads ? await this.counters() : null;
    const reads = op.result.reads;
    if (reads) {
      const d = (f: (c: ReadCounters) => number) => (before && after ? f(after) - f(before) : null);
      for (const [name, model, observed] of readComparisons(sel.model, reads, op.result.metrics.rows))
        this.add(op, name, model, d(observed));
    }
    for (const set of settingChanges(sel.settings, REPLAY_SETTINGS)) await this.q(set);
    this.select = null;
    this.window = null;
  }

  private add(op: OpOf<'end'>, name: string, predicted: number | null, observed: number | null): void {
    this.comparisons.push({ phase: op.index, label: op.result.label, metric: name, predicted, observed, ...diffs(predicted, observed) });
  }

  /** The indexes are built once the table has rows (as the simulation builds them after the first insert phase). */
  private async buildIndexes(rows: number): Promise<void> {
    if (this.indexesBuilt || rows === 0) return;
    for (const idx of this.plan.spec.table.indexes)
      await this.q(createIndexSql(idx, this.plan.cols, this.table), undefined, `its CREATE INDEX ${idx.name}`);
    this.indexesBuilt = true;
  }

  /** The phase's predicted figures beside what the server reports now. */
  private async compare(op: OpOf<'end'>): Promise<void> {
    const { spec, schema, stattuple, major } = this.plan;
    const m = op.result.metrics;
    let obs: Observation;
    try {
      obs = await observe(
        this.client,
        schema,
        spec.table.name,
        spec.table.indexes.map((i) => i.name),
        major >= 16,
        stattuple,
      );
    } catch (err) {
      throw PgServerError.from(err, this.place('reading the server figures')) ?? err;
    }
    const add = (name: string, predicted: number | null, observed: number | null) => this.add(op, name, predicted, observed);
    add('heap_pages', m.pages, obs.heapPages);
    for (const [name, pages] of Object.entries(op.result.index_pages.by_index))
      add(`index_pages.${name}`, pages, obs.indexPages[name] ?? null);
    // The TOAST relation's heap and index (a table without one: none predicted, none observed; one the
    // server's encoding gives it: empty, its index's metapage).
    const noToast = this.plan.emptyToast ? 1 : 0;
    if (m.toast_index_pages === undefined && obs.toastIndexPages !== noToast && !this.toastNoted) {
      this.toastNoted = true;
      this.plan.notes.push(
        `the server gave table ${spec.table.name} a TOAST relation of ${obs.toastIndexPages} index pages where the model expects ${noToast === 1 ? 'an empty one (its metapage)' : 'none'}`,
      );
    }
    add('toast_pages', m.toast_pages ?? 0, obs.toastPages);
    add('toast_index_pages', m.toast_index_pages ?? noToast, obs.toastIndexPages);
    add('fsm_pages', metric(m, 'fsm_pages'), obs.fsmPages);
    add('vm_pages', metric(m, 'vm_pages'), obs.vmPages);
    if (this.phaseKind?.op === 'update' || m.updates > 0) {
      add('updates', m.updates, obs.updates);
      add('hot_updates', m.hot_updates, obs.hotUpdates);
      if (obs.newpage !== undefined && obs.newpage !== this.newpageByCtid) this.newpageDisagrees = true;
      add('newpage_updates', metric(m, 'newpage_updates'), obs.newpage ?? this.newpageByCtid);
    }
    add('live_tuples', m.rows, obs.stat?.liveTuples ?? null);
    add('dead_tuples', metric(m, 'dead_tuples'), obs.stat?.deadTuples ?? null);
    add('free_bytes', metric(m, 'free_bytes'), obs.stat?.freeBytes ?? null);
  }
}
