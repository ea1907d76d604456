/**
 * Figures that cannot all be true: the cross-checks run on the evidence of every input (one Evidence
 * per file, as the readers left it) before anything is merged or simulated. Each problem is placed at
 * one figure and its message names the other figure's file and line. Pure.
 *
 * - a figure beyond 2^53 − 1: no exact count (a double holds whole numbers exactly only up to there);
 * - the table's name and its DBMS: every input that names a table names this one; every input comes
 *   from one DBMS, the DDL's (where its text shows it, src/table/ddl.ts) and engine.format's;
 * - within an input: pgstattuple's lengths within table_len and its percentages equal to them ÷
 *   table_len (to their printed 0.01); the DMV's min ≤ avg ≤ max record size; pg_stat_user_tables'
 *   HOT and new-page updates within n_tup_upd; optdiag's empty pages within its data pages;
 * - rows and pages: the rows, at the format's shortest row and its slot, fit the pages the same input
 *   gives; sp_spaceused's data KB agrees with optdiag's Data page count (SQL Server: is not below the
 *   DMV's page_count) within 1% (PAGES_TOLERANCE).
 */
import type { InputProblem } from '../../config/errors.js';
import type { YamlLocator } from '../../config/locate.js';
import type { FormatId } from '../../config/format-ids.js';
import type { DdlDbms, EngineSpec, TableDef } from '../../config/spec.js';
import type { TableLayout } from '../../layout/table-layout.js';
import { groupedNumber } from '../../util/numbers.js';
import { availableFormats, dbmsName, evidenceDbms, getFormat } from '../../formats/registry.js';
import { dataLengthRange } from '../rows.js';
import type { Evidence, Figure } from './types.js';

/** A place a message names: a file and line, and what is there ("CREATE TABLE titles", "engine.format"). */
export interface Place {
  file: string;
  line?: number;
  column?: number;
  what: string;
  /** Said after the place: "table.ddl's line 2" for a DDL written in the config. */
  note?: string;
}

/** What the checks need to know of the table besides its evidence. */
export interface CheckFacts {
  table: string;
  /** Where the table is named: its DDL's CREATE TABLE, or the config's table.name. */
  namedAt: Place;
  format: FormatId;
  /** Where the format was chosen: the config's engine.format, or --format. */
  formatAt: Place;
  /** The DDL's DBMS where its text shows it, and the sign. */
  dialect?: { dbms: DdlDbms; at: Place };
  pageBytes: number;
  /** The table's shortest row on the format: data bytes, physical bytes, and its slot's bytes. */
  shortest: { dataBytes: number; rowBytes: number; slotBytes: number };
  usableBytes: number;
  maxRowsPerPage: number;
}

/**
 * Pages two inputs may disagree by, as a share of the larger count: sp_spaceused's data and optdiag's
 * Data page count may differ by the allocation pages (one in 256 [A1]) and OAM pages (at most one in
 * 2,000 [PT-DOL3]) that one counts and the other may not, 0.45% together, and by a page of KB
 * rounding; 1% is twice that, and what merge.ts always called a difference worth a note.
 */
export const PAGES_TOLERANCE = 0.01;
/** Percentages pgstattuple prints to 0.01 (psprintf "%.2f"): a printed percentage is within 0.005 of its lengths' ratio. */
const PERCENT_TOLERANCE = 0.01;

const fmt = (v: number) =>
  Math.abs(v) > Number.MAX_SAFE_INTEGER ? String(v) : Number.isInteger(v) ? groupedNumber(v) : groupedNumber(v, 2);
const dirOf = (f: string) => f.replace(/[^/\\]*$/, '');

/** A place as a message names it, beside a problem of `from`: the file's name alone when both are in one folder. */
function ref(p: { file: string; line?: number; note?: string }, from: string): string {
  const file = dirOf(p.file) === dirOf(from) ? p.file.slice(dirOf(p.file).length) : p.file;
  return `${p.line === undefined ? file : `${file}:${p.line}`}${p.note ? `, ${p.note}` : ''}`;
}

function problem(at: { file: string; line?: number; column?: number }, message: string): InputProblem {
  return { file: at.file, ...(at.line !== undefined ? { line: at.line, column: at.column ?? 1 } : {}), message };
}

