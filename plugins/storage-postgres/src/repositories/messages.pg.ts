import {
  decodeStored, encodeStored, MESSAGE_STATUS_RANK,
  messagePosition, scanPage, type MessageRecord, type MessageRepository, type MessageStatus, type Page, type PageRequest, type ScanPage, type ScanRequest,
  type StatusUpdate,
} from '@parley/core';
import { messageOf, STATUS_RANK_SQL, type MessageRow } from '@parley/storage-sql';
import type { PgDatabase } from '../pg-database.js';


/** A message as a scan reads it: its record and its place (bigint columns arrive as text). */
type ScanRow = MessageRow & { chat: string; timestamp: string; seq: string };
const SCAN_COLUMNS = 'SELECT record, status, chat, timestamp, seq FROM messages';
const SCAN_ORDER = 'ORDER BY chat DESC, timestamp, seq LIMIT';
const SCAN_IN_CHAT = `${SCAN_COLUMNS} WHERE instance = $1 AND chat = $2 AND (timestamp, seq) > ($3, $4) ${SCAN_ORDER} $5`;
const SCAN_CHATS_AFTER = `${SCAN_COLUMNS} WHERE instance = $1 AND chat < $2 ${SCAN_ORDER} $3`;
const SCAN_CHATS = `${SCAN_COLUMNS} WHERE instance = $1 ${SCAN_ORDER} $2`;

/**
 * {@link PgMessageRepository.setStatuses}: one update per message ($2 ids, $3 statuses, $4 their ranks,
 * $5 whether it applies whatever is stored), answering the ids of $1 that exist. The data-modifying CTE
 * runs whether or not it is read; the outer query sees the rows as they were before it (an update
 * neither adds nor removes one).
 */
const SET_STATUSES = `
  WITH u AS (SELECT * FROM unnest($2::text[], $3::text[], $4::int[], $5::boolean[]) AS u (mid, next, next_rank, force)),
  moved AS (
    UPDATE messages SET status = u.next FROM u
    WHERE messages.instance = $1 AND messages.id = u.mid AND (u.force OR u.next = 'ERROR' OR u.next_rank > ${STATUS_RANK_SQL})
    RETURNING 1
  )
  SELECT u.mid AS id FROM u WHERE EXISTS (SELECT 1 FROM messages AS m WHERE m.instance = $1 AND m.id = u.mid)`;

/**
 * The statuses of one message, applied in order as {@link PgMessageRepository.setStatus} applies each,
 * as one update: with no `ERROR` among them, the first of the highest rank, applied forward only (as
 * each would be); after an `ERROR` (which always applies), the first of the highest rank that follows
 * it (or the `ERROR`), applied whatever is stored.
 */
export function collapseStatuses(statuses: readonly MessageStatus[]): { status: MessageStatus; force: boolean } {
  const error = statuses.lastIndexOf('ERROR');
  let best: MessageStatus | undefined;
  for (const status of statuses.slice(error + 1)) if (best === undefined || MESSAGE_STATUS_RANK[status] > MESSAGE_STATUS_RANK[best]) best = status;
  return error < 0 ? { status: best!, force: false } : { status: best ?? 'ERROR', force: true };
}

/**
 * Message history. The status has its own column, so a receipt rewrites neither the record nor an
 * index; a page is a range of `messages_by_chat` and its total the chat's kept count.
 */
export class PgMessageRepository implements MessageRepository {
  constructor(private readonly db: PgDatabase) {}

  /** A replace keeps the row's seq, so the message keeps its place among equal timestamps. */
  async upsert(instance: string, record: MessageRecord): Promise<void> {
    await this.db.writes.run(
      `INSERT INTO messages (instance, id, chat, timestamp, status, record) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (instance, id) DO UPDATE SET chat = excluded.chat, timestamp = excluded.timestamp, status = excluded.status,
       record = excluded.record`,
      // messageTimestamp is text; ordering needs the number ("999" sorts after "1000" as text).
      [instance, record.key.id, record.key.remoteJid, Number(record.messageTimestamp) || 0, record.status, encodeStored(record)],
    );
  }

  async get(instance: string, id: string): Promise<MessageRecord | null> {
    const row = await this.db.reads.get<MessageRow>('SELECT record, status FROM messages WHERE instance = $1 AND id = $2', [instance, id]);
    return row ? messageOf(row) : null;
  }

