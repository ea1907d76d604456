/**
 * The workload section resolved: each phase (insert, update, delete, select, read_lob, reorg) checked
 * against the table and turned into its PhaseSpec, with its distributions (lengths, histograms from CSV
 * files) and its order. Problems carry the key path; src/loader/storage.ts resolves the table and engine.
 */
import { z } from 'zod';
import { isBinaryType, isCharacterType, isLobType, parseType, SchemaError } from '../config/column-types.js';
import { describeFound, nearest, type KeyPath } from '../config/errors.js';
import { FREQUENCY_RE, ORDER_RE, PHASE_KINDS, TRANSACTION_RE, PHASE_SCHEMAS, type PhaseKind, type DistInput } from '../config/schema.js';
import {
  COMPRESSIBILITY_STEPS,
  transactionText,
  type ColumnDef,
  type Compressibility,
  type Dist,
  type KeyOrder,
  type Order,
  type PhaseSpec,
  type PredicateSpec,
  type RowAccess,
  type SetSpec,
  type TableDef,
  type TransactionScope,
  type ValueDomain,
  type ValueSpec,
} from '../config/spec.js';
import { MAX_REPEAT_BYTES as MAX_BLOCK_REPEAT } from '../formats/pg-compression.js';
import { lengthBound, resolveDist } from './lengths.js';
import { Problems, zodCheck } from './problems.js';

/** `engine:`: the format, one of the registry's, the settings every format may read and those the formats declare (docs/config.md). */

/** What a phase resolver needs: where problems go, the table, and checks of column names and NULL shares. */
interface PhaseContext {
  P: Problems;
  baseDir: string;
  table: TableDef;
  /** True when `name` is a column of the table; else a problem (with the nearest name) at `where`. */
  checkColumn(name: string, where: KeyPath): boolean;
  /** A NULL share above 0 only on a nullable column. */
  nullCheck(name: string, share: number | undefined, where: KeyPath): void;
  /** Lengths resolved at `where`, with NULLs in a sequence only on a nullable column. */
  lengths(name: string, d: DistInput, where: KeyPath): Dist | undefined;
  /** A compressibility only on a character or binary column, and a share the 64-byte blocks hold. */
  compressibilityCheck(name: string, c: Compressibility | undefined, where: KeyPath): void;
}

type PhaseResolver = (body: unknown, path: KeyPath, ctx: PhaseContext) => PhaseSpec | undefined;

function resolveInsert(body: unknown, path: KeyPath, ctx: PhaseContext): PhaseSpec | undefined {
  const v = zodCheck(PHASE_SCHEMAS.insert, body, path, ctx.P);
  if (!v) return undefined;
  const values: Record<string, ValueSpec> = Object.create(null);
  for (const [name, spec] of Object.entries(v.values ?? {})) {
    const where = [...path, 'values', name];
    if (!ctx.checkColumn(name, where)) continue;
    ctx.nullCheck(name, spec.null, [...where, 'null']);
    const domain = resolveDomain(spec, where, ctx.P);
    ctx.compressibilityCheck(name, spec.compressibility, [...where, 'compressibility']);
    values[name] = {
      null: spec.null ?? 0,
      length: spec.length === undefined ? undefined : ctx.lengths(name, spec.length, [...where, 'length']),
      ...(domain ? { domain } : {}),
      ...(spec.compressibility ? { compressibility: spec.compressibility } : {}),
    };
  }
  return { op: 'insert', rows: v.rows, values, ...transactionOf(v, path, ctx.P) };
}

/** `transaction:` (statement, row, batch(N)) and `rollback:` of a phase that changes rows. */
function transactionOf(
  v: { transaction?: string; rollback?: boolean },
  path: KeyPath,
  P: Problems,
): { transaction: TransactionScope; rollback: boolean } {
  const m = TRANSACTION_RE.exec(v.transaction ?? 'statement')!;
  let transaction: TransactionScope = m[1] === 'row' ? 'row' : 'statement';
  if (m[2] !== undefined) {
    const n = Number(m[2]);
    if (n < 1) P.add([...path, 'transaction'], `expected batch(N) with N ≥ 1 rows a transaction, found ${v.transaction}`);
    else transaction = n === 1 ? 'row' : { batch: n };
  }
  return { transaction, rollback: v.rollback ?? false };
}

