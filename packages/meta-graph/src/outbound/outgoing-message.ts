import { CapabilityNotSupportedError, ValidationError, type ActionButton, type MediaInput, type OutgoingContent, type OutgoingType, type PresenceStatus } from '@parley/core';
import type { MetaChannelProfile } from '../channel-profile.js';

/** Send types both Meta channels handle; everything else answers 422 before any I/O. */
export const META_SEND_TYPES: ReadonlySet<OutgoingType> = new Set<OutgoingType>([
  'text', 'image', 'audio', 'video', 'document', 'title', 'button_reply', 'button_action', 'reaction',
]);

/** The members of {@link OutgoingContent} a Meta channel sends. */
export type MetaOutgoingContent = Extract<OutgoingContent, { type: 'text' | 'image' | 'audio' | 'video' | 'document' | 'title' | 'button_reply' | 'button_action' | 'reaction' }>;

/** True when `content` is one of {@link META_SEND_TYPES}. */
export function isMetaSendable(content: OutgoingContent): content is MetaOutgoingContent {
  return META_SEND_TYPES.has(content.type);
}

/** Meta's attachment types. */
export type AttachmentKind = 'image' | 'audio' | 'video' | 'file';

/** The media contents and their attachment kind. */
export type MediaContent = Extract<MetaOutgoingContent, { media: MediaInput }>;

export const ATTACHMENT_KIND: Record<MediaContent['type'], AttachmentKind> = {
  image: 'image', audio: 'audio', video: 'video', document: 'file',
};

const MAX_QUICK_REPLIES = 13;
const MAX_TEMPLATE_BUTTONS = 3;
const HEARTS = new Set(['❤️', '❤', '♥️', '♥', 'love']);

/** Sender actions by presence: Meta shows typing and seen; it has no online or recording indicator. */
export const PRESENCE_ACTIONS: Record<PresenceStatus, 'typing_on' | 'typing_off' | 'mark_seen'> = {
  composing: 'typing_on', recording: 'typing_on', paused: 'typing_off', unavailable: 'typing_off', available: 'mark_seen',
};

/** Title, text and footer as one text: non-empty parts separated by a blank line. */
export function composeText(...parts: (string | undefined)[]): string {
  return parts.filter((part): part is string => typeof part === 'string' && part.trim() !== '').join('\n\n');
}

/** The Send API request of a message: `recipient`, `messaging_type` where required, `message`, `reply_to`. */
export function messageRequest(profile: MetaChannelProfile, to: string, message: Record<string, unknown>, replyTo?: string): Record<string, unknown> {
  return {
    recipient: { id: to },
    ...(profile.messagingType ? { messaging_type: profile.messagingType } : {}),
    message,
    ...(replyTo ? { reply_to: { mid: replyTo } } : {}),
  };
}

/** A sender-action request (typing, seen, react); Meta refuses `message` beside it. */
export function senderActionRequest(to: string, action: string, payload?: Record<string, unknown>): Record<string, unknown> {
  return { recipient: { id: to }, sender_action: action, ...(payload ? { payload } : {}) };
}

/** The `message` of a content without media. */
export function textualMessage(profile: MetaChannelProfile, content: Extract<MetaOutgoingContent, { type: 'text' | 'title' | 'button_reply' | 'button_action' }>): Record<string, unknown> {
  switch (content.type) {
    case 'text':
      return { text: content.text };
    case 'title':
      return { text: composeText(content.title, content.text, content.footer) };
    case 'button_reply':
      if (content.buttons.length > MAX_QUICK_REPLIES) {
        throw new ValidationError(`buttons holds at most ${MAX_QUICK_REPLIES} quick replies on ${profile.label}`, { field: 'buttons' });
      }
      return {
        text: composeText(content.header?.title, content.text, content.footer),
        quick_replies: content.buttons.map((button) => ({ content_type: 'text', title: button.text, payload: button.id })),
      };
    case 'button_action':
      if (content.buttons.length > MAX_TEMPLATE_BUTTONS) {
        throw new ValidationError(`buttons holds at most ${MAX_TEMPLATE_BUTTONS} buttons on ${profile.label}`, { field: 'buttons' });
      }
      return {
        attachment: {
          type: 'template',
          payload: {
            template_type: 'button',
            text: composeText(content.header?.title, content.text, content.footer),
            buttons: content.buttons.map((button) => templateButton(profile, button)),
          },
        },
      };
  }
}

/**
 * One button of the button template. Meta has URL and phone buttons (phone on Messenger only) and
 * no copy-code button: the others answer 422 rather than being dropped or changed.
 */
function templateButton(profile: MetaChannelProfile, button: ActionButton): Record<string, unknown> {
  if (button.type === 'cta_copy' || !profile.actionButtons.includes(button.type)) {
    const reason = button.type === 'cta_copy'
      ? `Meta's button template has no copy-code button; send the code as text`
      : `${profile.label} button templates carry only ${profile.actionButtons.join(', ')} buttons`;
    throw new CapabilityNotSupportedError(profile.channel, `${button.type} buttons`, reason);
  }
  if (button.type === 'cta_url') return { type: 'web_url', url: button.url, title: button.text };
  // Meta wants the number in international format with a leading `+`.
  return { type: 'phone_number', title: button.text, payload: `+${button.phone_number.replace(/\D/g, '')}` };
}

/** The `message` of an attachment sent by URL (Meta fetches it) or by a previously uploaded id. */
export function attachmentMessage(kind: AttachmentKind, ref: { url: string } | { attachmentId: string }): Record<string, unknown> {
  const payload = 'url' in ref ? { url: ref.url, is_reusable: true } : { attachment_id: ref.attachmentId };
  return { attachment: { type: kind, payload } };
}

/** The multipart form of the attachment upload API (`POST /me/message_attachments`). */
export function uploadForm(profile: MetaChannelProfile, kind: AttachmentKind, media: MediaInput, fileName: string): FormData {
  const form = new FormData();
  if (profile.uploadPlatform) form.append('platform', profile.uploadPlatform);
  form.append('message', JSON.stringify({ attachment: { type: kind, payload: { is_reusable: true } } }));
  form.append('filedata', new Blob([new Uint8Array(media.data)], { type: media.mimetype }), fileName);
  return form;
}

/**
 * The reaction request: an empty emoji removes the reaction. Channels that only know the heart
 * (`love`) refuse other emoji instead of silently sending a heart.
 */
export function reactionRequest(profile: MetaChannelProfile, to: string, messageId: string, emoji: string): Record<string, unknown> {
  if (emoji === '') return senderActionRequest(to, 'unreact', { message_id: messageId });
  if (profile.reactions === 'love') {
    if (!HEARTS.has(emoji)) {
      throw new ValidationError(`body.text: ${profile.label} reactions accept only ❤️ (love); send an empty text to remove a reaction`, { field: 'body.text' });
    }
    return senderActionRequest(to, 'react', { message_id: messageId, reaction: 'love' });
  }
  return senderActionRequest(to, 'react', { message_id: messageId, reaction: emoji });
}
