/**
 * The golden files of the estimate sim-configs (test/helpers/golden.ts; test/golden.test.ts checks that every
 * config has its kind), and what the claim_notes and claim_history examples show, read from the same runs'
 * estimate.json (the model and its fit: test/estimate-evidence-fit.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { estimateRun, goldenTests } from './helpers/golden.js';

goldenTests('estimate');

/** The estimate.json of a shipped estimate config that recommends (exit status 0). */
function recommended(config: string) {
  const r = estimateRun(config);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.text);
}

const RUN_MS = 240_000;

describe('the claim_notes example: the evidence fitted on both figures', () => {
  it(
    'the claim_notes story (narrow lengths, 12.45% forwarded, 211,157 pages) is reproduced on both figures, then recommended',
    { timeout: RUN_MS },
    () => {
      // The default sample (5 seeds × 20,000 rows): smaller ones let wider spreads pass (see spread_check).
      const o = recommended('estimate-claim-notes.yaml');
      const c = o.calibration;
      expect(c.reproduced).toBe(true);
      expect(c.misses).toEqual([]);
      expect(c.simulated.interval[0]).toBeLessThanOrEqual(c.measured.pct);
      expect(c.simulated.interval[1]).toBeGreaterThanOrEqual(c.measured.pct);
      expect(c.pages.measured).toBe(211_157);
      expect(c.pages.interval[0]).toBeLessThanOrEqual(211_157);
      expect(c.pages.interval[1]).toBeGreaterThanOrEqual(211_157);
      // The story's rows now spread by about 10.5 bytes (uniform subject, agent and body); the fit finds a narrow spread.
      expect(c.fit.spread_fitted).toBe(true);
      expect(c.fit.lengths_now.sd).toBeGreaterThan(5);
      expect(c.fit.lengths_now.sd).toBeLessThan(20);
      expect(o.verdict).toMatchObject({ status: 'recommended', exit_status: 0 });
      // Rows of at most 176 data bytes on exp_row_size 165: 11 a page, none forwarded (a full run gives 1 row of 2,400,000).
      expect(o.recommendations.forwarding_target.exp_row_size).toBe(165);
      // Every input says where it came from.
      const how = Object.fromEntries(c.inputs.map((i: { name: string }) => [i.name, i]));
      expect(how['column body']).toMatchObject({ how: 'measured' });
      expect(how['column body'].from).toMatch(/claim_notes\.optdiag\.txt:\d+\)$/);
      expect(how['length at insert']).toMatchObject({ how: 'fitted' });
      expect(how['length at insert'].from).toMatch(/Forwarded row count \(.*claim_notes\.optdiag\.txt:18\)/);
      expect(how['spread of the lengths']).toMatchObject({ how: 'fitted' });
      expect(how['spread of the lengths'].from).toMatch(/Data page count \(.*claim_notes\.optdiag\.txt:15\)/);
      expect(how['how rows grow']).toMatchObject({ how: 'assumed' });
      // The spreads the evidence allows hold the story's 10.5 bytes, and 165 holds across them.
      expect(o.spread_check.sd_range[0]).toBeLessThanOrEqual(10.5);
      expect(o.spread_check.sd_range[1]).toBeGreaterThanOrEqual(10.5);
      expect(o.spread_check.value).toBe(165);
    },
  );
});

describe('the claim_history example per partition, and the advice beside the recommendation', () => {
  it(
    "each partition is fitted on its own figures; the partition that needs the most decides the table's one setting",
    { timeout: RUN_MS },
    () => {
      const o = recommended('estimate-claim-history.yaml');
      const parts: { name: string; reproduced: boolean; recommended: number }[] = o.partitions.partitions;
      expect(parts.map((p) => p.name)).toEqual(['claim_history_p2024', 'claim_history_p2025', 'claim_history_p2026']);
      expect(parts.every((p) => p.reproduced)).toBe(true);
      const rec = Object.fromEntries(parts.map((p) => [p.name, p.recommended]));
      // 2024's rows grew to at most 176 data bytes (11 a page at 165: none forwarded); 2026's are shorter.
      expect(rec.claim_history_p2024).toBe(165);
      expect(rec.claim_history_p2026!).toBeLessThan(165);
      expect(o.verdict).toMatchObject({ status: 'recommended', exit_status: 0 });
      expect(o.recommendations.forwarding_target.exp_row_size).toBe(165);
      expect(o.commands).toEqual(["sp_chgattribute 'claim_history', 'exp_row_size', 165"]);
      expect(o.verdict.headline).toMatch(
        /partition claim_history_p2024 needs it on its own figures, where the table's figures taken as one would give \d+/,
      );
      expect(o.partitions.sentence).toMatch(/^the partitions need from exp_row_size \d+ to 165 on their own/);
    },
  );

  it(
    'the rebuild needs the table at the new setting and its indexes, in MB; ASE says what reservepagegap and max_rows_per_page would do',
    { timeout: RUN_MS },
    () => {
      const o = recommended('estimate-claim-notes.yaml');
      const a = o.advice;
      const target = o.recommendations.forwarding_target.exp_row_size;
      const rec = o.candidates.find((c: { exp_row_size: number }) => c.exp_row_size === target);
      expect(a.rebuild).toMatchObject({
        command: 'reorg rebuild claim_notes',
        pages: rec.pages,
        data_bytes: rec.pages * 2048,
        index_bytes: 20368 * 1024,
      });
      expect(a.rebuild.total_bytes).toBe(rec.pages * 2048 + 20368 * 1024);
      expect(a.rebuild.sentence).toMatch(
        /needs about [\d.]+ MB free: the table at the new setting, [\d,]+ pages \([\d.]+ MB\) and its indexes, 19\.9 MB \(sp_spaceused index_size, .*claim_notes\.sp_spaceused\.txt:7\); free space for a complete copy .* \[R6\]$/,
      );
      expect(a.alternatives[0]).toMatch(/^max_rows_per_page: no alternative on this table: ASE applies it to allpages-locked tables only/);
      expect(a.alternatives[1]).toMatch(
        /^reservepagegap 10 \(the manual's example value; the table has none\): does not keep rows from being forwarded/,
      );
    },
  );
});
