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
