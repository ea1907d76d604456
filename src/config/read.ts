/**
 * Reading the user's input files (configs, DDL, CSV): only regular files of a bounded size, so that a
 * path such as /dev/zero or a folder is refused at once instead of read forever.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, realpathSync } from 'node:fs';
import { errnoText, fileKind } from '../util/fs-text.js';

/** The largest input file rowsim reads: configs, DDL and CSV files are far smaller. */
const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/** 1 MiB, 64 MiB, 1.4 MiB, 900 kB. */
function sizeText(bytes: number): string {
  if (bytes >= 1048576) return `${Number((bytes / 1048576).toFixed(1))} MiB`;
  return `${Math.ceil(bytes / 1024)} kB`;
}

type ReadResult = { ok: true; text: string } | { ok: false; problem: string };

/**
 * Read a text file the user named. Returns its text, or a problem phrased to follow "expected …, "
 * ("a regular file, found a character device").
 */
export function readInputText(path: string, maxBytes = MAX_INPUT_BYTES, what = 'a file'): ReadResult {
  // /proc and /sys files say they are regular and empty, then produce text: not a user's file.
  try {
    const real = realpathSync(path);
    if (/^\/(proc|sys)(\/|$)/.test(real)) return { ok: false, problem: `a regular file, found a kernel pseudo-file (${real})` };
  } catch {
    // a missing file: the open below says so
  }
  let fd: number;
  try {
    // O_NONBLOCK: opening a named pipe must not wait for a writer before we can look at what it is.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    return { ok: false, problem: `a readable file, found ${errnoText(err)}` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, problem: `a regular file, found ${fileKind(st)}` };
    if (st.size > maxBytes) return { ok: false, problem: `${what} of at most ${sizeText(maxBytes)}, found ${sizeText(st.size)}` };
    return { ok: true, text: readFileSync(fd, 'utf8') };
  } catch (err) {
    return { ok: false, problem: `a readable file, found ${errnoText(err)}` };
  } finally {
    closeSync(fd);
  }
}
