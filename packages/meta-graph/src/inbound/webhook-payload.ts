/**
 * Shapes of the Messenger Platform / Instagram Messaging webhook bodies this package reads (Meta's
 * documented `entry[].messaging[]` events). Everything is optional: bodies are parsed defensively.
 */

/** `POST /webhook` body. */
export interface WebhookBody {
  object?: string;
  entry?: WebhookEntry[];
}

/** One account's batch of events; `id` is the Instagram account id or the Page id. */
export interface WebhookEntry {
  id?: string;
  /** Unix milliseconds. */
  time?: number;
  messaging?: MessagingEvent[];
  /**
   * Events of conversations another app owns under Meta's handover protocol, sent to this app as a
   * secondary receiver: the same shapes as `messaging`.
   */
  standby?: MessagingEvent[];
}

/** One messaging event: exactly one of the members below `timestamp` is set. */
export interface MessagingEvent {
  sender?: { id?: string };
  recipient?: { id?: string };
  /** Unix milliseconds (absent on Messenger deliveries). */
  timestamp?: number;
  message?: WebhookMessage;
  /** Instagram `messaging_seen` carries `mid`; Messenger `message_reads` carries `watermark`. */
  read?: { mid?: string; watermark?: number };
  /** Messenger `message_deliveries`. */
  delivery?: { mids?: string[]; watermark?: number };
  /** `message_reactions`. */
  reaction?: { mid?: string; action?: string; reaction?: string; emoji?: string };
  /** `messaging_postbacks`; `referral` when the user tapped Get Started on an ad or link. */
  postback?: { mid?: string; title?: string; payload?: string; referral?: MetaReferral };
  /** `messaging_referrals`: the user opened an existing conversation through an ad or link, without writing yet. */
  referral?: MetaReferral;
  /** `message_edits` (Messenger) / `message_edit` (Instagram): the new text of a message the user edited. */
  message_edit?: { mid?: string; text?: string; num_edit?: number | string };
}

/** A message (also echoes of the account's own messages, with `is_echo`). */
export interface WebhookMessage {
  mid?: string;
  text?: string;
  is_echo?: boolean;
  is_deleted?: boolean;
  /** Instagram: the message type (GIFs, some stickers) is not available through the API. */
  is_unsupported?: boolean;
  attachments?: WebhookAttachment[];
  /** A reply to a message (`mid`) or, on Instagram, to a story (`story`). */
  reply_to?: { mid?: string; story?: { url?: string; id?: string } };
  quick_reply?: { payload?: string };
  /** Set on the first message a user writes from an ad (Click to Messenger / Instagram Direct ads). */
  referral?: MetaReferral;
}

/** Meta's `referral` object (Messenger Platform "messaging_referrals", Instagram Messaging "referral"). */
export interface MetaReferral {
  /** `ADS`, `SHORTLINK`, `CUSTOMER_CHAT_PLUGIN`, … */
  source?: string;
  /** `OPEN_THREAD`. */
  type?: string;
  /** The `ref` parameter of the link or ad. */
  ref?: string;
  ad_id?: string;
  /** The page the chat plugin runs on. */
  referer_uri?: string;
  ads_context_data?: { ad_title?: string; photo_url?: string; video_url?: string; post_id?: string; product_id?: string };
}

/** `image`, `video`, `audio`, `file`, `ig_reel`, `reel`, `story_mention`, `share`, `ig_post`, `location`, `fallback`, … */
export interface WebhookAttachment {
  type?: string;
  payload?: {
    url?: string;
    title?: string;
    reel_video_id?: string;
    /** Instagram post shares (`share`, and `ig_post` since November 2025): the shared post's media id. */
    ig_post_media_id?: string;
    sticker_id?: number;
    coordinates?: { lat?: number; long?: number };
  } | null;
}

/** Parses a raw body; answers null when it is not a JSON object with an `entry` array. */
export function parseWebhookBody(rawBody: Buffer): WebhookBody | null {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return null;
  }
  if (!body || typeof body !== 'object' || !Array.isArray((body as WebhookBody).entry)) return null;
  return body as WebhookBody;
}
