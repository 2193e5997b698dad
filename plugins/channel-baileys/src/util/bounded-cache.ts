import { systemClock } from '@parley/core';
import type { CacheStore } from '@whiskeysockets/baileys';

/** Options of {@link BoundedCache}. */
export interface BoundedCacheOptions {
  /** Most entries kept; the least recently used goes first. 0 keeps nothing. */
  max: number;
  /** Entries older than this are dropped on read; 0 means no age limit. */
  ttlMs?: number;
  /** Time source, for tests. */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  storedAt: number;
}

/**
 * A least-recently-used map with a hard size bound and an optional age limit. It also satisfies
 * Baileys' `CacheStore`, so the socket's own caches (retry counters, device lists, call offers) stay
 * bounded too: Baileys' defaults only expire by time and grow with traffic.
 */
export class BoundedCache<V = unknown> implements CacheStore {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly max: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: BoundedCacheOptions) {
    this.max = Math.max(0, Math.floor(options.max));
    this.ttlMs = options.ttlMs ?? 0;
    this.now = options.now ?? systemClock.now;
  }

  has(key: string): boolean {
    return this.read(key) !== undefined;
  }

  get<T = V>(key: string): T | undefined {
    return this.read(key)?.value as T | undefined;
  }

  set<T = V>(key: string, value: T): void {
    if (this.max === 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value: value as unknown as V, storedAt: this.now() });
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  del(key: string): void {
    this.entries.delete(key);
  }

  flushAll(): void {
    this.entries.clear();
  }

  mget<T = V>(keys: string[]): Promise<Record<string, T | undefined>> {
    const out: Record<string, T | undefined> = {};
    for (const key of keys) out[key] = this.get<T>(key);
    return Promise.resolve(out);
  }

  mset<T = V>(items: { key: string; value: T }[]): void {
    for (const { key, value } of items) this.set(key, value);
  }

  mdel(keys: string[]): void {
    for (const key of keys) this.entries.delete(key);
  }

  private read(key: string): Entry<V> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.ttlMs > 0 && this.now() - entry.storedAt > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-insert to mark it most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }
}
