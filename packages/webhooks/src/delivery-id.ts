import { createHash } from 'node:crypto';
import { BoundedMemo } from './bounded-memo.js';

/** The digest of each `format\nurl` seen lately (one per webhook URL and format in use): every delivery of a lane has the same one. */
const digests = new BoundedMemo(4_096, (target) => createHash('sha256').update(target, 'utf8').digest('base64url').slice(0, 16));

/**
 * The delivery id (the `webhook-id` header): derived from the event id, the format and the URL, so
 * the same delivery keeps its id across retries, redeliveries and a re-enqueue after a crash (which
 * the queue ignores as a duplicate). The event id stays readable for support.
 */
export function deliveryId(eventId: string, format: string, url: string): string {
  return `msg_${eventId}_${digests.get(`${format}\n${url}`)}`;
}
