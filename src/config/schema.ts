/**
 * The zod schema of a rowsim config (docs/config.md is its reference). Objects are strict: an unknown key is
 * an error with the nearest valid key suggested. Values come out with units resolved.
 */
import { z } from 'zod';
import { zCount, zDurationNs, zShare, zSize } from './zunits.js';

import type { FormatSettings } from './format-ids.js';

export type { FormatId } from './format-ids.js';

const pair = () => z.tuple([z.number(), z.number()]);

/**
 * A length distribution: a number, uniform, normal, lognormal, choice, or a histogram CSV; or the lengths
 * themselves, in order: a sequence (null: NULL) or a CSV with a length per value.
 */
const distSchema = z.union([
  z.number().min(0),
  z.strictObject({ uniform: pair() }),
  z.strictObject({ normal: pair() }),
  z.strictObject({ lognormal: pair() }),
  z.strictObject({ choice: z.record(z.string(), z.number().min(0)) }),
  z.strictObject({ histogram: z.string().min(1) }),
  z.strictObject({ sequence: z.array(z.union([z.number().min(0), z.null()])).min(1) }),
  z.strictObject({ csv: z.string().min(1), column: z.union([z.string().min(1), z.number().int().min(1)]).optional() }),
]);
export type DistInput = z.infer<typeof distSchema>;

/** PostgreSQL's column storage (ALTER TABLE … ALTER COLUMN … SET STORAGE). */
export const COLUMN_STORAGES = ['plain', 'main', 'external', 'extended'] as const;

const columnSchema = z.strictObject({
  name: z.string().min(1),
  type: z.string().min(1),
  null: z.boolean().optional(),
  storage: z.enum(COLUMN_STORAGES).optional(),
});

export const indexSchema = z.strictObject({
  name: z.string().min(1),
  columns: z.array(z.string().min(1)).min(1),
  unique: z.boolean().optional(),
  clustered: z.boolean().optional(),
  fillfactor: z.number().int().min(0).max(100).optional(),
  pctfree: z.number().int().min(0).max(99).optional(),
  max_rows_per_page: z.number().int().min(0).max(256).optional(),
  reservepagegap: z.number().int().min(0).max(255).optional(),
  merge_threshold: z.number().int().min(1).max(50).optional(),
  deduplicate_items: z.boolean().optional(),
  when: z.enum(['before_load', 'after_load']).optional(),
});
export type IndexInput = z.infer<typeof indexSchema>;
export { INDEX_SETTING_KEYS, INDEX_OPTION_KEYS, type IndexSettingKey, type IndexOptionKey } from './index-settings.js';

export const tableSchema = z.strictObject({
  name: z.string().min(1).optional(),
  columns: z.array(columnSchema).min(1).optional(),
  ddl: z.string().min(1).optional(),
  indexes: z.array(indexSchema).optional(),
});

/**
 * A share that differs from value to value (engine.multibyte_share, multibyte_widths.N): uniform, normal
 * or choice, as the length distributions are written; draws are clipped to 0 … 1.
 */
export const shareDistSchema = z.union([
  z.strictObject({ uniform: z.tuple([zShare(), zShare()]) }),
  z.strictObject({ normal: z.tuple([zShare(), z.number().min(0)]) }),
  z.strictObject({ choice: z.record(z.string(), z.number().min(0)) }),
]);
export type ShareDistInput = z.infer<typeof shareDistSchema>;

/**
 * The engine settings every format may read (`engine:` but its `format`, whose values are the registry's,
 * and the settings each format declares: src/formats/registry.ts formatSettingsShape; src/loader/storage.ts
 * engineSchema joins them).
 */
export const commonEngineSettingsShape = {
  page_size: zSize().optional(),
  compaction: z.enum(['on', 'off']).optional(),
  encoding: z.enum(['latin1', 'utf8', 'utf16']).optional(),
  multibyte_share: zShare().optional(),
  multibyte_widths: z.strictObject({ 2: zShare().optional(), 3: zShare().optional(), 4: zShare().optional() }).optional(),
};
type CommonEngineSettings = Required<z.infer<z.ZodObject<typeof commonEngineSettingsShape>>>;
/**
 * Every engine setting with its default filled in (src/formats/registry.ts fills them): the common ones
 * above and each format's own (FormatSettings, which the format modules fill).
 */
export type EngineSettings = CommonEngineSettings & FormatSettings;
export type Encoding = EngineSettings['encoding'];

/** The most distinct values `distinct:` may name. */
export const MAX_DISTINCT = 1_000_000_000;
/** How often each of a column's distinct values occurs: uniform, or Zipf's law of exponent s. */
export const FREQUENCY_RE = /^(uniform|zipf\(\s*(\d+(?:\.\d+)?)\s*\))$/;
/** Where a column's new values fall among its earlier ones (docs/config.md, "Values"). */
export const KEY_ORDERS = ['ascending', 'random', 'clustered'] as const;

/** The values a column takes: how many distinct ones, how often each, in what order (with `values:` and `set:`). */
const valueDomainShape = {
  distinct: z.number().int().min(1).max(MAX_DISTINCT).optional(),
  frequency: z.string().regex(FREQUENCY_RE, 'uniform or zipf(s) such as zipf(1.1)').optional(),
  order: z.enum(KEY_ORDERS).optional(),
};

