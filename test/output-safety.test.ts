/**
 * rowsim never deletes or overwrites what it did not write: --out pointed at a user's folder, at a
 * file, at the root, at a read-only folder; its own folder rewritten; concurrent runs on one folder; an
 * interrupt mid-run; what a killed run leaves behind.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { constants, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, rowsim } from './helpers/cli.js';
import { growingBodyConfig } from './helpers/growing-body.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'rowsim-out-'));

const CONFIG = (name: string, rows = 2000, sweep = '[1, 0, 120]') =>
  growingBodyConfig({ name, seed: 3, rows, sweep: { 'engine.exp_row_size': sweep } });

/** Every file below `dir` with its bytes (a snapshot to compare). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path);
      else out[path] = readFileSync(join(dir, path), 'base64');
    }
  };
  walk('');
  return out;
}

/** A user's folder: a few files of theirs, one in a subfolder. */
function userFolder(parent: string): string {
  const dir = join(parent, 'mine');
  mkdirSync(join(dir, 'charts'), { recursive: true });
  writeFileSync(join(dir, 'thesis.tex'), 'chapter 1');
  writeFileSync(join(dir, 'results.json'), '{"mine": true}');
  writeFileSync(join(dir, 'charts', 'figure.png'), 'not a png');
  return dir;
}

function noStack(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(stderr.trim().split('\n')).toHaveLength(1);
}

describe('--out at something rowsim did not write', () => {
  it("refuses a user's non-empty folder and leaves every file as it was", () => {
    const dir = tmp();
    writeFileSync(join(dir, 'c.yaml'), CONFIG('c'));
    const mine = userFolder(dir);
    const before = snapshot(mine);
    for (const cmd of [
      ['run', join(dir, 'c.yaml'), '--out', mine],
      ['estimate', join(dir, 'c.yaml'), '--out', mine, '--seeds', '1'],
    ]) {
      const r = rowsim(cmd);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--out .*mine: expected an empty folder or one that rowsim wrote, found a folder with other files/);
      noStack(r.stderr);
      expect(snapshot(mine)).toEqual(before);
    }
    expect(readdirSync(dir).sort()).toEqual(['c.yaml', 'mine']);
  });

  it('--out . in a folder holding the config refuses, and the config is still there', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'c.yaml'), CONFIG('c'));
    const r = rowsim(['run', 'c.yaml', '--out', '.'], dir);
    expect(r.code).toBe(2);
    noStack(r.stderr);
    expect(readdirSync(dir)).toEqual(['c.yaml']);
  });

  it('an existing file, a path inside a file, the root: one line, exit 2, nothing touched', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'c.yaml'), CONFIG('c'));
    writeFileSync(join(dir, 'file.txt'), 'keep me');
    const cases: [string, RegExp][] = [
      [join(dir, 'file.txt'), /expected a folder, found a file/],
      [join(dir, 'file.txt', 'sub'), /expected a folder path, found .*file\.txt, which is a file/],
      ['/', /expected a results folder, found the root of the file system/],
      ['/dev/null', /expected a folder, found a character device/],
    ];
    for (const [out, message] of cases) {
      const r = rowsim(['run', join(dir, 'c.yaml'), '--out', out]);
      expect(r.code, out).toBe(2);
      expect(r.stderr).toMatch(message);
      noStack(r.stderr);
    }
    expect(readFileSync(join(dir, 'file.txt'), 'utf8')).toBe('keep me');
    expect(readdirSync(dir).sort()).toEqual(['c.yaml', 'file.txt']);
  });

  it('a folder it may not write into: one line, exit 2', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'c.yaml'), CONFIG('c'));
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'c.yaml'), 0o644);
    // root may write anywhere: run as nobody then (the folder stays root's, mode 755).
    const asRoot = process.getuid?.() === 0;
    if (!asRoot) chmodSync(ro, 0o555);
    else {
      // nobody must be able to load rowsim itself: a checkout below a folder of mode 700 (mktemp -d) is not.
      const probe = spawnSync(
        process.execPath,
        ['-e', `require('fs').accessSync(${JSON.stringify(join(ROOT, 'dist', 'cli', 'main.js'))})`],
        { uid: 65534, gid: 65534, encoding: 'utf8' },
      );
      expect(
        probe.status,
        `user nobody cannot read ${ROOT}: this test runs rowsim as nobody, so the checkout must be readable by others (chmod o+rx its parent folders)`,
      ).toBe(0);
    }
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'rowsim.js'), 'run', join(dir, 'c.yaml'), '--out', join(ro, 'out')], {
      encoding: 'utf8',
      ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot write into the folder .*ro: permission denied$/m);
    noStack(r.stderr);
    expect(readdirSync(ro)).toEqual([]);
  });
});

