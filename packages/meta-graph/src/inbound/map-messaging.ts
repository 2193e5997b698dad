import type { ChannelEventPayload, ChannelName, InboundMedia, InboundMessage, MessageStatus, Referral } from '@parley/core';
import { inboundRecordContent, type MetaInboundContent } from './inbound-record.js';
import { fileNameOf, mimeTypeOf, type MetaMediaKind } from './media-info.js';
import { referralOf } from './referral.js';
import type { WatermarkReceipt } from './watermark.js';
import type { MessagingEvent, WebhookAttachment, WebhookEntry, WebhookMessage } from './webhook-payload.js';

/** One normalized payload and the key that identifies a redelivery of it (statuses have none: they are idempotent). */
export interface MappedEvent {
  payload: ChannelEventPayload;
  dedupKey?: string;
  /** Set on Messenger receipts that name no message: the stored messages they cover get statuses too. */
  watermark?: WatermarkReceipt;
}

/** A referral that came without a message: the adapter keeps it for the user's next message. */
export interface MappedReferral {
  pendingReferral: { userId: string; referral: Referral };
}

/** What one webhook event becomes. */
export type Mapped = MappedEvent | MappedReferral;

/** Received messages are stored as delivered; echoes of the account's own messages as sent. */
const RECEIVED_STATUS: MessageStatus = 'DELIVERY_ACK';
const ECHO_STATUS: MessageStatus = 'SERVER_ACK';

/**
 * Maps one webhook entry onto normalized payloads, in order: its `messaging` events, then its
 * `standby` ones (conversations another app owns under the handover protocol are still the
 * account's conversations, so their messages are stored and delivered alike). Events this package
 * does not handle (handover control, opt-ins, comment changes) and malformed events are left out.
 *
 * @param receivedAtMs - stands in for a missing event timestamp.
 */
export function mapEntry(entry: WebhookEntry, channel: ChannelName, receivedAtMs: number): Mapped[] {
  const events = [...(Array.isArray(entry.messaging) ? entry.messaging : []), ...(Array.isArray(entry.standby) ? entry.standby : [])];
  return events.flatMap((event) => (event && typeof event === 'object' ? mapEvent(event, channel, entry.time ?? receivedAtMs) : []));
}

function mapEvent(event: MessagingEvent, channel: ChannelName, fallbackMs: number): Mapped[] {
  const sender = idOf(event.sender);
  const recipient = idOf(event.recipient);
  if (!sender || !recipient) return [];
  if (event.message) return mapMessage(event.message, sender, recipient, seconds(event.timestamp ?? fallbackMs), channel);
  if (event.reaction) return mapReaction(event, sender, channel, event.timestamp ?? fallbackMs);
  if (event.postback) return mapPostback(event, sender, channel, event.timestamp ?? fallbackMs);
  if (event.referral) {
    const referral = referralOf(event.referral);
    return referral ? [{ pendingReferral: { userId: sender, referral } }] : [];
  }
  if (event.message_edit) return mapEdit(event, sender, channel, event.timestamp ?? fallbackMs);
  if (event.read) {
    const timestamp = seconds(event.timestamp ?? event.read.watermark ?? fallbackMs);
    // Instagram names the read message; Messenger gives only a watermark, so the id is empty.
    if (typeof event.read.mid === 'string' && event.read.mid !== '') return [status(event.read.mid, sender, 'read', timestamp)];
    return [watermarked('read', sender, timestamp, event.read.watermark)];
  }
  if (event.delivery) {
    const timestamp = seconds(event.timestamp ?? event.delivery.watermark ?? fallbackMs);
    const mids = (event.delivery.mids ?? []).filter((mid): mid is string => typeof mid === 'string' && mid !== '');
    if (mids.length > 0) return mids.map((mid) => status(mid, sender, 'delivered', timestamp));
    return [watermarked('delivered', sender, timestamp, event.delivery.watermark)];
  }
  return [];
}

/** A Messenger receipt naming no message (`messageId: ''`), with its watermark when Meta sent one. */
function watermarked(value: 'read' | 'delivered', user: string, timestamp: number, watermarkMs: number | undefined): MappedEvent {
  const mapped = status('', user, value, timestamp);
  return typeof watermarkMs === 'number' ? { ...mapped, watermark: { status: value, chatJid: user, watermarkMs, timestamp } } : mapped;
}

function status(messageId: string, user: string, value: 'read' | 'delivered', timestamp: number): MappedEvent {
  return { payload: { type: 'message.status', messageId, chatJid: user, recipientId: user, status: value, timestamp } };
}

