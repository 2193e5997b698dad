import { systemClock, type Clock, type Storage, type StorageHealth } from '@parley/core';
import { MemoryAuthStateRepository } from './repositories/auth-state.repository.js';
import { MemoryDeliveryQueue } from './repositories/delivery-queue.js';
import { MemoryEventLog } from './repositories/event-log.js';
import { MemoryIdempotencyStore } from './repositories/idempotency.repository.js';
import { MemoryInstanceRepository } from './repositories/instances.repository.js';
import { MemoryMediaRepository } from './repositories/media.repository.js';
import { MemoryOutboundQueue } from './repositories/outbound-queue.js';
import { MemoryMessageRepository } from './repositories/messages.repository.js';
import { MemoryChatRepository, MemoryContactRepository } from './repositories/resources.repository.js';
import { MemoryStateRepository } from './repositories/state.repository.js';

/**
 * Storage held in process memory: for tests and ephemeral runs. Nothing survives the process. Records
 * are copied in and out, so callers never share objects with the store.
 */
export class MemoryStorage implements Storage {
  readonly name = 'memory';
  readonly instances = new MemoryInstanceRepository();
  readonly messages = new MemoryMessageRepository();
  readonly chats = new MemoryChatRepository();
  readonly contacts = new MemoryContactRepository();
  readonly media = new MemoryMediaRepository();
  readonly authState = new MemoryAuthStateRepository();
  readonly state = new MemoryStateRepository();
  readonly deliveries: MemoryDeliveryQueue;
  readonly events = new MemoryEventLog();
  readonly outbound = new MemoryOutboundQueue();
  readonly idempotency = new MemoryIdempotencyStore();
  private phase: 'created' | 'open' | 'closed' = 'created';

  /** `clock` dates dead letters and redeliveries (the server passes its own). */
  constructor(clock: Clock = systemClock) {
    this.deliveries = new MemoryDeliveryQueue(this.events, clock);
  }

  async init(): Promise<void> {
    this.phase = 'open';
  }

  /** Memory writes are complete when they return. */
  async flush(): Promise<void> {
    return undefined;
  }

  async health(): Promise<StorageHealth> {
    if (this.phase === 'open') return { ready: true };
    return { ready: false, detail: this.phase === 'closed' ? 'closed' : 'not initialized' };
  }

  async close(): Promise<void> {
    this.phase = 'closed';
  }
}
