/**
 * `rowsim calibrate`: a real contention benchmark on worker threads (src/calibrate/worker.ts), the
 * costs the contention model takes fitted from it, and the model's prediction beside the measurement.
 *
 * A run is (mode, threads): `threads` workers start together on one SharedArrayBuffer, loop for the
 * run's duration, and report their accesses, CAS attempts and failures, optimistic restarts, torn
 * reads, lost updates and sampled acquisition latencies. The process's CPU time over the run, divided by
 * wall time × threads, is each thread's share of a core: a run with more threads than cores, or whose
 * threads got less than MIN_CPU_SHARE of a core, was time-sliced (a thread holding a lock can be
 * descheduled, which no latch model describes) and no cost is fitted from it.
 */
import { availableParallelism, cpus } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { parseContention, type ContentionSpec } from '../contention/schema.js';
import { runReplication } from '../contention/task.js';
import { fitUsl } from '../contention/usl.js';
import { checkTag, fitAll, FITTED_KEYS, MAX_REPEAT_SPREAD_PCT, MIN_USABLE_REPEATS, type Fitted, type FittedKey } from './fit.js';
import type { CalibrationFile } from '../contention/calibration-file.js';
import { CTRL_READY, CTRL_START, CTRL_STOP, dataLine, header, H_PAYLOAD, H_USAGE, layout, type Workload } from './layout.js';
import type { Mode, RunMessage, ThreadResult } from './worker.js';
import { ROWSIM_VERSION } from '../version.js';

/** A thread that got less than this share of a core was time-sliced or preempted (assumed: a threshold well below the ~100% an unshared core gives, above the ~50% two threads get from one). */
const MIN_CPU_SHARE = 0.8;

/** The hash table the table modes run on (assumed sizes: small enough that contention shows on 2 cores). */
export const DEFAULT_WORKLOAD: Workload = { partitions: 8, headers: 4096, skew: 0.99, outsideIters: 150, csIters: 40, writeShare: 0.05 };

export interface RunResult {
  mode: Mode;
  threads: number;
  duration_ms: number;
  ops: number;
  ops_per_sec: number;
  /** Wall time per access of one thread, ns. */
  ns_per_op_per_thread: number;
  latency_ns: { p50: number; p90: number; p99: number; samples: number } | null;
  cas_failure_pct: number;
  restarts_per_read: number;
  cpu_share: number;
  time_sliced: boolean;
  /** Why the run is time-sliced, or null. */
  time_sliced_reason: string | null;
  checks: { lost_updates: number; occupancy_violations: number; torn_reads: number; cas_lost_updates: number };
}

function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) return resolve(dirname(here), '../../dist/calibrate/worker.js');
  // In the bundle (dist/bundle/, scripts/bundle.mjs) the pool's worker is worker.js and this one calibrate-worker.js.
  if (basename(dirname(here)) === 'bundle') return resolve(dirname(here), 'calibrate-worker.js');
  return resolve(dirname(here), 'worker.js');
}

const pct = (xs: number[], q: number): number => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
};
const r3 = (x: number): number => (Number.isFinite(x) ? Number(x.toPrecision(3)) : x);

/** What one thread reports for the run of `msg`, posted to `worker`. */
function threadResult(worker: Worker, msg: RunMessage): Promise<ThreadResult> {
  return new Promise<ThreadResult>((ok, fail) => {
    const onMessage = (m: { ok: boolean; result?: ThreadResult; error?: string }): void => {
      worker.off('error', onError);
      if (m.ok) ok(m.result!);
      else fail(new Error(m.error));
    };
    const onError = (err: Error): void => {
      worker.off('message', onMessage);
      fail(err);
    };
    worker.once('message', onMessage);
    worker.once('error', onError);
    worker.postMessage(msg);
  });
}

