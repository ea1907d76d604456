/**
 * Run one bench child process (src/bench/child.ts) and read how it ended (src/bench/child-report.ts): the
 * storage, memory and scale suites each run their workloads in fresh children.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childOutcome, type ChildOutcome, type ChildRequest } from './child-report.js';

/** The compiled child, found from dist/bench/ or from src/bench/ (the tests import the sources): both are two levels below the package. */
const CHILD = fileURLToPath(new URL('../../dist/bench/child.js', import.meta.url));

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
