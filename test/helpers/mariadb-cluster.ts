/**
 * A throw-away MariaDB server of the test file's own: the setup file of the project `mariadb`
 * (vitest.config.ts), run in the file's process before the file is loaded. When npm test was given no
 * server (test/global-setup.ts sets ROWSIM_MYSQL_OWN=1), each live-MariaDB file starts a server with
 * .ci/mariadb-cluster.sh (its own data directory and loopback port), sets ROWSIM_MYSQL_URL to it, and
 * stops and removes it after its last test. With a server of one's own (ROWSIM_MYSQL_URL) this does nothing.
 */
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { ROOT } from './cli.js';

if (process.env.ROWSIM_MYSQL_OWN === '1') {
  const script = join(ROOT, '.ci', 'mariadb-cluster.sh');
  // Ports apart for the files running at once (VITEST_POOL_ID: 1 … maxWorkers), each looking upwards from its own.
  const slot = Number(process.env.VITEST_POOL_ID ?? 0) % 16;
  const env = {
    ...process.env,
    ROWSIM_MYSQL_STATE: join(tmpdir(), `rowsim-mariadb.file.${process.pid}.state`),
    ROWSIM_MYSQL_PORT: String(33100 + 40 * slot),
  };
  try {
    const out = execFileSync('bash', [script, 'start'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    process.env.ROWSIM_MYSQL_URL = /ROWSIM_MYSQL_URL=(\S+)/.exec(out)?.[1];
  } catch (err) {
    // The file's live tests then fail and say that ROWSIM_MYSQL_URL is not set; this says why.
    const e = err as Error & { stderr?: string };
    process.stderr.write(`could not start a MariaDB server for this file: ${e.message}\n${e.stderr ?? ''}\n`);
    delete process.env.ROWSIM_MYSQL_URL;
  }
  afterAll(() => {
    execFileSync('bash', [script, 'stop'], { env, stdio: ['ignore', 'ignore', 'inherit'], timeout: 120_000 });
  });
}
