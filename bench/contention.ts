/**
 * Contention benchmarks, timed with the bench's harness (CPU and wall, median and minimum of the runs
 * after a warm-up):
 *
 * - the repairman model M/M/N//U (bench/repairman.ts) on one core: simulated events per CPU-second,
 *   and simulated transactions per wall-second beside the same model in SimPy (bench/simpy.ts finds
 *   a Python that has it; without one the line says so) and the ratio;
 * - the simulation core on two xoltp-80-engines points (latched 5000 users, lockless 4000 users);
 * - (suite contention-runs) the wall time of the shipped xoltp-80-engines and xoltp-phase-diagram runs
 *   on 2 workers.
 *
 * Each counted run of a model uses the same seed, so it simulates the same events: a rate is that count
 * over the run's time.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { parseContention, type BufferManagerKind, type ContentionSpec } from '../src/contention/schema.js';
import { runReplication } from '../src/contention/task.js';
import { runContention } from '../src/run/contention-pool.js';
import { measure, measureEach, rateLine, sig3, timingNote, type BenchLine, type Measurement } from './harness.js';
import { REPAIRMAN, repairmanSpec } from './repairman.js';
import { findSimpy, noSimpyNote, runSimpy, type SimpyRun } from './simpy.js';
import type { SuiteContext } from './suite.js';
import { groupedNumber } from '../src/util/numbers.js';
import { simConfig } from './paths.js';

function loadConfig(name: string): { seed: number; spec: ContentionSpec } {
  const doc = parse(readFileSync(simConfig(name), 'utf8')) as { seed: number; contention: unknown };
  return { seed: doc.seed, spec: parseContention(doc.contention) };
}

function runPointOnce(spec: ContentionSpec, bm: BufferManagerKind, users: number, seed: number) {
  return runReplication({ spec, buffer_manager: bm, engines: spec.engines[0]!, users, seed });
}

/** The aim for the simulation core, events per CPU-second on one core. */
const EVENTS_TARGET = 10e6;
/** Simulated seconds of the repairman's window in rowsim and in SimPy (each after 0.1 s of warm-up). */
const REPAIRMAN_MS = 2000;
const SIMPY_S = 0.5;

/** Transactions over the whole simulated time (warm-up included), from the window's throughput. */
const allTransactions = (tps: number, simulatedS: number) => tps * simulatedS;

export async function* benchContention(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  const rowsim = yield* repairmanInRowsim(ctx);
  yield* repairmanInSimpy(ctx, rowsim);
  yield* simulationCore(ctx);
}

/** The repairman model in rowsim, one core: events per CPU-second, transactions per wall-second. */
async function* repairmanInRowsim(ctx: SuiteContext): AsyncGenerator<BenchLine, { tx: number; perWall: number; rep: Measurement }> {
  const spec = repairmanSpec(REPAIRMAN_MS);
  const simulatedS = (spec.warmup_ns + spec.duration_ns) / 1e9;
  let events = 0;
  let tps = 0;
  const rep = await measure(
    (run) => {
      const r = runPointOnce(run < 0 ? repairmanSpec(200) : spec, 'lockless', REPAIRMAN.users, 1);
      if (run >= 0) {
        events = r.events;
        tps = r.throughput_tps;
      }
    },
    { runs: ctx.runs, warmup: 1 },
  );
  const model = `M/M/${REPAIRMAN.engines}//${REPAIRMAN.users}`;
  const ev = rateLine(
    `contention: repairman model ${model} in rowsim, one core`,
    events,
    'events',
    rep,
    `target ≥ ${groupedNumber(EVENTS_TARGET)}; ${sig3(events / 1e6)}M events, ${REPAIRMAN_MS / 1000} s simulated after 0.1 s of warm-up`,
  );
  yield ev;
  const rowsimTx = allTransactions(tps, simulatedS);
  const rowsimPerWall = rowsimTx / rep.wall.median;
  yield {
    name: 'contention: repairman model in rowsim, simulated transactions per wall-second',
    value: sig3(rowsimPerWall),
    unit: 'transactions/wall-s',
    note: `${groupedNumber(Math.round(rowsimTx))} transactions (${groupedNumber(Math.round(tps))} tps over ${simulatedS} s simulated, warm-up included); ${groupedNumber(sig3(rowsimTx / rep.cpu!.median))} per CPU-s; ${timingNote(rep)}`,
    measurement: rep,
  };
  return { tx: rowsimTx, perWall: rowsimPerWall, rep };
}

