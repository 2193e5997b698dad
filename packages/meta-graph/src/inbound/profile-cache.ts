import type { Logger, StateRepository } from '@parley/core';

/** What is known of a sender. */
export interface SenderProfile {
  name?: string;
  /** Instagram only. */
  username?: string;
  picture?: string;
}

interface StoredProfile extends SenderProfile {
  /** Unix milliseconds of the last lookup. */
  fetchedAt: number;
  /** True when the last lookup failed (then it is retried sooner). */
  failed?: boolean;
}

const FRESH_MS = 24 * 3600_000;
const RETRY_FAILED_MS = 3600_000;

/**
 * Sender profiles (name, username, picture) kept in the state repository. Meta's webhooks carry only
 * ids, so a sender's first message goes out without a profile and a lookup runs in the background,
 * after the webhook is answered; later messages carry what it found.
 */
export class ProfileCache {
  private readonly pending = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(
    private readonly state: StateRepository,
    private readonly namespace: string,
    private readonly lookup: (userId: string) => Promise<SenderProfile>,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {}

  /** The stored profile of `userId` (null when never looked up); schedules a lookup when missing or stale. */
  async get(userId: string): Promise<SenderProfile | null> {
    const stored = await this.state.get<StoredProfile>(this.namespace, userId);
    const age = stored ? this.now() - stored.fetchedAt : Infinity;
    if (age >= (stored?.failed ? RETRY_FAILED_MS : FRESH_MS)) this.refreshLater(userId);
    if (!stored || stored.failed) return null;
    const { fetchedAt: _fetchedAt, failed: _failed, ...profile } = stored;
    return profile;
  }

  /** Waits for the lookups under way and starts no more (adapter stop). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.pending.values()]);
  }

  private refreshLater(userId: string): void {
    if (this.stopped || this.pending.has(userId)) return;
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.refresh(userId))
      .finally(() => this.pending.delete(userId));
    this.pending.set(userId, run);
  }

  private async refresh(userId: string): Promise<void> {
    let stored: StoredProfile;
    try {
      stored = { ...(await this.lookup(userId)), fetchedAt: this.now() };
    } catch (err) {
      this.logger.warn({ userId, err: err instanceof Error ? err.message : String(err) }, 'sender profile lookup failed');
      stored = { fetchedAt: this.now(), failed: true };
    }
    try {
      await this.state.put(this.namespace, userId, stored);
    } catch (err) {
      this.logger.warn({ userId, err: err instanceof Error ? err.message : String(err) }, 'sender profile not stored');
    }
  }
}
