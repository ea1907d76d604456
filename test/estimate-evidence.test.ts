/**
 * The readers of the DBA's tools' output: optdiag, sp_spaceused, sys.dm_db_index_physical_stats (CSV),
 * pgstattuple and pg_stat_user_tables (psql aligned, expanded and CSV), and their merge. Each reads the
 * shipped examples (sim-configs/estimate/) and refuses bad input at file:line:column.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeEvidence } from '../src/estimate/evidence/merge.js';
import { parseIndexPhysicalStats } from '../src/estimate/evidence/index-stats.js';
import { parseOptdiag } from '../src/estimate/evidence/optdiag.js';
import { parsePgstattuple, parsePgStatUserTables } from '../src/estimate/evidence/pgstat.js';
import { parseSpaceused } from '../src/estimate/evidence/spaceused.js';
import type { Evidence, ReadOutcome } from '../src/estimate/evidence/types.js';
import { ROOT } from './helpers/cli.js';

const example = (f: string) => readFileSync(join(ROOT, 'sim-configs', 'estimate', f), 'utf8');
const ok = (r: ReadOutcome): Evidence => {
  expect(r.problems).toEqual([]);
  return r.evidence!;
};
const bad = (r: ReadOutcome) => {
  expect(r.evidence).toBeUndefined();
  return r.problems[0]!;
};

/** The optdiag sample of the ASE manual's "Using optdiag to check for forwarded rows" (titles), in optdiag's layout. */
const MANUAL_OPTDIAG = `Statistics for table:               "titles"

     Data page count:               655
     Empty data page count:         5
     Data row count:                4959.000000000
     Forwarded row count:           12.000000000
     Deleted row count:             84.000000000
     Data page CR count:            0.000000000
     OAM + allocation page count:   6
     Pages in allocation extent:    1
     Data row size:                 184.000000000
`;

describe('optdiag', () => {
  it('reads the shipped example: table figures, the partition block, per-column statistics', () => {
    const e = ok(parseOptdiag(example('titles.optdiag.txt'), 'o.txt', 'titles'));
    expect(e.table?.name).toBe('titles');
    expect([e.rows?.value, e.pages?.value, e.forwarded?.value, e.deleted?.value, e.emptyPages?.value, e.avgRowBytes?.value]).toEqual([5_000_000, 503_750, 526_600, 0, 0, 184]);
    expect(e.forwarded).toMatchObject({ label: 'Forwarded row count', line: 16 });
    expect(e.columns).toEqual([{ name: 'title_id', avgWidth: 6, line: 61 }]);
  });

  it("reads the manual's titles figures (4,959 rows, 655 pages, 12 forwarded, 184 bytes) [V]", () => {
    const e = ok(parseOptdiag(MANUAL_OPTDIAG, 'm.txt', 'titles'));
    expect([e.rows?.value, e.pages?.value, e.forwarded?.value, e.deleted?.value, e.emptyPages?.value, e.avgRowBytes?.value]).toEqual([4959, 655, 12, 84, 5, 184]);
  });

  it('sums partitions when the table block is absent, and takes the NULL step of a histogram', () => {
    const text = [
      'Table name:                     "t"',
      'Statistics for partition:               "t_1"',
      '     Data page count:                   10',
      '     Data row count:                    100.0',
      '     Forwarded row count:               5.0',
      '     Data row size:                     50.0',
      'Statistics for partition:               "t_2"',
      '     Data page count:                   30',
      '     Data row count:                    300.0',
      '     Forwarded row count:               1.0',
      '     Data row size:                     90.0',
      'Statistics for column:                  "note"',
      '     Average column width:              41.5',
      'Histogram for column:                   "note"',
      '     Step     Weight                    Value',
      '        1     0.25000000       =        NULL',
      '        2     0.75000000       <=       "zz"',
    ].join('\n');
    const e = ok(parseOptdiag(text, 'p.txt', 't'));
    expect([e.rows?.value, e.pages?.value, e.forwarded?.value, e.avgRowBytes?.value]).toEqual([400, 40, 6, 80]);
    expect(e.columns).toEqual([{ name: 'note', avgWidth: 41.5, nullShare: 0.25, line: 12 }]);
    expect(e.notes.join()).toMatch(/sums of 2 partitions/);
  });

  it('refuses what is not optdiag, figures that are not numbers, more forwarded rows than rows, another table', () => {
    expect(bad(parseOptdiag('hello\n', 'x.txt'))).toMatchObject({ file: 'x.txt', line: 1, column: 1 });
    const p = bad(parseOptdiag(MANUAL_OPTDIAG.replace('4959.000000000', 'many'), 'x.txt'));
    expect(p).toMatchObject({ line: 5, column: 37 });
    expect(p.message).toMatch(/a number ≥ 0 for Data row count, found "many"/);
    expect(bad(parseOptdiag(MANUAL_OPTDIAG.replace('12.000000000', '5000'), 'x.txt'))).toMatchObject({ line: 6 });
    expect(bad(parseOptdiag(MANUAL_OPTDIAG.replace(/^ +Data row size.*$/m, ''), 'x.txt')).message).toMatch(/"Data row size"/);
    const two = `Table name: "a"\n${MANUAL_OPTDIAG.replace('"titles"', '"a"')}Table name: "b"\n${MANUAL_OPTDIAG.replace('"titles"', '"b"')}`;
    expect(ok(parseOptdiag(two, 'x.txt', 'b')).table?.name).toBe('b');
    expect(bad(parseOptdiag(two, 'x.txt', 'titles')).message).toMatch(/table titles, found "a", "b"/);
  });
});

