/**
 * Transparent huge pages for large runs (Linux).
 *
 * Every array a page engine makes is memory new from the kernel, and the first write to each 4 kB page of
 * it costs a page fault: 11–15 µs on the virtual machines rowsim is developed on, 3.3 s of CPU for the
 * row state of a 1e8-row table. With 2 MB pages one fault maps 512 times as much: a 400 MB array filled
 * with −1 took 1,080–1,130 ms of CPU with 4 kB pages and 50 ms with 2 MB pages (docs/performance.md).
 *
 * The kernel gives 2 MB pages to memory that asks for them when transparent_hugepage is `madvise`
 * (Debian's and Ubuntu's default; with `always` every large block has them already, with `never` none
 * does), and glibc's malloc, which Node.js's typed arrays come from, asks for its large blocks when the
 * GLIBC_TUNABLES environment variable holds glibc.malloc.hugetlb=1 (glibc 2.35 or later; an older glibc
 * or another C library ignores it). A tunable is read only when a process starts, so `rowsim run` starts
 * itself again with it, once the config is checked and it knows that the run's tables need
 * HUGE_PAGES_MIN_BYTES or more: starting again costs a Node.js start and a second read of the config
 * (0.1–0.2 s), which pays for itself above about 50 MB of tables.
 *
 * ROWSIM_HUGE_PAGES: `auto` (the default: as above), `on` (start again whatever the size, where the
 * kernel and the variables allow it) or `off`.
 */
import { spawn } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { UserError } from '../config/errors.js';
import { exitBySignal, STOP_SIGNALS } from '../util/cleanup.js';

/** Planned memory of a run's tables from which `rowsim run` starts itself again with huge pages. */
export const HUGE_PAGES_MIN_BYTES = 256 * 1048576;

/** The glibc tunable that makes malloc ask for transparent huge pages for its large blocks. */
export const HUGETLB_TUNABLE = 'glibc.malloc.hugetlb=1';

const THP_ENABLED = '/sys/kernel/mm/transparent_hugepage/enabled';

export interface HugePagesContext {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** The kernel's transparent_hugepage setting as the file shows it ("always [madvise] never"), undefined when unreadable. */
  thp: string | undefined;
}

export function hugePagesContext(): HugePagesContext {
  let thp: string | undefined;
  try {
    thp = readFileSync(THP_ENABLED, 'utf8');
  } catch {
    thp = undefined;
  }
  return { platform: process.platform, env: process.env, thp };
}

/** The ROWSIM_HUGE_PAGES setting; anything else is an error (exit 2). */
function setting(env: NodeJS.ProcessEnv): 'auto' | 'on' | 'off' {
  const v = (env.ROWSIM_HUGE_PAGES ?? 'auto').trim().toLowerCase();
  if (v === 'auto' || v === '') return 'auto';
  if (v === 'on' || v === '1') return 'on';
  if (v === 'off' || v === '0') return 'off';
  throw new UserError(`ROWSIM_HUGE_PAGES: expected auto, on or off, found ${JSON.stringify(env.ROWSIM_HUGE_PAGES)}`);
}

/**
 * Whether a run whose tables need `plannedBytes` should start again with huge pages: on Linux, with the
 * kernel giving them on request, the tunable not set yet (by an earlier start or by the user), and the
 * tables large enough (or ROWSIM_HUGE_PAGES=on).
 */
export function wantsHugePages(plannedBytes: number, ctx: HugePagesContext): boolean {
  const s = setting(ctx.env);
  if (s === 'off' || ctx.platform !== 'linux') return false;
  if ((ctx.env.GLIBC_TUNABLES ?? '').includes('glibc.malloc.hugetlb')) return false;
  if (ctx.thp === undefined || !ctx.thp.includes('[madvise]')) return false;
  return s === 'on' || plannedBytes >= HUGE_PAGES_MIN_BYTES;
}

/** The environment with the tunable added to any the user set. */
export function hugePagesEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, GLIBC_TUNABLES: [env.GLIBC_TUNABLES, HUGETLB_TUNABLE].filter(Boolean).join(':') };
}

/** Is this process rowsim's command line (bin/rowsim.js), which can be started again as it was? */
export function startedAsCli(): boolean {
  try {
    // dist/cli/ and dist/bundle/ are both two levels below the package.
    return (
      process.argv[1] !== undefined &&
      realpathSync(process.argv[1]) === realpathSync(fileURLToPath(new URL('../../bin/rowsim.js', import.meta.url)))
    );
  } catch {
    return false;
  }
}

/**
 * Start this command again (with Node.js `node`), the same arguments, with the tunable; resolves with its
 * exit status, or rejects when it cannot be started (rowsim run then goes on in this process). Until
 * it ends, SIGINT, SIGTERM and SIGHUP sent to this process are passed on (a run stopped by one cleans up
 * and ends by that signal, and so does this process; a second signal while it cleans up is ignored there).
 */
export function runAgainWithHugePages(node = process.execPath): Promise<number> {
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env: hugePagesEnv(process.env) });
  const forward = STOP_SIGNALS.map((s) => [s, () => void child.kill(s)] as const);
  for (const [s, fn] of forward) process.on(s, fn);
  const done = () => {
    for (const [s, fn] of forward) process.off(s, fn);
  };
  return new Promise((resolve, reject) => {
    child.on('error', (err) => {
      done();
      reject(err);
    });
    child.on('exit', (code, signal) => {
      done();
      // Stopped by a signal (passed on from here, or sent to it): this process ends the same way.
      const stop = STOP_SIGNALS.find((s) => s === signal);
      if (stop) exitBySignal(stop);
      else resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}
