import type { ClusterStore } from '../cluster/cluster-store.js';
import type { DeliveryQueue } from './delivery-queue.js';
import type { IdempotencyStore } from './idempotency.js';
import type { EventLog } from './event-log.js';
import type { OutboundQueue } from './outbound-queue.js';
import type { RateLimitCounter, RateLimitOptions } from './rate-limit.js';
import type { StorageSignals } from './signals.js';
import type {
  AuthStateRepository, ChatRepository, ContactRepository, InstanceRepository, MediaRepository, MessageRepository, StateRepository,
} from './repositories.js';

/** Readiness of a storage back end, for `/readyz`. */
export interface StorageHealth {
  ready: boolean;
  detail?: string;
}

/**
 * What every store has beside its repositories: a name, where its data lives, and its lifecycle.
 * A {@link RecordStore} and an {@link Outbox} each have these; the host calls them on each store it
 * was given (once on a back end that is both).
 */
export interface StoreLifecycle {
  /** Back end name, for logs and the banner. */
  readonly name: string;
  /**
   * Optional: where the data lives, for the start-up banner and operators: a file path, or a URL
   * without its credentials (and the key prefix). Never holds a secret.
   */
  readonly location?: string;
  /** Connects and migrates. Called once by the server before anything else. */
  init(): Promise<void>;
  health(): Promise<StorageHealth>;
  /**
   * Resolves when every write made before the call is durable. Back ends that commit each write
   * answer at once; batching back ends (SQLite's group commit) resolve at their next commit. The
   * server awaits it before answering a request that changed something, and
   * {@link DeliveryQueue.enqueue} is durable on its own.
   */
  flush(): Promise<void>;
  /**
   * Optional, for batching back ends: registers `listener`, told (synchronously, before any
   * {@link flush} waiting for them rejects) whenever writes the back end had accepted are discarded
   * instead of committed — SQLite's group commit that failed (a full disk, an I/O error) rolls back
   * every write of its turn. The event bus handles again the events whose writes may be gone with it.
   * Back ends that commit each write before it resolves leave it out.
   */
  onDiscard?(listener: () => void): void;
  /** Flushes and closes. Idempotent. */
  close(): Promise<void>;
}

/** The repositories of a {@link RecordStore}: what Parley knows of its instances and their accounts. */
export interface RecordRepositories {
  readonly instances: InstanceRepository;
  readonly messages: MessageRepository;
  readonly chats: ChatRepository;
  readonly contacts: ContactRepository;
  readonly media: MediaRepository;
  readonly authState: AuthStateRepository;
  readonly state: StateRepository;
}

/** The repositories of an {@link Outbox}: the durable queues and logs of work still to do or to replay. */
export interface OutboxRepositories {
  /** Webhook deliveries, with their retries and dead letters. */
  readonly deliveries: DeliveryQueue;
  /** The durable outbound send queue (issue 16). */
  readonly outbound: OutboundQueue;
  /** The durable event log the live event streams replay from (`GET /{key}/events`). */
  readonly events: EventLog;
  /** Idempotency keys of the REST API (`Idempotency-Key`), kept so that they hold across restarts and servers. */
  readonly idempotency: IdempotencyStore;
}

/**
 * The record store: instances, messages, chats, contacts, media, auth state and plugin state (the
 * `provides.records` half of storage). The cluster coordination, the signals among servers and the
 * shared rate limiter belong to it: leases fence its auth state and state writes, and it is the store
 * every server of a cluster shares. Operations that cannot reach the store throw
 * ServiceUnavailableError (HTTP 503).
 */
export interface RecordStore extends RecordRepositories, StoreLifecycle {
  /**
   * Optional: a rate limiter whose counters live in this store, so that several servers sharing it
   * count together (the server limits failed authentications per client address with it). Called
   * after {@link init}. Back ends without it get the server's in-process limiter.
   */
  rateLimiter?(options: RateLimitOptions): RateLimitCounter;
  /**
   * Optional: messages among the servers sharing this store (see {@link StorageSignals}), for parts
   * that span processes (the sandbox network across nodes). Called after {@link init}; answers the
   * same object each time, closed with the storage. Back ends that only one process uses leave it out.
   */
  signals?(): StorageSignals;
  /**
   * Optional: cluster coordination in this store (node registry, instance leases with fencing tokens,
   * fenced writes), for back ends several servers share. Called after {@link init}. A server given a
   * cluster configuration refuses to start on a back end without it.
   */
  cluster?(): ClusterStore;
}

/**
 * The outbox: webhook deliveries, the outbound send queue, the event log and the idempotency keys
 * (the `provides.outbox` half of storage). `deliveries.enqueue` logs its events in the same write, so
 * the deliveries and the event log of one back end stay together. Operations that cannot reach the
 * store throw ServiceUnavailableError (HTTP 503).
 */
export interface Outbox extends OutboxRepositories, StoreLifecycle {}

/**
 * Both halves of storage: a {@link RecordStore} and an {@link Outbox}, the storage the host's services
 * use, registered under the {@link Tokens.Storage} token. A back end providing both (`provides.storage`,
 * every back end of this repository) is one; so is what the host composes from two plugins providing
 * one half each (see `composeStorage` in `@parley/host`).
 */
export interface Storage extends RecordStore, Outbox {}
