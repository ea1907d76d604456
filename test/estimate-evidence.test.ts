/**
 * The readers of the DBA's tools' output: optdiag, sp_spaceused, sys.dm_db_index_physical_stats (CSV),
 * pgstattuple and pg_stat_user_tables (psql aligned, expanded and CSV), and their merge. Each reads the
 * shipped examples (sim-configs/estimate/) and refuses bad input at file:line:column.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consistencyProblems, type CheckFacts } from '../src/estimate/evidence/consistency.js';
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
    expect([e.rows?.value, e.pages?.value, e.forwarded?.value, e.deleted?.value, e.emptyPages?.value, e.avgRowBytes?.value]).toEqual([
      5_000_000, 503_750, 526_600, 0, 0, 184,
    ]);
    expect(e.forwarded).toMatchObject({ label: 'Forwarded row count', line: 16 });
    expect(e.columns).toEqual([{ name: 'title_id', avgWidth: 6, line: 61 }]);
  });

  it("reads the manual's titles figures (4,959 rows, 655 pages, 12 forwarded, 184 bytes) [V]", () => {
    const e = ok(parseOptdiag(MANUAL_OPTDIAG, 'm.txt', 'titles'));
    expect([e.rows?.value, e.pages?.value, e.forwarded?.value, e.deleted?.value, e.emptyPages?.value, e.avgRowBytes?.value]).toEqual([
      4959, 655, 12, 84, 5, 184,
    ]);
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
    expect([ase.rows?.value, ase.dataKB?.value, ase.reservedKB?.value, ase.unusedKB?.value]).toEqual([
      5_000_000, 1_007_500, 1_085_160, 4828,
    ]);
    const mss = ok(parseSpaceused(example('case_notes.sp_spaceused.txt'), 's.txt', 'case_notes'));
    expect([mss.rows?.value, mss.dataKB?.value]).toEqual([2_000_000, 393_440]);
    const piped = ok(parseSpaceused('name|rowtotal|reserved|data|index_size|unused\nt|10|2 MB|1 MB|8 KB|0 KB\n', 's.txt'));
    expect(piped.dataKB?.value).toBe(1024);
  });

  it('refuses the database summary and a size without a unit, with positions; keeps the table name and whose output it is', () => {
    expect(bad(parseSpaceused('database_name database_size unallocated space\npubs2 12.0 MB 1.2 MB\n', 's.txt')).message).toMatch(
      /database summary/,
    );
    const p = bad(
      parseSpaceused(
        ' name rowtotal reserved data index_size unused\n ---- -------- -------- ---- ---------- ------\n t 10 20 KB lots 4 KB 2 KB\n',
        's.txt',
      ),
    );
    expect(p).toMatchObject({ line: 3 });
    expect(p.message).toMatch(/4 values|found "lots"|expected 6 values/);
    // Another table is refused by the cross-checks, which name the DDL too.
    expect(ok(parseSpaceused(example('titles.sp_spaceused.txt'), 's.txt', 'authors'))).toMatchObject({
      table: { name: 'titles', line: 7 },
      server: { dbms: 'ase', sign: 'rowtotal', line: 5 },
    });
    expect(ok(parseSpaceused(example('case_notes.sp_spaceused.txt'), 's.txt')).server).toEqual({
      dbms: 'sqlserver',
      sign: 'rows',
      line: 3,
    });
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
    expect(bad(parseIndexPhysicalStats(`${header}\n1,CLUSTERED INDEX,IN_ROW_DATA,100,10,NULL,50\n`, 'd.csv')).message).toMatch(
      /clustered index has no forwarded records/,
    );
    expect(bad(parseIndexPhysicalStats('index_id,page_count\n0,10\n', 'd.csv')).message).toMatch(/record_count/);
  });
});

describe('pgstattuple and pg_stat_user_tables', () => {
  const ALIGNED = example('ticket_events.pgstattuple.txt');
  it('reads pgstattuple aligned, expanded and as CSV alike', () => {
    const a = ok(parsePgstattuple(ALIGNED, 'p.txt'));
    expect([a.tableBytes?.value, a.rows?.value, a.avgRowBytes?.value, a.deadTuples?.value]).toEqual([806_584_320, 3_000_000, 140, 12_410]);
    const expanded =
      '-[ RECORD 1 ]------+-------\ntable_len          | 458752\ntuple_count        | 1470\ntuple_len          | 438896\ndead_tuple_count   | 11\nfree_space         | 8932\n';
    expect(ok(parsePgstattuple(expanded, 'p.txt')).rows?.value).toBe(1470);
    const csv = 'table_len,tuple_count,tuple_len,tuple_percent\n458752,1470,438896,95.67\n';
    expect(ok(parsePgstattuple(csv, 'p.txt')).avgRowBytes?.value).toBeCloseTo(438896 / 1470, 9);
  });

  it('reads pg_stat_user_tables (PostgreSQL 16 has n_tup_newpage_upd; before it, the non-HOT updates)', () => {
    const e = ok(parsePgStatUserTables(example('ticket_events.pg_stat_user_tables.txt'), 's.txt', 'ticket_events'));
    expect([e.updates?.value, e.hotUpdates?.value, e.newpageUpdates?.value, e.rows?.value]).toEqual([
      3_000_000, 282_690, 2_717_310, 3_000_000,
    ]);
    const old =
      ' relname | n_tup_ins | n_tup_upd | n_tup_hot_upd | n_live_tup\n---------+-----------+-----------+---------------+-----------\n t       |       100 |        80 |            20 |        100\n(1 row)\n';
    const o = ok(parsePgStatUserTables(old, 's.txt', 't'));
    expect(o.newpageUpdates).toBeUndefined();
    expect(o.notes.join()).toMatch(/before PostgreSQL 16/);
  });

  it('refuses a number that is not one, and a table not among several rows', () => {
    const t =
      ' relname | n_tup_upd | n_tup_hot_upd\n---------+-----------+--------------\n t       |        10 |            20\n u       |        10 |             2\n';
    expect(bad(parsePgstattuple(ALIGNED.replace('806584320', '80658x320'), 'p.txt'))).toMatchObject({ line: 7, column: 2 });
    expect(bad(parsePgStatUserTables(t, 's.txt', 'other')).message).toMatch(/table other \(relname\), found "t", "u"/);
    // One row of another table, or more HOT updates than updates: the cross-checks refuse them.
    expect(ok(parsePgStatUserTables(t.replace(/ u .*\n/, ''), 's.txt', 'other')).table?.name).toBe('t');
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

describe('figures that cannot all be true (consistency.ts)', () => {
  const D = '/ex/';
  const read = {
    optdiag: (text = example('titles.optdiag.txt')) => ok(parseOptdiag(text, `${D}titles.optdiag.txt`, 'titles')),
    spaceused: (text = example('titles.sp_spaceused.txt')) => ok(parseSpaceused(text, `${D}titles.sp_spaceused.txt`, 'titles')),
    dmv: (text = example('case_notes.index_physical_stats.csv')) => ok(parseIndexPhysicalStats(text, `${D}case_notes.csv`, 'case_notes')),
    mssSpaceused: (text = example('case_notes.sp_spaceused.txt')) =>
      ok(parseSpaceused(text, `${D}case_notes.sp_spaceused.txt`, 'case_notes')),
    pgstattuple: (text = example('ticket_events.pgstattuple.txt')) => ok(parsePgstattuple(text, `${D}te.pgstattuple.txt`)),
    pgStat: (text = example('ticket_events.pg_stat_user_tables.txt')) =>
      ok(parsePgStatUserTables(text, `${D}te.stat.txt`, 'ticket_events')),
  };
  // titles on ase-dol, 2 KB pages: the shortest row 8 + 21 + 2 × 7 = 43 bytes [E], 2 bytes of row offset table.
  const TITLES: CheckFacts = {
    table: 'titles',
    namedAt: { file: `${D}titles.ddlgen.sql`, line: 35, what: 'CREATE TABLE titles' },
    format: 'ase-dol',
    formatAt: { file: `${D}t.yaml`, line: 6, what: 'engine.format' },
    dialect: { dbms: 'ase', at: { file: `${D}titles.ddlgen.sql`, line: 47, what: 'lock datarows' } },
    pageBytes: 2048,
    shortest: { dataBytes: 21, rowBytes: 43, slotBytes: 2 },
    usableBytes: 2002,
    maxRowsPerPage: 166,
  };
  const CASE_NOTES: CheckFacts = {
    ...TITLES,
    table: 'case_notes',
    namedAt: { file: `${D}cn.sql`, line: 7, what: 'CREATE TABLE case_notes' },
    format: 'sqlserver-heap',
    dialect: { dbms: 'sqlserver', at: { file: `${D}cn.sql`, line: 7, what: '[dbo]' } },
    pageBytes: 8192,
    shortest: { dataBytes: 20, rowBytes: 29, slotBytes: 2 },
    usableBytes: 8096,
    maxRowsPerPage: 700,
  };
  const TICKETS: CheckFacts = {
    ...TITLES,
    table: 'ticket_events',
    namedAt: { file: `${D}te.sql`, line: 4, what: 'CREATE TABLE ticket_events' },
    format: 'postgres-heap',
    dialect: { dbms: 'postgres', at: { file: `${D}te.sql`, line: 4, what: 'public.' } },
    pageBytes: 8192,
    shortest: { dataBytes: 16, rowBytes: 40, slotBytes: 4 },
    usableBytes: 8168,
    maxRowsPerPage: 291,
  };
  const one = (inputs: Evidence[], f: CheckFacts) => {
    const p = consistencyProblems(inputs, f);
    expect(p).toHaveLength(1);
    return p[0]!;
  };

  it('passes the shipped examples', () => {
    expect(consistencyProblems([read.optdiag(), read.spaceused()], TITLES)).toEqual([]);
    expect(consistencyProblems([read.mssSpaceused(), read.dmv()], CASE_NOTES)).toEqual([]);
    expect(consistencyProblems([read.pgstattuple(), read.pgStat()], TICKETS)).toEqual([]);
  });

  it('refuses rows the pages cannot hold at the shortest row (1 data page for 100,000 rows), and rows on no pages', () => {
    const od = read.optdiag(
      example('titles.optdiag.txt')
        .replace('503750', '1')
        .replace('5000000.0000000000000000', '100000')
        .replace('526600.0000000000000000', '10'),
    );
    const p = one([od], TITLES);
    expect(p).toMatchObject({ file: `${D}titles.optdiag.txt`, line: 13 });
    expect(p.message).toBe(
      'expected at least 2,273 pages of 2 KB for Data row count 100,000 (titles.optdiag.txt:15), found Data page count 1, which cannot hold them: the shortest row of table titles takes 43 bytes on ase-dol (21 data bytes) and 2 more for its slot, at most 44 rows a page of 2 KB',
    );
    // 2,273 pages hold them: no problem.
    expect(
      consistencyProblems(
        [
          read.optdiag(
            example('titles.optdiag.txt')
              .replace('503750', '2273')
              .replace('5000000.0000000000000000', '100000')
              .replace('526600.0000000000000000', '10'),
          ),
        ],
        TITLES,
      ),
    ).toEqual([]);
    const dmv = one([read.dmv(example('case_notes.index_physical_stats.csv').replace(',49180,', ',0,'))], CASE_NOTES);
    expect(dmv).toMatchObject({ line: 7 });
    expect(dmv.message).toMatch(
      /^expected at least 7,663 pages of 8 KB for record_count − forwarded_record_count 2,000,000 \(case_notes\.csv:7\), found page_count 0/,
    );
    const pg = one(
      [
        read.pgstattuple(
          example('ticket_events.pgstattuple.txt').replace(
            ' 806584320 |     3000000 | 420000000 |         52.07 |            12410 |        1240600 |               0.15 |  357931228 |        44.38',
            '      8192 |     3000000 |      8000 |         97.66 |                0 |              0 |                  0 |          0 |            0',
          ),
        ),
      ],
      TICKETS,
    );
    expect(pg.message).toMatch(/found table_len 8,192 bytes, which cannot hold them/);
    const su = one([read.spaceused(example('titles.sp_spaceused.txt').replace('1007500 KB', '2 KB'))], TITLES);
    expect(su.message).toMatch(/for rowtotal 5,000,000 \(titles\.sp_spaceused\.txt:7\), found data 2 KB/);
  });

  it('refuses counts and sizes beyond 2^53: not an exact count a server could print', () => {
    const rows = one([read.optdiag(example('titles.optdiag.txt').replace('5000000.0000000000000000', '1e26'))], TITLES);
    expect(rows).toMatchObject({ line: 15 });
    expect(rows.message).toMatch(
      /^expected Data row count as a whole number up to 2\^53 − 1 \(9,007,199,254,740,991\), found 1e\+26: not an exact count a server could print/,
    );
    const dmv = one([read.dmv(example('case_notes.index_physical_stats.csv').replace(',2596400,', ',1e30,'))], CASE_NOTES);
    expect(dmv.message).toMatch(/^expected record_count as a whole number .* found 1e\+30: not an exact count/);
    const pg = one([read.pgstattuple(example('ticket_events.pgstattuple.txt').replace(' 806584320 |', ' 8e24      |'))], TICKETS);
    expect(pg.message).toMatch(/^expected table_len as a whole number .* found 8e\+24/);
  });

  it("refuses pgstattuple's lengths beyond table_len, percentages over 100 or below 0, and percentages its lengths do not give", () => {
    const row =
      ' 806584320 |     3000000 | 420000000 |         52.07 |            12410 |        1240600 |               0.15 |  357931228 |        44.38';
    const pg = (r: string) => consistencyProblems([read.pgstattuple(example('ticket_events.pgstattuple.txt').replace(row, r))], TICKETS);
    expect(pg(row.replace('420000000', '900000000'))[0]!.message).toBe(
      'expected tuple_len at most table_len (806,584,320, te.pgstattuple.txt:7), found 900,000,000',
    );
    expect(pg(row.replace('357931228', '457931228').replace('44.38', '56.77'))[0]!.message).toMatch(
      /^expected tuple_len \+ dead_tuple_len \+ free_space at most table_len \(806,584,320, te\.pgstattuple\.txt:7\), found 420,000,000 \+ 1,240,600 \+ 457,931,228 = 879,171,828/,
    );
    expect(pg(row.replace('52.07', '161'))[0]!.message).toBe('expected tuple_percent from 0 to 100, found 161');
    expect(pg(row.replace('44.38', '-1'))[0]!.message).toBe('expected free_percent from 0 to 100, found -1');
    expect(pg(row.replace('52.07', '50.00'))[0]!.message).toBe(
      'expected tuple_percent 52.07 (100 × tuple_len 420,000,000 at te.pgstattuple.txt:7 ÷ table_len 806,584,320), found 50',
    );
    expect(pg(row.replace('52.07', '52.08'))).toEqual([]); // within the printed 0.01
  });

  it("refuses sp_spaceused's data beyond 1% of optdiag's Data page count; a smaller difference is a note", () => {
    const far = read.spaceused(example('titles.sp_spaceused.txt').replace('1007500 KB', '1107500 KB'));
    const p = one([read.optdiag(), far], TITLES);
    expect(p).toMatchObject({ file: `${D}titles.sp_spaceused.txt`, line: 7 });
    expect(p.message).toMatch(
      /^expected data to agree with optdiag Data page count 503,750 \(titles\.optdiag\.txt:13\): 503,750 pages within 1% .* found data 1,107,500 KB, 553,750 pages of 2 KB$/,
    );
    // 0.45% more (allocation and OAM pages counted): accepted, and the merge notes it.
    const near = read.spaceused(example('titles.sp_spaceused.txt').replace('1007500 KB', '1012000 KB'));
    expect(consistencyProblems([read.optdiag(), near], TITLES)).toEqual([]);
    expect(mergeEvidence([near, read.optdiag()], 2048, 'titles', 'forwarded_rows').measurements!.notes.join()).toMatch(
      /sp_spaceused gives data 1,012,000 KB ÷ 2 KB pages 506,000, optdiag Data page count 503,750/,
    );
    // SQL Server: sp_spaceused counts LOB and row-overflow pages as data too; fewer than the DMV's in-row pages is refused.
    const more = read.mssSpaceused(example('case_notes.sp_spaceused.txt').replace('393440 KB', '493440 KB'));
    expect(consistencyProblems([more, read.dmv()], CASE_NOTES)).toEqual([]);
    const fewer = read.mssSpaceused(example('case_notes.sp_spaceused.txt').replace('393440 KB', '293440 KB'));
    expect(one([fewer, read.dmv()], CASE_NOTES).message).toMatch(
      /^expected data to agree with index_physical_stats page_count 49,180 \(case_notes\.csv:7\): at least 49,180 pages less 1%, found data 293,440 KB/,
    );
  });

  it("refuses the DMV's record sizes out of order, more HOT or new-page updates than updates, more empty pages than pages", () => {
    const csv = example('case_notes.index_physical_stats.csv');
    expect(one([read.dmv(csv.replace(',9,641,140.72,', ',700,641,140.72,'))], CASE_NOTES).message).toBe(
      'expected min_record_size_in_bytes at most max_record_size_in_bytes (641, case_notes.csv:7), found 700',
    );
    expect(one([read.dmv(csv.replace(',9,641,140.72,', ',9,641,740.72,'))], CASE_NOTES).message).toBe(
      'expected avg_record_size_in_bytes at most max_record_size_in_bytes 641 (case_notes.csv:7), found 740.72',
    );
    expect(one([read.dmv(csv.replace(',9,641,140.72,', ',150,641,140.72,'))], CASE_NOTES).message).toMatch(
      /^expected avg_record_size_in_bytes from min_record_size_in_bytes 150 \(case_notes\.csv:7\)/,
    );
    // More forwarded records than records: the reader refuses it.
    expect(bad(parseIndexPhysicalStats(csv.replace(',596400,', ',2596401,'), 'd.csv', 'case_notes')).message).toMatch(
      /forwarded_record_count at most record_count/,
    );
    const stat = example('ticket_events.pg_stat_user_tables.txt');
    const hot = one([read.pgStat(stat.replace('| 282690', '| 3282690'))], TICKETS);
    expect(hot).toMatchObject({ line: 18 });
    expect(hot.message).toBe('expected n_tup_hot_upd at most n_tup_upd (3,000,000, te.stat.txt:16), found 3,282,690');
    const newpage = one([read.pgStat(stat.replace('| 282690', '| 382690'))], TICKETS);
    expect(newpage).toMatchObject({ line: 19 });
    expect(newpage.message).toMatch(
      /^expected n_tup_newpage_upd at most n_tup_upd − n_tup_hot_upd \(3,000,000 at te\.stat\.txt:16 − 382,690 at te\.stat\.txt:18 = 2,617,310/,
    );
    const empty = one([read.optdiag(MANUAL_OPTDIAG.replace(/Empty data page count: +5/, 'Empty data page count:         700'))], TITLES);
    expect(empty.message).toMatch(/^expected Empty data page count at most Data page count \(655, titles\.optdiag\.txt:3\), found 700$/);
  });

  it("refuses another table's figures, naming the DDL's CREATE TABLE too", () => {
    const su = one([read.spaceused(example('titles.sp_spaceused.txt').replace(' titles      ', ' authors     '))], TITLES);
    expect(su).toMatchObject({ file: `${D}titles.sp_spaceused.txt`, line: 7 });
    expect(su.message).toBe(
      `expected the figures of table titles (CREATE TABLE titles, titles.ddlgen.sql:35), found table "authors" in sp_spaceused's output`,
    );
    const od = read.optdiag(example('titles.optdiag.txt').replace(/"titles"/g, '"authors"'));
    expect(one([od], TITLES)).toMatchObject({ line: 9 });
    expect(
      one([read.pgStat(example('ticket_events.pg_stat_user_tables.txt').replace('| ticket_events', '| tickets'))], TICKETS).message,
    ).toMatch(/CREATE TABLE ticket_events, te\.sql:4\), found table "tickets"/);
    expect(
      one(
        [read.dmv(example('case_notes.index_physical_stats.csv').replace('\ncase_notes,7,1093578934,0', '\ncase_files,7,1093578934,0'))],
        CASE_NOTES,
      ).message,
    ).toMatch(/found table "case_files"/);
  });

  it("refuses inputs of two DBMSs, of another DBMS than the DDL's, and a format of another DBMS than theirs", () => {
    const mixed = one([read.optdiag(), read.dmv(example('case_notes.index_physical_stats.csv').replace(/case_notes,/g, 'titles,'))], {
      ...TITLES,
      dialect: undefined,
    });
    expect(mixed).toMatchObject({ file: `${D}case_notes.csv`, line: 7 });
    expect(mixed.message).toBe(
      "expected the output of SAP ASE's tools, as optdiag's output (SAP ASE's) at titles.optdiag.txt:9 is, found index_physical_stats's output (SQL Server's): one table is on one server",
    );
    // A ddlgen script (lock datarows) and pgstattuple: postgres-heap would be guessed from the pgstattuple.
    const ddl = one([read.pgstattuple()], { ...TITLES, format: 'postgres-heap', pageBytes: 8192 });
    expect(ddl).toMatchObject({ file: `${D}te.pgstattuple.txt`, line: 7 });
    expect(ddl.message).toBe(
      "expected the output of SAP ASE's tools for table titles, whose DDL is SAP ASE's (lock datarows at titles.ddlgen.sql:47), found pgstattuple's output (PostgreSQL's): one table is on one server",
    );
    const pgDump = consistencyProblems([read.optdiag(example('titles.optdiag.txt').replace(/"titles"/g, '"ticket_events"'))], TICKETS);
    expect(pgDump.map((p) => p.message)).toEqual([
      expect.stringMatching(
        /^expected the output of PostgreSQL's tools for table ticket_events, whose DDL is PostgreSQL's \(public\. at te\.sql:4\), found optdiag's output/,
      ),
    ]);
    const format = one([read.optdiag()], {
      ...TITLES,
      dialect: undefined,
      format: 'postgres-heap',
      formatAt: { file: '--format', what: 'given by --format' },
    });
    expect(format).toMatchObject({ file: '--format' });
    expect(format.message).toBe(
      "expected a format of SAP ASE (--format ase-dol or ase-apl) for optdiag's output (SAP ASE's) at /ex/titles.optdiag.txt:9, found postgres-heap (given by --format), a format of PostgreSQL",
    );
    // sp_spaceused: its header tells ASE's (rowtotal) from SQL Server's (rows).
    expect(
      one([read.mssSpaceused(example('case_notes.sp_spaceused.txt').replace('case_notes   ', 'titles       '))], {
        ...TITLES,
        dialect: undefined,
      }).message,
    ).toMatch(
      /^expected a format of SQL Server \(engine\.format sqlserver-heap\) for sp_spaceused's output \(SQL Server's: its header names rows\)/,
    );
  });
});
