/**
 * PostgreSQL's comparison of a column with a parameter of another type: the btree operator families that
 * hold cross-type operators [PG-XINDEX] and the implicit casts between them [PG-TYPECONV], which decide
 * whether an index on the column can serve the comparison (src/formats/postgres.ts uses it).
 */
import type { ColumnType } from '../config/column-types.js';
import type { ColumnDef } from '../config/spec.js';
import type { ComparisonRule } from './format.js';

/** PostgreSQL's comparison classes: the btree operator families that hold cross-type operators [PG-XINDEX]. */
type PgCompareClass =
  'text' | 'varchar' | 'bpchar' | 'int' | 'numeric' | 'float' | 'money' | 'datetime' | 'time' | 'bool' | 'uuid' | 'bytea';

function pgCompareClass(t: ColumnType): PgCompareClass {
  switch (t.family) {
    case 'char':
      return 'bpchar';
    case 'varchar':
      return 'varchar';
    case 'text':
      return 'text';
    case 'binary':
    case 'varbinary':
    case 'blob':
      return 'bytea';
    case 'int':
      return 'int';
    case 'numeric':
      return 'numeric';
    case 'float':
      return 'float';
    case 'money':
      return 'money';
    case 'bool':
      return 'bool';
    case 'uuid':
      return 'uuid';
    case 'datetime':
      return t.name === 'time' || t.name === 'bigtime' ? 'time' : 'datetime';
  }
}

/**
 * Which side PostgreSQL casts when the classes differ: the implicit casts (pg_cast, castcontext 'i')
 * int → numeric → float8 and varchar/bpchar → text. A cast on the column's side means no index scan
 * [PG-TYPECONV]; a pair with no operator and no implicit cast is an error, as on the server.
 */
const PG_IMPLICIT_UP: Partial<Record<PgCompareClass, PgCompareClass[]>> = {
  int: ['numeric', 'float'],
  numeric: ['float'],
};

/**
 * Character columns and parameters of different types: the operator is chosen by exact matches, then the
 * string category's preferred type, text [PG-TYPECONV]. varchar and text meet at text = text (varchar is
 * binary-coercible to text and its btree opclass is in text_ops): searched either way. bpchar against
 * varchar meets at bpchar = bpchar (one exact match): the varchar side is cast. bpchar against text ties
 * and text wins: the bpchar side is cast. Checked on PostgreSQL 15 (test/pgcheck-reads.test.ts).
 */
const PG_STRING_CAST_SIDE: Record<string, 'column' | 'parameter' | 'none'> = {
  'varchar text': 'none',
  'text varchar': 'none',
  'bpchar varchar': 'parameter',
  'varchar bpchar': 'column',
  'bpchar text': 'column',
  'text bpchar': 'parameter',
};

/**
 * `column = $1` in PostgreSQL. Types of one btree operator family compare with cross-type operators and
 * the index is searched (integer_ops: int2, int4, int8; float_ops; text_ops with varchar, binary-coercible
 * to text; datetime_ops) [PG-XINDEX]. Otherwise one side is cast implicitly: the column, when only its
 * type casts up (int4 column = numeric value: (col)::numeric, a sequential scan), or the parameter
 * (numeric column = int value); with no cast either way the server refuses the query ("operator does not
 * exist: text = numeric"). One character set a database: varchar and nvarchar are both text [PG-TYPECONV].
 */
export function postgresComparison(column: ColumnDef, parameter: ColumnType): ComparisonRule {
  const c = pgCompareClass(column.type);
  const p = pgCompareClass(parameter);
  if (c === p) {
    return {
      access: 'seek',
      converted: 'none',
      expression: `${column.name} = $1`,
      why: `${column.type.sql} and ${parameter.sql} compare with an operator of one btree operator family: the index is searched`,
      source: '[PG-XINDEX]',
    };
  }
  const strings = PG_STRING_CAST_SIDE[`${c} ${p}`];
  if (strings === 'none') {
    return {
      access: 'seek',
      converted: 'none',
      expression: `${column.name} = $1`,
      why: 'varchar and text compare as text = text (varchar is binary-coercible to text, its operator class in text_ops): the index is searched',
      source: '[PG-XINDEX][PG-TYPECONV]',
    };
  }
  if (strings === 'column') {
    const target = p === 'varchar' ? 'bpchar' : 'text';
    const expression = `(${column.name})::${target} = $1`;
    return {
      access: 'scan',
      converted: 'column',
      expression,
      why: `PostgreSQL resolves ${column.type.sql} = ${parameter.sql} as ${target} = ${target}, casting the column (${expression}): the index is not used`,
      source: '[PG-TYPECONV]',
    };
  }
  if (strings === 'parameter') {
    return {
      access: 'seek',
      converted: 'parameter',
      expression: `${column.name} = ($1)::${c}`,
      why: `PostgreSQL resolves the comparison as ${c} = ${c}, casting the parameter: the index is searched`,
      source: '[PG-TYPECONV]',
    };
  }
  if (PG_IMPLICIT_UP[c]?.includes(p)) {
    const target = p === 'float' ? 'double precision' : p;
    const expression = `(${column.name})::${target} = $1`;
    return {
      access: 'scan',
      converted: 'column',
      expression,
      why: `there is no ${c} = ${p} operator in the index's operator family, so the column is cast (${expression}) and the index cannot be used`,
      source: '[PG-XINDEX][PG-TYPECONV]',
    };
  }
  if (PG_IMPLICIT_UP[p]?.includes(c)) {
    return {
      access: 'seek',
      converted: 'parameter',
      expression: `${column.name} = ($1)::${c === 'float' ? 'double precision' : c}`,
      why: `the parameter is cast to the column's type, and the index is searched`,
      source: '[PG-TYPECONV]',
    };
  }
  return {
    access: 'error',
    converted: 'none',
    expression: `${column.name} = $1`,
    why: `PostgreSQL has no operator ${column.type.sql} = ${parameter.sql} and no implicit cast between them: the server refuses the query (operator does not exist)`,
    source: '[PG-TYPECONV]',
  };
}
