/**
 * One thread of `rowsim calibrate`: the latch and buffer-header protocols on a SharedArrayBuffer with
 * Atomics, in a loop until the main thread sets the stop flag. Every protocol runs over a hash table of
 * buffer headers accessed with a Zipf law (page → partition by the same hash as the contention model).
 *
 * Modes
 *   none         outside work only (the time of the work between accesses)
 *   bare         outside work + the critical section's work on a header, no latch (one thread only)
 *   ttas         test-and-test-and-set spinlock per partition: spin on a plain read, then CAS
 *   ticket       ticket lock per partition [MCS]: take a ticket (atomic add), spin until it is served
 *   mcs          MCS queue lock per partition [MCS]: swap yourself onto the tail, spin on your own node
 *   cas-pin      lockless: pin / update the header's usage word with a CAS loop, read the header
 *   optimistic   lockless [OLC]: read the version, read the payload, validate the version (restart on a
 *                change); `write_share` of the accesses lock the version (CAS to odd), write, unlock
 *   cas-count    one shared word CAS-incremented (fitting the CAS costs)
 *   broken       a "lock" that excludes nothing (the checker's teeth: updates must get lost)
 *   unvalidated  optimistic reads that skip validation (the checker's teeth: reads must tear)
 *
 * Checks counted in every run: the counter each lock protects is incremented with a plain read and
 * write inside the critical section (a lost increment = two threads inside at once), an occupancy word
 * is raised and lowered atomically inside it (with `check`), the CAS-incremented usage words must add
 * up to the accesses, and a validated optimistic read must see all payload words equal.
 */
import { parentPort } from 'node:worker_threads';
import { AliasTable } from '../contention/sim.js';
import { spinlockOfPage, zipfWeights } from '../contention/model.js';
import { Prng } from '../util/prng.js';
import {
  CTRL_READY,
  CTRL_START,
  CTRL_STOP,
  dataLine,
  header,
  H_PAYLOAD,
  H_USAGE,
  H_VERSION,
  layout,
  lockLine,
  PAYLOAD_WORDS,
  qnode,
  Q_LOCKED,
  Q_NEXT,
  type Workload,
} from './layout.js';

export type Mode = 'none' | 'bare' | 'ttas' | 'ticket' | 'mcs' | 'cas-pin' | 'optimistic' | 'cas-count' | 'broken' | 'unvalidated';

export interface RunMessage extends Workload {
  type: 'run';
  mode: Mode;
  index: number;
  threads: number;
  sab: SharedArrayBuffer;
  seed: number;
  /** Time one access in this many (latency percentiles). */
  sampleEvery: number;
  /** Raise an occupancy word inside every critical section (costs two atomics). */
  check: boolean;
}

export interface ThreadResult {
  ops: number;
  casAttempts: number;
  casFailures: number;
  reads: number;
  restarts: number;
  torn: number;
  occupancyViolations: number;
  /** Sampled acquisition (or read) latencies, ns. */
  latencies: number[];
  sink: number;
}

/** Busy work the JIT cannot remove: an xorshift loop. */
function work(n: number, x: number): number {
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
  }
  return x;
}

/** One benchmark thread's state: the shared words, its queue node, its PRNG and its counters. */
class LatchThread {
  /** The shared words (SharedArrayBuffer) and where each lock, header and queue node sits in them. */
  private readonly words: Int32Array;
  private readonly wordLayout: ReturnType<typeof layout>;
  private readonly rng: Prng;
  private readonly table: AliasTable;
  private readonly myNode: number;
  /** The xorshift state threaded through all busy work, so the JIT cannot drop it. */
  private x: number;
  readonly res: ThreadResult = {
    ops: 0,
    casAttempts: 0,
    casFailures: 0,
    reads: 0,
    restarts: 0,
    torn: 0,
    occupancyViolations: 0,
    latencies: [],
    sink: 1,
  };

  constructor(private readonly msg: RunMessage) {
    this.words = new Int32Array(msg.sab);
    this.wordLayout = layout(msg.partitions, msg.headers);
    this.rng = new Prng(msg.seed);
    this.table = new AliasTable(zipfWeights(msg.headers, msg.skew));
    this.myNode = qnode(this.wordLayout, msg.index);
    this.x = (msg.seed | 1) >>> 0 || 1;
  }

  private acquire(p: number): void {
    const a = this.words;
    const l = lockLine(p);
    const mode = this.msg.mode;
    if (mode === 'ttas') {
      for (;;) {
        while (Atomics.load(a, l) !== 0);
        this.res.casAttempts++;
        if (Atomics.compareExchange(a, l, 0, 1) === 0) return;
        this.res.casFailures++;
      }
    } else if (mode === 'ticket') {
      const ticket = Atomics.add(a, l, 1);
      while (Atomics.load(a, l + 1) !== ticket);
    } else if (mode === 'mcs') {
      const me = this.msg.index;
      Atomics.store(a, this.myNode + Q_NEXT, 0);
      Atomics.store(a, this.myNode + Q_LOCKED, 1);
      const pred = Atomics.exchange(a, l, me + 1); // tail: thread index + 1, 0 = empty
      if (pred !== 0) {
        Atomics.store(a, qnode(this.wordLayout, pred - 1) + Q_NEXT, me + 1);
        while (Atomics.load(a, this.myNode + Q_LOCKED) !== 0);
      }
    }
  }

