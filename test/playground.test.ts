/**
 * `rowsim playground`: the page it writes is one file that fetches nothing, carries every teaching
 * config, and its bundled engine (the browser build of the loader, runner and trace, as embedded in the
 * page) gives, run in a bare JavaScript context with only what a browser has, the same results.json
 * entries and the same counters as `rowsim run` for every teaching config. The page's own state (the
 * address's #state and the config edits) is checked in Node too; test/playground-browser.test.ts opens it.
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, rowsim, terminalRows } from './helpers/cli.js';
import type * as Engine from '../src/playground/engine.js';
import { decodeState, encodeState, withEngine, withFormat, withPhase, type Config, type PageState } from '../src/playground/page/state.js';

const TEACHING = join(ROOT, 'sim-configs', 'teaching');
const configs = readdirSync(TEACHING)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

/** The scripts of an HTML page, in order. */
function scripts(html: string): string[] {
  return [...html.matchAll(/<script(?: [^>]*)?>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
}

let html = '';
let engine: typeof Engine;
const cli = new Map<string, { entries: unknown[]; rows: string[][] }>();

beforeAll(() => {
  const out = mkdtempSync(join(tmpdir(), 'rowsim-playground-'));
  const r = rowsim(['playground', '--out', join(out, 'site'), '--quiet']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  html = readFileSync(join(out, 'site', 'index.html'), 'utf8');
  // The page's engine script, run with nothing but what a browser's JavaScript has.
  const context = vm.createContext({ TextEncoder, TextDecoder, structuredClone, console });
  vm.runInContext(scripts(html)[1]!, context);
  engine = (context as unknown as { RowsimEngine: typeof Engine }).RowsimEngine;
  for (const f of configs) {
    const dir = join(out, f.replace('.yaml', ''));
    const run = rowsim(['run', join(TEACHING, f), '--out', dir, '--wide'], ROOT, { COLUMNS: '400' });
    expect(run.code, run.stderr).toBe(0);
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as { storage: unknown[] };
    cli.set(f, { entries: results.storage, rows: terminalRows(run.stdout) });
  }
}, 240_000);

describe('rowsim playground', () => {
  it('writes one page that loads nothing from outside and carries the teaching configs', () => {
    expect(scripts(html)).toHaveLength(3);
    expect(html).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)=/i);
    expect(html).not.toMatch(/\b(fetch|XMLHttpRequest|importScripts)\s*\(/);
    const embedded = JSON.parse(scripts(html)[0]!) as { name: string; text: string }[];
    expect(embedded.map((c) => c.name)).toEqual(configs.map((f) => `teaching/${f}`));
    for (const c of embedded) expect(c.text).toBe(readFileSync(join(TEACHING, c.name.replace('teaching/', '')), 'utf8'));
  });

  it.each(configs)('%s: the bundled engine gives rowsim run’s results and counters', (f) => {
    const r = engine.playConfig(`teaching/${f}`, readFileSync(join(TEACHING, f), 'utf8'));
    if (!r.ok) throw new Error(r.problems.join('\n'));
    const { entries, rows } = cli.get(f)!;
    expect(JSON.parse(JSON.stringify(r.points.map((p) => p.entry)))).toEqual(entries);
    expect(r.counters.rows.map((row) => row.filter((c) => c !== ''))).toEqual(rows);
    for (const p of r.points) {
      expect(p.trace.steps.length).toBeGreaterThan(0);
      expect(p.trace.truncated).toBe(false);
    }
  });

  it('names the config, line and key of a problem, as the command line does', () => {
    const r = engine.playConfig(
      'mine.yaml',
      'name: x\nseed: 1\ntable: { name: t, columns: [] }\nengine: { format: nosuch }\nworkload: []\n',
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.join('\n')).toMatch(/^mine\.yaml:4:/m);
  });

  it('refuses a config too large to run in a browser tab (a shared #state link with 5e7 rows would freeze it)', () => {
    const yaml = (rows: number) =>
      `name: big\nseed: 1\ntable: { name: t, columns: [{ name: id, type: int }] }\nengine: { format: ase-dol }\nworkload:\n  - insert: { rows: ${rows} }\n`;
    const big = engine.playConfig('big.yaml', yaml(50_000_000));
    expect(big.ok).toBe(false);
    if (!big.ok) expect(big.problems[0]).toMatch(/plans 50,000,000 row operations.*at most 200,000/);
    expect(engine.playConfig('small.yaml', yaml(200)).ok).toBe(true);
  });
});

describe('the page’s state', () => {
  const base: PageState = { source: 'teaching/x.yaml', yaml: 'name: é ✓\n', point: 'p=1', step: 7, compare: 'oracle-heap', compareStep: 5 };

  it('goes into the address and back', () => {
    const hash = encodeState(base);
    expect(hash).toMatch(/^#state=[A-Za-z0-9_-]+$/);
    expect(decodeState(hash)).toEqual(base);
    expect(decodeState('#state=not-json')).toBeNull();
    expect(decodeState('#14')).toBeNull();
  });

  it('edits the config: a format, a knob (its sweep goes), a phase', () => {
    const cfg: Config = {
      engine: { format: 'ase-dol', page_size: '2k', exp_row_size: 1 },
      workload: [],
      sweep: { 'engine.exp_row_size': [1, 0] },
    };
    const pg = { id: 'postgres-heap', title: '', pageSizes: [8192], defaultPageBytes: 8192, knob: 'fillfactor', knobUnit: '%' as const };
    expect(withFormat(cfg, pg, undefined)).toEqual({ engine: { format: 'postgres-heap', page_size: '8k' }, workload: [] });
    expect(withEngine(cfg, 'exp_row_size', 200)).toEqual({
      engine: { format: 'ase-dol', page_size: '2k', exp_row_size: 200 },
      workload: [],
    });
    expect(withPhase(cfg, { op: 'update', rows: 2, column: 'note', bytes: 50 }).workload).toEqual([
      { update: { rows: 2, order: 'random', set: { note: { grow: 50 } } } },
    ]);
    expect(cfg.sweep).toBeDefined();
  });
});
