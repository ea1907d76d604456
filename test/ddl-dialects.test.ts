/**
 * The DDL reader on DDL as DBAs' tools print it (pg_dump -s, SSMS "Script Table as", SAP ASE ddlgen, Oracle
 * DBMS_METADATA): the multi-word types, the index and table storage options (each the same setting as
 * the YAML form: a run, `rowsim rowsize` and `rowsim estimate` give the same figures from either), the
 * options refused because rowsim cannot model them, and the limits each server enforces at CREATE TABLE.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/config/errors.js';
import type { StorageSpec } from '../src/config/spec.js';
import { loadConfig, loadEstimateConfig } from '../src/loader/config.js';
import { runEstimate } from '../src/estimate/estimate.js';
import { getFormat } from '../src/formats/registry.js';
import { DdlError, parseDdl } from '../src/table/ddl.js';
import { runStorage } from '../src/workload/runner.js';
import { ROOT, rowsim } from './helpers/cli.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'ddl');
const PG_DUMP = join(FIXTURES, 'orders.pg_dump.sql');
const SSMS = join(FIXTURES, 'orders.ssms.sql');

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

/** The row bytes of each column, as the format sizes it (the layout's fixed bytes, or the declared maximum of a varying column). */
function widths(spec: StorageSpec): Record<string, number> {
  const layout = getFormat(spec.engine.format).rows.layout(spec.table, spec.engine);
  return Object.fromEntries(layout.columns.map((c) => [spec.table.columns[c.index]!.name, c.variableType ? c.maxBytes : c.fixedBytes]));
}

const dir = mkdtempSync(join(tmpdir(), 'rowsim-ddl-dialects-'));
function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('pg_dump -s', () => {
  it('reads the script: SET, set_config, COMMENT ON, sequences, OWNER TO, ALTER TABLE ONLY … ADD CONSTRAINT, CREATE INDEX … USING btree', () => {
    const t = parseDdl(readFileSync(PG_DUMP, 'utf8'));
    expect(t.name).toBe('orders');
    expect(t.columns.map((c) => `${c.name} ${c.type.sql}`)).toEqual([
      'id bigint',
      'customer_id integer',
      'placed timestamp(3)',
      'shipped timestamptz',
      'cutoff time',
      'window_start timetz',
      'status character varying(16)',
      'note character varying',
      'code character(4)',
      'amount numeric(12,2)',
      'weight double precision',
      'flags varbit(20)',
    ]);
    expect(t.indexes).toEqual([
      { name: 'orders_pkey', columns: ['id'], unique: true, clustered: false, fillfactor: 70 },
      {
        name: 'orders_customer_idx',
        columns: ['customer_id', 'placed'],
        unique: false,
        clustered: false,
        fillfactor: 60,
        deduplicate_items: false,
      },
    ]);
    expect(t.storage.fillfactor).toMatchObject({ value: 80, line: 39 });
    expect(t.storage.created).toEqual({ value: 'orders', line: 25, column: 1 });
  });

  it('sizes the types as PostgreSQL stores them: timetz 12 bytes, varbit(20) a 4-byte bit count and 3 bytes, character varying unbounded', () => {
    const spec = loadConfig(
      'c.yaml',
      `name: t\ntable: { ddl: ${PG_DUMP} }\nengine: { format: postgres-heap }\nworkload:\n  - insert: { rows: 10 }\n`,
    ).storage[0]!.spec;
    expect(widths(spec)).toMatchObject({ id: 8, customer_id: 4, placed: 8, shipped: 8, cutoff: 8, window_start: 12, weight: 8 });
    expect(spec.table.columns.find((c) => c.name === 'flags')!.type.length).toBe(7);
    expect(spec.table.columns.find((c) => c.name === 'note')!.type.length).toBe(65535);
    expect(spec.engine.fillfactor).toBe(80);
  });

  it('refuses an array column, and an index method other than btree, at their position', () => {
    const arr = ddlError('CREATE TABLE public.t (\n    id integer NOT NULL,\n    tags text[] NOT NULL\n);');
    expect(arr).toMatchObject({ line: 3, column: 14 });
    expect(arr.message).toMatch(/column tags: expected a type rowsim can size, found an array \(text\[\]\)/);
    const hash = ddlError('CREATE TABLE t (id integer NOT NULL);\nCREATE INDEX t_h ON public.t USING hash (id);');
    expect(hash).toMatchObject({ line: 2, column: 36 });
    expect(hash.message).toMatch(/expected USING btree .* found USING hash/);
  });
});

