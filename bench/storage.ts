/**
 * The storage suite: for every format of the registry, on one core, a 1,000,000-row table of three
 * columns whose varchar grows: the insert phase, the growing update of every row in random order and, in
 * a second workload, in sequential order, each workload in a fresh child process that runs it
 * STORAGE_WARMUP + runs times (measureFormat). Each phase is timed between the runner's onPhase edges
 * (its row operations only, not the index build or the metrics), CPU and wall, the median and the
 * minimum of the counted runs, the first run's figure beside them. Each line shows the issue's target
 * and how far the fastest format is ahead of it. The select and TOAST lines run in this process after
 * one warm-up. What the code does is measured: no figure is written here.
 */
import type { StorageSpec } from '../src/config/spec.js';
import type { FormatId } from '../src/config/format-ids.js';
import { parseType } from '../src/config/column-types.js';
import { defaultEngineSpec, FORMAT_IDS } from '../src/formats/registry.js';
import { loadConfig } from '../src/loader/config.js';
import { runStorage, type StorageRunResult } from '../src/workload/runner.js';
import {
  measureEach,
  PhaseClock,
  rateLine,
  seconds,
  sig3,
  startClock,
  summarize,
  type BenchLine,
  type Measurement,
  type Sample,
} from './harness.js';
import { Permutation } from '../src/workload/permutation.js';
import { Prng } from '../src/util/prng.js';
import { runChild } from './run-child.js';
import type { BenchOrder } from './child-report.js';
import type { SuiteContext } from './suite.js';
import { groupedNumber } from '../src/util/numbers.js';
import { latencyLine, limitNote } from './latency.js';

export type { BenchLine } from './harness.js';

export type { BenchOrder } from './child-report.js';

/**
 * The bench's table and workload as a config (the one definition: `rowsim run` reads the same text):
 * `rows` inserts of a short varchar, then every row's varchar grown by 20–150 bytes.
 */
export function storageBenchConfig(rows: number, format: FormatId = 'ase-dol', order: BenchOrder = 'random'): string {
  return `name: bench
seed: 1
table:
  name: bench
  columns:
    - { name: id, type: int }
    - { name: status, type: char(8) }
    - { name: body, type: varchar(300), null: true }
  indexes: [ { name: bench_pk, columns: [id], unique: true } ]
engine: { format: ${format}, exp_row_size: 100, fillfactor: 90 }
workload:
  - insert: { rows: ${rows}, values: { body: { null: 0, length: { uniform: [0, 40] } } } }
  - update: { rows: all, order: ${order}, set: { body: { grow: { uniform: [20, 150] } } } }
`;
}

/** The config's name in messages about it (a refusal by the memory limits). */
export const BENCH_CONFIG_FILE = '(npm run bench)';

export function storageBenchSpec(rows: number, format: FormatId = 'ase-dol', order: BenchOrder = 'random'): StorageSpec {
  return loadConfig(BENCH_CONFIG_FILE, storageBenchConfig(rows, format, order)).storage[0]!.spec;
}

/** The issue's targets for the storage engines, rows per CPU-second on one core. */
export const STORAGE_TARGETS = { insert: 20e6, random: 8e6, sequential: 20e6, ratioToFastest: 1.5 } as const;

const ROWS = 1_000_000;

export interface FormatFigures {
  format: FormatId;
  insert: Measurement;
  random: Measurement;
  sequential: Measurement;
  /** Each order's first run in its fresh process: insert (random's child) and update phases. */
  first: { insert: Sample; random: Sample; sequential: Sample };
  outcome: Record<BenchOrder, string>;
}

/**
 * Runs of the workload in one child process before the counted ones. In one process the phases of the
 * first runs cost up to 5 times those of later ones: the code is not optimised yet, and the engine's
 * arrays are memory new from the kernel, whose first write costs a page fault a 4 kB page (the speed
 * probe's third figure: 11–15 µs on this virtual machine). From the fifth run on most phases cost the
 * same to a few percent, run after run and process after process (a few still move by a fifth or more),
 * where runs 2–4 moved by half. By then most of the arrays are memory the allocator already holds
 * (docs/performance.md, "What warm means").
 */
