import {
  normalizeAddress, PayloadTooLargeError, ValidationError, type ChannelAddressing, type OutgoingContent, type OutgoingType,
} from '@parley/core';
import { groupJidOf } from '../schemas/group.schemas.js';
import { MESSAGE_LIMITS } from '../schemas/message.schemas.js';
import type { MediaKind } from '../services/media-resolver.js';
import type { Env } from './content-env.js';
import { actionButton, cardsOf, checkEmoji, checkHttpUrl, checkPhone, defined, unixSecondsOf } from './field-checks.js';
import type { MessageSuffix, SendBodies } from './send-bodies.js';
import { checkMentions, checkRichText, previewFor, resolveMentions } from './rich-text.js';
import { createCallLink } from './sending-channel.js';

/** How one path suffix's body becomes an {@link OutgoingContent}. */
export interface Mapping<S extends MessageSuffix> {
  type: OutgoingType;
  /** Checks beyond the schema, before any I/O (400 naming the field); `addressing` is the main channel's. */
  check?(body: SendBodies[S], addressing: ChannelAddressing): void;
  /** Id of the stored message the send acts on; its chat and channel decide where the send goes. */
  targetOf?(body: SendBodies[S]): string;
  /** Resolves media (the channel is checked already) and answers the recipient and the content. */
  build(env: Env, body: SendBodies[S]): Promise<{ to: string; content: OutgoingContent }>;
}

/** Audio in Ogg (Opus) goes as a voice note, as WhatsApp apps record them; other formats as audio files. */
const VOICE_NOTE_TYPES = new Set(['audio/ogg', 'application/ogg', 'audio/opus']);

function media(env: Env, value: string, field: string, kind: MediaKind, fileName?: string) {
  return env.media.resolve(value, field, kind, fileName, env.route);
}

function base64Media(env: Env, value: string, field: string, kind: MediaKind, fileName?: string) {
  return env.media.fromDataUri(value, field, kind, fileName);
}

/** An image or video by URL, with its caption and the caption's mentions. */
function captionedMedia<S extends 'image' | 'video'>(type: S): Mapping<S> {
  return {
    type,
    check: checkMentions,
    build: async (env, b) => ({
      to: b.to, content: defined({ type, ...(await resolveMentions(env, b)), media: await media(env, b.url, 'body.url', type), caption: b.caption }),
    }),
  };
}

