import { scanPage, type MediaBlob, type MediaRepository, type ScanPage, type ScanRequest } from '@parley/core';
import type { SqliteDatabase } from '../sqlite-database.js';

type MediaRow = { mimetype: string; file_name: string | null; data: Buffer };

export class SqliteMediaRepository implements MediaRepository {
  constructor(private readonly db: SqliteDatabase) {}

  async put(instance: string, messageId: string, blob: MediaBlob): Promise<void> {
    this.db.run(
      'INSERT OR REPLACE INTO media (instance, message_id, mimetype, file_name, data) VALUES (?, ?, ?, ?, ?)',
      [instance, messageId, blob.mimetype, blob.fileName ?? null, blob.data],
    );
  }

  async get(instance: string, messageId: string): Promise<MediaBlob | null> {
    const row = this.db.get<MediaRow>('SELECT mimetype, file_name, data FROM media WHERE instance = +? AND message_id = +?', [instance, messageId]);
    if (!row) return null;
    return { data: row.data, mimetype: row.mimetype, ...(row.file_name === null ? {} : { fileName: row.file_name }) };
  }

  async delete(instance: string, messageId: string): Promise<boolean> {
    return this.db.run('DELETE FROM media WHERE instance = +? AND message_id = +?', [instance, messageId]) > 0;
  }

  async clear(instance: string): Promise<void> {
    this.db.run('DELETE FROM media WHERE instance = +?', [instance]);
  }

  /** A range of the primary key (instance, message_id); the blobs stay unread. */
  async scanIds(instance: string, request: ScanRequest): Promise<ScanPage<string>> {
    const ids = this.db.all<{ message_id: string }>('SELECT message_id FROM media WHERE instance = +? AND message_id > +? ORDER BY message_id LIMIT ?',
      [instance, request.after ?? '', request.limit]).map((row) => row.message_id);
    return scanPage(ids, request.limit, (id) => id);
  }
}
