import type { SqliteDatabase } from '../sqlite-database.js';

/** A chat's size and the ordinal of its oldest message: its messages hold ordinals `lo` … `lo + n - 1`. */
export interface ChatSpan {
  n: number;
  lo: number;
}

/** Larger than any rowid: the sort key of a message not inserted yet, which sorts after its equal timestamps. */
export const NEW_SEQ = Number.MAX_SAFE_INTEGER;

/**
 * The `ord` column of `messages` (migration 7): each chat's messages numbered without gaps in their
 * listing order, oldest (timestamp, seq) first, with the chat's size and lowest ordinal in
 * `message_chats`, both written in the transaction that writes the row. Page N of a chat is then an
 * ordinal range read on the `messages_by_ord` index and its total one primary-key read: neither
 * grows with the chat's size or the page's depth (OFFSET and COUNT(*) both did).
 *
 * A message placed at either end of its chat (a live message is the newest; history sync delivers
 * older ones) renumbers nothing. One placed or removed in the middle shifts by one whichever side of
 * it is smaller (the `lo` bound moves when the older side shifts), so the write costs at most half the
 * chat, and nothing for the writes Parley makes most. Callers run these inside one transaction.
 */
export class ChatOrder {
  constructor(private readonly db: SqliteDatabase) {}

  span(instance: string, chat: string): ChatSpan | undefined {
    return this.db.get<{ n: number; lo: number }>('SELECT n, lo FROM message_chats WHERE instance = ? AND chat = ?', [instance, chat]);
  }

  /**
   * Makes room for a message sorting at (timestamp, seq) that is not in the chat's order, and answers
   * its ordinal; the caller writes the row with it. `seq` is {@link NEW_SEQ} for a message not stored yet.
   */
  place(instance: string, chat: string, timestamp: number, seq: number): number {
    const span = this.span(instance, chat);
    if (!span) {
      this.db.run('INSERT INTO message_chats (instance, chat, n, lo) VALUES (?, ?, 1, 0)', [instance, chat]);
      return 0;
    }
    const next = this.db.get<{ ord: number }>(
      `SELECT ord FROM messages WHERE instance = ? AND chat = ? AND (timestamp, seq) > (?, ?) AND seq <> ?
       ORDER BY timestamp, seq LIMIT 1`,
      [instance, chat, timestamp, seq, seq],
    );
    let ord = span.lo + span.n;
    let lo = span.lo;
    if (next) {
      const newer = span.lo + span.n - next.ord;
      if (newer <= next.ord - span.lo) {
        this.shift(instance, chat, 'ord >= ?', next.ord, 1);
        ord = next.ord;
      } else {
        this.shift(instance, chat, 'ord < ?', next.ord, -1);
        ord = next.ord - 1;
        lo -= 1;
      }
    }
    this.db.run('UPDATE message_chats SET n = n + 1, lo = ? WHERE instance = ? AND chat = ?', [lo, instance, chat]);
    return ord;
  }

  /** Closes the gap a message at `ord` leaves, after its row was deleted or moved away. */
  remove(instance: string, chat: string, ord: number): void {
    const span = this.span(instance, chat);
    if (!span) return;
    if (span.n <= 1) {
      this.forget(instance, chat);
      return;
    }
    let lo = span.lo;
    if (span.lo + span.n - 1 - ord <= ord - span.lo) this.shift(instance, chat, 'ord > ?', ord, -1);
    else {
      this.shift(instance, chat, 'ord < ?', ord, 1);
      lo += 1;
    }
    this.db.run('UPDATE message_chats SET n = n - 1, lo = ? WHERE instance = ? AND chat = ?', [lo, instance, chat]);
  }

  /** Drops a chat's span, when all its messages are deleted. */
  forget(instance: string, chat: string): void {
    this.db.run('DELETE FROM message_chats WHERE instance = ? AND chat = ?', [instance, chat]);
  }

  /** Drops every span of an instance. */
  clear(instance: string): void {
    this.db.run('DELETE FROM message_chats WHERE instance = ?', [instance]);
  }

  private shift(instance: string, chat: string, range: string, ord: number, by: 1 | -1): void {
    this.db.run(`UPDATE messages SET ord = ord + ? WHERE instance = ? AND chat = ? AND ${range}`, [by, instance, chat, ord]);
  }
}