function mapMessage(message: WebhookMessage, sender: string, recipient: string, timestamp: number, channel: ChannelName): MappedEvent[] {
  const mid = typeof message.mid === 'string' && message.mid !== '' ? message.mid : undefined;
  if (!mid) return [];
  const fromMe = message.is_echo === true;
  // An echo is sent by the account to the user: the chat is the user's either way.
  const user = fromMe ? recipient : sender;
  if (message.is_deleted === true) {
    return [{ payload: { type: 'message.delete', chatJid: user, messageIds: [mid] }, dedupKey: `${mid}:deleted` }];
  }
  const context = contextOf(message.reply_to);
  // Only the first content of a message from an ad carries the ad.
  const referral = fromMe ? undefined : referralOf(message.referral);
  return contentsOf(message).map((draft, index) => {
    const id = index === 0 ? mid : `${mid}_${index}`;
    const content = withMediaId(draft, id);
    const inbound: InboundMessage = {
      id, chatJid: user, from: sender, fromUserId: sender, fromMe, timestamp, chatType: 'individual', content,
      ...(context ? { context } : {}),
      ...(referral && index === 0 ? { referral } : {}),
      record: {
        key: { remoteJid: user, fromMe, id },
        message: inboundRecordContent(content, user, context),
        messageTimestamp: String(timestamp),
        status: fromMe ? ECHO_STATUS : RECEIVED_STATUS,
        provider: channel,
      },
    };
    return { payload: { type: 'message', message: inbound }, dedupKey: id };
  });
}

function mapReaction(event: MessagingEvent, sender: string, channel: ChannelName, timestampMs: number): MappedEvent[] {
  const reaction = event.reaction!;
  if (typeof reaction.mid !== 'string' || reaction.mid === '') return [];
  const removed = reaction.action === 'unreact';
  const emoji = removed ? undefined : (reaction.emoji ?? reaction.reaction);
  // A reaction has no id of its own: this one is stable across redeliveries.
  const id = `${reaction.mid}-reaction-${timestampMs}`;
  return [received(id, sender, seconds(timestampMs), { type: 'reaction', messageId: reaction.mid, ...(emoji ? { emoji } : {}) }, channel)];
}

function mapPostback(event: MessagingEvent, sender: string, channel: ChannelName, timestampMs: number): MappedEvent[] {
  const postback = event.postback!;
  const id = typeof postback.mid === 'string' && postback.mid !== '' ? postback.mid : `${sender}-postback-${timestampMs}`;
  const content: MetaInboundContent = { type: 'button', text: postback.title ?? '', payload: postback.payload ?? '' };
  const mapped = received(id, sender, seconds(timestampMs), content, channel);
  const referral = referralOf(postback.referral);
  if (referral && mapped.payload.type === 'message') mapped.payload.message.referral = referral;
  return [mapped];
}

/**
 * An edit carries the new text of message `mid`: it becomes a text message with
 * `edit.originalMessageId` whose record keeps the original id, so the stored message shows the new
 * text (as WhatsApp edits do). Its own id, `<mid>-edit-<n>`, tells redeliveries from later edits.
 */
function mapEdit(event: MessagingEvent, sender: string, channel: ChannelName, timestampMs: number): MappedEvent[] {
  const edit = event.message_edit!;
  if (typeof edit.mid !== 'string' || edit.mid === '' || typeof edit.text !== 'string') return [];
  const id = `${edit.mid}-edit-${String(edit.num_edit ?? timestampMs)}`;
  return [received(id, sender, seconds(timestampMs), { type: 'text', body: edit.text }, channel, edit.mid)];
}

/** A message the user sent; `editedId` makes it an edit of that message (its record keeps that id). */
function received(id: string, sender: string, timestamp: number, content: MetaInboundContent, channel: ChannelName, editedId?: string): MappedEvent {
  const message: InboundMessage = {
    id, chatJid: sender, from: sender, fromUserId: sender, fromMe: false, timestamp, chatType: 'individual', content,
    ...(editedId ? { edit: { originalMessageId: editedId } } : {}),
    record: {
      key: { remoteJid: sender, fromMe: false, id: editedId ?? id },
      message: inboundRecordContent(content, sender),
      messageTimestamp: String(timestamp),
      status: RECEIVED_STATUS,
      provider: channel,
    },
  };
  return { payload: { type: 'message', message }, dedupKey: id };
}

function contextOf(replyTo: WebhookMessage['reply_to']): InboundMessage['context'] | undefined {
  if (!replyTo || typeof replyTo !== 'object') return undefined;
  const story = replyTo.story;
  if (story && typeof story.url === 'string') {
    return { story: { url: story.url, ...(typeof story.id === 'string' ? { id: story.id } : {}) } };
  }
  if (typeof replyTo.mid === 'string' && replyTo.mid !== '') return { id: replyTo.mid };
  return undefined;
}

/**
 * The contents of one message: one per attachment, the text becoming the caption of a sole
 * captionable attachment or its own leading text content. Media ids are filled in afterwards.
 */
