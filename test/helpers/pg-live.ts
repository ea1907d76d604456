/**
 * What the files of rowsim pg-check against a live PostgreSQL share (test/pgcheck.test.ts: heap and
 * indexes; test/pgcheck-toast.test.ts: values, compression and TOAST): the server (ROWSIM_PG_URL, a
 * cluster of the file's own under npm test: test/helpers/pg-cluster.ts), a failing test that says how to
 * give one when there is none (unless ROWSIM_SKIP_PG=1), a storage spec from inline YAML, and the
 * comparisons of one metric.
 */
import { describe, it } from 'vitest';
import type { StorageSpec } from '../../src/config/spec.js';
import { loadConfig } from '../../src/loader/config.js';
import type { Comparison } from '../../src/pgcheck/check.js';

export const URL = process.env.ROWSIM_PG_URL;
const SKIP = process.env.ROWSIM_SKIP_PG === '1';
const HOWTO =
  'ROWSIM_PG_URL is not set: npm test starts a throw-away cluster for each live test file (test/helpers/pg-cluster.ts); by hand, eval "$(.ci/pg-cluster.sh start)" (stop it with .ci/pg-cluster.sh stop), or run .ci/run; set ROWSIM_SKIP_PG=1 to skip the live PostgreSQL tests on purpose';

/** Without a server (and not skipped on purpose), a test named `title` that fails and says how to give one. */
export function needsServer(title: string): void {
  if (URL || SKIP) return;
  describe(title, () => {
    it('needs a server', () => {
      throw new Error(HOWTO);
    });
  });
}

/** The storage spec of a config given as YAML text. */
export function spec(yaml: string): StorageSpec {
  return loadConfig('inline.yaml', yaml).storage[0]!.spec;
}

/** The comparisons of `metric` (of one phase, when given). */
export const at = (cs: Comparison[], metric: string, phase?: number) =>
  cs.filter((c) => c.metric === metric && (phase === undefined || c.phase === phase));
