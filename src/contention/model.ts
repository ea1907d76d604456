/**
 * One simulation point resolved from the spec: the numbers the event loop and the analytic checks
 * (MVA, bounds) share. Pure: no I/O, no clock, no randomness.
 *
 * A transaction is `lookups_per_transaction` buffer look-ups (index traversals first, then the data
 * reads), separated by lookups + 1 equal CPU segments that together make its CPU work. Look-up i of a
 * traversal reads one page of index level i % levels (the root at level 0); data reads fall on the data
 * pages with Zipf popularity, page 0 the hottest.
 */
import type { BufferManagerKind, ContentionBase, LockKind } from './spec.js';

export interface PointModel {
  buffer_manager: BufferManagerKind;
  engines: number;
  users: number;
  think_ns: number;
  /** Data-page look-ups per transaction. */
  data_reads: number;
  /** Index-page look-ups per transaction (traversals × levels). */
  index_reads: number;
  /** All look-ups per transaction. */
  lookups: number;
  /** CPU work of a transaction outside locks: cpu_per_transaction × snap + reads × cpu_per_read, plus (lockless) latch-free look-up work. */
  work_ns: number;
  exponential: boolean;
  /** latched + wait: block: a task gives its engine up at every latched look-up. */
  block: boolean;
  lock: LockKind;
  /** The hand-off grows with the waiters spinning on the lock word (ttas, tas, spin_yield, spin_sleep, ticket). */
  ttas: boolean;
  /** Plain test-and-set: every spin writes the lock's line, the hand-off is (2w − 1) transfers instead of w. */
  tas: boolean;
  /** The next owner is a random spinner (ttas, tas, spin_yield, spin_sleep) rather than the first in line. */
  random_handoff: boolean;
  /** A spinner past spin_limit gives its engine up: yields (back of the run queue) or sleeps (PostgreSQL's s_lock). */
  give_up: 'none' | 'yield' | 'sleep';
  handoff_ns: number;
  backoff_min_ns: number;
  backoff_max_ns: number;
  spin_limit_ns: number;
  spinlocks: number;
  hold_ns: number;
  /** Index-page latches in use (index look-ups and no latch-free B-tree for this manager). */
  index_latches: boolean;
  latch_hold_ns: number;
  index_levels: number;
  /** Pages on each index level (level 0 = root = 1 page). */
  level_pages: number[];
  /** First index-page number of each level, counted from 0 after the data pages. */
  level_base: number[];
  index_pages: number;
  data_pages: number;
  skew: number;
  cas_ns: number;
  line_transfer_ns: number;
  /** Lockless reads validate a version word instead of pinning by CAS. */
  optimistic: boolean;
  /** The pin is an atomic fetch-and-add: it queues for the line but never fails. */
  faa: boolean;
  /** Optimistic read window of one look-up (lockless.lookup): the engine work of the read. */
  lookup_ns: number;
  update_share: number;
  write_share: number;
  write_hold_ns: number;
  /** Data pages of rank < this are in the engine-local cache (lockless only). */
  cached_data_pages: number;
  /** Pages of each index level with in-level number < this are in the engine-local cache. */
  cached_level_pages: number[];
  duration_ns: number;
  warmup_ns: number;
  max_events: number;
  /** Little's law error and half-window drift allowed, percent. */
  tolerance_pct: number;
  /** Window extensions before a point is flagged as not stationary. */
  max_extensions: number;
}

/** The spinlock (cache partition) a page hashes to: a 32-bit integer mix, then modulo. */
export function spinlockOfPage(page: number, spinlocks: number): number {
  let h = Math.imul(page ^ 0x5bd1e995, 0x9e3779b1);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  // a power of two: the low bits, the same number as the modulo without a division
  return (spinlocks & (spinlocks - 1)) === 0 ? h & (spinlocks - 1) : (h >>> 0) % spinlocks;
}

/** The Zipf weights made last, by (count, skew): a pure function of them, read-only to every caller. */
const zipfMade = new Map<string, Float64Array>();
const ZIPF_KEPT = 8;

/**
 * Zipf popularity of data pages: p_i ∝ 1/(i+1)^skew, i = 0 the hottest. Shared: the caller must not
 * change the array (a run's bounds, MVA and alias tables ask for the same few, 100,000 powers each).
 */
