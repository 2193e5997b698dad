import type { StorageSignals } from '@parley/core';
import type { RedisClient, RedisConnection } from './redis-connection.js';

/**
 * {@link StorageSignals} on Redis pub/sub: a topic is the channel `<keyPrefix>signal:<topic>`,
 * published on the storage's connection and heard on a second, subscribed connection opened on the
 * first subscription. Pub/sub keeps nothing, which is the contract: what must survive lives in the
 * store, and listeners re-read it after {@link onReconnect}.
 */
export class RedisSignals implements StorageSignals {
  private subscriber?: Promise<RedisClient>;
  private readonly restored = new Set<() => void>();

  constructor(private readonly connection: RedisConnection, private readonly keyPrefix: string) {}

  private channel(topic: string): string {
    return `${this.keyPrefix}signal:${topic}`;
  }

  publish(topic: string, message: string): Promise<number> {
    return this.connection.run((client) => client.publish(this.channel(topic), message));
  }

  async subscribe(topic: string, listener: (message: string) => void): Promise<() => Promise<void>> {
    this.subscriber ??= this.connection.openSubscriber(() => {
      for (const fn of this.restored) fn();
    });
    // A failed first connection is tried again by the next subscription.
    const client = await this.subscriber.catch((err: unknown) => {
      this.subscriber = undefined;
      throw err;
    });
    const channel = this.channel(topic);
    const heard = (message: string) => listener(message);
    await client.subscribe(channel, heard);
    return async () => {
      if (client.isReady) await client.unsubscribe(channel, heard);
    };
  }

  onReconnect(listener: () => void): () => void {
    this.restored.add(listener);
    return () => this.restored.delete(listener);
  }

  /** Closes the subscribed connection, if one was opened. Idempotent. */
  async close(): Promise<void> {
    const pending = this.subscriber;
    this.subscriber = undefined;
    this.restored.clear();
    const client = await pending?.catch(() => undefined);
    if (client?.isOpen) client.destroy();
  }
}
