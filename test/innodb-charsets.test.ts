/**
 * The innodb format's character sets and comparisons against figures no one here wrote: the plans a live
 * MariaDB 10.11 gave for `col = p` (p a stored procedure's parameter of each type; the same cases run live
 * in test/mysqlcheck-charsets.test.ts), and record sizes it reported (INNODB_BUFFER_PAGE DATA_SIZE /
 * NUMBER_RECORDS of one-page tables, docs/engines/innodb.md) for DDL as mysqldump prints it.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rowsim } from './helpers/cli.js';
import { parseType } from '../src/config/column-types.js';
import { getFormat } from '../src/formats/registry.js';
import { clusteredRecord, innodbLayout } from '../src/formats/innodb-records.js';
import { tableCharset } from '../src/formats/innodb-comparison.js';
import { loadConfig } from '../src/loader/config.js';
import { parseDdl } from '../src/table/ddl.js';
import { col, engine } from './helpers/spec.js';

/** Parameter types, in the order of each row's plan letters below. */
const PARAMETERS = [
  'int',
  'bigint',
  'decimal(12,2)',
  'double',
  'varchar(36) character set utf8mb4',
  'varchar(36) character set latin1',
  'varchar(36) character set utf8mb3',
  'char(10) character set utf8mb4',
  'date',
  'datetime',
  'varbinary(36)',
];

/** The server's plans, one letter a parameter type: s = ref (a seek), x = index (a full index scan). The table's default is utf8mb4. */
export const MARIADB_PLANS: Record<string, string> = {
  int: 'ssssssssxxs',
  bigint: 'sssssssssss',
  'decimal(12,2)': 'ssssssssxxs',
  double: 'ssssssssxxs',
  'varchar(36)': 'xxxxssssxxs',
  'varchar(36) character set latin1': 'xxxxxsxxxxs',
  'varchar(36) character set utf8mb3': 'xxxxxssxxxs',
  'char(10)': 'xxxxssssxxs',
  date: 'sssssssssss',
  datetime: 'sssssssssss',
  'varbinary(36)': 'xxxxssssxxs',
};

const utf8mb4 = () => engine({ format: 'innodb', charset: 'utf8mb4' });

describe('innodb comparisons: col = p of another type or character set', () => {
  const format = getFormat('innodb');

  it('every column type against every parameter type gives the plan MariaDB 10.11 gave', () => {
    const off: string[] = [];
    for (const [column, plans] of Object.entries(MARIADB_PLANS)) {
      PARAMETERS.forEach((parameter, i) => {
        const rule = format.reads.comparison(col('c', column), parseType(parameter), utf8mb4());
        const said = rule.access === 'seek' ? 's' : rule.access === 'scan' ? 'x' : '?';
        if (said !== plans[i]) off.push(`${column} = ${parameter}: rowsim ${rule.access} (${rule.expression}), MariaDB ${plans[i]}`);
      });
    }
    expect(off).toEqual([]);
  });

  it('a latin1 column against a utf8mb4 parameter converts the column; a utf8mb4 column converts a latin1 parameter', () => {
    const latin1 = format.reads.comparison(col('code', 'varchar(36) character set latin1'), parseType('varchar(36)'), utf8mb4());
    expect(latin1).toMatchObject({ access: 'scan', converted: 'column', expression: 'CONVERT(code USING utf8mb4) = p' });
    const wide = format.reads.comparison(col('code', 'varchar(36)'), parseType('varchar(36) charset latin1'), utf8mb4());
    expect(wide).toMatchObject({ access: 'seek', converted: 'parameter', expression: 'code = CONVERT(p USING utf8mb4)' });
    // A string column against a number is compared as DOUBLE; a number column converts a string parameter.
    expect(format.reads.comparison(col('code', 'varchar(36)'), parseType('int'), utf8mb4())).toMatchObject({
      access: 'scan',
      expression: 'CAST(code AS DOUBLE) = p',
    });
    expect(format.reads.comparison(col('id', 'int'), parseType('varchar(10)'), utf8mb4()).access).toBe('seek');
  });

  it("a parameter without a character set is in the table's default; NVARCHAR is utf8mb3; an unknown set is refused", () => {
    const latin1Table = engine({ format: 'innodb', charset: 'latin1' });
    expect(format.reads.comparison(col('c', 'varchar(10)'), parseType('varchar(10)'), latin1Table).access).toBe('seek');
    expect(format.reads.comparison(col('c', 'varchar(10)'), parseType('nvarchar(10)'), latin1Table).access).toBe('scan');
    // encoding: utf16 is stored as utf8 (withoutUtf16), so the table's default is utf8mb4, not latin1.
    const utf16Config = engine({ format: 'innodb', encoding: 'utf16' });
    expect(tableCharset(utf16Config)).toBe('utf8mb4');
    expect(format.reads.comparison(col('c', 'varchar(10)'), parseType('varchar(10) character set utf8mb4'), utf16Config).access).toBe(
      'seek',
    );
    const unknown = format.reads.comparison(col('c', 'varchar(10)'), parseType('varchar(10) character set koi8r'), utf8mb4());
    expect(unknown.access).toBe('error');
    expect(unknown.why).toMatch(/expected a character set rowsim knows .*, found koi8r/);
  });
});

const DUMP = (charset: string, columns: string, rowFormat = 'DYNAMIC') => `CREATE TABLE \`s\` (
  \`id\` int(11) NOT NULL,
${columns},
  PRIMARY KEY (\`id\`)
) ENGINE=InnoDB DEFAULT CHARSET=${charset} COLLATE=${charset}_general_ci ROW_FORMAT=${rowFormat};`;

