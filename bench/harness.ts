/**
 * The one timing harness of `npm run bench` (docs/performance.md). Every line is the median and the
 * minimum of several runs after warm-up runs that are not counted, in CPU time and in wall time:
 *
 * - in this process, `measure(fn)` reads process.cpuUsage() (user + system of the whole process, worker
 *   threads included) and a monotonic clock around `fn`;
 * - a phase of a storage run is timed between the runner's onPhase edges (PhaseClock);
 * - a whole child process (a CLI line, a memory or scale run) reports its own CPU time, and the parent
 *   reads the wall clock around it: `measureEach` takes samples a run function returns.
 *
 * The output is one line per figure, `name: value unit  (note)`, or with --json one document with the
 * machine, the date, the commit and every line with its samples. Pure apart from the clocks.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { groupedNumber } from '../src/util/numbers.js';
import { describeInlining } from '../src/cli/compiler.js';

/** Median and minimum of a figure's runs. */
export interface Stat {
  median: number;
  min: number;
}

/** One run: CPU seconds (absent where it cannot be read, e.g. a browser's processes) and wall seconds. */
export interface Sample {
  cpu?: number;
  wall: number;
}

export interface MeasureOptions {
  /** Counted runs (at least 1; the bench's default is 3). */
  runs: number;
  /** Runs before them that are not counted (JIT, file cache). */
  warmup: number;
}

/** What `measure` returns: seconds, the median and minimum over the counted runs, and the runs themselves. */
export interface Measurement {
  runs: number;
  warmup: number;
  cpu?: Stat;
  wall: Stat;
  samples: Sample[];
}

/** The median (the mean of the two middle values for an even count) and the minimum. */
export function stat(values: readonly number[]): Stat {
  if (values.length === 0) throw new Error('stat: no values');
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return { median: s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2, min: s[0]! };
}

/** Median and minimum of the samples' CPU and wall seconds; CPU only when every sample has it. */
export function summarize(samples: readonly Sample[], opts: MeasureOptions): Measurement {
  const cpu = samples.every((s) => s.cpu !== undefined) ? stat(samples.map((s) => s.cpu!)) : undefined;
  return {
    runs: samples.length,
    warmup: opts.warmup,
    ...(cpu ? { cpu } : {}),
    wall: stat(samples.map((s) => s.wall)),
    samples: [...samples],
  };
}

/** A stopwatch on this process's CPU time and the monotonic clock. */
export function startClock(): () => Sample {
  const c0 = process.cpuUsage();
  const w0 = process.hrtime.bigint();
  return () => {
    const c = process.cpuUsage(c0);
    return { cpu: (c.user + c.system) / 1e6, wall: Number(process.hrtime.bigint() - w0) / 1e9 };
  };
}

/** Time one call of `fn` in this process. */
export async function timed<T>(fn: () => T | Promise<T>): Promise<{ value: T; sample: Sample }> {
  const stop = startClock();
  const value = await fn();
  return { value, sample: stop() };
}

/**
 * Run `fn` `warmup` times uncounted, then `runs` times; each run returns its samples by name (the phases
 * of one storage run, a child's own figures). `fn` is told the run: 0, 1, … for a counted run, −1, −2, …
 * for a warm-up. Resolves with each name's Measurement.
 */
export async function measureEach<K extends string>(
  fn: (run: number) => Record<K, Sample> | Promise<Record<K, Sample>>,
  opts: MeasureOptions,
): Promise<Record<K, Measurement>> {
  if (!(opts.runs >= 1)) throw new Error(`measure: expected at least 1 run, found ${opts.runs}`);
  for (let i = 0; i < opts.warmup; i++) await fn(-1 - i);
  const byName = new Map<K, Sample[]>();
  for (let i = 0; i < opts.runs; i++) {
    const got = await fn(i);
    for (const [k, s] of Object.entries(got) as [K, Sample][]) {
      if (!byName.has(k)) byName.set(k, []);
      byName.get(k)!.push(s);
    }
  }
  const out = {} as Record<K, Measurement>;
  for (const [k, samples] of byName) out[k] = summarize(samples, opts);
  return out;
}

/** Time `fn` (in this process) `runs` times after `warmup` uncounted runs. */
export async function measure(fn: (run: number) => unknown, opts: MeasureOptions): Promise<Measurement> {
  const m = await measureEach(async (run) => ({ run: (await timed(() => fn(run))).sample }), opts);
  return m.run;
}

