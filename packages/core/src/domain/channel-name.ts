/**
 * A wire channel: the `provider` of sends, stored messages and events. The set is open: the channels
 * of a server are those its channel plugins register (`whatsapp`, `instagram` and `messenger` ship
 * with Parley; a plugin may add any id matching {@link CHANNEL_ID_PATTERN}).
 */
export type ChannelName = 'whatsapp' | 'instagram' | 'messenger' | (string & {});

/**
 * Syntax of a channel id (wire channel or driver name): a lower-case letter, then up to 31 lower-case
 * letters, digits or dashes. Ids appear in URL paths (`/<driver>/webhook`) and JSON enums, so they
 * stay plain.
 */
export const CHANNEL_ID_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/** True when `value` is a syntactically valid channel id. */
export function isChannelId(value: unknown): value is ChannelName {
  return typeof value === 'string' && CHANNEL_ID_PATTERN.test(value);
}

/**
 * How a channel addresses the people it talks to. Declared by every driver of the channel (drivers of
 * one channel must declare the same); the server documents the `to` of sends from it (the adapter
 * validates it and answers 400 naming `body.to`) and the webhook engine applies `allowNumber` only to channels whose addresses are phone numbers.
 */
export interface ChannelAddressing {
  /** What `to` is on this channel, for the API reference (`Phone number with country code (digits), or a JID.`). */
  readonly description: string;
  /**
   * True when addresses are phone numbers (WhatsApp): the instance's `allowNumber` webhook filter
   * applies to this channel's events. False: its events are instance-level for that filter.
   */
  readonly phoneNumbers: boolean;
}

/**
 * WhatsApp's addressing, shared by every driver of the `whatsapp` channel (Baileys, the sandbox): a
 * phone number with country code or a JID, and `allowNumber` filters apply.
 */
export const WHATSAPP_ADDRESSING: ChannelAddressing = Object.freeze({
  description: 'Phone number with country code (digits), or a JID.',
  phoneNumbers: true,
});
