import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { describeError, type Clock, type Logger, type StateRepository } from '@parley/core';

/**
 * The state namespace where every running server keeps a record of itself: server-wide, read by
 * `parley storage copy` to refuse a store a server holds, never copied.
 */
export const SERVER_PRESENCE_NAMESPACE = 'parley.servers';

/** How often a running server rewrites its record. */
export const PRESENCE_HEARTBEAT_MS = 5_000;

/** How long a stop waits for a write under way, then for the delete: a store in an outage does not hold the shutdown up. */
export const PRESENCE_STOP_WAIT_MS = 2_000;

/** The timing of a {@link ServerPresence} (tests shorten it). */
export interface PresenceTiming {
  heartbeatMs: number;
  stopWaitMs: number;
}

/** Resolves when `promise` settles or after `ms`, whichever comes first; answers whether it settled. */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const done = () => {
      clearTimeout(timer);
      resolve(true);
    };
    promise.then(done, done);
  });
}

/** What a running server says of itself in {@link SERVER_PRESENCE_NAMESPACE}, under an id of its own. */
export interface ServerPresenceRecord {
  /** Host name and process id of the server. */
  host: string;
  pid: number;
  version: string;
  /** Where it listens, once it does. */
  url?: string;
  /** Its cluster node id, on a cluster. */
  node?: string;
  /** Unix milliseconds, by the server's clock. */
  startedAt: number;
  heartbeatAt: number;
  /** How often it rewrites the record: a reader that sees no change for longer takes it for stopped. */
  heartbeatMs: number;
  /** Records written so far: it changes at every heartbeat, whatever the clocks of the hosts say. */
  beats: number;
}

/**
 * Keeps this server's presence record: written when the server starts, rewritten every
 * `heartbeatMs`, deleted when it stops gracefully. A server that dies without stopping (SIGKILL, a
 * crash, a lost host) leaves its record, which stops changing: readers tell it from a running server
 * by watching it for two heartbeats, so no clock is compared across hosts. A failed write is logged
 * and tried again at the next heartbeat.
 */
export class ServerPresence {
  /** The record's id: host, process and a random part (two processes of one pid on two hosts, or over time, differ). */
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private record: ServerPresenceRecord;
  private timer?: NodeJS.Timeout;
  private writing?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly state: StateRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    about: { version: string; node?: string },
    private readonly timing: PresenceTiming = { heartbeatMs: PRESENCE_HEARTBEAT_MS, stopWaitMs: PRESENCE_STOP_WAIT_MS },
  ) {
    const now = clock.now();
    this.record = { host: hostname(), pid: process.pid, ...about, startedAt: now, heartbeatAt: now, heartbeatMs: timing.heartbeatMs, beats: 0 };
  }

  /** Writes the record (a failure is logged, not thrown) and beats every `heartbeatMs` until {@link stop}. */
  async start(): Promise<void> {
    await this.beat();
    this.timer ??= setInterval(() => void this.beat(), this.record.heartbeatMs).unref();
  }

  /** Adds where the server listens, written at once. */
  async listening(url: string): Promise<void> {
    this.record = { ...this.record, url };
    await this.beat();
  }

  /** Rewrites the record; a beat still writing (a slow store) makes this one a no-op. */
  async beat(): Promise<void> {
    if (this.stopped || this.writing) return this.writing;
    this.record = { ...this.record, heartbeatAt: this.clock.now(), beats: this.record.beats + 1 };
    this.writing = this.state.put(SERVER_PRESENCE_NAMESPACE, this.id, this.record)
      .catch((err: unknown) => this.logger.warn({ err: describeError(err) }, 'the server\'s presence record could not be written; tried again at the next heartbeat'))
      .finally(() => (this.writing = undefined));
    return this.writing;
  }

  /**
   * Stops beating and deletes the record, after a write under way; each waited for at most
   * `stopWaitMs` (a record left behind costs a later copy one watch). Idempotent; a failure is logged.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    if (this.writing) await settledWithin(this.writing, this.timing.stopWaitMs);
    const deleted = this.state.delete(SERVER_PRESENCE_NAMESPACE, this.id).catch((err: unknown) => {
      this.logger.warn({ err: describeError(err) }, 'the server\'s presence record could not be deleted: `parley storage copy` watches it two heartbeats and a half to see it is stale');
    });
    if (!(await settledWithin(deleted, this.timing.stopWaitMs))) {
      this.logger.warn(`the server's presence record was not deleted within ${this.timing.stopWaitMs} ms: \`parley storage copy\` watches it two heartbeats and a half to see it is stale`);
    }
  }
}
