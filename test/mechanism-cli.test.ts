/**
 * rowsim page and rowsim trace through the real command line: what each writes and prints, and that their
 * folders live beside a run's files in out/<name>/ in either order (each is an output folder of its own).
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rowsim } from './helpers/cli.js';

const CONFIG = `name: cli-pages
seed: 5
table:
  name: t
  columns:
    - { name: id, type: int }
    - { name: body, type: varchar(400), null: true }
engine: { format: ase-dol, page_size: 2k }
workload:
  - insert: { rows: 30, values: { body: { length: { uniform: [20, 60] } } } }
  - update: { rows: 10, order: random, set: { body: { length: { uniform: [200, 300] } } } }
  - reorg: forwarded_rows
sweep:
  engine.exp_row_size: [1, 300]
`;

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-pages-'));
  writeFileSync(join(dir, 'c.yaml'), CONFIG);
  return dir;
}

describe('rowsim page', () => {
  it('writes the SVG and PNG into out/<name>/pages/ and prints the slots, the first with a stub by default', () => {
    const dir = folder();
    const r = rowsim(['page', 'c.yaml', '--after', '2'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^cli-pages, exp_row_size=1, after phase 2 \(update 10 rows/);
    expect(r.stdout).toMatch(/stub\s+\d+\s+\d+\s+10\s+→ \(\d+,\d+\)/);
    const files = readdirSync(join(dir, 'out', 'cli-pages', 'pages')).sort();
    expect(files.filter((f) => !f.startsWith('.'))).toEqual(['page-exp-row-size-1-after-2-p0.png', 'page-exp-row-size-1-after-2-p0.svg']);
    const png = readFileSync(
      join(
        dir,
        'out',
        'cli-pages',
        'pages',
        files.find((f) => f.endsWith('.png'))!,
      ),
    );
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.readUInt32BE(16)).toBeGreaterThan(800);
  });

  it('trace --scale takes 1 to 1.5 (larger lettering leaves a long step no room for its drawings); 2 is an input error', () => {
    const dir = folder();
    const big = rowsim(['trace', 'c.yaml', '--scale', '2', '--out', 't2'], dir);
    expect(big.code).toBe(2);
    expect(big.stderr).toContain('1 to 1.5');
    expect(existsSync(join(dir, 't2'))).toBe(false);
    expect(rowsim(['trace', 'c.yaml', '--scale', '1.5', '--out', 't15', '--quiet'], dir).code).toBe(0);
  });

  it('--scale 2 doubles the PNG; --format json is the drawing; --format text only prints', () => {
    const dir = folder();
    const one = rowsim(['page', 'c.yaml', '--format', 'png', '--out', 'a'], dir);
    const two = rowsim(['page', 'c.yaml', '--format', 'png', '--scale', '2', '--out', 'b'], dir);
    expect(one.code + two.code).toBe(0);
    const width = (d: string) =>
      readFileSync(
        join(
          dir,
          d,
          readdirSync(join(dir, d)).find((f) => f.endsWith('.png'))!,
        ),
      ).readUInt32BE(16);
    expect(width('b')).toBe(2 * width('a'));
    const j = rowsim(['page', 'c.yaml', '--point', 'exp_row_size=300', '--after', '1', '--page', '0', '--format', 'json'], dir);
    expect(j.code).toBe(0);
    const doc = JSON.parse(j.stdout) as {
      point: string;
      after_phase: number;
      drawing: { format: string; detail: { page: number; reservedBytes: number; slots: unknown[] } };
    };
    expect(doc.point).toBe('exp_row_size=300');
    expect(doc.after_phase).toBe(1);
    expect(doc.drawing.format).toBe('ase-dol');
    expect(doc.drawing.detail.reservedBytes).toBeGreaterThan(0);
    const t = rowsim(['page', 'c.yaml', '--row', '3', '--after', '1', '--format', 'text'], dir);
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^3\s+row\s+3\s/m);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('lives beside a run: page before run, run, page and trace after, a second run: every command accepts the folder', () => {
    const dir = folder();
    for (const args of [
      ['page', 'c.yaml', '--format', 'svg'],
      ['run', 'c.yaml', '--quiet'],
      ['trace', 'c.yaml', '--quiet'],
      ['page', 'c.yaml', '--page', '1', '--format', 'svg'],
      ['run', 'c.yaml', '--quiet'],
    ]) {
      const r = rowsim(args, dir);
      expect(r.stderr, args.join(' ')).toBe('');
      expect(r.code, args.join(' ')).toBe(0);
    }
    const out = join(dir, 'out', 'cli-pages');
    expect(readdirSync(out).sort()).toEqual(expect.arrayContaining(['pages', 'trace', 'results.json', 'summary.md']));
    // The page folder keeps every page command's drawing: each is named by what it shows.
    expect(readdirSync(join(out, 'pages')).filter((f) => !f.startsWith('.'))).toEqual([
      'page-exp-row-size-1-after-3-p0.svg',
      'page-exp-row-size-1-after-3-p1.svg',
    ]);
  });
});

describe('rowsim trace', () => {
  it('prints the steps and writes the deck and the steps as JSON', () => {
    const dir = folder();
    const r = rowsim(['trace', 'c.yaml', '--rows', '0..40', '--steps', '200'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ +1\. \[1 insert\] insert row 0 \(\d+ B\) → page 0 slot 0/m);
    expect(r.stdout).toMatch(/forwarded to page \d+ slot \d+/);
    expect(r.stdout).toMatch(/\[3 reorg forwarded_rows\]/);
    expect(r.stdout).toContain('slide deck: out/cli-pages/trace/trace-exp-row-size-1-rows-0-40.html');
    const json = JSON.parse(readFileSync(join(dir, 'out', 'cli-pages', 'trace', 'trace-exp-row-size-1-rows-0-40.json'), 'utf8')) as {
      truncated: boolean;
      steps: { step: number; text: string }[];
    };
    expect(json.truncated).toBe(false);
    expect(json.steps.length).toBe((r.stdout.match(/^ *\d+\. \[/gm) ?? []).length);
  });

  it('--page narrows to what changes the page; a page no step changes says so', () => {
    const dir = folder();
    const r = rowsim(['trace', 'c.yaml', '--page', '1', '--steps', '500'], dir);
    expect(r.code).toBe(0);
    for (const line of r.stdout.split('\n').filter((l) => /^ *\d+\. \[/.test(l))) expect(line).toMatch(/page 1|reorg|commit/);
    const none = rowsim(['trace', 'c.yaml', '--page', '999', '--out', 'x'], dir);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('no step of the workload touches page 999');
  });
});
