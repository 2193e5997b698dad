import { ValidationError, type Mentions, type OutgoingContent, type SendRequest } from '@parley/core';
import { isAnimatedSticker, pinDurationFor, toJid } from '@parley/whatsapp-proto';
import {
  baileysLinkPreview, callLinkText, contactCards, eventLocation, inviteExpiration, linkText, locationFields, messageKey, outgoingMessage,
} from '@parley/whatsapp-proto';
import {
  CALL_AUDIO_PREFIX, CALL_VIDEO_PREFIX, proto, type AnyMessageContent, type BinaryNode, type WAMessageKey, type WASendableProduct,
} from '@whiskeysockets/baileys';
import { nativeFlowNodes } from './outbound-interactive.js';

/**
 * How one send reaches WhatsApp: Baileys' `sendMessage` for the content it knows how to build, or a
 * proto message handed to `relayMessage` for what it has no builder for (interactive flows, live
 * location) or would fetch a URL for (group invites: Baileys fetches the group picture itself).
 */
export type OutboundPlan =
  | { via: 'send'; jid: string; content: AnyMessageContent }
  | { via: 'relay'; jid: string; message: proto.IMessage; additionalNodes?: BinaryNode[] };

/** A product card as Baileys' `{ product, businessOwnerJid }` content takes it (image as bytes). */
export interface ProductCardContent {
  product: WASendableProduct;
  businessOwnerJid: string;
}

/** What building a plan needs from the outside (loaded by the messaging capability before mapping). */
export interface OutboundEnv {
  /** Unix ms now (group-invite expiry). */
  now(): number;
  /** The card of a `product` send, built from the owner's catalog. */
  product?: ProductCardContent;
  /** The group's picture (JPEG bytes) for a `group-invite` card, when it has one. */
  inviteThumbnail?: Buffer;
}

/** A WhatsApp call link for a token from `createCallLink`. */
export function callLink(type: 'audio' | 'video', token: string): string {
  return `${type === 'video' ? CALL_VIDEO_PREFIX : CALL_AUDIO_PREFIX}${token}`;
}

const protoKey = messageKey as (key: Parameters<typeof messageKey>[0]) => WAMessageKey;

function withCaption<T extends object>(content: T, caption: string | undefined): T & { caption?: string } {
  return caption ? { ...content, caption } : content;
}

/** Baileys' `mentions` and `mentionAll` of a text or caption (contextInfo `mentionedJid`, `nonJidMentions`). */
function mentioning(content: Mentions): { mentions?: string[]; mentionAll?: boolean } {
  return { ...(content.mentions?.length ? { mentions: content.mentions } : {}), ...(content.mentionAll ? { mentionAll: true } : {}) };
}

/** The chat a send goes to: a reaction's, pin's or unpin's is its target message's, any other's `to`. */
export function sendChat(request: Pick<SendRequest, 'to' | 'content'>): string {
  const { content } = request;
  return content.type === 'reaction' || content.type === 'pin' || content.type === 'unpin' ? content.target.remoteJid : toJid(request.to);
}

/** Maps one send request onto Baileys message content. */
export function outboundPlan(request: SendRequest, env: OutboundEnv): OutboundPlan {
  const content: OutgoingContent = request.content;
  const jid = sendChat(request);
  switch (content.type) {
    case 'reaction':
      return { via: 'send', jid, content: { react: { text: content.emoji, key: protoKey(content.target) } } };
    case 'pin':
      return { via: 'send', jid, content: { pin: protoKey(content.target), type: proto.PinInChat.Type.PIN_FOR_ALL, time: pinDurationFor(content.duration) } };
    case 'unpin':
      return { via: 'send', jid, content: { pin: protoKey(content.target), type: proto.PinInChat.Type.UNPIN_FOR_ALL } };
    default:
      return planFor(jid, content, env);
  }
}

