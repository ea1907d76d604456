/**
 * Intervals that cover, and a replication's history: the throughput interval by batch means with a
 * tested batch size (stats.ts), checked against known processes (independent normal batches cover 95%;
 * autocorrelated batches and replications offset by their start are refused the batch interval), and a
 * coverage test at a contended point of the simulation (8 engines, 64 users, 4 TTAS spinlocks, Zipf
 * 0.99): over 40 seeds of 5 replications, the 95% interval covers the grand mean at least 93% of the time.
 * Small windows: the whole file takes a few CPU-seconds.
 */
import { describe, expect, it } from 'vitest';
import { parseContention } from '../src/contention/schema.js';
import { batchMeansInterval } from '../src/contention/stats.js';
import { historyOf } from '../src/contention/history.js';
import { runReplication, summarisePoint } from '../src/contention/task.js';
import { Prng } from '../src/util/prng.js';

describe('batch means with a tested batch size', () => {
  const rng = new Prng(11);
  const sample = (phi: number, offsetSd: number): number[][] =>
    Array.from({ length: 5 }, () => {
      const off = offsetSd * rng.normal();
      let x = rng.normal();
      return Array.from({ length: 10 }, () => {
        x = phi * x + Math.sqrt(1 - phi * phi) * rng.normal();
        return 100 + off + x;
      });
    });
  it('independent normal batches: the batch interval is used and covers the true mean about 95% of the time', () => {
    let cover = 0;
    let batch = 0;
    const n = 400;
    for (let i = 0; i < n; i++) {
      const r = batchMeansInterval(sample(0, 0));
      if (r.how.method === 'batch means') batch++;
      if (r.ci95[0] <= 100 && 100 <= r.ci95[1]) cover++;
    }
    expect(batch / n).toBeGreaterThan(0.3);
    expect(cover / n).toBeGreaterThan(0.93);
    expect(cover / n).toBeLessThan(0.995);
  });
  it('autocorrelated batches, and replications that differ by their start, are refused the batch interval', () => {
    const ar = batchMeansInterval(sample(0.97, 0));
    expect(ar.how.method).toBe('replications');
    expect(ar.how.why).toMatch(/autocorrelated|vary more/);
    let cover = 0;
    for (let i = 0; i < 200; i++) {
      const r = batchMeansInterval(sample(0, 3)); // each replication offset by its start: the batches alone would undercover
      if (r.ci95[0] <= 100 && 100 <= r.ci95[1]) cover++;
    }
    expect(cover / 200).toBeGreaterThan(0.9);
  });
});

describe('intervals cover at a contended point', () => {
  it('the 95% throughput interval covers the grand mean in ≥ 93% of 40 seeds (5 replications each)', () => {
    const spec = parseContention({
      engines: 8,
      users: 64,
      think_time: '300us',
      transaction: { logical_reads: 20, cpu_per_read: '1us', cpu_per_transaction: '20us' },
      buffer_managers: ['latched'],
      pages: { count: 10000, skew: 0.99 },
      latched: { spinlocks: 4, hold: '300ns', handoff_per_waiter: '100ns', lock: 'ttas' },
      service_times: 'exponential',
      duration: '10ms',
      warmup: '5ms',
      stationarity: { max_extensions: 0 },
    });
    const points = Array.from({ length: 40 }, (_v, s) => {
      const reps = Array.from({ length: 5 }, (_w, r) =>
        runReplication({ spec, buffer_manager: 'latched', engines: 8, users: 64, seed: 7919 * s + r + 1 }),
      );
      return { point: summarisePoint(spec, 'latched', 8, 64, reps), reps };
    });
    const all = points.flatMap((p) => p.reps.map((r) => r.throughput_tps));
    const grand = all.reduce((a, b) => a + b, 0) / all.length;
    const covered = points.filter((p) => p.point.ci95.throughput_tps[0] <= grand && grand <= p.point.ci95.throughput_tps[1]).length;
    expect(covered / points.length).toBeGreaterThanOrEqual(0.93);
    // the point is contended: engines spin on the hottest lock
    expect(points[0]!.point.spin_pct).toBeGreaterThan(5);
  });
});

describe("a replication's history", () => {
  it('finds when a run collapsed and how long each state held; a dip shorter than three buckets is not a change', () => {
    const running = Array.from({ length: 40 }, () => 100);
    const trace = [...running, 100, 10, 100, ...running.slice(0, 10), ...Array.from({ length: 47 }, () => 10)];
    const h = historyOf(trace, 1e6, 50_000); // 1 ms buckets: 100 commits a bucket = 100,000 tps
    expect(h.first_collapse_ms).toBe(53);
    expect(h.switches).toBe(1);
    expect(h.ends_collapsed).toBe(true);
    expect(h.longest_collapsed_ms).toBe(47);
    expect(h.longest_running_ms).toBe(53);
    expect(historyOf(running, 1e6, 50_000)).toMatchObject({ first_collapse_ms: null, switches: 0, longest_running_ms: 40 });
  });
});
