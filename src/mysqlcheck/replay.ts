/**
 * A config's table and phases replayed on a live MariaDB or MySQL as the SQL a user would write, in a
 * scratch database of its own (scratch.ts), and what the server shows after every phase (observe.ts):
 *   - CREATE TABLE … ENGINE=InnoDB ROW_FORMAT=… (sql.ts); indexes not created before the load follow the
 *     first phase that leaves rows (CREATE INDEX: InnoDB's sorted build);
 *   - insert: multi-row INSERTs, in the phase's transactions (one, one a row, or `batch` rows each);
 *   - update / delete `via: index`: one statement a row by its primary key, in the phase's order and
 *     transactions; `via: scan` / `via: range`: one set-based statement (`UPDATE t SET …` when it reaches
 *     every row with one value, else joined to a staging table of the rows and their new values);
 *   - reorg rebuild / compact: OPTIMIZE TABLE (InnoDB rebuilds: ALTER TABLE … FORCE); vacuum: the purge;
 *     forwarded_rows: nothing (InnoDB never forwards a row); snapshot open / close: a second connection
 *     holding a consistent snapshot (the purge keeps what it may see); select, read_lob: not replayed;
 *   - after every phase that changed rows, the purge is waited for (no snapshot open), so that the
 *     figures are those of a settled table.
 */
import type { PhaseSpec, SetSpec, StorageSpec, ValueDomain } from '../config/spec.js';
import { rowsPerTransaction } from '../config/spec.js';
import { lengthSource } from '../workload/dist.js';
import { Prng } from '../util/prng.js';
import { resolveCount } from '../util/units.js';
import { connect, closeConnection, type MysqlConnection, type MysqlTarget } from './connection.js';
import { observeTable, waitForPurge, type ServerFigures } from './observe.js';
import { pickRows, RowState } from './rows.js';
import type { ModelTrace, TracedRow } from './trace.js';
import { DEFAULT_DATABASE_PREFIX, quoteName, ScratchDatabase } from './scratch.js';
import { MysqlCheckError, scramble, tablePlan, type SqlValue, type TablePlan } from './sql.js';

/** Parameters per statement stay under this (MySQL's prepared-statement limit, kept for plain ones too). */
const MAX_PARAMS = 60_000;
const INSERT_BATCH_ROWS = 500;
/**
 * Statements sent in one round trip (a multi-statement query) at most, and their text in characters (under
 * the default max_allowed_packet of 16 MB; a single statement longer goes alone).
 */
export const SEND_STATEMENTS = 500;
export const SEND_CHARS = 256 * 1024;
const STAGE = 'rowsim_stage';

export interface ReplayOptions {
  databasePrefix?: string;
  /** The connection's id (CONNECTION_ID()), written into the database's marker. */
  connectionId: number;
  /** Told the scratch database before its CREATE is sent, and undefined once it is dropped. */
  onDatabase?: (db: ScratchDatabase | undefined) => void;
  /** Where a snapshot phase opens its second connection. */
  target?: MysqlTarget;
  /** rowsim's run of the config (trace.ts): its keys, and the rows each phase changed, replayed as they are. */
  trace?: ModelTrace;
}

export interface PhaseObservation {
  phase: number;
  op: PhaseSpec['op'];
  /** What was sent, one line a statement kind. */
  sends: string[];
  notes: string[];
  figures: ServerFigures;
}

export interface ReplayResult {
  server_version: string;
  database: string;
  create_sql: string;
  /** The server's names of the table's indexes, with the config's (null: InnoDB's own GEN_CLUST_INDEX). */
  indexes: { config: string | null; server: string }[];
  phases: PhaseObservation[];
}

/**
 * Statements on their way to the server, several a round trip: each is formatted (values escaped) as a
 * query of its own would be, and queued; a full queue (SEND_STATEMENTS, or SEND_CHARS of text) or flush()
 * sends them as one multi-statement query. The server runs each as if it came alone (its own autocommit,
 * or the transaction a START TRANSACTION before it opened), in order, and stops at the first that fails:
 * only the round trips are fewer (a row-at-a-time phase of 100,000 statements took half its CPU, the
 * client's and the server's, in them).
 */
export class StatementQueue {
  private pending: string[] = [];
  private chars = 0;

  constructor(readonly conn: Pick<MysqlConnection, 'format' | 'query'>) {}

