import { scanPage, type ScanPage, type ScanRequest, type StateRepository } from '@parley/core';
import { copyOf } from '../copy.js';
import { byId, keysAfter, Partitions } from '../partitions.js';

export class MemoryStateRepository implements StateRepository {
  private readonly documents = new Partitions<unknown>();

  async get<T = unknown>(namespace: string, id: string): Promise<T | null> {
    const partition = this.documents.peek(namespace);
    return partition.has(id) ? copyOf(partition.get(id) as T) : null;
  }

  async put(namespace: string, id: string, value: unknown): Promise<void> {
    this.documents.of(namespace).set(id, copyOf(value ?? null));
  }

  async delete(namespace: string, id: string): Promise<boolean> {
    return this.documents.existing(namespace)?.delete(id) ?? false;
  }

  async list<T = unknown>(namespace: string): Promise<{ id: string; value: T }[]> {
    return [...this.documents.peek(namespace)].map(([id, value]) => ({ id, value: copyOf(value as T) })).sort(byId);
  }

  async scan<T = unknown>(namespace: string, request: ScanRequest): Promise<ScanPage<{ id: string; value: T }>> {
    const partition = this.documents.peek(namespace);
    const items = keysAfter(partition, request.after, request.limit).map((id) => ({ id, value: copyOf(partition.get(id) as T) }));
    return scanPage(items, request.limit, (document) => document.id);
  }

  async listNamespaces(prefix: string): Promise<string[]> {
    return this.documents.names().filter((namespace) => namespace.startsWith(prefix) && this.documents.peek(namespace).size > 0).sort();
  }

  async clearPrefix(prefix: string): Promise<void> {
    for (const namespace of this.documents.names()) if (namespace.startsWith(prefix)) this.documents.delete(namespace);
  }
}