export function zipfWeights(count: number, skew: number): Float64Array {
  const key = `${count}:${skew}`;
  let w = zipfMade.get(key);
  if (!w) {
    if (zipfMade.size >= ZIPF_KEPT) zipfMade.delete(zipfMade.keys().next().value!);
    w = zipfWeightsOf(count, skew);
    zipfMade.set(key, w);
  }
  return w;
}

function zipfWeightsOf(count: number, skew: number): Float64Array {
  const w = new Float64Array(count);
  let sum = 0;
  for (let i = 0; i < count; i++) {
    const x = skew === 0 ? 1 : Math.pow(i + 1, -skew);
    w[i] = x;
    sum += x;
  }
  for (let i = 0; i < count; i++) w[i]! /= sum;
  return w;
}

/** What a lock kind means to the simulation: hand-off growth, who wins, whether a spinner gives up. */
function lockFlags(lock: LockKind): Pick<PointModel, 'lock' | 'ttas' | 'tas' | 'random_handoff' | 'give_up'> {
  return {
    lock,
    ttas: lock === 'ttas' || lock === 'tas' || lock === 'spin_yield' || lock === 'spin_sleep' || lock === 'ticket',
    tas: lock === 'tas',
    random_handoff: lock === 'ttas' || lock === 'tas' || lock === 'spin_yield' || lock === 'spin_sleep',
    give_up: lock === 'spin_yield' ? 'yield' : lock === 'spin_sleep' ? 'sleep' : 'none',
  };
}

export function buildPointModel(spec: ContentionBase, bm: BufferManagerKind, engines: number, users: number): PointModel {
  const x = spec.xoltp;
  const xoltpOn = x.applies_to.includes(bm);
  const snap = xoltpOn ? x.snap_cpu_factor : 1;
  const dataReads = spec.transaction.logical_reads;
  const indexReads = x.index.traversals * x.index.levels;
  const lookups = dataReads + indexReads;
  const lockless = bm === 'lockless';
  const levelPages: number[] = [];
  const levelBase: number[] = [];
  let indexPages = 0;
  for (let j = 0; j < x.index.levels; j++) {
    const n = Math.min(Math.pow(x.index.fanout, j), spec.pages.count);
    levelBase.push(indexPages);
    levelPages.push(n);
    indexPages += n;
  }
  const cache = lockless ? localCache(spec, levelPages) : { data: 0, levels: levelPages.map(() => 0) };
  const indexLatches = indexReads > 0 && !(xoltpOn && x.latch_free_btree);
  const optimistic = lockless && spec.lockless.read === 'optimistic';
  const lock = spec.latched.lock;
  return {
    buffer_manager: bm,
    engines,
    users,
    think_ns: spec.think_time_ns,
    data_reads: dataReads,
    index_reads: indexReads,
    lookups,
    work_ns:
      spec.transaction.cpu_per_transaction_ns * snap +
      dataReads * spec.transaction.cpu_per_read_ns +
      (lockless && !optimistic ? lookups * spec.lockless.lookup_ns : 0),
    exponential: spec.service_times === 'exponential',
    block: spec.latched.wait === 'block',
    ...lockFlags(lock),
    handoff_ns: spec.latched.handoff_per_waiter_ns,
    backoff_min_ns: spec.latched.backoff_min_ns,
    backoff_max_ns: spec.latched.backoff_max_ns,
    spin_limit_ns: spec.latched.spin_limit_ns,
    spinlocks: spec.latched.spinlocks,
    hold_ns: spec.latched.hold_ns,
    index_latches: indexLatches,
    latch_hold_ns: x.index.latch_hold_ns,
    index_levels: x.index.levels,
    level_pages: levelPages,
    level_base: levelBase,
    index_pages: indexReads > 0 ? indexPages : 0,
    data_pages: spec.pages.count,
    skew: spec.pages.skew,
    cas_ns: spec.lockless.cas_ns,
    line_transfer_ns: spec.lockless.line_transfer_ns,
    optimistic,
    faa: lockless && spec.lockless.read === 'faa',
    lookup_ns: spec.lockless.lookup_ns,
    update_share: optimistic ? 0 : spec.lockless.update_share,
    write_share: lockless ? spec.lockless.write_share : 0,
    write_hold_ns: spec.lockless.write_hold_ns,
    cached_data_pages: cache.data,
    cached_level_pages: cache.levels,
    duration_ns: spec.duration_ns,
    warmup_ns: spec.warmup_ns,
    max_events: spec.max_events,
    tolerance_pct: spec.stationarity.tolerance_pct,
    max_extensions: spec.stationarity.max_extensions,
  };
}

