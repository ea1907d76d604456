import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The files that work on the live PostgreSQL. They run one at a time: a pruning figure depends on the
 * oldest snapshot of every session on the server (a backend's cached horizon follows its snapshots' xmin,
 * which counts transactions in other databases too), so two of them side by side disturb each other's
 * predictions even in databases of their own.
 */
const LIVE_POSTGRES = [
  'test/pgcheck.test.ts',
  'test/pgcheck-safety.test.ts',
  'test/pgcheck-select.test.ts',
  'test/pgcheck-reads.test.ts',
  'test/bench-pg.test.ts',
];

export default defineConfig({
  test: {
    // Build dist/ and bench/dist/ when they are older than their sources (test/build.ts), then PostgreSQL.
    globalSetup: ['test/build.ts', 'test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        // A test file per core (vitest's default leaves one core free: on two cores, one file at a time).
        // Many files spend their time waiting on child processes, and none of these touches PostgreSQL.
        test: { name: 'rowsim', include: ['test/**/*.test.ts'], exclude: LIVE_POSTGRES, maxWorkers: Math.max(1, availableParallelism()) },
      },
      {
        extends: true,
        // Beside the others, one file at a time.
        test: { name: 'postgres', include: LIVE_POSTGRES, maxWorkers: 1 },
      },
    ],
  },
});
