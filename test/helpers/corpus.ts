/**
 * The bad-input corpus (test/corpus/): reading the cases, running one through the real CLI in a
 * fresh temp folder, and judging the outcome against the project's promise for bad input: exit
 * status 2, a clear message on stderr (position and key path where they apply), no stack trace,
 * nothing written, and no hang. See test/corpus/README.md for the case format.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ROOT } from './cli.js';

export const CORPUS = join(ROOT, 'test', 'corpus');
export const FIXTURES = join(CORPUS, 'fixtures');
export const BIN = join(ROOT, 'bin', 'rowsim.js');
/** A case that has not finished after this long is killed and reported as hung. */
export const HANG_MS = 30_000;
/** The URL pg-check cases get unless they give --url themselves: nothing listens on port 1. */
export const UNREACHABLE_PG_URL = 'postgres://rowsim@127.0.0.1:1/rowsim';

export type Command = 'run' | 'validate' | 'estimate' | 'rowsize' | 'pg-check';
const COMMANDS: readonly Command[] = ['run', 'validate', 'estimate', 'rowsize', 'pg-check'];
/** Commands that write an output folder (and take --out). */
export const WRITING: readonly Command[] = ['run', 'estimate'];

export interface CorpusCase {
  /** `category/name`, e.g. `engine/page-size-3k`. */
  id: string;
  category: string;
  description: string;
  /** Copied into the temp folder: a file (its basename) or the contents of a folder. */
  source: string;
  kind: 'file' | 'folder';
  /** Full argv after bin/rowsim.js, before --out / --url are added. */
  argv: string[];
  /** The config file named in the argv (for `position: yes`). */
  configName: string;
  /** undefined: no position required; otherwise a regex source the stderr must match. */
  position?: { spec: string; re: RegExp };
  /** Each entry: alternatives, one of which must appear in stderr (case-insensitive). */
  messages: string[][];
  maxLines?: number;
}

// ---- reading cases ------------------------------------------------------------------------------

export interface Header {
  [key: string]: string[];
}

/** The leading `# key: value` lines of a case file (a UTF-8 BOM is skipped). */
export function readHeader(text: string): Header {
  const out: Header = {};
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    if (!raw.startsWith('#')) break;
    const m = /^#\s*([a-z-]+):\s?(.*)$/.exec(raw);
    if (!m) continue;
    (out[m[1]!] ??= []).push(m[2]!.trim());
  }
  return out;
}