/** Every figure of an input, the printed ones as well as those derived from them. */
function figuresOf(ev: Evidence): Figure[] {
  const out: Figure[] = [];
  for (const v of Object.values(ev)) {
    if (Array.isArray(v)) out.push(...v.filter(isFigure));
    else if (isFigure(v)) out.push(v);
    else if (v && typeof v === 'object') out.push(...Object.values(v).filter(isFigure));
  }
  return out;
}

function isFigure(v: unknown): v is Figure {
  return (
    !!v &&
    typeof v === 'object' &&
    typeof (v as Figure).value === 'number' &&
    typeof (v as Figure).file === 'string' &&
    typeof (v as Figure).label === 'string'
  );
}

/** The cross-checks, in order: figures beyond 2^53; names and DBMSs; each input's own figures; rows and pages. */
export function consistencyProblems(inputs: readonly Evidence[], f: CheckFacts): InputProblem[] {
  const huge = inputs.flatMap(hugeFigures);
  if (huge.length) return huge;
  const problems = [...nameProblems(inputs, f), ...familyProblems(inputs, f)];
  const families = problems.length;
  for (const ev of inputs) problems.push(...pgstattupleProblems(ev), ...recordSizeProblems(ev), ...counterProblems(ev));
  // Rows against pages need the format's rows: only when the inputs are the format's DBMS's.
  if (families === 0 && problems.length === 0) for (const ev of inputs) problems.push(...capacityProblems(ev, f));
  if (problems.length === 0) problems.push(...pageAgreement(inputs, f));
  return problems;
}

/** Figures derived from printed ones ("record_count − forwarded_record_count", "tuple_len / tuple_count"): named after them. */
const derived = (fig: Figure) => /[−/÷]/.test(fig.label);

function hugeFigures(ev: Evidence): InputProblem[] {
  const seen = new Set<number>();
  const out: InputProblem[] = [];
  // One problem a line, at a printed figure rather than one derived from it.
  const figures = figuresOf(ev).sort((a, b) => Number(derived(a)) - Number(derived(b)));
  for (const fig of figures) {
    if (Math.abs(fig.value) <= Number.MAX_SAFE_INTEGER || seen.has(fig.line)) continue;
    seen.add(fig.line);
    out.push(
      problem(
        fig,
        `expected ${fig.label} as a whole number up to 2^53 − 1 (${groupedNumber(Number.MAX_SAFE_INTEGER)}), found ${fmt(fig.value)}: not an exact count a server could print (no table has so many rows or bytes, and a double holds whole numbers exactly only up to 2^53)`,
      ),
    );
  }
  return out;
}

/** Every input that names a table names the table of the DDL (or of table.name). */
function nameProblems(inputs: readonly Evidence[], f: CheckFacts): InputProblem[] {
  const out: InputProblem[] = [];
  for (const ev of inputs) {
    const t = ev.table;
    if (!t || t.name.toLowerCase() === f.table.toLowerCase()) continue;
    out.push(
      problem(
        t,
        `expected the figures of table ${f.table} (${f.namedAt.what}, ${ref(f.namedAt, t.file)}), found table "${t.name}" in ${t.kind}'s output`,
      ),
    );
  }
  return out;
}

/** The DBMS that printed an input, where it says so, and how to call it in a message. */
function serverOf(ev: Evidence): { dbms: DdlDbms; at: { file: string; line: number }; what: string } | undefined {
  const first = ev.table ?? figuresOf(ev)[0];
  if (!first) return undefined;
  const kind = 'kind' in first ? first.kind : undefined;
  if (!kind) return undefined;
  if (kind === 'sp_spaceused') {
    if (!ev.server) return undefined;
    return {
      dbms: ev.server.dbms,
      at: { file: first.file, line: ev.server.line },
      what: `sp_spaceused's output (${dbmsName(ev.server.dbms)}'s: its header names ${ev.server.sign})`,
    };
  }
  const dbms = evidenceDbms(kind);
  if (!dbms) return undefined;
  return { dbms, at: { file: first.file, line: first.line }, what: `${kind}'s output (${dbmsName(dbms)}'s)` };
}

/**
 * One table, one DBMS: each input's DBMS is the first input's, the DDL's where its text shows one, and
 * engine.format's. A format checked against inputs of another DBMS would calibrate one server's
 * figures with another's rows and pages.
 */
