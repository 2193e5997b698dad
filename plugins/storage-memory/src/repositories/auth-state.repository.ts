import { authStatePosition, scanPage, type AuthStateEntry, type AuthStateRepository, type ScanPage, type ScanRequest } from '@parley/core';
import { keysAfter, Partitions } from '../partitions.js';

/** One map key per category and id; the NUL separator cannot occur in either. */
function entryKey(category: string, id: string): string {
  return `${category}\u0000${id}`;
}

export class MemoryAuthStateRepository implements AuthStateRepository {
  private readonly values = new Partitions<string>();

  async get(instance: string, category: string, ids: string[]): Promise<Record<string, string>> {
    const partition = this.values.peek(instance);
    const found: Record<string, string> = {};
    for (const id of ids) {
      const value = partition.get(entryKey(category, id));
      if (value !== undefined) found[id] = value;
    }
    return found;
  }

  /** Synchronous from start to end, so no reader sees part of a batch. */
  async set(instance: string, entries: { category: string; id: string; value: string | null }[]): Promise<void> {
    const partition = this.values.of(instance);
    for (const { category, id, value } of entries) {
      if (value === null) partition.delete(entryKey(category, id));
      else partition.set(entryKey(category, id), value);
    }
  }

  async clear(instance: string): Promise<void> {
    this.values.delete(instance);
  }

  /** Keys order as (category, id): the NUL separator sorts before every other character. */
  async scan(instance: string, request: ScanRequest): Promise<ScanPage<AuthStateEntry>> {
    const partition = this.values.peek(instance);
    const after = authStatePosition.parse(request.after);
    const keys = keysAfter(partition, after && entryKey(...after), request.limit);
    const items = keys.map((key) => {
      const [category, id] = key.split('\u0000') as [string, string];
      return { category, id, value: partition.get(key)! };
    });
    return scanPage(items, request.limit, authStatePosition.of);
  }
}