/** Split an `args:` line like a shell would for simple cases: whitespace, '…' and "…" quoting. */
export function splitArgs(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `position:` → what stderr must contain. `yes`: `<config>:<line>:<column>`; `no`: nothing;
 * `file`: `file:<line>:<column>`; `file:L`: that line, any column; `file:L:C`: exactly there.
 */
export function positionRe(spec: string, configName: string): RegExp | undefined {
  if (spec === '' || spec === 'no') return undefined;
  const [file, line, col] = (spec === 'yes' ? basename(configName) : spec).split(':');
  const before = '(?:^|[\\s/"\'(])';
  return new RegExp(`${before}${escapeRe(file!)}:${line ?? '\\d+'}:${col ?? '\\d+'}(?!\\d)`, 'm');
}

export function parseMessages(lines: string[] | undefined): string[][] {
  return (lines ?? [])
    .filter((l) => l !== '')
    .map((l) =>
      l
        .split(/\s+\|\s+/)
        .map((s) => s.trim())
        .filter(Boolean),
    );
}

/** Every case under test/corpus/<category>/: `<name>.yaml` files and `<name>/case.yaml` folders. */
export function loadCases(): CorpusCase[] {
  const cases: CorpusCase[] = [];
  for (const category of readdirSync(CORPUS).sort()) {
    const catDir = join(CORPUS, category);
    if (category === 'fixtures' || !statSync(catDir).isDirectory()) continue;
    for (const entry of readdirSync(catDir).sort()) {
      const path = join(catDir, entry);
      const isDir = statSync(path).isDirectory();
      if (isDir && !existsSync(join(path, 'case.yaml'))) throw new Error(`${path}: a folder case needs a case.yaml with the header`);
      if (!isDir && !/\.ya?ml$/.test(entry)) throw new Error(`${path}: a case file must end in .yaml (put other files in a folder case)`);
      const headerFile = isDir ? join(path, 'case.yaml') : path;
      const h = readHeader(readFileSync(headerFile, 'utf8'));
      const name = isDir ? entry : entry.replace(/\.ya?ml$/, '');
      const id = `${category}/${name}`;
      const description = h.case?.[0];
      if (!description) throw new Error(`${headerFile}: the header needs "# case: <description>"`);
      const command = (h.command?.[0] ?? 'run') as Command;
      if (!COMMANDS.includes(command)) throw new Error(`${headerFile}: unknown command "${command}"`);
      const configName = h.config?.[0] ?? (isDir ? 'case.yaml' : entry);
      const args = splitArgs(h.args?.[0] ?? '');
      const argv = configName === 'none' ? [command, ...args] : [command, configName, ...args];
      const posSpec = h.position?.[0] ?? 'no';
      const re = positionRe(posSpec, configName);
      cases.push({
        id,
        category,
        description,
        source: path,
        kind: isDir ? 'folder' : 'file',
        argv,
        configName,
        position: re ? { spec: posSpec, re } : undefined,
        messages: parseMessages(h.message),
        maxLines: h['max-lines'] ? Number(h['max-lines'][0]) : undefined,
      });
    }
  }
  return cases;
}

export interface ArgsCase {
  case: string;
  argv: string[];
  message?: string;
}

export function loadArgsCases(): ArgsCase[] {
  const list = parseYaml(readFileSync(join(CORPUS, 'args.yaml'), 'utf8')) as ArgsCase[];
  for (const c of list)
    if (!c.case || !Array.isArray(c.argv)) throw new Error(`args.yaml: each item needs case and argv, found ${JSON.stringify(c)}`);
  return list;
}

// ---- running ------------------------------------------------------------------------------------

export function tempDir(prefix = 'rowsim-corpus-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Copy a case (a file, or a folder's contents) and the argument fixtures into `dir`. */
export function stage(c: CorpusCase, dir: string): void {
  if (c.kind === 'file') cpSync(c.source, join(dir, basename(c.source)));
  else cpSync(c.source, dir, { recursive: true });
}

/** Add --out (writing commands) and --url (pg-check) when the case does not give them. */
export function finalArgv(argv: string[], dir: string, add = true): string[] {
  const out = [...argv];
  if (!add) return out;
  const cmd = out[0] as Command;
  const has = (flag: string) => out.some((a) => a === flag || a.startsWith(`${flag}=`));
  if (WRITING.includes(cmd) && !has('--out')) out.push('--out', join(dir, 'out'));
  if (cmd === 'pg-check' && !has('--url')) out.push('--url', UNREACHABLE_PG_URL);
  return out;
}

/** Every file and folder under `dir`: relative path → content hash, 'dir', or 'link → target'. */
export function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    let entries: string[];
    try {
      entries = readdirSync(join(dir, rel));
    } catch {
      return;
    }
    for (const e of entries.sort()) {
      const r = rel ? `${rel}/${e}` : e;
      const st = lstatSync(join(dir, r));
      if (st.isSymbolicLink()) out.set(r, `link → ${readlinkSync(join(dir, r))}`);
      else if (st.isDirectory()) {
        out.set(r, 'dir');
        walk(r);
      } else if (st.isFile())
        out.set(
          r,
          createHash('sha256')
            .update(readFileSync(join(dir, r)))
            .digest('hex'),
        );
      else out.set(r, 'special');
    }
  };
  walk('');
  return out;
}

export function snapshotDiff(before: Map<string, string>, after: Map<string, string>): string[] {
  const diff: string[] = [];
  for (const [k, v] of after) {
    if (!before.has(k)) diff.push(`+${k}`);
    else if (before.get(k) !== v) diff.push(`~${k}`);
  }
  for (const k of before.keys()) if (!after.has(k)) diff.push(`-${k}`);
  return diff;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  hung: boolean;
  ms: number;
  stdout: string;
  stderr: string;
}

const MAX_CAPTURE = 2 * 1024 * 1024;

/** The environment of a case: no PostgreSQL, and the same memory limit on every machine. */
function caseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.ROWSIM_PG_URL;
  // The memory check depends on the machine: give every case the same 4 GiB, so that a table of
  // 400,000,000 rows is refused here as on a laptop.
  env.ROWSIM_MAX_MEMORY ??= '4g';
  return env;
}

