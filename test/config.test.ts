import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/config/errors.js';
import { loadConfig } from '../src/loader/config.js';
import { parseDdl } from '../src/table/ddl.js';
import { parseCount, parseDurationNs, parseSize } from '../src/util/units.js';

const BASE = `name: t1
seed: 3
table:
  name: notes
  columns:
    - { name: id, type: int }
    - { name: status, type: char(8) }
    - { name: summary, type: varchar(200), null: true }
  indexes:
    - { name: notes_pk, columns: [id], unique: true }
engine:
  format: ase-dol
  page_size: 2k
  exp_row_size: 0
workload:
  - insert:
      rows: 1000
      values:
        summary: { length: 0 }
  - update:
      rows: 100%
      order: random
      set:
        summary: { length: { uniform: [50, 200] } }
  - reorg: forwarded_rows
`;

function problems(text: string, file = 'c.yaml') {
  try {
    loadConfig(file, text);
  } catch (err) {
    if (err instanceof InputError) return err.problems;
    throw err;
  }
  throw new Error('expected an InputError');
}

describe('units', () => {
  it('sizes, durations, counts', () => {
    expect(parseSize('2k')).toBe(2048);
    expect(parseSize('16k')).toBe(16384);
    expect(parseSize(4096)).toBe(4096);
    expect(parseDurationNs('250ns')).toBe(250);
    expect(parseDurationNs('5us')).toBe(5000);
    expect(parseDurationNs('2ms')).toBe(2e6);
    expect(parseDurationNs('1s')).toBe(1e9);
    expect(parseCount('20%')).toEqual({ kind: 'percent', pct: 20 });
    expect(parseCount('all')).toEqual({ kind: 'all' });
    expect(() => parseSize('2q')).toThrow(/2k/);
    expect(() => parseDurationNs('5 minutes')).toThrow(/250ns/);
    expect(() => parseCount('120%')).toThrow(/percentage/);
  });
});