  async send(sql: string, params: unknown[] = []): Promise<void> {
    const text = params.length > 0 ? this.conn.format(sql, params) : sql;
    if (this.pending.length > 0 && this.chars + text.length > SEND_CHARS) await this.flush();
    this.pending.push(text);
    this.chars += text.length;
    if (this.pending.length >= SEND_STATEMENTS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const sent = this.pending;
    const text = sent.join(';\n');
    this.pending = [];
    this.chars = 0;
    try {
      await this.conn.query(text);
    } catch (err) {
      // The server's error names no statement of a batch: say which were sent together (the first and the last).
      if (err instanceof Error && sent.length > 1) err.message += ` (in ${batchWords(sent)})`;
      throw err;
    }
  }
}

/** The statements of a batch as an error names them: how many, the first and the last, each cut at 100 characters. */
export function batchWords(sent: readonly string[]): string {
  const cut = (t: string) => (t.length > 100 ? `${t.slice(0, 100)}…` : t);
  return `one of ${sent.length} statements sent together, from ${cut(sent[0]!)} to ${cut(sent[sent.length - 1]!)}`;
}

/** The replay of one storage point: its plan, its rows, what a phase sent. */
class Replay {
  readonly state: RowState;
  sends: string[] = [];
  notes: string[] = [];
  indexesBuilt = false;
  snapshot?: MysqlConnection;
  /** The model's row ids, as the replay's (a trace's rows). */
  readonly modelRows = new Map<number, number>();

  constructor(
    readonly conn: MysqlConnection,
    readonly spec: StorageSpec,
    readonly plan: TablePlan,
    readonly database: string,
    readonly target: MysqlTarget | undefined,
    readonly trace: ModelTrace | undefined,
  ) {
    this.state = new RowState(plan.columns);
    this.queue = new StatementQueue(conn);
  }

  readonly queue: StatementQueue;

  /** A statement of the phase, queued (StatementQueue): the phase's end sends what is left. */
  async send(sql: string, params: unknown[] = []): Promise<void> {
    await this.queue.send(sql, params);
  }

  async flush(): Promise<void> {
    await this.queue.flush();
  }

  async run(): Promise<PhaseObservation[]> {
    await this.send(this.plan.createSql);
    await this.flush();
    const out: PhaseObservation[] = [];
    for (const [i, phase] of this.spec.workload.entries()) {
      this.sends = [];
      this.notes = [];
      const changed = await this.phase(phase, i);
      if (!this.indexesBuilt && this.state.liveCount > 0) {
        for (const sql of this.plan.laterIndexes) await this.send(sql);
        if (this.plan.laterIndexes.length > 0) this.sends.push(...this.plan.laterIndexes);
        this.indexesBuilt = true;
      }
      await this.flush();
      if (changed && !this.snapshot) {
        const note = await waitForPurge(this.conn);
        if (note) this.notes.push(note);
      }
      const names = this.plan.indexes.map((x) => x.server);
      const figures = await observeTable(this.conn, this.database, this.spec.table.name, names);
      out.push({ phase: i, op: phase.op, sends: this.sends, notes: this.notes, figures });
    }
    return out;
  }

  /** Replay one phase; true when it changed rows (the purge then has work). */
  async phase(phase: PhaseSpec, i: number): Promise<boolean> {
    switch (phase.op) {
      case 'insert':
        await this.insert(phase, i);
        return true;
      case 'update':
      case 'delete':
        await this.change(phase, i);
        return true;
      case 'reorg':
        return this.reorg(phase.kind);
      case 'snapshot':
        await this.snapshotPhase(phase.action);
        return false;
      case 'select':
      case 'read_lob':
        this.notes.push(`${phase.op} phases are not replayed: the figures are those after the phase before`);
        return false;
    }
  }

  async reorg(kind: Extract<PhaseSpec, { op: 'reorg' }>['kind']): Promise<boolean> {
    if (kind === 'forwarded_rows') {
      this.notes.push('reorg forwarded_rows: nothing to do (InnoDB never forwards a row)');
      return false;
    }
    if (kind === 'vacuum') {
      this.sends.push('(the purge, waited for)');
      return true;
    }
    if (kind === 'compact') this.notes.push('reorg compact: replayed as OPTIMIZE TABLE (InnoDB rebuilds the table)');
    await this.flush();
    const [r] = await this.conn.query(`OPTIMIZE TABLE ${this.plan.ident}`);
    const failed = (r as { Msg_type?: string; Msg_text?: string }[]).find((x) => x.Msg_type === 'error');
    if (failed) throw new Error(`OPTIMIZE TABLE: ${failed.Msg_text}`);
    this.sends.push(`OPTIMIZE TABLE ${this.plan.ident}`);
    return true;
  }

