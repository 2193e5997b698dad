import { compareIds } from './record-fields.js';
import type { RedisClient } from './redis-connection.js';

/**
 * A keyset page of a hash's field names: up to `limit` of them after `after`, in code-unit order.
 * Redis keeps no order in a hash, so each page reads every field name (HKEYS, no values) and sorts
 * them here: memory holds names, never values, and Redis does O(fields) work per page, not a sort.
 */
export async function hashFieldsAfter(client: RedisClient, key: string, after: string | undefined, limit: number): Promise<string[]> {
  const fields = await client.hKeys(key);
  return fields.filter((field) => after === undefined || field > after).sort(compareIds).slice(0, limit);
}

/**
 * A keyset page of a hash's entries by field name (see {@link hashFieldsAfter}): the page's values are
 * read with one HMGET. A field deleted between the two reads is left out; `next` (the last field name
 * of the page) is present whenever more names followed the page's, so such a gap never ends a scan.
 */
export async function hashEntriesAfter(client: RedisClient, key: string, after: string | undefined, limit: number): Promise<{ entries: [string, string][]; next?: string }> {
  const names = (await client.hKeys(key)).filter((field) => after === undefined || field > after).sort(compareIds);
  const page = names.slice(0, limit);
  if (page.length === 0) return { entries: [] };
  const values = await client.hmGet(key, page);
  const entries = page.flatMap((field, i): [string, string][] => (values[i] == null ? [] : [[field, values[i]]]));
  return names.length > limit ? { entries, next: page.at(-1)! } : { entries };
}