describe('SSMS "Script Table as > CREATE To"', () => {
  it('reads bracketed names and types, IDENTITY, (max), the constraint WITH (…) ON [PRIMARY], TEXTIMAGE_ON and ALTER TABLE … ADD CONSTRAINT', () => {
    const t = parseDdl(readFileSync(SSMS, 'utf8'));
    expect(t.columns.map((c) => `${c.name} ${c.type.sql}${c.nullable ? ' null' : ''}`)).toEqual([
      'id int',
      'customer_id int',
      'name nvarchar(50) null',
      'placed datetime2(7)',
      'shipped datetime2(3) null',
      'cutoff time(0)',
      'zone_time datetimeoffset(7) null',
      'note varchar(65535) null',
      'amount decimal(18,2)',
      'paid bit',
    ]);
    expect(t.indexes).toEqual([
      { name: 'PK_orders', columns: ['id'], unique: true, clustered: true, fillfactor: 80 },
      { name: 'IX_orders_customer', columns: ['customer_id', 'placed'], unique: false, clustered: false, fillfactor: 90 },
      { name: 'UQ_orders_name', columns: ['name'], unique: true, clustered: false, fillfactor: 75 },
    ]);
  });

  it('sizes time, datetime2 and datetimeoffset by their fractional-second digits as SQL Server stores them', () => {
    const spec = loadConfig(
      'c.yaml',
      `name: t\ntable: { ddl: ${SSMS} }\nengine: { format: sqlserver-heap }\nworkload:\n  - insert: { rows: 10 }\n`,
    ).storage[0]!.spec;
    expect(widths(spec)).toMatchObject({ id: 4, placed: 8, shipped: 7, cutoff: 3, zone_time: 10, amount: 9 });
  });

  it('refuses PAD_INDEX = ON with a fill factor, page compression, included columns and filtered indexes, naming the option', () => {
    const head = 'CREATE TABLE [dbo].[t]([id] [int] NOT NULL, [v] [int] NOT NULL) ON [PRIMARY]\nGO\n';
    const pad = ddlError(`${head}CREATE INDEX [ix] ON [dbo].[t] ([v] ASC) WITH (PAD_INDEX = ON, FILLFACTOR = 80) ON [PRIMARY]\nGO`);
    expect(pad).toMatchObject({ line: 3, column: 48 });
    expect(pad.message).toMatch(/expected PAD_INDEX = OFF on index ix with FILLFACTOR = 80 .*non-leaf pages/);
    // PAD_INDEX = ON without a fill factor leaves nothing free: harmless.
    expect(parseDdl(`${head}CREATE INDEX [ix] ON [dbo].[t] ([v]) WITH (PAD_INDEX = ON)`).indexes[0]).toEqual({
      name: 'ix',
      columns: ['v'],
      unique: false,
      clustered: false,
    });
    const page = ddlError(`${head}CREATE INDEX [ix] ON [dbo].[t] ([v]) WITH (DATA_COMPRESSION = PAGE)`);
    expect(page).toMatchObject({ line: 3, column: 44 });
    expect(page.message).toMatch(
      /expected DATA_COMPRESSION = NONE \(rowsim does not model compressed index pages\), found DATA_COMPRESSION = PAGE/,
    );
    expect(ddlError(`${head}CREATE INDEX [ix] ON [dbo].[t] ([v]) INCLUDE ([id])`).message).toMatch(
      /expected no INCLUDE on index ix: included/,
    );
    expect(ddlError(`${head}CREATE INDEX [ix] ON [dbo].[t] ([v]) WHERE [v] > 0`).message).toMatch(
      /expected no WHERE on index ix: a partial/,
    );
    const unknown = ddlError(`${head}CREATE INDEX [ix] ON [dbo].[t] ([v]) WITH (FILLFACTR = 80)`);
    expect(unknown).toMatchObject({ line: 3, column: 44 });
    expect(unknown.message).toMatch(/expected an index option rowsim reads or reads past \(fillfactor, .*\), found FILLFACTR/);
    expect(ddlError(`${head.replace(') ON [PRIMARY]', ') WITH (DATA_COMPRESSION = ROW) ON [PRIMARY]')}`).message).toMatch(
      /found DATA_COMPRESSION = ROW/,
    );
  });
});