  async snapshotPhase(action: 'open' | 'close'): Promise<void> {
    await this.flush();
    if (action === 'open' && !this.snapshot) {
      if (!this.target) throw new MysqlCheckError('a snapshot phase needs a second connection: no server address given');
      this.snapshot = await connect(this.target);
      await this.snapshot.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
      await this.snapshot.query(`SELECT COUNT(*) FROM ${quoteName(this.database)}.${this.plan.ident}`);
      this.sends.push('second connection: START TRANSACTION WITH CONSISTENT SNAPSHOT');
    } else if (action === 'close' && this.snapshot) {
      await this.snapshot.query('COMMIT');
      await closeConnection(this.snapshot);
      this.snapshot = undefined;
      this.sends.push('second connection: COMMIT');
    }
  }

  async insert(phase: Extract<PhaseSpec, { op: 'insert' }>, index: number): Promise<void> {
    const traced = this.trace?.phases[index];
    const n = traced ? traced.length : resolveCount(phase.rows, this.state.liveCount);
    const draw = insertDraws(this.spec, this.plan, phase, index, traced !== undefined);
    const perTx = Math.min(n, rowsPerTransaction(phase.transaction));
    const ncols = this.plan.columns.length;
    const batch = Math.max(1, Math.min(INSERT_BATCH_ROWS, Math.floor(MAX_PARAMS / ncols), perTx));
    const cols = this.plan.columns.map((c) => quoteName(c.name)).join(', ');
    const tuple = `(${this.plan.columns.map(() => '?').join(', ')})`;
    for (let done = 0; done < n;) {
      const txRows = Math.min(perTx, n - done);
      const added: number[] = [];
      if (perTx > 1 || phase.rollback) await this.send('START TRANSACTION');
      for (let sent = 0; sent < txRows;) {
        const k = Math.min(batch, txRows - sent);
        const params: SqlValue[] = [];
        for (let j = 0; j < k; j++) {
          const r = this.newRow(draw, traced?.[done + sent + j]);
          added.push(r);
          for (let c = 0; c < ncols; c++) params.push(this.state.value(c, r));
        }
        await this.send(`INSERT INTO ${this.plan.ident} (${cols}) VALUES ${Array(k).fill(tuple).join(', ')}`, params);
        sent += k;
      }
      await this.endTransaction(perTx > 1 || !!phase.rollback, !!phase.rollback, added);
      done += txRows;
    }
    const tx = perTx >= n ? 'one transaction' : perTx === 1 ? 'a transaction a row' : `a transaction every ${perTx} rows`;
    this.sends.push(
      `INSERT INTO ${this.plan.ident} (${cols}) VALUES … (${Math.min(batch, n)} rows a statement, ${tx}${phase.rollback ? ', rolled back' : ''})`,
    );
  }

  newRow(draw: InsertDraws, traced: TracedRow | undefined): number {
    const r = this.state.add();
    this.plan.columns.forEach((_, c) => {
      const d = draw[c]!;
      this.state.codes[c]![r] = d.random ? scramble(r + 1) : r + 1;
      this.state.units[c]![r] = d.units();
      this.state.fills[c]![r] = 23; // 'x'
    });
    if (traced) {
      this.modelRows.set(traced.row, r);
      applyLengths(this.state, r, traced.lens);
      applyCodes(this.state, r, traced.codes);
    }
    return r;
  }

  /** COMMIT or ROLLBACK where a transaction was opened; rolled-back rows are no longer live. */
  async endTransaction(open: boolean, rollback: boolean, added: number[] = []): Promise<void> {
    if (!open) return;
    await this.send(rollback ? 'ROLLBACK' : 'COMMIT');
    if (rollback) for (const r of added) this.state.live[r] = false;
  }

