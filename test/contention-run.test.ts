import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { contentionSchema, parseContention, type ContentionSpec } from '../src/contention/schema.js';
import { runContentionInProcess } from '../src/contention/run.js';
import { runContention } from '../src/run/contention-pool.js';
import { contentionMarkdown, contentionTerminal, writeContentionCharts } from '../src/contention/report.js';

const loadConfig = (name: string): { seed: number; spec: ContentionSpec } => {
  const doc = parse(readFileSync(join(__dirname, '..', 'sim-configs', name), 'utf8')) as {
    seed: number;
    name: string;
    contention: unknown;
  };
  expect(doc.name).toBe(name.replace(/\.yaml$/, ''));
  return { seed: doc.seed, spec: parseContention(doc.contention) };
};

describe('contention schema', () => {
  it('resolves units and fills every default', () => {
    const s = contentionSchema.parse({ engines: 80, users: [1000, 2000], latched: { hold: '1us' }, duration: '2s' });
    expect(s.engines).toEqual([80]);
    expect(s.users).toEqual([1000, 2000]);
    expect(s.latched).toEqual({
      spinlocks: 16,
      hold_ns: 1000,
      handoff_per_waiter_ns: 50,
      wait: 'spin',
      lock: 'ttas',
      backoff_min_ns: 100,
      backoff_max_ns: 6400,
      spin_limit_ns: 10000,
    });
    expect(s.lockless.lookup_ns).toBe(1000); // defaults to the latched hold: the same work without the latch
    expect(s.lockless.line_transfer_ns).toBe(50); // defaults to the hand-off: the same cache-line transfer
    expect(s.lockless.read).toBe('cas');
    expect(s.lockless.write_hold_ns).toBe(1000);
    expect(s.think_time_ns).toBe(1e9);
    expect(s.transaction).toEqual({ logical_reads: 40, cpu_per_read_ns: 5000, cpu_per_transaction_ns: 200000 });
    expect(s.duration_ns).toBe(2e9);
    expect(s.warmup_ns).toBe(5e8);
    expect(s.replications).toBe(5);
    expect(s.stationarity).toEqual({ tolerance_pct: 1, max_extensions: 2 });
    expect(s.xoltp.applies_to).toEqual(['latched', 'lockless']);
    expect(s.sweep).toBeNull();
    expect(contentionSchema.parse({ engines: 1, users: 1, latched: { lock: 'queue' } }).latched.lock).toBe('mcs');
  });

  it('rejects unknown keys and bad units with the key path', () => {
    const bad = contentionSchema.safeParse({ engines: 8, users: 10, spinlock: 3, latched: { hold: '3 parsecs' } });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toContain('latched.hold');
    expect(bad.error!.issues.some((i) => i.code === 'unrecognized_keys')).toBe(true);
    expect(contentionSchema.safeParse({ engines: 8, users: 10, latched: { lock: 'mutex' } }).success).toBe(false);
    expect(contentionSchema.safeParse({ engines: 0, users: 10 }).success).toBe(false);
    const blockBackoff = contentionSchema.safeParse({ engines: 8, users: 10, latched: { wait: 'block', lock: 'ttas_backoff' } });
    expect(blockBackoff.error!.issues.map((i) => i.path.join('.'))).toContain('latched.lock');
    const sources = contentionSchema.safeParse({ engines: 8, users: 10, sources: { 'latched.hodl': '[LOCKS]' } });
    expect(sources.error!.issues.map((i) => i.path.join('.'))).toContain('sources.latched.hodl');
  });

  it('resolves a sweep into cells, each value parsed by its key and problems at the sweep value', () => {
    const s = contentionSchema.parse({
      engines: 8,
      users: 10,
      sweep: { 'latched.handoff_per_waiter': ['20ns', '40ns'], 'pages.skew': [0.5, 0.9, 0.99] },
    });
    expect(s.sweep!.cells).toHaveLength(6);
    expect(s.sweep!.cells[0]!.params).toEqual({ 'latched.handoff_per_waiter': '20ns', 'pages.skew': 0.5 });
    expect(s.sweep!.cells[5]!.spec.latched.handoff_per_waiter_ns).toBe(40);
    expect(s.sweep!.cells[5]!.spec.lockless.line_transfer_ns).toBe(40); // the derived default follows the swept hand-off
    expect(s.sweep!.cells[5]!.spec.pages.skew).toBe(0.99);
    const bad = contentionSchema.safeParse({
      engines: 8,
      users: 10,
      sweep: { 'latched.hold': ['1us', '3 parsecs'], 'latched.spinlock': [1] },
    });
    const paths = bad.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toContain('sweep.latched.hold.1');
    expect(paths).toContain('sweep.latched.spinlock');
  });

  it('parses every shipped contention config', () => {
    expect(loadConfig('xoltp-80-engines.yaml').spec.engines).toEqual([80]);
    expect(loadConfig('postgres-8-cores.yaml').spec.engines).toEqual([1, 2, 4, 8]);
    expect(loadConfig('xoltp-phase-diagram.yaml').spec.sweep!.axes).toHaveLength(2);
  });
});

