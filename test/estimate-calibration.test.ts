/**
 * Calibration to the DBA's measurements, the verdict (exit status 3 when nothing should be applied),
 * the maintenance what-if, and a check of the estimator against the SAP ASE manual's own worked example
 * of what exp_row_size costs in space (with the check itself tested: wrong models fail it).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calibrate } from '../src/estimate/calibrate.js';
import { runEstimate } from '../src/estimate/estimate.js';
import { aggregate } from '../src/estimate/figures.js';
import { estimateKnob } from '../src/estimate/knob.js';
import { candidateTask, currentCand, samplePlan } from '../src/estimate/plan.js';
import { simulateCandidate } from '../src/estimate/simulate.js';
import { EXIT_NO_RECOMMENDATION } from '../src/estimate/verdict.js';
import { EXIT_INPUT, EXIT_NOT_APPLICABLE } from '../src/cli/main.js';
import { getFormat } from '../src/formats/registry.js';
import { loadEstimateConfig } from '../src/loader/config.js';
import { ROOT } from './helpers/cli.js';

const SC = (f: string) => join(ROOT, 'sim-configs', f);
const small = { sample_rows: 4000, seeds: 3 };
const tmp = () => mkdtempSync(join(tmpdir(), 'rowsim-cal-'));

describe('calibration', () => {
  it('recovers a known growth: evidence made at insert share 0.6 is fitted back to about 0.6, inside its interval', async () => {
    const cfg = loadEstimateConfig(SC('estimate-titles-optdiag.yaml'), small);
    const layout = getFormat(cfg.engine.format).rows.layout(cfg.table, cfg.engine);
    const knob = estimateKnob(cfg.engine.format, layout, cfg.engine);
    const cur = currentCand(knob, cfg.engine);
    // The "truth": the current setting simulated with other seeds than the estimate's, at share 0.6.
    const plan = samplePlan(cfg, layout.fixedNotNullBytes, { insertShare: 0.6, spread: 1 });
    const truth = aggregate(
      knob,
      cur,
      simulateCandidate({ ...candidateTask(cfg, knob, cfg.engine, cur, plan.source), seed: 7, replicates: 5 }),
      plan.tableRows,
      plan.sampleRows,
    );
    cfg.evidence!.moved = { ...cfg.evidence!.moved!, share: truth.forwarded_rows_pct / 100, count: truth.forwarded_rows };
    const cal = (await calibrate(cfg, knob, cur, layout.fixedNotNullBytes, async (t) => t.map(simulateCandidate)))!;
    expect(cal.reproduced).toBe(true);
    expect(Math.abs(cal.fit!.insert_share - 0.6)).toBeLessThan(0.1);
    expect(cal.fit!.insert_share_range[0]).toBeLessThanOrEqual(0.6 + 0.05);
    expect(cal.fit!.insert_share_range[1]).toBeGreaterThanOrEqual(0.6 - 0.05);
    // Moved share falls as rows are inserted longer (less growth).
    const curve = cal.fit!.curve;
    expect(curve[0]!.moved_pct).toBeGreaterThan(curve[curve.length - 1]!.moved_pct);
  });

  it("the shipped ASE example: the fit reproduces optdiag's forwarded rows, and the data pages agree", async () => {
    const o = await runEstimate(loadEstimateConfig(SC('estimate-titles-optdiag.yaml'), small));
    const c = o.calibration!;
    expect(c).toMatchObject({ kind: 'fit', reproduced: true, measured: { count: 526_600, basis: 5_000_000 } });
    expect(c.simulated.interval[0]).toBeLessThanOrEqual(c.measured.pct);
    expect(c.simulated.interval[1]).toBeGreaterThanOrEqual(c.measured.pct);
    expect(c.pages).toMatchObject({ measured: 503_750, label: 'optdiag Data page count' });
    expect(c.sentence).toMatch(/the measurement is inside it/);
    expect(o.verdict).toMatchObject({ status: 'recommended', exit_status: 0 });
    expect(o.formats[0]!.page_bytes).toBe(2048);
  });

  it("the ASE manual's own optdiag figures for titles (4,959 rows, 12 forwarded): the forwarded rows are reproduced, its 650 pages with rows are not [V]", async () => {
    const dir = tmp();
    writeFileSync(
      join(dir, 'titles.optdiag.txt'),
      'Statistics for table:               "titles"\n\n     Data page count:               655\n     Empty data page count:         5\n     Data row count:                4959.000000000\n     Forwarded row count:           12.000000000\n     Deleted row count:             84.000000000\n     Data row size:                 184.000000000\n',
    );
    writeFileSync(
      join(dir, 't.yaml'),
      `name: m\ntable: { ddl: ${SC('estimate/titles.ddlgen.sql')} }\nengine: { format: ase-dol, exp_row_size: 0 }\nestimate: { measured: { optdiag: titles.optdiag.txt } }\n`,
    );
    const o = await runEstimate(loadEstimateConfig(join(dir, 't.yaml'), small));
    // 4,959 rows of 184 bytes fill about 500 pages of 2 KB; the manual's table has 655 (5 of them empty) after
    // 84 deletes and a history the figures do not tell: the forwarded share is reproduced, the pages are a
    // miss of more than 5%, and the estimate says so instead of recommending.
    const c = o.calibration!;
    expect(c).toMatchObject({ kind: 'fit', reproduced: false, measured: { count: 12, basis: 4959 } });
    expect(c.simulated.interval[0]).toBeLessThanOrEqual(c.measured.pct);
    expect(c.simulated.interval[1]).toBeGreaterThanOrEqual(c.measured.pct);
    expect(c.pages).toMatchObject({
      measured: 650,
      label: 'optdiag Data page count less Empty data page count 5',
      within_tolerance: false,
    });
    expect(c.misses).toHaveLength(1);
    expect(c.misses[0]).toMatch(
      /^data pages: measured 650 \(optdiag Data page count less Empty data page count 5, .*titles\.optdiag\.txt:3\), simulated [\d,]+ .*: -2\d\.\d+%, more than the 5% the estimate allows$/,
    );
    expect(o.verdict).toMatchObject({ status: 'evidence_not_reproduced', exit_status: 3 });
    expect(o.verdict.headline).toMatch(/reproduces optdiag Forwarded row count 12 of 4,959 rows .* but misses the data pages/);
    expect(o.sample).toMatchObject({ table_rows: 4959, sampled: true });
  });
});

describe('the verdict: exit status 3 and no command when nothing should be applied', () => {
  it("is the command line's EXIT_NOT_APPLICABLE, apart from bad input's 2", () => {
    expect(EXIT_NO_RECOMMENDATION).toBe(EXIT_NOT_APPLICABLE);
    expect(EXIT_NOT_APPLICABLE).toBe(3);
    expect(EXIT_INPUT).toBe(2);
  });

  it('evidence no growth model reproduces (25.83% forwarded, more than any growth of these rows gives)', async () => {
    const o = await runEstimate(loadEstimateConfig(SC('estimate-titles-unexplained.yaml'), small));
    expect(o.verdict).toMatchObject({ status: 'evidence_not_reproduced', exit_status: 3 });
    expect(o.verdict.headline).toMatch(
      /^the evidence cannot be reproduced: optdiag Forwarded row count 1,291,500 of 5,000,000 rows \(25\.83% of rows forwarded\), but even with every row inserted at the shortest length/,
    );
    expect(o.maintenance).toBeUndefined();
  });

  it('a target no setting meets: "no exp_row_size meets 0.01%: the best is …"', async () => {
    const o = await runEstimate(loadEstimateConfig(SC('estimate-titles-optdiag.yaml'), { ...small, target_pct: 0.01 }));
    expect(o.verdict).toMatchObject({ status: 'target_not_met', exit_status: 3 });
    expect(o.verdict.headline).toMatch(/^no exp_row_size meets 0\.01%: the best is \d+ with [\d.]+% \(up to [\d.]+%\)/);
  });

  it('given lengths that do not reproduce the measured forwarding are checked, and refused the same way', async () => {
    const dir = tmp();
    writeFileSync(
      join(dir, 't.yaml'),
      `name: m\ntable: { ddl: ${SC('estimate/titles.ddlgen.sql')} }\nengine: { format: ase-dol }\nestimate:\n  rows: 5000000\n  measured: { csv: ${join(ROOT, 'sim-configs', 'data', 'titles-lengths.csv')}, optdiag: ${SC('estimate/titles.optdiag.txt')} }\n`,
    );
    const o = await runEstimate(loadEstimateConfig(join(dir, 't.yaml'), small));
    expect(o.calibration).toMatchObject({ kind: 'check' });
    expect(o.calibration!.reproduced).toBe(false);
    expect(o.verdict).toMatchObject({ status: 'evidence_not_reproduced', exit_status: 3 });
    expect(o.verdict.headline).toMatch(/the lengths do not describe this table/);
  });

  it('a SQL Server heap has no setting: the target is not met, no command, and the rebuild what-if', async () => {
    const o = await runEstimate(loadEstimateConfig(SC('estimate-case-notes.yaml'), small));
    const f = o.formats[0]!;
    expect(f.knob).toBe('none');
    expect(f.commands).toEqual([]);
    expect(f.page_bytes).toBe(8192);
    expect(o.verdict).toMatchObject({ status: 'target_not_met', exit_status: 3 });
    expect(o.calibration!.reproduced).toBe(true);
    expect(o.maintenance!.periodic_command).toBe('ALTER TABLE case_notes REBUILD');
    expect(o.maintenance!.current.runs.every((r) => r.exclusive_table_locks === 1)).toBe(true);
    expect(o.maintenance!.recommended).toBeUndefined();
  });
});

describe('the maintenance what-if', () => {
  it('the current setting with a weekly reorg against one rebuild to the recommendation, day by day', async () => {
    const o = await runEstimate(loadEstimateConfig(SC('estimate-titles-optdiag.yaml'), small));
    const m = o.maintenance!;
    expect(m).toMatchObject({ every_days: 7, days: 28, periodic_command: 'reorg forwarded_rows titles' });
    expect(m.change_commands).toEqual([
      `sp_chgattribute 'titles', 'exp_row_size', ${o.formats[0]!.forwarding_target.value}`,
      'reorg rebuild titles',
    ]);
    expect(m.current.days).toHaveLength(29);
    expect(m.current.runs.map((r) => r.day)).toEqual([0, 7, 14, 21, 28]);
    // The first run meets today's forwarded rows; later runs only what a week of growth forwards.
    expect(m.current.runs[0]!.forwarded_rows_before).toBeGreaterThan(m.current.runs[1]!.forwarded_rows_before);
    expect(m.current.days[8]!.forwarded_rows).toBeLessThan(m.current.days[7]!.forwarded_rows);
    expect(m.current.days[7]!.forwarded_rows_after_reorg).toBe(0);
    const rec = m.recommended!;
    expect(rec.rebuild!.pages_written).toBeGreaterThan(0);
    expect(rec.days[28]!.forwarded_rows).toBeLessThan(m.totals.peak_forwarded);
    expect(m.summary).toMatch(/^living with exp_row_size 150 and running `reorg forwarded_rows titles` every 7 days/);
  });
});

/**
 * The SAP ASE manual's worked example of what exp_row_size costs ("Estimating the effects of space
 * management properties", [R8]): "If exp_row_size is 100, and 1,000 rows have a length of 60, the
 * increase in space is (100 − 60) × 1000 or 40,000 bytes; approximately 20 additional pages."
 * `extraPages(model)` asks a model for the pages of those 1,000 rows at exp_row_size 100 and at 1.
 */