  async change(phase: Extract<PhaseSpec, { op: 'update' | 'delete' }>, index: number): Promise<void> {
    const key = this.plan.primary;
    if (key.length === 0)
      throw new MysqlCheckError(
        `phase ${index + 1}: mysql-check finds rows by the primary key: give the table an index with clustered: true, unique: true`,
      );
    const traced = this.trace?.phases[index];
    const rows = traced ? traced.map((t) => this.rowOf(t)) : pickRows(this.state, phase, key, this.plan.rangeColumn, this.spec.seed, index);
    if (traced && phase.op === 'update') this.tracedRows = new Map(traced.map((t) => [this.rowOf(t), t]));
    if ((phase.via ?? 'index') === 'index') await this.rowAtATime(phase, index, rows);
    else await this.setBased(phase, index, rows);
  }

  /** The update's SET, its keys changed as the trace says where there is one. */
  setOf(set: Record<string, SetSpec>, index: number): SetChanges {
    const changes = setChanges(this.spec, this.plan, set, index, this.trace !== undefined);
    const traced = this.tracedRows;
    if (!traced) return changes;
    const apply = changes.apply;
    return {
      ...changes,
      apply: (state, r) => {
        const saved = this.plan.columns.map((_, c) => [state.codes[c]![r]!, state.units[c]![r]!] as const);
        const undo = apply(state, r);
        const t = traced.get(r);
        applyLengths(state, r, t?.lens ?? null, changes.columns);
        applyCodes(state, r, t?.codes ?? null, changes.columns);
        return () => {
          undo();
          saved.forEach(([code, units], c) => {
            state.codes[c]![r] = code;
            state.units[c]![r] = units;
          });
        };
      },
    };
  }

  /** A traced row's id in the replay. */
  rowOf(t: TracedRow): number {
    const r = this.modelRows.get(t.row);
    if (r === undefined) throw new Error(`the model changed row ${t.row}, which the replay never inserted`);
    return r;
  }

  /** An update's traced rows (new codes and lengths), by the replay's row (applied after the SET's own changes). */
  tracedRows: Map<number, TracedRow> | undefined;

  async rowAtATime(phase: Extract<PhaseSpec, { op: 'update' | 'delete' }>, index: number, rows: number[]): Promise<void> {
    const key = this.plan.primary;
    const where = key.map((c) => `${quoteName(this.plan.columns[c]!.name)} = ?`).join(' AND ');
    const set = phase.op === 'update' ? this.setOf(phase.set, index) : null;
    const perTx = Math.min(rows.length, rowsPerTransaction(phase.transaction));
    const head = set ? `UPDATE ${this.plan.ident} SET ${set.sql}` : `DELETE FROM ${this.plan.ident}`;
    for (let done = 0; done < rows.length; done += perTx) {
      const open = perTx > 1 || !!phase.rollback;
      if (open) await this.send('START TRANSACTION');
      const undo: (() => void)[] = [];
      for (const r of rows.slice(done, done + perTx)) {
        const keyValues = key.map((c) => this.state.value(c, r));
        if (set) undo.push(set.apply(this.state, r));
        else {
          this.state.live[r] = false;
          undo.push(() => (this.state.live[r] = true));
        }
        await this.send(`${head} WHERE ${where}`, [...(set ? set.values(this.state, r) : []), ...keyValues]);
      }
      await this.endTransaction(open, !!phase.rollback);
      if (phase.rollback) for (const u of undo.reverse()) u();
    }
    const tx = perTx >= rows.length ? 'one transaction' : perTx === 1 ? 'a transaction a row' : `a transaction every ${perTx} rows`;
    this.sends.push(`${head} WHERE ${where} (${rows.length} statements, ${tx}${phase.rollback ? ', rolled back' : ''})`);
  }

  async setBased(phase: Extract<PhaseSpec, { op: 'update' | 'delete' }>, index: number, rows: number[]): Promise<void> {
    const set = phase.op === 'update' ? this.setOf(phase.set, index) : null;
    const undo: (() => void)[] = [];
    const plain = this.plainStatement(rows, set, phase.via === 'range', undo);
    const sql = plain ? plain.sql : await this.stage(rows, set, undo);
    if (!set) for (const r of rows) this.state.live[r] = false;
    if (phase.rollback) await this.send('START TRANSACTION');
    await this.send(sql, plain?.params ?? []);
    if (phase.rollback) {
      await this.send('ROLLBACK');
      for (const u of undo.reverse()) u();
      if (!set) for (const r of rows) this.state.live[r] = true;
    }
    if (!plain) await this.send(`DROP TABLE ${STAGE}`);
    this.sends.push(`${sql}${plain ? '' : ` (${rows.length} rows staged in ${STAGE})`}${phase.rollback ? ', rolled back' : ''}`);
  }

