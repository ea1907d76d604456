/**
 * Results folders are written whole or not at all: into a temporary sibling folder first, then renamed
 * into place, so a failed run never leaves a half-written out/<name>/.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * Write `target` whole: `write` fills a temporary folder, which then replaces the old one. Files of the
 * old folder that `keep` accepts (paths relative to it, such as another command's estimate.json) and
 * that the new folder does not have are carried over.
 */
export function writeFolderAtomically(target: string, write: (dir: string) => void, keep?: (relPath: string) => boolean): void {
  const finalDir = resolve(target);
  const parent = dirname(finalDir);
  mkdirSync(parent, { recursive: true });
  const tmp = join(parent, `.${basename(finalDir)}.tmp-${process.pid}-${Date.now()}`);
  mkdirSync(join(tmp, 'charts'), { recursive: true });
  try {
    write(tmp);
    if (keep && existsSync(finalDir)) carryOver(finalDir, tmp, '', keep);
    if (existsSync(finalDir)) {
      const old = join(parent, `.${basename(finalDir)}.old-${process.pid}-${Date.now()}`);
      renameSync(finalDir, old);
      renameSync(tmp, finalDir);
      rmSync(old, { recursive: true, force: true });
    } else {
      renameSync(tmp, finalDir);
    }
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

function carryOver(from: string, to: string, rel: string, keep: (relPath: string) => boolean): void {
  for (const entry of readdirSync(join(from, rel), { withFileTypes: true })) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (existsSync(join(to, path))) carryOver(from, to, path, keep);
    } else if (keep(path) && !existsSync(join(to, path))) {
      renameSync(join(from, path), join(to, path));
    }
  }
}