/** `distinct`, `frequency` and `order` of a column's values (absent: undefined); frequency needs distinct. */
function resolveDomain(
  spec: { distinct?: number; frequency?: string; order?: KeyOrder },
  where: KeyPath,
  P: Problems,
): ValueDomain | undefined {
  if (spec.distinct === undefined && spec.frequency === undefined && spec.order === undefined) return undefined;
  if (spec.frequency !== undefined && spec.distinct === undefined) {
    P.add(
      [...where, 'frequency'],
      `expected frequency only with distinct: N (how often each of N values occurs), found frequency: ${spec.frequency} without distinct`,
    );
    return undefined;
  }
  const m = spec.frequency === undefined ? null : FREQUENCY_RE.exec(spec.frequency)!;
  const frequency = m && m[2] !== undefined ? ({ kind: 'zipf', s: Number(m[2]) } as const) : ({ kind: 'uniform' } as const);
  return { ...(spec.distinct !== undefined ? { distinct: spec.distinct } : {}), frequency, order: spec.order ?? 'ascending' };
}

/** One column's change in `set:`: changed, a new length, a growth, or a NULL share. */
function resolveSet(
  name: string,
  s: Exclude<z.infer<typeof PHASE_SCHEMAS.update>['set'][string], 'changed' | 'same'>,
  where: KeyPath,
  ctx: PhaseContext,
): SetSpec | undefined {
  ctx.nullCheck(name, s.null, [...where, 'null']);
  const domain = resolveDomain(s, where, ctx.P);
  const withDomain = domain ? { domain } : {};
  ctx.compressibilityCheck(name, s.compressibility, [...where, 'compressibility']);
  const content = s.compressibility !== undefined ? { compressibility: s.compressibility } : {};
  if (s.length !== undefined && s.grow !== undefined) {
    ctx.P.add(where, 'expected either length (a new length) or grow (added to the old length), found both');
  } else if (s.length !== undefined) {
    const dist = ctx.lengths(name, s.length, [...where, 'length']);
    if (dist) return { kind: 'length', dist, null: s.null, ...withDomain, ...content };
  } else if (s.grow !== undefined) {
    const dist = ctx.lengths(name, s.grow, [...where, 'grow']);
    if (dist) return { kind: 'grow', dist, null: s.null, ...withDomain, ...content };
  } else if (s.compressibility !== undefined) {
    ctx.P.add(
      [...where, 'compressibility'],
      'expected compressibility with length or grow (it describes the new value), found it without either',
    );
  } else if (s.null !== undefined) {
    return { kind: 'null', null: s.null, ...withDomain };
  } else if (domain) {
    // distinct, frequency or order alone: a new value of the same length, drawn from those values.
    return { kind: 'changed', domain };
  } else if (s.distinct === undefined && s.frequency === undefined) {
    ctx.P.add(where, 'expected changed, or a mapping with length, grow, null, distinct, frequency and/or order, found an empty mapping');
  }
  return undefined;
}

function resolveUpdate(body: unknown, path: KeyPath, ctx: PhaseContext): PhaseSpec | undefined {
  const v = zodCheck(PHASE_SCHEMAS.update, body, path, ctx.P);
  if (!v) return undefined;
  const set: Record<string, SetSpec> = Object.create(null);
  if (Object.keys(v.set).length === 0) ctx.P.add([...path, 'set'], 'expected at least one column to change, found none');
  for (const [name, s] of Object.entries(v.set)) {
    const where = [...path, 'set', name];
    if (!ctx.checkColumn(name, where)) continue;
    const change =
      s === 'changed' ? ({ kind: 'changed' } as const) : s === 'same' ? ({ kind: 'same' } as const) : resolveSet(name, s, where, ctx);
    if (change) set[name] = change;
  }
  return { op: 'update', rows: v.rows, ...resolveAccess(v, path, ctx), set };
}

