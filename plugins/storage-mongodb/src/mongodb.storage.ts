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
    this.instances = new MongoInstanceRepository(this.connection, collections, clock);
    this.messages = new MongoMessageRepository(this.connection, collections);
    this.chats = new MongoChatRepository(this.connection, collections);
    this.contacts = new MongoContactRepository(this.connection, collections);
    this.media = new MongoMediaRepository(this.connection, collections);
    this.authState = new MongoAuthStateRepository(this.connection, collections);
    this.state = new MongoStateRepository(this.connection, collections);
    this.outbound = new MongoOutboundQueue(this.connection, collections);
    this.deliveries = new MongoDeliveryQueue(this.connection, collections, clock);
    this.events = new MongoEventLog(this.connection, collections);
    this.idempotency = new MongoIdempotencyStore(this.connection, collections);
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
