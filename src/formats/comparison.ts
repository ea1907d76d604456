/**
 * `column = @parameter` when the parameter's type differs from the column's: each DBMS converts one side
 * to the other's type by a rule of its own, and when the column side is converted an index on it cannot
 * be sought (the plan becomes a scan). The formats' routines (StorageFormat.comparison) apply these
 * rules; the sources are in docs/sources.md under the keys cited.
 */
import type { ColumnType } from '../config/column-types.js';

/** What happens to `column = @parameter`. */
export interface ComparisonRule {
  /** seek: the index is sought; range-seek: sought through a range computed from the parameter, rows re-checked; scan: not sought; error: the DBMS refuses the comparison. */
  access: 'seek' | 'range-seek' | 'scan' | 'error';
  converted: 'column' | 'parameter' | 'none';
  /** The predicate as the DBMS evaluates it, e.g. CONVERT_IMPLICIT(nvarchar(36), code) = @p. */
  expression: string;
  /** Why, in a sentence. */
  why: string;
  /** The source keys (docs/sources.md). */
  source: string;
}

/** A type's class for comparisons: character (database or national character set), numbers, dates, bytes … */
export type TypeClass = 'char' | 'nchar' | 'int' | 'numeric' | 'float' | 'money' | 'datetime' | 'bool' | 'uuid' | 'binary';

export function typeClass(t: ColumnType): TypeClass {
  switch (t.family) {
    case 'char':
    case 'varchar':
    case 'text':
      return t.national ? 'nchar' : 'char';
    case 'binary':
    case 'varbinary':
    case 'blob':
      return 'binary';
    default:
      return t.family;
  }
}

/** The same type: nothing to convert. */
export function sameType(column: ColumnType, parameter: ColumnType): boolean {
  return column.sql === parameter.sql || (column.name === parameter.name && typeClass(column) === typeClass(parameter));
}

export function unconverted(column: string, source: string): ComparisonRule {
  return { access: 'seek', converted: 'none', expression: `${column} = @p`, why: "the parameter has the column's type", source };
}
