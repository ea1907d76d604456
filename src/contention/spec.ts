/**
 * The resolved `contention:` section: the types every part of the model shares (the zod schema in
 * schema.ts produces them; model, simulation and report read them). The choices a key offers are
 * listed once, here: the schema's enums and these types are both made from the lists.
 */

export const BUFFER_MANAGER_KINDS = ['latched', 'lockless'] as const;
export type BufferManagerKind = (typeof BUFFER_MANAGER_KINDS)[number];

/** Spinlock kinds of the latched buffer manager. */
export const LOCK_KINDS = ['ttas', 'tas', 'ttas_backoff', 'spin_yield', 'spin_sleep', 'ticket', 'mcs'] as const;
export type LockKind = (typeof LOCK_KINDS)[number];
/** Names a config may give a lock kind by: `queue` is `mcs`. */
export const LOCK_KIND_ALIASES = { queue: 'mcs' } as const satisfies Record<string, LockKind>;

export const WAIT_KINDS = ['spin', 'block'] as const;
export const READ_KINDS = ['cas', 'faa', 'optimistic'] as const;
export const SERVICE_TIME_KINDS = ['constant', 'exponential'] as const;

/** One resolved model: what a point of the simulation needs (no sweep). */
export interface ContentionBase {
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
    wait: (typeof WAIT_KINDS)[number];
    /**
     * ttas: test-and-test-and-set, hand-off grows with the spinners, a random spinner wins;
     * tas: plain test-and-set: every spin is a write of the lock's line, hand-off (2w − 1) × handoff_per_waiter;
     * ttas_backoff: the same with exponential back-off (one prober at a time, idle gaps);
     * spin_yield: ttas for at most spin_limit, then the engine is yielded (back of the run queue);
     * spin_sleep: PostgreSQL's s_lock: ttas for at most spin_limit, then sleep off the engine (1 ms, growing
     *   by a random 1×–2× a sleep, back to 1 ms past 1 s), then queue for an engine and spin again;
     * ticket: FIFO, but every waiter spins on one line, so hand-off grows with the waiters;
     * mcs: a queue lock, FIFO, each waiter spins on its own line, constant hand-off.
     */
    lock: LockKind;
    /** ttas_backoff: first and largest back-off delay (each failed probe doubles it, randomised). */
    backoff_min_ns: number;
    backoff_max_ns: number;
    /** spin_yield, spin_sleep: spin at most this long, then yield the engine (or sleep). */
    spin_limit_ns: number;
  };
  lockless: {
    /** Cost of one uncontended compare-and-swap whose line comes from another engine (one transfer). */
    cas_ns: number;
    /** The failed attempt of a CAS that found its line taken: one line transfer (default: latched.handoff_per_waiter). */
    line_transfer_ns: number;
    /** cas: every read pins the page by CAS (update_share of them); faa: the pin is an atomic fetch-and-add (never fails); optimistic: read a version, validate, restart on change. */
    read: (typeof READ_KINDS)[number];
    /** Share of look-ups that modify the page: a CAS that takes the page's version word exclusively for write_hold. */
    write_share: number;
    write_hold_ns: number;
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
  service_times: (typeof SERVICE_TIME_KINDS)[number];
  /** Measured simulated time, after the warm-up. */
  duration_ns: number;
  warmup_ns: number;
  /** Bound on the events of one point: a run that would exceed it fails instead of running away. */
  max_events: number;
  /** Seeds per point: results carry the mean, a 95% interval and the share that collapsed. */
  replications: number;
  stationarity: {
    /** Little's law error and drift between the two halves of the window allowed, percent. */
    tolerance_pct: number;
    /** Window extensions (each doubles the duration, the old window becomes warm-up) before a point is flagged. */
    max_extensions: number;
  };
  /** USL over engines: draw the fitted curve out to this many engines (default: the largest measured). */
  usl_extrapolate_to: number | null;
}

/** A sweep axis: a key path of the contention section and its values as written. */
export interface SweepAxis {
  key: string;
  values: Array<string | number | boolean>;
}

/** One combination of the sweep's values, resolved. */
export interface SweepCell {
  /** Index into each axis's values. */
  index: number[];
  params: Record<string, string | number | boolean>;
  spec: ContentionBase;
}

/** The `contention:` section resolved: the base model, the sweep's cells, sources and calibration. */
export interface ContentionSpec extends ContentionBase {
  /** Sweep over contention parameters (phase diagram); null without one. */
  sweep: { axes: SweepAxis[]; cells: SweepCell[] } | null;
  /** Sources the config gives for its values, by key path (`latched.handoff_per_waiter: "[LOCKS]"`). */
  sources: Record<string, string>;
  /** Key paths the config sets explicitly (filled by the loader; empty when parsed directly). */
  explicit_keys: string[];
  /** The calibration file named by the config (applied by the loader), or null. */
  calibration: CalibrationApplied | null;
}

/** Costs measured by `rowsim calibrate`, as applied to the model. */
export interface CalibrationApplied {
  file: string;
  machine: string;
  /** Key path → value (ns) that replaced the assumed one. */
  values: Record<string, number>;
  /** Key path → the value the config or the default had before. */
  replaced: Record<string, number>;
  /** Costs the file measured: the spread of the repeats they were fitted from (percent) and the range of the per-repeat fits (ns). */
  measured: Record<string, { spread_pct: number | null; repeats_ns: [number, number] | null }>;
  /** Costs the file refused to fit, with why: the config's (or the default) value is kept, unless it follows a measured one. */
  refused: Record<string, string>;
  /** The repeat-spread bound the fits were held to (percent), when the file says. */
  max_repeat_spread_pct: number | null;
}
