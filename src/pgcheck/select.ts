/**
 * pg-check's replay of a select phase, decided without a server: the statements, the planner settings
 * they run under, and how the server's plan (EXPLAIN) is read beside the simulation's.
 *
 * The simulation's plan (workload/reads.ts readPlan) says how the phase reads; the replay sends the
 * statements an application would send for it and lets the server's planner decide where the phase has
 * a predicate:
 *   - an index seek: one `SELECT ctid FROM t WHERE <leading key> = $1` a row fetched (the parameter cast
 *     to the predicate's parameter type when the phase has one), index scans forced by the session's
 *     planner settings (enable_seqscan, enable_bitmapscan, enable_tidscan and enable_indexonlyscan off:
 *     they only make a path expensive, so where a cast keeps the index from being used the server still
 *     scans, and EXPLAIN says so);
 *   - a table scan the predicate caused (the column is cast): one `SELECT ctid … WHERE key = $1::type`
 *     (one chosen row) or `= ANY($1::type[])` (several) a repetition, as the simulation counts one scan
 *     that returns the chosen rows, under the same settings: the server's own plan decides;
 *   - a table scan (`via: scan`): one `SELECT count(*) FROM t` a repetition (with a predicate, `… WHERE
 *     key = ANY($1::type[])` over the chosen rows), every index path off;
 *   - a row-id fetch: a TID scan, `SELECT ctid FROM t WHERE ctid = $1::tid`, the ctid being the one the
 *     row's INSERT or UPDATE returned (or read after VACUUM FULL): known without a read, so nothing
 *     prunes before the fetch. A TID scan reads the page alone and does not prune (heap_fetch).
 * In every select phase parallel workers are off (every read counted by the one backend) and scans are
 * not synchronised (a scan starts at block 0, as the simulation reads).
 */
import type { PhaseSpec, StorageSpec } from '../config/spec.js';
import { pgTypeName, postgresHeap } from '../formats/postgres.js';
import { readPlan, type ReadPlan } from '../workload/reads.js';
import { PgCheckError } from './errors.js';
import type { ColumnSql, SqlValue } from './values.js';

export type SelectPhase = Extract<PhaseSpec, { op: 'select' }>;

/** A planner setting and its value as SET takes it. */
type Settings = Record<string, string>;

/**
 * The replay's planner settings outside select phases: rows are found through the first index (updates,
 * deletes); no parallel workers, no synchronised scans (both only matter to select phases).
 */
export const REPLAY_SETTINGS: Readonly<Settings> = Object.freeze({
  enable_seqscan: 'off',
  enable_indexscan: 'on',
  enable_indexonlyscan: 'off',
  enable_bitmapscan: 'off',
  enable_tidscan: 'off',
  max_parallel_workers_per_gather: '0',
  synchronize_seqscans: 'off',
});

/** `SET name = value` for every setting of `to` that differs from `from`. */
export function settingChanges(from: Readonly<Settings>, to: Readonly<Settings>): string[] {
  return Object.keys(to)
    .filter((k) => from[k] !== to[k])
    .map((k) => `SET ${k} = ${to[k]}`);
}

/** One statement of the replay and what it must return. */
export interface ReadStatement {
  text: string;
  params: unknown[];
  /** `rows`: exactly this many rows; `count`: one row whose column n is this. */
  expect: { rows: number } | { count: number };
}

/** The model's plan of a select phase in the words pg-check prints. */
function modelPlanText(plan: ReadPlan): string {
  return plan.path === 'index' ? `index seek on ${plan.index}` : plan.path === 'rowid' ? 'row-id fetch (TID scan)' : 'table scan';
}

export class SelectReplay {
  /** The simulation's plan of the phase. */
  readonly model: ReadPlan;
  /** The planner settings of the phase's statements. */
  readonly settings: Readonly<Settings>;
  /** The column the statements compare with a value (the index's leading column, or the predicate's), or −1. */
  readonly keyColumn: number;
  /** The parameter's type when the phase has a predicate (the value is cast to it), else null. */
  readonly cast: string | null;

  constructor(
    spec: StorageSpec,
    readonly phase: SelectPhase,
    private readonly cols: ColumnSql[],
    /** The table, schema-qualified and quoted. */
    private readonly table: string,
  ) {
    this.model = readPlan(postgresHeap, spec, phase);
    this.cast = phase.predicate ? pgTypeName(phase.predicate.parameter) : null;
    this.keyColumn = keyColumnOf(spec, phase, cols);
    const base = { ...REPLAY_SETTINGS };
    if (phase.via === 'rowid') this.settings = { ...base, enable_tidscan: 'on' };
    else if (phase.via === 'scan') this.settings = { ...base, enable_seqscan: 'on', enable_indexscan: 'off' };
    else this.settings = base;
  }

