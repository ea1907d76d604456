/**
 * The memory and scale suites: the bench workload (bench/storage.ts) in fresh child processes
 * (bench/child.ts), one per run, killed at the time limit (--timeout, default 10 minutes).
 *
 * - memory: resident memory growth per simulated row between a 1e6-row and a 1e7-row run of the same
 *   workload, per format. Resident memory is the peak, process.resourceUsage().maxRSS: what the machine
 *   must have for the run (the figure src/cli/limits.ts plans against), whatever the garbage collector
 *   did last; the resident memory after the run (process.memoryUsage().rss) is in the note, and can be
 *   lower (the update phase's row-id list is freed by then) or higher (garbage not yet collected).
 *   Subtracting the smaller run removes Node.js's own memory and everything that does not grow with rows.
 * - scale: 1e8 rows inserted, then every row grown in random order, one child per format: the child's
 *   CPU seconds (start-up to the end) and its peak resident memory. The child first applies rowsim run's
 *   memory check and reports a refusal as the line's result.
 */
import type { FormatId } from '../src/config/format-ids.js';
import { FORMAT_IDS } from '../src/formats/registry.js';
import { growthPerRow, type ChildOutcome } from './child-report.js';
import { sig3, stat, type BenchLine } from './harness.js';
import { runChild } from './run-child.js';
import { HUGETLB_TUNABLE, hugePagesContext, hugePagesEnv, wantsHugePages } from '../src/cli/huge-pages.js';
import { storageMemory } from '../src/workload/memory.js';
import { storageBenchSpec } from './storage.js';
import type { SuiteContext } from './suite.js';

/** The issue's targets: bytes a simulated row; the 1e8-row run's CPU seconds and peak bytes. */
export const MEMORY_TARGETS = { bytesPerRow: 16, scaleCpuS: 30, scalePeakBytes: 1.6e9 } as const;

const bytesPerRow = (x: number) => Math.round(x * 10) / 10;

async function* memoryLines(format: FormatId, ctx: SuiteContext): AsyncGenerator<BenchLine> {
  const name = `memory: ${format} resident memory growth per row, 1e6 → 1e7 rows`;
  const small = 1_000_000;
  const large = 10_000_000;
  const peak: number[] = [];
  const after: number[] = [];
  let engine = 0;
  for (let i = 0; i < ctx.runs; i++) {
    const a = runChild({ rows: small, format, order: 'random', checkLimits: false }, ctx.timeoutS).outcome;
    const b = runChild({ rows: large, format, order: 'random', checkLimits: false }, ctx.timeoutS).outcome;
    for (const o of [a, b]) {
      if (o.kind !== 'report') {
        yield {
          name,
          value: null,
          unit: 'bytes/row',
          note: `a child of ${o === a ? small : large} rows ${o.kind === 'refused' ? 'was refused' : 'failed'}: ${o.message}`,
        };
        return;
      }
    }
    const ra = (a as Extract<ChildOutcome, { kind: 'report' }>).report;
    const rb = (b as Extract<ChildOutcome, { kind: 'report' }>).report;
    peak.push(growthPerRow({ rows: small, bytes: ra.max_rss_bytes }, { rows: large, bytes: rb.max_rss_bytes }));
    after.push(growthPerRow({ rows: small, bytes: ra.rss_bytes }, { rows: large, bytes: rb.rss_bytes }));
    engine = growthPerRow({ rows: small, bytes: ra.engine_bytes }, { rows: large, bytes: rb.engine_bytes });
  }
  const p = stat(peak);
  const q = stat(after);
  const met = p.median <= MEMORY_TARGETS.bytesPerRow;
  yield {
    name,
    value: bytesPerRow(p.median),
    unit: 'bytes/row',
    note:
      `target ≤ ${MEMORY_TARGETS.bytesPerRow}: ${met ? 'met' : 'not met'}; peak resident memory (process.resourceUsage().maxRSS) of a 1e7-row run minus a 1e6-row run, ÷ 9e6, each in a fresh process; ` +
      `${ctx.runs === 1 ? '1 pair' : `median of ${ctx.runs} pairs`}, min ${bytesPerRow(p.min)}; resident after the run (memoryUsage().rss): ${bytesPerRow(q.median)}; the engine's own arrays count ${bytesPerRow(engine)}`,
    detail: {
      format,
      peak_growth_bytes_per_row: peak,
      rss_after_growth_bytes_per_row: after,
      engine_bytes_per_row: engine,
      rows: [small, large],
    },
  };
}

