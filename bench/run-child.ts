/**
 * Run one bench child process (bench/child.ts) and read how it ended (bench/child-report.ts): the
 * storage, memory and scale suites each run their workloads in fresh children.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { childOutcome, type ChildOutcome, type ChildRequest } from './child-report.js';
import { BENCH_DIST } from './paths.js';

/** The compiled child (bench/paths.ts), from the build or from the sources (the tests import them). */
const CHILD = join(BENCH_DIST, 'child.js');

/** Run one child (with Node.js options `nodeArgs`, and environment `env`: this process's by default); its outcome and the wall seconds the parent saw. */
export function runChild(
  req: ChildRequest,
  timeoutS: number,
  nodeArgs: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): { outcome: ChildOutcome; wall: number } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [...nodeArgs, CHILD, JSON.stringify(req)], {
    encoding: 'utf8',
    timeout: timeoutS * 1000,
    killSignal: 'SIGKILL',
    maxBuffer: 16 * 1048576,
    env,
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const timedOut = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
  if (r.error && !timedOut) return { outcome: { kind: 'failed', message: `could not start: ${r.error.message}` }, wall };
  return {
    outcome: childOutcome({ status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', timedOut, timeoutS }),
    wall,
  };
}
