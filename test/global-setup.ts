/**
 * `npm test` on its own: when no PostgreSQL is given (ROWSIM_PG_URL) and the live tests are not skipped
 * on purpose (ROWSIM_SKIP_PG=1), each live-PostgreSQL test file starts a throw-away cluster of its own
 * (test/helpers/pg-cluster.ts, .ci/pg-cluster.sh). Here: PostgreSQL is installed when it is missing
 * (Debian's package; once, before the files start their clusters side by side), and ROWSIM_PG_OWN=1
 * tells the files to start their clusters. If it cannot be installed, the pg-check tests fail and say why.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export default function setup(): void {
  installMariadb();
  if (process.env.ROWSIM_PG_URL || process.env.ROWSIM_SKIP_PG === '1') return;
  try {
    execFileSync('bash', [join(ROOT, '.ci', 'pg-cluster.sh'), 'install'], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 600_000 });
  } catch (err) {
    process.stderr.write(`could not install PostgreSQL for the pg-check tests: ${(err as Error).message}\n`);
    return;
  }
  process.env.ROWSIM_PG_OWN = '1';
}

/** The same for the mysql-check tests: MariaDB installed when missing, ROWSIM_MYSQL_OWN=1 (test/helpers/mariadb-cluster.ts). */
function installMariadb(): void {
  if (process.env.ROWSIM_MYSQL_URL || process.env.ROWSIM_SKIP_MYSQL === '1') return;
  try {
    execFileSync('bash', [join(ROOT, '.ci', 'mariadb-cluster.sh'), 'install'], {
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 600_000,
    });
  } catch (err) {
    process.stderr.write(`could not install MariaDB for the mysql-check tests: ${(err as Error).message}\n`);
    return;
  }
  process.env.ROWSIM_MYSQL_OWN = '1';
}
