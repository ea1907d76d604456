/**
 * The pg-scenarios table (src/pgcheck/scenarios.ts): a storage point's comparisons summed up per kind of
 * figure as the worst error over its phases, figures the model does not predict said so, misses of the
 * targets marked, and the configs it covers. No server: pg-check's output is given.
 */
import { describe, expect, it } from 'vitest';
import { KINDS, groupRows, markdownTable, mergeConfigs, scenarioConfigs, summarise } from '../src/pgcheck/scenarios.js';

const c = (phase: number, metric: string, predicted: number | null, observed: number | null) => ({
  phase,
  label: `phase ${phase}`,
  metric,
  predicted,
  observed,
  diff: null,
  diff_pct: null,
});

describe('pg-scenarios', () => {
  it('the worst error of each kind over the phases, relative to the observation; an unmodelled figure is said so', () => {
    const row = summarise('x.yaml', {
      label: 'fillfactor=100',
      table: 't',
      comparisons: [
        c(0, 'heap_pages', 100, 100),
        c(1, 'heap_pages', 101, 100),
        c(1, 'index_pages.a', 50, 48),
        c(1, 'index_pages.b', 20, 20),
        c(1, 'toast_pages', null, 12),
        c(1, 'dead_tuples', 0, 0),
        c(1, 'hot_updates', 10, 0),
      ],
    });
    expect(row.cells.heap).toEqual({ worst: 1, compared: 2, notModelled: 0, at: 'phase 1' });
    expect(row.cells.index!.worst).toBeCloseTo(4.1667, 3);
    expect(row.cells.toast).toEqual({ worst: null, compared: 0, notModelled: 1 });
    expect(row.cells.dead!.worst).toBe(0);
    expect(row.cells.hot!.worst).toBe(100);
    const md = markdownTable([row], 'PostgreSQL 15.20', '2026-12-02');
    expect(md).toContain('| `x.yaml` | fillfactor=100 | **1.00%** | not modelled | **4.17%** | **100.00%** | exact | – |');
    for (const k of KINDS) expect(md).toContain(`${k.title} (target ≤ ${k.target}%)`);
  });

  it("groups a config's consecutive points with the same figures into one row", () => {
    const r = (config: string, point: string, cells: string[]) => ({ config, point, cells });
    const rows = [
      r('a.yaml', 'p=1', ['exact']),
      r('a.yaml', 'p=2', ['exact']),
      r('b.yaml', 'q=1', ['exact']),
      r('b.yaml', 'q=2', ['1.00%']),
    ];
    expect(groupRows(rows)).toEqual([r('a.yaml', 'all 2 points', ['exact']), r('b.yaml', 'q=1', ['exact']), r('b.yaml', 'q=2', ['1.00%'])]);
    const three = [r('c.yaml', 'x', ['–']), r('c.yaml', 'y', ['–']), r('c.yaml', 'z', ['exact'])];
    expect(groupRows(three)[0]).toEqual(r('c.yaml', '2 points: x; y', ['–']));
  });

  it('lists whole configs with the same figures once, and keeps a config of several rows apart', () => {
    const r = (config: string, point: string, cells: string[]) => ({ config, point, cells });
    const rows = [
      r('a.yaml', 'base', ['exact']),
      r('b.yaml', 'q=1', ['exact']),
      r('b.yaml', 'q=2', ['1.00%']),
      r('c.yaml', 'all 6 points', ['exact']),
      r('d.yaml', 'base', ['–']),
    ];
    expect(mergeConfigs(rows)).toEqual([
      r('`a.yaml`, `c.yaml` (all 6 points)', 'every point', ['exact']),
      r('`b.yaml`', 'q=1', ['exact']),
      r('`b.yaml`', 'q=2', ['1.00%']),
      r('`d.yaml`', 'base', ['–']),
    ]);
  });

  it('covers the pg-check scenarios and the shipped configs with a postgres-heap point, not contention or estimate configs', () => {
    const all = scenarioConfigs().map((f) => f.replace(/.*sim-configs\//, ''));
    expect(all).toContain('postgres-hot-fillfactor.yaml');
    expect(all).toContain('teaching/postgres-hot.yaml');
    expect(all.some((f) => f.startsWith('pg-check/'))).toBe(true);
    expect(all).not.toContain('postgres-8-cores.yaml');
    expect(all).not.toContain('estimate-ticket-events.yaml');
    expect(scenarioConfigs(['hot-row']).map((f) => f.replace(/.*sim-configs\//, ''))).toEqual(['pg-check/hot-row.yaml']);
  });
});
