import {
  decodeStored, MESSAGE_STATUS_RANK, type IdempotencyRecord, type IdempotentAnswer, type MessageRecord, type MessageStatus,
} from '@parley/core';

/** A row that holds one record encoded with `encodeStored` (instances, chats, contacts, …). */
export type RecordRow = { record: string };

/** A stored message: its record, and its status, which lives in a column of its own so a receipt rewrites only it. */
export type MessageRow = { record: string; status: MessageStatus };

/** The message a row holds, with the status column as its status. */
export function messageOf(row: MessageRow): MessageRecord {
  const record = decodeStored<MessageRecord>(row.record);
  record.status = row.status;
  return record;
}

/** The rank of a row's `status` column ({@link MESSAGE_STATUS_RANK}) as an SQL expression both dialects accept. */
export const STATUS_RANK_SQL = `CASE status ${Object.entries(MESSAGE_STATUS_RANK)
  .map(([name, rank]) => `WHEN '${name}' THEN ${rank}`).join(' ')} END`;

/** A row of the `idempotency_keys` table, as a lookup selects it. */
export interface IdempotencyRow {
  [column: string]: unknown;
  state: string;
  fingerprint: string;
  owner: string;
  expires_at: number;
  answer: string | null;
}

/** The idempotency record a row holds, or null when the row is absent or expired at `now`. */
export function idempotencyOf(row: IdempotencyRow | undefined | null, now: number): IdempotencyRecord | null {
  if (!row || row.expires_at <= now) return null;
  return {
    state: row.state as IdempotencyRecord['state'], fingerprint: row.fingerprint, owner: row.owner, expiresAt: row.expires_at,
    ...(row.answer === null ? {} : { answer: JSON.parse(row.answer) as IdempotentAnswer }),
  };
}
