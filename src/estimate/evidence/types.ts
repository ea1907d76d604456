/**
 * Evidence: what a DBA's own tools report about the table (optdiag, sp_spaceused,
 * sys.dm_db_index_physical_stats, pgstattuple, pg_stat_user_tables), each figure with the file, line
 * and label it was read from. The readers in this folder turn text into Evidence; the estimate
 * calibrates to it (src/estimate/fit.ts). Pure types and helpers.
 */
import type { InputProblem } from '../../config/errors.js';

/** The input kinds a figure can come from, as the config keys under estimate.measured name them. */
import type { EvidenceKind } from '../../config/evidence-kinds.js';
export type { EvidenceKind };

/** One figure as read: its value, the input it came from, and where. */
export interface Figure {
  value: number;
  kind: EvidenceKind;
  /** The input's own name for it: "Forwarded row count", "forwarded_record_count". */
  label: string;
  file: string;
  line: number;
}

/** Per-column statistics (optdiag "Statistics for column"): average width and, where present, NULL share. */
export interface ColumnFigure {
  name: string;
  /** optdiag "Average column width" (bytes). */
  avgWidth?: number;
  /** The weight of the histogram's NULL step. */
  nullShare?: number;
  line: number;
}

/** One partition's figures (optdiag "Statistics for partition:"), each with its line. */
export interface PartitionFigures {
  name: string;
  line: number;
  rows: Figure;
  pages: Figure;
  avgRowBytes: Figure;
  forwarded?: Figure;
  emptyPages?: Figure;
}

export interface Evidence {
  /** The table the input is about (when it names one). */
  table?: { name: string; kind: EvidenceKind; file: string; line: number };
  /** Live rows. */
  rows?: Figure;
  /** Data pages (sp_spaceused: its data KB; converted with the page size when merged). */
  pages?: Figure;
  /** sp_spaceused: data, reserved and unused, in KB. */
  dataKB?: Figure;
  reservedKB?: Figure;
  /** sp_spaceused's index_size: every index of the table, in KB. */
  indexKB?: Figure;
  unusedKB?: Figure;
  /** Rows living away from their home page (ASE, SQL Server). */
  forwarded?: Figure;
  deleted?: Figure;
  emptyPages?: Figure;
  /** Physical bytes of a row, as the input reports it (row overhead included). */
  avgRowBytes?: Figure;
  minRowBytes?: Figure;
  maxRowBytes?: Figure;
  /** PostgreSQL: cumulative tuple counters (pg_stat_user_tables). */
  updates?: Figure;
  hotUpdates?: Figure;
  newpageUpdates?: Figure;
  inserts?: Figure;
  deadTuples?: Figure;
  /** PostgreSQL pgstattuple: the relation's length in bytes and its free space. */
  tableBytes?: Figure;
  freeBytes?: Figure;
  columns?: ColumnFigure[];
  /** optdiag's "Statistics for partition" blocks, when the table has more than one: each partition's own figures. */
  partitions?: PartitionFigures[];
  /** The DBMS that printed the input, where its kind alone does not say (sp_spaceused: ASE's names rowtotal, SQL Server's rows). */
  server?: { dbms: 'ase' | 'sqlserver'; sign: string; line: number };
  /** pgstattuple as printed, for the cross-checks: tuple_len, dead_tuple_len and the *_percent columns. */
  tupleBytes?: Figure;
  deadTupleBytes?: Figure;
  percents?: Figure[];
  /** sys.dm_db_index_physical_stats as printed, for the cross-checks: record_count (stubs included), the record sizes, compressed pages. */
  records?: Figure;
  recordBytes?: { min?: Figure; max?: Figure; avg: Figure };
  compressedPages?: Figure;
  /** What the reader noticed and the user should know (sampled figures, partitions summed …). */
  notes: string[];
}

export type ReadOutcome = { evidence: Evidence; problems: [] } | { evidence?: undefined; problems: InputProblem[] };

export function emptyEvidence(): Evidence {
  return { notes: [] };
}

/** A number as the tools print it: `4959`, `4959.0000000000000000`, `1,291,500`, `1.5e6`. */
export function parseFigure(text: string): number | undefined {
  const t = text.trim().replace(/,(?=\d{3}(\D|$))/g, '');
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return undefined;
  const v = Number(t);
  return Number.isFinite(v) ? v : undefined;
}

/** Lines of an input with their 1-based numbers (CR LF tolerated). */
export function numberedLines(text: string): { line: number; text: string }[] {
  return text.split(/\r?\n/).map((t, i) => ({ line: i + 1, text: t }));
}

/** A problem of an input file at a line and column. */
export function at(file: string, line: number, column: number, message: string): InputProblem {
  return { file, line, column, message };
}
