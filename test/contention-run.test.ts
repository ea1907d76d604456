import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { contentionSchema, type ContentionSpec } from '../src/contention/schema.js';
import { runContention, runContentionInProcess, type ContentionResult } from '../src/contention/run.js';
import { contentionMarkdown, contentionTerminal, gapAtMaxUsers, writeContentionCharts } from '../src/contention/report.js';

const loadConfig = (name: string): { seed: number; spec: ContentionSpec } => {
  const doc = parse(readFileSync(join(__dirname, '..', 'sim-configs', name), 'utf8')) as { seed: number; name: string; contention: unknown };
  expect(doc.name).toBe(name.replace(/\.yaml$/, ''));
  return { seed: doc.seed, spec: contentionSchema.parse(doc.contention) };
};

describe('contention schema', () => {
  it('resolves units and fills every default', () => {
    const s = contentionSchema.parse({ engines: 80, users: [1000, 2000], latched: { hold: '1us' }, duration: '2s' });
    expect(s.engines).toEqual([80]);
    expect(s.users).toEqual([1000, 2000]);
    expect(s.latched).toEqual({ spinlocks: 16, hold_ns: 1000, handoff_per_waiter_ns: 50, wait: 'spin', lock: 'ttas' });
    expect(s.lockless.lookup_ns).toBe(1000); // defaults to the latched hold: the same work without the latch
    expect(s.think_time_ns).toBe(1e9);
    expect(s.transaction).toEqual({ logical_reads: 40, cpu_per_read_ns: 5000, cpu_per_transaction_ns: 200000 });
    expect(s.duration_ns).toBe(2e9);
    expect(s.warmup_ns).toBe(5e8);
    expect(s.xoltp.applies_to).toEqual(['latched', 'lockless']);
  });

  it('rejects unknown keys and bad units with the key path', () => {
    const bad = contentionSchema.safeParse({ engines: 8, users: 10, spinlock: 3, latched: { hold: '3 parsecs' } });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toContain('latched.hold');
    expect(bad.error!.issues.some((i) => i.code === 'unrecognized_keys')).toBe(true);
    expect(contentionSchema.safeParse({ engines: 8, users: 10, latched: { lock: 'mutex' } }).success).toBe(false);
    expect(contentionSchema.safeParse({ engines: 0, users: 10 }).success).toBe(false);
  });

  it('parses both shipped configs', () => {
    expect(loadConfig('xoltp-80-engines.yaml').spec.engines).toEqual([80]);
    expect(loadConfig('postgres-8-cores.yaml').spec.engines).toEqual([1, 2, 4, 8]);
  });
});

const tiny = (): ContentionSpec =>
  contentionSchema.parse({
    engines: [2, 4],
    users: [8, 32],
    think_time: '1ms',
    transaction: { logical_reads: 10, cpu_per_read: '5us', cpu_per_transaction: '50us' },
    pages: { count: 1000, skew: 0.99 },
    latched: { spinlocks: 2, hold: '2us' },
    duration: '40ms',
    warmup: '5ms',
  });

describe('runContention', () => {
  it('gives identical results for 1 and 2 workers and in process', async () => {
    const spec = tiny();
    const one = await runContention(spec, 42, { workers: 1 });
    let calls = 0;
    const two = await runContention(spec, 42, { workers: 2, onProgress: () => calls++ });
    expect(calls).toBe(8);
    expect(two).toEqual(one);
    expect(runContentionInProcess(spec, 42)).toEqual(one);
    expect(one.map((r) => [r.buffer_manager, r.engines])).toEqual([
      ['latched', 2],
      ['latched', 4],
      ['lockless', 2],
      ['lockless', 4],
    ]);
    for (const r of one) {
      expect(r.points.map((p) => p.users)).toEqual([8, 32]);
      for (const k of ['throughput_tps', 'response_time_ms', 'response_time_ms_p99', 'engine_busy_pct', 'spin_pct'] as const)
        expect(typeof r.points[0]![k]).toBe('number');
      expect(Object.keys(r.usl)).toEqual(expect.arrayContaining(['lambda', 'sigma', 'kappa']));
    }
    const other = runContentionInProcess(spec, 43);
    expect(other[0]!.points[1]!.response_time_ms).not.toEqual(one[0]!.points[1]!.response_time_ms);
  });

  it('writes charts, a markdown section and a terminal table', () => {
    const results = runContentionInProcess(tiny(), 1);
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-contention-'));
    try {
      const files = writeContentionCharts(results, (rel, data) => writeFileSync(join(dir, rel.replace('charts/', '')), data));
      expect(files).toEqual(['charts/contention-throughput.png', 'charts/contention-response-time.png', 'charts/contention-engines.png', 'charts/contention-engine-time.png']);
      for (const f of files) expect(statSync(join(dir, f.replace('charts/', ''))).size).toBeGreaterThan(5000);
      const md = contentionMarkdown(results);
      expect(md).toContain('## Buffer-manager contention');
      expect(md).toContain('| engines | users | throughput (tps)');
      const text = contentionTerminal(results);
      expect(text.split('\n')[0]).toContain('buffer manager');
      expect(text).toContain('lockless vs latched at 32 users');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(existsSync(dir)).toBe(false);
  });
});

describe('the shipped configs reproduce the seed figures (shortened runs)', () => {
  it('xoltp-80-engines: lockless 4–7× the latched throughput, 10–100× lower response time at 5000 users', () => {
    const { seed, spec } = loadConfig('xoltp-80-engines.yaml');
    const short: ContentionSpec = { ...spec, users: [5000], duration_ns: 300e6, warmup_ns: 150e6 };
    const results = runContentionInProcess(short, seed);
    const [gap] = gapAtMaxUsers(results);
    expect(gap!.throughput_ratio).toBeGreaterThan(4);
    expect(gap!.throughput_ratio).toBeLessThan(7);
    expect(gap!.response_ratio).toBeGreaterThan(10);
    expect(gap!.response_ratio).toBeLessThan(100);
    const latched = results.find((r) => r.buffer_manager === 'latched')!.points[0]!;
    expect(latched.spin_pct).toBeGreaterThan(50); // out of CPU, mostly from spinlock contention
  });

  it('postgres-8-cores: eight engines deliver about 7.4× one engine', () => {
    const { seed, spec } = loadConfig('postgres-8-cores.yaml');
    const results: ContentionResult[] = runContentionInProcess({ ...spec, duration_ns: 200e6 }, seed);
    const eight = results.find((r) => r.engines === 8)!;
    expect(eight.speedup!).toBeGreaterThan(7.1);
    expect(eight.speedup!).toBeLessThan(7.7);
    expect(eight.usl.over).toBe('engines');
    expect(eight.usl.sigma + eight.usl.kappa).toBeGreaterThan(0);
  });
});
