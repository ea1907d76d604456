/**
 * An index entry the server refuses to store, and the run that stops there as the server's statement
 * does. PostgreSQL 15 checks an entry's size twice, both errors SQLSTATE 54000 (program_limit_exceeded):
 *   - index_form_tuple (indextuple.c): an index tuple above INDEX_SIZE_MASK (8,191 bytes), its size
 *     MAXALIGNed: "index row requires N bytes, maximum size is 8191";
 *   - _bt_check_third_page (nbtutils.c), called where nbtree adds a tuple (nbtsort.c's build, nbtinsert.c's
 *     insert) when it is above BTMaxItemSize (2,704 bytes on 8K pages): "index row size N exceeds btree
 *     version 4 maximum 2704 for index "name"", DETAIL the heap tuple it references.
 * CREATE INDEX forms the tuples in heap order and adds them in key order: the first tuple over 8,191 bytes in
 * heap order, else the first over BTMaxItemSize in (key, TID) order, is the one named. An INSERT or UPDATE
 * adds a row's entries index by index in the order the indexes were created. Either way the statement
 * fails and its transaction aborts: every row of it, not that row alone. rowsim stops the run there with
 * the server's error, as a user's error (exit status 2: the config asks for what the server refuses).
 */
import { UserError } from '../config/errors.js';
import { groupedNumber } from '../util/numbers.js';
import { PG_INDEX_TUPLE_MAX_BYTES, serverText, type OversizeEntry } from '../btree/entry-limit.js';

export { serverText, type OversizeEntry };

/** Where the run stopped: the phase (0-based), the statement the server refuses, the row whose entry it is. */
export interface IndexRefusal extends OversizeEntry {
  phase: number;
  op: string;
  step: 'create index' | 'insert' | 'update';
  table: string;
  row: number;
  page: number;
  /** The row's line pointer on its page (1-based), where the engine keeps it. */
  slot?: number;
}

function statementOf(r: IndexRefusal): string {
  // The message starts with the phase's key path (workload[i], from 0): the phase is "this phase", never a number from 1 beside it.
  if (r.step === 'create index') return `the CREATE INDEX ${r.index} that follows this phase`;
  return `the ${r.step === 'insert' ? 'INSERT' : 'UPDATE'} of row ${r.row} in this phase and the transaction it is in`;
}

export class IndexEntryRefusal extends UserError {
  constructor(readonly refusal: IndexRefusal) {
    const r = refusal;
    const tid = r.slot === undefined ? `heap page ${r.page}` : `heap tuple (${r.page},${r.slot})`;
    const key = r.step === 'create index' ? `workload[${r.phase}]` : `workload[${r.phase}].${r.op}`;
    super(
      `${key}: PostgreSQL refuses ${statementOf(r)}: ERROR: ${serverText(r)} (row ${r.row} of table ${r.table}, ${tid}) [SQLSTATE 54000]; ` +
        `expected index entries of at most ${groupedNumber(r.limit)} bytes` +
        `${r.limit === PG_INDEX_TUPLE_MAX_BYTES ? '' : ' (a third of a page)'}: shorten the indexed values, make them compressible, or index something shorter; the run stops here, as the server's would`,
    );
    this.name = 'IndexEntryRefusal';
  }
}
