/**
 * rowsim run starts itself again with glibc's huge-page tunable for large tables (src/cli/huge-pages.ts):
 * when it does, and that the second process writes what one process writes, takes the same arguments,
 * and stops cleanly on a signal sent to the first.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  HUGE_PAGES_MIN_BYTES,
  hugePagesContext,
  hugePagesEnv,
  runAgainWithHugePages,
  wantsHugePages,
  type HugePagesContext,
} from '../src/cli/huge-pages.js';
import { ROOT, rowsim } from './helpers/cli.js';

const linux = (env: NodeJS.ProcessEnv = {}, thp = 'always [madvise] never\n'): HugePagesContext => ({ platform: 'linux', env, thp });

describe('when rowsim run asks for huge pages', () => {
  it('on Linux with transparent_hugepage "madvise", for tables of HUGE_PAGES_MIN_BYTES or more', () => {
    expect(wantsHugePages(HUGE_PAGES_MIN_BYTES, linux())).toBe(true);
    expect(wantsHugePages(HUGE_PAGES_MIN_BYTES - 1, linux())).toBe(false);
    // "always": every large block has them already; "never": none can; unreadable: not Linux's file.
    expect(wantsHugePages(HUGE_PAGES_MIN_BYTES, linux({}, '[always] madvise never\n'))).toBe(false);
    expect(wantsHugePages(HUGE_PAGES_MIN_BYTES, linux({}, 'always madvise [never]\n'))).toBe(false);
    expect(wantsHugePages(HUGE_PAGES_MIN_BYTES, { platform: 'linux', env: {}, thp: undefined })).toBe(false);
    expect(wantsHugePages(HUGE_PAGES_MIN_BYTES, { platform: 'darwin', env: {}, thp: '[madvise]' })).toBe(false);
  });

  it('not again once the tunable is set (by the first start or by the user), and as ROWSIM_HUGE_PAGES says', () => {
    expect(wantsHugePages(HUGE_PAGES_MIN_BYTES, linux({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' }))).toBe(false);
    expect(wantsHugePages(HUGE_PAGES_MIN_BYTES, linux(hugePagesEnv({})))).toBe(false);
    expect(wantsHugePages(HUGE_PAGES_MIN_BYTES, linux({ ROWSIM_HUGE_PAGES: 'off' }))).toBe(false);
    expect(wantsHugePages(HUGE_PAGES_MIN_BYTES, linux({ ROWSIM_HUGE_PAGES: '0' }))).toBe(false);
    expect(wantsHugePages(1, linux({ ROWSIM_HUGE_PAGES: 'on' }))).toBe(true);
    expect(wantsHugePages(1, linux({ ROWSIM_HUGE_PAGES: 'on' }, 'always madvise [never]'))).toBe(false);
    expect(() => wantsHugePages(1, linux({ ROWSIM_HUGE_PAGES: 'yes' }))).toThrow(
      /ROWSIM_HUGE_PAGES: expected auto, on or off, found "yes"/,
    );
  });

  it("adds the tunable to the user's own", () => {
    expect(hugePagesEnv({ A: '1' })).toEqual({ A: '1', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' });
    expect(hugePagesEnv({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }).GLIBC_TUNABLES).toBe(
      'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1',
    );
  });

  it('a start that fails rejects (rowsim run then goes on in its own process), and leaves no signal handler behind', async () => {
    const before = process.listenerCount('SIGTERM');
    await expect(runAgainWithHugePages(join(tmpdir(), 'no-such-node-binary'))).rejects.toThrow(/ENOENT/);
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });

  it('a bad ROWSIM_HUGE_PAGES is refused with exit 2 and nothing written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-huge-'));
    const r = rowsim(['run', join(ROOT, 'sim-configs', 'quickstart.yaml'), '--out', join(dir, 'out'), '--quiet'], ROOT, {
      ROWSIM_HUGE_PAGES: 'maybe',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('ROWSIM_HUGE_PAGES: expected auto, on or off, found "maybe"');
    expect(readdirSync(dir)).toEqual([]);
  });
});

// The kernel here must give huge pages on request for the start again to happen (CI's does; see docs/performance.md).
const canRelaunch = wantsHugePages(1, { ...hugePagesContext(), env: { ROWSIM_HUGE_PAGES: 'on' } });

describe.skipIf(!canRelaunch)('rowsim run started again with huge pages', () => {
  it('the second process has the tunable, and writes the same files as one process does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-huge-'));
    // Each Node.js process (not its worker threads) notes its pid and GLIBC_TUNABLES as it starts.
    const log = join(dir, 'starts.txt');
    const preload = join(dir, 'note.cjs');
    writeFileSync(
      preload,
      `if (require('node:worker_threads').isMainThread) require('node:fs').appendFileSync(${JSON.stringify(log)}, process.pid + ' ' + (process.env.GLIBC_TUNABLES || '-') + '\\n');\n`,
    );
    const config = join(ROOT, 'sim-configs', 'quickstart.yaml');
    const one = rowsim(['run', config, '--out', join(dir, 'one'), '--quiet'], ROOT, { ROWSIM_HUGE_PAGES: 'off' });
    expect(one.code).toBe(0);
    writeFileSync(log, '');
    const two = rowsim(['run', config, '--out', join(dir, 'two'), '--quiet'], ROOT, {
      ROWSIM_HUGE_PAGES: 'on',
      NODE_OPTIONS: `--require ${preload}`,
    });
    expect(two.stderr).toBe('');
    expect(two.code).toBe(0);
    const starts = readFileSync(log, 'utf8').trim().split('\n');
    expect(starts).toHaveLength(2);
    expect(starts[0]).toMatch(/ -$/);
    expect(starts[1]).toMatch(/ glibc\.malloc\.hugetlb=1$/);
    const files = (d: string) => readdirSync(join(dir, d), { recursive: true }).map(String).sort();
    expect(files('two')).toEqual(files('one'));
    for (const f of files('one').filter((f) => /\.(json|md|html|png)$/.test(f)))
      expect(readFileSync(join(dir, 'two', f)).equals(readFileSync(join(dir, 'one', f))), f).toBe(true);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s sent to the first process stops the second: its temporary folder removed, exit %s', async (signal, status) => {
    const dir = mkdtempSync(join(tmpdir(), 'rowsim-huge-'));
    const out = join(dir, 'out');
    const sweep = Array.from({ length: 40 }, (_, i) => 1 + i * 5).join(', ');
    writeFileSync(
      join(dir, 'big.yaml'),
      `name: big\nseed: 3\ntable:\n  name: t\n  columns:\n    - { name: id, type: int }\n    - { name: body, type: varchar(300), null: true }\nengine: { format: ase-dol, page_size: 2k }\nworkload:\n  - insert: { rows: 200000, values: { body: { length: { uniform: [0, 30] } } } }\n  - update: { rows: all, set: { body: { grow: { uniform: [20, 120] } } } }\nsweep:\n  engine.exp_row_size: [${sweep}]\n`,
    );
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin', 'rowsim.js'), 'run', join(dir, 'big.yaml'), '--out', out, '--quiet', '--workers', '1'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, ROWSIM_HUGE_PAGES: 'on' },
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    // Ended by the signal itself (src/util/cleanup.ts): the shell reports 128 + its number.
    const closed = new Promise<number | null>((r) => child.on('close', (code, sig) => r(code ?? 128 + constants.signals[sig!])));
    // The second process makes the temporary folder: wait for it, then signal the first.
    const staging = () => readdirSync(dir).filter((f) => f.startsWith('.out.rowsim-tmp-'));
    for (let i = 0; i < 400 && staging().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(staging()).toHaveLength(1);
    child.kill(signal);
    expect(await closed).toBe(status);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(staging()).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['big.yaml']);
  });
});
