/**
 * The storage suite: for every format of the registry, on one core (this thread), a 1,000,000-row table
 * of three columns whose varchar grows: the insert phase, the growing update of every row in random
 * order and, in a second workload, in sequential order. Each phase is timed between the runner's
 * onPhase edges (its row operations only, not the index build or the metrics), CPU and wall, the median
 * and the minimum of the counted runs after a warm-up run. Each line shows the issue's target and how
 * far the fastest format is ahead of it. What the code does is measured: no figure is written here.
 */
import type { StorageSpec } from '../config/spec.js';
import type { FormatId } from '../config/format-ids.js';
import { FORMAT_IDS, getFormat } from '../formats/registry.js';
import { metric } from '../heap/metrics.js';
import { loadConfig } from '../loader/config.js';
import { runStorage, type StorageRunResult } from '../workload/runner.js';
import { measureEach, PhaseClock, rateLine, sig3, type BenchLine, type Measurement } from './harness.js';
import type { SuiteContext } from './suite.js';

export type { BenchLine } from './harness.js';

export type BenchOrder = 'random' | 'sequential';

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

/** One run of the workload, its phases timed. */
function timedRun(spec: StorageSpec): { insert: ReturnType<PhaseClock['phase']>; update: ReturnType<PhaseClock['phase']>; result: StorageRunResult } {
  const clock = new PhaseClock();
  const result = runStorage(spec, { onPhase: clock.onPhase });
  return { insert: clock.phase(0), update: clock.phase(1), result };
}

interface FormatFigures {
  format: FormatId;
  insert: Measurement;
  random: Measurement;
  sequential: Measurement;
  outcome: Record<BenchOrder, string>;
}

function outcome(format: FormatId, r: StorageRunResult): string {
  const moved = getFormat(format).movedRows;
  return `${metric(r.final, moved.metric).toLocaleString('en-US')} ${moved.word} rows, ${r.final.pages.toLocaleString('en-US')} pages`;
}

async function measureFormat(format: FormatId, runs: number): Promise<FormatFigures> {
  const out: Partial<FormatFigures> = { format, outcome: { random: '', sequential: '' } };
  for (const order of ['random', 'sequential'] as const) {
    const spec = storageBenchSpec(ROWS, format, order);
    let last: StorageRunResult | undefined;
    const m = await measureEach(() => {
      const r = timedRun(spec);
      last = r.result;
      return { insert: r.insert, update: r.update };
    }, { runs, warmup: 1 });
    if (order === 'random') out.insert = m.insert;
    out[order] = m.update;
    out.outcome![order] = outcome(format, last!);
  }
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
  spec.workload = [spec.workload[0]!, { op: 'select', rows: { kind: 'all' }, order: { kind: order }, via: 'index', index: 'bench_pk', repeat: 1 }];
  return spec;
}

async function* benchSelect(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  for (const format of FORMAT_IDS) {
    for (const order of ['random', 'sequential'] as const) {
      const spec = selectSpec(format, order);
      let reads = 0;
      const m = await measureEach(() => {
        const clock = new PhaseClock();
        const r = runStorage(spec, { onPhase: clock.onPhase });
        reads = r.phases[1]!.reads!.logical_reads;
        return { select: clock.phase(1) };
      }, { runs: ctx.runs, warmup: 1 });
      const rate = ROWS / m.select.cpu!.median;
      const note = `target ≥ ${SELECT_TARGET.toLocaleString('en-US')}: ${rate >= SELECT_TARGET ? 'met' : `not met, ${sig3(rate / SELECT_TARGET)}× of it`}; ${reads.toLocaleString('en-US')} page reads`;
      const line = rateLine(`storage: ${format} select of every row by index (1M, order: ${order}), one core`, ROWS, 'rows', m.select, note);
      line.detail = { format, phase: 'select', order, rows: ROWS, target: SELECT_TARGET };
      yield line;
    }
  }
}

export async function* benchStorage(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  yield* benchSelect(ctx);
  const all: FormatFigures[] = [];
  for (const format of FORMAT_IDS) all.push(await measureFormat(format, ctx.runs));
  for (const [kind, what, unit] of KINDS) {
    const rate = (f: FormatFigures) => ROWS / f[kind].cpu!.median;
    const fastest = all.reduce((a, b) => (rate(b) > rate(a) ? b : a));
    const target = STORAGE_TARGETS[kind];
    for (const f of all) {
      const r = rate(f);
      const behind = rate(fastest) / r;
      const note = [
        `target ≥ ${target.toLocaleString('en-US')}: ${r >= target ? 'met' : `not met, ${sig3(r / target)}× of it`}`,
        f === fastest ? 'the fastest format' : `the fastest (${fastest.format}) ÷ this: ${behind.toFixed(2)}× (target ≤ ${STORAGE_TARGETS.ratioToFastest}×${behind <= STORAGE_TARGETS.ratioToFastest ? ', met' : ', not met'})`,
        ...(kind === 'insert' ? [] : [f.outcome[kind]]),
      ].join('; ');
      const line = rateLine(`storage: ${f.format} ${what}, one core`, ROWS, unit, f[kind], note);
      line.detail = { format: f.format, phase: kind, rows: ROWS, target, ratio_fastest_to_this: Number(behind.toFixed(3)), fastest: fastest.format };
      yield line;
    }
  }
}
