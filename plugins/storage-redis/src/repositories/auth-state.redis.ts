import { authStatePosition, scanPage, type AuthStateEntry, type AuthStateRepository, type Fence, type ScanPage, type ScanRequest } from '@parley/core';
import { compareIds } from '../record-fields.js';
import type { FencedWrites } from '../cluster/fenced-writes.js';
import type { RedisConnection } from '../redis-connection.js';
import type { RedisKeys } from '../redis-keys.js';

/** Auth state of an instance in one hash; the field is `[category, id]` as JSON, unambiguous for any text. */
export class RedisAuthStateRepository implements AuthStateRepository {
  constructor(private readonly connection: RedisConnection, private readonly keys: RedisKeys, private readonly fenced: FencedWrites) {}

  async get(instance: string, category: string, ids: string[]): Promise<Record<string, string>> {
    if (ids.length === 0) return {};
    const values = await this.connection.run((client) => client.hmGet(this.keys.authState(instance), ids.map((id) => field(category, id))));
    const out: Record<string, string> = {};
    ids.forEach((id, i) => {
      const value = values[i];
      if (value != null) out[id] = value;
    });
    return out;
  }

  async set(instance: string, entries: { category: string; id: string; value: string | null }[], fence?: Fence): Promise<void> {
    if (entries.length === 0) return;
    const key = this.keys.authState(instance);
    const writes: Record<string, string> = {};
    const deletes: string[] = [];
    // Entries apply in order, so a later entry for the same id wins.
    for (const entry of entries) {
      const name = field(entry.category, entry.id);
      if (entry.value === null) {
        delete writes[name];
        deletes.push(name);
      } else {
        writes[name] = entry.value;
      }
    }
    const stillDeleted = deletes.filter((name) => !(name in writes));
    if (fence) {
      await this.connection.run((client) => this.fenced.authSet(client, fence, key, stillDeleted, writes));
      return;
    }
    await this.connection.run((client) => {
      // MULTI/EXEC: both commands apply together, no reader sees half of the batch.
      const transaction = client.multi();
      if (stillDeleted.length > 0) transaction.hDel(key, stillDeleted);
      if (Object.keys(writes).length > 0) transaction.hSet(key, writes);
      return transaction.exec();
    });
  }

  async clear(instance: string, fence?: Fence): Promise<void> {
    const key = this.keys.authState(instance);
    await this.connection.run((client) => (fence ? this.fenced.deleteKey(client, fence, key) : client.del(key)));
  }

  /**
   * Fields are `[category, id]` JSON, whose text order is not (category, id) order: a page sorts the
   * decoded names (one HKEYS per page, then one HMGET of the page's values).
   */
  async scan(instance: string, request: ScanRequest): Promise<ScanPage<AuthStateEntry>> {
    const key = this.keys.authState(instance);
    const after = authStatePosition.parse(request.after);
    const items = await this.connection.run(async (client) => {
      const names = (await client.hKeys(key)).map((name) => JSON.parse(name) as [string, string])
        .filter((name) => after === undefined || compareNames(name, after) > 0).sort(compareNames).slice(0, request.limit);
      if (names.length === 0) return [];
      const values = await client.hmGet(key, names.map(([category, id]) => field(category, id)));
      return names.flatMap(([category, id], i) => (values[i] == null ? [] : [{ category, id, value: values[i] }]));
    });
    return scanPage(items, request.limit, authStatePosition.of);
  }
}

/** (category, id) order in code units. */
function compareNames(a: readonly [string, string], b: readonly [string, string]): number {
  return compareIds(a[0], b[0]) || compareIds(a[1], b[1]);
}

function field(category: string, id: string): string {
  return JSON.stringify([category, id]);
}
