import { ulidFloor, type ChannelContext } from '@parley/core';

/** A lookup reads the event log from this long before the time it is given (clock skew between nodes). */
const LOOKBACK_MS = 5_000;
/** Event log entries a lookup reads per page, and pages at most (the event follows its cause within moments). */
const PAGE = 500;
const PAGES = 10;

/**
 * Whether the server has queued the webhooks of an event of this instance of `type` matching
 * `matches`, emitted from `sinceSeconds` (Unix seconds) on: whether the event log holds it, since an
 * event is logged in the same write as its deliveries. What the instance emitted before is processed
 * first. Something whose effect is stored but whose event is not logged was cut off by a crash between
 * the store and the webhook queue: the phone emits its event again rather than lose it (the store keeps
 * the higher status and counts a stored message unread once).
 */
export async function loggedSince(ctx: ChannelContext, sinceSeconds: number, type: string, matches: (event: Record<string, unknown>) => boolean): Promise<boolean> {
  const { storage, instanceId } = ctx;
  await ctx.settled?.();
  let after = ulidFloor(sinceSeconds * 1000 - LOOKBACK_MS);
  for (let page = 0; page < PAGES; page++) {
    const entries = await storage.events.read({ instance: instanceId, after, limit: PAGE });
    if (entries.some((e) => e.type === type && matches(JSON.parse(e.event) as Record<string, unknown>))) return true;
    if (entries.length < PAGE) return false;
    after = entries.at(-1)!.id;
  }
  return false;
}
