import {
  decodeStored, encodeStored, MESSAGE_STATUS_RANK,
  messagePosition, scanPage, type MessageRecord, type MessageRepository, type MessageStatus, type Page, type PageRequest, type ScanPage, type ScanRequest,
} from '@parley/core';
import { messageOf, STATUS_RANK_SQL, type MessageRow } from '@parley/storage-sql';
import type { SqliteDatabase } from '../sqlite-database.js';
import { BatchKept } from './batch-kept.js';
import { ChatOrder } from './chat-order.js';


// Parameters written `+?` spare SQLite a recompilation per call (see chat-order.ts).

/**
 * A status moves forward only (the rank comparison runs in SQL, on the status column). Built once: the
 * statement cache is keyed by the SQL text, which a template built per call would make it hash and
 * compare in full at every lookup.
 */
const SET_STATUS = `UPDATE messages SET status = ? WHERE instance = +? AND id = +? AND (? = 'ERROR' OR ? > ${STATUS_RANK_SQL})`;

/** A message as a scan reads it: its record and its place. */
type ScanRow = MessageRow & PlaceRow;
const SCAN_COLUMNS = 'SELECT record, status, chat, timestamp, seq FROM messages';
const SCAN_ORDER = 'ORDER BY chat DESC, timestamp, seq LIMIT ?';
const SCAN_IN_CHAT = `${SCAN_COLUMNS} WHERE instance = +? AND chat = +? AND (timestamp, seq) > (+?, +?) ${SCAN_ORDER}`;
const SCAN_CHATS_AFTER = `${SCAN_COLUMNS} WHERE instance = +? AND chat < +? ${SCAN_ORDER}`;
const SCAN_CHATS = `${SCAN_COLUMNS} WHERE instance = +? ${SCAN_ORDER}`;

/** Where a stored message sits in its chat's order. */
type PlaceRow = { seq: number; chat: string; timestamp: number };

/**
 * Messages by (instance, id), in their chats' orders ({@link ChatOrder}). What a batch read or wrote of
 * a record is kept for it ({@link BatchKept}): a send's record and its own copy (the sent record and the
 * channel's `message` event of the same id) are each read before they are written, and the second read
 * in the batch is answered from memory (issue 26).
 */
export class SqliteMessageRepository implements MessageRepository {
  private readonly order: ChatOrder;
  /** The open batch's rows (null: none), by `instance\nid`. */
  private readonly kept: BatchKept<MessageRow | null>;

  /** `blockSize`: see {@link ChatOrder}; tests pass a small one to exercise splits and merges. */
  constructor(private readonly db: SqliteDatabase, blockSize?: number) {
    this.order = new ChatOrder(db, blockSize);
    this.kept = new BatchKept(db);
  }

  /**
   * A replace keeps the row's seq, so the message keeps its place among equal timestamps; one that
   * changes the chat or the timestamp moves in the chats' orders, in the same transaction.
   */
  async upsert(instance: string, record: MessageRecord): Promise<void> {
    const id = record.key.id;
    const chat = record.key.remoteJid;
    // messageTimestamp is text; ordering needs the number ("999" sorts after "1000" as text).
    const timestamp = Number(record.messageTimestamp) || 0;
    const content = [record.status, encodeStored(record)];
    // A new message: its row and its place in the chat's order, undone by statements should the second
    // fail (no savepoint: nearly always two statements in all).
    const inserted = this.db.undoable((undo) => {
      const row = this.db.write<{ seq: number }>(
        'INSERT INTO messages (instance, id, chat, timestamp, status, record) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING seq',
        [instance, id, chat, timestamp, ...content],
      );
      if (!row) return false;
      undo(() => this.db.run('DELETE FROM messages WHERE seq = +?', [row.seq]));
      this.order.add(instance, chat, { timestamp, seq: row.seq }, undo);
      return true;
    });
    if (!inserted) this.db.transaction(() => {
      const stored = this.db.get<PlaceRow>('SELECT seq, chat, timestamp FROM messages WHERE instance = +? AND id = +?', [instance, id])!;
      this.db.run('UPDATE messages SET chat = ?, timestamp = ?, status = ?, record = ? WHERE seq = +?', [chat, timestamp, ...content, stored.seq]);
      if (stored.chat !== chat || stored.timestamp !== timestamp) {
        this.order.remove(instance, stored.chat, stored);
        this.order.add(instance, chat, { timestamp, seq: stored.seq });
      }
    });
    this.kept.set(`${instance}\n${id}`, { status: record.status, record: content[1]! });
  }