  /** The simulation's plan in a few words. */
  get modelText(): string {
    return modelPlanText(this.model);
  }

  private get key(): string {
    return this.cols[this.keyColumn]!.ident;
  }

  private param(n: number, array = false): string {
    return this.cast === null ? `$${n}` : `$${n}::${this.cast}${array ? '[]' : ''}`;
  }

  /** The statement of one row fetched (an index seek or a row-id fetch): its key value, or its ctid. */
  read(key: SqlValue, ctid: string): ReadStatement {
    if (this.model.path === 'rowid')
      return { text: `SELECT ctid FROM ${this.table} WHERE ctid = $1::tid`, params: [ctid], expect: { rows: 1 } };
    if (this.model.path !== 'index') throw new Error(`a ${this.model.path} phase has no row statements`);
    return { text: `SELECT ctid FROM ${this.table} WHERE ${this.key} = ${this.param(1)}`, params: [key], expect: { rows: 1 } };
  }

  /**
   * The statement of one table scan that returns the chosen rows (their key values, `distinct` of them);
   * `live`: the rows the table holds (a scan without a predicate counts them).
   */
  scan(keys: SqlValue[], distinct: number, live: number): ReadStatement {
    if (this.model.path !== 'scan') throw new Error(`a ${this.model.path} phase runs no table scans`);
    if (this.keyColumn < 0) return { text: `SELECT count(*) AS n FROM ${this.table}`, params: [], expect: { count: live } };
    if (keys.length === 1)
      return { text: `SELECT ctid FROM ${this.table} WHERE ${this.key} = ${this.param(1)}`, params: keys, expect: { rows: 1 } };
    return {
      text: `SELECT ctid FROM ${this.table} WHERE ${this.key} = ANY(${this.param(1, true)})`,
      params: [keys],
      expect: { rows: distinct },
    };
  }
}

/** The column a select phase's statements compare: the predicate's, the index's leading column, or −1 (a scan or row-id fetch without a predicate). */
export function keyColumnOf(spec: StorageSpec, phase: SelectPhase, cols: ColumnSql[]): number {
  const byName = (name: string) => cols.findIndex((c) => c.name.toLowerCase() === name.toLowerCase());
  if (phase.predicate) return byName(phase.predicate.column);
  if (phase.via !== 'index') return -1;
  const idx = spec.table.indexes.find((i) => i.name === phase.index);
  if (!idx) throw new PgCheckError(`select phase: expected an index of table ${spec.table.name}, found ${phase.index ?? 'none'}`);
  return byName(idx.columns[0]!);
}

/** The server's plan of a statement, as far as the comparison needs it. */
export interface ServerPlan {
  /** index: an index scan (plain or index-only); scan: a sequential scan; rowid: a TID scan; other: anything else (a bitmap heap scan …). */
  path: 'index' | 'scan' | 'rowid' | 'other';
  index?: string;
  /** The scan node in a line: `Seq Scan on t (Filter: ((id)::numeric = '5'::numeric))`. */
  text: string;
}

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/** The scan of `table` in an EXPLAIN (FORMAT JSON) result: the first node that names it, depth first. */
export function serverPlan(explain: unknown, table: string): ServerPlan {
  const root = (Array.isArray(explain) ? (explain[0] as { Plan?: PlanNode } | undefined)?.Plan : undefined) ?? null;
  const find = (n: PlanNode): PlanNode | null => {
    if (n['Relation Name'] === table) return n;
    for (const c of n.Plans ?? []) {
      const f = find(c);
      if (f) return f;
    }
    return null;
  };
  const node = root ? find(root) : null;
  if (!node) return { path: 'other', text: root ? String(root['Node Type']) : 'no plan' };
  const type = String(node['Node Type']);
  const index = typeof node['Index Name'] === 'string' ? (node['Index Name'] as string) : undefined;
  const cond = ['Index Cond', 'TID Cond', 'Filter']
    .map((k) => (typeof node[k] === 'string' ? `${k}: ${node[k] as string}` : ''))
    .filter((x) => x !== '');
  const text = `${type}${index ? ` using ${index}` : ''} on ${table}${cond.length > 0 ? ` (${cond.join('; ')})` : ''}`;
  const path =
    type === 'Index Scan' || type === 'Index Only Scan' ? 'index' : type === 'Seq Scan' ? 'scan' : type === 'Tid Scan' ? 'rowid' : 'other';
  return { path, ...(index ? { index } : {}), text };
}

/** Whether the server's plan is the simulation's: the same access path, and for an index seek the same index. */
export function plansAgree(model: ReadPlan, server: ServerPlan): boolean {
  if (model.path !== server.path) return false;
  return model.path !== 'index' || model.index === server.index;
}