const MANUAL_EXTRA_PAGES = 20;
function agreesWithManual(extraPages: number): boolean {
  // "approximately": page granularity and the 2-byte row offsets allow a few pages either way.
  return Math.abs(extraPages - MANUAL_EXTRA_PAGES) <= 3;
}

async function estimatorExtraPages(): Promise<number> {
  const dir = tmp();
  // A DOL row of 60 bytes: 8 + data + 2 per variable column (one: the nullable note) [E]: 50 data bytes.
  writeFileSync(join(dir, 'rows.csv'), `insert,now\n${'50,50\n'.repeat(50)}`);
  writeFileSync(
    join(dir, 't.yaml'),
    'name: m\ntable:\n  name: t\n  columns:\n    - { name: id, type: int }\n    - { name: note, type: varchar(100), null: true }\nengine: { format: ase-dol, page_size: 2k }\nestimate:\n  rows: 1000\n  seeds: 1\n  candidates: [1, 100]\n  refine: false\n  measured: { csv: rows.csv }\n',
  );
  const o = await runEstimate(loadEstimateConfig(join(dir, 't.yaml')));
  const pages = (v: number) => o.formats[0]!.candidates.find((c) => c.value === v)!.pages;
  expect(o.sample).toMatchObject({ table_rows: 1000, sampled: false });
  return pages(100) - pages(1);
}

describe("the estimator against the SAP ASE manual's space example [R8]", () => {
  it('the estimator agrees: about 20 more pages for exp_row_size 100 over 1,000 rows of 60 bytes', async () => {
    const extra = await estimatorExtraPages();
    expect(extra).toBe(21); // 2002 / 62 = 32 rows a page packed (32 pages); 2002 / 102 = 19 at 100 (53 pages)
    expect(agreesWithManual(extra)).toBe(true);
  });

  it('the check fails wrong models: no reservation, the whole exp_row_size reserved, reservation per page', () => {
    const usable = 2002;
    const pagesOf = (bytesPerRow: number) => Math.ceil(1000 / Math.floor(usable / bytesPerRow));
    const ignoresSetting = pagesOf(62) - pagesOf(62);
    const reservesWholeSize = pagesOf(60 + 100 + 2) - pagesOf(62);
    const reservesPerPage = Math.ceil(1000 / Math.floor((usable - 100) / 62)) - pagesOf(62);
    for (const wrong of [ignoresSetting, reservesWholeSize, reservesPerPage]) expect(agreesWithManual(wrong)).toBe(false);
  });
});
