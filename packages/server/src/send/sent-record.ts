import type { ChannelName, MessageRecord, OutgoingContent } from '@parley/core';
import type { EventBus } from '../events/event-bus.js';

/**
 * The last stage of a send: publishes the record of the message the channel took (with its media, the
 * copy GET media serves, spec 4.4) for the store to write in the instance's event order
 * ({@link EventBus.publishSent}), and answers the record, with its `provider`, once it is durable. Rejects
 * with ServiceUnavailableError once the instance's events fail for storage: the record is stored with
 * them once storage is back.
 */
export async function storeSent(bus: EventBus, instanceId: string, channel: ChannelName, content: OutgoingContent, sent: MessageRecord): Promise<MessageRecord> {
  const record = Object.assign({}, sent, { provider: channel });
  const media = 'media' in content ? content.media : undefined;
  await bus.publishSent(instanceId, channel, media ? { record, media: { data: media.data, mimetype: media.mimetype, fileName: media.fileName } } : { record });
  return record;
}
