/**
 * Output folders. The rule: rowsim never deletes or overwrites a file it did not write.
 *
 * - A folder rowsim writes carries a manifest, `.rowsim-output.json`, that lists the files each command
 *   (`run`, `estimate`) wrote there. A folder without one is accepted when it is empty, or when it is
 *   recognisably a result of an earlier rowsim (only rowsim's file names, and a results.json or
 *   estimate.json rowsim wrote); any other non-empty folder is refused before the work starts.
 * - A command stages its files in a temporary folder, then publishes them under a lock: a new folder is
 *   renamed into place whole; into an existing folder each file is renamed over its old version, and the
 *   command's files of the last run that this run did not write again are removed. Files of the other
 *   command, and files rowsim did not write, are left alone; a file rowsim did not write is never replaced.
 * - The lock (a file created exclusively beside the folder) makes concurrent runs on one folder take
 *   turns; a lock or a staging folder left by a killed process is recognised by its process id and
 *   removed by the next run. SIGINT, SIGTERM and SIGHUP remove the staging folder and release the lock.
 */
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants as fsConstants,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  writeFileSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, parse, relative, resolve, sep } from 'node:path';
import { UserError } from '../config/errors.js';
import { outputPathProblem } from '../config/limits.js';
import { onInterrupt } from '../util/cleanup.js';
import { errnoText, fileKind } from '../util/fs-text.js';
import { ROWSIM_VERSION } from '../version.js';

const MANIFEST_FILE = '.rowsim-output.json';
/** The commands that write output folders; `part` is rowsim run --shard's partial result (src/run/part.ts). */
type OutputOwner = 'run' | 'estimate' | 'calibrate' | 'page' | 'trace' | 'part' | 'playground';
const OWNERS: readonly OutputOwner[] = ['run', 'estimate', 'calibrate', 'page', 'trace', 'part', 'playground'];

/** How long a command waits for another rowsim process to finish publishing into the same folder. */
const LOCK_WAIT_MS = 120_000;
const LOCK_POLL_MS = 50;

interface Manifest {
  rowsim_version: string;
  files: Partial<Record<OutputOwner, string[]>>;
}

/** A checked output folder: where it is, how to show it, and which command writes into it. */
interface OutputFolder {
  /** Absolute path. */
  readonly dir: string;
  /** The path as the user gave it (for messages). */
  readonly shown: string;
  readonly owner: OutputOwner;
}

// ---- checks ----------------------------------------------------------------------------------------

function fail(folder: { shown: string }, message: string): never {
  const shown = folder.shown.length > 120 ? `${folder.shown.slice(0, 60)}…${folder.shown.slice(-40)}` : folder.shown;
  throw new UserError(`--out ${shown}: ${message}`);
}

/**
 * mkdir -p, one level at a time from the deepest folder that exists. Node.js's own recursive mkdir
 * retries for ever where a file system answers ENOENT under a folder that exists (procfs: `--out
 * /proc/x`); here each level is tried once and a refusal is an error.
 */
