/**
 * The estimate's row-length model from the DBA's evidence (src/estimate/length-model.ts,
 * src/loader/evidence-lengths.ts) and its two-figure fit (src/estimate/fit.ts fitGrowthAndSpread): optdiag's
 * column statistics used before any assumption, the spread of the lengths fitted to the data pages and the
 * growth to the forwarded rows, every input named with its file and line, and a page count the fit cannot
 * reach refused (exit status 3). The property test makes evidence by simulating a random growth story on
 * the page engine — not with the model's own length family — and fits it back. What the shipped claim_notes
 * and claim_history examples show (reproduced, per partition, the rebuild advice) is read from their golden
 * runs' estimate.json in test/golden-estimate.test.ts: the same estimates, run once.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitEvidence, runEstimate } from '../src/estimate/estimate.js';
import { simulateCandidate } from '../src/estimate/simulate.js';
import { columnModel, lengthMoments, lengthsNow, spreadLengths } from '../src/estimate/length-model.js';
import { getFormat } from '../src/formats/registry.js';
import { loadConfig, loadEstimateConfig } from '../src/loader/config.js';
import { runStorage } from '../src/workload/runner.js';
import { ROOT, rowsim } from './helpers/cli.js';

const SC = (f: string) => join(ROOT, 'sim-configs', f);
const DDL = SC('estimate/claim_notes.ddlgen.sql');
const tmp = () => mkdtempSync(join(tmpdir(), 'rowsim-evfit-'));

describe('the length model', () => {
  it('spreads a mean over a range that shrinks with the spread, keeping the mean', () => {
    for (const d of [0, 0.1, 0.5, 1]) {
      const m = lengthMoments(spreadLengths(0, 1000, 65.4, d));
      expect(m.mean).toBeCloseTo(65.4, 6);
    }
    expect(lengthMoments(spreadLengths(0, 1000, 65.4, 0)).sd).toBeLessThan(0.5);
    expect(lengthMoments(spreadLengths(0, 1000, 65.4, 1)).sd).toBeGreaterThan(50);
    // At spread 1 it is the maximum-entropy distribution on the whole range (rowsim's earlier assumption).
    expect(lengthMoments(spreadLengths(32, 1287, 149, 1)).p95).toBeGreaterThan(350);
  });

  it("sums the columns: optdiag's widths give a narrow row where one long tail over the row's range does not", () => {
    const cfg = loadEstimateConfig(SC('estimate-claim-notes.yaml'), { sample_rows: 1000, seeds: 1 });
    const layout = getFormat('ase-dol').rows.layout(cfg.table, cfg.engine);
    const model = columnModel(layout, 149, [
      { name: 'subject', avgWidth: 40 },
      { name: 'agent', avgWidth: 12, nullShare: 0 },
      { name: 'body', avgWidth: 65, nullShare: 0 },
      { name: 'resolution', avgWidth: 0, nullShare: 1 },
    ])!;
    expect(model.columns!.map((c) => c.name)).toEqual(['subject', 'agent', 'body', 'resolution']);
    expect(model.mean).toBeCloseTo(149, 6);
    const byColumn = lengthMoments(lengthsNow(model, 1));
    const rowLevel = lengthMoments(lengthsNow({ fixedBytes: 32, min: 32, max: 1287, mean: 149 }, 1));
    expect(byColumn.mean).toBeCloseTo(149, 3);
    expect(byColumn.sd).toBeLessThan(rowLevel.sd);
    expect(byColumn.p95).toBeLessThan(rowLevel.p95);
    // Columns without statistics share what the average row leaves, as one length.
    const partial = columnModel(layout, 149, [{ name: 'subject', avgWidth: 40 }])!;
    expect(partial.columns!.map((c) => c.name)).toEqual(['subject', 'agent, body, resolution']);
    expect(partial.columns![1]!.mean).toBeCloseTo(149 - 32 - 40, 6);
  });
});

describe('fitting the evidence: the forwarded rows and the data pages', () => {
  it("simulates each spread's grid only up to its bracket, and the chosen spread's whole grid for its curve", async () => {
    const cfg = loadEstimateConfig(SC('estimate-claim-notes.yaml'), { sample_rows: 2000, seeds: 2 });
    // The insert shares simulated, by the lengths now (one distribution a spread).
    const shares = new Map<string, Set<number>>();
    const { fitted } = await fitEvidence(cfg, async (tasks) => {
      for (const t of tasks) {
        const g = t.source.kind === 'rows' ? t.source.grown! : undefined;
        const key = JSON.stringify(g!.now);
        if (!shares.has(key)) shares.set(key, new Set());
        shares.get(key)!.add(g!.insertShare);
      }
      return tasks.map(simulateCandidate);
    });
    const grid = [0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1];
    const fit = fitted!.fit!;
    expect(fit.spread_fitted).toBe(true);
    expect(grid.every((s) => fit.curve.some((p) => p.insert_share === s))).toBe(true);
    const partial = [...shares.values()].filter((set) => grid.some((s) => !set.has(s)));
    expect(partial.length).toBeGreaterThan(0);
    expect(shares.size).toBe(fit.spread_curve.length);
  });

  it('without a data page count the spread is assumed, and the output says so', async () => {
    const dir = tmp();
    const text = readFileSync(SC('estimate/claim_notes.optdiag.txt'), 'utf8').replace(/^\s+Data page count:.*\n/gm, '');
    // optdiag always prints the page count; the test removes it to see the assumption named.
    writeFileSync(join(dir, 'o.txt'), text);
    writeFileSync(
      join(dir, 't.yaml'),
      `name: m\ntable: { ddl: ${DDL} }\nengine: { format: ase-dol, page_size: 2k }\nestimate: { measured: { optdiag: o.txt } }\n`,
    );
    let o;
    try {
      o = await runEstimate(loadEstimateConfig(join(dir, 't.yaml'), { sample_rows: 4000, seeds: 3 }));
    } catch (e) {
      // The optdiag reader may insist on the page count: then the file is refused, which is also honest.
      expect(String((e as Error).message)).toMatch(/Data page count/);
      return;
    }
    const spread = o.calibration!.inputs!.find((i) => i.name === 'spread of the lengths')!;
    expect(spread.how).toBe('assumed');
  });

  it('a page count no spread and growth reach is a miss: exit 3, the figure and its distance named, no apply line', () => {
    const dir = tmp();
    const text = readFileSync(SC('estimate/claim_notes.optdiag.txt'), 'utf8').replace(/211157/g, '250000');
    writeFileSync(join(dir, 'o.txt'), text);
    const r = rowsim([
      'estimate',
      '--ddl',
      DDL,
      '--optdiag',
      join(dir, 'o.txt'),
      '--sample-rows',
      '4000',
      '--seeds',
      '3',
      '--out',
      join(dir, 'out'),
    ]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(
      /NOT APPLICABLE: the evidence cannot be reproduced: .*misses the data pages: measured 250,000 \(optdiag Data page count, .*o\.txt:15\), simulated [\d,]+ .*: -1\d\.\d+%, more than the 5% the estimate allows/,
    );
    expect(r.stdout).toMatch(/no apply: command/);
    expect(r.stdout).not.toMatch(/^apply:/m);
  });
});

/** optdiag's output for claim_notes with the given figures (the shipped example's layout). */
function optdiagFor(f: {
  rows: number;
  pages: number;
  forwarded: number;
  rowSize: number;
  subject: number;
  agent: number;
  body: number;
}): string {
  const widths: Record<string, number> = { subject: f.subject, agent: f.agent, body: f.body };
  let text = readFileSync(SC('estimate/claim_notes.optdiag.txt'), 'utf8')
    .replace(/211157/g, String(f.pages))
    .replace(/2400000\.0/g, `${f.rows}.0`)
    .replace(/298771\.0/g, `${f.forwarded}.0`)
    .replace(/Data row size:(\s+)165\.0/g, `Data row size:$1${f.rowSize.toFixed(4)}`);
  for (const [col, w] of Object.entries(widths)) {
    text = text.replace(new RegExp(`("${col}"[\\s\\S]*?Average column width:\\s+)[\\d.]+`), `$1${w.toFixed(4)}`);
  }
  return text;
}

