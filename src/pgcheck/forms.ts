/**
 * pg-check's replay of the workload forms that shape transactions and sessions: `transaction: batch(N)`,
 * `rollback: true`, `open_snapshot` / `close_snapshot`, `set: { c: same }` and `when: before_load`
 * indexes (docs/config.md): a second session, the undo of what the replay knows of its rows, CREATE
 * INDEX. What each sends, and whether it is the config's statement: fidelity.ts.
 */
import pg from 'pg';
import type { IndexDef, PhaseSpec } from '../config/spec.js';
import { PgCheckError } from './errors.js';
import { quoteIdent, type ColumnSql, type SqlValue } from './values.js';
import type { ValueStream } from './plan.js';

/** CREATE INDEX of a config's index on `table` (schema-qualified, quoted), with its fillfactor and deduplicate_items. */
export function createIndexSql(idx: IndexDef, cols: ColumnSql[], table: string): string {
  const list = idx.columns.map((c) => quoteIdent(cols.find((x) => x.name.toLowerCase() === c.toLowerCase())!.name)).join(', ');
  const options = [
    ...(idx.fillfactor !== undefined && idx.fillfactor >= 10 ? [`fillfactor = ${Math.trunc(idx.fillfactor)}`] : []),
    ...(idx.deduplicate_items === false ? ['deduplicate_items = off'] : []),
  ];
  const withOptions = options.length > 0 ? ` WITH (${options.join(', ')})` : '';
  return `CREATE ${idx.unique ? 'UNIQUE ' : ''}INDEX ${quoteIdent(idx.name)} ON ${table} (${list})${withOptions}`;
}

export type RowWrite = Extract<PhaseSpec, { op: 'insert' | 'update' | 'delete' }>;

export function isRowWrite(p: PhaseSpec): p is RowWrite {
  return p.op === 'insert' || p.op === 'update' || p.op === 'delete';
}

/** The columns an update phase sets to their own value (`same`), by position. */
export function sameColumnsOf(p: PhaseSpec, cols: ColumnSql[]): number[] {
  if (p.op !== 'update') return [];
  return Object.entries(p.set)
    .filter(([, v]) => v.kind === 'same')
    .map(([name]) => cols.findIndex((c) => c.name.toLowerCase() === name.toLowerCase()));
}

/**
 * The session that holds a config's snapshot: a second connection of the same server, database and role
 * that opens a REPEATABLE READ transaction and takes its snapshot with `SELECT 1` (the first statement
 * takes it; no table is read, so this session prunes nothing), and commits it at close_snapshot. Its
 * backend_xmin holds back the horizon of pruning and VACUUM (procarray.c ComputeXidHorizons).
 */
export class SnapshotHolder {
  private client: pg.Client | null = null;
  /** Its backend (−1: none open). */
  pid = -1;

  apply(action: 'open' | 'close', like: pg.Client): Promise<void> {
    return action === 'open' ? this.open(like) : this.release();
  }

  async open(like: pg.Client): Promise<void> {
    const cp = (like as unknown as { connectionParameters: pg.ClientConfig }).connectionParameters;
    const c = new pg.Client({ host: cp.host, port: cp.port, user: cp.user, database: cp.database, password: cp.password });
    c.on('error', () => undefined);
    await c.connect();
    this.client = c;
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await c.query('SELECT 1');
    this.pid = Number((await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  }

  async release(): Promise<void> {
    const c = this.client;
    if (!c) return;
    this.client = null;
    this.pid = -1;
    await c.query('COMMIT').catch(() => undefined);
    await c.end().catch(() => undefined);
  }
}

/** What the replay knows of its rows, which a ROLLBACK puts back. */
interface UndoTarget {
  /** Each live row's locator values, and the values select phases find rows by. */
  keyOf: Map<number, SqlValue[]>;
  tracked: Map<number, SqlValue[]>;
  /** Each row's block and line pointer (ctid). */
  rowPlace(): [Int32Array, Int32Array];
  stream(): ValueStream;
  addLive(delta: number): void;
}

/** A phase whose transactions end in ROLLBACK: each row as the replay knew it before the open transaction changed it. */
export class RowUndo {
  private undo: (() => void)[] = [];
  private readonly rows = new Set<number>();
  private on = false;

  constructor(private readonly t: UndoTarget) {}

  /** A phase starts: does it roll back? */
  start(rollback: boolean): void {
    this.on = rollback;
    this.clear();
  }

  /** The row as it is now, before the transaction changes it (the first time only). */
  note(row: number): void {
    if (!this.on || this.rows.has(row)) return;
    this.rows.add(row);
    const t = this.t;
    const key = t.keyOf.get(row);
    const kept = key ? [...key] : undefined;
    const tracked = [...t.tracked].map(([ci, of]) => [ci, of[row]] as const);
    const [blocks, offsets] = t.rowPlace();
    const [block, offset] = [blocks[row]!, offsets[row]!];
    const stream = t.stream().saveRow(row);
    this.undo.push(() => {
      const had = t.keyOf.has(row);
      if (kept) {
        if (!had) t.addLive(1);
        t.keyOf.set(row, kept);
      } else if (had) {
        t.keyOf.delete(row);
        t.addLive(-1);
      }
      for (const [ci, v] of tracked) t.tracked.get(ci)![row] = v!;
      blocks[row] = block;
      offsets[row] = offset;
      stream();
    });
  }

  /** ROLLBACK: every row noted as it was, the last change undone first. */
  rollback(): void {
    for (const f of this.undo.reverse()) f();
    this.clear();
  }

  /** COMMIT: nothing to put back. */
  clear(): void {
    this.undo = [];
    this.rows.clear();
  }
}

/**
 * Forms the replay cannot send as the config describes them: a phase that reaches its rows in one
 * statement (via: scan or range) runs that statement in a transaction of its own, so it cannot be rolled
 * back. A PgCheckError before anything is sent.
 */
export function checkForms(workload: readonly PhaseSpec[]): void {
  workload.forEach((p, i) => {
    if ((p.op === 'update' || p.op === 'delete') && p.rollback && (p.via ?? 'index') !== 'index')
      throw new PgCheckError(
        `phase ${i + 1} (${p.op}): pg-check replays via: ${p.via} as one statement in a transaction of its own: expected rollback only with via: index, found rollback: true`,
      );
  });
}
