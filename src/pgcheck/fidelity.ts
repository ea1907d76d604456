/**
 * Replay or model: for every phase, whether pg-check's replay sends the statements the config describes
 * (a `statement`) or stands in for them with others (an `approximation`), what it sends, and why. Pure:
 * decided from the config before anything is sent.
 *
 * Each feature a phase can have is one function (FEATURES): it looks at the phase and says what the replay
 * sends for that feature and, where the replay is not what the config describes, why. A phase is an
 * approximation when any feature says so. A new workload form adds its function to FEATURES.
 */
import { rowsPerTransaction, type PhaseSpec, type StorageSpec } from '../config/spec.js';
import { MAX_STORED_LEN } from '../layout/table-layout.js';
import { distMax } from '../workload/dist.js';
import { groupedNumber } from '../util/numbers.js';

export type ReplayKind = 'statement' | 'approximation';

/** What one feature of a phase makes the replay send, and why it is an approximation (absent: it is what the config describes). */
export interface Finding {
  sends: string;
  approximation?: string;
}

/** A phase's replay: what is sent, and whether that is the config's statement or an approximation and why. */
export interface PhaseReplay {
  phase: number;
  op: PhaseSpec['op'];
  replay: ReplayKind;
  /** What the replay sends for the phase, feature by feature. */
  sends: string[];
  /** Why the replay is an approximation (empty for a statement). */
  why: string[];
}

/** What a feature function sees: the phase, its place, the whole config. */
export interface FeatureContext {
  phase: PhaseSpec;
  index: number;
  spec: StorageSpec;
}

type Feature = (ctx: FeatureContext) => Finding | null;

const firstIndex = (spec: StorageSpec) => spec.table.indexes[0]?.name ?? 'the first index';

/** How an update or delete reaches its rows (`via`). */
function access({ phase, spec }: FeatureContext): Finding | null {
  if (phase.op !== 'update' && phase.op !== 'delete') return null;
  const verb = phase.op === 'update' ? 'UPDATE' : 'DELETE';
  const via = phase.via ?? 'index';
  if (via === 'index') return { sends: `${verb} … WHERE key = $1, one a row through ${firstIndex(spec)}, in the phase's order` };
  const values = phase.op === 'update' ? ', new values looked up by key in a staging table' : '';
  if (via === 'range')
    return { sends: `one ${verb} … WHERE <leading key of ${firstIndex(spec)}> BETWEEN $1 AND $2 (an index scan)${values}` };
  const where = phase.rows.kind === 'all' ? '' : ' whose WHERE looks each row up in a staging table';
  return { sends: `one ${verb}${where} reading the table by a sequential scan${values}` };
}

/** Transactions of an insert, update or delete (`transaction:` statement, row, batch(N); `rollback:`). */
function transaction({ phase }: FeatureContext): Finding | null {
  if (phase.op !== 'update' && phase.op !== 'delete' && phase.op !== 'insert') return null;
  const n = rowsPerTransaction(phase.transaction);
  const end = phase.rollback ? ', each ending in ROLLBACK' : '';
  if (n === Infinity) return { sends: `the phase one transaction${end}` };
  // A row a transaction runs in autocommit; one that must end in ROLLBACK is opened with BEGIN.
  if (n === 1) return { sends: phase.rollback ? 'each row its own BEGIN … ROLLBACK' : 'each row its own transaction' };
  return { sends: `a transaction every ${n} rows (BEGIN … ${phase.rollback ? 'ROLLBACK' : 'COMMIT'})` };
}

/** An insert phase's rows. */
function insert({ phase }: FeatureContext): Finding | null {
  if (phase.op !== 'insert') return null;
  return { sends: 'multi-row INSERTs (at most 200 rows a statement, none across a transaction end)' };
}

/**
 * Indexes: created on the loaded table after the first phase that leaves rows, as the model builds them;
 * `when: before_load`, on the empty table before the first phase (rows enter by insertion).
 */