describe('ASE ddlgen and Oracle types and options', () => {
  it('reads unsigned, char varying, national and nchar varying types, sized as ASE stores them', () => {
    const sql =
      'create table t (\n a unsigned bigint not null,\n b unsigned smallint not null,\n c unsigned int not null,\n d double precision not null,\n e char varying(10) null,\n f national char(4) not null,\n g nchar varying(6) null,\n h univarchar(5) null\n)\nlock datarows\ngo';
    const t = parseDdl(sql);
    expect(t.columns.map((c) => c.type.sql)).toEqual([
      'unsigned bigint',
      'unsigned smallint',
      'unsigned int',
      'double precision',
      'varchar(10)',
      'nchar(4)',
      'nvarchar(6)',
      'univarchar(5)',
    ]);
    const spec = loadConfig(
      'c.yaml',
      `name: t\ntable:\n  ddl: |\n${sql
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n')}\nengine: { format: ase-dol }\nworkload:\n  - insert: { rows: 10 }\n`,
    ).storage[0]!.spec;
    expect(widths(spec)).toMatchObject({ a: 8, b: 2, c: 4, d: 8, e: 10, f: 8, g: 12, h: 10 });
  });

  it("keeps an index's with fillfactor, max_rows_per_page and reservepagegap, reads past consumers and statistics, refuses index compression", () => {
    const t = parseDdl(
      "create table t (id int, v int)\nlock allpages\ngo\ncreate unique clustered index ci\non db.dbo.t(id)\nwith fillfactor = 75, max_rows_per_page = 10, reservepagegap = 8, consumers = 2, statistics using 20 values\non 'default'\ngo",
    );
    expect(t.indexes).toEqual([
      { name: 'ci', columns: ['id'], unique: true, clustered: true, fillfactor: 75, max_rows_per_page: 10, reservepagegap: 8 },
    ]);
    expect(t.storage.indexOptions).toEqual([
      { index: 'ci', key: 'fillfactor', line: 6, column: 6 },
      { index: 'ci', key: 'max_rows_per_page', line: 6, column: 23 },
      { index: 'ci', key: 'reservepagegap', line: 6, column: 47 },
    ]);
    expect(ddlError('create table t (id int)\ngo\ncreate index i on t(id) with index_compression = page\ngo')).toMatchObject({
      line: 3,
      column: 30,
    });
    expect(ddlError('create table t (id int, b varchar(9) null) lock datarows with compression = row\ngo').message).toMatch(
      /expected compression = NONE .*found compression = row/,
    );
  });

  it("reads Oracle's PCTFREE, INITRANS and PCTUSED of a table and the PCTFREE of an index (DBMS_METADATA's USING INDEX …), refuses what it cannot model", () => {
    const t = parseDdl(
      'CREATE TABLE "APP"."T" ("ID" NUMBER(10) NOT NULL, "V" VARCHAR2(40) NULL) PCTFREE 20 PCTUSED 40 INITRANS 3 MAXTRANS 255 NOCOMPRESS LOGGING STORAGE(INITIAL 65536 NEXT 1048576) TABLESPACE "USERS";\nALTER TABLE "APP"."T" ADD CONSTRAINT "T_PK" PRIMARY KEY ("ID") USING INDEX PCTFREE 5 INITRANS 2 MAXTRANS 255 COMPUTE STATISTICS STORAGE(INITIAL 65536) TABLESPACE "USERS" ENABLE;',
    );
    expect(t.storage).toMatchObject({ pctfree: { value: 20 }, pctused: { value: 40 }, initrans: { value: 3 } });
    expect(t.indexes).toEqual([{ name: 'T_PK', columns: ['ID'], unique: true, clustered: false, pctfree: 5 }]);
    const itl = ddlError('CREATE TABLE t (id NUMBER(10));\nCREATE INDEX t_i ON t (id) INITRANS 4;');
    expect(itl).toMatchObject({ line: 2, column: 28 });
    expect(itl.message).toMatch(/expected INITRANS 2 on index t_i .*found INITRANS 4/);
    expect(ddlError('CREATE TABLE t (id NUMBER(10)) ROW STORE COMPRESS ADVANCED;')).toMatchObject({ line: 1, column: 42 });
    expect(ddlError('CREATE TABLE t (id NUMBER(10));\nCREATE INDEX t_i ON t (id) REVERSE;').message).toMatch(
      /expected no REVERSE on index t_i/,
    );
  });
});