  private release(p: number): void {
    const a = this.words;
    const l = lockLine(p);
    const mode = this.msg.mode;
    if (mode === 'ttas') Atomics.store(a, l, 0);
    else if (mode === 'ticket') Atomics.add(a, l + 1, 1);
    else if (mode === 'mcs') {
      const me = this.msg.index;
      let next = Atomics.load(a, this.myNode + Q_NEXT);
      if (next === 0) {
        if (Atomics.compareExchange(a, l, me + 1, 0) === me + 1) return;
        while ((next = Atomics.load(a, this.myNode + Q_NEXT)) === 0);
      }
      Atomics.store(a, qnode(this.wordLayout, next - 1) + Q_LOCKED, 0);
    }
  }

  /** The critical section: walk the header (read its words), then the protected counter's increment. */
  private critical(p: number, h: number): void {
    const a = this.words;
    const d = dataLine(p);
    if (this.msg.check && Atomics.add(a, d + 1, 1) !== 0) this.res.occupancyViolations++;
    const base = header(this.wordLayout, h);
    let s = a[base]! + a[base + H_PAYLOAD]!;
    const c = a[d]!; // plain read …
    this.x = work(this.msg.csIters, this.x ^ s);
    a[d] = c + 1; // … and plain write: a second thread inside would lose an increment
    s ^= this.x;
    this.res.sink ^= s;
    if (this.msg.check) Atomics.sub(a, d + 1, 1);
  }

  private casIncrement(w: number): void {
    for (;;) {
      const v = Atomics.load(this.words, w);
      this.res.casAttempts++;
      if (Atomics.compareExchange(this.words, w, v, v + 1) === v) return;
      this.res.casFailures++;
    }
  }

  private optimisticRead(h: number, validate: boolean): void {
    const a = this.words;
    const base = header(this.wordLayout, h);
    for (;;) {
      this.res.reads++;
      const v1 = Atomics.load(a, base + H_VERSION);
      if (validate && (v1 & 1) === 1) {
        this.res.restarts++;
        continue;
      }
      const first = Atomics.load(a, base + H_PAYLOAD);
      let same = true;
      for (let k = 1; k < PAYLOAD_WORDS; k++) if (Atomics.load(a, base + H_PAYLOAD + k) !== first) same = false;
      this.x = work(this.msg.csIters, this.x ^ first);
      if (validate && Atomics.load(a, base + H_VERSION) !== v1) {
        this.res.restarts++;
        continue;
      }
      if (!same) this.res.torn++;
      return;
    }
  }

  private optimisticWrite(h: number): void {
    const a = this.words;
    const base = header(this.wordLayout, h);
    for (;;) {
      const v = Atomics.load(a, base + H_VERSION);
      this.res.casAttempts++;
      if ((v & 1) === 0 && Atomics.compareExchange(a, base + H_VERSION, v, v + 1) === v) break;
      this.res.casFailures++;
    }
    const value = (this.x = work(1, this.x));
    for (let k = 0; k < PAYLOAD_WORDS; k++) {
      Atomics.store(a, base + H_PAYLOAD + k, value);
      if (k === 3) this.x = work(this.msg.csIters >> 1, this.x); // a writer in the middle of its write
    }
    Atomics.add(a, base + H_VERSION, 1);
  }

  private sampleLatency(timed: boolean, t0: number): void {
    if (timed) this.res.latencies.push((performance.now() - t0) * 1e6);
  }

  /** One access by this thread's mode, with its latency sampled when `timed`. */
  private access(h: number, timed: boolean): void {
    const msg = this.msg;
    const p = spinlockOfPage(h, msg.partitions);
    const t0 = timed ? performance.now() : 0;
    switch (msg.mode) {
      case 'none':
        break;
      case 'bare':
      case 'broken':
        this.critical(p, h);
        break;
      case 'ttas':
      case 'ticket':
      case 'mcs':
        this.acquire(p);
        this.sampleLatency(timed, t0);
        this.critical(p, h);
        this.release(p);
        break;
      case 'cas-pin': {
        this.casIncrement(header(this.wordLayout, h) + H_USAGE);
        this.sampleLatency(timed, t0);
        this.x = work(msg.csIters, this.x ^ this.words[header(this.wordLayout, h) + H_PAYLOAD]!);
        break;
      }
      case 'cas-count':
        this.casIncrement(header(this.wordLayout, 0) + H_USAGE);
        this.sampleLatency(timed, t0);
        break;
      case 'optimistic':
        if (msg.writeShare > 0 && this.rng.float32() < msg.writeShare) this.optimisticWrite(h);
        else this.optimisticRead(h, true);
        this.sampleLatency(timed, t0);
        break;
      case 'unvalidated':
        if (msg.index === 0) this.optimisticWrite(h);
        else this.optimisticRead(h, false);
        break;
    }
  }

  /** Announce readiness, wait for the start flag, then access until the stop flag. */
  run(): ThreadResult {
    const a = this.words;
    const msg = this.msg;
    const res = this.res;
    Atomics.add(a, CTRL_READY, 1);
    Atomics.notify(a, CTRL_READY);
    while (Atomics.load(a, CTRL_START) === 0) Atomics.wait(a, CTRL_START, 0, 50);
    const sampleEvery = Math.max(1, msg.sampleEvery);
    for (;;) {
      if ((res.ops & 63) === 0 && Atomics.load(a, CTRL_STOP) !== 0) break;
      this.x = work(msg.outsideIters, this.x);
      const h = msg.mode === 'cas-count' ? 0 : this.table.sample(this.rng.float32());
      this.access(h, res.ops % sampleEvery === 0);
      res.ops++;
    }
    res.sink ^= this.x;
    return res;
  }
}

function runThread(msg: RunMessage): ThreadResult {
  return new LatchThread(msg).run();
}

parentPort?.on('message', (msg: RunMessage) => {
  try {
    parentPort!.postMessage({ ok: true, result: runThread(msg) });
  } catch (err) {
    parentPort!.postMessage({ ok: false, error: (err as Error).message });
  }
});
