import type { ChannelName, DeliveryStatus } from '@parley/core';

/**
 * Everything that differs between the Instagram and the Messenger channel, declared as data. The
 * shared client, webhook routes, mapping and adapter read it; nothing branches on the channel name.
 */
export interface MetaChannelProfile {
  /** Wire channel and driver name. */
  readonly channel: ChannelName;
  /** Human name for messages (`Instagram`). */
  readonly label: string;
  /** `object` of the webhook body Meta posts for this channel (`instagram`, `page`). */
  readonly webhookObject: string;
  /** Which id the recipient of a send is called in messages (`Instagram-scoped user id`). */
  readonly userIdName: string;
  /** How `link` checks a token: `me` compares `/me`'s id with the account id; `account` reads the account node. */
  readonly linkCheck: 'me' | 'account';
  /** Fields read from the account node at link time. */
  readonly linkFields: string;
  /** Fields of the user profile lookup (`username` only exists on Instagram). */
  readonly profileFields: string;
  /** `messaging_type` sent with messages, where the channel requires it. */
  readonly messagingType?: 'RESPONSE';
  /** `platform` form field of the attachment upload API, where the channel requires it. */
  readonly uploadPlatform?: string;
  /** `emoji`: any emoji reacts; `love`: the channel only accepts the heart reaction. */
  readonly reactions: 'emoji' | 'love';
  /** Button types of `/button_action` the channel's button template can carry. */
  readonly actionButtons: readonly ('cta_url' | 'cta_call')[];
  /**
   * How the channel's webhooks report what happened to the account's sends: `readBy` `mid` names the
   * message read (Instagram), `watermark` covers everything sent up to a time (Messenger); `statuses`
   * are the receipts it sends at all, in the order they arrive.
   */
  readonly receipts: { readonly readBy: 'mid' | 'watermark'; readonly statuses: readonly DeliveryStatus[] };
  /** Attachment types its inbound webhooks carry (`document`: Messenger's `file`). */
  readonly inboundMedia: readonly ('image' | 'audio' | 'video' | 'document')[];
}
