/**
 * A stop by signal is prompt and leaves nothing behind (src/util/cleanup.ts): SIGINT, SIGTERM and SIGHUP
 * sent at moments drawn with a fixed seed inside the long phases of runs far too long to finish first
 * (one point on a thread of its own, with huge pages where the kernel gives them; a sweep on a pool;
 * an estimate on its pool). The process must end by that signal, well before the run could have ended,
 * with the output folder byte for byte as it was and no temporary folder or lock left; a run killed
 * with SIGKILL leaves its temporary folder, and the next run removes it.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, rowsim } from './helpers/cli.js';

/**
 * Rows and update phases of the long run: 4e6 rows updated 100 times is 4e8 row operations, 30 s of CPU
 * at the fastest random-update rate docs/performance.md reports (13 M a CPU-second, ase-dol, quiet
 * machine). A stop honoured only when the run ends comes that late or later.
 */
const LONG_ROWS = 4_000_000;
const LONG_UPDATES = 100;
/**
 * A bound on the stop, not a timing of it: a third of the least time the rest of the run needs. A
 * stop honoured only between phases or at the end of the run fails it.
 */
const STOP_BOUND_MS = 10_000;

function config(name: string, rows: number, updates: number, sweep?: string): string {
  const update = '  - update: { rows: all, order: random, set: { body: { length: { uniform: [0, 300] } } } }\n';
  return (
    `name: ${name}\nseed: 5\ntable:\n  name: t\n  columns:\n    - { name: id, type: int }\n` +
    '    - { name: body, type: varchar(300), null: true }\n' +
    'engine: { format: ase-dol, page_size: 2k, exp_row_size: 1 }\nworkload:\n' +
    `  - insert: { rows: ${rows}, values: { body: { length: { uniform: [0, 40] } } } }\n` +
    update.repeat(updates) +
    (sweep ? `sweep:\n  engine.exp_row_size: ${sweep}\n` : '')
  );
}

/** Every file below `dir` (dot files too) with the SHA-256 of its bytes. */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of readdirSync(dir, { recursive: true }).map(String).sort()) {
    const path = join(dir, rel);
    if (statSync(path).isFile()) out[rel] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return out;
}

/** Temporary folders and locks of rowsim's beside or inside `out`. */
function leftovers(dir: string, out: string): string[] {
  return [...readdirSync(dir), ...readdirSync(out)].filter((f) => f.includes('.rowsim-tmp-') || f.endsWith('.rowsim-lock'));
}

/** Moments (ms) drawn from a fixed seed: mulberry32. */
function moments(seed: number, count: number, fromMs: number, toMs: number): number[] {
  let a = seed >>> 0;
  return Array.from({ length: count }, () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.round(fromMs + (((t ^ (t >>> 14)) >>> 0) / 4294967296) * (toMs - fromMs));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A finished run of the small config, made once for the file and left alone: each test copies it. */
let finished: string | undefined;

/** A folder with a finished small run in `out`: the state an interrupted command must leave as it was. */
function withResults(): { dir: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rowsim-signal-'));
  writeFileSync(join(dir, 'small.yaml'), config('c', 2000, 1));
  if (!finished) {
    const first = mkdtempSync(join(tmpdir(), 'rowsim-signal-'));
    const r = rowsim(['run', join(dir, 'small.yaml'), '--out', join(first, 'out'), '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    finished = join(first, 'out');
  }
  const out = join(dir, 'out');
  cpSync(finished, out, { recursive: true });
  return { dir, out };
}

interface Stopped {
  signal: NodeJS.Signals | null;
  code: number | null;
  stderr: string;
  delayMs: number;
}

/**
 * Start rowsim with `args`, wait until `ready()` (its long phases have begun) and `afterMs` more, send
 * `signal`, and wait for the process to end.
 */
async function stopAt(args: string[], ready: () => boolean, afterMs: number, signal: NodeJS.Signals, env = {}): Promise<Stopped> {
  // A process group of its own: a stop that fails is ended with its huge-pages child, not left running.
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'rowsim.js'), ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
    detached: true,
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  let ended = false;
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('close', (code, sig) => {
      ended = true;
      r({ code, signal: sig });
    }),
  );
  for (let i = 0; i < 1200 && !ready() && !ended; i++) await sleep(25);
  await sleep(afterMs);
  expect(ended, `rowsim ${args[0]} ended before the signal: ${stderr}`).toBe(false);
  const sent = performance.now();
  child.kill(signal);
  const kill = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Ended meanwhile.
    }
  }, 3 * STOP_BOUND_MS);
  const end = await closed;
  const delayMs = Math.round(performance.now() - sent);
  clearTimeout(kill);
  return { ...end, stderr, delayMs };
}