function familyProblems(inputs: readonly Evidence[], f: CheckFacts): InputProblem[] {
  const out: InputProblem[] = [];
  const servers = inputs.map(serverOf).filter((s) => s !== undefined);
  const first = servers[0];
  for (const s of servers.slice(1)) {
    if (s.dbms === first!.dbms) continue;
    out.push(
      problem(
        s.at,
        `expected the output of ${dbmsName(first!.dbms)}'s tools, as ${first!.what} at ${ref(first!.at, s.at.file)} is, found ${s.what}: one table is on one server`,
      ),
    );
  }
  if (out.length) return out;
  const d = f.dialect;
  for (const s of servers) {
    if (!d || s.dbms === d.dbms) continue;
    out.push(
      problem(
        s.at,
        `expected the output of ${dbmsName(d.dbms)}'s tools for table ${f.table}, whose DDL is ${dbmsName(d.dbms)}'s (${d.at.what} at ${ref(d.at, s.at.file)}), found ${s.what}: one table is on one server`,
      ),
    );
  }
  if (out.length || !first || first.dbms === getFormat(f.format).dbms) return out;
  const formats = availableFormats().filter((id) => getFormat(id).dbms === first.dbms);
  const fix = f.formatAt.file === '--format' ? `--format ${formats.join(' or ')}` : `engine.format ${formats.join(' or ')}`;
  out.push(
    problem(
      f.formatAt,
      `expected a format of ${dbmsName(first.dbms)} (${fix}) for ${first.what} at ${ref(first.at, f.formatAt.file)}, found ${f.format} (${f.formatAt.what}), a format of ${dbmsName(getFormat(f.format).dbms)}`,
    ),
  );
  return out;
}

/**
 * pgstattuple: tuple_len, dead_tuple_len and free_space are bytes of table_len (the rest is page
 * headers and line pointers), so neither alone nor together are they more; each percentage is 100 ×
 * its length ÷ table_len, printed to 0.01, and no percentage is below 0 or over 100.
 */
function pgstattupleProblems(ev: Evidence): InputProblem[] {
  const len = ev.tableBytes;
  if (!len || len.kind !== 'pgstattuple') return [];
  const out: InputProblem[] = [];
  for (const p of ev.percents ?? []) {
    if (p.value < 0 || p.value > 100) out.push(problem(p, `expected ${p.label} from 0 to 100, found ${fmt(p.value)}`));
  }
  const parts = [ev.tupleBytes, ev.deadTupleBytes, ev.freeBytes].filter((x): x is Figure => x !== undefined);
  const over = parts.find((x) => x.value > len.value);
  if (over)
    out.push(
      problem(over, `expected ${over.label} at most table_len (${fmt(len.value)}, ${ref(len, over.file)}), found ${fmt(over.value)}`),
    );
  const sum = parts.reduce((s, x) => s + x.value, 0);
  if (!over && parts.length > 1 && sum > len.value) {
    out.push(
      problem(
        parts[parts.length - 1]!,
        `expected ${parts.map((x) => x.label).join(' + ')} at most table_len (${fmt(len.value)}, ${ref(len, parts[0]!.file)}), found ${parts.map((x) => fmt(x.value)).join(' + ')} = ${fmt(sum)}`,
      ),
    );
  }
  if (out.length || len.value === 0) return out;
  for (const p of ev.percents ?? []) {
    const part = parts.find((x) => x.label.replace(/_len$|_space$/, '') === p.label.replace(/_percent$/, ''));
    if (!part) continue;
    const share = (100 * part.value) / len.value;
    if (Math.abs(share - p.value) > PERCENT_TOLERANCE) {
      out.push(
        problem(
          p,
          `expected ${p.label} ${fmt(Math.round(share * 100) / 100)} (100 × ${part.label} ${fmt(part.value)} at ${ref(part, p.file)} ÷ table_len ${fmt(len.value)}), found ${fmt(p.value)}`,
        ),
      );
    }
  }
  return out;
}

