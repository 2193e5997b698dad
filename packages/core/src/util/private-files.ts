import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { parse, resolve } from 'node:path';

/** Mode of a directory that holds secrets: only its owner may list or enter it. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of a file that holds secrets (keys, tokens, session state): only its owner may read it. */
export const PRIVATE_FILE_MODE = 0o600;

/** Any permission for the group or for others. */
const SHARED_BITS = 0o077;
/** Set on directories where everyone may create files but only delete their own (`/tmp`). */
const STICKY_BIT = 0o1000;

/** What {@link privateDir} found: a directory already private (or just created), or one open to others that it tightened or left alone. */
export type PrivateDirOutcome = 'private' | 'tightened' | 'shared';

/**
 * Creates `dir` (and missing parents) owner-only, and tightens it to 0700 if it already exists with
 * permissions for others. A directory that is evidently shared is left as it is (`shared`): one with
 * the sticky bit (such as `/tmp`), the file-system root, or one another user owns; closing it would
 * break everyone else's use of it. The caller logs anything but `private`.
 */
export function privateDir(dir: string): PrivateDirOutcome {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const stat = statSync(dir);
  if ((stat.mode & SHARED_BITS) === 0) return 'private';
  const otherOwner = process.getuid !== undefined && stat.uid !== process.getuid();
  if ((stat.mode & STICKY_BIT) !== 0 || resolve(dir) === parse(resolve(dir)).root || otherOwner) return 'shared';
  chmodSync(dir, PRIVATE_DIR_MODE);
  return 'tightened';
}

/**
 * Creates `file` empty with mode 0600 if it does not exist, so its content is never readable by
 * others, not even for the moment between creation and a chmod. Answers whether an existing file
 * had to be tightened (see {@link privateExistingFile}).
 */
export function privateFile(file: string): boolean {
  try {
    closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
    return false;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return tighten(file, PRIVATE_FILE_MODE);
  }
}

/** Tightens `file` to 0600 if it exists with permissions for others; answers whether it did. */
export function privateExistingFile(file: string): boolean {
  try {
    return tighten(file, PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

function tighten(path: string, mode: number): boolean {
  if ((statSync(path).mode & SHARED_BITS) === 0) return false;
  chmodSync(path, mode);
  return true;
}