/** A run's figures from its threads' reports and the shared table `a` after it: `wall` seconds, `cpu` seconds of the process. */
function runResult(mode: Mode, threads: number, w: Workload, a: Int32Array, per: ThreadResult[], wall: number, cpu: number): RunResult {
  const L = layout(w.partitions, w.headers);
  const ops = per.reduce((s, r) => s + r.ops, 0);
  const lat = per.flatMap((r) => r.latencies);
  const attempts = per.reduce((s, r) => s + r.casAttempts, 0);
  const failures = per.reduce((s, r) => s + r.casFailures, 0);
  const reads = per.reduce((s, r) => s + r.reads, 0);
  const restarts = per.reduce((s, r) => s + r.restarts, 0);
  // the counters each lock protects must add up to the accesses of the locked modes
  let counted = 0;
  for (let p = 0; p < w.partitions; p++) counted += a[dataLine(p)]!;
  const lockedModes: Mode[] = ['bare', 'ttas', 'ticket', 'mcs', 'broken'];
  const lost = lockedModes.includes(mode) ? ops - counted : 0;
  let usage = 0;
  for (let h = 0; h < w.headers; h++) usage += a[header(L, h) + H_USAGE]!;
  const casLost = mode === 'cas-pin' || mode === 'cas-count' ? ops - usage : 0;
  void H_PAYLOAD;
  const cores = availableParallelism();
  const share = cpu / (wall * threads);
  const reason =
    threads > cores
      ? `${threads} runnable threads on ${cores} cores`
      : share < MIN_CPU_SHARE
        ? `each thread got ${Math.round(share * 100)}% of a core (other load on the machine)`
        : null;
  return {
    mode,
    threads,
    duration_ms: r3(wall * 1000),
    ops,
    ops_per_sec: r3(ops / wall),
    ns_per_op_per_thread: r3((wall * 1e9 * threads) / Math.max(1, ops)),
    latency_ns: lat.length ? { p50: r3(pct(lat, 0.5)), p90: r3(pct(lat, 0.9)), p99: r3(pct(lat, 0.99)), samples: lat.length } : null,
    cas_failure_pct: attempts > 0 ? r3((100 * failures) / attempts) : 0,
    restarts_per_read: reads > 0 ? r3(restarts / reads) : 0,
    cpu_share: r3(share),
    time_sliced: reason !== null,
    time_sliced_reason: reason,
    checks: {
      lost_updates: lost,
      occupancy_violations: per.reduce((s, r) => s + r.occupancyViolations, 0),
      torn_reads: per.reduce((s, r) => s + r.torn, 0),
      cas_lost_updates: casLost,
    },
  };
}

/** A pool of benchmark threads, started once and reused run after run. */
export class ThreadPool {
  private readonly workers: Worker[] = [];
  constructor(readonly size: number) {
    for (let i = 0; i < size; i++) this.workers.push(new Worker(workerFile()));
  }