/** sys.dm_db_index_physical_stats: min_record_size ≤ avg_record_size ≤ max_record_size (the average printed to 0.01). */
function recordSizeProblems(ev: Evidence): InputProblem[] {
  const r = ev.recordBytes;
  if (!r) return [];
  const { min, max, avg } = r;
  if (min && max && min.value > max.value)
    return [
      problem(
        min,
        `expected min_record_size_in_bytes at most max_record_size_in_bytes (${fmt(max.value)}, ${ref(max, min.file)}), found ${fmt(min.value)}`,
      ),
    ];
  if (ev.records?.value === 0) return [];
  const tol = PERCENT_TOLERANCE;
  if (min && avg.value < min.value - tol)
    return [
      problem(
        avg,
        `expected avg_record_size_in_bytes from min_record_size_in_bytes ${fmt(min.value)} (${ref(min, avg.file)}) to the max, found ${fmt(avg.value)}`,
      ),
    ];
  if (max && avg.value > max.value + tol)
    return [
      problem(
        avg,
        `expected avg_record_size_in_bytes at most max_record_size_in_bytes ${fmt(max.value)} (${ref(max, avg.file)}), found ${fmt(avg.value)}`,
      ),
    ];
  return [];
}

/**
 * Counts within counts: pg_stat_user_tables' HOT updates, and HOT plus new-page updates (PostgreSQL 16:
 * non-HOT updates whose new version went to another page), within n_tup_upd; optdiag's empty data
 * pages within its data pages.
 */
function counterProblems(ev: Evidence): InputProblem[] {
  const out: InputProblem[] = [];
  const { updates: upd, hotUpdates: hot, newpageUpdates: newpage } = ev;
  if (upd && hot && hot.value > upd.value)
    out.push(problem(hot, `expected n_tup_hot_upd at most n_tup_upd (${fmt(upd.value)}, ${ref(upd, hot.file)}), found ${fmt(hot.value)}`));
  else if (upd && hot && newpage && newpage.value + hot.value > upd.value) {
    out.push(
      problem(
        newpage,
        `expected n_tup_newpage_upd at most n_tup_upd − n_tup_hot_upd (${fmt(upd.value)} at ${ref(upd, newpage.file)} − ${fmt(hot.value)} at ${ref(hot, newpage.file)} = ${fmt(upd.value - hot.value)}: a new-page update is never HOT), found ${fmt(newpage.value)}`,
      ),
    );
  }
  const { emptyPages: empty, pages } = ev;
  if (empty && pages && empty.value > pages.value)
    out.push(
      problem(
        empty,
        `expected ${empty.label} at most ${pages.label} (${fmt(pages.value)}, ${ref(pages, empty.file)}), found ${fmt(empty.value)}`,
      ),
    );
  return out;
}

/** An input's rows and its pages, where it gives both: pages (sizes as pages of the config's page size). */
function rowsAndPages(ev: Evidence, pageBytes: number): { rows: Figure; pages: Figure; count: number; label: string } | undefined {
  const rows = ev.rows;
  if (!rows) return undefined;
  if (ev.pages) return { rows, pages: ev.pages, count: ev.pages.value, label: `${ev.pages.label} ${fmt(ev.pages.value)}` };
  if (ev.tableBytes)
    return {
      rows,
      pages: ev.tableBytes,
      count: Math.floor(ev.tableBytes.value / pageBytes),
      label: `${ev.tableBytes.label} ${fmt(ev.tableBytes.value)} bytes`,
    };
  if (ev.dataKB)
    return {
      rows,
      pages: ev.dataKB,
      count: Math.floor((ev.dataKB.value * 1024) / pageBytes),
      label: `${ev.dataKB.label} ${fmt(ev.dataKB.value)} KB`,
    };
  return undefined;
}

/**
 * Rows need room: each takes at least the format's shortest row of the table and its slot, and a page
 * holds at most maxRowsPerPage; so the rows an input counts need at least ⌈rows ÷ rows a page⌉ of the
 * pages it counts. Compressed pages (the DMV's compressed_page_count) hold shorter rows: not checked.
 */