/**
 * The engine-local cache holds the `local_cache_pages` pages with the highest access rate per
 * transaction: index pages of level j are read traversals / fanout^j times each, data page i
 * logical_reads × p_i times. A greedy merge of the two descending sequences picks them.
 */
function localCache(spec: ContentionBase, levelPages: number[]): { data: number; levels: number[] } {
  let room = Math.min(spec.lockless.local_cache_pages, spec.pages.count + levelPages.reduce((a, b) => a + b, 0));
  const levels = levelPages.map(() => 0);
  if (room === 0) return { data: 0, levels };
  const trav = spec.xoltp.index.traversals;
  const reads = spec.transaction.logical_reads;
  const skew = spec.pages.skew;
  let h = 0;
  for (let i = 1; i <= spec.pages.count; i++) h += skew === 0 ? 1 : Math.pow(i, -skew);
  const dataRate = (i: number): number => (reads * (skew === 0 ? 1 : Math.pow(i + 1, -skew))) / h;
  let data = 0;
  let level = 0;
  const maxSteps = room + levelPages.length + 1;
  for (let step = 0; step < maxSteps && room > 0; step++) {
    const levelRate = trav > 0 && level < levelPages.length ? trav / levelPages[level]! : -1;
    const dRate = data < spec.pages.count ? dataRate(data) : -1;
    if (levelRate < 0 && dRate < 0) break;
    if (levelRate >= dRate) {
      const take = Math.min(room, levelPages[level]!);
      levels[level] = take;
      room -= take;
      level += 1;
    } else {
      data += 1;
      room -= 1;
    }
  }
  return { data, levels };
}

/**
 * Visits per transaction to each lock: spinlocks first (index 0..spinlocks-1), then, with index latches,
 * one latch per index page. Used by the MVA and the operational bounds.
 */
export function lockVisits(m: PointModel): { spinlock: Float64Array; latch: Float64Array } {
  const spin = new Float64Array(m.spinlocks);
  if (m.buffer_manager === 'latched') {
    if (m.data_reads > 0) {
      const w = zipfWeights(m.data_pages, m.skew);
      for (let p = 0; p < m.data_pages; p++) spin[spinlockOfPage(p, m.spinlocks)]! += m.data_reads * w[p]!;
    }
  }
  const latch = new Float64Array(m.index_latches ? m.index_pages : 0);
  if (m.index_reads > 0) {
    const traversals = m.index_reads / m.index_levels;
    for (let j = 0; j < m.index_levels; j++) {
      const n = m.level_pages[j]!;
      const each = traversals / n;
      for (let i = 0; i < n; i++) {
        const page = m.level_base[j]! + i;
        if (m.buffer_manager === 'latched') spin[spinlockOfPage(m.data_pages + page, m.spinlocks)]! += each;
        if (m.index_latches) latch[page]! += each;
      }
    }
  }
  return { spinlock: spin, latch };
}

/** The queueing network of a point: service demands per transaction, in ns. */
interface PointNetwork {
  think_ns: number;
  engines: number;
  /** Engine time per transaction without any waiting (work, holds taken on the engine, first CAS attempts). */
  engine_demand_ns: number;
  /** Demand at each lock (visits × (hold + one hand-off)), zero entries dropped. */
  lock_demands_ns: number[];
  /** Look-ups per transaction that CAS shared state. */
  cas_per_transaction: number;
  /** Minimum response time: all demands, no queueing. */
  total_demand_ns: number;
  /**
   * The simulated network is product-form (BCMP): exponential service, no CAS work, and either no lock
   * work at all or latched with wait: block and a hand-off that does not depend on the queue (queue
   * lock, or no hand-off cost). Exact MVA then gives the simulation's expected values.
   */
  product_form: boolean;
}