function contentsOf(message: WebhookMessage): MetaInboundContent[] {
  if (message.is_unsupported === true) return [{ type: 'unsupported', typeName: 'unsupported' }];
  const text = typeof message.text === 'string' && message.text !== '' ? message.text : undefined;
  const attachments = withoutDuplicateShares(Array.isArray(message.attachments) ? message.attachments : []);
  const items = attachments.map(attachmentContent);
  if (text !== undefined) {
    const first = items[0];
    if (items.length === 1 && first && (first.type === 'image' || first.type === 'video' || first.type === 'document') && !first.media.caption) {
      first.media.caption = text;
    } else if (items.length === 0 && typeof message.quick_reply?.payload === 'string') {
      items.push({ type: 'button_reply', id: message.quick_reply.payload, title: text });
    } else {
      items.unshift({ type: 'text', body: text });
    }
  }
  return items.length > 0 ? items : [{ type: 'unsupported', typeName: 'unknown' }];
}

function attachmentContent(attachment: WebhookAttachment): MetaInboundContent {
  const type = typeof attachment?.type === 'string' ? attachment.type : 'unknown';
  const payload = attachment?.payload ?? {};
  const url = typeof payload.url === 'string' && payload.url !== '' ? payload.url : undefined;
  if (type === 'location' && typeof payload.coordinates?.lat === 'number' && typeof payload.coordinates.long === 'number') {
    return {
      type: 'location', latitude: payload.coordinates.lat, longitude: payload.coordinates.long,
      ...(typeof payload.title === 'string' ? { name: payload.title } : {}),
    };
  }
  if (!url) return { type: 'unsupported', typeName: type };
  switch (type) {
    case 'image':
      // Messenger sends stickers (and the thumbs-up) as images carrying a sticker id.
      return payload.sticker_id !== undefined
        ? { type: 'sticker', media: media(url, 'image'), animated: false }
        : { type: 'image', media: media(url, 'image') };
    case 'video':
      return { type: 'video', media: media(url, 'video') };
    case 'audio':
      // Both apps only send recorded voice clips, never audio files.
      return { type: 'audio', media: media(url, 'audio'), voice: true };
    case 'file':
      return { type: 'document', media: media(url, 'file'), filename: fileNameOf(url) };
    case 'ig_reel':
    case 'reel': {
      // A shared reel is a video whose link is the reel; its title is the reel's caption.
      const reel = media(url, 'video', typeof payload.reel_video_id === 'string' ? payload.reel_video_id : '');
      if (typeof payload.title === 'string' && payload.title !== '') reel.caption = payload.title;
      return { type: 'video', media: reel };
    }
    case 'story_mention':
      return { type: 'image', media: media(url, 'image') };
    case 'share':
    case 'ig_post': {
      // A shared Instagram post: its CDN link is the post's (first) image, its title the post's caption.
      const post = media(url, 'image', typeof payload.ig_post_media_id === 'string' ? payload.ig_post_media_id : '');
      if (typeof payload.title === 'string' && payload.title !== '') post.caption = payload.title;
      return { type: 'image', media: post };
    }
    default:
      return { type: 'unsupported', typeName: type };
  }
}

/**
 * Since November 2025 Instagram sends a post share twice, as the old `share` attachment and as the
 * new `ig_post` one (Meta, "Instagram Post Shares: New Attachment Type and Transition Period"): the
 * `share` twin of an `ig_post` (same media id or link) is left out, so one share is one event.
 */
function withoutDuplicateShares(attachments: WebhookAttachment[]): WebhookAttachment[] {
  const posts = attachments.filter((attachment) => attachment?.type === 'ig_post');
  if (posts.length === 0) return attachments;
  const ids = new Set<unknown>(posts.map((post) => post.payload?.ig_post_media_id).filter((id) => typeof id === 'string'));
  const urls = new Set<unknown>(posts.map((post) => post.payload?.url).filter((url) => typeof url === 'string'));
  return attachments.filter((attachment) => attachment?.type !== 'share'
    || !(ids.has(attachment.payload?.ig_post_media_id) || urls.has(attachment.payload?.url)));
}

function media(url: string, kind: MetaMediaKind, id = ''): InboundMedia {
  return { id, mimeType: mimeTypeOf(url, kind), sha256: '', link: url };
}

/** Gives media without an id of their own (everything but reels) the id of their message. */
function withMediaId(content: MetaInboundContent, id: string): MetaInboundContent {
  if ('media' in content && content.media.id === '') return { ...content, media: { ...content.media, id } } as MetaInboundContent;
  return content;
}

function idOf(party: { id?: unknown } | undefined): string | undefined {
  return party && typeof party.id === 'string' && party.id !== '' ? party.id : undefined;
}

/** Meta stamps events in Unix milliseconds; events carry seconds. */
function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}
