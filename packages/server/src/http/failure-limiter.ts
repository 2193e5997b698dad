import { RateLimiterMemory } from 'rate-limiter-flexible';
import { blockedMs, type Logger, type RateLimitCounter, type RateLimitOptions } from '@parley/core';
import type { RateLimitConfig } from '../config/config.js';

/** Addresses blocked locally are swept once this many are held (expired ones go). */
const SWEEP_AT = 10_000;

/**
 * The key a client address is counted under: an IPv4 address as is (IPv4-mapped IPv6 too), an IPv6
 * address by its /64 prefix — one subscriber usually holds a whole /64, and could otherwise rotate
 * addresses within it to escape the limit.
 */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => Number.parseInt(g, 16).toString(16)).join(':')}::/64`;
}

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
    const key = clientKey(address);
    const until = this.blocked.get(key);
    if (until === undefined) return 0;
    const left = until - performance.now();
    if (left > 0) return left;
    this.blocked.delete(key);
    return 0;
  }

  /** Counts one failure of `address`; answers the milliseconds it is now blocked for (0 while within the limit). */
  async fail(address: string): Promise<number> {
    if (this.config.failures === 0) return 0;
    const key = clientKey(address);
    const ms = await this.count(key);
    if (ms > 0) this.block(key, ms);
    return ms;
  }

  private async count(key: string): Promise<number> {
    if (!this.shared) return this.local.hit(key);
    try {
      const ms = await this.shared.hit(key);
      this.storeFailed = false;
      return ms;
    } catch (err) {
      // Logged once per outage; the local count keeps limiting meanwhile.
      if (!this.storeFailed) this.logger.warn({ err }, 'rate limit store unreachable; counting failed authentications locally');
      this.storeFailed = true;
      return this.local.hit(key);
    }
  }

  private block(key: string, ms: number): void {
    if (!this.blocked.has(key)) this.logger.warn({ address: key, seconds: Math.ceil(ms / 1000) }, 'client blocked after repeated failed authentications');
    if (this.blocked.size >= SWEEP_AT) {
      const now = performance.now();
      for (const [key, until] of this.blocked) if (until <= now) this.blocked.delete(key);
    }
    // Block ends on the monotonic clock: the counters (rate-limiter-flexible, Redis) measure their
    // windows in real time themselves, so a test clock could not move them consistently.
    this.blocked.set(key, performance.now() + ms);
  }
}
