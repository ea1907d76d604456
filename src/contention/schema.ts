/**
 * The `contention:` section of a rowsim config: a zod 4 schema that parses raw YAML values (sizes,
 * durations such as `300ns`) into a fully resolved ContentionSpec — every default filled, every duration
 * in nanoseconds, `engines` and `users` always lists. Unknown keys are rejected (z.strictObject).
 *
 * The defaults are those docs/config.md gives (the contention example); the README in this folder
 * gives the source of each constant.
 */
import { z } from 'zod';
import { zDurationNs, zPosInt, zShare } from '../config/zunits.js';
import { buildPointModel, pointEventBound } from './model.js';
import { BUFFER_MANAGER_KINDS, LOCK_KIND_ALIASES, LOCK_KINDS, READ_KINDS, SERVICE_TIME_KINDS, WAIT_KINDS } from './spec.js';
import type { BufferManagerKind, CalibrationApplied, ContentionBase, ContentionSpec, LockKind, SweepAxis, SweepCell } from './spec.js';
import { groupedNumber } from '../util/numbers.js';

export type { BufferManagerKind, CalibrationApplied, ContentionBase, ContentionSpec, LockKind, SweepAxis, SweepCell };

/** Keys a contention sweep may vary (key paths inside the contention section). */
const SWEEPABLE_CONTENTION_KEYS: readonly string[] = [
  'engines',
  'users',
  'think_time',
  'transaction.logical_reads',
  'transaction.cpu_per_read',
  'transaction.cpu_per_transaction',
  'pages.count',
  'pages.skew',
  'latched.spinlocks',
  'latched.hold',
  'latched.handoff_per_waiter',
  'latched.lock',
  'latched.wait',
  'latched.backoff_min',
  'latched.backoff_max',
  'latched.spin_limit',
  'lockless.cas',
  'lockless.line_transfer',
  'lockless.lookup',
  'lockless.read',
  'lockless.update_share',
  'lockless.write_share',
  'lockless.write_hold',
  'lockless.local_cache_pages',
  'xoltp.snap_cpu_factor',
  'xoltp.latch_free_btree',
  'xoltp.index.traversals',
  'xoltp.index.latch_hold',
  'service_times',
];

const oneOrMany = () => z.union([zPosInt(), z.array(zPosInt()).min(1)]).transform((v) => (Array.isArray(v) ? v : [v]));

const zDur = (dflt: string) => zDurationNs().prefault(dflt);
const zNonNegInt = () => z.number().int().min(0);
const zBM = () => z.enum(BUFFER_MANAGER_KINDS);

const transactionSchema = z.strictObject({
  logical_reads: zNonNegInt().default(40),
  cpu_per_read: zDur('5us'),
  cpu_per_transaction: zDur('200us'),
});

const pagesSchema = z.strictObject({
  count: zPosInt().default(100000),
  skew: z.number().min(0).max(5).default(0.99),
});

const latchedSchema = z.strictObject({
  spinlocks: zPosInt().max(1_048_576).default(16),
  hold: zDur('300ns'),
  handoff_per_waiter: zDur('50ns'),
  wait: z.enum(WAIT_KINDS).default('spin'),
  lock: z.enum([...LOCK_KINDS, ...(Object.keys(LOCK_KIND_ALIASES) as (keyof typeof LOCK_KIND_ALIASES)[])]).default('ttas'),
  backoff_min: zDur('100ns'),
  backoff_max: zDur('6.4us'),
  spin_limit: zDur('10us'),
});

const locklessSchema = z.strictObject({
  cas: zDur('40ns'),
  line_transfer: zDurationNs().optional(),
  read: z.enum(READ_KINDS).default('cas'),
  write_share: zShare().default(0),
  write_hold: zDurationNs().optional(),
  lookup: zDurationNs().optional(),
  update_share: zShare().default(1),
  local_cache_pages: zNonNegInt().default(0),
});

