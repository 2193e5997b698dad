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
 * A storage back end: every repository of Parley behind one object, registered under the
 * {@link Tokens.Storage} token by exactly one storage plugin. Operations that cannot reach the store
 * throw ServiceUnavailableError (HTTP 503).
 */
export interface Storage {
  /** Back end name, for logs and the banner. */
  readonly name: string;
  readonly instances: InstanceRepository;
  readonly messages: MessageRepository;
  readonly chats: ChatRepository;
  readonly contacts: ContactRepository;
  readonly media: MediaRepository;
  readonly authState: AuthStateRepository;
  readonly state: StateRepository;
  readonly deliveries: DeliveryQueue;
  /** Idempotency keys of the REST API (`Idempotency-Key`), kept so that they hold across restarts and servers. */
  readonly idempotency: IdempotencyStore;
  /** The durable event log the live event streams replay from (`GET /{key}/events`). */
  readonly events: EventLog;
  /** The durable outbound send queue (issue 16). */
  readonly outbound: OutboundQueue;
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
