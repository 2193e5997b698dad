import { systemClock, type Clock, type Logger, type Storage, type StorageHealth } from '@parley/core';
import { MongoCollections, ensureIndexes } from './mongo-collections.js';
import { MongoConnection } from './mongo-connection.js';
import { resolveMongoOptions, type MongoStorageOptions, type ResolvedMongoOptions } from './mongodb.options.js';
import { MongoAuthStateRepository } from './repositories/auth-state.mongo.js';
import { MongoDeliveryQueue } from './repositories/delivery-queue.mongo.js';
import { MongoEventLog } from './repositories/event-log.mongo.js';
import { MongoOutboundQueue } from './repositories/outbound-queue.mongo.js';
import { MongoIdempotencyStore } from './repositories/idempotency.mongo.js';
import { MongoInstanceRepository } from './repositories/instances.mongo.js';
import { MongoMediaRepository } from './repositories/media.mongo.js';
import { MongoMessageRepository } from './repositories/messages.mongo.js';
import { MongoChatRepository, MongoContactRepository } from './repositories/resources.mongo.js';
import { MongoStateRepository } from './repositories/state.mongo.js';

/**
 * Parley's storage on MongoDB (4.4 or later). `init` connects, checks the server answers, creates the
 * indexes and applies the message retention TTL. Operations that cannot reach MongoDB within
 * `commandTimeoutMs` throw ServiceUnavailableError; the driver reconnects by itself.
 */
export class MongoStorage implements Storage {
  readonly name = 'mongodb';
  readonly instances: MongoInstanceRepository;
  readonly messages: MongoMessageRepository;
  readonly chats: MongoChatRepository;
  readonly contacts: MongoContactRepository;
  readonly media: MongoMediaRepository;
  readonly authState: MongoAuthStateRepository;
  readonly state: MongoStateRepository;
  readonly deliveries: MongoDeliveryQueue;
  readonly events: MongoEventLog;
  readonly outbound: MongoOutboundQueue;
  readonly idempotency: MongoIdempotencyStore;
  private readonly connection: MongoConnection;
  private readonly collections: MongoCollections;
  private readonly options: ResolvedMongoOptions;

  /** `clock` dates dead letters and redeliveries (the plugin passes the server's). */
  constructor(options: MongoStorageOptions = {}, logger?: Logger, clock: Clock = systemClock) {
    this.options = resolveMongoOptions(options);
    this.connection = new MongoConnection(
      { url: this.options.url, dbName: this.options.dbName, timeoutMs: this.options.commandTimeoutMs, label: 'mongodb storage' },
      logger,
    );
    const collections = new MongoCollections(this.options.collectionPrefix);
    this.collections = collections;
    // Every repository stands on the one connection and collection names, and the clock for those that date things.
    const build = <R>(Repository: new (connection: MongoConnection, collections: MongoCollections, clock: Clock) => R): R =>
      new Repository(this.connection, collections, clock);
    this.instances = build(MongoInstanceRepository);
    this.messages = build(MongoMessageRepository);
    this.chats = build(MongoChatRepository);
    this.contacts = build(MongoContactRepository);
    this.media = build(MongoMediaRepository);
    this.authState = build(MongoAuthStateRepository);
    this.state = build(MongoStateRepository);
    this.outbound = build(MongoOutboundQueue);
    this.events = build(MongoEventLog);
    this.deliveries = new MongoDeliveryQueue(this.connection, collections, clock, this.events);
    this.idempotency = build(MongoIdempotencyStore);
  }

  async init(): Promise<void> {
    await this.connection.connect();
    await this.connection.run((db) => ensureIndexes(db, this.collections, this.options.messageRetentionDays));
  }

  /** Every write is acknowledged by MongoDB before it resolves. */
  async flush(): Promise<void> {
    return undefined;
  }

  health(): Promise<StorageHealth> {
    return this.connection.ping();
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