/** The longest repeating unit `compressibility: { unit: N }` names (src/formats/pg-compression.ts MAX_UNIT_BYTES). */
export const MAX_COMPRESS_UNIT = 64;
/** `compressibility`: a share of bytes repeating bytes before them (0 … 1; the loader refuses one over 60/64), or { unit: N }. */
const compressibilitySchema = z.union([zShare(), z.strictObject({ unit: z.number().int().min(1).max(MAX_COMPRESS_UNIT) })]);
export type CompressibilityInput = z.infer<typeof compressibilitySchema>;

export const valueSpecSchema = z.strictObject({
  length: distSchema.optional(),
  null: zShare().optional(),
  ...valueDomainShape,
  compressibility: compressibilitySchema.optional(),
});

const setSpecSchema = z.union([
  z.literal('changed'),
  z.literal('same'),
  z.strictObject({
    length: distSchema.optional(),
    grow: distSchema.optional(),
    null: zShare().optional(),
    ...valueDomainShape,
    compressibility: compressibilitySchema.optional(),
  }),
]);

/** A phase's transactions: the whole phase, one a row, or N rows each (`batch(N)`). */
export const TRANSACTION_RE = /^(statement|row|batch\(\s*(\d+)\s*\))$/;
const transactionSchema = z.string().regex(TRANSACTION_RE, 'statement, row or batch(N) such as batch(1000)');

export const ORDER_RE = /^(sequential|oldest|newest|random|spread|zipf\(\s*(\d+(?:\.\d+)?)\s*\))$/;
const orderSchema = z.string().regex(ORDER_RE, 'sequential (oldest), newest, random, spread or zipf(s) such as zipf(0.9)');
/** How an update or delete reaches its rows (config/spec.ts RowAccess). */
export const ROW_ACCESS = ['index', 'scan', 'range'] as const;

const insertSchema = z.strictObject({
  rows: zCount(),
  values: z.record(z.string(), valueSpecSchema).optional(),
  transaction: transactionSchema.optional(),
  rollback: z.boolean().optional(),
});
const updateSchema = z.strictObject({
  rows: zCount(),
  order: orderSchema.optional(),
  via: z.enum(ROW_ACCESS).optional(),
  transaction: transactionSchema.optional(),
  rollback: z.boolean().optional(),
  set: z.record(z.string(), setSpecSchema),
});
const deleteSchema = z.strictObject({
  rows: zCount(),
  order: orderSchema.optional(),
  via: z.enum(ROW_ACCESS).optional(),
  transaction: transactionSchema.optional(),
  rollback: z.boolean().optional(),
});
const REORG_KINDS = ['forwarded_rows', 'rebuild', 'compact', 'vacuum'] as const;
const reorgSchema = z.enum(REORG_KINDS);

/** The most times a read phase's statements may repeat. */
export const MAX_SELECT_REPEAT = 1_000_000;

const selectSchema = z.strictObject({
  rows: zCount(),
  order: orderSchema.optional(),
  via: z.enum(['scan', 'index', 'rowid']),
  index: z.string().min(1).optional(),
  predicate: z.strictObject({ column: z.string().min(1), parameter: z.string().min(1) }).optional(),
  repeat: z.number().int().min(1).max(MAX_SELECT_REPEAT).optional(),
});

const readLobSchema = z.strictObject({
  rows: zCount(),
  order: orderSchema.optional(),
  column: z.string().min(1),
  chunk: zSize(),
  reposition: z.enum(['restart', 'keep']).optional(),
  store: z.enum(['table', 'derby']).optional(),
});

/** `cache:`: the buffer cache read phases go through. */
export const cacheSchema = z.strictObject({
  pages: z
    .number()
    .int()
    .min(1)
    .max(1 << 26),
  policy: z.enum(['lru', 'clock']).optional(),
});

/** `costs:`: what a page read costs, for an estimated elapsed time of read phases. */
export const costsSchema = z.strictObject({
  logical_read: zDurationNs(),
  physical_read: zDurationNs().optional(),
});

/** `vacuum:` (PostgreSQL VACUUM; `full: true` for VACUUM FULL): empty, or { full }. */
const vacuumSchema = z.union([z.null(), z.strictObject({ full: z.boolean().optional() })]);

/** `open_snapshot:` and `close_snapshot:` (a session holding a snapshot across phases): empty. */
const snapshotSchema = z.null();

export const PHASE_KINDS = [
  'insert',
  'update',
  'delete',
  'reorg',
  'vacuum',
  'select',
  'read_lob',
  'open_snapshot',
  'close_snapshot',
] as const;
export type PhaseKind = (typeof PHASE_KINDS)[number];
export const PHASE_SCHEMAS = {
  insert: insertSchema,
  update: updateSchema,
  delete: deleteSchema,
  reorg: reorgSchema,
  vacuum: vacuumSchema,
  select: selectSchema,
  read_lob: readLobSchema,
  open_snapshot: snapshotSchema,
  close_snapshot: snapshotSchema,
} as const;

/** Top level; `workload` items and `contention` are checked separately (src/loader/config.ts loads each section). */
export const topSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a run name of letters, digits, ".", "_" or "-"'),
  seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  table: z.unknown().optional(),
  engine: z.unknown().optional(),
  workload: z.array(z.unknown()).optional(),
  sweep: z.record(z.string(), z.array(z.union([z.number(), z.string(), z.boolean()])).min(1)).optional(),
  contention: z.unknown().optional(),
  /** The buffer cache of read phases (src/loader/storage.ts resolves it with the storage run). */
  cache: z.unknown().optional(),
  costs: z.unknown().optional(),
  /** `rowsim estimate` input (src/loader/estimate-section.ts); `rowsim run` ignores it. */
  estimate: z.unknown().optional(),
});
