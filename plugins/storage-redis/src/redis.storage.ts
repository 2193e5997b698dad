import { RateLimiterRedis } from 'rate-limiter-flexible';
import {
  OutcomeUnknownError, blockedMs, redactUrlCredentials, systemClock, type Clock, type ClusterStore, type Logger, type RateLimitCounter, type RateLimitOptions, type Storage, type StorageHealth,
  type StorageSignals,
} from '@parley/core';
import { ClusterKeys } from './cluster/cluster-keys.js';
import { FencedWrites } from './cluster/fenced-writes.js';
import { RedisClusterStore } from './cluster/redis-cluster-store.js';
import { DocumentGuesses } from './hash-document.js';
import { RedisConnection } from './redis-connection.js';
import { RedisOutboundQueue } from './repositories/outbound-queue.redis.js';
import { RedisKeys } from './redis-keys.js';
import { RedisSignals } from './redis-signals.js';
import { resolveRedisOptions, type RedisStorageOptions } from './redis.options.js';
import { RedisAuthStateRepository } from './repositories/auth-state.redis.js';
import { RedisDeliveryQueue } from './repositories/delivery-queue.redis.js';
import { RedisEventLog } from './repositories/event-log.redis.js';
import { RedisIdempotencyStore } from './repositories/idempotency.redis.js';
import { RedisInstanceRepository } from './repositories/instances.redis.js';
import { RedisMediaRepository } from './repositories/media.redis.js';
import { RedisMessageRepository } from './repositories/messages.redis.js';
import { RedisChatRepository, RedisContactRepository } from './repositories/resources.redis.js';
import { RedisStateRepository } from './repositories/state.redis.js';

/**
 * Parley's storage on Redis. Several servers may share one Redis and key prefix: every multi-key
 * change is a Lua script or MULTI transaction, and the delivery queue hands each delivery to one
 * worker at a time. While Redis is unreachable every operation fails at once with
 * ServiceUnavailableError and `health()` answers not ready; the client reconnects by itself.
 * Durability is Redis's own (configure AOF `appendfsync everysec` or stricter for the webhook queue).
 */
export class RedisStorage implements Storage {
  readonly name = 'redis';
  readonly location: string;
  readonly instances: RedisInstanceRepository;
  readonly messages: RedisMessageRepository;
  readonly chats: RedisChatRepository;
  readonly contacts: RedisContactRepository;
  readonly media: RedisMediaRepository;
  readonly authState: RedisAuthStateRepository;
  readonly state: RedisStateRepository;
  readonly deliveries: RedisDeliveryQueue;
  readonly events: RedisEventLog;
  readonly outbound: RedisOutboundQueue;
  readonly idempotency: RedisIdempotencyStore;
  private readonly connection: RedisConnection;
  private readonly keyPrefix: string;
  private readonly pubsub: RedisSignals;
  private readonly clusterStore: RedisClusterStore;

  /** `clock` dates dead letters, redeliveries and the retention cut-off (the plugin passes the server's). */
  constructor(options: RedisStorageOptions = {}, logger?: Logger, clock: Clock = systemClock) {
    const resolved = resolveRedisOptions(options);
    this.connection = new RedisConnection(resolved, logger);
    const keys = new RedisKeys(resolved.keyPrefix);
    this.keyPrefix = resolved.keyPrefix;
    const where = resolved.sentinel ? `sentinel master ${resolved.sentinel.name} via ${resolved.sentinel.nodes.join(', ')}` : redactUrlCredentials(resolved.url);
    this.location = `${where} (keys ${resolved.keyPrefix}*)`;
    this.pubsub = new RedisSignals(this.connection, resolved.keyPrefix);
    this.instances = new RedisInstanceRepository(this.connection, keys);
    // One set of guesses for the documents updated by compare-and-set (records, chats, contacts).
    const guesses = new DocumentGuesses();
    this.messages = new RedisMessageRepository(this.connection, keys, resolved.messageRetentionDays, clock, guesses);
    this.chats = new RedisChatRepository(this.connection, (instance) => keys.chats(instance), guesses);
    this.contacts = new RedisContactRepository(this.connection, (instance) => keys.contacts(instance), guesses);
    this.media = new RedisMediaRepository(this.connection, keys);
    const clusterKeys = new ClusterKeys(resolved.keyPrefix);
    const fenced = new FencedWrites(clusterKeys);
    this.authState = new RedisAuthStateRepository(this.connection, keys, fenced);
    this.state = new RedisStateRepository(this.connection, keys, fenced);
    this.clusterStore = new RedisClusterStore(this.connection, clusterKeys, clock);
    this.outbound = new RedisOutboundQueue(this.connection, keys);
    this.deliveries = new RedisDeliveryQueue(this.connection, keys, clock);
    this.events = new RedisEventLog(this.connection, keys);
    this.idempotency = new RedisIdempotencyStore(this.connection, keys);
  }

  /** Connects; there is no schema to migrate. Throws ServiceUnavailableError when Redis stays unreachable. */
  async init(): Promise<void> {
    await this.connection.connect();
  }

  /**
   * Every command is applied by Redis when it answers (its own persistence policy applies). With
   * `waitReplicas` (Sentinel's default), the writes before the call must also be confirmed by that
   * many replicas: otherwise a failover could forget what the answer reported, so the request is
   * answered 502 `outcome_unknown` (reason `not_replicated`: it may or may not survive; retry only
   * with an `Idempotency-Key`).
   */
  async flush(): Promise<void> {
    if (await this.connection.replicated()) return;
    throw new OutcomeUnknownError('the request\'s writes reached the redis master but were not confirmed by its replicas in time; a failover may lose them', 'not_replicated');
  }

  /**
   * A rate limiter counting in Redis (rate-limiter-flexible's RateLimiterRedis: one Lua script per
   * hit) under `<keyPrefix>ratelimit:<name>:`, so every server on this Redis counts together. A hit
   * goes through the connection's failure model: it rejects at once while Redis is unreachable.
   */
  rateLimiter(options: RateLimitOptions): RateLimitCounter {
    let limiter: RateLimiterRedis | undefined;
    return {
      hit: (key) => this.connection.run((client) => {
        limiter ??= new RateLimiterRedis({
          storeClient: client, useRedisPackage: true, keyPrefix: `${this.keyPrefix}ratelimit:${options.name}`,
          points: options.points, duration: options.durationSeconds, blockDuration: options.blockSeconds,
        });
        return blockedMs(limiter.consume(key));
      }),
    };
  }

  /** Redis pub/sub among the servers on this Redis and key prefix (see {@link RedisSignals}). */
  signals(): StorageSignals {
    return this.pubsub;
  }

  /** Cluster coordination on this Redis and key prefix (nodes, instance leases, fencing tokens). */
  cluster(): ClusterStore {
    return this.clusterStore;
  }

  /** Ready when Redis takes a write (see {@link RedisConnection.probe}). */
  health(): Promise<StorageHealth> {
    return this.connection.probe(`${this.keyPrefix}health-probe`);
  }

  async close(): Promise<void> {
    await this.pubsub.close();
    await this.connection.close();
  }
}