const indexSchema = z.strictObject({
  traversals: zNonNegInt().default(0),
  levels: zPosInt().max(6).default(3),
  fanout: z.number().int().min(2).max(1000).default(100),
  latch_hold: zDur('100ns'),
});

const xoltpSchema = z.strictObject({
  snap_cpu_factor: z.number().positive().max(10).default(1),
  latch_free_btree: z.boolean().default(false),
  index: indexSchema.prefault({}),
  applies_to: z
    .array(zBM())
    .min(1)
    .default([...BUFFER_MANAGER_KINDS]),
});

const rawSchema = z.strictObject({
  engines: oneOrMany(),
  users: oneOrMany(),
  think_time: zDur('1s'),
  transaction: transactionSchema.prefault({}),
  pages: pagesSchema.prefault({}),
  buffer_managers: z
    .array(zBM())
    .min(1)
    .default([...BUFFER_MANAGER_KINDS]),
  latched: latchedSchema.prefault({}),
  lockless: locklessSchema.prefault({}),
  xoltp: xoltpSchema.prefault({}),
  service_times: z.enum(SERVICE_TIME_KINDS).default('constant'),
  duration: zDur('2s'),
  warmup: zDur('500ms'),
  max_events: zPosInt().default(2_000_000_000),
  replications: zPosInt().max(50).default(5),
  stationarity: z
    .strictObject({ tolerance_pct: z.number().positive().max(50).default(1), max_extensions: zNonNegInt().max(4).default(2) })
    .prefault({}),
  usl: z.strictObject({ extrapolate_to: zPosInt().max(100000).optional() }).prefault({}),
  sources: z.record(z.string(), z.string().min(1)).default({}),
  calibration: z.string().min(1).optional(),
});

const sweepValue = z.union([z.string(), z.number(), z.boolean()]);
const sweepSchema = z.record(z.string(), z.array(sweepValue).min(1).max(64));

const baseSchema = z.strictObject({ ...rawSchema.shape, sweep: sweepSchema.optional() });

type Raw = z.output<typeof rawSchema>;

function resolve(raw: Raw): ContentionBase {
  const dedupe = <T>(xs: T[]): T[] => xs.filter((x, i) => xs.indexOf(x) === i);
  return {
    engines: dedupe(raw.engines),
    users: dedupe(raw.users),
    think_time_ns: raw.think_time,
    transaction: {
      logical_reads: raw.transaction.logical_reads,
      cpu_per_read_ns: raw.transaction.cpu_per_read,
      cpu_per_transaction_ns: raw.transaction.cpu_per_transaction,
    },
    pages: { count: raw.pages.count, skew: raw.pages.skew },
    buffer_managers: dedupe(raw.buffer_managers),
    latched: {
      spinlocks: raw.latched.spinlocks,
      hold_ns: raw.latched.hold,
      handoff_per_waiter_ns: raw.latched.handoff_per_waiter,
      wait: raw.latched.wait,
      lock: raw.latched.lock === 'queue' ? LOCK_KIND_ALIASES.queue : raw.latched.lock,
      backoff_min_ns: raw.latched.backoff_min,
      backoff_max_ns: raw.latched.backoff_max,
      spin_limit_ns: raw.latched.spin_limit,
    },
    lockless: {
      cas_ns: raw.lockless.cas,
      line_transfer_ns: raw.lockless.line_transfer ?? raw.latched.handoff_per_waiter,
      read: raw.lockless.read,
      write_share: raw.lockless.write_share,
      write_hold_ns: raw.lockless.write_hold ?? raw.latched.hold,
      lookup_ns: raw.lockless.lookup ?? raw.latched.hold,
      update_share: raw.lockless.update_share,
      local_cache_pages: raw.lockless.local_cache_pages,
    },
    xoltp: {
      snap_cpu_factor: raw.xoltp.snap_cpu_factor,
      latch_free_btree: raw.xoltp.latch_free_btree,
      index: {
        traversals: raw.xoltp.index.traversals,
        levels: raw.xoltp.index.levels,
        fanout: raw.xoltp.index.fanout,
        latch_hold_ns: raw.xoltp.index.latch_hold,
      },
      applies_to: dedupe(raw.xoltp.applies_to),
    },
    service_times: raw.service_times,
    duration_ns: raw.duration,
    warmup_ns: raw.warmup,
    max_events: raw.max_events,
    replications: raw.replications,
    stationarity: { tolerance_pct: raw.stationarity.tolerance_pct, max_extensions: raw.stationarity.max_extensions },
    usl_extrapolate_to: raw.usl.extrapolate_to ?? null,
  };
}