/** One mapping per path suffix: the one place where REST bodies become OutgoingContent (sends and replies). */
export const MAPPINGS: { [S in MessageSuffix]: Mapping<S> } = {
  text: {
    type: 'text',
    check: checkRichText,
    build: async (env, b) => ({ to: b.to, content: { type: 'text', text: b.text, ...(await resolveMentions(env, b)), ...(await previewFor(env, b)) } }),
  },
  image: captionedMedia('image'),
  audio: {
    type: 'audio',
    build: async (env, b) => {
      const m = await media(env, b.url, 'body.url', 'audio');
      return { to: b.to, content: { type: 'audio', media: m, ptt: VOICE_NOTE_TYPES.has(m.mimetype) } };
    },
  },
  video: captionedMedia('video'),
  document: {
    type: 'document',
    build: async (env, b) => {
      // The caller's MIME type and name are what the recipient sees, whatever the server answered.
      const m = { ...(await media(env, b.url, 'body.url', 'document', b.fileName)), mimetype: b.mimetype, fileName: b.fileName };
      return { to: b.to, content: defined({ type: 'document', media: m, mimetype: b.mimetype, fileName: b.fileName, caption: b.caption }) };
    },
  },
  sticker: { type: 'sticker', build: async (env, b) => ({ to: b.to, content: { type: 'sticker', media: await media(env, b.url, 'body.url', 'sticker') } }) },
  'video-note': {
    type: 'video-note',
    build: async (env, b) => ({ to: b.to, content: { type: 'video-note', media: await media(env, b.url, 'body.url', 'video') } }),
  },
  'base64/image': {
    type: 'image',
    check: checkMentions,
    build: async (env, b) => ({
      to: b.to, content: defined({ type: 'image', ...(await resolveMentions(env, b)), media: base64Media(env, b.base64, 'body.base64', 'image'), caption: b.caption }),
    }),
  },
  'base64/audio': {
    type: 'audio',
    build: async (env, b) => {
      const m = base64Media(env, b.base64, 'body.base64', 'audio');
      return { to: b.to, content: { type: 'audio', media: m, ptt: VOICE_NOTE_TYPES.has(m.mimetype) } };
    },
  },
  'base64/document': {
    type: 'document',
    build: async (env, b) => {
      const m = { ...base64Media(env, b.base64, 'body.base64', 'document', b.fileName), mimetype: b.mimetype, fileName: b.fileName };
      return { to: b.to, content: defined({ type: 'document', media: m, mimetype: b.mimetype, fileName: b.fileName, caption: b.caption }) };
    },
  },
  contact: {
    type: 'contact',
    check: (b) => checkPhone(b.contact.phoneNumber, 'body.contact.phoneNumber'),
    build: async (_env, b) => ({ to: b.to, content: { type: 'contact', contact: cardsOf([b.contact], 'body.contact')[0]! } }),
  },
  contacts: {
    type: 'contacts',
    check: (b) => void cardsOf(b.contacts, 'body.contacts'),
    build: async (_env, b) => ({ to: b.to, content: { type: 'contacts', displayName: b.displayName, contacts: cardsOf(b.contacts, 'body.contacts') } }),
  },
  location: {
    type: 'location',
    build: async (_env, b) => ({
      to: b.to, content: defined({ type: 'location', latitude: b.location.latitude, longitude: b.location.longitude, address: b.location.address }),
    }),
  },
  'live-location': {
    type: 'live-location',
    build: async (_env, b) => ({ to: b.to, content: defined({ type: 'live-location', latitude: b.latitude, longitude: b.longitude, caption: b.caption }) }),
  },
  link: {
    type: 'link',
    check: (b) => {
      checkHttpUrl(b.sourceUrl, 'body.sourceUrl');
      if (b.thumbnailUrl) checkHttpUrl(b.thumbnailUrl, 'body.thumbnailUrl');
    },
    build: async (env, b) => {
      const thumbnail = b.thumbnailUrl ? await media(env, b.thumbnailUrl, 'body.thumbnailUrl', 'image') : undefined;
      if (thumbnail && thumbnail.data.length > MESSAGE_LIMITS.linkThumbnailBytes) {
        throw new PayloadTooLargeError(`body.thumbnailUrl is larger than ${MESSAGE_LIMITS.linkThumbnailBytes} bytes`, {
          field: 'body.thumbnailUrl', limit: MESSAGE_LIMITS.linkThumbnailBytes,
        });
      }
      return {
        to: b.to,
        content: defined({
          type: 'link', text: b.text, title: b.title, description: b.description, sourceUrl: b.sourceUrl, thumbnailUrl: b.thumbnailUrl, thumbnail,
        }),
      };
    },
  },
  reaction: {
    type: 'reaction',
    check: (b) => checkEmoji(b.text),
    targetOf: (b) => b.msgId,
    build: async ({ target }, b) => ({ to: target!.key.remoteJid, content: { type: 'reaction', emoji: b.text, target: target!.key } }),
  },
  title: { type: 'title', build: async (_env, b) => ({ to: b.to, content: defined({ type: 'title', title: b.title, text: b.text, footer: b.footer }) }) },
  button_reply: {
    type: 'button_reply',
    check: (b) => {
      const seen = new Set<string>();
      b.buttons.forEach((button, i) => {
        if (seen.has(button.id)) throw new ValidationError(`body.buttons[${i}].id repeats an earlier button id`);
        seen.add(button.id);
      });
    },
    build: async (_env, b) => ({
      to: b.to,
      content: defined({
        type: 'button_reply', header: b.header, text: b.text, footer: b.footer, buttons: b.buttons.map((x) => ({ id: x.id, text: x.text })),
      }),
    }),
  },
  button_action: {
    type: 'button_action',
    check: (b) => void b.buttons.map(actionButton),
    build: async (_env, b) => ({
      to: b.to, content: defined({ type: 'button_action', header: b.header, text: b.text, footer: b.footer, buttons: b.buttons.map(actionButton) }),
    }),
  },
  survey: { type: 'survey', build: async (_env, b) => ({ to: b.to, content: { type: 'survey', name: b.name, options: b.options } }) },
  poll: {
    type: 'poll',
    check: (b) => {
      if (b.selectableCount > b.values.length) throw new ValidationError(`body.selectableCount must be at most the number of values (${b.values.length})`);
    },
    build: async (_env, b) => ({ to: b.to, content: { type: 'poll', name: b.name, values: b.values, selectableCount: b.selectableCount } }),
  },
  pix: {
    type: 'pix',
    check: (b) => {
      const cents = b.items.reduce((sum, i) => sum + Math.round(i.price * 100) * i.quantity, 0);
      if (cents !== Math.round(b.subtotal * 100)) {
        throw new ValidationError(`body.subtotal must equal the sum of price × quantity of the items (${(cents / 100).toFixed(2)})`);
      }
    },
    build: async (_env, b) => ({
      to: b.to,
      content: {
        type: 'pix', title: b.title, text: b.text, referenceId: b.referenceId, code: b.code, key: b.key, merchantName: b.merchantName,
        keyType: b.keyType, items: b.items.map((i) => ({ id: i.id, name: i.name, price: i.price, quantity: i.quantity })), subtotal: b.subtotal,
        totalAmount: b.totalAmount,
      },
    }),
  },
  event: {
    type: 'event',
    check: (b) => void unixSecondsOf(b.startTime, 'body.startTime'),
    build: async (_env, b) => ({
      to: b.to,
      content: defined({
        type: 'event', name: b.name, description: b.description, startTime: unixSecondsOf(b.startTime, 'body.startTime'),
        locationName: b.locationName, locationAddress: b.locationAddress,
      }),
    }),
  },
  pin: {
    type: 'pin',
    targetOf: (b) => b.id,
    build: async ({ target }, b) => ({ to: target!.key.remoteJid, content: { type: 'pin', target: target!.key, duration: b.duration } }),
  },
  unpin: {
    type: 'unpin',
    targetOf: (b) => b.id,
    build: async ({ target }) => ({ to: target!.key.remoteJid, content: { type: 'unpin', target: target!.key } }),
  },
  'call-link': {
    type: 'call-link',
    build: async (env, b) => {
      // Created last, once everything else is valid: a link is a resource on the network.
      const link = await createCallLink(env.channel, b.type);
      return { to: b.to, content: defined({ type: 'call-link', callType: b.type, caption: b.caption, link }) };
    },
  },
  product: {
    type: 'product',
    check: (b, addressing) => void normalizeAddress(addressing, b.businessOwnerJid, 'body.businessOwnerJid'),
    build: async ({ addressing }, b) => ({
      to: b.to,
      content: { type: 'product', businessOwnerJid: normalizeAddress(addressing, b.businessOwnerJid, 'body.businessOwnerJid'), productId: b.productId, catalogId: b.catalogId },
    }),
  },
  'group-invite': {
    type: 'group-invite',
    check: (b, addressing) => void groupJidOf(addressing, b.groupJid, 'body.groupJid'),
    build: async ({ addressing }, b) => ({
      to: b.to, content: { type: 'group-invite', groupJid: groupJidOf(addressing, b.groupJid, 'body.groupJid'), groupName: b.groupName, inviteCode: b.inviteCode },
    }),
  },
  'request-phone': { type: 'request-phone', build: async (_env, b) => ({ to: b.to, content: { type: 'request-phone' } }) },
};

/** Every path suffix that sends a message. */
export const MESSAGE_SUFFIXES = Object.keys(MAPPINGS) as MessageSuffix[];