describe('sp_spaceused', () => {
  it('reads ASE (rowtotal) and SQL Server (rows) output, sizes with their units', () => {
    const ase = ok(parseSpaceused(example('titles.sp_spaceused.txt'), 's.txt', 'titles'));
    expect([ase.rows?.value, ase.dataKB?.value, ase.reservedKB?.value, ase.unusedKB?.value]).toEqual([5_000_000, 1_007_500, 1_085_160, 4828]);
    const mss = ok(parseSpaceused(example('case_notes.sp_spaceused.txt'), 's.txt', 'case_notes'));
    expect([mss.rows?.value, mss.dataKB?.value]).toEqual([2_000_000, 393_440]);
    const piped = ok(parseSpaceused('name|rowtotal|reserved|data|index_size|unused\nt|10|2 MB|1 MB|8 KB|0 KB\n', 's.txt'));
    expect(piped.dataKB?.value).toBe(1024);
  });

  it('refuses the database summary, a size without a unit and another table, with positions', () => {
    expect(bad(parseSpaceused('database_name database_size unallocated space\npubs2 12.0 MB 1.2 MB\n', 's.txt')).message).toMatch(/database summary/);
    const p = bad(parseSpaceused(' name rowtotal reserved data index_size unused\n ---- -------- -------- ---- ---------- ------\n t 10 20 KB lots 4 KB 2 KB\n', 's.txt'));
    expect(p).toMatchObject({ line: 3 });
    expect(p.message).toMatch(/4 values|found "lots"|expected 6 values/);
    expect(bad(parseSpaceused(example('titles.sp_spaceused.txt'), 's.txt', 'authors'))).toMatchObject({ line: 7, column: 2 });
  });
});

describe('sys.dm_db_index_physical_stats', () => {
  it('reads the heap row: live rows = records − forwarded, the stubs taken out of the average record', () => {
    const e = ok(parseIndexPhysicalStats(example('case_notes.index_physical_stats.csv'), 'd.csv', 'case_notes'));
    expect([e.rows?.value, e.forwarded?.value, e.pages?.value]).toEqual([2_000_000, 596_400, 49_180]);
    expect(e.avgRowBytes!.value).toBeCloseTo((140.72 * 2_596_400 - 9 * 596_400) / 2_000_000, 6);
    expect(e.minRowBytes).toBeUndefined(); // the smallest record is a stub
    expect(e.maxRowBytes?.value).toBe(641);
  });

  it('refuses LIMITED mode (NULL record figures), a table with a clustered index, a missing column', () => {
    const header = 'index_id,index_type_desc,alloc_unit_type_desc,page_count,record_count,forwarded_record_count,avg_record_size_in_bytes';
    const p = bad(parseIndexPhysicalStats(`${header}\n0,HEAP,IN_ROW_DATA,100,NULL,NULL,NULL\n`, 'd.csv'));
    expect(p).toMatchObject({ line: 2, column: 24 });
    expect(p.message).toMatch(/SAMPLED or DETAILED/);
    expect(bad(parseIndexPhysicalStats(`${header}\n1,CLUSTERED INDEX,IN_ROW_DATA,100,10,NULL,50\n`, 'd.csv')).message).toMatch(/clustered index has no forwarded records/);
    expect(bad(parseIndexPhysicalStats('index_id,page_count\n0,10\n', 'd.csv')).message).toMatch(/record_count/);
  });
});