describe('loading a config', () => {
  it('resolves the contract example', () => {
    const cfg = loadConfig('c.yaml', BASE);
    expect(cfg.name).toBe('t1');
    expect(cfg.seed).toBe(3);
    expect(cfg.storage).toHaveLength(1);
    const spec = cfg.storage[0]!.spec;
    expect(spec.engine.page_size).toBe(2048);
    expect(spec.table.columns.map((c) => c.type.sql)).toEqual(['int', 'char(8)', 'varchar(200)']);
    expect(spec.workload.map((p) => p.op)).toEqual(['insert', 'update', 'reorg']);
  });
  it('reads `null: true` as the key null, not as a YAML null', () => {
    const cfg = loadConfig('c.yaml', BASE);
    expect(cfg.storage[0]!.spec.table.columns[2]!.nullable).toBe(true);
  });
  it('expands a sweep into labelled points', () => {
    const cfg = loadConfig('c.yaml', `${BASE}sweep:\n  engine.exp_row_size: [1, 0, 150, max]\n`);
    expect(cfg.storage.map((p) => p.label)).toEqual(['exp_row_size=1', 'exp_row_size=0', 'exp_row_size=150', 'exp_row_size=max']);
    expect(cfg.storage[3]!.spec.engine.exp_row_size).toBe('max');
  });
  it('rejects an unknown key with its position and the nearest valid key', () => {
    const p = problems(BASE.replace('  page_size: 2k', '  page_sise: 2k'));
    expect(p).toHaveLength(1);
    expect(p[0]).toMatchObject({ file: 'c.yaml', line: 13, column: 3, key: 'engine.page_sise' });
    expect(p[0]!.message).toMatch(/did you mean "page_size"/);
  });
  it('says what was expected and what was found for a bad size', () => {
    const p = problems(BASE.replace('page_size: 2k', 'page_size: 2kb7'));
    expect(p[0]).toMatchObject({ line: 13, column: 14, key: 'engine.page_size' });
    expect(p[0]!.message).toMatch(/expected a size such as 2048, 2k or 8k, found "2kb7"/);
  });
  it('refuses an ASE page size that does not exist', () => {
    const p = problems(BASE.replace('page_size: 2k', 'page_size: 3k'));
    expect(p[0]!.key).toBe('engine.page_size');
    expect(p[0]!.message).toMatch(/2k, 4k, 8k, 16k/);
  });
  it('refuses exp_row_size outside the range, naming the range as ASE does', () => {
    const p = problems(BASE.replace('exp_row_size: 0', 'exp_row_size: 4000'));
    expect(p[0]).toMatchObject({ line: 14, column: 17, key: 'engine.exp_row_size' });
    expect(p[0]!.message).toMatch(/from 12 to 212/);
  });
  it('points a bad sweep value at the sweep entry', () => {
    const text = `${BASE}sweep:\n  engine.exp_row_size: [1, 5000]\n`;
    const p = problems(text);
    expect(p).toHaveLength(1);
    expect(p[0]).toMatchObject({ key: 'sweep.engine.exp_row_size[1]', line: 27, column: 28 });
    expect(p[0]!.message).toMatch(/from 12 to 212/);
  });
  it('refuses a sweep over a key the config does not have', () => {
    const p = problems(`${BASE}sweep:\n  engin.exp_row_size: [1]\n`);
    expect(p[0]!.key).toBe('sweep.engin.exp_row_size');
  });
  it('refuses a NULL share on a NOT NULL column', () => {
    const p = problems(BASE.replace('        summary: { length: 0 }', '        status: { null: 0.1 }'));
    expect(p[0]!.key).toBe('workload[0].insert.values.status.null');
    expect(p[0]!.message).toMatch(/NOT NULL/);
  });
  it('suggests a column for a misspelt one in set:', () => {
    const p = problems(BASE.replace('        summary: { length: { uniform', '        sumary: { length: { uniform'));
    expect(p[0]!.key).toBe('workload[1].update.set.sumary');
    expect(p[0]!.message).toMatch(/did you mean "summary"/);
  });
  it('refuses an unknown phase and an unknown order', () => {
    expect(problems(BASE.replace('  - reorg: forwarded_rows', '  - reorgg: forwarded_rows'))[0]!.message).toMatch(/did you mean "reorg"/);
    expect(problems(BASE.replace('order: random', 'order: zipfy'))[0]!.message).toMatch(/zipf\(s\)/);
  });
  it('refuses an unknown column type, listing the known ones', () => {
    const p = problems(BASE.replace('type: char(8)', 'type: chr(8)'));
    expect(p[0]).toMatchObject({ key: 'table.columns[1].type', line: 7 });
    expect(p[0]!.message).toMatch(/known column type/);
  });
  it('reports YAML syntax errors with a position', () => {
    const p = problems('name: x\ntable: [\n');
    expect(p[0]!.line).toBeGreaterThan(0);
    expect(p[0]!.message).toMatch(/YAML/);
  });
  it('reads a histogram CSV and reports its errors with file, line and column', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-cfg-'));
    writeFileSync(join(dir, 'ok.csv'), 'length,count\n10,5\n200,5\n');
    writeFileSync(join(dir, 'bad.csv'), 'length,count\n10,5\n20,x\n');
    const withHist = (f: string) => BASE.replace('summary: { length: 0 }', `summary: { length: { histogram: ${f} } }`);
    const cfg = loadConfig(join(dir, 'c.yaml'), withHist('ok.csv'));
    expect((cfg.storage[0]!.spec.workload[0] as { values: Record<string, { length: unknown }> }).values.summary!.length).toEqual({
      kind: 'choice',
      values: [10, 200],
      weights: [5, 5],
    });
    const p = problems(withHist('bad.csv'), join(dir, 'c.yaml'));
    expect(p[0]).toMatchObject({ file: join(dir, 'bad.csv'), line: 3, column: 4 });
    expect(p[0]!.message).toMatch(/count/);
  });
  it('takes the table from DDL', () => {
    const text = BASE.replace(
      /table:\n[\s\S]*?engine:/,
      'table:\n  ddl: |\n    create table notes (id int not null, status char(8) not null, summary varchar(200) null)\n    lock datarows\n    create unique index notes_pk on notes (id)\nengine:',
    );
    const spec = loadConfig('c.yaml', text).storage[0]!.spec;
    expect(spec.table.name).toBe('notes');
    expect(spec.table.columns.map((c) => [c.name, c.nullable])).toEqual([
      ['id', false],
      ['status', false],
      ['summary', true],
    ]);
    expect(spec.table.indexes).toEqual([{ name: 'notes_pk', columns: ['id'], unique: true, clustered: false }]);
  });
  it('reads CLUSTERED from DDL and refuses a second clustered index where it is written', () => {
    const t = parseDdl(
      'create table t (a int not null, b int, constraint t_pk primary key clustered (a))\ncreate nonclustered index t_b on t (b)',
    );
    expect(t.indexes.map((i) => [i.name, i.clustered])).toEqual([
      ['t_pk', true],
      ['t_b', false],
    ]);
    expect(() =>
      parseDdl('create table t (a int, b int)\ncreate clustered index i1 on t (a)\ncreate clustered index i2 on t (b)'),
    ).toThrowError(/at most one clustered index, found i2 after i1/);
    try {
      parseDdl('create table t (a int, b int)\ncreate clustered index i1 on t (a)\ncreate clustered index i2 on t (b)');
    } catch (err) {
      expect(err).toMatchObject({ line: 3, column: 1 });
    }
  });
});