export const STORAGE_WARMUP = 4;

/**
 * Node.js options of the storage suite's children: the garbage collector's work on the main thread, not
 * on helper threads beside it. A line is one core's rate; with the helpers a phase's process CPU time
 * ran past its wall time (ase-dol's sequential updates 73 ms of CPU in 52.6 ms) and moved from one child
 * to the next by half as the helpers happened to run or not (ase-dol random 67–107 ms of CPU, three
 * children); with this option 71–78 ms, CPU and wall time the same.
 */
export const STORAGE_NODE_ARGS: readonly string[] = ['--single-threaded-gc'];

/**
 * One format's figures: each order in a fresh child process (bench/child.ts, STORAGE_NODE_ARGS), the workload run
 * STORAGE_WARMUP + `runs` times one after the other; the counted runs are the last `runs`, and the first
 * run is kept beside them (what one `rowsim run` of the table pays). A fresh process for each, so that a
 * line does not depend on which suites and formats ran before it in the bench's own process. The reason,
 * as a string, when a child fails.
 */
export function measureFormat(format: FormatId, runs: number, timeoutS: number, rows = ROWS): FormatFigures | string {
  const out: Partial<FormatFigures> = { format, outcome: { random: '', sequential: '' } };
  const first: Partial<FormatFigures['first']> = {};
  for (const order of ['random', 'sequential'] as const) {
    const { outcome } = runChild({ rows, format, order, checkLimits: false, repeat: STORAGE_WARMUP + runs }, timeoutS, STORAGE_NODE_ARGS);
    if (outcome.kind !== 'report') return `the ${order} child ${outcome.kind === 'refused' ? 'was refused' : 'failed'}: ${outcome.message}`;
    const r = outcome.report;
    const all = r.runs ?? [r.phases];
    const counted = all.slice(-runs);
    const opts = { runs: counted.length, warmup: all.length - counted.length };
    if (order === 'random') {
      out.insert = summarize(
        counted.map((p) => p[0]!),
        opts,
      );
      first.insert = all[0]![0]!;
    }
    out[order] = summarize(
      counted.map((p) => p[1]!),
      opts,
    );
    first[order] = all[0]![1]!;
    out.outcome![order] = r.outcome;
  }
  out.first = first as FormatFigures['first'];
  return out as FormatFigures;
}

const KINDS = [
  ['insert', 'inserts (the 1M-row insert phase)', 'rows'],
  ['random', 'random-order growing updates (1M, order: random)', 'updates'],
  ['sequential', 'sequential growing updates (1M, order: sequential)', 'updates'],
] as const;

/** The reads issue's target: a select of every row of a 1M-row table by index, rows per CPU-second on one core. */
export const SELECT_TARGET = 5e6;

/** The bench table loaded, then every row selected through its primary key, in `order`. */
function selectSpec(format: FormatId, order: BenchOrder): StorageSpec {
  const spec = storageBenchSpec(ROWS, format, order);
  spec.workload = [
    spec.workload[0]!,
    { op: 'select', rows: { kind: 'all' }, order: { kind: order }, via: 'index', index: 'bench_pk', repeat: 1 },
  ];
  return spec;
}

async function* benchSelect(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  for (const format of FORMAT_IDS) {
    for (const order of ['random', 'sequential'] as const) {
      const spec = selectSpec(format, order);
      let reads = 0;
      const m = await measureEach(
        () => {
          const clock = new PhaseClock();
          const r = runStorage(spec, { onPhase: clock.onPhase });
          reads = r.phases[1]!.reads!.logical_reads;
          return { select: clock.phase(1) };
        },
        { runs: ctx.runs, warmup: 1 },
      );
      const rate = ROWS / m.select.cpu!.median;
      const note = `target ≥ ${groupedNumber(SELECT_TARGET)}: ${rate >= SELECT_TARGET ? 'met' : `not met, ${sig3(rate / SELECT_TARGET)}× of it`}; ${groupedNumber(reads)} page reads`;
      const line = rateLine(
        `storage: ${format} select of every row by index (1M, order: ${order}), one core`,
        ROWS,
        'rows',
        m.select,
        note,
      );
      line.detail = { format, phase: 'select', order, rows: ROWS, target: SELECT_TARGET };
      yield line;
    }
  }
}