/**
 * The CPU and wall time of each phase of a storage run, between the runner's onPhase edges (the row
 * operations only): `runStorage(spec, { onPhase: clock.onPhase })`, then `clock.phase(i)`.
 */
export class PhaseClock {
  private readonly running = new Map<number, () => Sample>();
  private readonly done = new Map<number, Sample>();
  readonly onPhase = (index: number, edge: 'start' | 'end'): void => {
    if (edge === 'start') {
      this.running.set(index, startClock());
    } else {
      const stop = this.running.get(index);
      if (!stop) throw new Error(`PhaseClock: phase ${index} ended without starting`);
      this.done.set(index, stop());
      this.running.delete(index);
    }
  };
  phase(index: number): Sample {
    const s = this.done.get(index);
    if (!s) throw new Error(`PhaseClock: phase ${index} was not timed`);
    return s;
  }
  /** Every timed phase, in phase order. */
  phases(): Sample[] {
    return [...this.done.keys()].sort((a, b) => a - b).map((i) => this.done.get(i)!);
  }
}

// ---- lines --------------------------------------------------------------------------------------

/** One figure. `value` null: not measured here (the note says why): no figure is made up. */
export interface BenchLine {
  name: string;
  value: number | null;
  unit: string;
  note?: string;
  /** The timing the value comes from, for --json. */
  measurement?: Measurement;
  /** Further figures for --json (a ratio's parts, a child's report). */
  detail?: Record<string, unknown>;
}

/** A line as `npm run bench` prints it: `name: value unit  (note)`. */
export function formatLine(line: BenchLine): string {
  const value = line.value === null ? 'not measured' : `${groupedNumber(line.value)} ${line.unit}`;
  return `${line.name}: ${value}${line.note ? `  (${line.note})` : ''}`;
}

/** Three significant digits, as the lines print rates. */
export function sig3(x: number): number {
  return Number.isFinite(x) ? Number(x.toPrecision(3)) : x;
}

/** Seconds as a line prints them: "1.23 s" or "456 ms". */
export function seconds(s: number): string {
  if (s >= 100) return `${s.toFixed(0)} s`;
  if (s >= 1) return `${s.toFixed(2)} s`;
  return `${(s * 1000).toPrecision(3)} ms`;
}

/** How a measurement was taken, for a line's note: CPU and wall, median and min, runs and warm-up. */
export function timingNote(m: Measurement): string {
  const cpu = m.cpu ? `CPU ${seconds(m.cpu.median)} median, ${seconds(m.cpu.min)} min; ` : '';
  return `${cpu}wall ${seconds(m.wall.median)} median, ${seconds(m.wall.min)} min; ${m.runs} run${m.runs === 1 ? '' : 's'}${m.warmup > 0 ? ` after ${m.warmup} warm-up${m.warmup === 1 ? '' : 's'}` : ', no warm-up'}`;
}

/**
 * A rate line: `count` per CPU-second at the median CPU time (the best run's rate and the wall rates in
 * the note). Without CPU time (not readable), per wall-second.
 */
export function rateLine(name: string, count: number, unit: string, m: Measurement, note?: string): BenchLine {
  const basis = m.cpu ?? m.wall;
  const per = m.cpu ? 'CPU-s' : 'wall-s';
  const best = sig3(count / basis.min);
  const wall = m.cpu ? `; ${groupedNumber(sig3(count / m.wall.median))} per wall-s` : '';
  return {
    name,
    value: sig3(count / basis.median),
    unit: `${unit}/${per}`,
    note: [note, `best run ${groupedNumber(best)}${wall}; ${timingNote(m)}`].filter(Boolean).join('; '),
    measurement: m,
  };
}

// ---- the machine and the JSON document ------------------------------------------------------------

export interface MachineInfo {
  /** os.availableParallelism(): the cores this process may use. */
  cores: number;
  /** os.loadavg() over 1, 5 and 15 minutes. */
  loadavg: number[];
  cpu: string;
  memory_bytes: number;
  node: string;
  platform: string;
  /** How fast a core of this machine was when the figure was taken (speedProbe); absent when not probed. */
  probe?: SpeedProbe;
  /** The optimising compiler's inlining budget the bench and its children run with (src/cli/compiler.ts). */
  inlining: string;
}

/**
 * CPU milliseconds of two fixed loops, median of 5 (min beside): integer arithmetic, and random reads of
 * 64 MB; and the CPU microseconds of a first write to each 4 kB page of a new 48 MB array, median of 3.
 */