export function pointNetwork(m: PointModel): PointNetwork {
  const visits = lockVisits(m);
  const locks: number[] = [];
  let lockWork = 0;
  for (let k = 0; k < visits.spinlock.length; k++) {
    const d = visits.spinlock[k]! * (m.hold_ns + m.handoff_ns);
    if (d > 0) locks.push(d);
    lockWork += d;
  }
  for (let k = 0; k < visits.latch.length; k++) {
    const d = visits.latch[k]! * (m.latch_hold_ns + m.handoff_ns);
    if (d > 0) locks.push(d);
    lockWork += d;
  }
  const lines = lineVisits(m);
  let cas = 0;
  let hottestLine = 0;
  for (let p = 0; p < lines.cas.length; p++) {
    cas += lines.cas[p]!;
    // the line is exclusively held for each CAS (and, optimistic, for each write's hold)
    const d = lines.cas[p]! * m.cas_ns + (m.optimistic ? lines.writes[p]! * m.write_hold_ns : 0);
    if (d > hottestLine) hottestLine = d;
  }
  if (hottestLine > 0) locks.push(hottestLine);
  const writes = m.buffer_manager === 'lockless' ? m.lookups * m.write_share : 0;
  const casWork = cas * m.cas_ns + writes * m.write_hold_ns + (m.optimistic ? m.lookups * m.lookup_ns : 0);
  // with wait: block the lock work happens off the engine (latched: every look-up; lockless: latches only)
  const engineDemand = m.work_ns + casWork + (m.block ? 0 : lockWork);
  const latchedBlock = m.buffer_manager === 'latched' && m.block;
  const productForm = m.exponential && casWork === 0 && (lockWork === 0 || (latchedBlock && (!m.ttas || m.handoff_ns === 0)));
  return {
    think_ns: m.think_ns,
    engines: m.engines,
    engine_demand_ns: engineDemand,
    lock_demands_ns: locks,
    cas_per_transaction: cas,
    total_demand_ns: m.work_ns + casWork + lockWork,
    product_form: productForm,
  };
}

/**
 * Per page (data pages, then index pages): CAS visits per transaction (pins of cas reads and every
 * write) and write visits. Lockless only; empty arrays otherwise.
 */
export function lineVisits(m: PointModel): { cas: Float64Array; writes: Float64Array } {
  const n = m.buffer_manager === 'lockless' ? m.data_pages + m.index_pages : 0;
  const cas = new Float64Array(n);
  const writes = new Float64Array(n);
  if (n === 0 || (m.write_share <= 0 && (m.cas_ns <= 0 || m.update_share <= 0))) return { cas, writes };
  const pin = m.cas_ns > 0 ? m.update_share * (1 - m.write_share) : 0;
  if (m.data_reads > 0) {
    const w = zipfWeights(m.data_pages, m.skew);
    for (let p = 0; p < m.data_pages; p++) {
      const v = m.data_reads * w[p]!;
      writes[p] = v * m.write_share;
      cas[p] = writes[p]! + (p < m.cached_data_pages ? 0 : v * pin);
    }
  }
  if (m.index_reads > 0) {
    const traversals = m.index_reads / m.index_levels;
    for (let j = 0; j < m.index_levels; j++) {
      const count = m.level_pages[j]!;
      for (let i = 0; i < count; i++) {
        const p = m.data_pages + m.level_base[j]! + i;
        const v = traversals / count;
        writes[p] = v * m.write_share;
        cas[p] = writes[p]! + (i < m.cached_level_pages[j]! ? 0 : v * pin);
      }
    }
  }
  return { cas, writes };
}

/**
 * Events one transaction costs the event loop, restarts and back-off probes aside: the end of its think time, one CPU
 * segment per look-up plus the last, and per look-up the end of its lock hold or CAS attempt (twice
 * with an index-page latch), and the end of a write's hold.
 */
function eventsPerTransaction(m: PointModel): number {
  return 2 + m.lookups * (m.index_latches ? 3 : 2) + m.lookups * m.write_share;
}

/**
 * An upper bound on the events a point simulates: the most transactions the point can complete in its
 * warm-up and measured window (the lesser of the users' and the engines' bound, with each look-up
 * costing at least its lock hold or CAS on the engine) times the events of one. Infinity when nothing
 * makes simulated time advance.
 */
export function pointEventBound(m: PointModel): number {
  const perLookupNs =
    m.buffer_manager === 'latched'
      ? m.hold_ns
      : m.cas_ns * m.update_share + m.write_share * m.write_hold_ns + (m.optimistic ? m.lookup_ns : 0);
  const demandNs = m.work_ns + m.lookups * perLookupNs;
  const byUsers = m.think_ns + demandNs > 0 ? m.users / (m.think_ns + demandNs) : Infinity;
  const byEngines = demandNs > 0 ? m.engines / demandNs : Infinity;
  return Math.min(byUsers, byEngines) * (m.warmup_ns + m.duration_ns) * eventsPerTransaction(m);
}