function capacityProblems(ev: Evidence, f: CheckFacts): InputProblem[] {
  const rp = rowsAndPages(ev, f.pageBytes);
  if (!rp || rp.rows.value <= 0 || (ev.compressedPages?.value ?? 0) > 0) return [];
  const { rowBytes, slotBytes, dataBytes } = f.shortest;
  const perPage = Math.min(f.maxRowsPerPage, Math.floor(f.usableBytes / (rowBytes + slotBytes)));
  const need = perPage > 0 ? Math.ceil(rp.rows.value / perPage) : Infinity;
  if (rp.count >= need) return [];
  const kb = f.pageBytes % 1024 === 0 ? `${f.pageBytes / 1024} KB` : `${f.pageBytes} bytes`;
  const why = `the shortest row of table ${f.table} takes ${rowBytes} bytes on ${f.format} (${dataBytes} data bytes) and ${slotBytes} more for its slot, at most ${fmt(perPage)} rows a page of ${kb}`;
  return [
    problem(
      rp.pages,
      `expected at least ${fmt(need)} pages of ${kb} for ${rp.rows.label} ${fmt(rp.rows.value)} (${ref(rp.rows, rp.pages.file)}), found ${rp.label}, which cannot hold them: ${why}`,
    ),
  ];
}

/**
 * sp_spaceused's data against the other input's data pages. ASE: optdiag's Data page count, either
 * way, within PAGES_TOLERANCE (and a page of KB rounding). SQL Server: sp_spaceused counts LOB and
 * row-overflow pages as data too, so only fewer pages than the DMV's in-row page_count is refused.
 */
function pageAgreement(inputs: readonly Evidence[], f: CheckFacts): InputProblem[] {
  const su = inputs.find((e) => e.dataKB && e.server);
  const other = inputs.find((e) => e !== su && e.pages && (e.pages.kind === 'optdiag' || e.pages.kind === 'index_physical_stats'));
  if (!su || !other) return [];
  const kb = su.dataKB!;
  const pages = other.pages!;
  const fromKb = (kb.value * 1024) / f.pageBytes;
  const tolerance = PAGES_TOLERANCE * Math.max(fromKb, pages.value) + 1;
  const sqlserver = pages.kind === 'index_physical_stats';
  const far = sqlserver ? pages.value - fromKb > tolerance : Math.abs(fromKb - pages.value) > tolerance;
  if (!far) return [];
  const pageKb = f.pageBytes / 1024;
  const allowed = sqlserver
    ? `at least ${fmt(pages.value)} pages less 1%`
    : `${fmt(pages.value)} pages within 1% (allocation and OAM pages one input may count and the other not, and KB rounding)`;
  return [
    problem(
      kb,
      `expected data to agree with ${pages.kind} ${pages.label} ${fmt(pages.value)} (${ref(pages, kb.file)}): ${allowed}, found data ${fmt(kb.value)} KB, ${fmt(Math.round(fromKb * 100) / 100)} pages of ${pageKb} KB`,
    ),
  ];
}

/**
 * The facts the checks need, from the loaded table, engine and layout; `loc` places the config's keys
 * (the command line's config: its format is --format's).
 */
export function checkFacts(table: TableDef, engine: EngineSpec, layout: TableLayout, loc: YamlLocator): CheckFacts {
  const s = table.storage;
  const configKey = (path: string[], what: string): Place => {
    const p = loc.problem(path, '');
    return { file: p.file, ...(p.line !== undefined ? { line: p.line, column: p.column } : {}), what };
  };
  const ddlPlace = (at: { line: number }, what: string): Place =>
    s?.file ? { file: s.file, line: at.line, what } : { ...configKey(['table', 'ddl'], what), note: `table.ddl's line ${at.line}` };
  const created = s?.created && s.created.value.toLowerCase() === table.name.toLowerCase() ? s.created : undefined;
  const namedAt = created ? ddlPlace(created, `CREATE TABLE ${created.value}`) : configKey(['table', 'name'], `table.name ${table.name}`);
  const commandLine = loc.file === '(command line)';
  const formatAt: Place = commandLine
    ? { file: '--format', what: 'given by --format, or without it taken from the kinds of files given' }
    : configKey(['engine', 'format'], 'engine.format');
  const g = layout.geometry;
  return {
    table: table.name,
    namedAt,
    format: engine.format,
    formatAt,
    ...(s?.dialect ? { dialect: { dbms: s.dialect.value, at: ddlPlace(s.dialect, s.dialect.sign) } } : {}),
    pageBytes: engine.page_size,
    shortest: { dataBytes: dataLengthRange(layout).min, rowBytes: layout.minRowBytes, slotBytes: g.slotBytes },
    usableBytes: g.usableBytes,
    maxRowsPerPage: g.maxRowsPerPage,
  };
}
