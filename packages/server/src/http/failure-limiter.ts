import { RateLimiterMemory } from 'rate-limiter-flexible';
import { blockedMs, type Logger, type RateLimitCounter, type RateLimitOptions } from '@parley/core';
import type { RateLimitConfig } from '../config/config.js';

/** Addresses blocked locally are swept once this many are held (expired ones go). */
const SWEEP_AT = 10_000;

/**
 * Limits failed authentications (unknown instance key, bad admin token) per client address. The
 * counts live in the storage's shared counter when it offers one (Redis), else in this process
 * (rate-limiter-flexible's memory limiter); when the shared store fails, the local count takes
 * over. An address that went over the limit is remembered here until its block ends, so its further
 * failures cost one map lookup ({@link retryAfterMs}) instead of a store round trip; successful
 * requests never reach the limiter at all.
 */
export class FailureLimiter {
  private readonly blocked = new Map<string, number>();
  private readonly local: RateLimitCounter;
  private storeFailed = false;

  constructor(
    private readonly config: RateLimitConfig,
    private readonly logger: Logger,
    private readonly shared?: RateLimitCounter,
  ) {
    const limiter = new RateLimiterMemory({
      keyPrefix: '', points: Math.max(config.failures, 1), duration: config.windowSeconds, blockDuration: config.blockSeconds,
    });
    this.local = { hit: (key) => blockedMs(limiter.consume(key)) };
  }

  /** The options a storage's shared counter is created with. */
  static options(config: RateLimitConfig): RateLimitOptions {
    return { name: 'auth-failures', points: Math.max(config.failures, 1), durationSeconds: config.windowSeconds, blockSeconds: config.blockSeconds };
  }

  /** Milliseconds `address` must still wait before trying again; 0 when it may. */
  retryAfterMs(address: string): number {
    const until = this.blocked.get(address);
    if (until === undefined) return 0;
    const left = until - Date.now();
    if (left > 0) return left;
    this.blocked.delete(address);
    return 0;
  }

  /** Counts one failure of `address`; answers the milliseconds it is now blocked for (0 while within the limit). */
  async fail(address: string): Promise<number> {
    if (this.config.failures === 0) return 0;
    const ms = await this.count(address);
    if (ms > 0) this.block(address, ms);
    return ms;
  }

  private async count(address: string): Promise<number> {
    if (!this.shared) return this.local.hit(address);
    try {
      const ms = await this.shared.hit(address);
      this.storeFailed = false;
      return ms;
    } catch (err) {
      // Logged once per outage; the local count keeps limiting meanwhile.
      if (!this.storeFailed) this.logger.warn({ err }, 'rate limit store unreachable; counting failed authentications locally');
      this.storeFailed = true;
      return this.local.hit(address);
    }
  }

  private block(address: string, ms: number): void {
    if (!this.blocked.has(address)) this.logger.warn({ address, seconds: Math.ceil(ms / 1000) }, 'client blocked after repeated failed authentications');
    if (this.blocked.size >= SWEEP_AT) {
      const now = Date.now();
      for (const [key, until] of this.blocked) if (until <= now) this.blocked.delete(key);
    }
    this.blocked.set(address, Date.now() + ms);
  }
}
