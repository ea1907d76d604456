/**
 * Two builds side by side in one process (docs/performance.md, "Comparing two builds"):
 *
 *   node bench/dist/bench/ab.js OTHER [FORMAT] [random|sequential] [--rounds N] [--rows N]
 *
 * OTHER is another checkout whose bench is built (`npm run build && npm run build:bench` there: a
 * worktree of main, say). The storage suite's workload (storageBenchSpec: FORMAT postgres-heap, random
 * order and 1M rows unless told) runs on OTHER's build and on this one in turn: two rounds of warm-up,
 * then N counted rounds (default 6), the order inside a round alternating (OTHER first, then this build
 * first) so that neither always runs second. Each run's update phase is timed in CPU (PhaseClock).
 * Printed: each build's median, and per round OTHER's time ÷ this build's (above 1: this build is
 * faster), their median and range. On a shared machine two child processes' figures move by ±30%
 * against each other; rounds paired in one process see the same load, and an A/A run (one build against
 * a copy of itself) gives ratios whose median is within a few percent of 1.
 *
 * `contention` instead of a format: every CONTENTION_STRIDE-th replication of xoltp-phase-diagram (12 of
 * its 120: both managers, running and collapsed cells) on each build in turn, each build's results
 * compared with the other's (an optimisation must not change them: exit 1 when they differ), the
 * round's CPU timed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import type { StorageSpec } from '../src/config/spec.js';
import type { FormatId } from '../src/config/format-ids.js';
import { isFormatId } from '../src/formats/registry.js';
import { runStorage } from '../src/workload/runner.js';
import { PhaseClock, stat, type Stat } from './harness.js';
import { storageBenchSpec, type BenchOrder } from './storage.js';
import { ROOT, simConfig } from './paths.js';

export interface AbArgs {
  other: string;
  workload: 'storage' | 'contention';
  format: FormatId;
  order: BenchOrder;
  rounds: number;
  rows: number;
}

const USAGE = 'usage: node bench/dist/bench/ab.js OTHER [FORMAT|contention] [random|sequential] [--rounds N] [--rows N]';
/** The contention workload: every this-many-th replication of xoltp-phase-diagram. */
export const CONTENTION_STRIDE = 10;

/** The command line, or a message saying what is wrong with it. */
export function parseAbArgs(argv: readonly string[]): AbArgs | string {
  const out: Partial<AbArgs> = { workload: 'storage', format: 'postgres-heap', order: 'random', rounds: 6, rows: 1_000_000 };
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--rounds' || a === '--rows') {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 1) return `${a}: expected a whole number of at least 1, found ${JSON.stringify(argv[i] ?? '')}`;
      out[a === '--rounds' ? 'rounds' : 'rows'] = v;
    } else if (a.startsWith('--')) return `unknown option ${a}; ${USAGE}`;
    else words.push(a);
  }
  const [other, ...rest] = words;
  if (other === undefined) return USAGE;
  out.other = other;
  for (const w of rest) {
    if (w === 'random' || w === 'sequential') out.order = w;
    else if (w === 'contention') out.workload = w;
    else if (isFormatId(w)) out.format = w;
    else return `expected a format or random|sequential, found ${JSON.stringify(w)}; ${USAGE}`;
  }
  return out as AbArgs;
}

/** Each build's median, and the per-round ratios other ÷ this (their median and minimum, and maximum). */
export function pairedSummary(
  other: readonly number[],
  mine: readonly number[],
): { other: Stat; mine: Stat; ratio: Stat & { max: number } } {
  if (other.length !== mine.length || other.length === 0) throw new Error('pairedSummary: rounds of both builds expected');
  const ratios = other.map((o, i) => o / mine[i]!);
  return { other: stat(other), mine: stat(mine), ratio: { ...stat(ratios), max: Math.max(...ratios) } };
}

type RunFn = (spec: StorageSpec, opts: { onPhase: PhaseClock['onPhase'] }) => unknown;

/** One run's update phase (the workload's second), CPU seconds. */
function updateCpu(run: RunFn, spec: StorageSpec): number {
  const clock = new PhaseClock();
  run(spec, { onPhase: clock.onPhase });
  return clock.phase(1).cpu ?? clock.phase(1).wall;
}

interface ContentionBuild {
  payloads: unknown[];
  run: (payload: unknown) => unknown;
}

/** A build's contention modules (OTHER's from its bench/dist/src, this one's own) and its payloads of xoltp-phase-diagram. */
async function contentionBuild(src: string): Promise<ContentionBuild> {
  const load = async <T>(file: string): Promise<T> => (await import(pathToFileURL(join(src, 'contention', file)).href)) as T;
  const { parseContention } = await load<{ parseContention: (raw: unknown) => unknown }>('schema.js');
  const { contentionJobs } = await load<{ contentionJobs: (spec: unknown, seed: number) => { payloads: unknown[] } }>('run.js');
  const { runReplication } = await load<{ runReplication: (payload: unknown) => unknown }>('task.js');
  const doc = parse(readFileSync(simConfig('xoltp-phase-diagram.yaml'), 'utf8')) as { seed: number; contention: unknown };
  const all = contentionJobs(parseContention(doc.contention), doc.seed).payloads;
  return { payloads: all.filter((_, i) => i % CONTENTION_STRIDE === 0), run: runReplication };
}

