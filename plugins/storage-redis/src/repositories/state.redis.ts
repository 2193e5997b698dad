import type { Fence, ScanPage, ScanRequest, StateRepository } from '@parley/core';
import { clearPrefixLua, type FencedWrites } from '../cluster/fenced-writes.js';
import { hashEntriesAfter } from '../hash-scan.js';
import { compareIds } from '../record-fields.js';
import { LuaScript } from '../lua-script.js';
import type { RedisConnection } from '../redis-connection.js';
import type { RedisKeys } from '../redis-keys.js';

// KEYS: namespaces set. ARGV: state key stem, prefix.
const clearPrefixScript = new LuaScript(clearPrefixLua('KEYS[1]', 'ARGV[1]', 'ARGV[2]'));

// KEYS: namespaces set, namespace hash. ARGV: namespace, id, JSON. One command where MULTI/SADD/HSET/EXEC were four.
const putScript = new LuaScript(`
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1
`);

/** State documents: one hash per namespace (id → JSON), and the set of namespaces for prefix clearing. */
export class RedisStateRepository implements StateRepository {
  constructor(private readonly connection: RedisConnection, private readonly keys: RedisKeys, private readonly fenced: FencedWrites) {}

  async get<T = unknown>(namespace: string, id: string): Promise<T | null> {
    const raw = await this.connection.run((client) => client.hGet(this.keys.state(namespace), id));
    return raw == null ? null : (JSON.parse(raw) as T);
  }

  async put(namespace: string, id: string, value: unknown, fence?: Fence): Promise<void> {
    const json = JSON.stringify(value) ?? 'null';
    if (fence) {
      await this.connection.run((client) => this.fenced.statePut(client, fence, this.keys.stateNamespaces, this.keys.state(namespace), namespace, id, json));
      return;
    }
    await this.connection.run((client) => putScript.run(client, [this.keys.stateNamespaces, this.keys.state(namespace)], [namespace, id, json]));
  }

  async delete(namespace: string, id: string, fence?: Fence): Promise<boolean> {
    if (fence) return (await this.connection.run((client) => this.fenced.stateDelete(client, fence, this.keys.state(namespace), id))) > 0;
    return (await this.connection.run((client) => client.hDel(this.keys.state(namespace), id))) > 0;
  }

  async list<T = unknown>(namespace: string): Promise<{ id: string; value: T }[]> {
    const all = await this.connection.run((client) => client.hGetAll(this.keys.state(namespace)));
    return Object.entries(all)
      .sort(([a], [b]) => compareIds(a, b))
      .map(([id, raw]) => ({ id, value: JSON.parse(raw) as T }));
  }

  /** A page of the namespace's hash sorted by id (see {@link hashEntriesAfter}). */
  async scan<T = unknown>(namespace: string, request: ScanRequest): Promise<ScanPage<{ id: string; value: T }>> {
    const { entries, next } = await this.connection.run((client) => hashEntriesAfter(client, this.keys.state(namespace), request.after, request.limit));
    const items = entries.map(([id, raw]) => ({ id, value: JSON.parse(raw) as T }));
    return next === undefined ? { items } : { items, next };
  }

  /** The namespaces set holds every namespace ever written: those left empty are left out (one HLEN each, pipelined). */
  async listNamespaces(prefix: string): Promise<string[]> {
    return this.connection.run(async (client) => {
      const candidates = (await client.sMembers(this.keys.stateNamespaces)).filter((namespace) => namespace.startsWith(prefix)).sort(compareIds);
      const sizes = await Promise.all(candidates.map((namespace) => client.hLen(this.keys.state(namespace))));
      return candidates.filter((_, i) => sizes[i]! > 0);
    });
  }

  async clearPrefix(prefix: string, fence?: Fence): Promise<void> {
    if (fence) {
      await this.connection.run((client) => this.fenced.stateClearPrefix(client, fence, this.keys.stateNamespaces, this.keys.stateStem(), prefix));
      return;
    }
    await this.connection.run((client) => clearPrefixScript.run(client, [this.keys.stateNamespaces], [this.keys.stateStem(), prefix]));
  }
}
