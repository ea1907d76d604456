/**
 * The lesson in docs/teaching.md and its configs in sim-configs/teaching/ stay true:
 *
 * - every config there validates and runs;
 * - every command line the lesson quotes (`rowsim …` or `npx rowsim …`, in code blocks or inline code)
 *   names a rowsim command, a config that exists and options that `rowsim <command> --help` lists, and
 *   the full ones (with a config) run as written (into a temporary folder);
 * - the key figures the lesson states are the ones rowsim computes (results.json, the trace, the page);
 * - the 45-minute lesson's minutes add up to 45 (the 60-minute one's to 60), its commands, run as written
 *   in a fresh folder, write exactly the decks it names, one each, and every step it opens is in its deck.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, rowsim } from './helpers/cli.js';
import { inProcessRunner } from './helpers/corpus.js';

const DIR = join(ROOT, 'sim-configs', 'teaching');
const LESSON = join(ROOT, 'docs', 'teaching.md');
const configs = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const tmp = () => mkdtempSync(join(tmpdir(), 'rowsim-teaching-'));

/**
 * The lesson's fifty-odd command lines (and --help) run in two long-lived children of the corpus's
 * (test/helpers/corpus.ts: rowsim's command line loaded once, stdout, stderr and exit status captured as
 * a process's): each takes milliseconds, its own process took hundreds loading rowsim. The configs'
 * validate and run, and the trace and page outputs quoted, run as processes of their own.
 */
const runner = inProcessRunner(2);
afterAll(() => runner.close());
async function inProcess(args: string[], cwd = ROOT): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await runner.run(args, cwd);
  expect(r.hung, `rowsim ${args.join(' ')} hung`).toBe(false);
  return r;
}

interface Metrics {
  [k: string]: number;
}
interface Point {
  label: string;
  phases: { label: string; metrics: Metrics }[];
  final: Metrics;
}

