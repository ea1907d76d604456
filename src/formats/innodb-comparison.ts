/**
 * MySQL/MariaDB character sets as InnoDB stores them (the most bytes a character takes), and the
 * comparison of a column with a parameter of another type or character set (src/formats/innodb.ts uses
 * both). The rules are the manuals' [MY-TYPECONV][MY-COERCE], checked against a live MariaDB 10.11's
 * plans (test/mysqlcheck-charsets.test.ts).
 */
import type { ColumnType } from '../config/column-types.js';
import type { ColumnDef, EngineSpec } from '../config/spec.js';
import type { ComparisonRule } from './comparison.js';
import { withoutUtf16 } from './format.js';

/**
 * The character sets rowsim models: the most bytes a character takes, and the order in which one holds
 * the other's characters (ascii in latin1 in utf8mb3 in utf8mb4). `utf8` is utf8mb3 (MariaDB 10.11, MySQL 8).
 */
export const INNODB_CHARSETS = {
  ascii: { maxBytes: 1, rank: 0 },
  latin1: { maxBytes: 1, rank: 1 },
  utf8mb3: { maxBytes: 3, rank: 2 },
  utf8: { maxBytes: 3, rank: 2 },
  utf8mb4: { maxBytes: 4, rank: 3 },
} as const;

export type InnodbCharset = keyof typeof INNODB_CHARSETS;

export const INNODB_CHARSET_NAMES = Object.keys(INNODB_CHARSETS) as InnodbCharset[];

function known(name: string): name is InnodbCharset {
  return Object.hasOwn(INNODB_CHARSETS, name);
}

/**
 * The table's default character set: `charset` (DEFAULT CHARSET=…), else the encoding's as the format
 * stores it (withoutUtf16: utf16 as utf8): utf8mb4 under utf8, else latin1.
 */
export function tableCharset(engine: EngineSpec): InnodbCharset {
  const written = engine.charset;
  if (written !== undefined && known(written)) return written;
  return withoutUtf16(engine.encoding ?? 'latin1') === 'utf8' ? 'utf8mb4' : 'latin1';
}

/**
 * A character type's character set: its own (`character set latin1`), NCHAR/NVARCHAR's utf8mb3 (MySQL's
 * national character set), else the table's default. Undefined for a name rowsim does not know.
 */
export function columnCharset(t: ColumnType, engine: EngineSpec): InnodbCharset | undefined {
  if (t.characterSet !== undefined) return known(t.characterSet) ? t.characterSet : undefined;
  return t.national ? 'utf8mb3' : tableCharset(engine);
}

/** The expected charsets, for messages. */
export function charsetChoices(): string {
  return `${INNODB_CHARSET_NAMES.slice(0, -1).join(', ')} or ${INNODB_CHARSET_NAMES[INNODB_CHARSET_NAMES.length - 1]}`;
}

/** MySQL's comparison classes [MY-TYPECONV]; BIGINT apart (MariaDB compares it with a date as an integer). */
type MyClass = 'int' | 'bigint' | 'decimal' | 'double' | 'temporal' | 'string' | 'binary';

function myClass(t: ColumnType): MyClass {
  switch (t.family) {
    case 'int':
    case 'bool':
      return t.name === 'bigint' || t.name === 'unsigned bigint' ? 'bigint' : 'int';
    case 'numeric':
    case 'money':
      return 'decimal';
    case 'float':
      return 'double';
    case 'datetime':
      return 'temporal';
    case 'char':
    case 'varchar':
    case 'text':
      return 'string';
    default:
      return 'binary';
  }
}

const NUMBER: readonly MyClass[] = ['int', 'bigint', 'decimal', 'double'];
const SOURCE = '[MY-TYPECONV]';

function seek(converted: 'parameter' | 'none', expression: string, why: string, source = SOURCE): ComparisonRule {
  return { access: 'seek', converted, expression, why, source };
}

function scan(expression: string, why: string, source = SOURCE): ComparisonRule {
  return { access: 'scan', converted: 'column', expression, why, source };
}

