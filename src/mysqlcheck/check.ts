/**
 * mysql-check: the config's table and phases on a live MariaDB or MySQL (replay.ts) beside rowsim's own
 * run of the same config (the runner, as pg-check does), per phase and per index: leaf pages, pages the
 * index owns, records, and the table's Data_length, Index_length, Data_free.
 *
 * The model's side is read from each phase's metrics under `innodb` (InnodbModelFigures): per index
 * `leaf_pages`, `size_pages`, `records`, and the table's `data_length`, `index_length`, `data_free` in
 * bytes. A figure the run does not give is "not modelled".
 */
import type { StorageSpec } from '../config/spec.js';
import type { PhaseResult } from '../workload/runner.js';
import { recordTrace } from './trace.js';
import { diffs, type Comparison } from '../pgcheck/result.js';
import { innodb } from '../formats/innodb.js';
import type { MysqlConnection, MysqlTarget } from './connection.js';
import { mysqlReplay, type ReplayResult } from './replay.js';
import type { ScratchDatabase } from './scratch.js';
import { MysqlCheckError, tablePlan } from './sql.js';

export { MysqlCheckError };
export type { Comparison };

/** What the innodb engine reports per phase (metrics.innodb): the figures mysql-check compares. */
export interface InnodbModelFigures {
  /** By index name: the config's, or PRIMARY / GEN_CLUST_INDEX as the server names them. */
  indexes: Record<string, { leaf_pages: number; size_pages: number; records: number }>;
  data_length: number;
  index_length: number;
  data_free: number;
}

export interface MysqlCheckResult {
  label: string;
  table: string;
  server_version: string;
  create_sql: string;
  notes: string[];
  comparisons: Comparison[];
  /** Per phase: what was sent, and the server's notes. */
  replays: { phase: number; op: string; sends: string[]; notes: string[] }[];
}

/** The format mysql-check compares, or a MysqlCheckError saying which it found. */
export function checkFormat(spec: StorageSpec): void {
  if ((spec.engine.format as string) !== innodb.id)
    throw new MysqlCheckError(`expected engine.format: ${innodb.id} (the format mysql-check compares), found ${spec.engine.format}`);
}

/** What can be refused before connecting: the format, the table's DDL. */
export function planMysqlCheck(spec: StorageSpec): void {
  checkFormat(spec);
  tablePlan(spec.table, spec.engine);
}

/** The model's figures of a phase, where the engine reports them. */
export function innodbFigures(phase: PhaseResult | undefined): InnodbModelFigures | null {
  const m = phase?.metrics as unknown as { innodb?: InnodbModelFigures } | undefined;
  return m?.innodb ?? null;
}

/** Model beside server, per phase: each index's pages and records, the table's lengths. */
export function compareFigures(model: (InnodbModelFigures | null)[], replay: ReplayResult, labels: string[]): Comparison[] {
  const out: Comparison[] = [];
  const add = (phase: number, metric: string, predicted: number | null, observed: number | null) =>
    out.push({ phase, label: labels[phase] ?? `phase ${phase + 1}`, metric, predicted, observed, ...diffs(predicted, observed) });
  for (const p of replay.phases) {
    const m = model[p.phase] ?? null;
    for (const f of p.figures.indexes) {
      const names = replay.indexes.find((x) => x.server === f.index);
      const mi = m ? (m.indexes[f.index] ?? (names?.config ? m.indexes[names.config] : undefined)) : undefined;
      add(p.phase, `leaf_pages.${f.index}`, mi?.leaf_pages ?? null, f.leaf_pages);
      add(p.phase, `size_pages.${f.index}`, mi?.size_pages ?? null, f.size_pages);
      add(p.phase, `records.${f.index}`, mi?.records ?? null, f.pool_pages > 0 ? f.records : null);
    }
    add(p.phase, 'data_length', m?.data_length ?? null, p.figures.data_length);
    add(p.phase, 'index_length', m?.index_length ?? null, p.figures.index_length);
    add(p.phase, 'data_free', m?.data_free ?? null, p.figures.data_free);
  }
  return out;
}

interface MysqlCheckOptions {
  label?: string;
  connectionId: number;
  databasePrefix?: string;
  onDatabase?: (db: ScratchDatabase | undefined) => void;
  target?: MysqlTarget;
}

/** Run the config through rowsim's runner, replay it on the server, and put the two side by side. */
export async function mysqlCheck(conn: MysqlConnection, spec: StorageSpec, options: MysqlCheckOptions): Promise<MysqlCheckResult> {
  planMysqlCheck(spec);
  // The model's run, recorded: the replay sends its keys in its order and changes the rows it changed.
  const { trace, run } = recordTrace(spec);
  const model = spec.workload.map((_, i) => innodbFigures(run.phases[i]));
  const replay = await mysqlReplay(conn, spec, { ...options, trace });
  const labels = spec.workload.map((ph, i) => run.phases[i]?.label ?? ph.op);
  const notes: string[] = [];
  if (model.every((m) => m === null)) notes.push('the run reports no InnoDB figures (metrics.innodb): every figure is "not modelled"');
  return {
    label: options.label ?? 'base',
    table: spec.table.name,
    server_version: replay.server_version,
    create_sql: replay.create_sql,
    notes,
    comparisons: compareFigures(model, replay, labels),
    replays: replay.phases.map((p) => ({ phase: p.phase, op: p.op, sends: p.sends, notes: p.notes })),
  };
}