describe('property: evidence made by simulating a random growth story is fitted back', () => {
  it('a simulated table (random lengths, growth and exp_row_size) is reproduced on forwarded rows and pages', async () => {
    const dir = tmp();
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          subject: fc.integer({ min: 10, max: 60 }),
          subjectWidth: fc.integer({ min: 0, max: 20 }),
          body: fc.integer({ min: 20, max: 120 }),
          bodyWidth: fc.integer({ min: 0, max: 40 }),
          exp: fc.integer({ min: 90, max: 190 }),
          seed: fc.integer({ min: 1, max: 1e6 }),
        }),
        async (s) => {
          const rows = 30_000;
          const story = `name: story\nseed: ${s.seed}\ntable: { ddl: ${DDL} }\nengine: { format: ase-dol, page_size: 2k, exp_row_size: ${s.exp} }\nworkload:\n  - insert: { rows: ${rows}, values: { subject: { length: { uniform: [${s.subject}, ${s.subject + s.subjectWidth}] } }, agent: { null: 1 }, body: { null: 1 }, resolution: { null: 1 } } }\n  - update: { rows: all, order: random, set: { agent: { length: { uniform: [8, 16] } }, body: { length: { uniform: [${s.body}, ${s.body + s.bodyWidth}] } } } }\n`;
          writeFileSync(join(dir, 'story.yaml'), story);
          const run = runStorage(loadConfig(join(dir, 'story.yaml')).storage[0]!.spec);
          const m = run.phases[run.phases.length - 1]!.metrics;
          const subject = s.subject + s.subjectWidth / 2;
          const body = s.body + s.bodyWidth / 2;
          // DOL: 8 bytes of row overhead and 2 per variable-length column (4), the 32 fixed bytes, the three columns.
          const rowSize = 8 + 2 * 4 + 32 + subject + 12 + body;
          writeFileSync(
            join(dir, 'o.txt'),
            optdiagFor({ rows, pages: m.pages, forwarded: m.forwarded_rows, rowSize, subject, agent: 12, body }),
          );
          writeFileSync(
            join(dir, 't.yaml'),
            `name: fit\ntable: { ddl: ${DDL} }\nengine: { format: ase-dol, page_size: 2k, exp_row_size: ${s.exp} }\nestimate: { measured: { optdiag: o.txt } }\n`,
          );
          // The fit alone: the rest of the estimate (candidates, the spread check) leaves the calibration as it is.
          const c = (await fitEvidence(loadEstimateConfig(join(dir, 't.yaml'), { sample_rows: 10_000, seeds: 3 }))).fitted!;
          const why = `story ${JSON.stringify(s)}: forwarded ${m.forwarded_rows}, pages ${m.pages}; ${c.sentence}; ${c.misses.join('; ')}`;
          expect(c.misses, why).toEqual([]);
          expect(c.reproduced, why).toBe(true);
          expect(Math.abs(c.pages!.off_pct), why).toBeLessThanOrEqual(2);
        },
      ),
      { numRuns: 6, seed: 20261207, endOnFailure: true },
    );
  }, 240_000);
});

describe('per partition', () => {
  it("partitions whose figures do not add up to the table's are refused, naming the lines", () => {
    const dir = tmp();
    writeFileSync(
      join(dir, 'o.txt'),
      readFileSync(SC('estimate/claim_history.optdiag.txt'), 'utf8').replace(
        /(Statistics for partition:\s+"claim_history_p2026"\n\n\s+Data page count:\s+)61539/,
        '$161000',
      ),
    );
    const r = rowsim([
      'estimate',
      '--ddl',
      SC('estimate/claim_history.ddlgen.sql'),
      '--optdiag',
      join(dir, 'o.txt'),
      '--out',
      join(dir, 'out'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /o\.txt:\d+:1: expected the table's Data page count to be the sum of its 3 partitions' \(lines \d+, \d+, \d+\): 196196, found 196735/,
    );
  });
});
