/**
 * `npm test` on its own: when no PostgreSQL is given (ROWSIM_PG_URL) and the live tests are not
 * skipped on purpose (ROWSIM_SKIP_PG=1), start the throw-away cluster of .ci/pg-cluster.sh for this
 * run and stop it afterwards. If it cannot be started, the pg-check tests fail and say why.
 */
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export default function setup(): (() => void) | undefined {
  if (process.env.ROWSIM_PG_URL || process.env.ROWSIM_SKIP_PG === '1') return undefined;
  const env = { ...process.env, ROWSIM_PG_STATE: join(tmpdir(), `rowsim-pg-cluster.vitest.${process.pid}.state`) };
  const script = join(ROOT, '.ci', 'pg-cluster.sh');
  try {
    const out = execFileSync('bash', [script, 'start'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 });
    const m = /ROWSIM_PG_URL=(\S+)/.exec(out);
    if (m) process.env.ROWSIM_PG_URL = m[1];
    // The role that must give a password (scram-sha-256), for the tests of pg-check's password handling.
    const pw = /ROWSIM_PG_PW_URL=(\S+)/.exec(out);
    if (pw) process.env.ROWSIM_PG_PW_URL = pw[1];
  } catch (err) {
    process.stderr.write(`could not start a PostgreSQL cluster for the pg-check tests: ${(err as Error).message}\n`);
    return undefined;
  }
  return () => {
    execFileSync('bash', [script, 'stop'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  };
}
