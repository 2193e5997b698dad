import {
  CapabilityNotSupportedError, NotFoundError, requireCapability, type ChannelName, type MessageRecord,
  type OutgoingContent, type Storage,
} from '@parley/core';
import type { EventBus } from '../events/event-bus.js';
import type { StoreProjector } from '../events/store-projector.js';
import { notConnected, type InstanceRuntime } from '../instances/instance-runtime.js';

/** Media carried by an outgoing content, if any. */
function mediaOf(content: OutgoingContent) {
  return 'media' in content ? content.media : undefined;
}

/**
 * The send path shared by spec 4.2, 4.3 and 4.13: picks the adapter for `provider`, refuses what the
 * channel cannot send (422) or while it is not connected (409), sends, and stores the record, its
 * chat and its media (served back by 4.4).
 */
export class MessagingService {
  constructor(
    private readonly storage: Storage,
    private readonly bus: EventBus,
    private readonly projector: StoreProjector,
  ) {}

  /** The stored message a reply, reaction or pin refers to (404 `message_not_found`). */
  async existing(runtime: InstanceRuntime, messageId: string): Promise<MessageRecord> {
    const record = await this.storage.messages.get(runtime.id, messageId);
    if (!record) throw new NotFoundError(`message ${messageId}`, 'message_not_found');
    return record;
  }

  /** Throws unless the adapter for `provider` can send `type` right now. */
  ensureCanSend(runtime: InstanceRuntime, type: OutgoingContent['type'], provider?: ChannelName): void {
    const adapter = runtime.adapter(provider);
    const messaging = requireCapability(adapter, 'messaging');
    if (!messaging.supports(type)) throw new CapabilityNotSupportedError(adapter.channel, `sending ${type} messages`);
    if (adapter === runtime.main && !runtime.isConnected()) {
      throw notConnected(runtime);
    }
  }

  async send(runtime: InstanceRuntime, to: string, content: OutgoingContent, options: { provider?: ChannelName; quoted?: MessageRecord } = {}): Promise<MessageRecord> {
    this.ensureCanSend(runtime, content.type, options.provider);
    const adapter = runtime.adapter(options.provider);
    const record = await adapter.capabilities.messaging!.send({ to, content, quoted: options.quoted });
    const media = mediaOf(content);
    // Stored in the instance's event order, so statuses emitted meanwhile apply after it.
    const keepMedia = async () => {
      if (media) await this.storage.media.put(runtime.id, record.key.id, { data: media.data, mimetype: media.mimetype, fileName: media.fileName });
    };
    return this.bus.run(runtime.id, async () => {
      // The channel's echo of this send (same record) is stored with its chat already.
      if (this.projector.wasProjected(record)) {
        await keepMedia();
        return Object.assign({}, record, { provider: adapter.channel });
      }
      const { stored, existed } = await this.projector.storeMessageIfChanged(runtime.id, Object.assign({}, record, { provider: adapter.channel }));
      // When the channel's own echo of the send was stored first, its chat is up to date already.
      if (!existed) await this.storage.chats.upsert(runtime.id, { id: record.key.remoteJid, timestamp: Number(record.messageTimestamp) });
      await keepMedia();
      return { ...stored, status: record.status };
    });
  }
}
