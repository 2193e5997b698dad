/**
 * Worker thread of {@link BackgroundCheckpointer}: its own connection to the database file, copying
 * committed WAL frames into the database (`wal_checkpoint(PASSIVE)`: never blocks the writer) every
 * `intervalMs`, until the main thread posts any message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const port = parentPort!;
const db = new Database(file, { fileMustExist: true });
// One statement for the thread's life (db.pragma() would prepare a new one at every tick), finalized
// by db.close() below before the thread ends: nothing of the connection is left for the thread's
// teardown to collect.
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

const timer = setInterval(() => {
  try {
    checkpoint.run();
  } catch (err) {
    port.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
}, intervalMs);

port.once('message', () => {
  clearInterval(timer);
  db.close();
  port.close();
});