/** Two character types: the same set is compared as is; else the set that holds the other's characters wins and the other side is converted [MY-COERCE]. */
function stringComparison(column: ColumnDef, parameter: ColumnType, engine: EngineSpec): ComparisonRule {
  const c = columnCharset(column.type, engine);
  const p = columnCharset(parameter, engine);
  if (c === undefined || p === undefined) {
    const name = c === undefined ? column.type.characterSet : parameter.characterSet;
    return {
      access: 'error',
      converted: 'none',
      expression: `${column.name} = p`,
      why: `expected a character set rowsim knows (${charsetChoices()}), found ${name}`,
      source: '[MY-COERCE]',
    };
  }
  if (INNODB_CHARSETS[c].rank === INNODB_CHARSETS[p].rank)
    return seek('none', `${column.name} = p`, `both sides are ${c}: the index is sought`, '[MY-COERCE]');
  if (INNODB_CHARSETS[c].rank > INNODB_CHARSETS[p].rank) {
    return seek(
      'parameter',
      `${column.name} = CONVERT(p USING ${c})`,
      `${c} holds every ${p} character, so the ${p} parameter is converted to the column's ${c} and the index is sought`,
      '[MY-COERCE]',
    );
  }
  const expression = `CONVERT(${column.name} USING ${p}) = p`;
  return scan(
    expression,
    `the parameter's ${p} holds every ${c} character, so the column is converted (${expression}) and its index cannot be sought; a client's placeholder (a literal to the server) is converted to the column's set instead`,
    '[MY-COERCE]',
  );
}

/**
 * `column = p` in MySQL/MariaDB, p a routine's parameter or variable of the given type. Numbers compare
 * as numbers, a number with a string as DOUBLE, a date with a number or string as a date [MY-TYPECONV];
 * the index is sought when the parameter's value can be stored in the column's type (a numeric or
 * temporal column against anything but: a numeric column other than BIGINT against a date or time,
 * "Cannot use key … for lookup" on MariaDB 10.11), and scanned when the column must be read as a number
 * or a date (a string or binary column against a number or a date).
 */
export function innodbComparison(column: ColumnDef, parameter: ColumnType, engine: EngineSpec): ComparisonRule {
  const c = myClass(column.type);
  const p = myClass(parameter);
  const name = column.name;
  if (c === 'string' && p === 'string') return stringComparison(column, parameter, engine);
  if (c === p) return seek('none', `${name} = p`, `both sides are of one type class: the index is sought`);
  if (NUMBER.includes(c) && NUMBER.includes(p)) {
    const as = c === 'double' || p === 'double' ? 'DOUBLE' : 'DECIMAL';
    return seek(
      'parameter',
      `${name} = p`,
      `compared as ${as}; the parameter's value is stored in the column's type and the index is sought`,
    );
  }
  if (c === 'temporal' || (c === 'bigint' && p === 'temporal')) {
    const why =
      c === 'bigint'
        ? 'MariaDB compares a BIGINT column with a date as an integer (the date as YYYYMMDD…): the index is sought'
        : `the parameter is converted to the column's ${column.type.sql.toUpperCase()} and the index is sought`;
    return seek('parameter', `${name} = CAST(p AS ${column.type.sql.toUpperCase()})`, why);
  }
  if (p === 'temporal') {
    const expression = `CAST(${name} AS ${parameter.sql.toUpperCase()}) = p`;
    return scan(expression, `compared as a date: the column is converted (${expression}) and its index cannot be sought`);
  }
  if (NUMBER.includes(c)) {
    return seek('parameter', `${name} = CAST(p AS DOUBLE)`, `the ${p} parameter is converted to a number and the index is sought`);
  }
  if (NUMBER.includes(p)) {
    const expression = `CAST(${name} AS DOUBLE) = p`;
    return scan(
      expression,
      `a ${c === 'binary' ? 'binary string' : 'string'} column compared with a number is compared as DOUBLE (${expression}): the index cannot be sought`,
    );
  }
  // A binary string against a character string: the parameter is taken in the column's type, the index sought.
  return seek(
    'parameter',
    `${name} = p`,
    `a ${c === 'binary' ? 'binary column against a character' : 'character column against a binary'} parameter: the parameter is compared as the column's bytes, the index is sought`,
    '[MY-COERCE]',
  );
}