/** Checks of a raw section (or a sweep cell) that zod's types do not express; `at` prefixes issue paths. */
function refineRaw(raw: Partial<Raw>, ctx: z.RefinementCtx, at: (path: (string | number)[]) => (string | number)[] = (p) => p): void {
  // runs after other issues too: read defensively
  const list = (v: unknown): number[] =>
    (Array.isArray(v) ? v : typeof v === 'number' ? [v] : []).filter((x): x is number => typeof x === 'number');
  const issue = (path: (string | number)[], message: string, input: unknown) =>
    ctx.addIssue({ code: 'custom', path: at(path), message, input });
  if (typeof raw.duration === 'number' && raw.duration <= 0) issue(['duration'], 'a duration above zero', raw.duration);
  const lookups = (raw.transaction?.logical_reads ?? 0) + (raw.xoltp?.index?.traversals ?? 0) * (raw.xoltp?.index?.levels ?? 0);
  if (lookups > 100000) issue(['transaction', 'logical_reads'], `at most 100000 look-ups per transaction, found ${lookups}`, lookups);
  const maxUsers = Math.max(0, ...list(raw.users));
  if (maxUsers > 1_000_000) issue(['users'], `at most 1000000 users, found ${maxUsers}`, maxUsers);
  const maxEngines = Math.max(0, ...list(raw.engines));
  if (maxEngines > 4096) issue(['engines'], `at most 4096 engines, found ${maxEngines}`, maxEngines);
  if ((raw.pages?.count ?? 0) > 50_000_000)
    issue(['pages', 'count'], `at most 50000000 pages, found ${raw.pages!.count}`, raw.pages!.count);
  const l = raw.latched;
  if (l && l.wait === 'block' && (l.lock === 'ttas_backoff' || l.lock === 'spin_yield' || l.lock === 'spin_sleep' || l.lock === 'tas'))
    issue(
      ['latched', 'lock'],
      `ttas, ticket or mcs with wait: block (a blocked waiter neither spins, backs off, yields nor sleeps), found "${l.lock}"`,
      l.lock,
    );
  if (l && typeof l.backoff_min === 'number' && typeof l.backoff_max === 'number') {
    if (l.lock === 'ttas_backoff' && l.backoff_min <= 0)
      issue(['latched', 'backoff_min'], 'a back-off above zero with lock: ttas_backoff', l.backoff_min);
    if (l.backoff_max < l.backoff_min)
      issue(['latched', 'backoff_max'], `a back-off_max ≥ backoff_min (${l.backoff_min} ns), found ${l.backoff_max} ns`, l.backoff_max);
  }
  if (l && (l.lock === 'spin_yield' || l.lock === 'spin_sleep') && typeof l.spin_limit === 'number' && l.spin_limit <= 0)
    issue(['latched', 'spin_limit'], `a spin limit above zero with lock: ${l.lock}`, l.spin_limit);
}