describe('DDL', () => {
  it('reads ASE, SQL Server and PostgreSQL spellings', () => {
    const t = parseDdl(`
      CREATE TABLE dbo.answers (
        id uniqueidentifier NOT NULL DEFAULT newid(),
        score numeric(5,2) NULL,
        label character varying(40),
        CONSTRAINT answers_pk PRIMARY KEY CLUSTERED (id)
      );
      CREATE INDEX answers_score ON answers (score DESC);`);
    expect(t.columns.map((c) => c.type.sql)).toEqual(['uniqueidentifier', 'numeric(5,2)', 'character varying(40)']);
    expect(t.indexes.map((i) => i.name)).toEqual(['answers_pk', 'answers_score']);
  });
  it('names the line and column of a DDL error', () => {
    try {
      parseDdl('create table t (\n  id int,\n  x varchr(10)\n)');
      throw new Error('no error');
    } catch (err) {
      expect(err).toMatchObject({ line: 3, column: 5 });
      expect((err as Error).message).toMatch(/x: expected a known column type/);
    }
  });
});

describe('hostile and mistaken input (issue: nothing lost, nothing hung)', () => {
  const first = (text: string) => problems(text)[0]!;
  it('applies a swept seed: each point runs with its own seed', () => {
    const cfg = loadConfig('c.yaml', `${BASE}sweep:\n  seed: [1, 2]\n`);
    expect(cfg.storage.map((p) => [p.label, p.spec.seed])).toEqual([
      ['seed=1', 1],
      ['seed=2', 2],
    ]);
    expect(first(`${BASE}sweep:\n  seed: [1, -2]\n`)).toMatchObject({ key: 'sweep.seed[1]' });
  });
  it('refuses keys that cannot be swept and paths into prototypes, one problem per path', () => {
    const p = problems(
      `${BASE}sweep:\n  name: [a, b, c]\n  __proto__.polluted: [1]\n  constructor.prototype.x: [1]\n  engine.nothing.x: [1, 2, 3]\n`,
    );
    expect(p.map((x) => x.key)).toEqual([
      'sweep.name',
      'sweep.__proto__.polluted',
      'sweep.constructor.prototype.x',
      'sweep.engine.nothing.x',
    ]);
    expect(p[0]!.message).toMatch(/name cannot be swept/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it('caps the points of a sweep, naming the flag that raises the cap', () => {
    const values = Array.from({ length: 40 }, (_, i) => 12 + i).join(', ');
    const text = `${BASE}sweep:\n  engine.exp_row_size: [${values}]\n  engine.page_size: [2k, 4k, 8k, 16k, 2k, 4k, 8k, 16k, 2k, 4k, 8k, 16k, 2k, 4k, 8k, 16k, 2k, 4k, 8k, 16k, 2k, 4k, 8k, 16k, 2k, 4k]\n`;
    expect(first(text).message).toMatch(/at most 1000 sweep points \(raise the limit with --max-points N\), found 1040 \(40 × 26\)/);
    expect(() => loadConfig('c.yaml', text.replace(/engine\.page_size.*\n/, ''), { maxPoints: 10 })).toThrow(/at most 10 sweep points/);
  });
  it('positions an undefined alias, an alias bomb, a __proto__ key, a duplicate key and a second document', () => {
    expect(first('name: a\nseed: *nope\n')).toMatchObject({
      line: 2,
      column: 7,
      message: expect.stringMatching(/\*nope with no anchor &nope above/),
    });
    const bomb =
      'name: a\nx: &a [1,2]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n';
    expect(first(bomb).message).toMatch(/alias bomb/);
    expect(first('name: a\n__proto__: { polluted: 1 }\n')).toMatchObject({
      line: 2,
      column: 1,
      message: 'expected a config key, found "__proto__"',
    });
    expect(first('name: a\nseed: 1\nseed: 2\n')).toMatchObject({
      line: 3,
      column: 1,
      message: expect.stringMatching(/"seed" again \(first at line 2\)/),
    });
    expect(first('name: a\n---\nname: b\n')).toMatchObject({ line: 2, message: expect.stringMatching(/expected one YAML document/) });
  });
  it('reports at most 50 problems of a file with thousands, in linear time', () => {
    const keys = Array.from({ length: 20000 }, (_, i) => `  k${i}: 1`).join('\n');
    const text = `name: x\nengine: { format: ase-dol }\nworkload: [ { insert: { rows: 1 } } ]\ntable:\n  columns: [ { name: id, type: int } ]\n${keys}\n`;
    const err = (() => {
      try {
        loadConfig('c.yaml', text);
      } catch (e) {
        return e as InputError;
      }
      throw new Error('expected an InputError');
    })();
    expect(err.problems).toHaveLength(20000);
    expect(err.message.split('\n')).toHaveLength(51);
    expect(err.message).toMatch(/… and 19950 more problems \(the first 50 are shown\)$/);
  });
  it('suggests the nearest key everywhere: contention sections, distributions', () => {
    const p = problems(
      'name: c\ncontention: { engines: 2, users: 3, latched: { spinlock: 4 }, transaction: { reads: 3 }, pages: { cout: 3 } }\n',
    );
    expect(p.map((x) => x.message)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/"spinlock"; did you mean "spinlocks"/),
        expect.stringMatching(/"cout"; did you mean "count"/),
        expect.stringMatching(/unknown key "reads"/),
      ]),
    );
    expect(first(BASE.replace('summary: { length: 0 }', 'summary: { length: { unifrom: [1, 2] } }')).message).toMatch(
      /unknown key "unifrom"; did you mean "uniform"\?/,
    );
  });
  it('says "an empty list", and "> 0" rather than "(exclusive)"', () => {
    expect(first(BASE.replace(/workload:[\s\S]*$/, 'workload: []\n')).message).toMatch(/found an empty list$/);
    expect(first('name: c\ncontention: { engines: 2, users: 3, xoltp: { snap_cpu_factor: 0 } }\n').message).toMatch(
      /expected a number > 0, found 0/,
    );
  });
  it('refuses duplicate index names, from the config and from DDL', () => {
    const dup = BASE.replace(
      '    - { name: notes_pk, columns: [id], unique: true }',
      '    - { name: notes_pk, columns: [id], unique: true }\n    - { name: NOTES_PK, columns: [status] }',
    );
    expect(first(dup)).toMatchObject({ key: 'table.indexes[1].name', message: expect.stringMatching(/not used before, found "NOTES_PK"/) });
    const ddl =
      'name: d\ntable:\n  ddl: "create table t (a int, b int)\\ncreate index i on t (a)\\ncreate index i on t (b)"\nengine: { format: ase-dol }\nworkload: [ { insert: { rows: 1 } } ]\n';
    expect(first(ddl).message).toMatch(/found "i" again/);
  });
  it('refuses a contention run whose event budget would be exceeded, before simulating', () => {
    const p = first('name: c\ncontention: { engines: 80, users: 5000, think_time: 10ms, duration: 1000s }\n');
    expect(p).toMatchObject({ key: 'contention.duration', line: 2 });
    expect(p.message).toMatch(/more than max_events \(2,000,000,000\); shorten duration or warmup, or raise contention\.max_events/);
  });
  it('a histogram CSV with a third column is an error at that column', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-csv-'));
    writeFileSync(join(dir, 'h.csv'), 'length,count\n10,5\n20,5,9\n');
    const text = BASE.replace('summary: { length: 0 }', 'summary: { length: { histogram: h.csv } }');
    expect(problems(text, join(dir, 'c.yaml'))[0]).toMatchObject({
      file: join(dir, 'h.csv'),
      line: 3,
      column: 6,
      message: 'expected two columns, length and count, found 3',
    });
  });
  it('refuses input files that are not regular files, at once', () => {
    for (const [path, found] of [
      ['/dev/zero', 'a character device'],
      [tmpdir(), 'a folder'],
    ] as const) {
      try {
        loadConfig(path);
        throw new Error('expected an InputError');
      } catch (err) {
        expect((err as InputError).problems[0]).toMatchObject({ file: path, message: `expected a regular file, found ${found}` });
      }
    }
  });
});

