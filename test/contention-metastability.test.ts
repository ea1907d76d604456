/**
 * A bimodal point's start-state test (src/contention/metastability.ts): the same seeds over a window 4×
 * as long from the idle start and from a backlog start. Two small points of one workload (80 engines,
 * 4 TTAS spinlocks, 10 look-ups a transaction, 30 ms windows): at 3,350 users and a 67 ns hand-off the
 * replication that tipped early stays collapsed and the running ones never tip (metastable, the running
 * state holds; from a backlog start all collapse: the answer depends on the start); at 3,600 users and
 * 70 ns the running replications tip later and stay collapsed (metastable, the running state decays).
 * A few CPU-seconds.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rowsim } from './helpers/cli.js';
import { parseContention } from '../src/contention/schema.js';
import { runContentionInProcess } from '../src/contention/run.js';
import { contentionMarkdown, contentionTerminal, metastabilityHeadlines } from '../src/contention/report.js';
import { PROBE_DURATION_FACTOR, metastabilityOf } from '../src/contention/metastability.js';
import type { ContentionPoint, Replication } from '../src/contention/task.js';

const workload = (users: number, handoff: string) => ({
  engines: 80,
  users,
  think_time: '10ms',
  transaction: { logical_reads: 10, cpu_per_read: '8us', cpu_per_transaction: '100us' },
  buffer_managers: ['latched'],
  pages: { count: 100000, skew: 0.99 },
  latched: { spinlocks: 4, hold: '300ns', handoff_per_waiter: handoff, lock: 'ttas' },
  service_times: 'constant',
  duration: '30ms',
  warmup: '30ms',
  replications: 4,
  stationarity: { max_extensions: 0 },
});

function point(users: number, handoff: string) {
  const results = runContentionInProcess(parseContention(workload(users, handoff)), 1);
  return { results, p: results.entries[0]!.points[0]! };
}

describe('metastability: is the split decided by the start?', () => {
  it('3,350 users: the early collapse holds, the running replications never tip, a backlog start collapses all (metastable, the running state holds)', () => {
    const { results, p } = point(3350, '67ns');
    expect(p.bimodal).toBe(true);
    expect(p.drain.verdict).toBe('bistable'); // the closed form: a running and a collapsed equilibrium
    const m = p.metastability!;
    expect(m.metastable).toBe(true);
    expect(m.running_state).toBe('holds');
    expect(m.depends_on_start).toBe(true);
    expect(m.modes_tps.collapsed).toBeLessThan(0.5 * m.modes_tps.running);
    expect(m.idle.run_ms).toBe(30 + PROBE_DURATION_FACTOR * 30);
    expect(m.idle.collapsed).toBe(p.collapsed);
    expect(m.idle.switched).toBe(0);
    expect(m.idle.running_held_ms).toBe(m.idle.run_ms); // ran the whole longer window
    expect(m.idle.time_to_collapse_ms!.max).toBeLessThan(30); // tipped in the warm-up
    expect(m.backlog.collapsed).toBe(p.replications);
    expect(m.backlog.switched).toBe(0);
    const line = metastabilityHeadlines(results.entries)[0]!;
    expect(line).toMatch(
      /Metastable: a collapse, once reached, holds;\*\* each replication kept the state it reached early; \*\*the answer depends on the start\*\*/,
    );
    expect(line).toMatch(/"1 of 4" is how often this start tipped, not a steady-state probability/);
    expect(results.gaps).toEqual([]); // one manager: no gap, the headline is the point's
  });

  it('3,600 users: the running replications tip later and stay collapsed (metastable, the running state decays)', () => {
    const { results, p } = point(3600, '70ns');
    expect(p.bimodal).toBe(true);
    const m = p.metastability!;
    expect(m.metastable).toBe(true);
    expect(m.running_state).toBe('decays');
    expect(m.idle.switched + m.backlog.switched).toBe(0);
    expect(m.idle.collapsed).toBeGreaterThan(p.collapsed);
    expect(m.idle.time_to_collapse_ms!.max).toBeGreaterThan(60); // after the run's own window
    expect(m.depends_on_start).toBe(false); // given time, both starts collapse all
    const line = metastabilityHeadlines(results.entries)[0]!;
    expect(line).toMatch(/Metastable: a collapse, once reached, holds;\*\* the running state tips given time\./);
    expect(line).toMatch(
      new RegExp(`"${p.collapsed} of 4" is how many tipped within the run's window \\(${m.idle.collapsed} of 4 within 150 ms\\)`),
    );
  });
});