function planFor(jid: string, content: Exclude<OutgoingContent, { type: 'reaction' | 'pin' | 'unpin' }>, env: OutboundEnv): OutboundPlan {
  const send = (c: AnyMessageContent): OutboundPlan => ({ via: 'send', jid, content: c });
  const relay = (message: proto.IMessage, additionalNodes?: BinaryNode[]): OutboundPlan => ({
    via: 'relay', jid, message, ...(additionalNodes ? { additionalNodes } : {}),
  });
  switch (content.type) {
    case 'text':
      // Never let Baileys fetch URLs found in user text: the server builds previews (guarded fetch) and passes them in.
      return send({ text: content.text, linkPreview: content.preview ? baileysLinkPreview(content.preview) : null, ...mentioning(content) });
    case 'image':
      return send({ ...withCaption({ image: content.media.data, mimetype: content.media.mimetype }, content.caption), ...mentioning(content) });
    case 'audio':
      return send({ audio: content.media.data, mimetype: content.media.mimetype, ptt: content.ptt === true });
    case 'video':
      return send({ ...withCaption({ video: content.media.data, mimetype: content.media.mimetype }, content.caption), ...mentioning(content) });
    case 'document':
      return send({ ...withCaption({ document: content.media.data, mimetype: content.mimetype, fileName: content.fileName }, content.caption), ...mentioning(content) });
    case 'sticker':
      return send({ sticker: content.media.data, mimetype: content.media.mimetype, isAnimated: isAnimatedSticker(content.media) });
    case 'video-note':
      return send({ video: content.media.data, mimetype: content.media.mimetype, ptv: true });
    case 'contact':
      return send({ contacts: { displayName: content.contact.fullName, contacts: contactCards([content.contact]) } });
    case 'contacts':
      return send({ contacts: { displayName: content.displayName, contacts: contactCards(content.contacts) } });
    case 'location':
      return send({ location: locationFields(content) });
    case 'live-location':
      // Baileys has no builder for it: the shared mapping's message, as the sandbox sends it.
      return relay(proto.Message.fromObject(outgoingMessage(content, env.now())));
    case 'link': {
      return send({
        text: linkText(content),
        linkPreview: {
          'canonical-url': content.sourceUrl,
          'matched-text': content.sourceUrl,
          title: content.title,
          ...(content.description ? { description: content.description } : {}),
          ...(content.thumbnail ? { jpegThumbnail: content.thumbnail.data } : {}),
          ...(content.thumbnailUrl ? { originalThumbnailUrl: content.thumbnailUrl } : {}),
        },
      });
    }
    case 'title':
    case 'button_reply':
    case 'button_action':
    case 'pix': {
      // Native-flow messages: Baileys has no builder for them; the shared mapping's, relayed with the nodes live clients send.
      const message = proto.Message.fromObject(outgoingMessage(content, env.now()));
      return relay(message, nativeFlowNodes(message, jid, env.now()));
    }
    case 'survey':
      // A survey lets each person pick one option; `poll` takes the count from the caller.
      return send({ poll: { name: content.name, values: content.options, selectableCount: 1 } });
    case 'poll':
      return send({ poll: { name: content.name, values: content.values, selectableCount: content.selectableCount } });
    case 'event':
      return send({
        event: {
          name: content.name, ...(content.description ? { description: content.description } : {}), startDate: new Date(content.startTime * 1000),
          ...eventLocation(content),
        },
      });
    case 'call-link':
      if (!content.link) throw new ValidationError('call-link needs a link created with createCallLink');
      return send({ text: callLinkText(content), linkPreview: null });
    case 'product':
      // ProductMessage has no field for a catalog id (WAProto.proto: product, businessOwnerJid, catalog,
      // body, footer, contextInfo); the product id and its owner name the catalog entry.
      if (!env.product) throw new Error('the product card must be loaded before the send is mapped');
      return send({ product: env.product.product, businessOwnerJid: env.product.businessOwnerJid });
    case 'group-invite':
      // The same message Baileys' `groupInvite` content builds, with the group picture fetched by us.
      return relay({
        groupInviteMessage: {
          inviteCode: content.inviteCode, inviteExpiration: inviteExpiration(env.now()), caption: content.caption ?? '',
          groupJid: content.groupJid, groupName: content.groupName, ...(env.inviteThumbnail ? { jpegThumbnail: env.inviteThumbnail } : {}),
        },
      });
    case 'request-phone':
      return send({ requestPhoneNumber: true });
  }
}
