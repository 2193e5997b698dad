import { createHash } from 'node:crypto';
import type { CapabilityName, MediaInput, OutgoingContent, OutgoingType } from '@parley/core';

/** Every capability family of `ChannelCapabilities` (the compiler keeps the list complete). */
const CAPABILITY_SET: Record<CapabilityName, true> = {
  connection: true, mobile: true, profile: true, messaging: true, chats: true, calls: true, callReject: true, labels: true,
  contacts: true, groups: true, communities: true, catalog: true, status: true,
};
export const CAPABILITY_NAMES = Object.keys(CAPABILITY_SET) as CapabilityName[];

function media(bytes: Buffer, mimetype: string, sourceUrl: string): MediaInput {
  return { data: bytes, mimetype, sha256: createHash('sha256').update(bytes).digest('hex'), sourceUrl };
}

/** A still WebP header: what a sticker is. */
const WEBP = Buffer.concat([Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ', 'latin1'), Buffer.alloc(64)]);

/**
 * One valid content of every send type, as the server hands it to `send` after validation (media
 * fetched, with the URL it came from). Reactions, pins and unpins act on `target`, a message in the
 * peer's chat.
 */
export function exampleContent(type: OutgoingType, chatJid: string, text: string): OutgoingContent {
  const target = { remoteJid: chatJid, fromMe: false, id: 'CONFORMANCE0000000000TARGET' };
  const examples: { [T in OutgoingType]: Extract<OutgoingContent, { type: T }> } = {
    text: { type: 'text', text },
    image: { type: 'image', media: media(Buffer.from('png-bytes'), 'image/png', 'https://media.example/a.png'), caption: text },
    audio: { type: 'audio', media: media(Buffer.from('ogg-bytes'), 'audio/ogg', 'https://media.example/a.ogg'), ptt: true },
    video: { type: 'video', media: media(Buffer.from('mp4-bytes'), 'video/mp4', 'https://media.example/a.mp4'), caption: text },
    document: {
      type: 'document', media: media(Buffer.from('pdf-bytes'), 'application/pdf', 'https://media.example/a.pdf'), fileName: 'a.pdf', mimetype: 'application/pdf',
    },
    sticker: { type: 'sticker', media: media(WEBP, 'image/webp', 'https://media.example/a.webp') },
    'video-note': { type: 'video-note', media: media(Buffer.from('ptv-bytes'), 'video/mp4', 'https://media.example/n.mp4') },
    contact: { type: 'contact', contact: { fullName: 'Ana Souza', phoneNumber: '+55 11 98888-7777' } },
    contacts: { type: 'contacts', displayName: '2 contacts', contacts: [{ fullName: 'Ana', phoneNumber: '5511988887777' }, { fullName: 'Bo', phoneNumber: '5511977776666' }] },
    location: { type: 'location', latitude: -23.5505, longitude: -46.6333, name: 'Office', address: 'Av. Paulista, 1' },
    'live-location': { type: 'live-location', latitude: 38.7223, longitude: -9.1393, caption: text },
    link: { type: 'link', text: `${text} https://parley.example/`, title: 'Parley', sourceUrl: 'https://parley.example/' },
    reaction: { type: 'reaction', emoji: '❤️', target },
    title: { type: 'title', title: 'Title', text, footer: 'Footer' },
    button_reply: { type: 'button_reply', text, buttons: [{ id: 'yes', text: 'Yes' }, { id: 'no', text: 'No' }] },
    button_action: { type: 'button_action', text, buttons: [{ type: 'cta_url', text: 'Site', url: 'https://parley.example/' }] },
    survey: { type: 'survey', name: text, options: ['Mon', 'Fri'] },
    poll: { type: 'poll', name: text, values: ['A', 'B'], selectableCount: 1 },
    pix: {
      type: 'pix', title: 'Invoice', text, referenceId: 'R1', code: 'pixcode', key: 'pay@parley.example', merchantName: 'Parley', keyType: 'EMAIL',
      items: [{ id: 'x', name: 'Item', price: 100, quantity: 1 }], subtotal: 100, totalAmount: 100,
    },
    event: { type: 'event', name: text, startTime: 1_904_000_000 },
    pin: { type: 'pin', target, duration: 86_400 },
    unpin: { type: 'unpin', target },
    'call-link': { type: 'call-link', callType: 'video', link: 'https://call.whatsapp.com/video/Xq3PZnd8BQw', caption: text },
    product: { type: 'product', businessOwnerJid: '5511900000999@s.whatsapp.net', productId: 'prod-1', catalogId: 'cat-1' },
    'group-invite': { type: 'group-invite', groupJid: '120363025246125486@g.us', groupName: 'Club', inviteCode: 'AbCdEfGh12345', caption: text },
    'request-phone': { type: 'request-phone' },
  };
  return examples[type];
}

/** Every send type (the compiler keeps the list complete). */
const SEND_TYPE_SET: Record<OutgoingType, true> = {
  text: true, image: true, audio: true, video: true, document: true, sticker: true, 'video-note': true, contact: true, contacts: true,
  location: true, 'live-location': true, link: true, reaction: true, title: true, button_reply: true, button_action: true, survey: true,
  poll: true, pix: true, event: true, pin: true, unpin: true, 'call-link': true, product: true, 'group-invite': true, 'request-phone': true,
};
export const SEND_TYPES = Object.keys(SEND_TYPE_SET) as OutgoingType[];