function makeFolders(path: string): void {
  const missing: string[] = [];
  for (let p = resolve(path); !existsSync(p); p = dirname(p)) {
    missing.push(p);
    if (dirname(p) === p) break;
  }
  for (const p of missing.reverse()) {
    try {
      mkdirSync(p);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ENOTDIR') return null; // a parent is a file: reported by the ancestor walk
    throw err;
  }
}

function checkWritable(folder: { shown: string }, path: string, what: string): void {
  try {
    accessSync(path, fsConstants.W_OK | fsConstants.X_OK);
  } catch (err) {
    fail(folder, `cannot write into ${what} ${path}: ${errnoText(err)}`);
  }
}

function readManifest(dir: string): Manifest | null | 'damaged' {
  let text: string;
  try {
    text = readFileSync(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    return null;
  }
  try {
    const m = JSON.parse(text) as Manifest;
    if (typeof m !== 'object' || m === null || typeof m.files !== 'object' || m.files === null) return 'damaged';
    for (const owner of OWNERS) {
      const list = m.files[owner];
      if (list !== undefined && !(Array.isArray(list) && list.every((f) => typeof f === 'string' && isSafeRelative(f)))) return 'damaged';
    }
    return m;
  } catch {
    return 'damaged';
  }
}

/**
 * The files `owner` wrote into `dir`, as the folder's manifest lists them; null when the folder has no
 * readable manifest (not rowsim's, or damaged). rowsim merge reads its parts' lists this way.
 */
export function ownedFiles(dir: string, owner: OutputOwner): string[] | null {
  const m = readManifest(dir);
  return m && m !== 'damaged' ? (m.files[owner] ?? null) : null;
}

/** A relative path inside the folder (no `..`, not absolute). */
function isSafeRelative(rel: string): boolean {
  return rel !== '' && !rel.startsWith('/') && !rel.split('/').some((p) => p === '..' || p === '.' || p === '');
}

/** A folder inside an output folder that is an output folder of its own (`rowsim page`'s pages/, `rowsim trace`'s trace/): it has its manifest. */
function isNestedOutput(path: string): boolean {
  const st = statOrNull(path);
  if (!st?.isDirectory()) return false;
  const m = readManifest(path);
  return m !== null && m !== 'damaged';
}

/**
 * The files `owner` published into the output folder `sub` inside `dir` (rowsim trace's decks in trace/,
 * rowsim page's drawings in pages/) that are there, as paths relative to `dir`, sorted; none without a manifest.
 */
export function nestedOutputFiles(dir: string, sub: string, owner: OutputOwner): string[] {
  const m = readManifest(join(dir, sub));
  if (m === null || m === 'damaged') return [];
  return (m.files[owner] ?? [])
    .filter((f) => statOrNull(join(dir, sub, f))?.isFile())
    .map((f) => `${sub}/${f}`)
    .sort();
}

/** Files of a folder, relative, with `/` separators; directories are walked (not nested output folders, which keep their own lists). */
function listFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
    if (rel === '' && isOwnTemporary(entry.name)) continue;
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory() && isNestedOutput(join(dir, path))) continue;
    if (entry.isDirectory()) out.push(...listFiles(dir, path));
    else out.push(path);
  }
  return out;
}

const RUN_FILE = /^(results\.json|summary\.md|report\.html|charts\/[^/]+\.(png|svg))$/;
const ESTIMATE_FILE = /^(estimate\.(json|md)|charts\/estimate[^/]*\.png)$/;

/**
 * A folder without a manifest that an earlier rowsim wrote: only rowsim's file names, and a
 * results.json or estimate.json that rowsim wrote. Returns the manifest it implies, or null.
 */
function recognise(dir: string): Manifest | null {
  const files = listFiles(dir);
  const run: string[] = [];
  const estimate: string[] = [];
  for (const f of files) {
    if (ESTIMATE_FILE.test(f)) estimate.push(f);
    else if (RUN_FILE.test(f)) run.push(f);
    else return null;
  }
  const jsonHas = (file: string, key: string): boolean => {
    try {
      const v = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
      return typeof v === 'object' && v !== null && key in v;
    } catch {
      return false;
    }
  };
  const ok =
    (run.includes('results.json') && jsonHas('results.json', 'rowsim_version')) ||
    (estimate.includes('estimate.json') && jsonHas('estimate.json', 'candidates'));
  return ok ? { rowsim_version: 'unknown', files: { run, estimate } } : null;
}

