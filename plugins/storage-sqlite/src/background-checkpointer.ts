import { Worker } from 'node:worker_threads';

/** How often the background connection checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 250;

/**
 * Checkpoints a WAL database from a worker thread. A checkpoint copies committed pages from the WAL
 * into the database file and syncs both; run inside a commit (SQLite's automatic checkpoint) it
 * stalled the event loop for 15–25 ms every few hundred sends, which every request in flight paid
 * (bench/rest-send p99). A PASSIVE checkpoint on another connection never blocks the writer; the
 * writer's own automatic checkpoint stays as a backstop at a larger WAL size, should this thread
 * fall behind or fail.
 */
export class BackgroundCheckpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(file: string, onError: (message: string) => void, intervalMs = CHECKPOINT_INTERVAL_MS) {
    this.worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), { workerData: { file, intervalMs } });
    // A storage nobody closed must not keep the process alive.
    this.worker.unref();
    this.worker.on('message', (message: { error?: string }) => {
      if (message.error) onError(message.error);
    });
    this.worker.on('error', (err) => onError(err.message));
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
  }

  /** Stops checkpointing and closes the worker's connection; resolves when the thread is gone. */
  async stop(): Promise<void> {
    // Waiting for the thread's exit must keep the event loop alive.
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.exited;
  }
}
