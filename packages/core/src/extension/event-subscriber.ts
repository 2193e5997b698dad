import type { ChannelEvent } from '../channel/events.js';

/**
 * An in-process event subscriber an `extension` plugin adds with `subscribers.add` (an analytics
 * sink, a CRM bridge): it receives every event the server's event bus handles, of every instance,
 * without a webhook.
 *
 * Delivery (docs/plugins.md, "Event subscribers"): at least once, from the durable event log with a
 * cursor the host keeps per subscriber in storage; each event after it was stored and its webhooks
 * queued; in event-id order, which is publish order per instance; one event at a time. A slow or
 * failing subscriber never holds up sends or other subscribers.
 */
export interface PluginEventSubscriber {
  /** Its id (a lower-case letter, then up to 31 lower-case letters, digits or dashes), unique over all plugins: it names the cursor and the log lines. */
  readonly name: string;
  /**
   * Handles one event (`event.id` is its stable id: after a crash an event may come again, with the
   * same id). A rejection is retried three times (100 ms, 500 ms, 2 s apart); after that the event
   * is logged with its id and skipped.
   */
  handle(event: ChannelEvent): Promise<void> | void;
}