export interface SpeedProbe {
  alu_ms: number;
  alu_min_ms: number;
  memory_ms: number;
  memory_min_ms: number;
  /** CPU µs a 4 kB page of fresh memory costs when first written (the page fault). */
  fresh_page_us: number;
  fresh_page_min_us: number;
}

const PROBE_RUNS = 5;
const PROBE_ALU_STEPS = 1 << 24;
const PROBE_MEMORY_WORDS = 1 << 24;
const PROBE_MEMORY_READS = 1 << 21;
/** Int32 words of each fresh array of the probe: 48 MB, above glibc's largest mmap threshold (32 MB), so each is new memory from the kernel. */
const PROBE_FRESH_WORDS = 12 << 20;
const PROBE_FRESH_RUNS = 3;
/** Int32 words in a 4 kB page. */
const PAGE_WORDS = 1024;
/** Where the probe's loops leave their results, so that no compiler can drop them as unused. */
let probeSink = 0;

/**
 * A core's speed now, by two fixed loops: 16M steps of a xorshift generator (arithmetic in registers),
 * and 2M reads at random places in a 64 MB array (cache and memory misses, as a random update's are).
 * The same work on every run, so a machine whose cores run slower under its neighbours shows it here:
 * figures of two bench runs compare only as far as their probes agree. Then what a page of memory new
 * from the kernel costs when first written: on a virtual machine the host may have to find the memory
 * too (about 11 µs a 4 kB page here, against a fraction of a microsecond on bare metal), and every
 * engine's arrays are such memory the first time a process uses them.
 */
export function speedProbe(): SpeedProbe {
  const cpuMs = (fn: () => number): [number, number] => {
    const stop = startClock();
    const r = fn();
    return [stop().cpu! * 1000, r];
  };
  const alu = (): number => {
    let x = 2463534242;
    for (let i = 0; i < PROBE_ALU_STEPS; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
    }
    return x;
  };
  const words = new Int32Array(PROBE_MEMORY_WORDS);
  for (let i = 0; i < words.length; i++) words[i] = i;
  const memory = (): number => {
    let x = 88172645;
    let sum = 0;
    for (let i = 0; i < PROBE_MEMORY_READS; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      sum += words[(x >>> 0) & (PROBE_MEMORY_WORDS - 1)]!;
    }
    return sum;
  };
  alu();
  memory();
  const a: number[] = [];
  const m: number[] = [];
  for (let i = 0; i < PROBE_RUNS; i++) {
    const [ta, ra] = cpuMs(alu);
    const [tm, rm] = cpuMs(memory);
    a.push(ta);
    m.push(tm);
    probeSink ^= ra ^ rm;
  }
  // Fresh memory: each array new from the kernel, one word written a page, so the loop is the page faults.
  // Every array is kept until the end, so none comes back to the allocator to be handed out again.
  const kept: Int32Array[] = [];
  const f: number[] = [];
  for (let i = 0; i < PROBE_FRESH_RUNS; i++) {
    const [tf, rf] = cpuMs(() => {
      const fresh = new Int32Array(PROBE_FRESH_WORDS);
      for (let w = 0; w < fresh.length; w += PAGE_WORDS) fresh[w] = w;
      kept.push(fresh);
      return fresh[PAGE_WORDS]!;
    });
    f.push((tf * 1000) / (PROBE_FRESH_WORDS / PAGE_WORDS));
    probeSink ^= rf;
  }
  kept.length = 0;
  const sa = stat(a);
  const sm = stat(m);
  const sf = stat(f);
  const r1 = (x: number) => Math.round(x * 10) / 10;
  const r2 = (x: number) => Math.round(x * 100) / 100;
  return {
    alu_ms: r1(sa.median),
    alu_min_ms: r1(sa.min),
    memory_ms: r1(sm.median),
    memory_min_ms: r1(sm.min),
    fresh_page_us: r2(sf.median),
    fresh_page_min_us: r2(sf.min),
  };
}

/**
 * speedProbe in a fresh Node.js process (this module, compiled, in dist/): a long bench's own heap and
 * page mappings do not colour the figure (the memory loop ran 3× slower at the end of a bench's process
 * than in a fresh one). Undefined when the child fails.
 */
