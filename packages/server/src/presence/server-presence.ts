import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { describeError, type Clock, type Logger, type StateRepository } from '@parley/core';
import { PRESENCE_HEARTBEAT_MS, SERVER_PRESENCE_NAMESPACE, type ServerPresenceRecord } from './presence-record.js';
import { watchServers } from './presence-watch.js';
import { settledWithin } from '../app/shutdown-budget.js';

/** How long a stop waits, in all, for a write under way and the delete: a store in an outage does not hold the shutdown up. */
export const PRESENCE_STOP_WAIT_MS = 2_000;

/** The timing of a {@link ServerPresence} (tests shorten it). */
export interface PresenceTiming {
  heartbeatMs: number;
  stopWaitMs: number;
  /** How the stale-record watch waits (default: a timer). */
  sleep?(ms: number): Promise<void>;
}

/** Ends the stale-record watch when the server stops. */
class PresenceStopped extends Error {}

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
  private pruning?: Promise<void>;
  /** Ends the stale-record watch's current wait (at stop). */
  private wake?: () => void;

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

  /**
   * Writes the record (a failure is logged, not thrown) and beats every `heartbeatMs` until
   * {@link stop}; in the background, deletes the records of servers that died ({@link pruneStale}).
   */
  async start(): Promise<void> {
    await this.beat();
    this.timer ??= setInterval(() => void this.beat(), this.record.heartbeatMs).unref();
    this.pruning ??= this.pruneStale().then(() => undefined, (err: unknown) => {
      if (!(err instanceof PresenceStopped)) this.logger.warn({ err: describeError(err) }, 'looking for presence records of servers that died failed');
    });
  }

  /**
   * Deletes the presence records of servers that died without clearing them — unchanged while watched
   * for two heartbeats and a half (`watchServers`) — so that `parley storage copy` need not watch them
   * again. Answers how many it deleted. Run by {@link start}; ended by {@link stop}.
   */
  async pruneStale(): Promise<number> {
    const { stale } = await watchServers(this.state, { sleep: (ms) => this.pause(ms), ignore: this.id });
    let pruned = 0;
    for (const { id } of stale) {
      if (this.stopped) break;
      if (await this.state.delete(SERVER_PRESENCE_NAMESPACE, id)) pruned++;
    }
    if (pruned > 0) this.logger.info({ pruned }, 'presence records of servers that stopped without clearing them deleted');
    return pruned;
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

  /** Waits `ms` for the stale-record watch; throws {@link PresenceStopped} once the server stops. */
  private async pause(ms: number): Promise<void> {
    if (this.stopped) throw new PresenceStopped();
    await (this.timing.sleep?.(ms) ?? new Promise<void>((resolve) => {
      this.wake = resolve;
      setTimeout(resolve, ms).unref();
    }));
    if (this.stopped) throw new PresenceStopped();
  }

  /**
   * Stops beating and deletes the record, after a write under way; those waited for at most `stopWaitMs`
   * in all, or `maxWaitMs` when it is shorter (what the shutdown has left), a record left behind costing
   * a later copy one watch. Idempotent; a failure is logged.
   */
  async stop(maxWaitMs = this.timing.stopWaitMs): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.wake?.();
    const waitMs = Math.min(maxWaitMs, this.timing.stopWaitMs);
    const deadline = performance.now() + waitMs;
    const left = () => Math.max(0, deadline - performance.now());
    if (this.pruning) await settledWithin(this.pruning, left());
    if (this.writing) await settledWithin(this.writing, left());
    const deleted = this.state.delete(SERVER_PRESENCE_NAMESPACE, this.id).catch((err: unknown) => {
      this.logger.warn({ err: describeError(err) }, 'the server\'s presence record could not be deleted: `parley storage copy` watches it two heartbeats and a half to see it is stale');
    });
    if (!(await settledWithin(deleted, left()))) {
      this.logger.warn(`the server's presence record was not deleted within ${waitMs} ms: \`parley storage copy\` watches it two heartbeats and a half to see it is stale`);
    }
  }
}
