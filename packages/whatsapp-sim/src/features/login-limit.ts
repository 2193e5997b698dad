import { SimError } from '../network/errors.js';

/** At most `max` logins within any `windowMs` (the simulator's clients all come from one loopback address). */
export interface LoginLimitOptions {
  max: number;
  windowMs: number;
}

/** The limit in force and how many logins it ended with 429 since it was set. */
export interface LoginLimitView extends LoginLimitOptions {
  throttled: number;
}

/** Largest window a login limit may span (one hour). */
export const MAX_LOGIN_WINDOW_MS = 3_600_000;

/**
 * The server's throttling of login bursts (LOGIN_RATE_LIMIT): while a limit is set, a login beyond `max`
 * within the sliding window is ended with `<stream:error code="429"/>`. Refused logins count too, as a client
 * that retries without backing off keeps itself throttled.
 */
export class LoginLimit {
  private options: LoginLimitOptions | undefined;
  private logins: number[] = [];
  private throttled = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Sets the limit (validated whole), or removes it with undefined. */
  set(options: LoginLimitOptions | undefined): LoginLimitView | undefined {
    if (options !== undefined) {
      const { max, windowMs } = options;
      if (!Number.isInteger(max) || max < 1 || max > 100_000 || !Number.isInteger(windowMs) || windowMs < 1 || windowMs > MAX_LOGIN_WINDOW_MS) {
        throw new SimError(400, 'invalid_login_limit', `max must be an integer from 1 to 100000 and windowMs one from 1 to ${MAX_LOGIN_WINDOW_MS}`, { field: ['limit.max', 'limit.windowMs'], max, windowMs });
      }
    }
    this.options = options && { max: options.max, windowMs: options.windowMs };
    this.logins = [];
    this.throttled = 0;
    return this.view();
  }

  view(): LoginLimitView | undefined {
    return this.options && { ...this.options, throttled: this.throttled };
  }

  /** Counts a login; false when it is over the limit. */
  admit(): boolean {
    if (!this.options) return true;
    const now = this.now();
    this.logins = this.logins.filter((at) => at > now - this.options!.windowMs);
    this.logins.push(now);
    if (this.logins.length <= this.options.max) return true;
    this.throttled += 1;
    return false;
  }
}
