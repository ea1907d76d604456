import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // A test file per core (vitest's default leaves one core free: on two cores, one file at a time). Many
    // files spend their time waiting on child processes or PostgreSQL, and each live test works in a
    // database of its own, so two at a time share the machine without disturbing each other.
    maxWorkers: Math.max(1, availableParallelism()),
  },
});