/** The manifest of an existing folder, or an error naming why rowsim will not write there. */
function folderManifest(folder: OutputFolder): Manifest {
  const m = readManifest(folder.dir);
  if (m === 'damaged')
    fail(
      folder,
      `the folder's ${MANIFEST_FILE} (the list of files rowsim wrote there) is damaged: remove the folder yourself or choose another --out`,
    );
  if (m) return m;
  const entries = readdirSync(folder.dir).filter((e) => !isOwnTemporary(e) && !isNestedOutput(join(folder.dir, e)));
  if (entries.length === 0) return { rowsim_version: ROWSIM_VERSION, files: {} };
  const old = recognise(folder.dir);
  if (old) return old;
  const sample = entries.slice(0, 3).join(', ') + (entries.length > 3 ? ', …' : '');
  fail(
    folder,
    `expected an empty folder or one that rowsim wrote, found a folder with other files (${sample}); rowsim never deletes files it did not write: choose another --out`,
  );
}

/**
 * Check an output folder before any work starts: it is a folder (or can be created as one) that rowsim
 * may write into. Throws UserError (exit 2) with the reason.
 */
export function checkOutputFolder(target: string, owner: OutputOwner): OutputFolder {
  const dir = resolve(target);
  const folder: OutputFolder = { dir, shown: target, owner };
  if (dir === parse(dir).root) fail(folder, 'expected a results folder, found the root of the file system');
  const tooLong = outputPathProblem(dir);
  if (tooLong) fail(folder, tooLong);
  const st = statOrNull(dir);
  if (st) {
    if (!st.isDirectory()) fail(folder, `expected a folder, found ${fileKind(st)}`);
    checkWritable(folder, dir, 'the folder');
    folderManifest(folder);
    return folder;
  }
  // The folder does not exist: its nearest existing ancestor must be a folder we may write into.
  let up = dirname(dir);
  for (;;) {
    const a = statOrNull(up);
    if (a) {
      if (!a.isDirectory()) fail(folder, `expected a folder path, found ${up}, which is ${fileKind(a)}`);
      checkWritable(folder, up, 'the folder');
      return folder;
    }
    if (up === dirname(up)) fail(folder, 'no part of the path exists');
    up = dirname(up);
  }
}

// ---- temporary folders and the lock ----------------------------------------------------------------

const STAGE_TAG = '.rowsim-tmp-';

function isOwnTemporary(name: string): boolean {
  return name.includes(STAGE_TAG) || name.endsWith('.rowsim-lock');
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Staging folders of this target left by processes that no longer run (SIGKILL): removed. */
function removeStaleStaging(folder: OutputFolder): void {
  const parent = dirname(folder.dir);
  const prefix = `.${basename(folder.dir)}${STAGE_TAG}`;
  const places: [string, string][] = [[parent, prefix]];
  if (existsSync(folder.dir)) places.push([folder.dir, STAGE_TAG]);
  for (const [where, pre] of places) {
    let names: string[];
    try {
      names = readdirSync(where);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.startsWith(pre)) continue;
      const m = /^(\d+)-([0-9a-f]+)$/.exec(name.slice(pre.length));
      if (!m || processAlive(Number(m[1]))) continue;
      const path = join(where, name);
      // Only a folder this code made: it holds rowsim's manifest.
      if (existsSync(join(path, MANIFEST_FILE))) rmSync(path, { recursive: true, force: true });
    }
  }
}

interface LockInfo {
  pid: number;
  host: string;
}

