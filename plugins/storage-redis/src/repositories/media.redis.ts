import { scanPage, type MediaBlob, type MediaRepository, type ScanPage, type ScanRequest } from '@parley/core';
import { hashFieldsAfter } from '../hash-scan.js';
import { LuaScript } from '../lua-script.js';
import type { RedisConnection } from '../redis-connection.js';
import type { RedisKeys } from '../redis-keys.js';

// KEYS: data, meta. ARGV: message id. Reads both in one atomic step.
const getScript = new LuaScript(`return {redis.call('HGET', KEYS[1], ARGV[1]), redis.call('HGET', KEYS[2], ARGV[1])}`);

/** Media of an instance: bytes in one hash (binary-safe), `{mimetype, fileName}` JSON in another. */
export class RedisMediaRepository implements MediaRepository {
  constructor(private readonly connection: RedisConnection, private readonly keys: RedisKeys) {}

  async put(instance: string, messageId: string, blob: MediaBlob): Promise<void> {
    const meta = JSON.stringify(blob.fileName === undefined ? { mimetype: blob.mimetype } : { mimetype: blob.mimetype, fileName: blob.fileName });
    await this.connection.run((client) => client.multi()
      .hSet(this.keys.mediaData(instance), messageId, Buffer.from(blob.data))
      .hSet(this.keys.mediaMeta(instance), messageId, meta)
      .exec());
  }

  async get(instance: string, messageId: string): Promise<MediaBlob | null> {
    const [data, meta] = await this.connection.run((client) =>
      getScript.run(client, [this.keys.mediaData(instance), this.keys.mediaMeta(instance)], [messageId], true)) as [Buffer | null, Buffer | null];
    if (data == null || meta == null) return null;
    return { data, ...(JSON.parse(meta.toString('utf8')) as Omit<MediaBlob, 'data'>) };
  }

  async delete(instance: string, messageId: string): Promise<boolean> {
    const [removed] = await this.connection.run((client) => client.multi()
      .hDel(this.keys.mediaData(instance), messageId)
      .hDel(this.keys.mediaMeta(instance), messageId)
      .exec()) as unknown as [number, number];
    return Number(removed) > 0;
  }

  async clear(instance: string): Promise<void> {
    await this.connection.run((client) => client.del([this.keys.mediaData(instance), this.keys.mediaMeta(instance)]));
  }

  /** The description hash's field names, sorted per page (see {@link hashFieldsAfter}); the bytes stay unread. */
  async scanIds(instance: string, request: ScanRequest): Promise<ScanPage<string>> {
    const ids = await this.connection.run((client) => hashFieldsAfter(client, this.keys.mediaMeta(instance), request.after, request.limit));
    return scanPage(ids, request.limit, (id) => id);
  }
}