  /** One statement moves the status forward and tells whether the message exists. */
  async setStatus(instance: string, id: string, status: MessageStatus): Promise<boolean> {
    const row = await this.db.writes.get<{ found: boolean }>(
      `WITH moved AS (
         UPDATE messages SET status = $3 WHERE instance = $1 AND id = $2 AND ($3 = 'ERROR' OR $4 > ${STATUS_RANK_SQL}) RETURNING 1
       )
       SELECT EXISTS (SELECT 1 FROM moved) OR EXISTS (SELECT 1 FROM messages WHERE instance = $1 AND id = $2) AS found`,
      [instance, id, status, MESSAGE_STATUS_RANK[status]],
    );
    return row?.found === true;
  }

  /**
   * The receipts that queued up for an instance in one statement (one round trip and one commit instead
   * of one per receipt, on the instance's event chain): each message's statuses collapsed in order
   * ({@link collapseStatuses}), each update answered with whether its message exists.
   */
  async setStatuses(instance: string, updates: readonly StatusUpdate[]): Promise<boolean[]> {
    if (updates.length === 0) return [];
    const byId = new Map<string, MessageStatus[]>();
    for (const { id, status } of updates) byId.set(id, [...(byId.get(id) ?? []), status]);
    const collapsed = [...byId.values()].map(collapseStatuses);
    const found = new Set((await this.db.writes.all<{ id: string }>(SET_STATUSES, [
      instance, [...byId.keys()], collapsed.map((c) => c.status), collapsed.map((c) => MESSAGE_STATUS_RANK[c.status]), collapsed.map((c) => c.force),
    ])).map((row) => row.id));
    return updates.map(({ id }) => found.has(id));
  }

  async listByChat(instance: string, chatJid: string, page: PageRequest): Promise<Page<MessageRecord>> {
    const [rows, count] = await Promise.all([
      this.db.reads.all<MessageRow>(
        'SELECT record, status FROM messages WHERE instance = $1 AND chat = $2 ORDER BY timestamp DESC, seq DESC LIMIT $3 OFFSET $4',
        [instance, chatJid, page.limit, (page.page - 1) * page.limit],
      ),
      this.db.reads.get<{ n: number }>('SELECT n FROM chat_message_counts WHERE instance = $1 AND chat = $2', [instance, chatJid]),
    ]);
    return { items: rows.map(messageOf), total: count?.n ?? 0 };
  }

  async delete(instance: string, ids: string[]): Promise<number> {
    return this.db.writes.run('DELETE FROM messages WHERE instance = $1 AND id = ANY($2::text[])', [instance, ids]);
  }

  async deleteChat(instance: string, chatJid: string): Promise<number> {
    return this.db.writes.run('DELETE FROM messages WHERE instance = $1 AND chat = $2', [instance, chatJid]);
  }

  async clear(instance: string): Promise<void> {
    await this.db.writes.run('DELETE FROM messages WHERE instance = $1', [instance]);
  }

  /**
   * Ranges of `messages_by_chat` read backwards (chats in descending order, each oldest first): the
   * rest of the position's chat, then the chats after it.
   */
  async scan(instance: string, request: ScanRequest): Promise<ScanPage<MessageRecord>> {
    const at = messagePosition.parse(request.after);
    const rows = at ? await this.db.reads.all<ScanRow>(SCAN_IN_CHAT, [instance, at[0], at[1], at[2], request.limit]) : [];
    if (rows.length < request.limit) {
      rows.push(...(at ? await this.db.reads.all<ScanRow>(SCAN_CHATS_AFTER, [instance, at[0], request.limit - rows.length])
        : await this.db.reads.all<ScanRow>(SCAN_CHATS, [instance, request.limit])));
    }
    const page = scanPage(rows, request.limit, (row) => messagePosition.of(row.chat, Number(row.timestamp), Number(row.seq)));
    return { ...page, items: rows.map(messageOf) };
  }


  /** Deletes up to `limit` messages older than `before` (Unix s, as `messageTimestamp`); answers how many. */
  async purgeOlderThan(before: number, limit: number): Promise<number> {
    return this.db.writes.run('DELETE FROM messages WHERE seq IN (SELECT seq FROM messages WHERE timestamp < $1 LIMIT $2)', [before, limit]);
  }
}
