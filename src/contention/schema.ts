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

export type BufferManagerKind = 'latched' | 'lockless';
export const BUFFER_MANAGERS: readonly BufferManagerKind[] = ['latched', 'lockless'];

export interface ContentionSpec {
  /** Engine (CPU) counts: one curve per count. */
  engines: number[];
  /** User populations (closed system): one point per population. */
  users: number[];
  /** Mean of the exponential think time between a user's transactions. */
  think_time_ns: number;
  transaction: {
    /** Buffer look-ups of data pages per transaction. */
    logical_reads: number;
    cpu_per_read_ns: number;
    cpu_per_transaction_ns: number;
  };
  pages: {
    /** Distinct data pages the look-ups fall on. */
    count: number;
    /** Zipf exponent of page popularity: 0 = uniform, 0.99 = YCSB-like hot pages. */
    skew: number;
  };
  buffer_managers: BufferManagerKind[];
  latched: {
    /** Spinlocks (cache partitions / buffer-mapping partitions); a page hashes to one. */
    spinlocks: number;
    /** Time a look-up holds its spinlock. */
    hold_ns: number;
    /** Cache-line transfer per waiter at hand-off (ttas: × waiters; queue: once). */
    handoff_per_waiter_ns: number;
    /** spin: a waiter burns its engine; block: it gives its engine up and queues at the lock. */
    wait: 'spin' | 'block';
    /** ttas: test-and-test-and-set, hand-off grows with the spinners; queue: MCS-style, constant. */
    lock: 'ttas' | 'queue';
  };
  lockless: {
    /** Cost of one compare-and-swap attempt on a shared line. */
    cas_ns: number;
    /** Latch-free hash look-up work per access (default: latched.hold_ns, the same work unlatched). */
    lookup_ns: number;
    /** Share of look-ups that update shared replacement state (pin / usage count / LRU) by CAS. */
    update_share: number;
    /** Engine-local cache of the hottest pages: look-ups of these pages need no CAS. */
    local_cache_pages: number;
  };
  xoltp: {
    /** Compiled queries (SNAP): cpu_per_transaction × this factor. */
    snap_cpu_factor: number;
    /** Index pages are read without a latch (optimistic, version-validated). */
    latch_free_btree: boolean;
    index: {
      /** Root-to-leaf index traversals per transaction (0 = no index look-ups). */
      traversals: number;
      levels: number;
      fanout: number;
      /** Exclusive time of an index-page latch word per acquisition (shared latches included). */
      latch_hold_ns: number;
    };
    /** Buffer managers that get snap_cpu_factor and latch_free_btree. */
    applies_to: BufferManagerKind[];
  };
  service_times: 'constant' | 'exponential';
  /** Measured simulated time, after the warm-up. */
  duration_ns: number;
  warmup_ns: number;
  /** Bound on the events of one point: a run that would exceed it fails instead of running away. */
  max_events: number;
}

const oneOrMany = () =>
  z.union([zPosInt(), z.array(zPosInt()).min(1)]).transform((v) => (Array.isArray(v) ? v : [v]));

const zDur = (dflt: string) => zDurationNs().prefault(dflt);
const zNonNegInt = () => z.number().int().min(0);
const zBM = () => z.enum(['latched', 'lockless']);

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
  wait: z.enum(['spin', 'block']).default('spin'),
  lock: z.enum(['ttas', 'queue']).default('ttas'),
});

const locklessSchema = z.strictObject({
  cas: zDur('40ns'),
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
  applies_to: z.array(zBM()).min(1).default(['latched', 'lockless']),
});

const rawSchema = z.strictObject({
  engines: oneOrMany(),
  users: oneOrMany(),
  think_time: zDur('1s'),
  transaction: transactionSchema.prefault({}),
  pages: pagesSchema.prefault({}),
  buffer_managers: z.array(zBM()).min(1).default(['latched', 'lockless']),
  latched: latchedSchema.prefault({}),
  lockless: locklessSchema.prefault({}),
  xoltp: xoltpSchema.prefault({}),
  service_times: z.enum(['constant', 'exponential']).default('constant'),
  duration: zDur('2s'),
  warmup: zDur('500ms'),
  max_events: zPosInt().default(2_000_000_000),
});

type Raw = z.output<typeof rawSchema>;

function resolve(raw: Raw): ContentionSpec {
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
      lock: raw.latched.lock,
    },
    lockless: {
      cas_ns: raw.lockless.cas,
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
  };
}

/** The `contention:` section: raw YAML values in, a resolved ContentionSpec out. */
export const contentionSchema: z.ZodType<ContentionSpec, any> = rawSchema
  .superRefine((raw, ctx) => {
    // runs after other issues too: read defensively
    const list = (v: unknown): number[] => (Array.isArray(v) ? v : typeof v === 'number' ? [v] : []).filter((x): x is number => typeof x === 'number');
    if (typeof raw.duration === 'number' && raw.duration <= 0) ctx.addIssue({ code: 'custom', path: ['duration'], message: 'a duration above zero', input: raw.duration });
    const lookups = (raw.transaction?.logical_reads ?? 0) + (raw.xoltp?.index?.traversals ?? 0) * (raw.xoltp?.index?.levels ?? 0);
    if (lookups > 100000)
      ctx.addIssue({ code: 'custom', path: ['transaction', 'logical_reads'], message: `at most 100000 look-ups per transaction, found ${lookups}`, input: lookups });
    const maxUsers = Math.max(0, ...list(raw.users));
    if (maxUsers > 1_000_000)
      ctx.addIssue({ code: 'custom', path: ['users'], message: `at most 1000000 users, found ${maxUsers}`, input: maxUsers });
    const maxEngines = Math.max(0, ...list(raw.engines));
    if (maxEngines > 4096)
      ctx.addIssue({ code: 'custom', path: ['engines'], message: `at most 4096 engines, found ${maxEngines}`, input: maxEngines });
    if ((raw.pages?.count ?? 0) > 50_000_000)
      ctx.addIssue({ code: 'custom', path: ['pages', 'count'], message: `at most 50000000 pages, found ${raw.pages.count}`, input: raw.pages.count });
  })
  .transform(resolve)
  .superRefine(checkEventBudget);

/**
 * The event budget, checked before any simulation: a point whose bound on events exceeds max_events
 * would fail after minutes of work; say so now, at the duration (or max_events when it is given).
 */
function checkEventBudget(spec: ContentionSpec, ctx: z.RefinementCtx): void {
  for (const bm of spec.buffer_managers) {
    for (const engines of spec.engines) {
      const users = Math.max(...spec.users);
      const bound = pointEventBound(buildPointModel(spec, bm, engines, users));
      if (bound <= spec.max_events) continue;
      const need = Number.isFinite(bound) ? `about ${Math.ceil(bound).toLocaleString('en-US')} events` : 'events without end (transactions take no time and users do not think)';
      ctx.addIssue({
        code: 'custom',
        path: ['duration'],
        message: `a warm-up and duration that fit the event budget: the ${bm} point with ${engines} engines and ${users} users may need ${need}, more than max_events (${spec.max_events.toLocaleString('en-US')}); shorten duration or warmup, or raise contention.max_events`,
        input: spec.duration_ns,
      });
      return;
    }
  }
}
