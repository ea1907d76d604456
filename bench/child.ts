/**
 * A bench child process (the storage, memory and scale suites): `node bench/dist/bench/child.js '<ChildRequest JSON>'`.
 * Runs the bench workload once (or `repeat` times, one after the other) in this fresh process and prints
 * one line, CHILD_MARK + JSON: each run's phases' CPU and wall time, the process's CPU time, its resident
 * memory after the (last) run and at its peak.
 * With checkLimits it first refuses, as `rowsim run` does, a table that cannot fit in memory, and prints
 * the refusal instead.
 */
import { UserError } from '../src/config/errors.js';
import { checkRunLimits } from '../src/cli/limits.js';
import { tuneCompiler } from '../src/cli/compiler.js';
import { plannedRowOperations } from '../src/workload/planned-work.js';
import { loadConfig } from '../src/loader/config.js';
import { runStorage } from '../src/workload/runner.js';
import { CHILD_MARK, type ChildReport, type ChildRequest } from './child-report.js';
import { PhaseClock } from './harness.js';
import { BENCH_CONFIG_FILE, storageBenchConfig } from './storage.js';
import { getFormat } from '../src/formats/registry.js';
import { metric } from '../src/heap/metrics.js';
import { groupedNumber } from '../src/util/numbers.js';

function emit(x: unknown): void {
  process.stdout.write(`${CHILD_MARK}${JSON.stringify(x)}\n`);
}

const req = JSON.parse(process.argv[2] ?? '') as ChildRequest;
const cfg = loadConfig(BENCH_CONFIG_FILE, storageBenchConfig(req.rows, req.format, req.order));
// The compiler's inlining budget as `rowsim run` would choose it for this much work: every run of the
// workload this process makes (a bad ROWSIM_INLINING: the bench stopped before starting the child).
tuneCompiler(plannedRowOperations(cfg.storage[0]!.spec.workload) * Math.max(1, req.repeat ?? 1));
let refused: string | undefined;
if (req.checkLimits) {
  try {
    checkRunLimits(cfg, { workers: 1 });
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    refused = err.message;
  }
}
if (refused !== undefined) {
  emit({ refused });
} else {
  const repeat = Math.max(1, req.repeat ?? 1);
  const runs: ReturnType<PhaseClock['phases']>[] = [];
  let result: ReturnType<typeof runStorage> | undefined;
  for (let i = 0; i < repeat; i++) {
    const clock = new PhaseClock();
    // The run before is let go first: a run does not start with the last one's arrays still alive.
    result = undefined;
    result = runStorage(cfg.storage[0]!.spec, { onPhase: clock.onPhase });
    runs.push(clock.phases());
  }
  // Read with the result still referenced: every array of the run is alive.
  const rss = process.memoryUsage().rss;
  const usage = process.resourceUsage();
  const moved = getFormat(req.format).words.movedRows;
  const report: ChildReport = {
    rows: req.rows,
    format: req.format,
    order: req.order,
    phases: runs[0]!,
    ...(repeat > 1 ? { runs } : {}),
    cpu_s: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
    rss_bytes: rss,
    max_rss_bytes: usage.maxRSS * 1024,
    engine_bytes: result!.memory_bytes,
    outcome: `${groupedNumber(metric(result!.final, moved.metric))} ${moved.word} rows, ${groupedNumber(result!.final.pages)} pages`,
  };
  emit(report);
}
