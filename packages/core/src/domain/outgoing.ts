import type { ContactCard, PresenceStatus } from './resources.js';
import type { MessageKey, MessageRecord } from './message.js';

/**
 * Media handed to a channel: the server has already fetched the URL (size-limited, SSRF-guarded) or
 * decoded the base64 data URI, so adapters never touch user-supplied URLs themselves.
 */
export interface MediaInput {
  data: Buffer;
  mimetype: string;
  fileName?: string;
  /** The URL the caller gave, when the media came by URL. */
  sourceUrl?: string;
  /** Hex SHA-256 of `data`. */
  sha256: string;
}

/**
 * The preview of the link in a text, built by the server from the page (its Open Graph or HTML
 * metadata) fetched through the guarded fetcher. `thumbnail` is the page's image, fetched the same way.
 */
export interface LinkPreview {
  /** The link as it appears in the text (WhatsApp's `matchedText`). */
  url: string;
  title: string;
  description?: string;
  thumbnail?: MediaInput;
}

/**
 * Who a text or caption mentions: user JIDs, and whether it mentions everyone in its group (the
 * members are then listed in `mentions` as well).
 */
export interface Mentions {
  mentions?: string[];
  mentionAll?: boolean;
}

/** A quick-reply button (spec 4.2 `/button_reply`). */
export interface ReplyButton {
  id: string;
  text: string;
}

/** An action button (spec 4.2 `/button_action`). */
export type ActionButton =
  | { type: 'cta_url'; text: string; url: string }
  | { type: 'cta_call'; text: string; phone_number: string }
  | { type: 'cta_copy'; text: string; copy_code: string };

/** An item of a Pix payment request. */
export interface PixItem {
  id: string;
  name: string;
  price: number;
  quantity: number;
}

/**
 * Everything the send operations of spec 4.2 and the replies of 4.3 can send, normalized from the
 * REST bodies. {@link Mentions} are only sent to channels declaring `extras.mentions`. One member per path suffix; `type` is the suffix without the `/base64` prefix (base64
 * media arrive as the same media members).
 */
export type OutgoingContent =
  | ({ type: 'text'; text: string; preview?: LinkPreview } & Mentions)
  | ({ type: 'image'; media: MediaInput; caption?: string } & Mentions)
  | { type: 'audio'; media: MediaInput; ptt?: boolean }
  | ({ type: 'video'; media: MediaInput; caption?: string } & Mentions)
  | ({ type: 'document'; media: MediaInput; fileName: string; mimetype: string; caption?: string } & Mentions)
  | { type: 'sticker'; media: MediaInput }
  | { type: 'video-note'; media: MediaInput }
  | { type: 'contact'; contact: ContactCard }
  | { type: 'contacts'; displayName: string; contacts: ContactCard[] }
  | { type: 'location'; latitude: number; longitude: number; address?: string; name?: string }
  | { type: 'live-location'; latitude: number; longitude: number; caption?: string }
  | { type: 'link'; text: string; title: string; description?: string; sourceUrl: string; thumbnailUrl?: string; thumbnail?: MediaInput }
  | { type: 'reaction'; emoji: string; target: MessageKey }
  | { type: 'title'; title: string; text: string; footer?: string }
  | { type: 'button_reply'; header?: { title: string }; text: string; footer?: string; buttons: ReplyButton[] }
  | { type: 'button_action'; header?: { title: string }; text: string; footer?: string; buttons: ActionButton[] }
  | { type: 'survey'; name: string; options: string[] }
  | { type: 'poll'; name: string; values: string[]; selectableCount: number }
  | {
      type: 'pix'; title: string; text: string; referenceId: string; code: string; key: string; merchantName: string;
      keyType: string; items: PixItem[]; subtotal: number; totalAmount: number;
    }
  | { type: 'event'; name: string; description?: string; startTime: number; locationName?: string; locationAddress?: string }
  | { type: 'pin'; target: MessageKey; duration: number }
  | { type: 'unpin'; target: MessageKey }
  | { type: 'call-link'; callType: CallLinkType; caption?: string; link: string }
  | { type: 'product'; businessOwnerJid: string; productId: string; catalogId: string }
  | { type: 'group-invite'; groupJid: string; groupName: string; inviteCode: string; caption?: string }
  | { type: 'request-phone' };

/** Every send type name. */
export type OutgoingType = OutgoingContent['type'];

/** Call link kind. */
export type CallLinkType = 'audio' | 'video';

/** One send: recipient, content, and the quoted message for replies (spec 4.3). */
export interface SendRequest {
  /** Recipient as given by the caller: digits with country code, a JID, or a social channel user id. */
  to: string;
  content: OutgoingContent;
  /** The message replied to; it exists in this instance's storage. */
  quoted?: MessageRecord;
  /**
   * The id the outbound queue gave the message when it accepted it. Channels whose protocol lets the
   * sender choose the id (WhatsApp, the sandbox) send under it, so a send repeated after a crash
   * carries the same id and receivers see one message; the others answer the platform's own id.
   */
  id?: string;
}

/** A presence update to send (spec 4.2 `/presence`). */
export interface PresenceRequest {
  to: string;
  status: PresenceStatus;
}