describe('its own folder', () => {
  it('replaces only its own files: a user file added later survives, its stale charts go', () => {
    const dir = tmp();
    const out = join(dir, 'out');
    writeFileSync(join(dir, 'c.yaml'), CONFIG('c', 2000, '[1, 0, 120]'));
    expect(rowsim(['run', join(dir, 'c.yaml'), '--out', out, '--quiet']).code).toBe(0);
    const first = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { charts: string[] };
    expect(first.charts.some((c) => c.includes('exp-row-size-120'))).toBe(true);
    writeFileSync(join(out, 'my-notes.md'), 'notes');
    writeFileSync(join(out, 'charts', 'my-figure.png'), 'mine');
    // Fewer sweep points: the third point's page maps are this command's stale files.
    writeFileSync(join(dir, 'c.yaml'), CONFIG('c', 2000, '[1, 0]'));
    expect(rowsim(['run', join(dir, 'c.yaml'), '--out', out, '--quiet']).code).toBe(0);
    const second = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { charts: string[] };
    for (const c of second.charts) expect(existsSync(join(out, c))).toBe(true);
    for (const c of first.charts.filter((c) => !second.charts.includes(c))) expect(existsSync(join(out, c)), c).toBe(false);
    expect(readFileSync(join(out, 'my-notes.md'), 'utf8')).toBe('notes');
    expect(readFileSync(join(out, 'charts', 'my-figure.png'), 'utf8')).toBe('mine');
    const manifest = JSON.parse(readFileSync(join(out, '.rowsim-output.json'), 'utf8')) as { files: { run: string[] } };
    expect(manifest.files.run.sort()).toEqual([...second.charts, 'report.html', 'results.json', 'summary.md'].sort());
    expect(readdirSync(dir).sort()).toEqual(['c.yaml', 'out']);
  });

  it('never replaces a file of the same name that the user put there', () => {
    const dir = tmp();
    const out = join(dir, 'out');
    writeFileSync(join(dir, 'c.yaml'), CONFIG('c', 1000, '[1]'));
    expect(rowsim(['run', join(dir, 'c.yaml'), '--out', out, '--quiet']).code).toBe(0);
    // A single point draws no forwarding chart; a sweep does: the user's file of that name stays.
    writeFileSync(join(out, 'charts', 'forwarding.png'), 'the user drew this');
    const before = snapshot(out);
    writeFileSync(join(dir, 'c.yaml'), CONFIG('c', 1000, '[1, 0]'));
    const r = rowsim(['run', join(dir, 'c.yaml'), '--out', out, '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/charts\/forwarding\.png exists there and rowsim did not write it/);
    expect(snapshot(out)).toEqual(before);
    expect(readdirSync(dir).sort()).toEqual(['c.yaml', 'out']);
  });

  it('accepts a folder an earlier rowsim wrote without a manifest', () => {
    const dir = tmp();
    const out = join(dir, 'out');
    mkdirSync(join(out, 'charts'), { recursive: true });
    writeFileSync(join(out, 'results.json'), '{"rowsim_version": "0.0.9", "storage": []}');
    writeFileSync(join(out, 'summary.md'), '# old');
    writeFileSync(join(out, 'charts', 'pagemap-old-final.png'), 'old');
    writeFileSync(join(dir, 'c.yaml'), CONFIG('c', 1000, '[1]'));
    expect(rowsim(['run', join(dir, 'c.yaml'), '--out', out, '--quiet']).code).toBe(0);
    expect(existsSync(join(out, 'charts', 'pagemap-old-final.png'))).toBe(false);
    expect(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')).name).toBe('c');
  });
});

function runAsync(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'rowsim.js'), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('close', (code, signal) => resolveRun({ code, signal, stderr }));
  });
}

