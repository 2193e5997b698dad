import {
  decodeStored, encodeStored, recordMessageOf, type ChannelDriver, type ChannelName, type MessageContent, type MessageRecord, type MessageStatus,
  type OutgoingContent,
} from '@parley/core';

/**
 * A send as the queue stores it: everything the worker needs to send it later without the request —
 * the resolved content (media bytes included), the recipient, the channel and the quoted message's id.
 */
export interface OutboundJob {
  /** The linked channel to send through; absent for the main channel. */
  provider?: ChannelName;
  /** The wire channel (`provider` of the record). */
  channel: ChannelName;
  to: string;
  /** The chat: the recipient's JID on the main channel, its user id on a linked one. */
  remoteJid: string;
  content: OutgoingContent;
  quotedId?: string;
  /** The body's `typing` option, resolved against the policy when the send leaves. */
  typing?: boolean | number;
}

/** The `message` of a record of a send its channel has not taken, as the channel's drivers build it. */
export type PendingRecords = (channel: ChannelName, content: OutgoingContent, nowMs: number) => MessageContent;

/**
 * The {@link PendingRecords} of a server's drivers: each channel's `pendingRecord` (WhatsApp's proto
 * naming for the WhatsApp drivers), core's `recordMessageOf` for a channel whose drivers declare none.
 */
export function pendingRecords(drivers: Iterable<Pick<ChannelDriver, 'channel' | 'pendingRecord'>>): PendingRecords {
  const byChannel = new Map<ChannelName, NonNullable<ChannelDriver['pendingRecord']>>();
  for (const driver of drivers) {
    if (driver.pendingRecord && !byChannel.has(driver.channel)) byChannel.set(driver.channel, driver.pendingRecord.bind(driver));
  }
  return (channel, content, nowMs) => byChannel.get(channel)?.(content, nowMs) ?? recordMessageOf(content);
}

/** The {@link PendingRecords} of a server whose drivers declare no `pendingRecord`: core's `recordMessageOf`. */
const NEUTRAL_RECORDS: PendingRecords = pendingRecords([]);

/** The record of a send the channel has not taken (spec 2.4): its id, chat and time, and `message` as its channel names it (`pending`). */
export function recordOf(id: string, createdAt: number, job: OutboundJob, status: MessageStatus = 'PENDING', pending = NEUTRAL_RECORDS): MessageRecord {
  return {
    key: { remoteJid: job.remoteJid, fromMe: true, id }, message: pending(job.channel, job.content, createdAt),
    messageTimestamp: String(Math.floor(createdAt / 1000)), status, provider: job.channel,
  };
}

export function encodeJob(job: OutboundJob): string {
  return encodeStored(job);
}

export function decodeJob(payload: string): OutboundJob {
  return decodeStored<OutboundJob>(payload);
}

/** The text a typing simulation is timed on: the text or caption of the content, if any. */
export function typedText(content: OutgoingContent): string {
  if ('text' in content && typeof content.text === 'string') return content.text;
  if ('caption' in content && typeof content.caption === 'string') return content.caption;
  return '';
}
