/**
 * Columns whose stored length a run never changes, and the layout a run works with.
 *
 * The row store keeps 2 bytes a row for every varying column (layout/table-layout.ts). Some columns are
 * varying only by type: an Oracle NUMBER is sized by its value's digits, but a workload that gives the
 * column no length stores every row's value at the type's size. Where the format counts such a column
 * the same whether its length is stored per row or fixed (`StorageFormat.constantLayout`), the run
 * lays the column out as fixed at that size: the same row sizes, no length a row to write and keep.
 *
 * A column is constant for a run when every row it inserts stores the same length and nothing changes it:
 * - no insert phase gives it a length, a NULL share (for a nullable column) or distinct values (a
 *   distinct value keeps the length the first row with it had);
 * - no update phase sets it;
 * - it is not a large object (read_lob phases keep their whole lengths by column).
 * Runs with an observer (pgcheck, trace, the bench's PostgreSQL replay) keep every varying column: an
 * observer reads the lengths with the layout it made itself.
 */
import type { StorageSpec } from '../config/spec.js';
import type { StorageFormat } from '../formats/format.js';
import { fullLengthBytes, type TableLayout } from '../layout/table-layout.js';

/** Per column index, the bytes every row of the run stores for it, for the varying columns that never change. */
export function constantColumns(spec: StorageSpec, layout: TableLayout): Map<number, number> {
  const constant = new Map<number, number>();
  for (const col of layout.varying) {
    if (spec.table.columns[col.index]!.type.lob) continue;
    const bytes = fullLengthBytes(col);
    const fixed = spec.workload.every((ph) => {
      if (ph.op === 'insert') {
        const v = ph.values[col.name];
        return v === undefined || (v.length === undefined && (!col.nullable || v.null === 0) && v.domain?.distinct === undefined);
      }
      if (ph.op === 'update') return ph.set[col.name] === undefined;
      return true;
    });
    if (fixed) constant.set(col.index, bytes);
  }
  return constant;
}

/**
 * The layout a run sizes its rows with (`layout`), and the table's as declared (`schema`: the row size
 * range and settings a run reports). They are one object unless the format lays out constant columns.
 */
export function runLayout(format: StorageFormat, spec: StorageSpec, observed: boolean): { layout: TableLayout; schema: TableLayout } {
  const schema = format.rows.layout(spec.table, spec.engine);
  if (observed || !format.rows.constantLayout) return { layout: schema, schema };
  const constant = constantColumns(spec, schema);
  if (constant.size === 0) return { layout: schema, schema };
  return { layout: format.rows.constantLayout(spec.table, spec.engine, constant), schema };
}
