/**
 * postgres-heap's figures stay what they were while its structures change (issue: speed with
 * fidelity): every sim-config that uses the format, the bench's table at 1e5 rows in both orders, and
 * random workloads (a fixed fast-check seed) give the same SHA-256 of their results as recorded in
 * test/fixtures/postgres-digests.json. Record anew only for a change meant to move a figure:
 * ROWSIM_RECORD_DIGESTS=1 npx vitest run test/postgres-differential.test.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/loader/config.js';
import { storageBenchSpec } from '../bench/storage.js';
import { postgresConfigs, resultDigest, sampledWorkloads } from './helpers/pg-differential.js';
import { ROOT } from './helpers/cli.js';

const FILE = join(ROOT, 'test/fixtures/postgres-digests.json');
const RANDOM_WORKLOADS = 40;

function digests(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { file, specs } of postgresConfigs()) out[file] = resultDigest(specs);
  for (const order of ['random', 'sequential'] as const)
    out[`bench 1e5 ${order}`] = resultDigest([storageBenchSpec(100_000, 'postgres-heap', order)]);
  sampledWorkloads(RANDOM_WORKLOADS).forEach((text, i) => {
    out[`random workload ${i}`] = resultDigest(loadConfig('(random workload)', text).storage.map((p) => p.spec));
  });
  return out;
}

describe('postgres-heap: the same results as recorded before a change of structure', () => {
  it('every postgres sim-config, the bench table at 1e5 rows and 40 random workloads', () => {
    const now = digests();
    if (process.env.ROWSIM_RECORD_DIGESTS === '1') writeFileSync(FILE, `${JSON.stringify(now, null, 2)}\n`);
    const recorded = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, string>;
    expect(Object.keys(now).length).toBeGreaterThan(70);
    expect(now).toEqual(recorded);
  }, 600_000);
});
