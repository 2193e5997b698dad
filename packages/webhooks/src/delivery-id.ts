import { createHash } from 'node:crypto';

/**
 * The delivery id (the `webhook-id` header): derived from the event id, the format and the URL, so
 * the same delivery keeps its id across retries, redeliveries and a re-enqueue after a crash (which
 * the queue ignores as a duplicate). The event id stays readable for support.
 */
export function deliveryId(eventId: string, format: string, url: string): string {
  const digest = createHash('sha256').update(`${format}\n${url}`, 'utf8').digest('base64url').slice(0, 16);
  return `msg_${eventId}_${digest}`;
}