describe('concurrency and interrupts', () => {
  it('three runs writing one folder at once all succeed; nothing is left beside it; a user file survives', async () => {
    const dir = tmp();
    const out = join(dir, 'out');
    writeFileSync(join(dir, 'c.yaml'), CONFIG('c', 3000));
    expect(rowsim(['run', join(dir, 'c.yaml'), '--out', out, '--quiet']).code).toBe(0);
    writeFileSync(join(out, 'keep.txt'), 'mine');
    const runs = await Promise.all([1, 2, 3].map(() => runAsync(['run', join(dir, 'c.yaml'), '--out', out, '--quiet', '--workers', '1'])));
    for (const r of runs) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
    expect(readdirSync(dir).sort()).toEqual(['c.yaml', 'out']);
    expect(
      readdirSync(out)
        .filter((f) => f.startsWith('.'))
        .sort(),
    ).toEqual(['.rowsim-output.json']);
    const res = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { charts: string[] };
    for (const c of res.charts) expect(existsSync(join(out, c))).toBe(true);
    expect(readFileSync(join(out, 'keep.txt'), 'utf8')).toBe('mine');
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s mid-run removes the temporary folder and leaves the old results as they were', async (signal, status) => {
    const dir = tmp();
    const out = join(dir, 'out');
    writeFileSync(join(dir, 'small.yaml'), CONFIG('c', 1000, '[1]'));
    expect(rowsim(['run', join(dir, 'small.yaml'), '--out', out, '--quiet']).code).toBe(0);
    const before = snapshot(out);
    // A run long enough to interrupt: many points of a larger table.
    writeFileSync(join(dir, 'big.yaml'), CONFIG('c', 200_000, `[${Array.from({ length: 40 }, (_, i) => 1 + i * 5).join(', ')}]`));
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin', 'rowsim.js'), 'run', join(dir, 'big.yaml'), '--out', out, '--quiet', '--workers', '1'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    // Ended by the signal itself (src/util/cleanup.ts): the shell reports 128 + its number.
    const closed = new Promise<number | null>((r) => child.on('close', (code, sig) => r(code ?? 128 + constants.signals[sig!])));
    // Wait until its temporary folder exists, then interrupt.
    const staging = () => readdirSync(out).filter((f) => f.startsWith('.rowsim-tmp-'));
    for (let i = 0; i < 400 && staging().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(staging()).toHaveLength(1);
    child.kill(signal);
    expect(await closed).toBe(status);
    noStack(stderr || 'x');
    expect(staging()).toEqual([]);
    expect(snapshot(out)).toEqual(before);
    expect(readdirSync(dir).sort()).toEqual(['big.yaml', 'out', 'small.yaml']);
  });

  it('the next run removes what a killed run left: its temporary folder and its lock', () => {
    const dir = tmp();
    const out = join(dir, 'out');
    writeFileSync(join(dir, 'c.yaml'), CONFIG('c', 1000, '[1]'));
    // A process id that does not run: above the kernel's pid_max.
    const dead = 4_194_305;
    const stale = join(dir, `.out.rowsim-tmp-${dead}-0123456789ab`);
    mkdirSync(join(stale, 'charts'), { recursive: true });
    writeFileSync(join(stale, '.rowsim-output.json'), '{"files":{}}');
    writeFileSync(join(dir, '.out.rowsim-lock'), JSON.stringify({ pid: dead, host: hostname() }));
    // Not rowsim's (no manifest): left alone even though the name looks like one.
    const lookalike = join(dir, `.out.rowsim-tmp-${dead}-ffffffffffff`);
    mkdirSync(lookalike);
    writeFileSync(join(lookalike, 'data'), 'mine');
    expect(rowsim(['run', join(dir, 'c.yaml'), '--out', out, '--quiet']).code).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(join(dir, '.out.rowsim-lock'))).toBe(false);
    expect(readFileSync(join(lookalike, 'data'), 'utf8')).toBe('mine');
    expect(statSync(join(out, 'results.json')).size).toBeGreaterThan(100);
  });
});

describe('writing a file in pieces', () => {
  it('a text written as pieces is the pieces joined, byte for byte (several characters wide, megabytes long)', async () => {
    const { checkOutputFolder, StagedOutput } = await import('../src/report/output.js');
    const out = new StagedOutput(checkOutputFolder(join(tmp(), 'run'), 'run'));
    try {
      const big = Buffer.alloc(3_000_000, 0x5a).toString('base64');
      const pieces = ['<p>exp_row_size – 12 → 14 … ▎</p>', big, '', 'tail 😀\n'];
      out.write('report.html', pieces);
      out.write('summary.md', 'one string');
      expect(readFileSync(join(out.dir, 'report.html'), 'utf8')).toBe(pieces.join(''));
      expect(readFileSync(join(out.dir, 'summary.md'), 'utf8')).toBe('one string');
      expect(out.written()).toEqual(['report.html', 'summary.md']);
    } finally {
      out.discard();
    }
  });
});