/** What every stop must show: the signal's own end, soon, nothing printed, the folder as it was. */
function expectCleanStop(what: string, r: Stopped, signal: NodeJS.Signals, dir: string, out: string, before: Record<string, string>) {
  console.log(`${what}: ${signal} to exit ${r.delayMs} ms`);
  expect(r.stderr).toBe('');
  expect(r.signal).toBe(signal);
  expect(r.delayMs).toBeLessThan(STOP_BOUND_MS);
  expect(leftovers(dir, out)).toEqual([]);
  expect(listing(out)).toEqual(before);
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

describe('a signal stops a long command at once, with nothing half-written', () => {
  it('rowsim run of one large point (a thread of its own, huge pages where the kernel gives them), at three moments', async () => {
    const { dir, out } = withResults();
    const before = listing(out);
    writeFileSync(join(dir, 'long.yaml'), config('c', LONG_ROWS, LONG_UPDATES));
    const staging = () => leftovers(dir, out).some((f) => f.includes('.rowsim-tmp-'));
    const at = moments(37, 3, 200, 4000);
    for (const [k, afterMs] of at.entries()) {
      const signal = SIGNALS[k % 3]!;
      const r = await stopAt(['run', join(dir, 'long.yaml'), '--out', out, '--quiet'], staging, afterMs, signal, {
        ROWSIM_HUGE_PAGES: 'on',
      });
      expectCleanStop(`run, one point, ${afterMs} ms into the run`, r, signal, dir, out, before);
    }
  }, 120_000);

  it('rowsim run of a sweep on a pool of two threads, at three moments', async () => {
    const { dir, out } = withResults();
    const before = listing(out);
    writeFileSync(join(dir, 'sweep.yaml'), config('c', LONG_ROWS / 2, LONG_UPDATES, '[1, 160]'));
    const staging = () => leftovers(dir, out).some((f) => f.includes('.rowsim-tmp-'));
    for (const [k, afterMs] of moments(38, 3, 200, 4000).entries()) {
      const signal = SIGNALS[(k + 1) % 3]!;
      const r = await stopAt(['run', join(dir, 'sweep.yaml'), '--out', out, '--quiet', '--workers', '2'], staging, afterMs, signal);
      expectCleanStop(`run, sweep on 2 threads, ${afterMs} ms into the run`, r, signal, dir, out, before);
    }
  }, 120_000);

  it('rowsim estimate on its pool, at three moments; the run results in the folder stay as they were', async () => {
    const { dir, out } = withResults();
    const before = listing(out);
    const started = () => true; // an estimate stages its files only at its end
    for (const [k, afterMs] of moments(39, 3, 1500, 4000).entries()) {
      const signal = SIGNALS[(k + 2) % 3]!;
      const args = ['estimate', join(ROOT, 'sim-configs', 'estimate-titles.yaml'), '--rows', '1e9', '--sample-rows', '3e6'];
      const r = await stopAt([...args, '--out', out, '--quiet', '--workers', '2'], started, afterMs, signal);
      expectCleanStop(`estimate, ${afterMs} ms after its start`, r, signal, dir, out, before);
    }
  }, 120_000);

  it('a run killed with SIGKILL leaves its temporary folder; the next run removes it', async () => {
    const { dir, out } = withResults();
    writeFileSync(join(dir, 'long.yaml'), config('c', LONG_ROWS, LONG_UPDATES));
    const staging = () => leftovers(dir, out).filter((f) => f.includes('.rowsim-tmp-'));
    const r = await stopAt(['run', join(dir, 'long.yaml'), '--out', out, '--quiet'], () => staging().length > 0, 500, 'SIGKILL');
    expect(r.signal).toBe('SIGKILL');
    expect(staging()).toHaveLength(1);
    const next = rowsim(['run', join(dir, 'small.yaml'), '--out', out, '--quiet']);
    expect(next.code).toBe(0);
    expect(leftovers(dir, out)).toEqual([]);
  }, 120_000);
});
