/**
 * Worker thread of {@link checkIntegrity}: its own read-only connection runs `PRAGMA quick_check` and
 * posts what it found (`ok` or the first problems), or the error that stopped it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file } = workerData as { file: string };
try {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.pragma('quick_check(5)', { simple: false }) as { quick_check: string }[];
    const problems = rows.map((row) => row.quick_check).filter((line) => line !== 'ok');
    parentPort!.postMessage({ problems });
  } finally {
    db.close();
  }
} catch (err) {
  parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err), code: (err as { code?: unknown }).code });
}