export async function* benchMemory(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  for (const format of FORMAT_IDS) yield* memoryLines(format, ctx);
}

export const SCALE_ROWS = 100_000_000;

export async function* benchScale(ctx: SuiteContext): AsyncGenerator<BenchLine> {
  // One run per format unless --runs says otherwise: each takes a minute or more, and a fresh process
  // has nothing a warm-up run could warm.
  const runs = ctx.runsGiven ? ctx.runs : 1;
  for (const format of FORMAT_IDS) {
    const name = `scale: ${format} 1e8 rows (insert, then every row grown in random order)`;
    const cpu: number[] = [];
    const peak: number[] = [];
    const walls: number[] = [];
    let last: Extract<ChildOutcome, { kind: 'report' }>['report'] | undefined;
    let stopped: Exclude<ChildOutcome, { kind: 'report' }> | undefined;
    // As `rowsim run` would run this table: with 2 MB pages where it would start itself again with them (src/cli/huge-pages.ts).
    const huge = wantsHugePages(storageMemory(storageBenchSpec(SCALE_ROWS, format, 'random')).bytes, hugePagesContext());
    const hugeNote = huge
      ? `2 MB pages (${HUGETLB_TUNABLE}, as rowsim run starts a table this large)`
      : '4 kB pages (rowsim run would not ask for 2 MB pages here: ROWSIM_HUGE_PAGES, the kernel or GLIBC_TUNABLES)';
    for (let i = 0; i < runs && !stopped; i++) {
      const { outcome, wall } = runChild(
        { rows: SCALE_ROWS, format, order: 'random', checkLimits: true },
        ctx.timeoutS,
        [],
        huge ? hugePagesEnv(process.env) : process.env,
      );
      if (outcome.kind !== 'report') stopped = outcome;
      else {
        last = outcome.report;
        cpu.push(outcome.report.cpu_s);
        peak.push(outcome.report.max_rss_bytes);
        walls.push(wall);
      }
    }
    if (stopped) {
      const what =
        stopped.kind === 'refused'
          ? `refused up front (rowsim run's memory check, src/cli/limits.ts): ${stopped.message}`
          : stopped.message;
      yield { name: `${name}, CPU time of its child process`, value: null, unit: 's', note: what, detail: { format, outcome: stopped } };
      continue;
    }
    const c = stat(cpu);
    const p = stat(peak);
    const w = stat(walls);
    const phases = last!.phases.map((s) => s.cpu!.toFixed(1)).join(' + ');
    const runsNote = runs === 1 ? '1 run (--runs N for more)' : `median of ${runs} runs, min ${c.min.toFixed(1)} s`;
    yield {
      name: `${name}, CPU time of its child process`,
      value: sig3(c.median),
      unit: 's',
      note: `target ≤ ${MEMORY_TARGETS.scaleCpuS}: ${c.median <= MEMORY_TARGETS.scaleCpuS ? 'met' : 'not met'}; the whole process, start-up to exit (the phases' row operations ${phases} s); wall ${w.median.toFixed(1)} s; ${runsNote}; ${hugeNote}; ${last!.outcome}`,
      detail: { format, cpu_s: cpu, wall_s: walls, phases: last!.phases, huge_pages: huge },
    };
    yield {
      name: `${name}, peak resident memory of its child process`,
      value: sig3(p.median / 1e9),
      unit: 'GB',
      note: `target ≤ ${MEMORY_TARGETS.scalePeakBytes / 1e9} GB (10^9 bytes): ${p.median <= MEMORY_TARGETS.scalePeakBytes ? 'met' : 'not met'}; process.resourceUsage().maxRSS; ${(p.median / SCALE_ROWS).toFixed(1)} bytes/row with Node.js's own; ${runsNote}`,
      detail: { format, max_rss_bytes: peak },
    };
  }
}