/** A pause that leaves the thread free: a signal that comes while the lock is awaited stops the command at once. */
const sleepMs = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Take the folder's lock (waiting while another live rowsim holds it); resolves to the release function. */
async function lockFolder(folder: OutputFolder): Promise<() => void> {
  const candidates = [join(dirname(folder.dir), `.${basename(folder.dir)}.rowsim-lock`), join(folder.dir, '.rowsim-lock')];
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (const path of candidates) {
    for (;;) {
      let fd: number;
      try {
        fd = openSync(path, 'wx');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') {
          const holder = readLock(path);
          if (holder && holder.host === hostname() && !processAlive(holder.pid)) {
            rmSync(path, { force: true }); // left by a killed process
            continue;
          }
          if (Date.now() > deadline)
            fail(
              folder,
              `another rowsim (${holder ? `process ${holder.pid} on ${holder.host}` : 'process'}) has been writing this folder for ${LOCK_WAIT_MS / 1000} s; if none runs, remove ${path}`,
            );
          await sleepMs(LOCK_POLL_MS);
          continue;
        }
        if ((code === 'EACCES' || code === 'EROFS' || code === 'ENOENT') && path === candidates[0] && existsSync(folder.dir)) break; // try inside the folder
        fail(folder, `cannot create the lock ${path}: ${errnoText(err)}`);
      }
      writeSync(
        fd,
        JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() } satisfies LockInfo & { since: string }),
      );
      closeSync(fd);
      return () => rmSync(path, { force: true });
    }
  }
  fail(folder, 'cannot create a lock beside or inside the folder');
}

function readLock(path: string): LockInfo | null {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
    return typeof v.pid === 'number' && typeof v.host === 'string' ? v : null;
  } catch {
    return null; // being written, or damaged: wait for it
  }
}

// ---- staging and publishing ------------------------------------------------------------------------