/**
 * An update's or delete's rows: its order, how it reaches them (`via`) and its transactions. One
 * statement over a scan or a key range is one transaction and reaches each row once: no `transaction:
 * row`, no zipf order (draws with replacement); a key range is a run of consecutive keys of the first
 * index (oldest, newest, or from a random place), so it needs an index and takes no spread order.
 */
function resolveAccess(
  v: { order?: string; via?: RowAccess; transaction?: string; rollback?: boolean },
  path: KeyPath,
  ctx: PhaseContext,
): { order: Order; via: RowAccess; transaction: TransactionScope; rollback: boolean } {
  const via = v.via ?? 'index';
  const order = resolveOrder(v.order ?? (via === 'range' ? 'sequential' : 'random'));
  const { transaction, rollback } = transactionOf(v, path, ctx.P);
  if (via !== 'index') {
    const one = `one statement (via: ${via}) reaches each row once`;
    if (transaction !== 'statement')
      ctx.P.add(
        [...path, 'transaction'],
        `expected transaction: statement with via: ${via} (one statement is one transaction), found ${transactionText(transaction)}`,
      );
    if (order.kind === 'zipf')
      ctx.P.add([...path, 'order'], `expected sequential, newest, random or spread with via: ${via} (${one}), found ${v.order}`);
  }
  if (via === 'range') {
    if (order.kind === 'spread')
      ctx.P.add(
        [...path, 'order'],
        `expected sequential (oldest), newest or random (a range from a random place) with via: range, found spread`,
      );
    if (ctx.table.indexes.length === 0)
      ctx.P.add(
        [...path, 'via'],
        `expected a table with an index for via: range (a range of its first index's key), found table ${ctx.table.name} with none`,
      );
  }
  return { order, via, transaction, rollback };
}

/** The index a select names (or the table's only index), checked against the table. */
function selectIndex(name: string | undefined, path: KeyPath, ctx: PhaseContext): string | undefined {
  const names = ctx.table.indexes.map((i) => i.name);
  if (name === undefined) {
    if (names.length === 1) return names[0];
    ctx.P.add(
      [...path, 'via'],
      names.length === 0
        ? `expected a table with an index for via: index, found table ${ctx.table.name} with none (use via: scan or via: rowid)`
        : `expected index: the index to read through (one of ${names.join(', ')}), found none`,
    );
    return undefined;
  }
  const found = ctx.table.indexes.find((i) => i.name.toLowerCase() === name.toLowerCase());
  if (found) return found.name;
  const guess = nearest(name, names);
  ctx.P.add(
    [...path, 'index'],
    `expected an index of table ${ctx.table.name}${names.length ? ` (${names.join(', ')})` : ' (it has none)'}${guess ? `; did you mean "${guess}"?` : ''}, found "${name}"`,
    true,
  );
  return undefined;
}

function resolveSelect(body: unknown, path: KeyPath, ctx: PhaseContext): PhaseSpec | undefined {
  const v = zodCheck(PHASE_SCHEMAS.select, body, path, ctx.P);
  if (!v) return undefined;
  let index: string | undefined;
  if (v.via === 'index') index = selectIndex(v.index, path, ctx);
  else if (v.index !== undefined) ctx.P.add([...path, 'index'], `expected index only with via: index, found it with via: ${v.via}`);
  let predicate: PredicateSpec | undefined;
  if (v.predicate) {
    const where = [...path, 'predicate'];
    if (v.via === 'rowid') ctx.P.add(where, 'expected no predicate with via: rowid (a row-id fetch compares no column), found one');
    else if (ctx.checkColumn(v.predicate.column, [...where, 'column'])) {
      try {
        predicate = {
          column: ctx.table.columns.find((c) => c.name === v.predicate!.column)!.name,
          parameterText: v.predicate.parameter,
          parameter: parseType(v.predicate.parameter),
        };
      } catch (err) {
        if (err instanceof SchemaError) ctx.P.add([...where, 'parameter'], `expected the parameter's type: ${err.message}`);
        else throw err;
      }
      if (predicate && index) {
        const idx = ctx.table.indexes.find((i) => i.name === index)!;
        if (idx.columns[0]!.toLowerCase() !== predicate.column.toLowerCase()) {
          ctx.P.add(
            [...where, 'column'],
            `expected the leading column of index ${idx.name} (${idx.columns[0]}), found ${predicate.column}: the predicate decides whether that index can be sought`,
          );
        }
      }
    }
  }
  if (v.via === 'index' && index === undefined) return undefined;
  return {
    op: 'select',
    rows: v.rows,
    order: resolveOrder(v.order ?? 'random'),
    via: v.via,
    ...(index ? { index } : {}),
    ...(predicate ? { predicate } : {}),
    repeat: v.repeat ?? 1,
  };
}

