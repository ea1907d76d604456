/**
 * bench/ab.ts, two builds side by side in one process: its command line, its summary of paired rounds,
 * and a run of this checkout's build against itself.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pairedSummary, parseAbArgs } from '../bench/ab.js';
import { BENCH_DIST, ROOT } from '../bench/paths.js';

describe('bench ab: two builds side by side', () => {
  it('reads OTHER, a format, an order and the counts; says what is wrong otherwise', () => {
    expect(parseAbArgs(['../main'])).toEqual({
      other: '../main',
      workload: 'storage',
      format: 'postgres-heap',
      order: 'random',
      rounds: 6,
      rows: 1_000_000,
    });
    expect(parseAbArgs(['../main', 'contention', '--rounds', '2'])).toMatchObject({ workload: 'contention', rounds: 2 });
    expect(parseAbArgs(['../main', 'ase-dol', 'sequential', '--rounds', '3', '--rows', '5000'])).toEqual({
      other: '../main',
      workload: 'storage',
      format: 'ase-dol',
      order: 'sequential',
      rounds: 3,
      rows: 5000,
    });
    expect(parseAbArgs([])).toMatch(/^usage: /);
    expect(parseAbArgs(['../main', 'postgres'])).toMatch(/expected a format or random\|sequential, found "postgres"/);
    expect(parseAbArgs(['../main', '--rounds', '0'])).toMatch(/--rounds: expected a whole number of at least 1, found "0"/);
    expect(parseAbArgs(['../main', '--fast'])).toMatch(/unknown option --fast/);
  });

  it("pairs the rounds: each build's median, and OTHER ÷ this per round with its median and range", () => {
    const s = pairedSummary([2, 3, 4], [1, 3, 2]);
    expect(s.other.median).toBe(3);
    expect(s.mine.median).toBe(2);
    expect(s.ratio).toEqual({ median: 2, min: 1, max: 2 });
    expect(() => pairedSummary([1], [])).toThrow(/rounds of both builds/);
  });

  it('runs the workload on both builds and prints the ratio; a checkout without a built bench: exit 2', () => {
    const ab = join(BENCH_DIST, 'ab.js');
    const r = spawnSync(process.execPath, [ab, ROOT, '--rounds', '1', '--rows', '2000'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^postgres-heap random updates, 2000 rows, 1 rounds\n/);
    expect(r.stdout).toMatch(/\nother ÷ this, per round: median \d+\.\d{3} \(/);
    const none = spawnSync(process.execPath, [ab, join(ROOT, 'docs')], { encoding: 'utf8' });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/docs: no built bench .*run npm run build && npm run build:bench there/);
  });
});
