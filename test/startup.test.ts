/**
 * Start-up: each command loads only what it needs. `rowsim --version` loads the version alone; `--help`
 * loads commander and the few modules that build the help, nothing else (no canvas, chart.js, pg, piscina, yaml or zod);
 * commands that neither draw nor run a pool (validate, rowsize) load no canvas, chart.js, pg or piscina;
 * a run of one storage point and a merge draw in process and load no piscina.
 * What a process loads is recorded by module loader hooks and, for require(), a wrap of CommonJS's
 * compile (test/helpers/imports). These checks read the compiled sources (ROWSIM_BUNDLE=0), where each
 * module is a file; the bundle of dist/bundle/ (scripts/bundle.mjs), which the command line loads by
 * default, keeps the same lazy imports as chunks and is checked at the end. How long start-up
 * takes is a figure of `npm run bench` (suite cli), not a test.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

const REGISTER = pathToFileURL(join(ROOT, 'test', 'helpers', 'imports', 'register.mjs')).href;

/** The modules `rowsim args…` loads: rowsim's own (paths under dist/) and packages (their names). */
function loaded(args: string[], bundle = false): { own: string[]; packages: string[]; bundled: string[]; code: number } {
  const log = join(mkdtempSync(join(tmpdir(), 'rowsim-imports-')), 'log');
  const r = spawnSync(process.execPath, ['--import', REGISTER, join(ROOT, 'bin', 'rowsim.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ROWSIM_IMPORT_LOG: log, ROWSIM_BUNDLE: bundle ? '1' : '0' },
  });
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const mine = urls.filter((u) => !u.includes('/node_modules/'));
  const own = mine.flatMap((u) => /\/dist\/(?!bundle\/)(.+)\.js$/.exec(u)?.[1] ?? []);
  const bundled = mine.flatMap((u) => /\/dist\/bundle\/(.+)\.js$/.exec(u)?.[1] ?? []);
  const packages = [...new Set(urls.flatMap((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1] ?? []))].sort();
  return { own, packages, bundled, code: r.status ?? -1 };
}

/** What the help texts are built from: the command table, the option parsers, the defaults they quote. */
const HELP_MODULES = [
  'cli/main',
  'cli/args',
  'cli/commander',
  'cli/compiler',
  'cli/exit-codes',
  'config/errors',
  'config/defaults',
  'config/format-ids',
  'estimate/types',
  'util/numbers',
  'version',
];
const HEAVY = ['@napi-rs/canvas', 'chart.js', 'pg', 'piscina', 'cli-progress'];

describe('start-up', () => {
  it.each([['--version'], ['-V']])('rowsim %s loads the version and nothing else', (arg) => {
    const r = loaded([arg]);
    expect(r.code).toBe(0);
    expect(r.packages).toEqual([]);
    expect(r.own).toEqual(['version']);
  });

  it.each([['--help'], ['estimate', '--help'], ['run', '--help'], ['merge', '--help']])(
    'rowsim %s loads commander and the help, nothing else',
    (...args) => {
      const r = loaded(args);
      expect(r.code).toBe(0);
      expect(r.packages).toEqual(['commander']);
      expect(r.own.filter((m) => !HELP_MODULES.includes(m))).toEqual([]);
    },
  );

  it.each([['validate'], ['rowsize']])('rowsim %s loads no canvas, charts, PostgreSQL client or worker pool', (command) => {
    const r = loaded([command, join('sim-configs', 'quickstart.yaml')]);
    expect(r.code).toBe(0);
    expect(r.packages.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it.each([
    ['page', '--format', 'text'],
    ['trace', '--quiet', '--steps', '5'],
  ])('rowsim %s (text) loads no canvas, charts, PostgreSQL client or worker pool', (command, ...rest) => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-imports-text-'));
    const r = loaded([
      command,
      join('sim-configs', 'teaching', 'ase-forwarding.yaml'),
      ...rest,
      ...(command === 'trace' ? ['--out', dir] : []),
    ]);
    expect(r.code).toBe(0);
    expect(r.packages.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it('the recorder sees what a command loads (rowsim run draws charts on canvas with chart.js, on a pool)', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rowsim-imports-run-')), 'quickstart');
    const r = loaded(['run', join('sim-configs', 'quickstart.yaml'), '--out', out, '--quiet']);
    expect(r.code).toBe(0);
    expect(r.packages).toEqual(expect.arrayContaining(['@napi-rs/canvas', 'chart.js', 'piscina', 'yaml', 'zod']));
    expect(r.own).toEqual(expect.arrayContaining(['report/charts', 'pool/pool', 'workload/runner']));
  });

  it('a run of one storage point runs in process: no worker pool, no piscina', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rowsim-imports-one-')), 'one');
    const r = loaded(['run', join('sim-configs', 'teaching', 'ase-reorg.yaml'), '--out', out, '--quiet']);
    expect(r.code).toBe(0);
    expect(r.packages).not.toContain('piscina');
    expect(r.packages).toEqual(expect.arrayContaining(['@napi-rs/canvas', 'chart.js']));
    expect(r.own).toEqual(expect.arrayContaining(['pool/scheduler', 'run/point-task', 'run/render-task', 'report/charts']));
    expect(r.own).not.toContain('pool/worker_pool');
  });

  it('rowsim merge draws on its own thread: no piscina', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-imports-merge-'));
    for (const k of [1, 2])
      expect(
        loaded([
          'run',
          join('sim-configs', 'teaching', 'ase-exp-row-size.yaml'),
          '--shard',
          `${k}/2`,
          '--out',
          join(dir, `part-${k}-of-2`),
          '--quiet',
        ]).code,
      ).toBe(0);
    const r = loaded(['merge', join(dir, 'part-1-of-2'), join(dir, 'part-2-of-2'), '--out', join(dir, 'merged'), '--quiet']);
    expect(r.code).toBe(0);
    expect(r.packages).not.toContain('piscina');
    expect(r.own).toEqual(expect.arrayContaining(['run/merge', 'run/render-task']));
  });

  describe('the bundle (dist/bundle/, what the command line loads by default)', () => {
    it("--help loads the bundle's entry (commander inside it), no module of dist/ and no package", () => {
      const r = loaded(['--help'], true);
      expect(r.code).toBe(0);
      expect(r.own).toEqual([]);
      expect(r.bundled).toContain('main');
      expect(r.packages).toEqual([]);
    });

    it('validate runs from the bundle and loads no canvas, charts, PostgreSQL client or worker pool', () => {
      const r = loaded(['validate', join('sim-configs', 'quickstart.yaml')], true);
      expect(r.code).toBe(0);
      expect(r.own).toEqual([]);
      expect(r.packages.filter((p) => HEAVY.includes(p))).toEqual([]);
      // zod and yaml are inside the bundle.
      expect(r.packages).not.toContain('zod');
    });

    it('carries the parts of zod the config uses, not its every locale (the zod namespace is never a value)', () => {
      const dir = join(ROOT, 'dist', 'bundle');
      const zodFiles = readdirSync(dir)
        .filter((f) => f.endsWith('.js'))
        .flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/^\/\/ node_modules\/zod\/(\S+)$/gm)].map((m) => m[1]!));
      expect(zodFiles).toContain('v4/core/schemas.js');
      expect(zodFiles.filter((f) => f.startsWith('v4/locales/'))).toEqual(['v4/locales/en.js']);
    });

    it("a run on the pool loads the bundle's worker in the threads, not dist/run/task-worker.js", () => {
      const out = join(mkdtempSync(join(tmpdir(), 'rowsim-imports-bundle-')), 'quickstart');
      const r = loaded(['run', join('sim-configs', 'quickstart.yaml'), '--out', out, '--quiet'], true);
      expect(r.code).toBe(0);
      expect(r.own).toEqual([]);
      expect(r.bundled).toEqual(expect.arrayContaining(['main', 'worker']));
      expect(r.packages).toEqual(expect.arrayContaining(['@napi-rs/canvas', 'chart.js', 'piscina']));
    });
  });
});
