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
 * $5 whether it applies whatever is stored) by `messages_set_statuses` (statuses-schema.ts), answering
 * the ids of $2 that exist.
 */
export const SET_STATUSES = 'SELECT id FROM messages_set_statuses($1, $2, $3, $4, $5) AS id';

/** {@link PgMessageRepository.delete}: the messages of ids $2 of instance $1 deleted one by one by `messages_delete` (delete-schema.ts), answering how many. */
export const DELETE_MESSAGES = 'SELECT messages_delete($1, $2) AS n';

/**
 * {@link PgMessageRepository.purgeOlderThan}: up to $2 messages older than $1, the oldest first (a range of
 * `messages_by_time`), each found by its seq and deleted by its row's address (LATERAL … LIMIT 1). As
 * `seq IN (SELECT … LIMIT $2)`, a plan made on a young table read the whole table twice per call (a
 * sequential scan for the old ones, another hashed against them). A message another statement changed
 * meanwhile (a receipt) is left for the next sweep.
 */
export const PURGE_MESSAGES = `DELETE FROM messages AS m
  USING (SELECT seq FROM messages WHERE timestamp < $1 ORDER BY timestamp LIMIT $2) AS o
  CROSS JOIN LATERAL (SELECT ctid AS addr FROM messages WHERE seq = o.seq LIMIT 1) AS k
  WHERE m.ctid = k.addr`;

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

/** One row per message of the page (none: one row of nulls) beside the chat's count, in one snapshot. */
export const LIST_BY_CHAT = `SELECT c.n AS total, p.record, p.status
  FROM (SELECT coalesce((SELECT n FROM chat_message_counts WHERE instance = $1 AND chat = $2), 0) AS n) c
  LEFT JOIN LATERAL (SELECT record, status, timestamp, seq FROM messages WHERE instance = $1 AND chat = $2
    ORDER BY timestamp DESC, seq DESC LIMIT $3 OFFSET $4) p ON true
  ORDER BY p.timestamp DESC, p.seq DESC`;

/**
 * Message history. The status has its own column, so a receipt rewrites neither the record nor an
 * index; a page is a range of `messages_by_chat` and its total the chat's kept count.
 */
export class PgMessageRepository implements MessageRepository {
  constructor(private readonly db: PgDatabase) {}

  /** A replace keeps the row's seq, so the message keeps its place among equal timestamps; one write of the turn's statement ({@link PgDatabase.upserts}). */
  async upsert(instance: string, record: MessageRecord): Promise<void> {
    // messageTimestamp is text; ordering needs the number ("999" sorts after "1000" as text).
    await this.db.upserts.message({
      instance, id: record.key.id, chat: record.key.remoteJid, timestamp: Number(record.messageTimestamp) || 0, status: record.status, record: encodeStored(record),
    });
  }

  /** A lookup of the turn's statement ({@link PgDatabase.lookups}), with the other reads by key made beside it (a run's messages among them). */
  async get(instance: string, id: string): Promise<MessageRecord | null> {
    const row = await this.db.lookups.get('message', instance, id);
    return row ? messageOf({ record: row.doc, status: row.status as MessageStatus }) : null;
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
    // In one order (ids sorted), so that two runs updating the same messages lock them in the same order.
    const ids = [...byId.keys()].sort();
    const collapsed = ids.map((id) => collapseStatuses(byId.get(id)!));
    const found = new Set((await this.db.writes.all<{ id: string }>(SET_STATUSES, [
      instance, ids, collapsed.map((c) => c.status), collapsed.map((c) => MESSAGE_STATUS_RANK[c.status]), collapsed.map((c) => c.force),
    ])).map((row) => row.id));
    return updates.map(({ id }) => found.has(id));
  }

  /**
   * A page and the chat's total in one statement, so both come from one snapshot: two statements (even run
   * at once) could count a message stored between them and not list it.
   */
  async listByChat(instance: string, chatJid: string, page: PageRequest): Promise<Page<MessageRecord>> {
    const rows = await this.db.reads.all<{ total: number; record: string | null; status: string | null }>(LIST_BY_CHAT, [instance, chatJid, page.limit, (page.page - 1) * page.limit]);
    const items = rows.flatMap((row) => (row.record === null ? [] : [messageOf(row as MessageRow)]));
    return { items, total: rows[0]?.total ?? 0 };
  }

  async delete(instance: string, ids: string[]): Promise<number> {
    return (await this.db.writes.get<{ n: number }>(DELETE_MESSAGES, [instance, ids]))!.n;
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
    return this.db.writes.run(PURGE_MESSAGES, [before, limit]);
  }
}
