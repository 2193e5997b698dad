import type { StorageSignals } from '@parley/core';
import type { ConnectionWatch } from './connection-watch.js';
import type { RedisClient, RedisConnection } from './redis-connection.js';

type Listener = (message: string) => void;

/**
 * {@link StorageSignals} on Redis pub/sub: a topic is the channel `<keyPrefix>signal:<topic>`,
 * published on the storage's connection and heard on a second, subscribed connection opened on the
 * first subscription. Pub/sub keeps nothing, which is the contract: what must survive lives in the
 * store, and listeners re-read it after {@link onReconnect}. A subscribed connection that stopped
 * answering (pinged like the storage's own) is replaced by a new one with the same subscriptions.
 */
export class RedisSignals implements StorageSignals {
  private subscriber?: Promise<RedisClient>;
  /** The subscribed connection in use (replaced when it stops answering). */
  private client?: RedisClient;
  private watch?: ConnectionWatch;
  /** Stops following the master the sentinels name (with Sentinel, the subscriber moves with it). */
  private unfollow?: () => void;
  /** Every subscription, by channel: a replacement connection subscribes them again. */
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly restored = new Set<() => void>();

  constructor(private readonly connection: RedisConnection, private readonly keyPrefix: string) {}

  private channel(topic: string): string {
    return `${this.keyPrefix}signal:${topic}`;
  }

  publish(topic: string, message: string): Promise<number> {
    return this.connection.run((client) => client.publish(this.channel(topic), message));
  }

  async subscribe(topic: string, listener: Listener): Promise<() => Promise<void>> {
    this.subscriber ??= this.open();
    // A failed first connection is tried again by the next subscription.
    await this.subscriber.catch((err: unknown) => {
      this.subscriber = undefined;
      throw err;
    });
    const channel = this.channel(topic);
    const heard: Listener = (message) => listener(message);
    await this.connection.bounded(this.client!.subscribe(channel, heard));
    (this.listeners.get(channel) ?? this.listeners.set(channel, new Set()).get(channel)!).add(heard);
    return async () => {
      this.listeners.get(channel)?.delete(heard);
      // A connection that fails meanwhile takes its subscriptions with it (and a replacement subscribes the listeners left).
      if (this.client?.isReady) await this.connection.bounded(this.client.unsubscribe(channel, heard)).catch(() => undefined);
    };
  }

  onReconnect(listener: () => void): () => void {
    this.restored.add(listener);
    return () => this.restored.delete(listener);
  }

  private async open(): Promise<RedisClient> {
    const client = await this.connection.openSubscriber(() => this.announceRestored());
    this.client = client;
    this.watch = this.connection.watchOf(() => this.client, () => this.replace());
    this.watch.follow(client);
    this.watch.start();
    this.unfollow = this.connection.onMasterMoved(() => this.replace());
    return client;
  }

  /**
   * Swaps a subscribed connection that stopped answering (or is on a master the sentinels replaced)
   * for a new one, subscribed to every channel again.
   */
  private replace(): void {
    const dead = this.client;
    const fresh = this.connection.subscriberClient(() => this.announceRestored());
    this.client = fresh;
    this.watch?.follow(fresh);
    if (dead?.isOpen) dead.destroy();
    fresh.connect().then(async () => {
      for (const [channel, listeners] of this.listeners) for (const listener of listeners) await fresh.subscribe(channel, listener);
      // Whatever was published while the old connection was silent was not heard.
      this.announceRestored();
    }).catch(() => undefined); // replaced or closed meanwhile; a connection that stopped answering again is found by the watch
  }

  private announceRestored(): void {
    for (const fn of this.restored) fn();
  }

  /** Closes the subscribed connection, if one was opened. Idempotent. */
  async close(): Promise<void> {
    const pending = this.subscriber;
    this.subscriber = undefined;
    this.watch?.stop();
    this.unfollow?.();
    this.restored.clear();
    await pending?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    if (client?.isOpen) client.destroy();
  }
}