/** A run of `yaml` and of `ddl`'s config, through the loader and runner the CLI uses: the same figures. */
function runBoth(
  yamlTable: string,
  ddlTable: string,
  engine: string,
  workload: string,
): [ReturnType<typeof runStorage>, ReturnType<typeof runStorage>] {
  const cfg = (table: string) => `name: t\ntable:\n${table}\nengine: ${engine}\nworkload:\n${workload}`;
  const a = loadConfig('a.yaml', cfg(yamlTable)).storage[0]!.spec;
  const b = loadConfig('b.yaml', cfg(ddlTable)).storage[0]!.spec;
  expect(b.table.indexes).toEqual(a.table.indexes);
  expect(b.engine).toEqual(a.engine);
  return [runStorage(a), runStorage(b)];
}

describe('index and table options in DDL give the figures of the same settings in YAML', () => {
  it('ASE allpages: a ddlgen clustered index with fillfactor = 75 takes 1,334 pages, as indexes: [{ clustered: true, fillfactor: 75 }] does', () => {
    const ddl = write(
      'apl.sql',
      'create table t (id int not null, body char(494) not null)\nlock allpages\ngo\ncreate unique clustered index ci\non t(id)\nwith fillfactor = 75, max_rows_per_page = 0, reservepagegap = 0\ngo\n',
    );
    const [yaml, fromDdl] = runBoth(
      '  name: t\n  columns: [{ name: id, type: int }, { name: body, type: char(494) }]\n  indexes: [{ name: ci, columns: [id], unique: true, clustered: true, fillfactor: 75, max_rows_per_page: 0, reservepagegap: 0 }]',
      `  ddl: ${ddl}`,
      '{ format: ase-apl }',
      '  - insert: { rows: 4000 }\n',
    );
    expect(yaml.final.pages).toBe(1334);
    expect(fromDdl).toEqual(yaml);
  });

  it('PostgreSQL: WITH (fillfactor) on the table and on an index, and deduplicate_items', () => {
    const ddl = write(
      'pg.sql',
      "CREATE TABLE public.t (\n    id integer NOT NULL,\n    k integer NOT NULL,\n    note character varying(200) NULL\n)\nWITH (fillfactor='80');\nALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY (id) WITH (fillfactor='70');\nCREATE INDEX t_k ON public.t USING btree (k) WITH (fillfactor='60', deduplicate_items=off);\n",
    );
    const [yaml, fromDdl] = runBoth(
      '  name: t\n  columns: [{ name: id, type: integer }, { name: k, type: integer }, { name: note, type: character varying(200), null: true }]\n  indexes:\n    - { name: t_pkey, columns: [id], unique: true, fillfactor: 70 }\n    - { name: t_k, columns: [k], fillfactor: 60, deduplicate_items: false }',
      `  ddl: ${ddl}`,
      '{ format: postgres-heap, fillfactor: 80 }',
      '  - insert: { rows: 3000, values: { note: { length: { uniform: [0, 60] } }, k: { distinct: 50 } } }\n  - update: { rows: all, set: { note: { grow: { uniform: [10, 80] } } } }\n',
    );
    expect(fromDdl).toEqual(yaml);
  });

  it('SQL Server: the SSMS constraint and index WITH (FILLFACTOR = N)', () => {
    const ddl = write(
      'ss.sql',
      'CREATE TABLE [dbo].[t](\n\t[id] [int] NOT NULL,\n\t[k] [int] NOT NULL,\n\t[note] [varchar](200) NULL,\n CONSTRAINT [PK_t] PRIMARY KEY CLUSTERED \n(\n\t[id] ASC\n)WITH (PAD_INDEX = OFF, FILLFACTOR = 80) ON [PRIMARY]\n) ON [PRIMARY]\nGO\nCREATE NONCLUSTERED INDEX [IX_k] ON [dbo].[t]\n(\n\t[k] ASC\n)WITH (PAD_INDEX = OFF, FILLFACTOR = 70, DATA_COMPRESSION = NONE) ON [PRIMARY]\nGO\n',
    );
    const [yaml, fromDdl] = runBoth(
      '  name: t\n  columns: [{ name: id, type: int }, { name: k, type: int }, { name: note, type: varchar(200), null: true }]\n  indexes:\n    - { name: PK_t, columns: [id], unique: true, clustered: true, fillfactor: 80 }\n    - { name: IX_k, columns: [k], fillfactor: 70 }',
      `  ddl: ${ddl}`,
      '{ format: sqlserver-heap }',
      '  - insert: { rows: 3000, values: { note: { length: { uniform: [0, 60] } } } }\n  - update: { rows: all, set: { note: { grow: { uniform: [10, 120] } } } }\n',
    );
    expect(fromDdl).toEqual(yaml);
  });

  it("Oracle: the table's PCTFREE and INITRANS and an index's PCTFREE", () => {
    const ddl = write(
      'ora.sql',
      'CREATE TABLE "T" ("ID" NUMBER(10) NOT NULL, "NOTE" VARCHAR2(200) NULL) PCTFREE 20 INITRANS 3;\nCREATE UNIQUE INDEX "T_PK" ON "T" ("ID") PCTFREE 5 INITRANS 2;\n',
    );
    const [yaml, fromDdl] = runBoth(
      '  name: T\n  columns: [{ name: ID, type: number(10) }, { name: NOTE, type: varchar2(200), null: true }]\n  indexes: [{ name: T_PK, columns: [ID], unique: true, pctfree: 5 }]',
      `  ddl: ${ddl}`,
      '{ format: oracle-heap, pctfree: 20, initrans: 3 }',
      '  - insert: { rows: 3000, values: { NOTE: { length: { uniform: [0, 60] } } } }\n  - update: { rows: all, set: { NOTE: { grow: { uniform: [10, 80] } } } }\n',
    );
    expect(fromDdl).toEqual(yaml);
  });

  it('rowsim rowsize and rowsim estimate give the same figures from the DDL as from the YAML', async () => {
    const ddl = write(
      'pg-est.sql',
      "CREATE TABLE public.t (\n    id integer NOT NULL,\n    note character varying(200) NULL\n)\nWITH (fillfactor='85');\nALTER TABLE ONLY public.t ADD CONSTRAINT t_pkey PRIMARY KEY (id) WITH (fillfactor='70');\n",
    );
    const body =
      'engine: { format: postgres-heap, fillfactor: 85 }\nestimate: { rows: 2000, seeds: 2 }\nworkload:\n  - insert: { rows: 2000, values: { note: { length: { uniform: [0, 60] } } } }\n  - update: { rows: all, set: { note: { grow: { uniform: [10, 80] } } } }\n';
    const yamlFile = write(
      'est-yaml.yaml',
      `name: t\ntable:\n  name: t\n  columns: [{ name: id, type: integer }, { name: note, type: character varying(200), null: true }]\n  indexes: [{ name: t_pkey, columns: [id], unique: true, fillfactor: 70 }]\n${body}`,
    );
    const ddlFile = write('est-ddl.yaml', `name: t\ntable: { ddl: ${ddl} }\n${body.replace(', fillfactor: 85', '')}`);
    const strip = (o: unknown) => JSON.parse(JSON.stringify(o, (k, v) => (k === 'file' || k === 'storage' ? undefined : v)));
    const [a, b] = [await runEstimate(loadEstimateConfig(yamlFile)), await runEstimate(loadEstimateConfig(ddlFile))];
    expect(strip(b)).toEqual(strip(a));
    const size = (file: string) => JSON.parse(rowsim(['rowsize', file, '--json']).stdout);
    expect(size(ddlFile)).toEqual(size(yamlFile));
  });

  it("an engine key the config sets unlike the DDL wins, and rowsim estimate notes the DDL's value", () => {
    const text = `name: t\ntable: { ddl: ${PG_DUMP} }\nengine: { format: postgres-heap, fillfactor: 100 }\nestimate: { rows: 1000 }\nworkload:\n  - insert: { rows: 1000 }\n  - update: { rows: all, set: { note: { length: 50 } } }\n`;
    const cfg = loadEstimateConfig('c.yaml', {}, text);
    expect(cfg.engine.fillfactor).toBe(100);
    expect(cfg.notes).toContain(
      "engine.fillfactor 100 in the config is taken as the current setting, not the DDL's fillfactor = 80 (line 39)",
    );
  });

  it('a DDL index setting the format refuses is reported at the line that sets it', () => {
    const ddl = write('pg-ff.sql', 'CREATE TABLE t (id integer NOT NULL);\nCREATE INDEX t_i ON t (id)\n  WITH (fillfactor = 5);\n');
    const p = problems(() =>
      loadConfig('c.yaml', `name: t\ntable: { ddl: ${ddl} }\nengine: { format: postgres-heap }\nworkload:\n  - insert: { rows: 10 }\n`),
    );
    expect(p[0]).toMatchObject({ file: ddl, line: 3, column: 9 });
    expect(p[0]!.message).toMatch(/index t_i: fillfactor: expected a B-tree fillfactor from 10 to 100/);
  });
});