function resolveReadLob(body: unknown, path: KeyPath, ctx: PhaseContext): PhaseSpec | undefined {
  const v = zodCheck(PHASE_SCHEMAS.read_lob, body, path, ctx.P);
  if (!v) return undefined;
  if (!ctx.checkColumn(v.column, [...path, 'column'])) return undefined;
  const col = ctx.table.columns.find((c) => c.name === v.column)!;
  if (!isLobType(col.type)) {
    ctx.P.add(
      [...path, 'column'],
      `expected a large-object column (text, clob, blob, image, bytea, varbinary(max) …), found ${col.name} of type ${col.type.name}`,
    );
    return undefined;
  }
  if (v.chunk < 1) {
    ctx.P.add([...path, 'chunk'], `expected a chunk of at least 1 byte, found ${v.chunk}`);
    return undefined;
  }
  return {
    op: 'read_lob',
    rows: v.rows,
    order: resolveOrder(v.order ?? 'sequential'),
    column: col.name,
    chunk: v.chunk,
    reposition: v.reposition ?? 'keep',
    store: v.store ?? 'table',
  };
}

const PHASE_RESOLVERS: Record<PhaseKind, PhaseResolver> = {
  select: resolveSelect,
  read_lob: resolveReadLob,
  insert: resolveInsert,
  update: resolveUpdate,
  delete: (body, path, ctx) => {
    const v = zodCheck(PHASE_SCHEMAS.delete, body, path, ctx.P);
    return v && { op: 'delete', rows: v.rows, ...resolveAccess(v, path, ctx) };
  },
  reorg: (body, path, ctx) => {
    const v = zodCheck(PHASE_SCHEMAS.reorg, body, path, ctx.P);
    return v && { op: 'reorg', kind: v };
  },
  open_snapshot: (body, path, ctx) =>
    zodCheck(PHASE_SCHEMAS.open_snapshot, body, path, ctx.P) === null ? { op: 'snapshot', action: 'open' } : undefined,
  close_snapshot: (body, path, ctx) =>
    zodCheck(PHASE_SCHEMAS.close_snapshot, body, path, ctx.P) === null ? { op: 'snapshot', action: 'close' } : undefined,
  vacuum: (body, path, ctx) => {
    const v = zodCheck(PHASE_SCHEMAS.vacuum, body, path, ctx.P);
    return v === undefined ? undefined : { op: 'reorg', kind: v?.full ? 'rebuild' : 'vacuum' };
  },
};

