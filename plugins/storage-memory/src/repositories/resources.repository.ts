import {
  mergeChat, mergeContact, scanPage, type Chat, type ChatRepository, type Contact, type ContactChange, type ContactRepository, type ScanPage, type ScanRequest,
} from '@parley/core';
import { copyOf } from '../copy.js';
import { byId, keysAfter, Partitions } from '../partitions.js';

/** Chats and contacts: one map per instance, merged by the core merge of the repository contract. */
class MemoryResourceRepository<T extends { id: string }, P extends { id: string } = Partial<T> & { id: string }> {
  private readonly resources = new Partitions<T>();

  constructor(
    private readonly merge: (current: T | null, patch: P) => T,
    private readonly order: (a: T, b: T) => number,
  ) {}

  async upsert(instance: string, resource: P): Promise<T> {
    const partition = this.resources.of(instance);
    const merged = copyOf(this.merge(partition.get(resource.id) ?? null, resource));
    partition.set(resource.id, merged);
    return copyOf(merged);
  }

  async get(instance: string, id: string): Promise<T | null> {
    const resource = this.resources.peek(instance).get(id);
    return resource ? copyOf(resource) : null;
  }

  async list(instance: string): Promise<T[]> {
    return [...this.resources.peek(instance).values()].sort(this.order).map(copyOf);
  }

  async scan(instance: string, request: ScanRequest): Promise<ScanPage<T>> {
    const partition = this.resources.peek(instance);
    const items = keysAfter(partition, request.after, request.limit).map((id) => copyOf(partition.get(id)!));
    return scanPage(items, request.limit, (resource) => resource.id);
  }

  async delete(instance: string, id: string): Promise<boolean> {
    return this.resources.existing(instance)?.delete(id) ?? false;
  }

  async clear(instance: string): Promise<void> {
    this.resources.delete(instance);
  }
}

/** Chats, most recent activity first, ties by id. */
export class MemoryChatRepository extends MemoryResourceRepository<Chat> implements ChatRepository {
  constructor() {
    super(mergeChat, (a, b) => b.timestamp - a.timestamp || byId(a, b));
  }
}

/** Contacts, ordered by id. */
export class MemoryContactRepository extends MemoryResourceRepository<Contact, ContactChange> implements ContactRepository {
  constructor() {
    super(mergeContact, byId);
  }
}