/** Rows of the TOAST line: documents big enough that every row goes through the toaster. */
const TOAST_ROWS = 200_000;

/**
 * postgres-heap with TOAST: documents of 1–6 kB of text at compressibility 0.6 (pglz keeps about half),
 * so every row over 2 kB goes through the toaster's passes and the biggest bodies out of line in
 * 1,996-byte chunks; then every row gets a new body (the old chunks deleted).
 */
export function toastBenchSpec(rows: number): StorageSpec {
  return {
    name: 'bench-toast',
    seed: 1,
    table: {
      name: 'bench_toast',
      columns: [
        { name: 'id', type: parseType('int'), nullable: false },
        { name: 'title', type: parseType('varchar(120)'), nullable: false },
        { name: 'body', type: parseType('text'), nullable: false },
      ],
      indexes: [{ name: 'bench_toast_pk', columns: ['id'], unique: true, clustered: false }],
    },
    engine: defaultEngineSpec('postgres-heap', {}),
    workload: [
      {
        op: 'insert',
        rows: { kind: 'count', n: rows },
        values: {
          title: { null: 0, length: { kind: 'uniform', min: 20, max: 120 } },
          body: { null: 0, length: { kind: 'uniform', min: 1000, max: 6000 }, compressibility: 0.6 },
        },
      },
      {
        op: 'update',
        rows: { kind: 'all' },
        order: { kind: 'random' },
        transaction: 'statement',
        set: { body: { kind: 'length', dist: { kind: 'uniform', min: 1000, max: 6000 }, compressibility: 0.6 } },
      },
    ],
  };
}

/** The TOAST workload's inserts and updates, each phase timed between the runner's onPhase edges; and its memory a row. */
async function* benchToast(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  const spec = toastBenchSpec(TOAST_ROWS);
  let last: StorageRunResult | undefined;
  const m = await measureEach(
    () => {
      const clock = new PhaseClock();
      last = runStorage(spec, { onPhase: clock.onPhase });
      return { insert: clock.phase(0), update: clock.phase(1) };
    },
    { runs: ctx.runs, warmup: 1 },
  );
  const f = last!.final;
  const what = `${groupedNumber(f.pages)} heap pages, ${groupedNumber(f.toast_pages ?? 0)} TOAST pages, ${groupedNumber(f.toast_values ?? 0)} values out of line, ${groupedNumber(f.compressed_values ?? 0)} compressed`;
  yield rateLine(
    'storage: postgres-heap with TOAST, inserts of 1–6 kB text at compressibility 0.6 (200k, pglz), one core',
    TOAST_ROWS,
    'rows',
    m.insert!,
    what,
  );
  yield rateLine(
    'storage: postgres-heap with TOAST, every row given a new body (200k, order: random), one core',
    TOAST_ROWS,
    'updates',
    m.update!,
    what,
  );
  yield {
    name: 'storage: postgres-heap with TOAST, simulator memory per row',
    value: Math.round((last!.memory_bytes / TOAST_ROWS) * 10) / 10,
    unit: 'bytes/row',
    note: "the engine, the row store, each row's values as stored and the TOAST heap of chunks (the engine's own count)",
  };
}

/** Positions of the random-order line: the id space of a 1e7-row table (2^24 > 1e7: two of five images walked on). */
const PERMUTATION_IDS = 10_000_000;

/**
 * The random order's rows (workload/permutation.ts) at 1e7 ids, the way the row picker takes them (fill(),
 * batches of 256) beside one position at a time (at()), in the same runs: the same rows either way.
 */