/** One round of the contention workload on a build: CPU seconds, and the results (compared between the builds). */
function contentionRound(b: ContentionBuild): { cpu: number; results: string } {
  const start = process.cpuUsage();
  const results = JSON.stringify(b.payloads.map((p) => b.run(p)));
  const used = process.cpuUsage(start);
  return { cpu: (used.user + used.system) / 1e6, results };
}

/** The contention rounds (OTHER and this build in turn, as the storage rounds); null when their results differ. */
async function contentionTimes(args: AbArgs): Promise<number[][] | null> {
  const here = join(ROOT, import.meta.url.endsWith('.ts') ? 'src' : join('bench', 'dist', 'src'));
  const builds = [await contentionBuild(join(resolve(args.other), 'bench', 'dist', 'src')), await contentionBuild(here)];
  const times: number[][] = [[], []];
  for (let r = 0; r < args.rounds + 2; r++) {
    const results: string[] = [];
    for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const round = contentionRound(builds[k]!);
      results[k] = round.results;
      if (r >= 2) times[k]!.push(round.cpu);
    }
    if (results[0] !== results[1]) return null;
  }
  return times;
}

async function main(argv: string[]): Promise<void> {
  const args = parseAbArgs(argv);
  const built = typeof args === 'string' ? '' : join(resolve(args.other), 'bench', 'dist', 'src', 'workload', 'runner.js');
  if (typeof args === 'string' || !existsSync(built)) {
    process.stderr.write(
      typeof args === 'string' ? `${args}\n` : `${args.other}: no built bench (${built}); run npm run build && npm run build:bench there\n`,
    );
    process.exitCode = 2;
    return;
  }
  if (args.workload === 'contention') {
    await mainContention(args);
    return;
  }
  const theirs = ((await import(pathToFileURL(built).href)) as { runStorage: RunFn }).runStorage;
  const { storageBenchSpec: theirSpec } = (await import(
    pathToFileURL(join(resolve(args.other), 'bench', 'dist', 'bench', 'storage.js')).href
  )) as {
    storageBenchSpec: typeof storageBenchSpec;
  };
  const specs = [theirSpec(args.rows, args.format, args.order), storageBenchSpec(args.rows, args.format, args.order)];
  const runs: RunFn[] = [theirs, runStorage];
  const times: number[][] = [[], []];
  for (let r = 0; r < args.rounds + 2; r++) {
    for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const t = updateCpu(runs[k]!, specs[k]!);
      if (r >= 2) times[k]!.push(t);
    }
  }
  const s = pairedSummary(times[0]!, times[1]!);
  const rate = (cpu: number): string => `${(args.rows / cpu / 1e6).toFixed(3)} M a CPU-second`;
  const list = (a: number[]): string => a.map((x) => x.toFixed(3)).join(' ');
  process.stdout.write(
    `${args.format} ${args.order} updates, ${args.rows} rows, ${args.rounds} rounds\n` +
      `other (${args.other}): median ${s.other.median.toFixed(3)} s = ${rate(s.other.median)}  [${list(times[0]!)}]\n` +
      `this build: median ${s.mine.median.toFixed(3)} s = ${rate(s.mine.median)}  [${list(times[1]!)}]\n` +
      `other ÷ this, per round: median ${s.ratio.median.toFixed(3)} (${s.ratio.min.toFixed(3)}–${s.ratio.max.toFixed(3)})\n`,
  );
}

async function mainContention(args: AbArgs): Promise<void> {
  const times = await contentionTimes(args);
  if (times === null) {
    process.stderr.write(`${args.other}: its contention results differ from this build's\n`);
    process.exitCode = 1;
    return;
  }
  const s = pairedSummary(times[0]!, times[1]!);
  const list = (a: number[]): string => a.map((x) => x.toFixed(3)).join(' ');
  process.stdout.write(
    `contention: every ${CONTENTION_STRIDE}th replication of xoltp-phase-diagram, ${args.rounds} rounds, results equal\n` +
      `other (${args.other}): median ${s.other.median.toFixed(3)} s CPU  [${list(times[0]!)}]\n` +
      `this build: median ${s.mine.median.toFixed(3)} s CPU  [${list(times[1]!)}]\n` +
      `other ÷ this, per round: median ${s.ratio.median.toFixed(3)} (${s.ratio.min.toFixed(3)}–${s.ratio.max.toFixed(3)})\n`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
