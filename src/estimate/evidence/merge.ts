/**
 * The evidence of every input, merged into the figures the estimate uses: rows, data pages (sizes in
 * KB or bytes turned into pages with the stated page size), the average row, and the calibration
 * target, the share of rows (or updates) that no longer fit where they were: forwarded rows per row
 * (ASE optdiag, SQL Server's DMV) or non-HOT updates that moved to a new page per update (PostgreSQL).
 * Where two inputs give one figure, the first in the order optdiag, index_physical_stats, pgstattuple,
 * sp_spaceused, pg_stat_user_tables is used and a note gives the other when they differ by more than
 * one (a row, a page): figures that cannot both be true never get here (consistency.ts refuses them).
 * Pure.
 */
import type { InputProblem } from '../../config/errors.js';
import { at, type Evidence, type EvidenceKind, type Figure } from './types.js';
import { groupedNumber } from '../../util/numbers.js';

const EVIDENCE_ORDER: readonly EvidenceKind[] = ['optdiag', 'index_physical_stats', 'pgstattuple', 'sp_spaceused', 'pg_stat_user_tables'];

/** What the calibration reproduces: a share of rows (snapshot) or of updates (cumulative counters). */
export interface MovedTarget {
  /** Moved rows (or updates) ÷ basis. */
  share: number;
  count: number;
  basis: number;
  basisWord: 'rows' | 'updates';
  /** How it was measured, for the report: "optdiag Forwarded row count 1,291,500 of Data row count 5,000,000". */
  label: string;
  figures: Figure[];
}

/** The figures one table's measurements agree on, merged over every input (each figure keeps its source). */
const SCALARS = ['rows', 'pages', 'forwarded', 'deleted', 'emptyPages', 'avgRowBytes', 'minRowBytes', 'maxRowBytes', 'indexKB'] as const;
type Scalar = (typeof SCALARS)[number];

export interface Measurements extends Pick<Evidence, Scalar | 'columns' | 'partitions' | 'notes'> {
  kinds: EvidenceKind[];
  /** The page size the KB and byte figures were turned into pages with. */
  pageBytes: number;
  moved?: MovedTarget;
}

const fmt = (v: number) => (Number.isInteger(v) ? groupedNumber(v) : groupedNumber(v, 2));

/** Pages from sizes: sp_spaceused's data KB, pgstattuple's table_len bytes. */
function withPages(ev: Evidence, pageBytes: number, problems: InputProblem[]): Evidence {
  if (ev.pages) return ev;
  if (ev.dataKB) {
    const pages = (ev.dataKB.value * 1024) / pageBytes;
    return {
      ...ev,
      pages: { ...ev.dataKB, value: Math.round(pages), label: `data ${fmt(ev.dataKB.value)} KB ÷ ${pageBytes / 1024} KB pages` },
    };
  }
  if (ev.tableBytes) {
    const pages = ev.tableBytes.value / pageBytes;
    if (!Number.isInteger(pages)) {
      problems.push(
        at(
          ev.tableBytes.file,
          ev.tableBytes.line,
          1,
          `expected table_len to be a whole number of ${pageBytes}-byte pages (engine.page_size), found ${ev.tableBytes.value} bytes`,
        ),
      );
      return ev;
    }
    return { ...ev, pages: { ...ev.tableBytes, value: pages, label: `table_len ÷ ${pageBytes}` } };
  }
  return ev;
}

/** Merge the inputs' evidence (in EVIDENCE_ORDER) for a table of `pageBytes` pages named `table`. */
export function mergeEvidence(
  inputs: Evidence[],
  pageBytes: number,
  table: string,
  movedMetric: 'forwarded_rows' | 'newpage_updates',
): { measurements?: Measurements; problems: InputProblem[] } {
  const problems: InputProblem[] = [];
  const sorted = [...inputs].sort((a, b) => rank(a) - rank(b)).map((e) => withPages(e, pageBytes, problems));
  for (const e of sorted) {
    if (e.table && e.table.name.toLowerCase() !== table.toLowerCase()) {
      problems.push(at(e.table.file, e.table.line, 1, `expected the figures of table ${table}, found table "${e.table.name}"`));
    }
  }
  if (problems.length) return { problems };
  const m: Measurements = {
    kinds: sorted.map(kindOf).filter((k): k is EvidenceKind => k !== undefined),
    pageBytes,
    notes: sorted.flatMap((e) => e.notes),
  };
  for (const key of SCALARS) {
    const given = sorted.map((e) => e[key]).filter((f): f is Figure => f !== undefined);
    if (!given.length) continue;
    m[key] = given[0]!;
    for (const other of given.slice(1)) {
      const a = given[0]!.value;
      // Beyond rounding (a row, a page); figures too far apart to be both true were refused before (consistency.ts).
      if (Math.abs(other.value - a) > 1) {
        m.notes.push(
          `${other.kind} gives ${other.label} ${fmt(other.value)}, ${given[0]!.kind} ${given[0]!.label} ${fmt(a)}: the ${given[0]!.kind} figure is used`,
        );
      }
    }
  }
  const parts = sorted.find((e) => e.partitions)?.partitions;
  if (parts) m.partitions = parts;
  const cols = sorted.find((e) => e.columns)?.columns;
  if (cols) m.columns = cols;
  const moved = movedTarget(sorted, m, movedMetric);
  if (moved) m.moved = moved;
  return { measurements: m, problems: [] };
}

function kindOf(e: Evidence): EvidenceKind | undefined {
  return e.table?.kind ?? [e.rows, e.pages, e.dataKB, e.updates, e.tableBytes].find((f) => f)?.kind;
}

function rank(e: Evidence): number {
  const k = kindOf(e);
  return k ? EVIDENCE_ORDER.indexOf(k) : EVIDENCE_ORDER.length;
}

function movedTarget(sorted: Evidence[], m: Measurements, movedMetric: 'forwarded_rows' | 'newpage_updates'): MovedTarget | undefined {
  if (movedMetric === 'forwarded_rows') {
    const src = sorted.find((e) => e.forwarded && e.rows);
    if (!src) return undefined;
    const f = src.forwarded!;
    const r = src.rows!;
    const basis = r.value;
    return {
      share: basis > 0 ? f.value / basis : 0,
      count: f.value,
      basis,
      basisWord: 'rows',
      label: `${f.kind} ${f.label} ${fmt(f.value)} of ${fmt(basis)} rows`,
      figures: [f, r],
    };
  }
  const src = sorted.find((e) => e.updates && e.hotUpdates);
  if (!src) return undefined;
  const upd = src.updates!;
  const moved = src.newpageUpdates ?? { ...src.hotUpdates!, value: upd.value - src.hotUpdates!.value, label: 'n_tup_upd − n_tup_hot_upd' };
  if (upd.value === 0) {
    m.notes.push('pg_stat_user_tables counts no updates (n_tup_upd 0): nothing to calibrate to');
    return undefined;
  }
  return {
    share: moved.value / upd.value,
    count: moved.value,
    basis: upd.value,
    basisWord: 'updates',
    label: `pg_stat_user_tables ${moved.label} ${fmt(moved.value)} of n_tup_upd ${fmt(upd.value)}`,
    figures: [moved, upd],
  };
}
