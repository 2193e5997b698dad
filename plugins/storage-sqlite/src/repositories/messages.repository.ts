import {
  decodeStored, encodeStored, MESSAGE_STATUS_RANK,
  type MessageRecord, type MessageRepository, type MessageStatus, type Page, type PageRequest,
} from '@parley/core';
import type { SqliteDatabase } from '../sqlite-database.js';

/** A stored message: its record, and its status, which lives in its own column (migration 2). */
type RecordRow = { record: string; status: MessageStatus };

/** The rank of the stored status ({@link MESSAGE_STATUS_RANK}) as an SQL expression. */
const RANK_SQL = `CASE status ${Object.entries(MESSAGE_STATUS_RANK)
  .map(([name, rank]) => `WHEN '${name}' THEN ${rank}`).join(' ')} END`;

/** The record of a row, with the status column as its status. */
function recordOf(row: RecordRow): MessageRecord {
  const record = decodeStored<MessageRecord>(row.record);
  record.status = row.status;
  return record;
}

export class SqliteMessageRepository implements MessageRepository {
  constructor(private readonly db: SqliteDatabase) {}

  /** A replace keeps the row's seq, so the message keeps its place among equal timestamps. */
  async upsert(instance: string, record: MessageRecord): Promise<void> {
    this.db.run(
      `INSERT INTO messages (instance, id, chat, timestamp, status, record) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (instance, id) DO UPDATE SET chat = excluded.chat, timestamp = excluded.timestamp, status = excluded.status,
       record = excluded.record`,
      // messageTimestamp is text; ordering needs the number ("999" sorts after "1000" as text).
      [instance, record.key.id, record.key.remoteJid, Number(record.messageTimestamp) || 0, record.status, encodeStored(record)],
    );
  }

  async get(instance: string, id: string): Promise<MessageRecord | null> {
    const row = this.db.get<RecordRow>('SELECT record, status FROM messages WHERE instance = ? AND id = ?', [instance, id]);
    return row ? recordOf(row) : null;
  }

  /**
   * One statement moves the status forward (the rank comparison runs in SQL, on the status column:
   * the record's JSON is neither read nor rewritten); only when it did not move does a second one
   * tell whether the message exists.
   */
  async setStatus(instance: string, id: string, status: MessageStatus): Promise<boolean> {
    const moved = this.db.run(
      `UPDATE messages SET status = ? WHERE instance = ? AND id = ? AND (? = 'ERROR' OR ? > ${RANK_SQL})`,
      [status, instance, id, status, MESSAGE_STATUS_RANK[status]],
    );
    return moved > 0 || this.db.get('SELECT 1 AS found FROM messages WHERE instance = ? AND id = ?', [instance, id]) !== undefined;
  }

  async listByChat(instance: string, chatJid: string, page: PageRequest): Promise<Page<MessageRecord>> {
    const rows = this.db.all<RecordRow>(
      'SELECT record, status FROM messages WHERE instance = ? AND chat = ? ORDER BY timestamp DESC, seq DESC LIMIT ? OFFSET ?',
      [instance, chatJid, page.limit, (page.page - 1) * page.limit],
    );
    const { total } = this.db.get<{ total: number }>('SELECT COUNT(*) AS total FROM messages WHERE instance = ? AND chat = ?', [instance, chatJid])!;
    return { items: rows.map(recordOf), total };
  }

  async delete(instance: string, ids: string[]): Promise<number> {
    return this.db.run('DELETE FROM messages WHERE instance = ? AND id IN (SELECT value FROM json_each(?))', [instance, JSON.stringify(ids)]);
  }

  async deleteChat(instance: string, chatJid: string): Promise<number> {
    return this.db.run('DELETE FROM messages WHERE instance = ? AND chat = ?', [instance, chatJid]);
  }

  async clear(instance: string): Promise<void> {
    this.db.run('DELETE FROM messages WHERE instance = ?', [instance]);
  }
}