describe('limits the servers enforce at CREATE TABLE', () => {
  const run = (table: string, format: string) => () =>
    loadConfig('c.yaml', `name: t\ntable:\n${table}\nengine: { format: ${format} }\nworkload:\n  - insert: { rows: 10 }\n`);

  it('SQL Server Msg 1701: a minimum row of 8,067 bytes (8,060 of fixed-length columns and 7 of overhead) is refused at the CREATE TABLE, 8,060 is created', () => {
    const ddl = write(
      'wide.sql',
      '-- a wide table\nCREATE TABLE [dbo].[wide](\n\t[a] [char](8000) NOT NULL,\n\t[b] [char](60) NOT NULL\n) ON [PRIMARY]\nGO\n',
    );
    const p = problems(run(`  ddl: ${ddl}`, 'sqlserver-heap'));
    expect(p[0]).toMatchObject({ file: ddl, line: 2, column: 1 });
    expect(p[0]!.message).toBe(
      'expected a table SQL Server can create, found table wide whose minimum row size would be 8067, including 7 bytes of internal overhead, which exceeds the maximum allowable table row size of 8060 bytes (Msg 1701: every row stores the 8060 bytes of the fixed-length columns; declare the longest of them varchar or nvarchar)',
    );
    const yaml = problems(run('  name: wide\n  columns: [{ name: a, type: char(8000) }, { name: b, type: char(60) }]', 'sqlserver-heap'));
    expect(yaml[0]!.message).toMatch(/minimum row size would be 8067/);
    expect(yaml[0]!.key).toBe('table.columns');
    expect(() =>
      run(
        '  name: ok\n  columns: [{ name: a, type: char(8000) }, { name: b, type: char(53) }, { name: c, type: varchar(900), null: true }]',
        'sqlserver-heap',
      )(),
    ).not.toThrow();
    // On ASE's 2k pages the same table is refused by ASE's own limit, the longest row of a page.
    expect(() => run('  name: ok\n  columns: [{ name: a, type: char(8000) }, { name: b, type: char(60) }]', 'ase-dol')()).toThrow(
      InputError,
    );
  });

  it('the CLI exits with status 2 and names the file and line', () => {
    const ddl = write('wide2.sql', 'CREATE TABLE wide (a char(8000) NOT NULL, b char(60) NOT NULL);\n');
    const cfg = write(
      'wide2.yaml',
      `name: t\ntable: { ddl: ${ddl} }\nengine: { format: sqlserver-heap }\nworkload:\n  - insert: { rows: 10 }\n`,
    );
    const r = rowsim(['run', cfg, '--out', join(dir, 'out-wide')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${ddl}:1:1`);
    expect(r.stderr).toMatch(/Msg 1701/);
  });

  it('PostgreSQL takes at most 1,600 columns and Oracle 1,000', () => {
    const cols = (n: number) =>
      `  name: w\n  columns: [${Array.from({ length: n }, (_, i) => `{ name: c${i}, type: smallint }`).join(', ')}]`;
    expect(problems(run(cols(1601), 'postgres-heap'))[0]!.message).toMatch(/expected at most 1,600 columns \(PostgreSQL.*found 1,601/);
    expect(() => run(cols(1600), 'postgres-heap')()).not.toThrow();
    expect(problems(run(cols(1001), 'oracle-heap'))[0]!.message).toMatch(
      /expected at most 1000 columns \(ORA-01792.*found table w with 1001/,
    );
  });
});

describe('nullability as each server defaults it', () => {
  it("pg_dump prints nothing for a nullable column: in PostgreSQL's DDL it is nullable, its PRIMARY KEY's columns are not; ASE's stays NOT NULL", async () => {
    const { parseDdl } = await import('../src/table/ddl.js');
    const pg = parseDdl(
      'CREATE TABLE public.t (\n    id integer NOT NULL,\n    k integer,\n    note character varying(40)\n);\nALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY (id, k);\n',
    );
    expect(pg.columns.map((c) => [c.name, c.nullable])).toEqual([
      ['id', false],
      ['k', false],
      ['note', true],
    ]);
    const ase = parseDdl('create table t (id int, note varchar(40) null)\nlock datarows\n');
    expect(ase.columns.map((c) => [c.name, c.nullable])).toEqual([
      ['id', false],
      ['note', true],
    ]);
    const unknown = parseDdl('CREATE TABLE t (id int, note varchar(40))');
    expect(unknown.columns.every((c) => !c.nullable)).toBe(true);
  });
});