const tiny = (over: Record<string, unknown> = {}): ContentionSpec =>
  parseContention({
    engines: [2, 4],
    users: [8, 32],
    think_time: '1ms',
    transaction: { logical_reads: 10, cpu_per_read: '5us', cpu_per_transaction: '50us' },
    pages: { count: 1000, skew: 0.99 },
    latched: { spinlocks: 2, hold: '2us' },
    duration: '40ms',
    warmup: '5ms',
    replications: 3,
    ...over,
  });

describe('runContention', () => {
  it('gives identical results for 1 and 2 workers and in process', async () => {
    const spec = tiny();
    const one = await runContention(spec, 42, { workers: 1 });
    let calls = 0;
    const two = await runContention(spec, 42, { workers: 2, onProgress: () => calls++ });
    expect(calls).toBe(2 * 2 * 2 * 3);
    expect(two).toEqual(one);
    expect(runContentionInProcess(spec, 42)).toEqual(one);
    expect(one.entries.map((r) => [r.buffer_manager, r.engines])).toEqual([
      ['latched', 2],
      ['latched', 4],
      ['lockless', 2],
      ['lockless', 4],
    ]);
    for (const r of one.entries) {
      expect(r.points.map((p) => p.users)).toEqual([8, 32]);
      for (const p of r.points) {
        expect(p.replications).toBe(3);
        expect(p.runs).toHaveLength(3);
        expect(p.ci95.throughput_tps[0]).toBeLessThanOrEqual(p.throughput_tps);
        expect(p.ci95.throughput_tps[1]).toBeGreaterThanOrEqual(p.throughput_tps);
        expect(new Set(p.runs.map((x) => x.seed)).size).toBe(3);
      }
      // two engine counts: a USL fit over engines, at the largest population
      expect(r.usl).toMatchObject({ over: 'engines', users: 32, engines: [2, 4] });
    }
    const other = runContentionInProcess(spec, 43);
    expect(other.entries[0]!.points[1]!.response_time_ms).not.toEqual(one.entries[0]!.points[1]!.response_time_ms);
  });

  it('never fits the USL over users: one engine count gives no fit', () => {
    const r = runContentionInProcess(tiny({ engines: 4 }), 1);
    for (const e of r.entries) expect(e.usl).toBeUndefined();
    expect(contentionMarkdown(r)).toContain('No USL fit');
  });

  it('runs a replication whose model and seed repeat across sweep cells once', async () => {
    const spec = tiny({ engines: 2, users: 8, sweep: { 'latched.spinlocks': [1, 2, 4] } });
    let total = 0;
    const r = await runContention(spec, 5, { workers: 1, onProgress: (_d, t) => (total = t) });
    // latched: 3 cells × 3 replications; lockless does not depend on the spinlocks: 3 replications
    expect(total).toBe(9 + 3);
    expect(r.sweep!.cells).toHaveLength(3);
    expect(r.sweep!.cells[0]!.entries.find((e) => e.buffer_manager === 'lockless')).toEqual(
      r.sweep!.cells[2]!.entries.find((e) => e.buffer_manager === 'lockless'),
    );
    expect(r.sweep!.headline.text).toMatch(/latched/);
  });

  it('writes charts, a markdown section and a terminal table', () => {
    const results = runContentionInProcess(tiny(), 1);
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-contention-'));
    try {
      const files = writeContentionCharts(results, (rel, data) => writeFileSync(join(dir, rel.replace('charts/', '')), data));
      expect(files).toEqual([
        'charts/contention-throughput.png',
        'charts/contention-response-time.png',
        'charts/contention-engines.png',
        'charts/contention-engine-time.png',
      ]);
      for (const f of files) expect(statSync(join(dir, f.replace('charts/', ''))).size).toBeGreaterThan(5000);
      const md = contentionMarkdown(results);
      expect(md).toContain('## Buffer-manager contention');
      expect(md).toContain('| engines | users | throughput (tps) | 95% CI');
      expect(md).toContain('### Model inputs');
      expect(md).toContain('Where engine time and response time go');
      const text = contentionTerminal(results);
      expect(text.split('\n')[0]).toContain('buffer manager');
      expect(text).toContain('at 32 users, 4 engines: lockless');
      const sweep = runContentionInProcess(
        tiny({ engines: 2, users: 8, sweep: { 'latched.hold': ['1us', '4us'], 'pages.skew': [0.5, 1.2] } }),
        1,
      );
      expect(writeContentionCharts(sweep, (rel, data) => writeFileSync(join(dir, rel.replace('charts/', '')), data))).toEqual([
        'charts/contention-phase.png',
      ]);
      expect(statSync(join(dir, 'contention-phase.png')).size).toBeGreaterThan(5000);
      expect(contentionMarkdown(sweep)).toContain('### Phase diagram');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(existsSync(dir)).toBe(false);
  });
});

describe('the shipped configs reproduce the published figures (shortened runs)', () => {
  it('xoltp-80-engines: lockless 4–7× the latched throughput, 10–100× lower response time at 5000 users', () => {
    const { seed, spec } = loadConfig('xoltp-80-engines.yaml');
    const short: ContentionSpec = { ...spec, users: [5000], duration_ns: 200e6, warmup_ns: 150e6, replications: 2 };
    const results = runContentionInProcess(short, seed);
    const [gap] = results.gaps;
    expect(gap!.throughput_ratio).toBeGreaterThan(4);
    expect(gap!.throughput_ratio).toBeLessThan(7);
    expect(gap!.response_ratio).toBeGreaterThan(10);
    expect(gap!.response_ratio).toBeLessThan(100);
    expect(gap!.latched_collapsed_share).toBe(1);
    const latched = results.entries.find((r) => r.buffer_manager === 'latched')!.points[0]!;
    expect(latched.spin_pct).toBeGreaterThan(50); // out of CPU, mostly from spinlock contention
  });

  it('postgres-8-cores: eight engines deliver about 7.4× one engine', () => {
    const { seed, spec } = loadConfig('postgres-8-cores.yaml');
    const results = runContentionInProcess({ ...spec, duration_ns: 200e6, replications: 2 }, seed);
    const eight = results.entries.find((r) => r.engines === 8)!;
    expect(eight.speedup!).toBeGreaterThan(7.1);
    expect(eight.speedup!).toBeLessThan(7.7);
    expect(eight.usl!.over).toBe('engines');
    expect(eight.usl!.sigma + eight.usl!.kappa).toBeGreaterThan(0);
  });
});
