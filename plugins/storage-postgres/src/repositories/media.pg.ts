import { scanPage, type MediaBlob, type MediaRepository, type ScanPage, type ScanRequest } from '@parley/core';
import type { PgDatabase } from '../pg-database.js';

type MediaRow = { mimetype: string; file_name: string | null; data: Buffer };

/** Media bytes in a bytea column (PostgreSQL moves values over 2 kB out of line, TOAST, compressed where it helps). */
export class PgMediaRepository implements MediaRepository {
  constructor(private readonly db: PgDatabase) {}

  async put(instance: string, messageId: string, blob: MediaBlob): Promise<void> {
    await this.db.writes.run(
      `INSERT INTO media (instance, message_id, mimetype, file_name, data) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (instance, message_id) DO UPDATE SET mimetype = excluded.mimetype, file_name = excluded.file_name, data = excluded.data`,
      [instance, messageId, blob.mimetype, blob.fileName ?? null, Buffer.from(blob.data)],
    );
  }

  async get(instance: string, messageId: string): Promise<MediaBlob | null> {
    const row = await this.db.reads.get<MediaRow>('SELECT mimetype, file_name, data FROM media WHERE instance = $1 AND message_id = $2', [instance, messageId]);
    if (!row) return null;
    return { data: row.data, mimetype: row.mimetype, ...(row.file_name === null ? {} : { fileName: row.file_name }) };
  }

  async delete(instance: string, messageId: string): Promise<boolean> {
    return (await this.db.writes.run('DELETE FROM media WHERE instance = $1 AND message_id = $2', [instance, messageId])) > 0;
  }

  async clear(instance: string): Promise<void> {
    await this.db.writes.run('DELETE FROM media WHERE instance = $1', [instance]);
  }

  /** A range of the primary key (instance, message_id); the blobs stay unread. */
  async scanIds(instance: string, request: ScanRequest): Promise<ScanPage<string>> {
    const ids = (await this.db.reads.all<{ message_id: string }>('SELECT message_id FROM media WHERE instance = $1 AND message_id > $2 ORDER BY message_id LIMIT $3',
      [instance, request.after ?? '', request.limit])).map((row) => row.message_id);
    return scanPage(ids, request.limit, (id) => id);
  }
}
