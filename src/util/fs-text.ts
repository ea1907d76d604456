/**
 * File system answers in words, for the messages about a user's files and folders: what kind of thing a
 * path is, and why an operation on it failed (the reason, not Node.js's error text or its code).
 */
import type { Stats } from 'node:fs';

/** "a file", "a folder", "a character device" …: what `st` is. */
export function fileKind(st: Stats): string {
  if (st.isFile()) return 'a file';
  if (st.isDirectory()) return 'a folder';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a pipe';
  if (st.isSocket()) return 'a socket';
  return 'something that is neither a file nor a folder';
}

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'a read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota exceeded',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'a folder',
  EEXIST: 'it already exists',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'a name too long',
  EMFILE: 'too many open files',
};

/** Why a file system call failed, in words ("permission denied"); an error without a known code keeps its message. */
export function errnoText(err: unknown): string {
  const e = err as NodeJS.ErrnoException | undefined;
  const known = e?.code ? ERRNO_TEXT[e.code] : undefined;
  return known ?? String(e?.message ?? err);
}
