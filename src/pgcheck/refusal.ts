/**
 * A config whose run the server stops: an index entry over its limit (workload/index-refusal.ts). The
 * simulation stops at the statement the server refuses (a CREATE INDEX, an INSERT, an UPDATE); the replay
 * sends the statements up to it and that one, and expects the server's error there: the same SQLSTATE
 * (54000), the same message (index, size, limit), in the same phase, naming the same heap tuple.
 */
import { serverText, type IndexRefusal } from '../workload/index-refusal.js';
import type { PgServerError } from './errors.js';

/** The refusal the simulation predicted beside the server's error. */
export interface RefusalCheck {
  /** The phase (0-based) the statement belongs to, and the statement. */
  phase: number;
  statement: string;
  /** The server's message as the simulation predicts it, with the heap tuple it names. */
  predicted: string;
  /** The server's error (message, detail, SQLSTATE), or why there was none. */
  observed: string;
  agree: boolean;
}

/** The statement the server refuses, as the report names it. */
export function refusedStatement(r: IndexRefusal): string {
  return r.step === 'create index' ? `CREATE INDEX ${r.index}` : `${r.step === 'insert' ? 'INSERT' : 'UPDATE'} of row ${r.row}`;
}

function tidText(r: IndexRefusal): string {
  return r.slot === undefined ? `heap page ${r.page}` : `tuple (${r.page},${r.slot})`;
}

/** The server refused a statement of the replay (phase `phase`, 0-based) where the simulation predicted `r`. */
export function compareRefusal(r: IndexRefusal, err: PgServerError, phase: number): RefusalCheck {
  const predicted = `${serverText(r)} (${tidText(r)})`;
  const m = /Index row references tuple \((\d+),(\d+)\)/.exec(err.serverMessage);
  const samePlace = r.slot === undefined ? m !== null && Number(m[1]) === r.page : m !== null && m[0].endsWith(`(${r.page},${r.slot})`);
  // index_form_tuple's error names no tuple.
  const placeAgrees = serverText(r).startsWith('index row requires') || samePlace;
  const agree = err.sqlstate === '54000' && phase === r.phase && err.serverMessage.startsWith(serverText(r)) && placeAgrees;
  return { phase: r.phase, statement: refusedStatement(r), predicted, observed: err.message, agree };
}

/** The server accepted the statement the simulation predicted it refuses. */
export function acceptedRefusal(r: IndexRefusal): RefusalCheck {
  const predicted = `${serverText(r)} (${tidText(r)})`;
  return { phase: r.phase, statement: refusedStatement(r), predicted, observed: 'the server accepted it', agree: false };
}