  async run(
    mode: Mode,
    threads: number,
    durationMs: number,
    w: Workload,
    opts: { check?: boolean; seed?: number; sampleEvery?: number } = {},
  ): Promise<RunResult> {
    if (threads > this.size) throw new RangeError(`pool of ${this.size} threads, run asks for ${threads}`);
    const L = layout(w.partitions, w.headers);
    const sab = new SharedArrayBuffer(L.words * 4);
    const a = new Int32Array(sab);
    for (let h = 0; h < w.headers; h++) a[header(L, h)] = h;
    const results = this.workers.slice(0, threads).map((worker, index) =>
      threadResult(worker, {
        type: 'run',
        mode,
        index,
        threads,
        sab,
        ...w,
        seed: (opts.seed ?? 1) * 7919 + index,
        sampleEvery: opts.sampleEvery ?? 16,
        check: opts.check ?? false,
      }),
    );
    // all threads ready, then start them together
    while (Atomics.load(a, CTRL_READY) < threads) await new Promise((r) => setTimeout(r, 1));
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    Atomics.store(a, CTRL_START, 1);
    Atomics.notify(a, CTRL_START);
    await new Promise((r) => setTimeout(r, durationMs));
    Atomics.store(a, CTRL_STOP, 1);
    const per = await Promise.all(results);
    const wall = (performance.now() - t0) / 1000;
    const cu = process.cpuUsage(c0);
    return runResult(mode, threads, w, a, per, wall, (cu.user + cu.system) / 1e6);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

interface CalibrateOptions {
  /** Thread counts of the table runs (default 1 … cores). */
  threads: number[];
  durationMs: number;
  workload: Workload;
  /** Repeat each fitting run and take the median (default 3). */
  repeats: number;
  onProgress?: (done: number, total: number) => void;
}

interface Prediction {
  mode: Mode;
  threads: number;
  measured_ops_per_sec: number;
  predicted_ops_per_sec: number | null;
  error_pct: number | null;
  note?: string;
}

export interface CalibrationReport extends CalibrationFile {
  rowsim_version: string;
  workload: Workload;
  single_thread_ns: { outside: number | null; critical_section: number | null };
  fit_rule: { max_repeat_spread_pct: number; min_unsliced_repeats: number };
  fits: Record<FittedKey, Fitted>;
  runs: RunResult[];
  fitting_runs: RunResult[];
  predictions: Prediction[];
  usl: Array<{ mode: Mode; threads: number[]; sigma: number; kappa: number; rms_error_pct: number }>;
  checks_passed: boolean;
}

const TABLE_MODES: Mode[] = ['ttas', 'ticket', 'mcs', 'cas-pin', 'optimistic'];

/** The model of a table run: threads engines and users, no think time, one look-up per access. */
export function benchmarkModel(
  mode: Mode,
  threads: number,
  w: Workload,
  costs: { outside: number; hold: number; handoff: number; cas: number; transfer: number; lookup: number },
): ContentionSpec {
  const lockless = mode === 'cas-pin' || mode === 'optimistic';
  return parseContention({
    engines: threads,
    users: threads,
    think_time: 0,
    transaction: { logical_reads: 1, cpu_per_read: 0, cpu_per_transaction: `${Math.max(0, costs.outside)}ns` },
    pages: { count: w.headers, skew: w.skew },
    buffer_managers: [lockless ? 'lockless' : 'latched'],
    latched: {
      spinlocks: w.partitions,
      hold: `${costs.hold}ns`,
      handoff_per_waiter: `${costs.handoff}ns`,
      lock: lockless ? 'ttas' : mode === 'mcs' ? 'mcs' : mode,
    },
    lockless: {
      cas: `${costs.cas}ns`,
      line_transfer: `${costs.transfer}ns`,
      lookup: `${costs.lookup}ns`,
      read: mode === 'optimistic' ? 'optimistic' : 'cas',
      write_share: mode === 'optimistic' ? w.writeShare : 0,
      write_hold: `${costs.lookup}ns`,
    },
    service_times: 'constant',
    duration: '20ms',
    warmup: '2ms',
    replications: 1,
    stationarity: { max_extensions: 0 },
  });
}

interface Measured {
  /** The fitting runs (one and two threads on purpose-built workloads), by tag. */
  fitting: RunResult[];
  byTag: Map<string, RunResult[]>;
  /** The protocol table: every mode at every thread count asked for. */
  runs: RunResult[];
}

/** Run the fitting plan (repeated) and the protocol table on one thread pool. */
async function measure(opts: CalibrateOptions): Promise<Measured> {
  const w = opts.workload;
  const pool = new ThreadPool(Math.max(2, ...opts.threads));
  const single: Workload = { ...w, partitions: 1, headers: 1, outsideIters: 0 };
  const spaced: Workload = { ...w, partitions: 1, headers: 1 };
  const plan: Array<{ mode: Mode; threads: number; w: Workload; tag: string }> = [];
  for (let r = 0; r < opts.repeats; r++) {
    plan.push({ mode: 'none', threads: 1, w, tag: 'outside' });
    plan.push({ mode: 'bare', threads: 1, w, tag: 'bare' });
    plan.push({ mode: 'ttas', threads: 1, w, tag: 'ttas1' });
    plan.push({ mode: 'ttas', threads: 1, w: single, tag: 'lock1' });
    plan.push({ mode: 'ttas', threads: 2, w: single, tag: 'lock2' });
    plan.push({ mode: 'cas-count', threads: 1, w: single, tag: 'cas1' });
    plan.push({ mode: 'cas-count', threads: 2, w: spaced, tag: 'casSpaced' });
    plan.push({ mode: 'cas-count', threads: 2, w: single, tag: 'cas2' });
  }
  const table: Array<{ mode: Mode; threads: number }> = [];
  for (const mode of TABLE_MODES) for (const t of opts.threads) table.push({ mode, threads: t });
  const total = plan.length + table.length;
  let done = 0;
  const m: Measured = { fitting: [], byTag: new Map(), runs: [] };
  try {
    for (const p of plan) {
      // no latency sampling in the fitting runs: a clock read costs as much as an uncontended CAS
      const r = await pool.run(p.mode, p.threads, opts.durationMs, p.w, { seed: done + 1, sampleEvery: 2 ** 30 });
      m.fitting.push(r);
      m.byTag.set(p.tag, [...(m.byTag.get(p.tag) ?? []), r]);
      opts.onProgress?.(++done, total);
    }
    for (const t of table) {
      m.runs.push(await pool.run(t.mode, t.threads, opts.durationMs, w, { seed: done + 1, check: false, sampleEvery: 128 }));
      opts.onProgress?.(++done, total);
    }
  } finally {
    await pool.close();
  }
  return m;
}

interface Fitting {
  fits: Record<FittedKey, Fitted>;
  /** Per-access ns of one thread: outside work alone, and the look-up (critical-section work); null where refused. */
  outside: number | null;
  lookup: number | null;
  hold: number | null;
  /** One thread's uncontended CAS, ns (null where refused). */
  cas1: number | null;
}

/** The model's costs from the fitting runs (fit.ts: refused unless unsliced repeats agree). */
function fitCosts(byTag: Map<string, RunResult[]>): Fitting {
  const fits = fitAll(byTag);
  const one = (tag: string): number | null => {
    const c = checkTag(byTag, tag);
    return c.ok ? c.median : null;
  };
  return { fits, outside: one('outside'), lookup: fits['lockless.lookup'].value, hold: fits['latched.hold'].value, cas1: one('cas1') };
}

/** The model's prediction of every table run, with the fitted costs (or the defaults where refused). */
function predictRuns(runs: RunResult[], w: Workload, f: Fitting): Prediction[] {
  const { fits, outside, lookup, hold, cas1 } = f;
  const handoff = fits['latched.handoff_per_waiter'].value ?? 50;
  const cas = fits['lockless.cas'].value ?? 40;
  const transfer = fits['lockless.line_transfer'].value ?? 50;
  // each protocol's own uncontended cost per access, from its one-thread table run (a fit, not a
  // prediction): the lock kinds' holds, the CAS-pinned look-up (minus its local CAS), the optimistic read
  const oneThread = (mode: Mode): RunResult | undefined => runs.find((r) => r.mode === mode && r.threads === 1 && !r.time_sliced);
  const costsFor = (mode: Mode, o: number, c1: number) => {
    const t1 = oneThread(mode)?.ns_per_op_per_thread;
    const own = mode === 'cas-pin' || mode === 'optimistic' ? lookup : hold;
    const access = t1 !== undefined ? Math.max(0, t1 - o) : own;
    if (access === null) return null;
    return { outside: o, hold: access, handoff, cas, transfer, lookup: mode === 'cas-pin' ? Math.max(0, access - c1) : access };
  };
  const assumed = FITTED_KEYS.filter((k) => k !== 'latched.hold' && k !== 'lockless.lookup' && fits[k].value === null);
  const notPredicted = (r: RunResult, note: string): Prediction => ({
    mode: r.mode,
    threads: r.threads,
    measured_ops_per_sec: r.ops_per_sec,
    predicted_ops_per_sec: null,
    error_pct: null,
    note,
  });
  return runs.map((r) => {
    if (r.time_sliced) return notPredicted(r, `not predicted: time-sliced (${r.time_sliced_reason}); the model has no time slices`);
    const costs = outside !== null && cas1 !== null ? costsFor(r.mode, outside, cas1) : null;
    if (!costs) return notPredicted(r, 'not predicted: the one-thread costs were refused (see fits)');
    const spec = benchmarkModel(r.mode, r.threads, w, costs);
    const rep = runReplication({ spec, buffer_manager: spec.buffer_managers[0]!, engines: r.threads, users: r.threads, seed: 1 });
    const predicted = rep.throughput_tps;
    const note =
      assumed.length > 0
        ? `with the assumed ${assumed.join(', ')} (refused: see fits)`
        : r.threads === 1
          ? 'one thread: the per-access cost is fitted here; the model still charges every latch acquisition a hand-off and every CAS a line transfer that a lone thread does not pay'
          : undefined;
    return {
      mode: r.mode,
      threads: r.threads,
      measured_ops_per_sec: r.ops_per_sec,
      predicted_ops_per_sec: r3(predicted),
      error_pct: r3((100 * (predicted - r.ops_per_sec)) / r.ops_per_sec),
      ...(note ? { note } : {}),
    };
  });
}

/** The Universal Scalability Law fitted to each protocol's runs that were not time-sliced. */
function fitUslCurves(runs: RunResult[]): CalibrationReport['usl'] {
  const usl: CalibrationReport['usl'] = [];
  for (const mode of TABLE_MODES) {
    const ok = runs.filter((r) => r.mode === mode && !r.time_sliced);
    if (ok.length >= 2) {
      const fit = fitUsl(
        ok.map((r) => r.threads),
        ok.map((r) => r.ops_per_sec),
      );
      usl.push({
        mode,
        threads: ok.map((r) => r.threads),
        sigma: r3(fit.sigma),
        kappa: r3(fit.kappa),
        rms_error_pct: r3(fit.rms_error_pct),
      });
    }
  }
  return usl;
}

export async function calibrate(opts: CalibrateOptions): Promise<CalibrationReport> {
  const w = opts.workload;
  const { fitting, byTag, runs } = await measure(opts);
  const f = fitCosts(byTag);
  const all = [...fitting, ...runs];
  const checksPassed = all.every(
    (r) =>
      r.checks.lost_updates === 0 && r.checks.occupancy_violations === 0 && r.checks.torn_reads === 0 && r.checks.cas_lost_updates === 0,
  );
  return {
    rowsim_calibration: 1,
    rowsim_version: ROWSIM_VERSION,
    machine: { cpus: availableParallelism(), model: cpus()[0]?.model ?? 'unknown CPU', node: process.version },
    costs: {
      'latched.hold': f.fits['latched.hold'].value,
      'latched.handoff_per_waiter': f.fits['latched.handoff_per_waiter'].value,
      'lockless.cas': f.fits['lockless.cas'].value,
      'lockless.line_transfer': f.fits['lockless.line_transfer'].value,
      'lockless.lookup': f.fits['lockless.lookup'].value,
    },
    workload: w,
    fit_rule: { max_repeat_spread_pct: MAX_REPEAT_SPREAD_PCT, min_unsliced_repeats: MIN_USABLE_REPEATS },
    single_thread_ns: { outside: f.outside === null ? null : r3(f.outside), critical_section: f.lookup },
    fits: f.fits,
    runs,
    fitting_runs: fitting,
    predictions: predictRuns(runs, w, f),
    usl: fitUslCurves(runs),
    checks_passed: checksPassed,
  };
}

/** The correctness checks alone: each protocol at a thread count, with the occupancy word raised. */
export async function verify(mode: Mode, threads: number, durationMs: number, w: Workload = DEFAULT_WORKLOAD): Promise<RunResult> {
  const pool = new ThreadPool(threads);
  try {
    return await pool.run(mode, threads, durationMs, w, { check: true });
  } finally {
    await pool.close();
  }
}