/** The clustered record of a DDL's table, its varying columns at `bytes` (by name), on a spec the loader built from the DDL. */
function recordOf(ddl: string, bytes: Record<string, number>, engineYaml = ''): number {
  const yaml = `name: s\nseed: 1\ntable:\n  ddl: |\n${ddl.replace(/^/gm, '    ')}\nengine: { format: innodb${engineYaml} }\nworkload:\n  - insert: { rows: 1 }\n`;
  const spec = loadConfig('s.yaml', yaml).storage[0]!.spec;
  const layout = innodbLayout(spec.table, spec.engine);
  const lens = new Uint16Array(Math.max(1, layout.varying.length));
  for (const c of layout.varying) lens[c.varIndex] = bytes[c.name]!;
  return clusteredRecord(layout.innodb, lens, 0).bytes;
}

describe('DEFAULT CHARSET and CHARACTER SET as mysqldump prints them: record sizes MariaDB 10.11 reported', () => {
  const cv = '  `c` char(10) DEFAULT NULL,\n  `v` varchar(20) DEFAULT NULL';

  it('latin1: CHAR(10) fixed, 54 bytes; utf8mb4 and utf8mb3: CHAR(10) variable (a length byte more), 55', () => {
    expect(recordOf(DUMP('latin1', cv), { c: 10, v: 20 })).toBe(54);
    expect(recordOf(DUMP('utf8mb4', cv), { c: 10, v: 20 })).toBe(55);
    expect(recordOf(DUMP('utf8mb3', cv, 'COMPACT'), { c: 10, v: 20 })).toBe(55);
    // REDUNDANT keeps a utf8mb4 CHAR(10) at its 40 bytes: 6 + 5 one-byte offsets + 4 + 13 + 40 + 20.
    expect(recordOf(DUMP('utf8mb4', cv, 'REDUNDANT'), { c: 40, v: 20 })).toBe(88);
  });

  it('DEFAULT CHARACTER SET = x is DEFAULT CHARSET=x', () => {
    expect(parseDdl(DUMP('latin1', cv).replace('DEFAULT CHARSET=latin1', 'DEFAULT CHARACTER SET = utf8mb3')).storage.charset).toMatchObject(
      {
        value: 'utf8mb3',
        line: 6,
      },
    );
    expect(() => parseDdl(DUMP('latin1', cv).replace('DEFAULT CHARSET=latin1', 'CHARACTER SET koi8r'))).toThrow(
      /expected CHARACTER SET=ascii, .*found CHARACTER SET=koi8r/,
    );
  });

  it("a column's own CHARACTER SET wins over the table's default", () => {
    const own = '  `c` char(10) CHARACTER SET latin1 COLLATE latin1_swedish_ci DEFAULT NULL,\n  `v` varchar(20) DEFAULT NULL';
    expect(recordOf(DUMP('utf8mb4', own), { c: 10, v: 20 })).toBe(54);
    expect(parseDdl(DUMP('utf8mb4', own)).columns[1]!.type.characterSet).toBe('latin1');
  });

  it('the character set decides a "big" column: VARCHAR(100) of 140 bytes takes 2 length bytes in utf8mb3 (300 at most)', () => {
    const v = '  `v` varchar(100) DEFAULT NULL';
    expect(recordOf(DUMP('utf8mb3', v), { v: 140 })).toBe(165);
    expect(recordOf(DUMP('latin1', v), { v: 70 })).toBe(94);
  });

  it('an unknown character set: the line, the charsets rowsim knows, what was found', () => {
    expect(() => parseDdl(DUMP('koi8r', cv))).toThrow(/expected CHARSET=ascii, latin1, utf8mb3, utf8, utf8mb4 .*found CHARSET=koi8r/);
    const column = '  `c` char(10) CHARACTER SET koi8r DEFAULT NULL,\n  `v` varchar(20) DEFAULT NULL';
    try {
      parseDdl(DUMP('utf8mb4', column));
      expect.unreachable();
    } catch (err) {
      expect((err as { line: number }).line).toBe(3);
      expect((err as Error).message).toMatch(/column c: expected CHARACTER SET ascii, latin1, utf8mb3, utf8, utf8mb4, found "koi8r"/);
    }
    const yaml = `name: s\nseed: 1\ntable:\n  name: s\n  columns:\n    - { name: c, type: varchar(9) character set koi8r }\nengine: { format: innodb }\nworkload:\n  - insert: { rows: 1 }\n`;
    expect(() => loadConfig('s.yaml', yaml)).toThrow(/s\.yaml:6.*expected a character set ascii, .* for column c, found koi8r/s);
  });

  it('the CLI: exit 2, the config file and the DDL line, nothing written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-charsets-'));
    try {
      const ddl = DUMP('utf8mb4', '  `c` char(10) CHARACTER SET koi8r DEFAULT NULL,\n  `v` varchar(20) DEFAULT NULL');
      const file = join(dir, 'bad.yaml');
      writeFileSync(
        file,
        `name: s\nseed: 1\ntable:\n  ddl: |\n${ddl.replace(/^/gm, '    ')}\nengine: { format: innodb }\nworkload:\n  - insert: { rows: 1 }\n`,
      );
      const r = rowsim(['run', file, '--out', join(dir, 'out')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/bad\.yaml.*DDL line 3, column \d+: column c: expected CHARACTER SET ascii, .*found "koi8r"/s);
      expect(existsSync(join(dir, 'out'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
