import type { ChannelEventPayload, ChannelName, InboundContent, InboundMedia, InboundMessage } from '@parley/core';

/** Inbound media as delivered: `url` is where to fetch it (the channel's public link, or the REST media endpoint). */
export type NativeMedia = InboundMedia & { url: string };

type WithMediaUrl<C> = C extends { media: InboundMedia } ? Omit<C, 'media'> & { media: NativeMedia } : C;

/** Message content as delivered: media members carry {@link NativeMedia}. */
export type NativeContent = WithMediaUrl<InboundContent>;

/** An inbound message as delivered: the normalized message without its storage record. */
export type NativeMessage = Omit<InboundMessage, 'record' | 'content'> & { content: NativeContent };

/** `data` of each event type: the event payload without `type` (messages carry {@link NativeMessage}). */
export type NativeData<T extends ChannelEventPayload['type'] = ChannelEventPayload['type']> = T extends 'message'
  ? { message: NativeMessage }
  : Omit<Extract<ChannelEventPayload, { type: T }>, 'type'>;

/**
 * The native webhook body: one envelope for every event kind, described by
 * `docs/webhooks/native.schema.json`.
 */
export interface NativeWebhookPayload<T extends ChannelEventPayload['type'] = ChannelEventPayload['type']> {
  /** Event id (ULID): unique, time-ordered, equal across formats and retries of the same event. */
  id: string;
  /** Event kind (`message`, `message.status`, `presence`, …). */
  type: T;
  /** Public instance id. */
  instance: string;
  provider: ChannelName;
  /** When the server received the event: ISO 8601 UTC with milliseconds. */
  timestamp: string;
  data: NativeData<T>;
}
