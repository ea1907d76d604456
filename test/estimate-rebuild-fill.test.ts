/**
 * The rebuild-fill study (src/estimate/rebuild-fill.ts) on InnoDB: rows of about 63 bytes grow to about
 * 173 (notes 0–40 → 60–200 bytes), so a sorted rebuild must leave the leaves at most about a third full
 * (63 / 173 ≈ 36%, less for the longest notes) for the growth to split nothing; and MERGE_THRESHOLD must
 * be below the fill, else the emptier pages merge as rows change (the MySQL manual, "Configuring the
 * Merge Threshold for Index Pages").
 */
import { describe, expect, it } from 'vitest';
import { runEstimate } from '../src/estimate/estimate.js';
import { rebuildFillStudy, splitStory } from '../src/estimate/rebuild-fill.js';
import { loadEstimateConfig } from '../src/loader/config.js';

const YAML = `name: fill
seed: 7
table:
  name: orders
  columns:
    - { name: id, type: binary(16) }
    - { name: customer, type: int }
    - { name: placed, type: datetime }
    - { name: note, type: varchar(400), null: true }
  indexes:
    - { name: PRIMARY, columns: [id], unique: true, clustered: true, when: before_load }
engine: { format: innodb }
estimate: { seeds: 2 }
workload:
  - insert:
      rows: 8000
      values:
        id: { order: ascending }
        note: { length: { uniform: [0, 40] }, null: 0 }
  - update:
      rows: all
      order: random
      set:
        note: { length: { uniform: [60, 200] }, null: 0 }
`;

describe('rebuild fill (innodb)', () => {
  const cfg = loadEstimateConfig('fill.yaml', {}, YAML);
  const wl = cfg.source.kind === 'workload' ? cfg.source.workload : undefined;
  const s = rebuildFillStudy(cfg, wl)!;

  it('recommends the fullest fill factor whose rebuild takes the growth without a split', () => {
    expect(s.key).toBe('innodb_fill_factor');
    expect(s.recommended).toBeGreaterThanOrEqual(25);
    expect(s.recommended).toBeLessThanOrEqual(36);
    const rec = s.rows.find((r) => r.value === s.recommended)!;
    expect(rec.splits).toBe(0);
    expect(s.rows.filter((r) => r.value > s.recommended!).every((r) => r.splits > 0)).toBe(true);
    expect(rec.pages_after_rebuild).toBeGreaterThan(2.5 * s.rows[0]!.pages_after_rebuild);
  });

  it('prints the commands, MERGE_THRESHOLD below the fill, and states what it assumed', () => {
    expect(s.commands).toEqual([
      `ALTER TABLE orders COMMENT='MERGE_THRESHOLD=${Math.floor(s.recommended! / 2)}';`,
      `SET GLOBAL innodb_fill_factor=${s.recommended};`,
      'OPTIMIZE TABLE orders;',
      'SET GLOBAL innodb_fill_factor=100;',
    ]);
    expect(s.source).toContain('Sorted Index Builds');
    expect(s.assumed.join(' ')).toContain('rebuilt once');
  });

  it('compares the clustered key inserted ascending and at random', () => {
    const [asc, rnd] = s.key_order!.rows;
    expect(s.key_order!.column).toBe('id');
    expect(asc!.order).toBe('ascending');
    expect(rnd!.splits).toBeGreaterThan(0);
  });

  it('says in its headline that the rows never forward and the pages split instead', async () => {
    const out = await runEstimate(cfg);
    expect(out.verdict.status).toBe('nothing_to_change');
    expect(out.verdict.headline).toContain('its pages split instead (the rebuild fill factor below)');
    expect(out.verdict.headline).not.toContain('no setting to change');
  });

  it('needs a growth after the load', () => {
    expect(splitStory(wl!.slice(0, 1))).toBeUndefined();
  });
});
