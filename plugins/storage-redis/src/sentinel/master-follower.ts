import type { Logger } from '@parley/core';
import { formatAddress, type RedisAddress, type SentinelLocator } from './sentinel-locator.js';

/**
 * Keeps a connection on the master the sentinels name: asks them every `intervalMs` (and at once
 * when {@link check} is called, on a `READONLY` reply: the server written to became a replica), and
 * calls `moved` when the master changed. A failover is therefore followed within about
 * `intervalMs` after the sentinels finish it (docs: the plugin README's Sentinel section).
 */
export class MasterFollower {
  private timer?: NodeJS.Timeout;
  private checking = false;
  /** Whether the sentinels were unreachable at the last check (logged once per outage). */
  private lost = false;

  constructor(
    private readonly locator: SentinelLocator,
    private readonly intervalMs: number,
    private readonly current: () => RedisAddress | undefined,
    private readonly moved: (master: RedisAddress) => void,
    private readonly logger?: Logger,
  ) {}

  /** Starts the checks (the timer never keeps the process alive). */
  start(): void {
    this.timer ??= setInterval(() => void this.check(), this.intervalMs).unref();
  }

  /** Asks the sentinels now (one question at a time) and follows a move. */
  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const master = await this.locator.master();
      if (this.lost) this.logger?.info({ master: formatAddress(master) }, 'redis sentinels answer again');
      this.lost = false;
      const was = this.current();
      if (!was || was.host !== master.host || was.port !== master.port) {
        this.logger?.warn({ from: was && formatAddress(was), to: formatAddress(master) }, 'redis master moved; reconnecting to the new one');
        this.moved(master);
      }
    } catch (err) {
      if (!this.lost) this.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, 'redis sentinels unreachable; keeping the last known master');
      this.lost = true;
    } finally {
      this.checking = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.locator.close();
  }
}