export function speedProbeInChild(): SpeedProbe | undefined {
  const here = import.meta.url;
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { speedProbe } from ${JSON.stringify(here)}; process.stdout.write(JSON.stringify(speedProbe()));`,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) return undefined;
  try {
    return JSON.parse(r.stdout) as SpeedProbe;
  } catch {
    return undefined;
  }
}

/** What parallelCapacity measured: how many threads' worth of work the machine did at once. */
export interface ParallelProbe {
  /** Threads run at once. */
  threads: number;
  /** threads × (one thread's wall time ÷ the threads' wall time), median of the rounds: `threads` on idle cores, 1 when they share one. */
  capacity: number;
  /** Each round's figure. */
  rounds: number[];
}

/** Steps of the xorshift loop each thread of parallelCapacity runs: about 0.1 s on one idle core here. */
const PARALLEL_STEPS = 1 << 25;

/**
 * How many cores the machine gives this process now: the same fixed loop (xorshift steps, in registers)
 * on one worker thread, then on `threads` at once, in turn `rounds` times; each round's capacity is
 * threads × t(1) ÷ t(threads), wall time. A sweep's speed-up with two workers reads against this: on
 * cores shared with other work, two threads may get little more than one.
 */
export async function parallelCapacity(threads: number, rounds = 3, steps = PARALLEL_STEPS): Promise<ParallelProbe> {
  const { Worker } = await import('node:worker_threads');
  const code = `const { parentPort, workerData } = require('node:worker_threads');
let x = 2463534242;
for (let i = 0; i < workerData; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; }
parentPort.postMessage(x);`;
  const wave = async (n: number): Promise<number> => {
    // Every thread started and ready before the clock starts is not possible without a barrier; the
    // loop is long enough (≥ 0.1 s) that the threads' start-up (a few ms) hardly counts.
    const t0 = performance.now();
    await Promise.all(
      Array.from(
        { length: n },
        () =>
          new Promise<void>((resolve, reject) => {
            const w = new Worker(code, { eval: true, workerData: steps, execArgv: [] });
            w.once('message', () => resolve());
            w.once('error', reject);
          }),
      ),
    );
    return performance.now() - t0;
  };
  await wave(1); // warm-up
  const r: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const one = await wave(1);
    const many = await wave(threads);
    r.push((threads * one) / many);
  }
  const round2 = (x: number) => Math.round(x * 100) / 100;
  return { threads, capacity: round2(stat(r).median), rounds: r.map(round2) };
}

/** parallelCapacity in a fresh Node.js process (as speedProbeInChild); undefined when the child fails. */
export function parallelCapacityInChild(threads: number): ParallelProbe | undefined {
  const here = import.meta.url;
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { parallelCapacity } from ${JSON.stringify(here)}; process.stdout.write(JSON.stringify(await parallelCapacity(${threads})));`,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) return undefined;
  try {
    return JSON.parse(r.stdout) as ParallelProbe;
  } catch {
    return undefined;
  }
}

function probeText(p: SpeedProbe | undefined): string {
  return p
    ? `; speed probe ${p.alu_ms} ms arithmetic, ${p.memory_ms} ms memory (CPU, median of ${PROBE_RUNS} in a fresh process; lower is faster), ${p.fresh_page_us} µs a 4 kB page of fresh memory first written (median of ${PROBE_FRESH_RUNS})`
    : '';
}

export function machineInfo(): MachineInfo {
  return {
    cores: availableParallelism(),
    loadavg: loadavg().map((x) => Math.round(x * 100) / 100),
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    memory_bytes: totalmem(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    inlining: describeInlining(),
  };
}

/** The machine line printed first (and the load average again at the end). */
export function machineLine(m: MachineInfo, when: 'start' | 'end'): BenchLine {
  const load = `load average ${m.loadavg.map((x) => x.toFixed(2)).join(' / ')} (1 / 5 / 15 min, os.loadavg)`;
  if (when === 'end') return { name: 'machine at the end', value: m.cores, unit: 'cores', note: `${load}${probeText(m.probe)}` };
  return {
    name: 'machine',
    value: m.cores,
    unit: 'cores',
    note: `os.availableParallelism; ${load}; ${m.cpu}, ${(m.memory_bytes / 1024 ** 3).toFixed(0)} GiB, Node.js ${m.node}, ${m.platform}, ${m.inlining}${probeText(m.probe)}`,
  };
}

export interface BenchReport {
  /** ISO date and time the bench started. */
  started: string;
  /** `git describe --always --dirty` of the checkout, when git can tell. */
  commit: string | null;
  argv: string[];
  machine: MachineInfo;
  machine_at_end: MachineInfo;
  lines: (BenchLine & { suite: string })[];
}

/** The --json document: every line with its suite, value, unit, note and, where timed, its runs. */
export function benchJson(report: BenchReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
