import { appendFile } from 'node:fs/promises';
import type { ChannelEvent, HostSends, Logger, PluginEventSubscriber, Storage } from '@parley/core';

/** Where the counts are kept: one document per instance in `storage.state`. */
export const COUNTS_NAMESPACE = 'event-counter';

/** The counts of one instance: events seen per event type, and the id of the last one. */
export interface EventCounts {
  byType: Record<string, number>;
  lastEventId: string;
}

/** What the subscriber is built from: the host services the manifest declares, and the options. */
export interface EventCounterOptions {
  storage: Storage;
  sends: HostSends;
  logger: Logger;
  /** A file to append one JSON line per event to (`{"id","instance","type"}`), for analytics tools. */
  logFile?: string;
  /** When set, every received text (other than this very text) is answered with it, from the instance that received it. */
  autoReply?: string;
}

/**
 * An analytics sink and a tiny CRM-style bridge in one in-process event subscriber: it counts every
 * event per instance and type in the storage, appends each to a log file, and may answer received
 * texts through the server's send path. Delivery is at least once (docs/plugins.md): an event seen
 * again (same id, after a crash) is not counted twice.
 */
export class EventCounter implements PluginEventSubscriber {
  readonly name = 'event-counter';

  constructor(private readonly options: EventCounterOptions) {}

  async handle(event: ChannelEvent): Promise<void> {
    const { storage, logFile } = this.options;
    const counts = (await storage.state.get<EventCounts>(COUNTS_NAMESPACE, event.instance)) ?? { byType: {}, lastEventId: '' };
    // Ids grow per instance: one at or below the last counted was counted already (a redelivery).
    if (event.id <= counts.lastEventId) return;
    if (logFile) await appendFile(logFile, `${JSON.stringify({ id: event.id, instance: event.instance, type: event.type })}\n`);
    counts.byType[event.type] = (counts.byType[event.type] ?? 0) + 1;
    counts.lastEventId = event.id;
    await storage.state.put(COUNTS_NAMESPACE, event.instance, counts);
    await this.reply(event);
  }

  private async reply(event: ChannelEvent): Promise<void> {
    const { autoReply, sends, logger } = this.options;
    if (!autoReply || event.type !== 'message') return;
    const { message } = event;
    if (message.fromMe || message.chatType !== 'individual' || message.content.type !== 'text' || message.content.body === autoReply) return;
    const record = await sends.text(event.instance, message.chatJid, autoReply);
    logger.info({ instance: event.instance, to: message.chatJid, message: record.key.id }, 'answered a received text');
  }
}
