/**
 * The package as a user gets it: `npm pack` (bin, dist, sim-configs, docs, README, LICENSE), a global
 * install of the tarball into a folder of its own (`npm i -g --prefix …`, dependencies from the npm
 * registry), and `rowsim run` from any folder.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

describe('the npm package', () => {
  it('packs what a user needs, installs globally from the tarball, and runs from any folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-pack-'));
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; license: string };
    // --ignore-scripts: `npm pack` would run `prepare` (npm run build), which rewrites dist/ and
    // dist/bundle/ while the other test files run rowsim from them (a run that loaded a chunk of the
    // bundle in the moment it was rewritten failed). `npm test` and `npm ci` have built dist/ already.
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, stdio: 'pipe' });
    const tarball = join(dir, `${pkg.name}-${pkg.version}.tgz`);
    expect(existsSync(tarball)).toBe(true);
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    for (const f of [
      'package/bin/rowsim.js',
      'package/dist/cli/main.js',
      'package/dist/index.js',
      'package/dist/run/task-worker.js',
      'package/dist/bundle/main.js',
      'package/dist/bundle/worker.js',
      'package/LICENSE',
      'package/README.md',
      'package/docs/config.md',
      'package/sim-configs/quickstart.yaml',
    ]) {
      expect(listing, f).toContain(f);
    }
    expect(listing.some((f) => f.startsWith('package/src/') || f.startsWith('package/test/'))).toBe(false);
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(new RegExp(`^${pkg.license} License`));

    const prefix = join(dir, 'global');
    execFileSync('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', tarball], {
      cwd: dir,
      stdio: 'pipe',
      timeout: 300_000,
    });
    const work = join(dir, 'elsewhere');
    mkdirSync(work);
    const bin = join(prefix, 'bin', 'rowsim');
    const r = spawnSync(bin, ['run', join(ROOT, 'sim-configs', 'quickstart.yaml'), '--quiet'], {
      cwd: work,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const results = JSON.parse(readFileSync(join(work, 'out', 'quickstart', 'results.json'), 'utf8')) as {
      rowsim_version: string;
      charts: string[];
    };
    expect(results.rowsim_version).toBe(pkg.version);
    expect(readdirSync(join(work, 'out', 'quickstart', 'charts')).length).toBe(results.charts.length);
    // report.html finds the glossary the package ships (docs/glossary.md) for its tooltips.
    expect(readFileSync(join(work, 'out', 'quickstart', 'report.html'), 'utf8')).toMatch(/<abbr class="term" title="forwarded row: /);
    // The library entry (package.json main) loads and answers.
    const entry = join(prefix, 'lib', 'node_modules', 'rowsim', 'dist', 'index.js');
    const viaPath = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import(${JSON.stringify(entry)}).then((m) => console.log(typeof m.loadConfig, m.availableFormats().length))`,
      ],
      { encoding: 'utf8' },
    );
    expect(viaPath.stdout.trim()).toBe('function 6');
  });
});