/** A text file of `pieces`, one after the other. */
function writePieces(path: string, pieces: Iterable<string>): void {
  const fd = openSync(path, 'w');
  try {
    for (const piece of pieces) {
      const bytes = Buffer.from(piece, 'utf8');
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The files of one command's output, written into a temporary folder and then published into the
 * output folder. Create it after the input is checked; write with `write`; finish with `publish` (or
 * `discard` on failure; an interrupt discards it too).
 */
export class StagedOutput {
  readonly dir: string;
  private readonly files = new Set<string>();
  private readonly unregister: () => void;
  private finished = false;

  constructor(readonly folder: OutputFolder) {
    removeStaleStaging(folder);
    // Inside an existing folder (its parent may be read-only, `--out .`), else beside the new one.
    const suffix = `${process.pid}-${randomBytes(6).toString('hex')}`;
    this.dir = existsSync(folder.dir)
      ? join(folder.dir, `${STAGE_TAG}${suffix}`)
      : join(dirname(folder.dir), `.${basename(folder.dir)}${STAGE_TAG}${suffix}`);
    // The handler first: a signal that comes once the folder exists must find it (until it is installed,
    // SIGTERM's default action ends the process with nothing cleaned up).
    this.unregister = onInterrupt(() => this.discard());
    try {
      makeFolders(dirname(folder.dir));
      makeFolders(this.dir);
      writeManifest(this.dir, { rowsim_version: ROWSIM_VERSION, files: {} });
    } catch (err) {
      rmSync(this.dir, { recursive: true, force: true });
      this.unregister();
      fail(folder, `cannot create a temporary folder ${this.dir}: ${errnoText(err)}`);
    }
  }

  /**
   * Write one file (path relative to the output folder, `/`-separated): its bytes, or its text as one
   * string or as pieces written one after the other, each made as it is written (report.html with its
   * charts: megabytes a join would copy again).
   */
  write(rel: string, data: string | Uint8Array | Iterable<string>): void {
    if (!isSafeRelative(rel)) throw new Error(`output path ${rel} leaves the output folder`);
    const path = join(this.dir, ...rel.split('/'));
    makeFolders(dirname(path));
    try {
      if (typeof data === 'string' || data instanceof Uint8Array) writeFileSync(path, data);
      else writePieces(path, data);
    } catch (err) {
      fail(this.folder, `cannot write ${rel}: ${errnoText(err)}`);
    }
    this.files.add(rel);
  }

  /** Files written so far, in the order written. */
  written(): string[] {
    return [...this.files];
  }

  discard(): void {
    if (this.finished) return;
    this.finished = true;
    rmSync(this.dir, { recursive: true, force: true });
    this.unregister();
  }

  /**
   * Publish the staged files into the output folder (see the top of this file). `accumulate`: the
   * command's files of earlier runs stay (rowsim trace's decks and rowsim page's drawings are named by
   * what they show, so one run never replaces another's).
   */
  async publish(options: { accumulate?: boolean } = {}): Promise<void> {
    if (this.finished) throw new Error('output already published or discarded');
    const release = await lockFolder(this.folder);
    try {
      const folder = this.folder;
      const mine = [...this.files].sort(publishOrder);
      const st = statOrNull(folder.dir);
      if (!st) {
        writeManifest(this.dir, { rowsim_version: ROWSIM_VERSION, files: { [folder.owner]: mine } });
        renameSync(this.dir, folder.dir);
      } else {
        if (!st.isDirectory()) fail(folder, `expected a folder, found ${fileKind(st)}`);
        this.publishInto(folder, mine, options.accumulate === true);
      }
    } catch (err) {
      if (err instanceof UserError) throw err;
      fail(this.folder, `cannot publish the results: ${errnoText(err)}`);
    } finally {
      release();
      this.discard();
    }
  }

  private publishInto(folder: OutputFolder, mine: string[], accumulate: boolean): void {
    const manifest = folderManifest(folder);
    const owned = new Set(OWNERS.flatMap((o) => manifest.files[o] ?? []));
    // Every file this run writes must be new or rowsim's own: checked for all before any moves.
    for (const rel of mine) {
      const dest = join(folder.dir, ...rel.split('/'));
      const d = statOrNull(dest);
      if (d && (d.isDirectory() || !owned.has(rel)))
        fail(folder, `${rel} exists there and rowsim did not write it: move it away or choose another --out`);
      for (let up = dirname(dest); up.length > folder.dir.length; up = dirname(up)) {
        const u = statOrNull(up);
        if (u && !u.isDirectory())
          fail(folder, `${relative(folder.dir, up).split(sep).join('/')} exists there as ${fileKind(u)} where rowsim writes a folder`);
      }
    }
    const before = manifest.files[folder.owner] ?? [];
    // The manifest lists the old and the new files while they are moved, so a crash leaves nothing
    // rowsim wrote unlisted (the next run removes what it no longer writes).
    const files: Manifest['files'] = { ...manifest.files, [folder.owner]: [...new Set([...before, ...mine])] };
    // Only the lists the manifest has: a folder that held nothing of another command's gets no empty list
    // for it (so a run published into a folder that holds only part folders lists what a new folder does).
    for (const other of OWNERS) if (other !== folder.owner && files[other]) files[other] = files[other]!.filter((f) => !mine.includes(f));
    writeManifest(folder.dir, { rowsim_version: ROWSIM_VERSION, files });
    for (const rel of mine) {
      const dest = join(folder.dir, ...rel.split('/'));
      makeFolders(dirname(dest));
      renameSync(join(this.dir, ...rel.split('/')), dest);
    }
    if (accumulate) return;
    files[folder.owner] = mine;
    writeManifest(folder.dir, { rowsim_version: ROWSIM_VERSION, files });
    for (const rel of before) {
      if (mine.includes(rel)) continue;
      rmSync(join(folder.dir, ...rel.split('/')), { force: true });
      removeEmptyParents(folder.dir, rel);
    }
  }
}

/** results.json and the manifest come last, so a reader that sees the new results sees every file. */
function publishOrder(a: string, b: string): number {
  const rank = (f: string) => (f === 'results.json' || f === 'estimate.json' ? 1 : 0);
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

function removeEmptyParents(root: string, rel: string): void {
  const parts = rel.split('/');
  for (let n = parts.length - 1; n > 0; n--) {
    try {
      rmdirSync(join(root, ...parts.slice(0, n)));
    } catch {
      return; // not empty (or already gone): keep it
    }
  }
}

function writeManifest(dir: string, manifest: Manifest): void {
  const tmp = join(dir, `${MANIFEST_FILE}.${process.pid}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmp, join(dir, MANIFEST_FILE));
}
