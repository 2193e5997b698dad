import { decodeStored, encodeStored, type ChannelName, type MessageRecord, type MessageStatus, type OutgoingContent } from '@parley/core';
import { outgoingMessage } from '@parley/whatsapp-proto';

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

/**
 * The record of a send the channel has not taken (spec 2.4): its id, chat and time, and `message` in
 * WhatsApp's naming without the per-send members the channel adds when it sends
 * (`messageContextInfo`: the message secret).
 */
export function recordOf(id: string, createdAt: number, job: OutboundJob, status: MessageStatus = 'PENDING'): MessageRecord {
  const { messageContextInfo: _added, ...message } = outgoingMessage(job.content, createdAt);
  return {
    key: { remoteJid: job.remoteJid, fromMe: true, id }, message, messageTimestamp: String(Math.floor(createdAt / 1000)), status,
    provider: job.channel,
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
