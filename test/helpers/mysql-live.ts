/**
 * What the files of rowsim mysql-check against a live MariaDB share: the server (ROWSIM_MYSQL_URL, a
 * server of the file's own under npm test: test/helpers/mariadb-cluster.ts), a failing test that says
 * how to give one when there is none (unless ROWSIM_SKIP_MYSQL=1), a connection, a spec from YAML, the
 * comparisons of `rowsim mysql-check --json`.
 */
import { describe, expect, it } from 'vitest';
import type { StorageSpec } from '../../src/config/spec.js';
import type { MysqlCheckResult } from '../../src/mysqlcheck/check.js';
import { loadConfig } from '../../src/loader/config.js';
import { connect, mysqlTarget, type MysqlConnection } from '../../src/mysqlcheck/connection.js';
import { rowsim } from './cli.js';

export const MYSQL_URL = process.env.ROWSIM_MYSQL_URL;
const SKIP = process.env.ROWSIM_SKIP_MYSQL === '1';
const HOWTO =
  'ROWSIM_MYSQL_URL is not set: npm test starts a throw-away MariaDB for each live test file (test/helpers/mariadb-cluster.ts); by hand, eval "$(.ci/mariadb-cluster.sh start)" (stop it with .ci/mariadb-cluster.sh stop), or run .ci/run; set ROWSIM_SKIP_MYSQL=1 to skip the live MariaDB tests on purpose';

/** Without a server (and not skipped on purpose), a test named `title` that fails and says how to give one. */
export function needsMysql(title: string): void {
  if (MYSQL_URL || SKIP) return;
  describe(title, () => {
    it('needs a server', () => {
      throw new Error(HOWTO);
    });
  });
}

export function mysqlConnect(): Promise<MysqlConnection> {
  return connect(mysqlTarget(MYSQL_URL!));
}

/**
 * The storage spec of a config given as YAML text (of a format other than innodb until that format is
 * registered: the replay reads only the table and the workload), on 16K pages as the test server has
 * them, with engine settings the core schema does not know yet.
 */
export function specOf(yaml: string, engine: Record<string, unknown> = {}): StorageSpec {
  const s = loadConfig('inline.yaml', yaml).storage[0]!.spec;
  return { ...s, engine: { ...s.engine, page_size: 16_384, ...engine } };
}

/** `rowsim mysql-check CONFIG --json` against the test server: it exits 0, and its results, a storage point each. */
export function mysqlCheckJson(config: string): MysqlCheckResult[] {
  const r = rowsim(['mysql-check', config, '--json', '--url', MYSQL_URL!]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { results: MysqlCheckResult[] }).results;
}
