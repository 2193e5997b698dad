import type { ChannelContext, MediaBlob, MediaInput } from '@parley/core';
import type { MessagePacket, WireMedia } from '../sandbox-packets.js';

/**
 * Where a sandbox phone keeps the bytes of media it received: its own copy (as a phone keeps
 * downloaded media), apart from the copy the server stores under the message id when `save_media`
 * is on. `downloadMedia` reads it back.
 */
export function receivedMediaId(messageId: string): string {
  return `sandbox-received:${messageId}`;
}

/** Media as it travels in a packet. */
export function toWire(media: MediaInput): WireMedia {
  return { data: media.data.toString('base64'), mimetype: media.mimetype, sha256: media.sha256, ...(media.fileName ? { fileName: media.fileName } : {}) };
}

/** Keeps the media a packet carried, before the message is announced, so it can be fetched at once. */
export async function keepReceivedMedia(ctx: ChannelContext, packet: MessagePacket): Promise<void> {
  if (!packet.media) return;
  const blob: MediaBlob = {
    data: Buffer.from(packet.media.data, 'base64'), mimetype: packet.media.mimetype, ...(packet.media.fileName ? { fileName: packet.media.fileName } : {}),
  };
  await ctx.storage.media.put(ctx.instanceId, receivedMediaId(packet.id), blob);
}

/** The media a phone received with a message, or null when it received none. */
export function receivedMedia(ctx: ChannelContext, messageId: string): Promise<MediaBlob | null> {
  return ctx.storage.media.get(ctx.instanceId, receivedMediaId(messageId));
}
