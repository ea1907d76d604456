/**
 * PostgreSQL: `SELECT * FROM pgstattuple('titles')` (pgstattuple, or pgstattuple_approx's approx_
 * columns) and `SELECT * FROM pg_stat_user_tables WHERE relname = 'titles'`, as psql prints them
 * (src/estimate/evidence/psql.ts) [pgstattuple][pg_stat].
 *
 * pgstattuple: table_len is the relation's bytes (pages × BLCKSZ), tuple_count the live tuples,
 * tuple_len their total length (t_len: tuple header and data). pg_stat_user_tables: cumulative
 * counters since the statistics were reset: n_tup_upd, n_tup_hot_upd and, from PostgreSQL 16,
 * n_tup_newpage_upd (updates whose new version went to another page).
 */
import type { InputProblem } from '../../config/errors.js';
import { parsePsql, recordNumber, type PsqlRecord } from './psql.js';
import { at, emptyEvidence, parseFigure, type EvidenceKind, type Figure, type ReadOutcome } from './types.js';

function figure(kind: EvidenceKind, label: string, file: string, v: { value: number; line: number }): Figure {
  return { value: v.value, kind, label, file, line: v.line };
}

export function parsePgstattuple(text: string, file: string): ReadOutcome {
  const approx = /\bapprox_tuple_count\b/.test(text);
  const p = approx ? 'approx_' : '';
  const { records, problems } = parsePsql(text, file, approx ? 'table_len' : 'tuple_count');
  if (!records) return { problems };
  const rec = records[0];
  if (!rec || records.length > 1) {
    return {
      problems: [
        at(
          file,
          records[1]?.values().next().value?.line ?? 1,
          1,
          `expected one row of pgstattuple output (one table), found ${records.length}`,
        ),
      ],
    };
  }
  const where = { line: rec.values().next().value?.line ?? 1 };
  const out: InputProblem[] = [];
  const n = (name: string, optional = false) => recordNumber(rec, name, file, where, out, optional);
  const len = n('table_len');
  const count = n(`${p}tuple_count`);
  const tupleLen = n(`${p}tuple_len`);
  const dead = n('dead_tuple_count', true);
  const deadLen = n('dead_tuple_len', true);
  const free = n(approx ? 'approx_free_space' : 'free_space', true);
  if (out.length) return { problems: out };
  const percents = percentFigures(rec, file);
  const ev = emptyEvidence();
  ev.tableBytes = figure('pgstattuple', 'table_len', file, len!);
  ev.rows = figure('pgstattuple', `${p}tuple_count`, file, count!);
  ev.avgRowBytes = figure('pgstattuple', `${p}tuple_len / ${p}tuple_count`, file, {
    value: count!.value > 0 ? tupleLen!.value / count!.value : 0,
    line: tupleLen!.line,
  });
  ev.tupleBytes = figure('pgstattuple', `${p}tuple_len`, file, tupleLen!);
  if (deadLen) ev.deadTupleBytes = figure('pgstattuple', 'dead_tuple_len', file, deadLen);
  if (percents.length) ev.percents = percents;
  if (dead) ev.deadTuples = figure('pgstattuple', 'dead_tuple_count', file, dead);
  if (free) ev.freeBytes = figure('pgstattuple', approx ? 'approx_free_space' : 'free_space', file, free);
  if (approx) ev.notes.push('pgstattuple_approx: tuple figures are estimates from the visibility map');
  return { evidence: ev, problems: [] };
}

/** The *_percent columns as printed (negative ones too: the cross-checks refuse them with their neighbours named). */
function percentFigures(rec: PsqlRecord, file: string): Figure[] {
  const out: Figure[] = [];
  for (const [name, cell] of rec) {
    if (!name.endsWith('_percent')) continue;
    const v = parseFigure(cell.text);
    if (v !== undefined) out.push({ value: v, kind: 'pgstattuple', label: name, file, line: cell.line });
  }
  return out;
}

/** The row of pg_stat_user_tables for `table` (relname), or the only row. */
function pickTable(records: PsqlRecord[], file: string, table: string | undefined): { rec?: PsqlRecord; problems: InputProblem[] } {
  const named = records.filter((r) => r.get('relname'));
  // One row of another table is taken: the cross-checks (consistency.ts) refuse it, naming the DDL too.
  if (table && named.length > 1) {
    const rec = named.find((r) => r.get('relname')!.text.toLowerCase() === table.toLowerCase());
    if (rec) return { rec, problems: [] };
    const c = named[0]!.get('relname')!;
    return {
      problems: [
        at(
          file,
          c.line,
          c.column,
          `expected the row of table ${table} (relname), found ${named.map((r) => `"${r.get('relname')!.text}"`).join(', ')}`,
        ),
      ],
    };
  }
  if (records.length !== 1)
    return { problems: [at(file, 1, 1, `expected one row of pg_stat_user_tables (add WHERE relname = '…'), found ${records.length}`)] };
  return { rec: records[0]!, problems: [] };
}

export function parsePgStatUserTables(text: string, file: string, table?: string): ReadOutcome {
  const { records, problems } = parsePsql(text, file, 'n_tup_upd');
  if (!records) return { problems };
  const pick = pickTable(records, file, table);
  if (!pick.rec) return { problems: pick.problems };
  const rec = pick.rec;
  const where = { line: rec.values().next().value?.line ?? 1 };
  const out: InputProblem[] = [];
  const n = (name: string, optional = false) => recordNumber(rec, name, file, where, out, optional);
  const upd = n('n_tup_upd');
  const hot = n('n_tup_hot_upd');
  const newpage = n('n_tup_newpage_upd', true);
  const live = n('n_live_tup', true);
  const ins = n('n_tup_ins', true);
  const dead = n('n_dead_tup', true);
  if (out.length) return { problems: out };
  // More HOT or new-page updates than updates: refused by the cross-checks (consistency.ts).
  const ev = emptyEvidence();
  const k = 'pg_stat_user_tables' as const;
  ev.updates = figure(k, 'n_tup_upd', file, upd!);
  ev.hotUpdates = figure(k, 'n_tup_hot_upd', file, hot!);
  if (newpage) ev.newpageUpdates = figure(k, 'n_tup_newpage_upd', file, newpage);
  if (live) ev.rows = figure(k, 'n_live_tup', file, live);
  if (ins) ev.inserts = figure(k, 'n_tup_ins', file, ins);
  if (dead) ev.deadTuples = figure(k, 'n_dead_tup', file, dead);
  const relname = rec.get('relname');
  if (relname) ev.table = { name: relname.text, kind: k, file, line: relname.line };
  if (!newpage)
    ev.notes.push(
      'pg_stat_user_tables has no n_tup_newpage_upd (before PostgreSQL 16): updates that were not HOT (n_tup_upd − n_tup_hot_upd) are taken as moved to another page',
    );
  return { evidence: ev, problems: [] };
}