export function resolveWorkload(raw: unknown, table: TableDef, baseDir: string, P: Problems): PhaseSpec[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    P.add(['workload'], `expected a list of phases (${PHASE_KINDS.join(', ')}), found ${describeFound(raw)}`);
    return undefined;
  }
  const before = P.list.length;
  const columnNames = table.columns.map((c) => c.name);
  const column = (name: string) => table.columns.find((c) => c.name === name);
  const ctx: PhaseContext = {
    P,
    baseDir,
    table,
    checkColumn(name, where) {
      if (column(name)) return true;
      const guess = nearest(name, columnNames);
      P.add(where, `expected a column of table ${table.name}${guess ? ` (did you mean "${guess}"?)` : ''}, found "${name}"`, true);
      return false;
    },
    nullCheck(name, share, where) {
      if (share !== undefined && share > 0 && !column(name)!.nullable) {
        P.add(
          where,
          `expected a NULL share only on a nullable column, found ${share} on ${name}, which is NOT NULL (declare it with null: true)`,
        );
      }
    },
    lengths(name, d, where) {
      const dist = resolveDist(d, where, baseDir, P, lengthBound(column(name)!));
      if (dist?.kind === 'sequence' && dist.values.includes(-1) && !column(name)!.nullable) {
        P.add(
          where,
          `expected lengths without NULLs (null, or an empty CSV cell) on ${name}, which is NOT NULL (declare it with null: true)`,
        );
        return undefined;
      }
      return dist;
    },
    compressibilityCheck: (name, c, where) => compressibilityCheck(column(name)!, c, where, P),
  };
  const phases: PhaseSpec[] = [];
  raw.forEach((item, i) => {
    const at: KeyPath = ['workload', i];
    if (item === null || typeof item !== 'object' || Array.isArray(item) || Object.keys(item).length !== 1) {
      P.add(at, `expected one phase: a mapping with one key of ${PHASE_KINDS.join(', ')}, found ${describeFound(item)}`);
      return;
    }
    const kind = Object.keys(item)[0]!;
    if (!(PHASE_KINDS as readonly string[]).includes(kind)) {
      const guess = nearest(kind, PHASE_KINDS);
      P.add(
        [...at, kind],
        `unknown phase "${kind}"${guess ? `; did you mean "${guess}"?` : ''} (expected one of: ${PHASE_KINDS.join(', ')})`,
        true,
      );
      return;
    }
    const phase = PHASE_RESOLVERS[kind as PhaseKind]((item as Record<string, unknown>)[kind], [...at, kind], ctx);
    if (phase) phases.push(phase);
  });
  checkSnapshots(raw, P);
  return P.list.length === before ? phases : undefined;
}

/** At most one snapshot held at a time, and a close only after an open. */
function checkSnapshots(raw: unknown[], P: Problems): void {
  let open = -1;
  raw.forEach((item, i) => {
    const kind = item && typeof item === 'object' ? Object.keys(item)[0] : undefined;
    if (kind !== 'open_snapshot' && kind !== 'close_snapshot') return;
    if (kind === 'open_snapshot' && open >= 0)
      P.add(
        ['workload', i, kind],
        `expected one snapshot held at a time (close_snapshot first), found a second open_snapshot while the one at workload[${open}] is open`,
      );
    else if (kind === 'close_snapshot' && open < 0)
      P.add(['workload', i, kind], 'expected close_snapshot after an open_snapshot, found none open');
    open = kind === 'open_snapshot' ? i : -1;
  });
}

/** A compressibility only on a character or binary column, and a share the 64-byte blocks hold. */
function compressibilityCheck(col: ColumnDef, c: Compressibility | undefined, where: KeyPath, P: Problems): void {
  const name = col.name;
  const t = col.type;
  const shown = typeof c === 'object' ? `{ unit: ${c.unit} }` : c;
  if (c !== undefined && c !== 0 && !isCharacterType(t) && !isBinaryType(t)) {
    P.add(
      where,
      `expected compressibility only on a character or binary column (char, varchar, text, binary, varbinary, bytea …), found ${shown} on ${name} (${t.sql})`,
    );
  } else if (typeof c === 'number' && Math.round(c * COMPRESSIBILITY_STEPS) > MAX_BLOCK_REPEAT) {
    P.add(
      where,
      `expected a share of at most 0.9375 (60 of every 64 bytes repeated: pglz about 8:1), or { unit: N } for values that are an N-byte unit repeated (repeat('x', n) is unit 1, repeat(md5(…), k) unit 32: pglz about 68:1 and 38:1 at 3,000 bytes), found ${c}`,
    );
  }
}

function resolveOrder(text: string): Order {
  const m = ORDER_RE.exec(text)!;
  if (m[2] !== undefined) return { kind: 'zipf', s: Number(m[2]) };
  if (m[1] === 'oldest') return { kind: 'sequential' };
  return { kind: m[1] as 'sequential' | 'newest' | 'random' | 'spread' };
}

export { resolveDist };
