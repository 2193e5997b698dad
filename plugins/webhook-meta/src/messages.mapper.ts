import type { ChannelEvent, ChannelEventOf, InboundContent, InboundMedia, InboundMessage, WebhookRenderContext } from '@parley/core';
import { errorList, isMainChannel } from './envelope.js';
import type { MetaContact, MetaContent, MetaMedia, MetaMessage, MetaValue } from './meta-payload.js';

/** Spec 7: an incoming type the service does not handle. */
const UNSUPPORTED_CODE = 131051;

function media(message: InboundMessage, source: InboundMedia, context: WebhookRenderContext): MetaMedia {
  return {
    id: source.id,
    url: source.link ?? context.mediaUrl(message.id),
    mime_type: source.mimeType,
    sha256: source.sha256,
    ...(source.caption === undefined ? {} : { caption: source.caption }),
  };
}

/** `type` and its typed member for one content (also the `message` of an edit). */
function content(message: InboundMessage, value: InboundContent, context: WebhookRenderContext): MetaContent {
  switch (value.type) {
    case 'text':
      return { type: 'text', text: { body: value.body } };
    case 'image':
      return { type: 'image', image: media(message, value.media, context) };
    case 'audio':
      return { type: 'audio', audio: { ...media(message, value.media, context), voice: value.voice } };
    case 'video':
      return { type: 'video', video: media(message, value.media, context) };
    case 'document':
      return { type: 'document', document: { ...media(message, value.media, context), filename: value.filename } };
    case 'sticker':
      return { type: 'sticker', sticker: { ...media(message, value.media, context), animated: value.animated } };
    case 'location':
      return {
        type: 'location',
        location: {
          latitude: value.latitude, longitude: value.longitude,
          ...(value.name === undefined ? {} : { name: value.name }), ...(value.address === undefined ? {} : { address: value.address }),
        },
      };
    case 'contacts':
      return { type: 'contacts', contacts: value.contacts.map((c) => ({ name: { formatted_name: c.formattedName }, vcard: c.vcard })) };
    case 'reaction':
      return { type: 'reaction', reaction: { message_id: value.messageId, ...(value.emoji === undefined ? {} : { emoji: value.emoji }) } };
    case 'button':
      return { type: 'button', button: { text: value.text, payload: value.payload } };
    case 'list_reply':
      return {
        type: 'interactive',
        interactive: {
          type: 'list_reply',
          list_reply: { id: value.id, title: value.title, ...(value.description === undefined ? {} : { description: value.description }) },
        },
      };
    case 'button_reply':
      return { type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: value.id, title: value.title } } };
    // Not in Meta's API: shaped as its interactive replies are, the poll or event answered is in `context`.
    case 'poll_vote':
      return {
        type: 'interactive',
        interactive: {
          type: 'poll_reply',
          poll_reply: { options: value.options.map((o) => ({ id: o.hash, ...(o.name === undefined ? {} : { title: o.name }) })) },
        },
      };
    case 'event_response':
      return {
        type: 'interactive',
        interactive: {
          type: 'event_reply',
          event_reply: { response: value.response, ...(value.extraGuests === undefined ? {} : { extra_guests: value.extraGuests }) },
        },
      };
    case 'unsupported':
      return {
        type: 'unsupported',
        errors: errorList({ code: UNSUPPORTED_CODE, title: 'Unsupported message type', message: 'Message type is not currently supported', details: value.typeName }),
      };
  }
}

/** Keeps only the members that are set. */
function defined(pairs: [string, string | undefined][]): Record<string, string> {
  return Object.fromEntries(pairs.filter((pair): pair is [string, string] => pair[1] !== undefined));
}

function contact(message: InboundMessage, main: boolean, provider: ChannelEvent['provider']): MetaContact {
  const name = message.pushName ?? '';
  if (main) return { profile: { name }, wa_id: message.from, ...(message.fromUserId === undefined ? {} : { user_id: message.fromUserId }) };
  return {
    profile: {
      name,
      ...(provider === 'instagram' && message.username !== undefined ? { username: message.username } : {}),
      ...(message.picture === undefined ? {} : { picture: message.picture }),
    },
    wa_id: '',
    user_id: message.fromUserId ?? message.from,
  };
}

function item(message: InboundMessage, main: boolean, context: WebhookRenderContext): MetaMessage {
  const { type, ...typed }: MetaContent & Pick<MetaMessage, 'edit'> = message.edit
    ? { type: 'edit', edit: { original_message_id: message.edit.originalMessageId, message: content(message, message.content, context) } }
    : content(message, message.content, context);
  const { referral } = message;
  return {
    from: message.from,
    id: message.id,
    timestamp: String(message.timestamp),
    type,
    ...(main ? { chat_type: message.chatType, ...(message.groupId === undefined ? {} : { group_id: message.groupId }) } : {}),
    from_me: message.fromMe,
    ...(message.fromUserId === undefined ? {} : { from_user_id: message.fromUserId }),
    ...(message.context === undefined ? {} : { context: { ...message.context } }),
    ...(referral === undefined ? {} : {
      referral: defined([
        ['source_url', referral.sourceUrl], ['source_id', referral.sourceId], ['source_type', referral.sourceType], ['headline', referral.headline],
        ['body', referral.body], ['media_type', referral.mediaType], ['thumbnail_url', referral.thumbnailUrl], ['ctwa_clid', referral.ctwaClid],
        ['ref', referral.ref],
      ]),
    }),
    ...typed,
  };
}

/**
 * `contacts` and `messages` of an inbound message (spec 6.3, field `messages`). An edit carries no
 * `contacts`: it changes a message whose sender was already announced.
 */
export function messageMembers(event: ChannelEventOf<'message'>, context: WebhookRenderContext): Pick<MetaValue, 'contacts' | 'messages'> {
  const main = isMainChannel(event, context);
  const { message } = event;
  return {
    ...(message.edit ? {} : { contacts: [contact(message, main, event.provider)] }),
    messages: [item(message, main, context)],
  };
}
