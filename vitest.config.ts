import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that work on the live PostgreSQL. A pruning figure depends on the oldest snapshot of every
 * session on the server (a backend's cached horizon follows its snapshots' xmin, which counts transactions
 * in other databases too), so two of them on one server disturb each other's predictions even in
 * databases of their own. Each starts a throw-away cluster of its own (test/helpers/pg-cluster.ts), and
 * they run side by side, a file per core; on a server given with ROWSIM_PG_URL, one at a time.
 */
const LIVE_POSTGRES = [
  'test/pgcheck.test.ts',
  'test/pgcheck-toast.test.ts',
  'test/pgcheck-sql.test.ts',
  'test/pgcheck-safety.test.ts',
  'test/pgcheck-select.test.ts',
  'test/pgcheck-reads.test.ts',
  'test/pgcheck-forms.test.ts',
  'test/pgcheck-scan.test.ts',
  'test/bench-pg.test.ts',
];

/** The files that work on a live MariaDB: each starts a throw-away server of its own (test/helpers/mariadb-cluster.ts). */
const LIVE_MARIADB = [
  'test/mysqlcheck-replay.test.ts',
  'test/mysqlcheck-safety.test.ts',
  'test/mysqlcheck-engine.test.ts',
  'test/mysqlcheck-offpage.test.ts',
  'test/mysqlcheck-charsets.test.ts',
  'test/mysqlcheck-extents.test.ts',
];

/**
 * The order files start in: longest first, so that a long file does not start last and run alone while
 * the other core idles. vitest orders by the durations of the last run in its cache, and without one (a
 * clean clone: CI) by file size, which put the one-line golden files, among the longest, last. Without
 * durations, the files test/budgets.json names come first, the larger budget first, then the others by size.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const budgets = (JSON.parse(readFileSync('test/budgets.json', 'utf8')) as { files: Record<string, number> }).files;
    const cache = this.ctx.cache;
    const path = (f: TestSpecification) => relative(this.ctx.config.root, f.moduleId);
    const key = (f: TestSpecification) => `${f.project.name}:${path(f)}`;
    const budget = (f: TestSpecification) => budgets[path(f)] ?? 0;
    const size = (f: TestSpecification) => cache.getFileStats(key(f))?.size ?? 0;
    return [...files].sort((a, b) => {
      if (a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      const ra = cache.getFileTestResults(key(a));
      const rb = cache.getFileTestResults(key(b));
      if (ra && rb) return Number(rb.failed) - Number(ra.failed) || rb.duration - ra.duration;
      return budget(b) - budget(a) || size(b) - size(a);
    });
  }
}

export default defineConfig({
  test: {
    // Build dist/ and bench/dist/ when they are older than their sources (test/build.ts), then PostgreSQL.
    globalSetup: ['test/build.ts', 'test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        // A test file per core (vitest's default leaves one core free: on two cores, one file at a time).
        // Many files spend their time waiting on child processes, and none of these touches PostgreSQL.
        test: {
          name: 'rowsim',
          include: ['test/**/*.test.ts'],
          exclude: [...LIVE_POSTGRES, ...LIVE_MARIADB],
          maxWorkers: Math.max(1, availableParallelism()),
          // A worker keeps its loaded modules from one file to the next (no file sets up global state
          // it does not restore): the suite's import and transform time is paid once a worker.
          isolate: false,
        },
      },
      {
        extends: true,
        // Beside the others.
        test: {
          name: 'postgres',
          include: LIVE_POSTGRES,
          setupFiles: ['test/helpers/pg-cluster.ts'],
          maxWorkers: process.env.ROWSIM_PG_URL ? 1 : Math.max(1, availableParallelism()),
        },
      },
      {
        extends: true,
        test: {
          name: 'mariadb',
          include: LIVE_MARIADB,
          setupFiles: ['test/helpers/mariadb-cluster.ts'],
          maxWorkers: process.env.ROWSIM_MYSQL_URL ? 1 : Math.max(1, availableParallelism()),
        },
      },
    ],
  },
});
