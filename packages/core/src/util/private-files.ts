import { chmodSync, closeSync, openSync, statSync } from 'node:fs';

/** Mode of a directory that holds secrets: only its owner may list or enter it. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of a file that holds secrets (keys, tokens, session state): only its owner may read it. */
export const PRIVATE_FILE_MODE = 0o600;

/** Any permission for the group or for others. */
const SHARED_BITS = 0o077;

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
