/**
 * The machine-repairman model M/M/N//U that `npm run bench` times and docs/contention.md compares
 * with SimPy: U users think (exponential, mean Z), then take one of N engines for one exponential
 * service of mean D; no buffer look-ups, no locks. The same parameters are in
 * bench/simpy_repairman.py, and test/contention-sim.test.ts checks this model against the closed
 * form. Two events per transaction (end of think, end of service).
 */
import { parseContention, type ContentionSpec } from '../src/contention/schema.js';

export const REPAIRMAN = { engines: 80, users: 5000, think_ms: 10, service_us: 194 } as const;

export function repairmanSpec(durationMs: number): ContentionSpec {
  return parseContention({
    engines: REPAIRMAN.engines,
    users: REPAIRMAN.users,
    think_time: `${REPAIRMAN.think_ms}ms`,
    transaction: { logical_reads: 0, cpu_per_read: 0, cpu_per_transaction: `${REPAIRMAN.service_us}us` },
    buffer_managers: ['lockless'],
    lockless: { cas: 0, lookup: 0 },
    service_times: 'exponential',
    duration: `${durationMs}ms`,
    warmup: '100ms',
    replications: 1,
    stationarity: { max_extensions: 0 },
    max_events: 2_000_000_000,
  });
}
