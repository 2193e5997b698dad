import { createHash } from 'node:crypto';

/** Above this many remembered digests, the memo starts over (one per webhook URL and format in use). */
const DIGESTS_KEPT = 4_096;
/** The digest of each `format\nurl` seen lately: every delivery of a lane has the same one. */
const digests = new Map<string, string>();

/**
 * The delivery id (the `webhook-id` header): derived from the event id, the format and the URL, so
 * the same delivery keeps its id across retries, redeliveries and a re-enqueue after a crash (which
 * the queue ignores as a duplicate). The event id stays readable for support.
 */
export function deliveryId(eventId: string, format: string, url: string): string {
  const target = `${format}\n${url}`;
  let digest = digests.get(target);
  if (digest === undefined) {
    digest = createHash('sha256').update(target, 'utf8').digest('base64url').slice(0, 16);
    if (digests.size >= DIGESTS_KEPT) digests.clear();
    digests.set(target, digest);
  }
  return `msg_${eventId}_${digest}`;
}
