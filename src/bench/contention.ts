/**
 * Contention benchmarks. Speed is measured as CPU time of this thread (process.cpuUsage, not wall
 * time: the 2 development cores are shared), the median of several runs after a JIT warm-up:
 *
 * - the repairman model M/M/N//U (src/bench/repairman.ts) on one core: simulated events and
 *   transactions per second, side by side with the same model in SimPy when `python3` with SimPy is
 *   installed (Debian: python3-simpy3), else the figure docs/contention.md records;
 * - the simulation core on two xoltp-80-engines points (latched 5000 users, lockless 4000 users);
 * - the wall time of the shipped xoltp-80-engines and xoltp-phase-diagram runs on the worker pool.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { parseContention, type BufferManagerKind, type ContentionSpec } from '../contention/schema.js';
import { runReplication } from '../contention/task.js';
import { runContention } from '../contention/run.js';
import { median } from '../contention/stats.js';
import { REPAIRMAN, repairmanSpec } from './repairman.js';
import type { BenchLine } from './storage.js';

const here = dirname(fileURLToPath(import.meta.url));

function loadConfig(name: string): { seed: number; spec: ContentionSpec } {
  const doc = parse(readFileSync(resolve(here, '../../sim-configs', name), 'utf8')) as { seed: number; contention: unknown };
  return { seed: doc.seed, spec: parseContention(doc.contention) };
}

/** CPU seconds of this process (user + system) while `f` runs. */
function cpuTimed<T>(f: () => T): { value: T; cpu: number; wall: number } {
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  const value = f();
  const c = process.cpuUsage(c0);
  return { value, cpu: (c.user + c.system) / 1e6, wall: (performance.now() - w0) / 1000 };
}

const round3 = (x: number): number => Number(x.toPrecision(3));

function runPointOnce(spec: ContentionSpec, bm: BufferManagerKind, users: number, seed: number) {
  return runReplication({ spec, buffer_manager: bm, engines: spec.engines[0]!, users, seed });
}

/** The repairman model: events and transactions per CPU-second, median of `runs`. */
function benchRepairman(runs = 5, durationMs = 2000): { eventsPerSec: number; txPerSec: number; samples: number[]; events: number; transactions: number } {
  const spec = repairmanSpec(durationMs);
  runPointOnce(repairmanSpec(200), 'lockless', REPAIRMAN.users, 1); // JIT warm-up
  const samples: number[] = [];
  const tx: number[] = [];
  let events = 0;
  let transactions = 0;
  for (let i = 0; i < runs; i++) {
    const r = cpuTimed(() => runPointOnce(spec, 'lockless', REPAIRMAN.users, i + 1));
    events = r.value.events;
    // transactions simulated in the whole run (warm-up included), from the measured throughput
    transactions = r.value.throughput_tps * ((spec.warmup_ns + spec.duration_ns) / 1e9);
    samples.push(events / r.cpu);
    tx.push(transactions / r.cpu);
  }
  return { eventsPerSec: median(samples), txPerSec: median(tx), samples, events, transactions };
}

function simpyFigure(): { line: BenchLine } {
  const script = resolve(here, '../../src/bench/simpy_repairman.py');
  for (const py of ['/usr/bin/python3', 'python3']) {
    const r = spawnSync(py, [script, '0.5'], { encoding: 'utf8', timeout: 600_000 });
    if (r.status === 0) {
      try {
        const j = JSON.parse(r.stdout.trim()) as { simpy: string; transactions: number; cpu_s: number; wall_s: number; throughput_tps: number };
        return {
          line: {
            name: 'repairman model in SimPy (same model, 0.5 s simulated)',
            value: round3(j.transactions / j.cpu_s),
            unit: 'transactions/CPU-s',
            note: `SimPy ${j.simpy} on ${py}; ${j.transactions.toLocaleString('en-US')} transactions (${Math.round(j.throughput_tps).toLocaleString('en-US')} tps simulated) in ${j.cpu_s.toFixed(1)} CPU-s, ${j.wall_s.toFixed(1)} s wall`,
          },
        };
      } catch {
        // fall through
      }
    }
  }
  return {
    line: {
      name: 'repairman model in SimPy',
      value: 0,
      unit: 'transactions/CPU-s',
      note: 'not measured here: install SimPy (Debian: apt-get install python3-simpy3); docs/contention.md records the figure measured on the development machine',
    },
  };
}

export async function benchContention(): Promise<BenchLine[]> {
  const lines: BenchLine[] = [];
  const rep = benchRepairman();
  lines.push({
    name: 'contention: repairman model M/M/80//5000, one core',
    value: round3(rep.eventsPerSec),
    unit: 'events/CPU-s',
    note: `target ≥ 10,000,000; median of 5 runs of ${round3(rep.events / 1e6)}M events after a warm-up (${rep.samples.map((s) => round3(s / 1e6)).join(' / ')} M)`,
  });
  lines.push({ name: 'contention: repairman model, transactions simulated', value: round3(rep.txPerSec), unit: 'transactions/CPU-s', note: 'the figure to set beside SimPy\'s' });
  lines.push(simpyFigure().line);

  const { spec } = loadConfig('xoltp-80-engines.yaml');
  const short: ContentionSpec = { ...spec, duration_ns: 400e6, warmup_ns: 100e6, stationarity: { ...spec.stationarity, max_extensions: 0 } };
  runPointOnce({ ...short, duration_ns: 50e6, warmup_ns: 0 }, 'latched', 5000, 1); // JIT warm-up
  runPointOnce({ ...short, duration_ns: 50e6, warmup_ns: 0 }, 'lockless', 4000, 1);
  for (const [bm, users] of [
    ['latched', 5000],
    ['lockless', 4000],
  ] as const) {
    const samples: number[] = [];
    let events = 0;
    for (let i = 0; i < 3; i++) {
      const r = cpuTimed(() => runPointOnce(short, bm, users, i + 1));
      events = r.value.events;
      samples.push(events / r.cpu);
    }
    lines.push({ name: `contention core, xoltp-80-engines ${bm} @ ${users} users`, value: round3(median(samples)), unit: 'events/CPU-s', note: `median of 3, ${round3(events / 1e6)}M events` });
  }
  for (const name of ['xoltp-80-engines.yaml', 'xoltp-phase-diagram.yaml']) {
    const cfg = loadConfig(name);
    const t0 = performance.now();
    const results = await runContention(cfg.spec, cfg.seed, { workers: 2 });
    const seconds = (performance.now() - t0) / 1000;
    const entries = results.sweep ? results.sweep.cells.flatMap((c) => c.entries) : results.entries;
    const events = entries.reduce((a, r) => a + r.points.reduce((b, p) => b + p.events, 0), 0);
    const points = entries.reduce((a, r) => a + r.points.length, 0);
    lines.push({ name: `${name.replace('.yaml', '')} run, 2 workers`, value: round3(seconds), unit: 's wall', note: `${points} points × ${cfg.spec.replications} replications, ${round3(events / 1e6)}M events` });
  }
  return lines;
}
