import type { ChannelName, DeliveryStatus, HealthStatus, PresenceStatus } from '@parley/core';

/** `entry[].changes[].field` values (spec 6.2). */
export type MetaField = 'messages' | 'presence' | 'connection' | 'qrcode' | 'call' | 'groups' | 'health';

/** `value.metadata`: `display_phone_number` only on the main channel. */
export interface MetaMetadata {
  display_phone_number?: string;
  /** The public instance id (equals the envelope's `instance`). */
  phone_number_id: string;
}

/** An `errors[]` item (spec 7). */
export interface MetaError {
  code: number;
  title: string;
  message: string;
  error_data: { details: string };
}

/** A `value.contacts[]` item: the sender of an inbound message. */
export interface MetaContact {
  profile: { name: string; username?: string; picture?: string };
  /** Phone number on the main channel, empty on social channels. */
  wa_id: string;
  user_id?: string;
}

/** A media member (`image`, `audio`, `video`, `document`, `sticker`). */
export interface MetaMedia {
  id: string;
  url: string;
  mime_type: string;
  sha256: string;
  caption?: string;
  voice?: boolean;
  animated?: boolean;
  filename?: string;
}

/** The `type` of a message plus its one typed member (or `errors` for `unsupported`). */
export interface MetaContent {
  type: string;
  text?: { body: string };
  image?: MetaMedia;
  audio?: MetaMedia;
  video?: MetaMedia;
  document?: MetaMedia;
  sticker?: MetaMedia;
  location?: { latitude: number; longitude: number; name?: string; address?: string };
  contacts?: { name: { formatted_name: string }; vcard: string }[];
  reaction?: { message_id: string; emoji?: string };
  button?: { text: string; payload: string };
  interactive?:
    | { type: 'list_reply'; list_reply: { id: string; title: string; description?: string } }
    | { type: 'button_reply'; button_reply: { id: string; title: string } }
    | { type: 'poll_reply'; poll_reply: { options: { id: string; title?: string }[] } }
    | { type: 'event_reply'; event_reply: { response: 'going' | 'not_going' | 'maybe'; extra_guests?: number } };
  errors?: MetaError[];
}

/** A `value.messages[]` item. */
export interface MetaMessage extends MetaContent {
  from: string;
  id: string;
  /** Unix seconds as text. */
  timestamp: string;
  /** Main channel only. */
  chat_type?: 'individual' | 'group';
  group_id?: string;
  from_me: boolean;
  from_user_id?: string;
  context?: { from?: string; id?: string; story?: { id?: string; url: string } };
  /** `ref` (Messenger and Instagram links and ads) goes beside the spec's members. */
  referral?: Partial<Record<'source_url' | 'source_id' | 'source_type' | 'headline' | 'body' | 'media_type' | 'thumbnail_url' | 'ctwa_clid' | 'ref', string>>;
  edit?: { original_message_id: string; message: MetaContent };
}

/** A `value.statuses[]` item. */
export interface MetaStatus {
  /** Absent when the channel does not name the message (Messenger read receipts). */
  id?: string;
  status: DeliveryStatus;
  timestamp: string;
  recipient_id: string;
  recipient_type?: 'group';
  recipient_participant_id?: string;
  /** Main channel only, always null (no conversation-based pricing). */
  conversation?: null;
  pricing?: null;
  errors?: MetaError[];
}

/** `entry[].changes[].value`: the channel and metadata, plus the members of its field. */
export interface MetaValue {
  messaging_product: ChannelName;
  metadata: MetaMetadata;
  contacts?: MetaContact[];
  messages?: MetaMessage[];
  statuses?: MetaStatus[];
  presence?: { wa_id: string; status: PresenceStatus };
  connection?: { status: 'open' | 'close'; code: number; reason?: string };
  qrcode?: { code: string };
  calls?: { id: string; from: string; status: string; from_jid: string; is_video: boolean; is_group: boolean; timestamp: string }[];
  groups?:
    | { event: 'participants_updated'; id: string; action: string; participants: string[] }
    | { event: 'update'; data: Record<string, unknown>[] };
  health?: { status: HealthStatus; previous: HealthStatus; reason: string; should_pause: boolean; should_rotate: boolean };
}

/** The meta-format body (spec 6.2). */
export interface MetaWebhookPayload {
  /** The service tag. */
  object: string;
  provider: ChannelName;
  /** Public instance id. */
  instance: string;
  /** True on the official social channels, false on the main channel's unofficial connection. */
  official: boolean;
  entry: { id: string; changes: { field: MetaField; value: MetaValue }[] }[];
}
