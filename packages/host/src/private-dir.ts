import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { parse, resolve } from 'node:path';
import { PRIVATE_DIR_MODE } from '@parley/core';

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