  async get(instance: string, id: string): Promise<MessageRecord | null> {
    const key = `${instance}\n${id}`;
    let row = this.kept.get(key);
    if (row === undefined) {
      row = this.db.get<MessageRow>('SELECT record, status FROM messages WHERE instance = +? AND id = +?', [instance, id]) ?? null;
      this.kept.set(key, row);
    }
    return row ? messageOf(row) : null;
  }

  /**
   * One statement moves the status forward (the rank comparison runs in SQL, on the status column:
   * the record's JSON is neither read nor rewritten); only when it did not move does a second one
   * tell whether the message exists.
   */
  async setStatus(instance: string, id: string, status: MessageStatus): Promise<boolean> {
    const moved = this.db.run(SET_STATUS, [status, instance, id, status, MESSAGE_STATUS_RANK[status]]);
    if (moved > 0) {
      const key = `${instance}\n${id}`;
      const row = this.kept.get(key);
      if (row) this.kept.set(key, { ...row, status });
      else this.kept.delete(key);
    }
    return moved > 0 || this.db.get('SELECT 1 AS found FROM messages WHERE instance = +? AND id = +?', [instance, id]) !== undefined;
  }

  /**
   * Page N reads on from the key of its newest message, found through its block (see
   * {@link ChatOrder}), down the `messages_by_chat` index; the total is the blocks' span. Both cost
   * the same at any chat size and depth.
   */
  async listByChat(instance: string, chatJid: string, page: PageRequest): Promise<Page<MessageRecord>> {
    const skip = (page.page - 1) * page.limit;
    const { total, bound } = this.order.fromNewest(instance, chatJid, skip);
    if (skip >= total) return { items: [], total };
    const rows = bound
      ? this.db.all<MessageRow>(
        `SELECT record, status FROM messages WHERE instance = +? AND chat = +? AND (timestamp, seq) <= (+?, +?)
         ORDER BY timestamp DESC, seq DESC LIMIT ?`,
        [instance, chatJid, bound.timestamp, bound.seq, page.limit],
      )
      : this.db.all<MessageRow>('SELECT record, status FROM messages WHERE instance = +? AND chat = +? ORDER BY timestamp DESC, seq DESC LIMIT ?',
        [instance, chatJid, page.limit]);
    return { items: rows.map(messageOf), total };
  }

  async delete(instance: string, ids: string[]): Promise<number> {
    return this.db.transaction(() => {
      let deleted = 0;
      for (const id of new Set(ids)) {
        const gone = this.db.write<PlaceRow>('DELETE FROM messages WHERE instance = +? AND id = +? RETURNING seq, chat, timestamp', [instance, id]);
        this.kept.delete(`${instance}\n${id}`);
        if (!gone) continue;
        this.order.remove(instance, gone.chat, gone);
        deleted++;
      }
      return deleted;
    });
  }

  async deleteChat(instance: string, chatJid: string): Promise<number> {
    this.kept.clear();
    return this.db.transaction(() => {
      this.order.forget(instance, chatJid);
      return this.db.run('DELETE FROM messages WHERE instance = +? AND chat = +?', [instance, chatJid]);
    });
  }

  /**
   * Ranges of `messages_by_chat` read backwards (chats in descending order, each oldest first): the
   * rest of the position's chat, then the chats after it.
   */
  async scan(instance: string, request: ScanRequest): Promise<ScanPage<MessageRecord>> {
    const at = messagePosition.parse(request.after);
    const rows = at ? this.db.all<ScanRow>(SCAN_IN_CHAT, [instance, at[0], at[1], at[2], request.limit]) : [];
    if (rows.length < request.limit) {
      rows.push(...(at ? this.db.all<ScanRow>(SCAN_CHATS_AFTER, [instance, at[0], request.limit - rows.length]) : this.db.all<ScanRow>(SCAN_CHATS, [instance, request.limit])));
    }
    const page = scanPage(rows, request.limit, (row) => messagePosition.of(row.chat, row.timestamp, row.seq));
    return { ...page, items: rows.map(messageOf) };
  }

  async clear(instance: string): Promise<void> {
    this.kept.clear();
    this.db.transaction(() => {
      this.order.clear(instance);
      this.db.run('DELETE FROM messages WHERE instance = +?', [instance]);
    });
  }
}