/** The same model in SimPy, and rowsim's figures over SimPy's (none when no Python has SimPy). */
async function* repairmanInSimpy(ctx: SuiteContext, rowsim: { tx: number; perWall: number; rep: Measurement }): AsyncGenerator<BenchLine> {
  const { tx: rowsimTx, perWall: rowsimPerWall, rep } = rowsim;
  const probe = findSimpy();
  if (!probe.found) {
    yield {
      name: 'contention: repairman model in SimPy, simulated transactions per wall-second',
      value: null,
      unit: 'transactions/wall-s',
      note: noSimpyNote(probe),
    };
    yield {
      name: 'contention: repairman model, rowsim ÷ SimPy, transactions per wall-second',
      value: null,
      unit: '×',
      note: 'SimPy not found (above)',
    };
  } else {
    const py = probe.found;
    let last: SimpyRun | undefined;
    const m = await measureEach(
      () => {
        last = runSimpy(py.path, SIMPY_S);
        return { run: last.sample };
      },
      { runs: ctx.runs, warmup: 1 },
    );
    const sp = m.run;
    const simpyTx = allTransactions(last!.throughput_tps, last!.simulated_s + last!.warmup_s);
    const simpyPerWall = simpyTx / sp.wall.median;
    const tried = probe.tried.length ? `; before it: ${probe.tried.map((t) => `${t.path}: ${t.why}`).join('; ')}` : '';
    yield {
      name: `contention: repairman model in SimPy ${py.simpy} (${py.path}, Python ${py.python}), simulated transactions per wall-second`,
      value: sig3(simpyPerWall),
      unit: 'transactions/wall-s',
      note: `bench/simpy_repairman.py ${SIMPY_S}: ${groupedNumber(Math.round(simpyTx))} transactions over ${last!.simulated_s + last!.warmup_s} s simulated; ${groupedNumber(sig3(simpyTx / sp.cpu!.median))} per CPU-s; the model's run as the script times it, without the interpreter's start-up; ${timingNote(sp)}${tried}`,
      measurement: sp,
    };
    yield {
      name: 'contention: repairman model, rowsim ÷ SimPy, transactions per wall-second',
      value: Number((rowsimPerWall / simpyPerWall).toFixed(1)),
      unit: '×',
      note: `per CPU-second: ${(rowsimTx / rep.cpu!.median / (simpyTx / sp.cpu!.median)).toFixed(1)}×; both measured in this run, medians`,
      detail: { rowsim_per_wall_s: rowsimPerWall, simpy_per_wall_s: simpyPerWall },
    };
  }
}

/** The simulation core on two xoltp-80-engines points, one core. */
async function* simulationCore(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  const { spec: xoltp } = loadConfig('xoltp-80-engines.yaml');
  const short: ContentionSpec = {
    ...xoltp,
    duration_ns: 400e6,
    warmup_ns: 100e6,
    stationarity: { ...xoltp.stationarity, max_extensions: 0 },
  };
  for (const [bm, users] of [
    ['latched', 5000],
    ['lockless', 4000],
  ] as const) {
    let n = 0;
    const m = await measure(
      (run) => {
        const r = runPointOnce(run < 0 ? { ...short, duration_ns: 50e6, warmup_ns: 0 } : short, bm, users, 1);
        if (run >= 0) n = r.events;
      },
      { runs: ctx.runs, warmup: 1 },
    );
    yield rateLine(
      `contention: simulation core, xoltp-80-engines ${bm} @ ${users} users, one core`,
      n,
      'events',
      m,
      `${sig3(n / 1e6)}M events, 0.5 s simulated`,
    );
  }
}

/**
 * The shipped contention runs as `rowsim run` runs them, on 2 workers: wall time (and the CPU of all
 * threads). No warm-up: each run starts its own pool, which a warm-up run would not warm. Minutes on a
 * shared machine, so not run by default: `npm run bench -- contention-runs`.
 */
export async function* benchContentionRuns(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  for (const [name, aim, cpuAim] of [
    ['xoltp-80-engines.yaml', 60, null],
    ['xoltp-phase-diagram.yaml', 120, 30],
  ] as const) {
    const cfg = loadConfig(name);
    let events = 0;
    let points = 0;
    const m = await measure(
      async () => {
        const results = await runContention(cfg.spec, cfg.seed, { workers: 2 });
        const entries = results.sweep ? results.sweep.cells.flatMap((c) => c.entries) : results.entries;
        events = entries.reduce((a, r) => a + r.points.reduce((b, p) => b + p.events, 0), 0);
        points = entries.reduce((a, r) => a + r.points.length, 0);
      },
      { runs: ctx.runs, warmup: 0 },
    );
    yield {
      name: `contention: ${name.replace('.yaml', '')} run, 2 workers`,
      value: sig3(m.wall.median),
      unit: 's wall',
      note: `aim < ${aim} s; ${points} points × ${cfg.spec.replications} replications, ${sig3(events / 1e6)}M events; CPU of all threads ${sig3(m.cpu!.median)} s${cpuAim === null ? '' : ` (aim ≤ ${cpuAim} s)`}, ${sig3(events / m.cpu!.median / 1e6)}M events a CPU-second; ${timingNote(m)}`,
      measurement: m,
    };
    if (cpuAim === null) continue;
    yield {
      name: `contention: ${name.replace('.yaml', '')} run, CPU of all threads`,
      value: sig3(m.cpu!.median),
      unit: 's CPU',
      note: `aim ≤ ${cpuAim} s; median of ${m.runs} run${m.runs > 1 ? 's' : ''}`,
    };
    yield {
      name: `contention: ${name.replace('.yaml', '')} run, DES events per CPU-second (all threads)`,
      value: sig3(events / m.cpu!.median),
      unit: 'events/CPU-s',
      note: `target ≥ ${groupedNumber(EVENTS_TARGET)}; ${sig3(events / 1e6)}M events (a hold or a pin merged with the segment after it counts as its own event)`,
    };
  }
}
