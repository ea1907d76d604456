/**
 * The DDL reader on SAP ASE ddlgen scripts: the statements around the CREATE TABLE are read past, the
 * table options (lock scheme, exp_row_size, reservepagegap, segment, partitions) are kept with their
 * positions, user-defined types come from sp_addtype, and the DDL's exp_row_size is the table's
 * current setting unless the config's engine section sets one.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/config/errors.js';
import { loadConfig, loadEstimateConfig } from '../src/loader/config.js';
import { DdlError, parseDdl } from '../src/table/ddl.js';
import { ROOT } from './helpers/cli.js';

const SAMPLE = join(ROOT, 'sim-configs', 'estimate', 'titles.ddlgen.sql');

function ddlError(sql: string): DdlError {
  try {
    parseDdl(sql);
  } catch (err) {
    if (err instanceof DdlError) return err;
    throw err;
  }
  throw new Error('expected a DdlError');
}

function problems(fn: () => unknown): InputError['problems'] {
  try {
    fn();
  } catch (err) {
    if (err instanceof InputError) return err.problems;
    throw err;
  }
  throw new Error('expected an InputError');
}

describe('ddlgen scripts', () => {
  it('reads the shipped example: the table, its index, its options and the user-defined type', () => {
    const t = parseDdl(readFileSync(SAMPLE, 'utf8'));
    expect(t.name).toBe('titles');
    expect(t.columns.map((c) => `${c.name} ${c.type.sql}${c.nullable ? ' null' : ''}`)).toEqual([
      'title_id varchar(6)',
      'title varchar(80)',
      'type char(12)',
      'pub_id char(4) null',
      'price money null',
      'advance money null',
      'total_sales int null',
      'notes varchar(200) null',
      'pubdate datetime',
      'contract bit',
    ]);
    // The index's own `with reservepagegap = 16` is the index's setting, as in the YAML form.
    expect(t.indexes).toEqual([{ name: 'titleidind', columns: ['title_id'], unique: true, clustered: false, reservepagegap: 16 }]);
    expect(t.storage).toMatchObject({
      lock: { value: 'datarows' },
      exp_row_size: { value: 150 },
      reservepagegap: { value: 16 },
      segment: 'default',
      partitions: { kind: 'roundrobin', count: 1 },
      database: 'pubs2',
      owner: 'dbo',
    });
    const text = readFileSync(SAMPLE, 'utf8').split('\n');
    const at = t.storage.exp_row_size!;
    expect(text[at.line - 1]!.slice(at.column - 1)).toMatch(/^150,/);
  });

  it('reads past go, use, print, setuser, grant, exec, sp_ procedures and trigger bodies', () => {
    const t = parseDdl(
      [
        'print \'<<<<< CREATING Table - "db.dbo.t" >>>>>\'',
        'go',
        'use db',
        'go 1',
        "setuser 'dbo'",
        'go',
        "IF EXISTS (SELECT 1 FROM sysobjects WHERE name = 't')",
        '  DROP TABLE t',
        'go',
        'create table t (a int not null, b varchar(20) null) lock datapages with max_rows_per_page = 0, exp_row_size = 1',
        'go',
        "exec sp_bindefault 'd', 't.b'",
        'grant select on t to public',
        'create trigger tr on t for insert as',
        "  update t set b = 'x; create table nope (z int)'",
        '  create table tmp (z int)',
        'go',
        'alter table t add constraint t_pk primary key nonclustered (a)',
        'go',
      ].join('\n'),
    );
    expect(t.storage).toMatchObject({
      lock: { value: 'datapages' },
      exp_row_size: { value: 1 },
      max_rows_per_page: { value: 0 },
      database: 'db',
      owner: 'dbo',
    });
    expect(t.indexes).toEqual([{ name: 't_pk', columns: ['a'], unique: true, clustered: false }]);
  });

  it('reads partitions by range, hash and list, PostgreSQL storage parameters and Oracle PCTFREE', () => {
    const range = parseDdl(
      'create table t (a int, b varchar(10) null) lock datarows partition by range (a) (p1 values <= (100) on seg1, p2 values <= (MAX) on seg2)\ngo',
    );
    expect(range.storage.partitions).toEqual({ kind: 'range', count: 2 });
    expect(parseDdl('create table t (a int) partition by hash (a) 4 on (s1, s2)').storage.partitions).toEqual({ kind: 'hash', count: 4 });
    expect(
      parseDdl('CREATE TABLE t (a int, b text NULL) WITH (fillfactor = 70, autovacuum_enabled = false);').storage.fillfactor,
    ).toMatchObject({ value: 70 });
    expect(parseDdl('CREATE TABLE t (a NUMBER(10), b VARCHAR2(40) NULL) PCTFREE 30 TABLESPACE users;').storage.pctfree).toMatchObject({
      value: 30,
    });
  });

  it('tells the DBMS a DDL was written for, where its text shows it, and where CREATE TABLE is', () => {
    const dialect = (f: string) => parseDdl(readFileSync(join(ROOT, 'sim-configs', 'estimate', f), 'utf8')).storage;
    expect(dialect('titles.ddlgen.sql')).toMatchObject({
      dialect: { value: 'ase', sign: 'lock datarows', line: 47 },
      created: { value: 'titles', line: 35, column: 1 },
    });
    expect(dialect('case_notes.sqlserver.sql').dialect).toMatchObject({ value: 'sqlserver', sign: '[dbo]', line: 7 });
    expect(dialect('ticket_events.postgres.sql').dialect).toMatchObject({ value: 'postgres', sign: 'public.', line: 26 });
    expect(parseDdl('CREATE TABLE t (a NUMBER(10)) PCTFREE 30;').storage.dialect).toMatchObject({ value: 'oracle', sign: 'PCTFREE' });
    // No sign (plain SQL, `go` alone), or signs of two DBMSs: not told.
    expect(parseDdl('create table t (a int)\ngo').storage.dialect).toBeUndefined();
    expect(parseDdl('create table [t] (a int) lock datarows').storage.dialect).toBeUndefined();
  });

  it('names the position of what it cannot read', () => {
    expect(ddlError('use db\ngo\ninsert into t values (1)\ngo')).toMatchObject({ line: 3, column: 1 });
    expect(ddlError('use db\ngo\ninsert into t values (1)\ngo').message).toMatch(/expected CREATE TABLE .*found "insert"/);
    const e = ddlError('create table t (a int, b varchar(9) null)\nlock datarows\nwith exp_row_size = big');
    expect(e).toMatchObject({ line: 3, column: 21 });
    expect(e.message).toMatch(/exp_row_size = a whole number/);
    expect(ddlError('create table t (a int) lock everything')).toMatchObject({ line: 1, column: 29 });
    const udt = ddlError('create table t (\n  id tid not null\n)');
    expect(udt).toMatchObject({ line: 2, column: 6 });
    expect(udt.message).toMatch(/sp_addtype tid/);
  });

  it('keeps reading the CREATE TABLE text it read before (no ddlgen around it)', () => {
    const t = parseDdl(
      'create table notes (id int not null, summary varchar(200) null)\nlock datarows\ncreate unique index notes_pk on notes (id)',
    );
    expect(t.indexes).toEqual([{ name: 'notes_pk', columns: ['id'], unique: true, clustered: false }]);
    expect(t.storage.lock?.value).toBe('datarows');
  });
});

describe("the DDL's settings in a config", () => {
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-ddlgen-'));
  const config = (engine: string, ddl = SAMPLE) =>
    `name: t\ntable: { ddl: ${ddl} }\nengine: { ${engine} }\nworkload:\n  - insert: { rows: 100 }\n  - update: { rows: all, set: { notes: { length: 100 } } }\n`;

  it("the DDL's exp_row_size is the table's setting unless the engine section sets one", () => {
    expect(loadConfig('c.yaml', config('format: ase-dol')).storage[0]!.spec.engine.exp_row_size).toBe(150);
    expect(loadConfig('c.yaml', config('format: ase-dol, exp_row_size: 0')).storage[0]!.spec.engine.exp_row_size).toBe(0);
    // PostgreSQL reads fillfactor, not exp_row_size.
    expect(loadConfig('c.yaml', config('format: postgres-heap')).storage[0]!.spec.engine.fillfactor).toBe(100);
  });

  it('an exp_row_size the table cannot have is reported at the DDL line', () => {
    const file = join(dir, 'big.sql');
    writeFileSync(file, readFileSync(SAMPLE, 'utf8').replace('exp_row_size = 150', 'exp_row_size = 900'));
    const p = problems(() => loadConfig('c.yaml', config('format: ase-dol', file)));
    expect(p[0]).toMatchObject({ file, line: 48, column: 21 });
    expect(p[0]!.message).toMatch(/exp_row_size: expected a value from 21 to 331/);
  });

  it('a lock scheme that contradicts engine.format is an error at the lock clause', () => {
    const p = problems(() => loadConfig('c.yaml', config('format: ase-apl')));
    expect(p[0]).toMatchObject({ file: SAMPLE, line: 47, column: 6 });
    expect(p[0]!.message).toMatch(/lock allpages for engine.format ase-apl, found lock datarows/);
  });

  it('rowsim estimate takes the current setting from the DDL', () => {
    const text = `name: t\ntable: { ddl: ${SAMPLE} }\nengine: { format: ase-dol }\nestimate:\n  measured: { optdiag: { rows: 1000, min: 40, avg: 180, max: 331 } }\n`;
    const cfg = loadEstimateConfig('c.yaml', {}, text);
    expect(cfg.engine.exp_row_size).toBe(150);
  });
});
