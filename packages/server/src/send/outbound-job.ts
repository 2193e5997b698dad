import { decodeStored, encodeStored, type ChannelName, type MessageRecord, type OutgoingContent } from '@parley/core';

/**
 * A send as the queue stores it: everything the worker needs to send it later without the request —
 * the resolved content (media bytes included), the recipient, the channel, the quoted message's id and
 * the record the API answered.
 */
export interface OutboundJob {
  /** The linked channel to send through; absent for the main channel. */
  provider?: ChannelName;
  to: string;
  content: OutgoingContent;
  quotedId?: string;
  /** The body's `typing` option, resolved against the policy when the send leaves. */
  typing?: boolean | number;
  /** The record answered when the send was accepted (status `PENDING`). */
  record: MessageRecord;
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