/** The command lines the lesson quotes: lines of its code blocks and inline code spans. */
export function quotedCommands(md: string): string[] {
  const out: string[] = [];
  let fence = false;
  for (const line of md.split(/\r?\n/)) {
    if (/^\s*```/.test(line)) {
      fence = !fence;
      continue;
    }
    if (fence) {
      const t = line.trim();
      if (/^(npx )?rowsim /.test(t)) out.push(t.replace(/\s+#.*$/, ''));
      continue;
    }
    for (const m of line.matchAll(/`((?:npx )?rowsim [^`]*)`/g)) out.push(m[1]!.trim());
  }
  return out;
}

function words(cmd: string): string[] {
  return cmd.replace(/^npx /, '').split(/\s+/).slice(1);
}

const helpCache = new Map<string, Set<string>>();
async function optionsOf(command: string): Promise<Set<string>> {
  let o = helpCache.get(command);
  if (!o) {
    const r = await inProcess([command, '--help']);
    expect(r.code, `rowsim ${command} --help: ${r.stderr}`).toBe(0);
    o = new Set([...r.stdout.matchAll(/(?<![\w-])(--[a-z][a-z-]*)/g)].map((m) => m[1]!));
    helpCache.set(command, o);
  }
  return o;
}

const results = new Map<string, Point[]>();
function point(config: string, label: string): Point {
  const p = results.get(config)?.find((q) => q.label === label);
  if (!p) throw new Error(`no point ${label} of ${config}`);
  return p;
}
const peak = (p: Point, key: string) => Math.max(...p.phases.map((ph) => ph.metrics[key] ?? 0));

describe('sim-configs/teaching', () => {
  it('has the lesson’s configs', () => {
    expect(configs).toEqual([
      'ase-exp-row-size.yaml',
      'ase-forwarding.yaml',
      'ase-reorg.yaml',
      'innodb-split.yaml',
      'oracle-pctfree.yaml',
      'postgres-hot.yaml',
      'sqlserver-pfs.yaml',
    ]);
  });

  it.each(configs)('%s starts with a comment, validates and runs', { timeout: 120_000 }, (config) => {
    const path = join(DIR, config);
    expect(readFileSync(path, 'utf8')).toMatch(/^# Teaching \d — /);
    const v = rowsim(['validate', path]);
    expect(v.stderr).toBe('');
    expect(v.code).toBe(0);
    const out = join(tmp(), 'out');
    const r = rowsim(['run', path, '--out', out, '--quiet', '--check']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const res = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { storage: Point[] };
    // A handful of rows on one to three pages: every step fits the trace's default 50 steps.
    for (const p of res.storage) {
      expect(p.final.pages).toBeLessThanOrEqual(3);
      expect(p.final.rows).toBeLessThanOrEqual(40);
    }
  });
});

describe('docs/teaching.md', () => {
  const lesson = readFileSync(LESSON, 'utf8');
  const commands = quotedCommands(lesson);

  beforeAll(async () => {
    await Promise.all(
      configs.map(async (config) => {
        const out = join(tmp(), 'out');
        const r = await inProcess(['run', join(DIR, config), '--out', out, '--quiet']);
        expect(r.code, r.stderr).toBe(0);
        results.set(config, (JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { storage: Point[] }).storage);
      }),
    );
  }, 120_000);

  it('quotes commands for every config', () => {
    for (const config of configs)
      expect(
        commands.some((c) => c.includes(`sim-configs/teaching/${config}`)),
        config,
      ).toBe(true);
  });

  it('quotes only commands, configs and options that exist', { timeout: 60_000 }, async () => {
    const bad: string[] = [];
    for (const cmd of commands) {
      const [command, ...rest] = words(cmd);
      if (!['run', 'validate', 'page', 'trace', 'estimate', 'rowsize', 'pg-check', 'calibrate', 'playground'].includes(command!)) {
        bad.push(`${cmd}: no command ${command}`);
        continue;
      }
      const opts = await optionsOf(command!);
      for (const w of rest) {
        if (w.startsWith('--') && !opts.has(w)) bad.push(`${cmd}: rowsim ${command} --help lists no ${w}`);
        if (w.endsWith('.yaml') && !existsSync(join(ROOT, w))) bad.push(`${cmd}: no file ${w}`);
      }
    }
    expect(bad, bad.join('\n')).toEqual([]);
  });

  it('runs every full command line as written', { timeout: 300_000 }, async () => {
    const full = commands.filter((c) => /\.yaml(\s|$)/.test(c) && !c.includes('…'));
    expect(full.length).toBeGreaterThan(20);
    const failed: string[] = [];
    const runOne = async (cmd: string) => {
      const args = words(cmd);
      const command = args[0]!;
      // Into a temporary folder, quietly: the options the lesson gives are kept.
      const extra =
        command === 'run'
          ? ['--out', join(tmp(), 'o'), '--quiet']
          : command === 'trace'
            ? ['--out', join(tmp(), 'o'), '--quiet']
            : command === 'page'
              ? ['--out', join(tmp(), 'o')]
              : [];
      const r = await inProcess([...args, ...extra]);
      if (r.code !== 0) failed.push(`${cmd}: exit ${r.code}: ${r.stderr.trim()}`);
    };
    await Promise.all([...new Set(full)].map(runOne));
    expect(failed, failed.join('\n')).toEqual([]);
  });

  it('states the figures rowsim computes', () => {
    // Part 1: three of 13 rows forwarded, a scan reads 5 pages, at both points.
    expect(lesson).toContain('`peak fwd` 3 (23.08%), `fwd at end` 3, `scan reads` 5');
    for (const label of ['exp_row_size=1', 'exp_row_size=0']) {
      const p = point('ase-forwarding.yaml', label);
      expect(peak(p, 'forwarded_rows')).toBe(3);
      expect(p.final.forwarded_rows).toBe(3);
      expect(p.final.table_scan_page_reads).toBe(5);
      expect(p.final.pages).toBe(2);
    }
    // Part 1 on InnoDB: no forwarding; one split leaves three pages (two leaves and a root).
    expect(lesson).toContain('3 pages, `peak fwd` 0, `scan reads` 2, `used %` 53.97, `page_splits` 1');
    const split = point('innodb-split.yaml', 'base').final;
    expect([split.pages, split.forwarded_rows, split.table_scan_page_reads, split.space_used_pct, split.page_splits]).toEqual([
      3, 0, 2, 53.97, 1,
    ]);
    // Part 2: 252 and 200 forward none, 180 forwards 2.
    expect(lesson).toContain('180 forwards 2');
    expect(
      ['exp_row_size=252', 'exp_row_size=200', 'exp_row_size=180'].map((l) => point('ase-exp-row-size.yaml', l).final.forwarded_rows),
    ).toEqual([0, 0, 2]);
    // Part 3: one row home, one re-homed, one exclusive table lock, no forwarding left.
    expect(lesson).toContain('`excl. locks` 1');
    const reorg = point('ase-reorg.yaml', 'base').final;
    expect([reorg.forwarded_rows, reorg.exclusive_table_locks, reorg.rows_moved_home, reorg.rows_rehomed, reorg.rows]).toEqual([
      0, 1, 1, 1, 11,
    ]);
    // Part 4: fillfactor 100: no HOT update, 4 to a new page; 70: 4 HOT, none to a new page.
    expect(lesson).toContain('fillfactor 100: `HOT upd.` 0, `new-page upd.` 4');
    expect(lesson).toContain('fillfactor 70:\n`HOT upd.` 4, `new-page upd.` 0');
    const ff100 = point('postgres-hot.yaml', 'fillfactor=100').final;
    const ff70 = point('postgres-hot.yaml', 'fillfactor=70').final;
    expect([ff100.hot_updates, ff100.newpage_updates, ff70.hot_updates, ff70.newpage_updates]).toEqual([0, 4, 4, 0]);
    // Part 5: 3 / 1 / 0 migrated rows; a rowid fetch of every row adds 3 block visits at PCTFREE 0.
    expect(lesson).toContain('3 at PCTFREE 0, 1 at 10, 0 at 20');
    expect(['pctfree=0', 'pctfree=10', 'pctfree=20'].map((l) => point('oracle-pctfree.yaml', l).final.forwarded_rows)).toEqual([3, 1, 0]);
    expect(point('oracle-pctfree.yaml', 'pctfree=0').final.table_fetch_continued_row).toBe(3);
    // Part 6: PFS bands forward 1 row, exact free space 2; the forwarded row moves home.
    const on = point('sqlserver-pfs.yaml', 'pfs_bands=on');
    const off = point('sqlserver-pfs.yaml', 'pfs_bands=off');
    expect([peak(on, 'forwarded_rows'), peak(off, 'forwarded_rows'), on.final.forwarded_rows, off.final.forwarded_rows]).toEqual([
      1, 2, 0, 1,
    ]);
    expect(on.final.moved_home_on_update).toBe(1);
  });

  it('points at what the trace and the page drawing show', () => {
    const trace = rowsim(['trace', join(DIR, 'ase-forwarding.yaml'), '--out', join(tmp(), 't')]).stdout;
    expect(trace).toMatch(
      /14\. \[2 update\] update row 0: grows 152 → 252 B; page 0 has 0 B free → .*forwarded to page 1 slot 0, a new page; a 10 B stub stays at page 0 slot 0/,
    );
    expect(lesson).toContain(
      'page 0 has 0 bytes free, so the row is forwarded to page 1\n  slot 0, a new page, and a 10-byte stub stays at page 0 slot 0',
    );
    const innodb = rowsim(['trace', join(DIR, 'innodb-split.yaml'), '--out', join(tmp(), 't')]).stdout;
    expect(innodb).toMatch(/14\. .*update row 0: grows 283 → 383 B; page 0 has 278 B free,/);
    expect(innodb).toMatch(
      /16\. \[2 update\] page 0 is split: 6 rows \(7–12\) move to a new page 2 .*\n.*update row 4: .*page 0 has 78 B free → not enough/,
    );
    expect(lesson).toContain('"page 0 is split: 6 rows (7–12) move to a new\n  page 2"');
    const leaf = rowsim(['page', join(DIR, 'innodb-split.yaml'), '--page', '2', '--format', 'text']).stdout;
    expect(leaf).toContain('566 in PAGE_GARBAGE');
    expect(lesson).toContain('"566 in\n  PAGE_GARBAGE"');
    const page = rowsim(['page', join(DIR, 'ase-exp-row-size.yaml'), '--after', '1', '--format', 'text']).stdout;
    expect(page).toContain('free 924 B: 924 contiguous (700 of it reserved), 0 in holes');
    expect(lesson).toContain('"free 924 B: 924 contiguous (700 of it reserved), 0 in holes"');
    // The decks are named by sweep point: the lesson opens the one it ran.
    expect(lesson).toContain('trace-exp-row-size-1.html#14');
    const pfs = rowsim(['trace', join(DIR, 'sqlserver-pfs.yaml'), '--point', 'pfs_bands=on', '--out', join(tmp(), 't')]).stdout;
    expect(pfs).toMatch(/ 9\. .*page 0 has 1560 B free, but its PFS band \(PFS: 81–95 % full\) promises only 403 B/);
    expect(lesson).toContain('promises only 403 B');
    const pg = rowsim(['trace', join(DIR, 'postgres-hot.yaml'), '--point', 'fillfactor=70', '--out', join(tmp(), 't')]).stdout;
    expect(pg).toMatch(/page 0 is pruned on access: 4 dead versions removed, 1760 B freed/);
    expect(lesson).toContain('"page 0 is pruned on access: 4 dead versions removed, 1760 B freed"');
  });
});

/** The files under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

/** The minutes column (its first number column) of the table that follows `heading`, or that starts with it. */
function minutes(md: string, heading: string): number[] {
  const rest = md.slice(md.indexOf(heading));
  const table = rest.slice(heading.startsWith('|') ? 0 : rest.indexOf('\n|') + 1).split('\n\n')[0]!;
  return table
    .split('\n')
    .slice(2)
    .map((row) => Number(row.split('|').find((c) => /^\s*\d+\s*$/.test(c))));
}

describe('the 45-minute lesson in docs/teaching.md', () => {
  const lesson = readFileSync(LESSON, 'utf8');
  const section = lesson.slice(lesson.indexOf('## The 45-minute lesson'));

  it('has parts whose minutes add up to 45 (and the 60-minute lesson’s to 60)', () => {
    expect(section.length).toBeGreaterThan(100);
    const parts = minutes(section, '## The 45-minute lesson');
    expect(parts.length).toBeGreaterThanOrEqual(5);
    expect(parts.reduce((a, b) => a + b, 0)).toBe(45);
    expect(section).toContain('Total: 45 minutes');
    expect(minutes(lesson, '| part | minutes |').reduce((a, b) => a + b, 0)).toBe(60);
  });

  it(
    'writes, with the commands it lists, exactly the decks it names, and each holds the steps it opens',
    { timeout: 300_000 },
    async () => {
      const commands = quotedCommands(section);
      expect(commands.length).toBeGreaterThanOrEqual(5);
      // As written, in a fresh folder that holds the configs: the decks land in its out/.
      const cwd = tmp();
      symlinkSync(join(ROOT, 'sim-configs'), join(cwd, 'sim-configs'));
      for (const cmd of commands) {
        const r = await inProcess(words(cmd), cwd);
        expect(r.stderr, cmd).toBe('');
        expect(r.code, cmd).toBe(0);
      }
      const written = filesUnder(join(cwd, 'out'))
        .filter((f) => f.endsWith('.html'))
        .sort();
      // One deck a command: none overwrote another.
      expect(written.length).toBe(commands.filter((c) => c.startsWith('npx rowsim trace ')).length);
      const steps = new Map<string, number[]>();
      let deck = '';
      for (const m of section.matchAll(/`((teach-[^`#\s]+\.html))?#(\d+)`/g)) {
        if (m[1]) deck = m[1];
        steps.set(deck, [...(steps.get(deck) ?? []), Number(m[3])]);
      }
      expect([...steps.keys()].sort()).toEqual(written);
      for (const [name, want] of steps) {
        const html = readFileSync(join(cwd, 'out', name), 'utf8');
        for (const n of want) expect(html, `${name}#${n}`).toContain(`data-step="${n}"`);
      }
    },
  );
});