/** The schema of the value at `path` inside the section (a sweep value is parsed by it). */
function fieldSchema(path: string[]): z.ZodType | undefined {
  let s: unknown = rawSchema;
  for (const seg of path) {
    for (let i = 0; i < 10; i++) {
      const def = (s as { _zod?: { def: Record<string, unknown> } })?._zod?.def;
      if (def && ['optional', 'default', 'prefault'].includes(def.type as string)) s = def.innerType;
      else break;
    }
    const def = (s as { _zod?: { def: Record<string, unknown> } })?._zod?.def;
    if (def?.type !== 'object') return undefined;
    s = (def.shape as Record<string, unknown>)[seg];
    if (s === undefined) return undefined;
  }
  return s as z.ZodType;
}

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let node = obj;
  for (let i = 0; i < path.length - 1; i++) node = node[path[i]!] as Record<string, unknown>;
  node[path[path.length - 1]!] = value;
}

/** Every combination of the axes' value indexes, the first axis varying slowest. */
function sweepIndexes(sizes: readonly number[]): number[][] {
  let combos: number[][] = [[]];
  for (const n of sizes) {
    const next: number[][] = [];
    for (const c of combos) for (let i = 0; i < n; i++) next.push([...c, i]);
    combos = next;
  }
  return combos;
}

/** At most this many cells in a contention sweep (each runs every point of the section). */
const MAX_SWEEP_CELLS = 400;

type RawWithSweep = z.output<typeof baseSchema>;

/** The `contention:` section: raw YAML values in, a resolved ContentionSpec out. */
export const contentionSchema: z.ZodType<ContentionSpec, any> = baseSchema
  .superRefine((raw, ctx) => {
    refineRaw(raw as Partial<Raw>, ctx);
    const sweep = (raw as Partial<RawWithSweep>).sweep;
    if (sweep && typeof sweep === 'object') {
      const keys = Object.keys(sweep);
      if (keys.length === 0 || keys.length > 3)
        ctx.addIssue({ code: 'custom', path: ['sweep'], message: `one to three keys to sweep, found ${keys.length}`, input: sweep });
      let cells = 1;
      for (const key of keys) {
        cells *= Array.isArray(sweep[key]) ? sweep[key]!.length : 1;
        if (!SWEEPABLE_CONTENTION_KEYS.includes(key)) {
          ctx.addIssue({
            code: 'custom',
            path: ['sweep', key],
            message: `a key the contention sweep can vary (${SWEEPABLE_CONTENTION_KEYS.join(', ')}), found "${key}"`,
            input: key,
          });
        } else if (Array.isArray(sweep[key])) {
          // each value must be valid for its key (checked here too, so that every problem is found at once)
          const fs = fieldSchema(key.split('.'))!;
          sweep[key]!.forEach((v, i) => {
            const r = fs.safeParse(v);
            if (!r.success)
              for (const iss of r.error.issues)
                ctx.addIssue({
                  code: 'custom',
                  path: ['sweep', key, i],
                  message: `${iss.code === 'custom' ? iss.message : iss.message.replace(/^Invalid (input|option): (expected )?/, '')} for ${key}`,
                  input: v,
                });
          });
        }
      }
      if (cells > MAX_SWEEP_CELLS)
        ctx.addIssue({ code: 'custom', path: ['sweep'], message: `at most ${MAX_SWEEP_CELLS} sweep cells, found ${cells}`, input: cells });
    }
    if (raw.sources && typeof raw.sources === 'object') {
      for (const key of Object.keys(raw.sources)) {
        if (!INPUT_KEYS.includes(key))
          ctx.addIssue({
            code: 'custom',
            path: ['sources', key],
            message: `a model input key (${INPUT_KEYS.join(', ')}), found "${key}"`,
            input: key,
          });
      }
    }
  })
  .transform((raw, ctx): ContentionSpec => {
    const { sweep, ...plain } = raw;
    const base = resolve(plain);
    let resolvedSweep: ContentionSpec['sweep'] = null;
    if (sweep) {
      const axes: SweepAxis[] = Object.entries(sweep).map(([key, values]) => ({ key, values }));
      const parsed: unknown[][] = axes.map((axis) =>
        axis.values.map((v, i) => {
          const fs = fieldSchema(axis.key.split('.'));
          const r = fs!.safeParse(v);
          if (!r.success) {
            for (const iss of r.error.issues)
              ctx.addIssue({
                code: 'custom',
                path: ['sweep', axis.key, i],
                message: `${iss.code === 'custom' ? iss.message : iss.message.replace(/^Invalid (input|option): (expected )?/, '')} for ${axis.key}`,
                input: v,
              });
            return undefined;
          }
          return r.data;
        }),
      );
      const cells: SweepCell[] = [];
      for (const index of sweepIndexes(axes.map((a) => a.values.length))) {
        const cellRaw = structuredClone(plain) as Raw;
        const params: Record<string, string | number | boolean> = {};
        index.forEach((vi, ai) => {
          const axis = axes[ai]!;
          params[axis.key] = axis.values[vi]!;
          const value = parsed[ai]![vi];
          if (value !== undefined) setPath(cellRaw as unknown as Record<string, unknown>, axis.key.split('.'), value);
        });
        refineRaw(cellRaw, ctx, (p) => {
          const hit = axes.findIndex((a) => a.key === p.join('.'));
          return hit >= 0 ? ['sweep', axes[hit]!.key, index[hit]!] : p;
        });
        cells.push({ index, params, spec: resolve(cellRaw) });
      }
      resolvedSweep = { axes, cells };
    }
    return { ...base, sweep: resolvedSweep, sources: { ...raw.sources }, explicit_keys: [], calibration: null };
  })
  .superRefine(checkEventBudget);