async function* benchPermutation(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  const perm = new Permutation(PERMUTATION_IDS, Prng.derive(1, 'bench', 'permutation'));
  const out = new Int32Array(256);
  let sum = 0;
  const m = await measureEach(
    () => {
      let stop = startClock();
      for (let i = 0; i < PERMUTATION_IDS; i += out.length) {
        const count = Math.min(out.length, PERMUTATION_IDS - i);
        perm.fill(out, i, count);
        sum += out[0]!;
      }
      const fill = stop();
      stop = startClock();
      for (let i = 0; i < PERMUTATION_IDS; i += out.length) {
        const count = Math.min(out.length, PERMUTATION_IDS - i);
        for (let j = 0; j < count; j++) out[j] = perm.at(i + j);
        sum -= out[0]!;
      }
      return { fill, at: stop() };
    },
    { runs: ctx.runs, warmup: 1 },
  );
  if (sum !== 0) throw new Error('permutation bench: fill() and at() gave different rows');
  const ns = (x: Measurement) => sig3(((x.cpu ?? x.wall).median * 1e9) / PERMUTATION_IDS);
  yield rateLine(
    'storage: random row order, 1e7 ids, batches of 256 (Permutation.fill), one core',
    PERMUTATION_IDS,
    'rows',
    m.fill,
    `${ns(m.fill)} ns a row against ${ns(m.at)} one at a time (Permutation.at, the same runs; ${sig3((m.at.cpu ?? m.at.wall).median / (m.fill.cpu ?? m.fill.wall).median)}×)`,
  );
}

export async function* benchStorage(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  yield* benchPermutation(ctx);
  yield* benchSelect(ctx);
  yield* benchToast(ctx);
  const all: FormatFigures[] = [];
  for (const format of FORMAT_IDS) {
    const f = measureFormat(format, ctx.runs, ctx.timeoutS);
    if (typeof f === 'string') {
      for (const [, what, unit] of KINDS)
        yield { name: `storage: ${format} ${what}, one core`, value: null, unit: `${unit}/CPU-s`, note: f };
      continue;
    }
    all.push(f);
  }
  if (all.length === 0) return;
  // The machine's memory latency, measured after the children (nothing else of this process runs beside it).
  const probe = latencyLine(ctx);
  yield probe.line;
  for (const [kind, what, unit] of KINDS) {
    const rate = (f: FormatFigures) => ROWS / f[kind].cpu!.median;
    const fastest = all.reduce((a, b) => (rate(b) > rate(a) ? b : a));
    const target = STORAGE_TARGETS[kind];
    for (const f of all) {
      const r = rate(f);
      const behind = rate(fastest) / r;
      const firstCpu = f.first[kind].cpu!;
      const note = [
        `target ≥ ${groupedNumber(target)}: ${r >= target ? 'met' : `not met, ${sig3(r / target)}× of it`}`,
        f === fastest
          ? 'the fastest format'
          : `the fastest (${fastest.format}) ÷ this: ${behind.toFixed(2)}× (target ≤ ${STORAGE_TARGETS.ratioToFastest}×${behind <= STORAGE_TARGETS.ratioToFastest ? ', met' : ', not met'})`,
        ...(kind === 'insert' ? [] : [f.outcome[kind]]),
        limitNote(r, probe.ns),
        `the first run in its fresh process ${groupedNumber(sig3(ROWS / firstCpu))} (CPU ${seconds(firstCpu)})`,
      ].join('; ');
      const line = rateLine(`storage: ${f.format} ${what}, one core`, ROWS, unit, f[kind], note);
      line.detail = {
        format: f.format,
        phase: kind,
        rows: ROWS,
        target,
        ratio_fastest_to_this: Number(behind.toFixed(3)),
        fastest: fastest.format,
        first_run: f.first[kind],
        probe_ns_per_load: probe.ns,
        ops_per_probe_load: Number(sig3((r * probe.ns) / 1e9)),
      };
      yield line;
    }
  }
}