describe('the verdict from the histories alone', () => {
  // A replication reduced to its history (history.ts): first collapse, state changes, end.
  const rep = (first: number | null, switches: number, end = 150): Replication =>
    ({
      history: {
        first_collapse_ms: first,
        longest_collapsed_ms: 0,
        longest_running_ms: 0,
        switches,
        end_ms: end,
        ends_collapsed: switches % 2 === 1,
      },
    }) as unknown as Replication;
  const point = {
    collapsed: 1,
    modes: { collapsed: { throughput_tps: 1e4 }, running: { throughput_tps: 3e5 } },
  } as unknown as ContentionPoint;

  it('a collapsed replication that recovers, from either start, makes the point not metastable', () => {
    const held = [rep(10, 1), rep(null, 0), rep(null, 0)];
    expect(metastabilityOf(point, held, [rep(0, 1), rep(0, 1), rep(0, 1)])).toMatchObject({
      metastable: true,
      running_state: 'holds',
      depends_on_start: true,
    });
    expect(metastabilityOf(point, [rep(10, 2), rep(null, 0), rep(null, 0)], held).metastable).toBe(false);
    expect(metastabilityOf(point, held, [rep(0, 1), rep(0, 2), rep(null, 0)]).metastable).toBe(false);
  });

  it('more replications tipping in the longer window: the running state decays; the same number: it holds', () => {
    expect(metastabilityOf(point, [rep(10, 1), rep(90, 1), rep(null, 0)], [rep(0, 1)]).running_state).toBe('decays');
    expect(metastabilityOf(point, [rep(10, 1), rep(null, 0), rep(null, 0)], [rep(0, 1)]).running_state).toBe('holds');
  });
});

describe('the start-state probes on the worker threads', () => {
  it('rowsim run, and rowsim merge of two parts, give the probes of the run on one thread', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-probes-'));
    const config = join(dir, 'point.yaml');
    writeFileSync(config, `name: point\nseed: 1\ncontention: ${JSON.stringify(workload(3350, '67ns'))}\n`);
    const contention = (folder: string): unknown =>
      (JSON.parse(readFileSync(join(folder, 'results.json'), 'utf8')) as { contention: unknown }).contention;
    const expected = JSON.parse(JSON.stringify(point(3350, '67ns').results)) as { entries: { points: { metastability?: unknown }[] }[] };
    expect(expected.entries[0]!.points[0]!.metastability).toBeDefined();
    const run = rowsim(['run', config, '--out', join(dir, 'single'), '--quiet', '--workers', '2']);
    expect(run.stderr).toBe('');
    expect(contention(join(dir, 'single'))).toEqual(expected);
    const parts = [1, 2].map((k) => join(dir, `part-${k}-of-2`));
    parts.forEach((part, i) => expect(rowsim(['run', config, '--shard', `${i + 1}/2`, '--out', part, '--quiet']).code).toBe(0));
    const merge = rowsim(['merge', ...parts, '--out', join(dir, 'merged'), '--quiet']);
    expect(merge.stderr).toBe('');
    expect(contention(join(dir, 'merged'))).toEqual(expected);
  });
});

describe('a sweep names its probed cells', () => {
  it('one line per bimodal cell in summary.md and on the terminal: the cell, metastable, its modes', () => {
    const results = runContentionInProcess(
      parseContention({ ...workload(3350, '67ns'), sweep: { 'latched.handoff_per_waiter': ['20ns', '67ns'] } }),
      1,
    );
    const lines = (text: string) =>
      text.split('\n').filter((l) => /latched\.handoff_per_waiter 67ns \(latched, 80 engines, 3,350 users\): (\*\*)?metastable/.test(l));
    const md = lines(contentionMarkdown(results));
    expect(md).toHaveLength(1);
    expect(md[0]).toMatch(/^- .*modes [\d,]+ and [\d,]+ tps; from the idle start 1 of 4 collapses .* from a backlog start 4 of 4\.$/);
    expect(lines(contentionTerminal(results))).toHaveLength(1);
    expect(contentionMarkdown(results)).not.toMatch(/handoff_per_waiter 20ns \(latched/);
  });
});