/** The model inputs a config may give a source for (`contention.sources`), by key path: the sweepable ones and the index shape. */
const INPUT_KEYS: readonly string[] = [
  ...SWEEPABLE_CONTENTION_KEYS.filter((k) => k !== 'xoltp.index.latch_hold' && k !== 'service_times'),
  'xoltp.index.levels',
  'xoltp.index.fanout',
  'xoltp.index.latch_hold',
  'service_times',
];

/** Key paths (as INPUT_KEYS spells them) that a raw `contention:` value sets explicitly. */
export function explicitContentionKeys(raw: unknown): string[] {
  const out: string[] = [];
  const walk = (node: unknown, prefix: string): void => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      const key = prefix ? `${prefix}.${k}` : k;
      if (INPUT_KEYS.includes(key)) out.push(key);
      else if (k !== 'sources' && k !== 'sweep') walk(v, key);
    }
  };
  walk(raw, '');
  return out;
}

/** Parse a raw `contention:` value (tests, benchmarks): the schema plus the keys it sets. */
export function parseContention(raw: unknown): ContentionSpec {
  return { ...contentionSchema.parse(raw), explicit_keys: explicitContentionKeys(raw) };
}

/**
 * The event budget, checked before any simulation: a point whose bound on events exceeds max_events
 * would fail after minutes of work; say so now, at the duration (or max_events when it is given).
 */
function checkEventBudget(spec: ContentionSpec, ctx: z.RefinementCtx): void {
  const models: ContentionBase[] = spec.sweep ? spec.sweep.cells.map((c) => c.spec) : [spec];
  for (const m of models) {
    for (const bm of m.buffer_managers) {
      for (const engines of m.engines) {
        const users = Math.max(...m.users);
        const bound = pointEventBound(buildPointModel(m, bm, engines, users));
        if (bound <= m.max_events) continue;
        const need = Number.isFinite(bound)
          ? `about ${groupedNumber(Math.ceil(bound))} events`
          : 'events without end (transactions take no time and users do not think)';
        ctx.addIssue({
          code: 'custom',
          path: ['duration'],
          message: `a warm-up and duration that fit the event budget: the ${bm} point with ${engines} engines and ${users} users may need ${need}, more than max_events (${groupedNumber(m.max_events)}); shorten duration or warmup, or raise contention.max_events`,
          input: m.duration_ns,
        });
        return;
      }
    }
  }
}