function indexBuild({ phase, index, spec }: FeatureContext): Finding | null {
  if (spec.table.indexes.length === 0) return null;
  if (spec.table.indexes[0]!.when === 'before_load')
    return index === 0 ? { sends: 'CREATE INDEX of every index before the phase (on the empty table, after CREATE TABLE)' } : null;
  if (phase.op !== 'insert') return null;
  const first = spec.workload.findIndex((p) => p.op === 'insert');
  return first === index ? { sends: 'CREATE INDEX of every index after the phase (on the loaded table)' } : null;
}

/** `open_snapshot` / `close_snapshot`: a second session's snapshot. */
function snapshot({ phase }: FeatureContext): Finding | null {
  if (phase.op !== 'snapshot') return null;
  return phase.action === 'open'
    ? { sends: 'a second session: BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1 (its snapshot, held until close_snapshot or the end)' }
    : { sends: "the second session's COMMIT" };
}

/** `set: { c: same }`: the row's value written back. */
function sameValue({ phase }: FeatureContext): Finding | null {
  if (phase.op !== 'update') return null;
  const same = Object.entries(phase.set).filter(([, v]) => v.kind === 'same');
  return same.length === 0 ? null : { sends: `SET ${same.map(([c]) => `${c} = ${c}`).join(', ')}` };
}

/** Reorganisation phases: PostgreSQL's counterpart, where it has one. */
function reorg({ phase }: FeatureContext): Finding | null {
  if (phase.op !== 'reorg') return null;
  switch (phase.kind) {
    case 'vacuum':
      return { sends: 'VACUUM (INDEX_CLEANUP ON)' };
    case 'rebuild':
      return { sends: 'VACUUM FULL' };
    case 'compact':
      return { sends: 'VACUUM (INDEX_CLEANUP ON)', approximation: 'PostgreSQL has no reorg compact: VACUUM stands in for it' };
    case 'forwarded_rows':
      return { sends: 'nothing', approximation: 'PostgreSQL has no forwarded rows: reorg forwarded_rows is skipped' };
  }
}

/** Read phases. */
function reads({ phase }: FeatureContext): Finding | null {
  if (phase.op === 'select') return { sends: 'the same rows through the same access path (its plan compared)' };
  if (phase.op === 'read_lob')
    return { sends: 'nothing', approximation: 'large-object reads are not replayed: the phase is compared on storage alone' };
  return null;
}

/** Values longer than the row store keeps are sent at its limit. */
function longValues({ phase, spec }: FeatureContext): Finding | null {
  const dists =
    phase.op === 'insert'
      ? Object.values(phase.values).map((v) => v.length)
      : phase.op === 'update'
        ? Object.values(phase.set).map((v) => (v.kind === 'length' || v.kind === 'grow' ? v.dist : undefined))
        : [];
  if (spec.workload.some((p) => p.op === 'read_lob')) return null;
  if (!dists.some((d) => d !== undefined && distMax(d) > MAX_STORED_LEN)) return null;
  return {
    sends: `values over ${groupedNumber(MAX_STORED_LEN)} bytes at ${groupedNumber(MAX_STORED_LEN)} bytes`,
    approximation: `the config's values longer than ${groupedNumber(MAX_STORED_LEN)} bytes are sent shorter (the row store keeps lengths in 16 bits)`,
  };
}

/** Every feature function, in the order their findings are told. */
export const FEATURES: readonly Feature[] = [access, transaction, insert, indexBuild, snapshot, sameValue, reorg, reads, longValues];

/** Each phase's replay, from its features' findings. */
export function phaseReplays(spec: StorageSpec, features: readonly Feature[] = FEATURES): PhaseReplay[] {
  return spec.workload.map((phase, index) => {
    const found = features.map((f) => f({ phase, index, spec })).filter((x): x is Finding => x !== null);
    const why = found.flatMap((f) => (f.approximation ? [f.approximation] : []));
    return { phase: index, op: phase.op, replay: why.length > 0 ? 'approximation' : 'statement', sends: found.map((f) => f.sends), why };
  });
}