  /**
   * The statement a user writes when one value serves every row: no WHERE for every live row, `WHERE c
   * BETWEEN lowest AND highest` for a range of the first index's leading column c (when no other live
   * row has a value between); else null.
   */
  plainStatement(rows: number[], set: SetChanges | null, range: boolean, undo: (() => void)[]): { sql: string; params: SqlValue[] } | null {
    if (rows.length === 0 || (set && !set.uniform)) return null;
    const whole = rows.length === this.state.liveCount;
    const bounds = whole ? [] : range ? this.rangeBounds(rows) : null;
    if (!bounds) return null;
    const where = whole ? '' : ` WHERE ${quoteName(this.plan.columns[this.plan.rangeColumn]!.name)} BETWEEN ? AND ?`;
    if (!set) return { sql: `DELETE FROM ${this.plan.ident}${where}`, params: bounds };
    for (const r of rows) undo.push(set.apply(this.state, r));
    return { sql: `UPDATE ${this.plan.ident} SET ${set.sql}${where}`, params: [...set.values(this.state, rows[0]!), ...bounds] };
  }

  /** The lowest and highest value of the range column among `rows`, when exactly those live rows lie between them. */
  rangeBounds(rows: number[]): SqlValue[] | null {
    const c = this.plan.rangeColumn;
    if (c < 0) return null;
    const codes = this.state.codes[c]!;
    const units = this.state.units[c]!;
    let lo = rows[0]!;
    let hi = rows[0]!;
    for (const r of rows) {
      if (units[r]! < 0) return null;
      if (codes[r]! < codes[lo]!) lo = r;
      if (codes[r]! > codes[hi]!) hi = r;
    }
    let inside = 0;
    for (const r of this.state.liveRows()) if (units[r]! >= 0 && codes[r]! >= codes[lo]! && codes[r]! <= codes[hi]!) inside++;
    return inside === rows.length ? [this.state.value(c, lo), this.state.value(c, hi)] : null;
  }

  /** Stage the rows (their keys and new values) and return the joined statement. */
  async stage(rows: number[], set: SetChanges | null, undo: (() => void)[]): Promise<string> {
    const key = this.plan.primary;
    const cols = this.plan.columns;
    const setCols = set ? set.columns : [];
    const defs = [
      ...key.map((c) => `k${c} ${cols[c]!.ddl} NOT NULL`),
      ...setCols.map((c) => `v${c} ${cols[c]!.ddl} NULL`),
      `PRIMARY KEY (${key.map((c) => `k${c}`).join(', ')})`,
    ];
    await this.send(
      `CREATE TABLE ${STAGE} (${defs.join(', ')}) ENGINE=InnoDB DEFAULT CHARSET=${this.plan.charset} COLLATE=${this.plan.charset}_bin`,
    );
    const width = key.length + setCols.length;
    const batch = Math.max(1, Math.min(INSERT_BATCH_ROWS, Math.floor(MAX_PARAMS / width)));
    for (let i = 0; i < rows.length; i += batch) {
      const part = rows.slice(i, i + batch);
      const params: SqlValue[] = [];
      for (const r of part) {
        params.push(...key.map((c) => this.state.value(c, r)));
        if (set) {
          undo.push(set.apply(this.state, r));
          params.push(...setCols.map((c) => this.state.value(c, r)));
        }
      }
      await this.send(
        `INSERT INTO ${STAGE} VALUES ${Array(part.length)
          .fill(`(${Array(width).fill('?').join(', ')})`)
          .join(', ')}`,
        params,
      );
    }
    const on = key.map((c) => `t.${quoteName(cols[c]!.name)} = s.k${c}`).join(' AND ');
    if (!set) return `DELETE t FROM ${this.plan.ident} t JOIN ${STAGE} s ON ${on}`;
    const assign = set.columns.map((c) => `t.${quoteName(cols[c]!.name)} = s.v${c}`);
    for (const c of set.same) assign.push(`t.${quoteName(cols[c]!.name)} = t.${quoteName(cols[c]!.name)}`);
    return `UPDATE ${this.plan.ident} t JOIN ${STAGE} s ON ${on} SET ${assign.join(', ')}`;
  }