describe('pgstattuple and pg_stat_user_tables', () => {
  const ALIGNED = example('ticket_events.pgstattuple.txt');
  it('reads pgstattuple aligned, expanded and as CSV alike', () => {
    const a = ok(parsePgstattuple(ALIGNED, 'p.txt'));
    expect([a.tableBytes?.value, a.rows?.value, a.avgRowBytes?.value, a.deadTuples?.value]).toEqual([806_584_320, 3_000_000, 140, 12_410]);
    const expanded = '-[ RECORD 1 ]------+-------\ntable_len          | 458752\ntuple_count        | 1470\ntuple_len          | 438896\ndead_tuple_count   | 11\nfree_space         | 8932\n';
    expect(ok(parsePgstattuple(expanded, 'p.txt')).rows?.value).toBe(1470);
    const csv = 'table_len,tuple_count,tuple_len,tuple_percent\n458752,1470,438896,95.67\n';
    expect(ok(parsePgstattuple(csv, 'p.txt')).avgRowBytes?.value).toBeCloseTo(438896 / 1470, 9);
  });

  it('reads pg_stat_user_tables (PostgreSQL 16 has n_tup_newpage_upd; before it, the non-HOT updates)', () => {
    const e = ok(parsePgStatUserTables(example('ticket_events.pg_stat_user_tables.txt'), 's.txt', 'ticket_events'));
    expect([e.updates?.value, e.hotUpdates?.value, e.newpageUpdates?.value, e.rows?.value]).toEqual([3_000_000, 282_690, 2_717_310, 3_000_000]);
    const old = ' relname | n_tup_ins | n_tup_upd | n_tup_hot_upd | n_live_tup\n---------+-----------+-----------+---------------+-----------\n t       |       100 |        80 |            20 |        100\n(1 row)\n';
    const o = ok(parsePgStatUserTables(old, 's.txt', 't'));
    expect(o.newpageUpdates).toBeUndefined();
    expect(o.notes.join()).toMatch(/before PostgreSQL 16/);
  });

  it('refuses more HOT updates than updates, a number that is not one, another table', () => {
    const t = ' relname | n_tup_upd | n_tup_hot_upd\n---------+-----------+--------------\n t       |        10 |            20\n';
    expect(bad(parsePgStatUserTables(t, 's.txt', 't'))).toMatchObject({ line: 3, column: 35 });
    expect(bad(parsePgstattuple(ALIGNED.replace('806584320', '80658x320'), 'p.txt'))).toMatchObject({ line: 7, column: 2 });
    expect(bad(parsePgStatUserTables(t, 's.txt', 'other')).message).toMatch(/table other \(relname\), found "t"/);
  });
});

describe('merged evidence', () => {
  it('turns sp_spaceused KB into pages with the page size, and notes figures that disagree', () => {
    const od = ok(parseOptdiag(example('titles.optdiag.txt'), 'o.txt', 'titles'));
    const su = ok(parseSpaceused(example('titles.sp_spaceused.txt').replace('1007500 KB', '1107500 KB'), 's.txt', 'titles'));
    const { measurements: m } = mergeEvidence([su, od], 2048, 'titles', 'forwarded_rows');
    expect(m!.kinds).toEqual(['optdiag', 'sp_spaceused']);
    expect(m!.pages?.value).toBe(503_750); // optdiag first
    expect(m!.notes.join()).toMatch(/sp_spaceused gives data 1,107,500 KB ÷ 2 KB pages 553,750, optdiag Data page count 503,750/);
    expect(m!.moved).toMatchObject({ count: 526_600, basis: 5_000_000, basisWord: 'rows' });
    const alone = mergeEvidence([su], 2048, 'titles', 'forwarded_rows').measurements!;
    expect(alone.pages?.value).toBe(553_750);
  });

  it('takes PostgreSQL moved updates per update, and pages from table_len', () => {
    const a = ok(parsePgstattuple(example('ticket_events.pgstattuple.txt'), 'p.txt'));
    const s = ok(parsePgStatUserTables(example('ticket_events.pg_stat_user_tables.txt'), 's.txt', 'ticket_events'));
    const m = mergeEvidence([a, s], 8192, 'ticket_events', 'newpage_updates').measurements!;
    expect(m.pages?.value).toBe(98_460);
    expect(m.moved).toMatchObject({ count: 2_717_310, basis: 3_000_000, basisWord: 'updates' });
    expect(mergeEvidence([a], 8000, 'ticket_events', 'newpage_updates').problems[0]!.message).toMatch(/whole number of 8000-byte pages/);
  });

  it("refuses another table's figures at the line that names it", () => {
    const od = ok(parseOptdiag(example('titles.optdiag.txt'), 'o.txt'));
    expect(mergeEvidence([od], 2048, 'authors', 'forwarded_rows').problems[0]).toMatchObject({ file: 'o.txt', line: 9 });
  });
});
