import type { ChannelAdapter, Logger, MessageRecord, OutgoingContent, Storage } from '@parley/core';
import type { EventBus } from '../events/event-bus.js';
import type { StoreProjector } from '../events/store-projector.js';

/**
 * The last stage of a send: stores the sent record, its chat and its media (served back by spec
 * 4.4) in the instance's event order, so statuses the channel emitted meanwhile apply after it.
 */
export class SendProjection {
  constructor(
    private readonly storage: Storage,
    private readonly bus: EventBus,
    private readonly projector: StoreProjector,
    private readonly logger: Logger,
  ) {}

  async project(instanceId: string, adapter: ChannelAdapter, content: OutgoingContent, record: MessageRecord): Promise<MessageRecord> {
    const media = 'media' in content ? content.media : undefined;
    // The copy served back by GET media. The message is sent and its record stored either way: a copy
    // that cannot be kept (a media store that is unreachable) is logged, and GET media then asks the channel.
    const keepMedia = async () => {
      if (!media) return;
      try {
        await this.storage.media.put(instanceId, record.key.id, { data: media.data, mimetype: media.mimetype, fileName: media.fileName });
      } catch (err) {
        this.logger.warn({ err, instance: instanceId, message: record.key.id }, 'sent media not kept: GET media will ask the channel');
      }
    };
    // A channel that reports its own sends (the sandbox does) published this very record as a message
    // event before `send` answered (still waiting, being handled, or stored already): once the
    // instance's events so far are processed it is stored with its chat. Waiting for that queues no
    // barrier, which would cut the runs of events `handleBatch` stores in a few round trips (an
    // instance's events bound its send rate on a networked store). Media sends keep the barrier: their
    // media is stored in the instance's event order.
    //
    // Either wait ends with 503 once the instance's events fail for storage (the bus holds them until it
    // is back, possibly for minutes): the caller answers `sent_not_recorded` at once, and the record is
    // stored with the held events, or when the outbound entry is claimed again.
    if (!media && (this.projector.wasProjected(record) || this.bus.isMessagePending(record))) {
      await this.bus.unlessBlocked(instanceId, this.bus.processed(instanceId));
      if (this.projector.wasProjected(record)) return Object.assign({}, record, { provider: adapter.channel });
    }
    return this.bus.unlessBlocked(instanceId, this.bus.run(instanceId, async () => {
      // The channel's echo of this send (same record) is stored with its chat already.
      if (this.projector.wasProjected(record)) {
        await keepMedia();
        return Object.assign({}, record, { provider: adapter.channel });
      }
      const { stored, existed } = await this.projector.storeMessageIfChanged(instanceId, Object.assign({}, record, { provider: adapter.channel }));
      // When the channel's own echo of the send was stored first, its chat is up to date already.
      if (!existed) await this.storage.chats.upsert(instanceId, { id: record.key.remoteJid, timestamp: Number(record.messageTimestamp) });
      await keepMedia();
      return { ...stored, status: record.status };
    }));
  }
}
