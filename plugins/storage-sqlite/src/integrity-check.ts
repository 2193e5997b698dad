import { Worker } from 'node:worker_threads';
import { isCorruption } from './sqlite-health.js';

/**
 * What {@link checkIntegrity} found: nothing wrong, the damage in SQLite's words, or nothing because
 * the check itself could not run (`skipped`, why: not a verdict on the file).
 */
export type IntegrityResult = { ok: true; skipped?: string } | { ok: false; detail: string };

/**
 * How long start-up waits for the integrity check (ms). `quick_check` reads the whole file, about a
 * second per few hundred MiB; a larger database starts without waiting and the check goes on in the
 * background, a damage it finds then making the store not ready.
 */
export const INTEGRITY_WAIT_MS = 10_000;

/**
 * What an operator should do about a damaged database file, naming it: the message of the start-up
 * refusal and of the error line when damage shows later.
 */
export function corruptionAdvice(file: string): string {
  return `sqlite database file ${file} is damaged: stop Parley, keep a copy of the file (with its -wal and -shm), `
    + 'then restore it from a backup or recover what is readable with `sqlite3 <file> .recover | sqlite3 <new file>` and point the `path` option at the new file';
}

/**
 * Runs SQLite's `PRAGMA quick_check` (every page and b-tree of the file, without the slower index
 * cross-check of `integrity_check`) on its own read-only connection in a worker thread, so the event
 * loop never waits on it. Answers within `waitMs` with the result, or `pending` with the promise of
 * the result when the file takes longer. Damage that shows only after start-up (a disk that goes bad
 * later) is found by the reads that meet it (SQLITE_CORRUPT, see SqliteHealth).
 */
export async function checkIntegrity(file: string, waitMs = INTEGRITY_WAIT_MS): Promise<IntegrityResult | { pending: Promise<IntegrityResult> }> {
  const result = new Promise<IntegrityResult>((resolve) => {
    const worker = new Worker(new URL('./integrity-worker.js', import.meta.url), { workerData: { file } });
    // A check still running must not keep a stopping process alive.
    worker.unref();
    let found: IntegrityResult = { ok: true, skipped: 'the check ended without an answer' };
    worker.once('message', (message: { problems?: string[]; error?: string; code?: string }) => {
      if (message.problems) found = message.problems.length === 0 ? { ok: true } : { ok: false, detail: message.problems.join('; ') };
      else if (isCorruption(message.code)) found = { ok: false, detail: `${message.code} (${message.error})` };
      else found = { ok: true, skipped: `${message.code ?? 'error'} (${message.error})` };
    });
    worker.once('error', (err) => {
      found = { ok: true, skipped: err.message };
    });
    // Answered once the thread is gone, its connection closed with it: the store's own close is then
    // the last one, which checkpoints the WAL into the file and removes it.
    worker.once('exit', () => resolve(found));
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), waitMs);
  });
  const first = await Promise.race([result, late]);
  clearTimeout(timer);
  return first === 'late' ? { pending: result } : first;
}
