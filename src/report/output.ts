/**
 * Results folders are written whole or not at all: into a temporary sibling folder first, then renamed
 * into place, so a failed run never leaves a half-written out/<name>/.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export function writeFolderAtomically(target: string, write: (dir: string) => void): void {
  const finalDir = resolve(target);
  const parent = dirname(finalDir);
  mkdirSync(parent, { recursive: true });
  const tmp = join(parent, `.${basename(finalDir)}.tmp-${process.pid}-${Date.now()}`);
  mkdirSync(join(tmp, 'charts'), { recursive: true });
  try {
    write(tmp);
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