  async close(): Promise<void> {
    if (this.snapshot) await closeConnection(this.snapshot);
    this.snapshot = undefined;
  }
}

/** Set a row's value lengths from a trace (of `only` those columns when given): NULL (−1), or the model's bytes where the column's length varies. */
function applyLengths(state: RowState, r: number, lens: Float64Array | null, only?: number[]): void {
  if (!lens) return;
  for (let c = 0; c < lens.length; c++) {
    const len = lens[c]!;
    if (Number.isNaN(len) || (only && !only.includes(c))) continue;
    const col = state.columns[c]!;
    state.units[c]![r] = len < 0 ? -1 : col.fixed ? col.defaultUnits : Math.min(len, col.maxUnits);
  }
}

/** Set a row's keyed columns' codes from a trace (of `only` those columns when given); −1 is NULL. */
function applyCodes(state: RowState, r: number, codes: Float64Array | null, only?: number[]): void {
  if (!codes) return;
  for (let c = 0; c < codes.length; c++) {
    const code = codes[c]!;
    if (Number.isNaN(code) || (only && !only.includes(c))) continue;
    if (code < 0) state.units[c]![r] = -1;
    else {
      state.codes[c]![r] = code;
      if (state.units[c]![r]! < 0) state.units[c]![r] = state.columns[c]!.defaultUnits;
    }
  }
}

/** Per column, how an insert phase draws its length and whether its codes are scrambled. */
type InsertDraws = { random: boolean; units: () => number }[];

/** Value domains the replay makes keys for without a trace: every value distinct, ascending or random. */
function plainDomain(d: ValueDomain | undefined): boolean {
  return !d || (d.distinct === undefined && d.frequency.kind === 'uniform' && d.order !== 'clustered');
}

function insertDraws(
  spec: StorageSpec,
  plan: TablePlan,
  phase: Extract<PhaseSpec, { op: 'insert' }>,
  index: number,
  traced: boolean,
): InsertDraws {
  return plan.columns.map((c) => {
    const v = Object.entries(phase.values).find(([name]) => name.toLowerCase() === c.name.toLowerCase())?.[1];
    if (!traced && !plainDomain(v?.domain))
      throw new MysqlCheckError(
        `phase ${index + 1}, column ${c.name}: mysql-check replays distinct values in ascending or random order only`,
      );
    const random = v?.domain?.order === 'random';
    const nullShare = c.nullable ? (v?.null ?? 0) : 0;
    const source = v?.length && !c.fixed ? lengthSource(v.length) : null;
    const lengthRng = Prng.derive(spec.seed, 'phase', index, 'insert', 'column', c.name, 'length');
    const nullRng = Prng.derive(spec.seed, 'phase', index, 'insert', 'column', c.name, 'null');
    const units = () => {
      const u = source ? Math.min(source.one(lengthRng), c.maxUnits) : c.defaultUnits;
      return nullShare > 0 && nullRng.float() < nullShare ? -1 : u;
    };
    return { random, units };
  });
}

/** An update's SET: its SQL with placeholders, each row's new values, and how to apply (and undo) them on the client's rows. */
interface SetChanges {
  sql: string;
  /** Columns given a value; columns set to themselves (`same`). */
  columns: number[];
  same: number[];
  /** Every row gets the same value (no length drawn per row, no NULL share, no key changed). */
  uniform: boolean;
  values(state: RowState, row: number): SqlValue[];
  apply(state: RowState, row: number): () => void;
}

function setChanges(spec: StorageSpec, plan: TablePlan, set: Record<string, SetSpec>, index: number, traced: boolean): SetChanges {
  const columns: number[] = [];
  const same: number[] = [];
  const steps: ((state: RowState, row: number) => void)[] = [];
  let uniform = true;
  for (const [name, s] of Object.entries(set)) {
    const c = plan.columns.findIndex((x) => x.name.toLowerCase() === name.toLowerCase());
    if (c < 0) throw new MysqlCheckError(`phase ${index + 1}: set ${name}: no such column`);
    if (s.kind === 'same') {
      same.push(c);
      continue;
    }
    if (!traced && !plainDomain(s.domain))
      throw new MysqlCheckError(`phase ${index + 1}, set ${name}: mysql-check replays distinct values in ascending or random order only`);
    columns.push(c);
    const col = plan.columns[c]!;
    const lengthRng = Prng.derive(spec.seed, 'phase', index, 'update', 'column', col.name, 'length');
    const nullRng = Prng.derive(spec.seed, 'phase', index, 'update', 'column', col.name, 'null');
    const nullShare = col.nullable && 'null' in s ? (s.null ?? 0) : 0;
    // A new key: `changed`, or a set that says which values it draws from.
    const changesKey = col.keyed && (s.kind === 'changed' || s.domain !== undefined);
    const source = (s.kind === 'length' || s.kind === 'grow') && !col.fixed ? lengthSource(s.dist) : null;
    // One value for every row: a constant length (or NULL for all), whatever the row held.
    const constant =
      (s.kind === 'length' && s.dist.kind === 'const' && (nullShare === 0 || nullShare === 1)) || (s.kind === 'null' && nullShare === 1);
    if (!constant) uniform = false;
    steps.push((state, r) => {
      const old = state.units[c]![r]!;
      let u = old;
      if (source) u = Math.min(s.kind === 'grow' ? Math.max(0, old) + source.one(lengthRng) : source.one(lengthRng), col.maxUnits);
      if (s.kind === 'null' && old < 0) u = col.defaultUnits;
      if (nullShare > 0 && nullRng.float() < nullShare) u = -1;
      state.units[c]![r] = u;
      state.fills[c]![r]! += 1;
      if (changesKey) state.codes[c]![r] = scramble(state.codes[c]![r]! + 0x40000000);
    });
  }
  const assign = [
    ...columns.map((c) => `${quoteName(plan.columns[c]!.name)} = ?`),
    ...same.map((c) => `${quoteName(plan.columns[c]!.name)} = ${quoteName(plan.columns[c]!.name)}`),
  ];
  if (assign.length === 0) throw new MysqlCheckError(`phase ${index + 1}: an update that sets no column`);
  return {
    sql: assign.join(', '),
    columns,
    same,
    uniform,
    values: (state, r) => columns.map((c) => state.value(c, r)),
    apply: (state, r) => {
      const saved = columns.map((c) => [state.units[c]![r]!, state.fills[c]![r]!, state.codes[c]![r]!] as const);
      for (const step of steps) step(state, r);
      return () =>
        columns.forEach((c, i) => {
          [state.units[c]![r], state.fills[c]![r], state.codes[c]![r]] = saved[i]!;
        });
    },
  };
}

/**
 * Replay a storage point's table and phases in a scratch database of its own, dropped at the end whether
 * the replay failed or not, and return what the server showed after every phase. The format is not
 * looked at: mysql-check asks that of its caller (check.ts).
 */
export async function mysqlReplay(conn: MysqlConnection, spec: StorageSpec, options: ReplayOptions): Promise<ReplayResult> {
  const plan = tablePlan(spec.table, spec.engine);
  const [v] = await conn.query('SELECT VERSION() AS v, @@innodb_page_size AS page');
  const { v: version, page } = (v as { v: string; page: number }[])[0]!;
  if (spec.engine.page_size !== undefined && Number(page) !== spec.engine.page_size)
    throw new MysqlCheckError(
      `engine.page_size is ${spec.engine.page_size} bytes, the server's innodb_page_size ${page}: a server's page size is chosen when its data directory is created`,
    );
  await conn.query('SET SESSION information_schema_stats_expiry = 0').catch(() => undefined);
  const db = await ScratchDatabase.create(conn, options.databasePrefix ?? DEFAULT_DATABASE_PREFIX, options.connectionId, (s) =>
    options.onDatabase?.(s),
  );
  let failed = true;
  const replay = new Replay(conn, spec, plan, db.name, options.target, options.trace);
  try {
    await conn.query(`USE ${db.ident}`);
    const phases = await replay.run();
    failed = false;
    return { server_version: String(version), database: db.name, create_sql: plan.createSql, indexes: plan.indexes, phases };
  } finally {
    await replay.close().catch(() => undefined);
    try {
      await db.drop(conn);
      options.onDatabase?.(undefined);
    } catch (err) {
      if (!failed) throw err;
    }
  }
}