/** Run bin/rowsim.js with `argv` in `cwd`; kill its process group after `limitMs` (hung). */
export function runCli(argv: string[], cwd: string, limitMs = HANG_MS): Promise<RunResult> {
  const env = caseEnv();
  return new Promise((resolvePromise) => {
    const started = Date.now();
    const child = spawn(process.execPath, [BIN, ...argv], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < MAX_CAPTURE) stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < MAX_CAPTURE) stderr += d.toString('utf8');
    });
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, limitMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, hung, ms: Date.now() - started, stdout, stderr });
    });
  });
}

const CASE_CHILD = join(ROOT, 'test', 'helpers', 'corpus-child.mjs');

interface CaseChild {
  proc: ChildProcess;
  /** What the process wrote past the captured write() (nothing, as a rule): added to the case's output. */
  stray: { stdout: string; stderr: string };
}

interface CaseAnswer {
  id: number;
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Cases run in-process in `n` long-lived children (test/helpers/corpus-child.mjs): each loads rowsim's
 * command line once and runs one case after another, its stdout, stderr and exit status captured as
 * runCli captures a process's. A case that is still running after `limitMs` is hung: its child is
 * killed (the next case gets a new one). A case that ends its child (an uncaught exception, a
 * process.exit) runs again with runCli, as a process of its own, and that run is its result.
 * `close()` ends the children.
 */
export function inProcessRunner(n: number): { run(argv: string[], cwd: string, limitMs?: number): Promise<RunResult>; close(): void } {
  const idle: CaseChild[] = [];
  const all = new Set<CaseChild>();
  const gate = limiter(n);
  let seq = 0;
  const start = (): Promise<CaseChild> =>
    new Promise((resolveChild, rejectChild) => {
      const proc = fork(CASE_CHILD, [], { cwd: tmpdir(), env: caseEnv(), stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
      const child: CaseChild = { proc, stray: { stdout: '', stderr: '' } };
      proc.stdout!.on('data', (d: Buffer) => (child.stray.stdout += d.toString('utf8')));
      proc.stderr!.on('data', (d: Buffer) => (child.stray.stderr += d.toString('utf8')));
      all.add(child);
      proc.on('exit', () => all.delete(child));
      const onStartExit = () => rejectChild(new Error(`corpus child ended before it was ready: ${child.stray.stderr}`));
      proc.once('exit', onStartExit);
      proc.once('message', () => {
        proc.off('exit', onStartExit);
        resolveChild(child);
      });
    });
  const runOn = (child: CaseChild, argv: string[], cwd: string, limitMs: number): Promise<RunResult | 'ended'> =>
    new Promise((resolveRun) => {
      const id = ++seq;
      const started = Date.now();
      child.stray = { stdout: '', stderr: '' };
      const finish = (r: RunResult | 'ended') => {
        clearTimeout(timer);
        child.proc.off('message', onMessage);
        child.proc.off('exit', onExit);
        resolveRun(r);
      };
      const onMessage = (m: CaseAnswer) => {
        if (m.id !== id) return;
        idle.push(child);
        const { stdout, stderr } = child.stray;
        finish({ code: m.code, signal: null, hung: false, ms: m.ms, stdout: m.stdout + stdout, stderr: m.stderr + stderr });
      };
      const onExit = () => finish('ended');
      const timer = setTimeout(() => {
        child.proc.off('exit', onExit);
        child.proc.kill('SIGKILL');
        finish({ code: null, signal: 'SIGKILL', hung: true, ms: Date.now() - started, stdout: '', stderr: child.stray.stderr });
      }, limitMs);
      child.proc.on('message', onMessage);
      child.proc.once('exit', onExit);
      child.proc.send({ id, argv, cwd });
    });
  return {
    run: (argv, cwd, limitMs = HANG_MS) =>
      gate(async () => {
        const child = idle.pop() ?? (await start());
        const r = await runOn(child, argv, cwd, limitMs);
        return r === 'ended' ? runCli(argv, cwd, limitMs) : r;
      }),
    close() {
      for (const child of all) child.proc.kill();
    },
  };
}

/** At most `n` CLI processes at a time. */
export function limiter(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((r) => queue.push(r));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}

// ---- judging ------------------------------------------------------------------------------------

/** A stack frame (`    at f (file:1:2)`, `    at file:///x.js:1:2`) or Node's uncaught-exception footer. */
export const STACK_FRAME = /^\s+at\s.+:\d+:\d+\)?\s*$/m;
/** An error class prefix: `TypeError:`, `RangeError:`, `Error:`, `InputError:` … */
export const ERROR_CLASS = /\b[A-Za-z]*Error:/;

export interface Verdict {
  /** Problems, each starting with its kind in brackets: [hang] [exit] [stack] [stderr] [position] [message] [lines] [output]. */
  problems: string[];
}

export interface Expectation {
  position?: { spec: string; re: RegExp };
  messages: string[][];
  maxLines?: number;
  /** Exit statuses that are acceptable (default [2]). */
  codes?: number[];
  /** Words removed from stderr before the message check (the case's own name, which a file name repeats). */
  ignore?: string[];
}

export function judge(r: RunResult, exp: Expectation, outputChanges: string[]): string[] {
  const problems: string[] = [];
  const codes = exp.codes ?? [2];
  if (r.hung) problems.push(`[hang] still running after ${HANG_MS / 1000} s: killed`);
  else if (!codes.includes(r.code ?? -1)) problems.push(`[exit] exit status ${r.code ?? r.signal}, expected ${codes.join(' or ')}`);
  const err = r.stderr;
  if (!r.hung && r.code !== 0 && err.trim() === '') problems.push('[stderr] nothing on stderr');
  if (STACK_FRAME.test(err) || /^Node\.js v\d+/m.test(err)) problems.push('[stack] a stack trace on stderr');
  else if (ERROR_CLASS.test(err)) problems.push(`[stack] an error class name on stderr (${ERROR_CLASS.exec(err)![0]})`);
  if (r.code !== 0 && !r.hung) {
    if (exp.position && !exp.position.re.test(err))
      problems.push(
        `[position] no ${exp.position.spec === 'yes' ? 'file' : exp.position.spec}:line:column (${exp.position.re.source}) on stderr`,
      );
    let text = err.toLowerCase();
    for (const w of exp.ignore ?? []) text = text.split(w.toLowerCase()).join('');
    for (const alts of exp.messages) {
      if (!alts.some((a) => text.includes(a.toLowerCase())))
        problems.push(`[message] stderr does not mention ${alts.map((a) => JSON.stringify(a)).join(' or ')}`);
    }
    const lines = err.split('\n').filter((l) => l.trim() !== '').length;
    if (exp.maxLines !== undefined && lines > exp.maxLines)
      problems.push(`[lines] ${lines} lines on stderr, expected at most ${exp.maxLines}`);
  }
  if (outputChanges.length)
    problems.push(
      `[output] files written or changed: ${outputChanges.slice(0, 8).join(', ')}${outputChanges.length > 8 ? ` … (${outputChanges.length})` : ''}`,
    );
  return problems;
}

/** For --out paths outside the temp folder (such as /): the names in it and its parent, before and after. */
export function outsideListing(argv: string[], cwd: string): Map<string, string> {
  const i = argv.findIndex((a) => a === '--out' || a.startsWith('--out='));
  const out = new Map<string, string>();
  if (i < 0) return out;
  const value = argv[i]!.startsWith('--out=') ? argv[i]!.slice(6) : argv[i + 1];
  if (value === undefined) return out;
  const abs = resolve(cwd, value);
  const rel = relative(cwd, abs);
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) return out; // inside cwd: the snapshot covers it
  for (const d of new Set([dirname(abs), abs])) {
    try {
      for (const e of readdirSync(d)) out.set(join(d, e), 'entry');
    } catch {
      // not a folder
    }
  }
  return out;
}

export function describeRun(argv: string[], r: RunResult): string {
  const first = r.stderr.split('\n').find((l) => l.trim() !== '') ?? '(empty)';
  return `$ rowsim ${argv.map((a) => (/^[\w./:=@,-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}\n  exit ${r.hung ? 'killed (hung)' : (r.code ?? r.signal)} after ${r.ms} ms; stderr: ${first.length > 300 ? `${first.slice(0, 300)}…` : first}`;
}