describe('lengths a column can hold', () => {
  const withLengths = (columns: string, values: string) =>
    `name: t\nseed: 1\ntable:\n  name: t\n  columns:\n${columns}\nengine: { format: postgres-heap }\nworkload:\n  - insert: { rows: 10, values: { ${values} } }\n`;
  const cols = [
    '    - { name: v, type: varchar(200), null: true }',
    '    - { name: x, type: text, null: true }',
    '    - { name: n, type: "numeric(10,2)", null: true }',
  ].join('\n');
  it('accepts a length at the bound, a uniform whose max is clipped, and large objects past the 65,534-byte row store', () => {
    const ok = withLengths(
      cols,
      'v: { length: { sequence: [200, null] } }, x: { length: { choice: { "70000": 1, "2147483647": 0.01 } } }, n: { length: { uniform: [10, 40] } }',
    );
    expect(() => loadConfig('c.yaml', ok)).not.toThrow();
  });
  it('refuses one past it, at the value, naming the column and its type', () => {
    const over = problems(withLengths(cols, 'v: { length: { sequence: [200, 201] } }, n: { length: 11 }, x: { length: 2147483648 }'));
    expect(over.map((p) => `${p.key}: ${p.message}`)).toEqual([
      'workload[0].insert.values.v.length.sequence[1]: expected a length from 0 to 200, or null for NULL (v is varchar(200)), found 201',
      'workload[0].insert.values.n.length: expected a length from 0 to 10 (n is numeric(10,2): digits up to its precision), found 11',
      "workload[0].insert.values.x.length: expected a length from 0 to 2,147,483,647 (the longest large object rowsim keeps: SQL Server's and ASE's 2 GB limit), found 2147483648",
    ]);
  });
});
