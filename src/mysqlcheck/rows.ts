/**
 * The rows mysql-check has sent, as the client knows them: which are live, each column's code (what the
 * value says: keys sort and repeat by it) and length (characters or bytes; −1: NULL), and which rows a
 * phase reaches in which order. Pure: no server.
 */
import type { Order, PhaseSpec, RowAccess } from '../config/spec.js';
import { Prng } from '../util/prng.js';
import { resolveCount } from '../util/units.js';
import { MysqlCheckError, type ColumnPlan, type SqlValue, valueOf } from './sql.js';

type RowPhase = Extract<PhaseSpec, { op: 'update' | 'delete' }>;

export class RowState {
  /** Rows sent so far (ids 0 … count − 1), live or not. */
  count = 0;
  readonly live: boolean[] = [];
  /** codes[column][row], units[column][row], fills[column][row] (the filler letter's place in the alphabet). */
  readonly codes: number[][];
  readonly units: number[][];
  readonly fills: number[][];

  constructor(readonly columns: ColumnPlan[]) {
    this.codes = columns.map(() => []);
    this.units = columns.map(() => []);
    this.fills = columns.map(() => []);
  }

  /** A new row's id, its values set by the caller. */
  add(): number {
    this.live.push(true);
    return this.count++;
  }

  get liveCount(): number {
    let n = 0;
    for (const l of this.live) if (l) n++;
    return n;
  }

  liveRows(): number[] {
    const out: number[] = [];
    this.live.forEach((l, r) => l && out.push(r));
    return out;
  }

  value(column: number, row: number): SqlValue {
    const fill = String.fromCharCode(97 + (this.fills[column]![row]! % 26));
    return valueOf(this.columns[column]!, this.codes[column]![row]!, this.units[column]![row]!, fill);
  }

  /** The key columns' codes of a row, compared in order (InnoDB keeps rows in key order). */
  compareBy(key: number[]): (a: number, b: number) => number {
    return (a, b) => {
      for (const c of key) {
        const d = this.codes[c]![a]! - this.codes[c]![b]!;
        if (d !== 0) return d;
      }
      return a - b;
    };
  }
}

/** `count` of `live` rows in the phase's order. */
function byOrder(live: number[], count: number, order: Order, rng: Prng, phase: number): number[] {
  switch (order.kind) {
    case 'sequential':
      return live.slice(0, count);
    case 'newest':
      return live.slice(live.length - count);
    case 'spread':
      return Array.from({ length: count }, (_, i) => live[Math.floor((i * live.length) / count)]!);
    case 'random': {
      const a = live.slice();
      for (let i = 0; i < count; i++) {
        const j = i + rng.int(a.length - i);
        [a[i], a[j]] = [a[j]!, a[i]!];
      }
      return a.slice(0, count);
    }
    case 'zipf':
      throw new MysqlCheckError(`phase ${phase + 1}: mysql-check does not replay order: zipf (each row once a phase); use random`);
  }
}

/**
 * The rows an update or delete phase reaches, in the order it meets them: for `via: index` the phase's
 * order; for `via: scan` the same rows met in primary key order (InnoDB's table scan is the clustered
 * index's leaf chain); for `via: range` a run of consecutive values of `rangeColumn` (the first index's
 * leading column: oldest, newest, or from a random place), in its order.
 */
export function pickRows(state: RowState, phase: RowPhase, key: number[], rangeColumn: number, seed: number, index: number): number[] {
  const live = state.liveRows();
  const count = Math.min(resolveCount(phase.rows, live.length), live.length);
  const rng = Prng.derive(seed, 'mysql-check', index, 'rows');
  const via: RowAccess = phase.via ?? 'index';
  const inKeyOrder = (rows: number[]) => rows.sort(state.compareBy(key));
  if (via === 'range') {
    const sorted = live.sort(state.compareBy([rangeColumn]));
    const start =
      phase.order.kind === 'newest' ? sorted.length - count : phase.order.kind === 'random' ? rng.int(sorted.length - count + 1) : 0;
    return sorted.slice(start, start + count);
  }
  const picked = byOrder(live, count, phase.order, rng, index);
  return via === 'scan' ? inKeyOrder(picked) : picked;
}
