/**
 * A throw-away PostgreSQL cluster of the test file's own: the setup file of the project `postgres`
 * (vitest.config.ts), run in the file's process before the file is loaded. When npm test was given no
 * server (test/global-setup.ts sets ROWSIM_PG_OWN=1), each live-PostgreSQL file starts a cluster with
 * .ci/pg-cluster.sh, sets ROWSIM_PG_URL and ROWSIM_PG_PW_URL to it, and stops it after its last test: the
 * files then run side by side, none of them holding back another's pruning horizon (a server's
 * oldest snapshot counts every database's transactions). With a server of one's own (ROWSIM_PG_URL)
 * this does nothing, and the files run one at a time on it.
 */
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { ROOT } from './cli.js';

if (process.env.ROWSIM_PG_OWN === '1') {
  const script = join(ROOT, '.ci', 'pg-cluster.sh');
  // Ports apart for the files running at once (VITEST_POOL_ID: 1 … maxWorkers), each looking upwards from its own.
  const slot = Number(process.env.VITEST_POOL_ID ?? 0) % 16;
  const env = {
    ...process.env,
    ROWSIM_PG_STATE: join(tmpdir(), `rowsim-pg-cluster.file.${process.pid}.state`),
    ROWSIM_PG_PORT: String(54400 + 40 * slot),
  };
  try {
    const out = execFileSync('bash', [script, 'start'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    process.env.ROWSIM_PG_URL = /ROWSIM_PG_URL=(\S+)/.exec(out)?.[1];
    process.env.ROWSIM_PG_PW_URL = /ROWSIM_PG_PW_URL=(\S+)/.exec(out)?.[1];
  } catch (err) {
    // The file's live tests then fail and say that ROWSIM_PG_URL is not set; this says why.
    const e = err as Error & { stderr?: string };
    process.stderr.write(`could not start a PostgreSQL cluster for this file: ${e.message}\n${e.stderr ?? ''}\n`);
    delete process.env.ROWSIM_PG_URL;
  }
  afterAll(() => {
    execFileSync('bash', [script, 'stop'], { env, stdio: ['ignore', 'ignore', 'inherit'], timeout: 120_000 });
  });
}
