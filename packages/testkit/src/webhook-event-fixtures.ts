import {
  defaultInstanceFlags, defaultWebhookSettings, type ChannelEvent, type ChannelEventPayload, type ChannelName, type InboundMessage,
  type InstanceRecord, type WebhookRenderContext,
} from '@parley/core';

/** Event ids of spec 6.3, in the order the spec lists them. Every webhook format test covers each one. */
export const SPEC_EVENT_IDS = [
  'message-text', 'message-image', 'message-audio', 'message-video', 'message-document', 'message-sticker', 'message-location',
  'message-contacts', 'message-reaction', 'message-reaction-removed', 'message-button', 'message-interactive-list',
  'message-interactive-button', 'message-unsupported', 'message-reply-context', 'message-referral', 'message-group',
  'message-from-me', 'message-edit', 'message-text-instagram', 'message-image-instagram', 'message-reel-instagram',
  'message-story-reply-instagram', 'message-story-mention-instagram', 'message-unsupported-instagram', 'message-text-messenger',
  'message-image-messenger',
  'status-sent', 'status-delivered', 'status-read', 'status-played', 'status-group', 'status-failed', 'receipt',
  'status-read-instagram', 'status-delivered-messenger', 'status-read-messenger',
  'presence', 'connection-open', 'connection-close', 'qrcode', 'call', 'group-participants', 'group-update', 'health',
] as const;

/** One event id of spec 6.3. */
export type SpecEventId = (typeof SPEC_EVENT_IDS)[number];

/**
 * Main-channel messages spec 6.3 names no id for, under the ids Parley gives them (docs/webhooks.md):
 * decrypted poll votes and event responses. Every webhook format test covers each one too.
 */
export const EXTENSION_EVENT_IDS = ['message-poll-vote', 'message-event-response'] as const;

/** One event id of {@link EXTENSION_EVENT_IDS}. */
export type ExtensionEventId = (typeof EXTENSION_EVENT_IDS)[number];

/** Event kinds that exist on the bus but have no spec 6.3 id (history sync and storage bookkeeping). */
export const INTERNAL_EVENT_NAMES = ['history', 'chats-upsert', 'chats-delete', 'contacts-upsert', 'contacts-delete', 'message-delete'] as const;

/** Name of an internal fixture event. */
export type InternalEventName = (typeof INTERNAL_EVENT_NAMES)[number];

/** Inputs every webhook format is tested with: one instance, its render context and one event per kind. */
export interface WebhookEventFixtures {
  instance: InstanceRecord;
  context: WebhookRenderContext;
  /** Secrets of {@link instance}: none may appear in a rendered payload. */
  secrets: string[];
  events: Record<SpecEventId | ExtensionEventId | InternalEventName, ChannelEvent>;
}

const INSTANCE_ID = 'ins_01JD7Q4X9M2K8V3T6R5P0N1B2C';
const OWN_NUMBER = '5511900000001';
const PEER = '5511988887777';
const PEER_JID = `${PEER}@s.whatsapp.net`;
const GROUP_JID = '120363025246125486@g.us';
const IG_ACCOUNT = '17841400000000001';
const IG_USER = '6254000000000011';
const PAGE_ID = '104000000000001';
const PSID = '7001000000000022';
/** Fixed base time (Unix seconds) so renders are reproducible. */
const T = 1_735_700_000;

/** The instance the fixtures belong to: connected main channel plus linked Instagram and Messenger accounts. */
function fixtureInstance(): InstanceRecord {
  return {
    id: INSTANCE_ID,
    key: 'key-6Qm1vZ0b8yX4tR2wP9sL3nK7',
    name: 'fixtures',
    driver: 'sandbox',
    createdAt: T * 1000,
    flags: defaultInstanceFlags(),
    webhook: { ...defaultWebhookSettings(), allowWebhook: true, webhookMessage: 'https://receiver.example/hook' },
    webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    user: { id: `${OWN_NUMBER}:12@s.whatsapp.net`, lid: '80000000000001@lid', name: 'Parley Test' },
    phoneConnected: true,
    wantsConnection: true,
    health: 'healthy',
    driverOptions: {},
    links: {
      instagram: {
        channel: 'instagram', accountId: IG_ACCOUNT, accessToken: 'IGAAT-secret-token-1', appSecret: 'ig-app-secret-2',
        verifyToken: 'ig-verify-3', username: 'parley.shop', linkedAt: T * 1000,
      },
      messenger: {
        channel: 'messenger', accountId: PAGE_ID, accessToken: 'EAAB-secret-token-4', appSecret: 'fb-app-secret-5',
        verifyToken: 'fb-verify-6', linkedAt: T * 1000,
      },
    },
  };
}

/**
 * Stamps a payload the way the server does. `offset` (seconds after the base time, unique per fixture)
 * also numbers the id, so ids are fixed and ordered like the server's ULIDs.
 */
function stamp(provider: ChannelName, payload: ChannelEventPayload, offset: number): ChannelEvent {
  const id = `01JD7R${String(offset).padStart(20, '0')}`;
  return { id, instance: INSTANCE_ID, provider, receivedAt: (T + offset) * 1000 + 250, ...payload } as ChannelEvent;
}

type MessageInput = Omit<InboundMessage, 'record' | 'timestamp' | 'chatJid' | 'from' | 'fromMe' | 'chatType'> &
  Partial<Pick<InboundMessage, 'chatJid' | 'from' | 'fromMe' | 'chatType'>>;

/** A main-channel inbound message from {@link PEER} unless overridden. */
function message(provider: ChannelName, input: MessageInput, offset: number): ChannelEvent {
  const chatJid = input.chatJid ?? PEER_JID;
  const fromMe = input.fromMe ?? false;
  const timestamp = T + offset;
  const full: InboundMessage = {
    chatJid, from: PEER, fromMe, chatType: 'individual', timestamp, ...input,
    record: {
      key: { remoteJid: chatJid, fromMe, id: input.id }, message: { conversation: 'fixture' }, messageTimestamp: String(timestamp),
      status: fromMe ? 'SERVER_ACK' : 'DELIVERY_ACK', provider,
    },
  };
  return stamp(provider, { type: 'message', message: full }, offset);
}

function igMessage(input: MessageInput, offset: number): ChannelEvent {
  return message('instagram', {
    chatJid: IG_USER, from: IG_USER, fromUserId: IG_USER, pushName: 'Ana Souza', username: 'ana.souza',
    picture: 'https://cdn.instagram.example/ana.jpg', ...input,
  }, offset);
}

function fbMessage(input: MessageInput, offset: number): ChannelEvent {
  return message('messenger', {
    chatJid: PSID, from: PSID, fromUserId: PSID, pushName: 'Bruno Lima', picture: 'https://graph.facebook.example/bruno.jpg', ...input,
  }, offset);
}

function mainEvents(): Record<string, ChannelEvent> {
  const wa = (input: MessageInput, offset: number) => message('whatsapp', { pushName: 'Maria Silva', ...input }, offset);
  const media = (id: string, mimeType: string, caption?: string) => ({
    id, mimeType, sha256: 'b1946ac92492d2347c6235b4d2611184b1946ac92492d2347c6235b4d2611184', ...(caption ? { caption } : {}),
  });
  return {
    'message-text': wa({ id: '3EB0A1B2C3D4E5F60708090A', content: { type: 'text', body: 'Hello from Maria' } }, 1),
    'message-image': wa({ id: '3EB0A1B2C3D4E5F60708090B', content: { type: 'image', media: media('3EB0A1B2C3D4E5F60708090B', 'image/jpeg', 'Our storefront') } }, 2),
    'message-audio': wa({ id: '3EB0A1B2C3D4E5F60708090C', content: { type: 'audio', media: media('3EB0A1B2C3D4E5F60708090C', 'audio/ogg; codecs=opus'), voice: true } }, 3),
    'message-video': wa({ id: '3EB0A1B2C3D4E5F60708090D', content: { type: 'video', media: media('3EB0A1B2C3D4E5F60708090D', 'video/mp4', 'Unboxing') } }, 4),
    'message-document': wa({
      id: '3EB0A1B2C3D4E5F60708090E',
      content: { type: 'document', media: media('3EB0A1B2C3D4E5F60708090E', 'application/pdf', 'Invoice attached'), filename: 'invoice-2025-01.pdf' },
    }, 5),
    'message-sticker': wa({ id: '3EB0A1B2C3D4E5F60708090F', content: { type: 'sticker', media: media('3EB0A1B2C3D4E5F60708090F', 'image/webp'), animated: false } }, 6),
    'message-location': wa({
      id: '3EB0A1B2C3D4E5F607080910',
      content: { type: 'location', latitude: -23.561414, longitude: -46.655881, name: 'Parley HQ', address: 'Av. Paulista, 1000, São Paulo' },
    }, 7),
    'message-contacts': wa({
      id: '3EB0A1B2C3D4E5F607080911',
      content: {
        type: 'contacts',
        contacts: [{ formattedName: 'João Pereira', vcard: 'BEGIN:VCARD\nVERSION:3.0\nFN:João Pereira\nTEL;type=CELL;waid=5511977776666:+55 11 97777-6666\nEND:VCARD' }],
      },
    }, 8),
    'message-reaction': wa({ id: '3EB0A1B2C3D4E5F607080912', content: { type: 'reaction', messageId: '3EB0A1B2C3D4E5F60708090A', emoji: '👍' } }, 9),
    'message-reaction-removed': wa({ id: '3EB0A1B2C3D4E5F607080913', content: { type: 'reaction', messageId: '3EB0A1B2C3D4E5F60708090A' } }, 10),
    'message-button': wa({ id: '3EB0A1B2C3D4E5F607080914', content: { type: 'button', text: 'Yes, confirm', payload: 'CONFIRM_ORDER_42' } }, 11),
    'message-interactive-list': wa({
      id: '3EB0A1B2C3D4E5F607080915', content: { type: 'list_reply', id: 'plan-pro', title: 'Pro plan', description: 'Unlimited instances' },
    }, 12),
    'message-interactive-button': wa({ id: '3EB0A1B2C3D4E5F607080916', content: { type: 'button_reply', id: 'btn-yes', title: 'Yes' } }, 13),
    'message-unsupported': wa({ id: '3EB0A1B2C3D4E5F607080917', content: { type: 'unsupported', typeName: 'pollCreationMessageV3' } }, 14),
    'message-reply-context': wa({
      id: '3EB0A1B2C3D4E5F607080918', content: { type: 'text', body: 'Replying to you' },
      context: { from: OWN_NUMBER, id: '3EB0FFEEDDCCBBAA99887766' },
    }, 15),
    'message-referral': wa({
      id: '3EB0A1B2C3D4E5F607080919', content: { type: 'text', body: 'I saw your ad' },
      referral: {
        sourceUrl: 'https://fb.me/3cr4Wqqkx', sourceId: '120210000000000001', sourceType: 'ad', headline: 'Summer sale',
        body: '20% off everything', mediaType: 'image', thumbnailUrl: 'https://scontent.example/thumb.jpg', ctwaClid: 'ARAkLkA8rmlFeiCktEJQ',
      },
    }, 16),
    'message-group': wa({
      id: '3EB0A1B2C3D4E5F60708091A', chatJid: GROUP_JID, chatType: 'group', groupId: GROUP_JID, from: '5511966665555',
      pushName: 'Carla Dias', content: { type: 'text', body: 'Hi group' },
    }, 17),
    'message-from-me': wa({
      id: '3EB0A1B2C3D4E5F60708091B', from: OWN_NUMBER, fromMe: true, pushName: 'Parley Test', content: { type: 'text', body: 'Sent from my phone' },
    }, 18),
    'message-edit': wa({
      id: '3EB0A1B2C3D4E5F60708091C', content: { type: 'text', body: 'Hello from Maria (edited)' },
      edit: { originalMessageId: '3EB0A1B2C3D4E5F60708090A' },
    }, 19),
  };
}

function extensionEvents(): Record<ExtensionEventId, ChannelEvent> {
  const wa = (input: MessageInput, offset: number) => message('whatsapp', { pushName: 'Maria Silva', ...input }, offset);
  const poll = '3EB0C0FFEE0000000000000E';
  const event = '3EB0C0FFEE0000000000000F';
  return {
    'message-poll-vote': wa({
      id: '3EB0A1B2C3D4E5F60708091D',
      content: {
        type: 'poll_vote', pollId: poll,
        options: [
          { hash: '9557e533cf3685905aa3c0cf097ebc087d0247ca783cd6db197f411e61f18fb0', name: 'Olives' },
          { hash: '79d7596d7afaff436fdc62e38259776e83a6af72a3f3139125375a478d36049c' },
        ],
      },
      context: { id: poll, from: OWN_NUMBER },
    }, 60),
    'message-event-response': wa({
      id: '3EB0A1B2C3D4E5F60708091E', content: { type: 'event_response', eventId: event, response: 'going', extraGuests: 2 },
      context: { id: event, from: OWN_NUMBER },
    }, 61),
  };
}

function socialEvents(): Record<string, ChannelEvent> {
  return {
    'message-text-instagram': igMessage({ id: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQx', content: { type: 'text', body: 'Is this in stock?' } }, 20),
    'message-image-instagram': igMessage({
      id: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQy',
      content: { type: 'image', media: { id: '1830000000000001', mimeType: 'image/jpeg', sha256: '', link: 'https://lookaside.fbsbx.example/ig/photo1' } },
    }, 21),
    'message-reel-instagram': igMessage({
      id: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQz',
      content: { type: 'video', media: { id: '1830000000000002', mimeType: 'video/mp4', sha256: '', link: 'https://www.instagram.example/reel/C9xYz' } },
    }, 22),
    'message-story-reply-instagram': igMessage({
      id: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQ0', content: { type: 'text', body: 'Love this story!' },
      context: { story: { id: '1830000000000003', url: 'https://lookaside.fbsbx.example/ig/story3' } },
    }, 23),
    'message-story-mention-instagram': igMessage({
      id: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQ1',
      content: { type: 'image', media: { id: '1830000000000004', mimeType: 'image/jpeg', sha256: '', link: 'https://lookaside.fbsbx.example/ig/story4' } },
    }, 24),
    'message-unsupported-instagram': igMessage({ id: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQ2', content: { type: 'unsupported', typeName: 'ig_reel_share' } }, 25),
    'message-text-messenger': fbMessage({ id: 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBN0P', content: { type: 'text', body: 'Hi page' } }, 26),
    'message-image-messenger': fbMessage({
      id: 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBN0Q',
      content: { type: 'image', media: { id: 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBN0Q', mimeType: 'image/png', sha256: '', link: 'https://scontent.xx.fbcdn.example/v/photo.png' } },
    }, 27),
  };
}

function statusEvents(): Record<string, ChannelEvent> {
  const status = (provider: ChannelName, fields: Omit<Extract<ChannelEventPayload, { type: 'message.status' }>, 'type'>, offset: number) =>
    stamp(provider, { type: 'message.status', ...fields }, offset);
  const sent = '3EB0C0FFEE0000000000000A';
  return {
    'status-sent': status('whatsapp', { messageId: sent, chatJid: PEER_JID, recipientId: PEER, status: 'sent', timestamp: T + 30 }, 30),
    'status-delivered': status('whatsapp', { messageId: sent, chatJid: PEER_JID, recipientId: PEER, status: 'delivered', timestamp: T + 31 }, 31),
    'status-read': status('whatsapp', { messageId: sent, chatJid: PEER_JID, recipientId: PEER, status: 'read', timestamp: T + 32 }, 32),
    'status-played': status('whatsapp', { messageId: '3EB0C0FFEE0000000000000B', chatJid: PEER_JID, recipientId: PEER, status: 'played', timestamp: T + 33 }, 33),
    'status-group': status('whatsapp', {
      messageId: '3EB0C0FFEE0000000000000C', chatJid: GROUP_JID, recipientId: GROUP_JID, status: 'delivered', timestamp: T + 34,
      participant: '5511966665555@s.whatsapp.net',
    }, 34),
    'status-failed': status('whatsapp', {
      messageId: '3EB0C0FFEE0000000000000D', chatJid: PEER_JID, recipientId: PEER, status: 'failed', timestamp: T + 35,
      error: { code: 463, title: 'Account restricted', message: 'The message could not be delivered because the account is restricted', details: 'restricted' },
    }, 35),
    receipt: status('whatsapp', {
      messageId: '3EB0C0FFEE0000000000000C', chatJid: GROUP_JID, recipientId: GROUP_JID, status: 'read', timestamp: T + 36,
      participant: '5511955554444@s.whatsapp.net', receipt: true,
    }, 36),
    'status-read-instagram': status('instagram', { messageId: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODUw', chatJid: IG_USER, recipientId: IG_USER, status: 'read', timestamp: T + 37 }, 37),
    'status-delivered-messenger': status('messenger', {
      messageId: 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBN0R', chatJid: PSID, recipientId: PSID,
      status: 'delivered', timestamp: T + 38,
    }, 38),
    // Messenger read receipts carry a watermark, not a message id.
    'status-read-messenger': status('messenger', { messageId: '', chatJid: PSID, recipientId: PSID, status: 'read', timestamp: T + 39 }, 39),
  };
}

function otherEvents(instance: InstanceRecord): Record<string, ChannelEvent> {
  return {
    presence: stamp('whatsapp', { type: 'presence', jid: PEER_JID, status: 'available', chatJid: PEER_JID }, 40),
    'connection-open': stamp('whatsapp', { type: 'connection', status: 'open', code: 200, user: instance.user! }, 41),
    'connection-close': stamp('whatsapp', { type: 'connection', status: 'close', code: 1004, reason: 'disconnected', loggedOut: false, willReconnect: true }, 42),
    qrcode: stamp('whatsapp', {
      type: 'qrcode', qr: '2@Yx9Kq0v1AbCdEfGh,IjKlMnOpQrStUv==,WxYz0123456789==,AbCdEf==',
      image: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    }, 43),
    call: stamp('whatsapp', {
      type: 'call', callId: 'C0A1B2C3D4E5F60718293A4B5C6D7E8F', from: PEER, fromJid: PEER_JID, status: 'offer', isVideo: false, isGroup: false, timestamp: T + 44,
    }, 44),
    'group-participants': stamp('whatsapp', {
      type: 'group.participants', groupJid: GROUP_JID, action: 'add', participants: ['5511944443333@s.whatsapp.net'], author: `${OWN_NUMBER}@s.whatsapp.net`,
    }, 45),
    'group-update': stamp('whatsapp', { type: 'group.update', groups: [{ id: GROUP_JID, subject: 'Parley customers' }] }, 46),
    health: stamp('whatsapp', {
      type: 'health', status: 'restricted', previous: 'healthy', reason: 'account temporarily restricted after repeated reports', shouldPause: true, shouldRotate: false,
    }, 47),
  };
}

function internalEvents(): Record<InternalEventName, ChannelEvent> {
  return {
    history: stamp('whatsapp', {
      type: 'history', isLatest: true, progress: 100,
      messages: [{
        key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A0A0A0A0A0A0A0A0A0A0' }, message: { conversation: 'Earlier message' },
        messageTimestamp: String(T - 3600), status: 'READ', pushName: 'Maria Silva',
      }],
      chats: [{ id: PEER_JID, name: 'Maria Silva', timestamp: T - 3600, unreadCount: 0 }],
      contacts: [{ id: PEER_JID, name: 'Maria Silva', notify: 'Maria' }],
    }, 50),
    'chats-upsert': stamp('whatsapp', { type: 'chats.upsert', chats: [{ id: PEER_JID, unreadCount: 2 }] }, 51),
    'chats-delete': stamp('whatsapp', { type: 'chats.delete', jids: [GROUP_JID] }, 52),
    'contacts-upsert': stamp('whatsapp', { type: 'contacts.upsert', contacts: [{ id: PEER_JID, notify: 'Maria', imgUrl: null }] }, 53),
    'message-delete': stamp('whatsapp', { type: 'message.delete', chatJid: PEER_JID, messageIds: ['3EB0A1B2C3D4E5F60708090A'] }, 54),
    'contacts-delete': stamp('whatsapp', { type: 'contacts.delete', jids: ['5511977776666@s.whatsapp.net'] }, 55),
  };
}

/**
 * One event of every kind (each spec 6.3 event id, Parley's extension ids and the internal kinds) for a fixed instance.
 * Values are constant across calls, so renders can be compared with golden files.
 */
export function webhookEventFixtures(serviceTag = 'parley'): WebhookEventFixtures {
  const instance = fixtureInstance();
  const events = { ...mainEvents(), ...extensionEvents(), ...socialEvents(), ...statusEvents(), ...otherEvents(instance), ...internalEvents() };
  const links = Object.values(instance.links).filter((link) => link !== undefined);
  return {
    instance,
    context: {
      instance,
      // The fixture instance's main driver is the sandbox, which drives `whatsapp`.
      mainChannel: 'whatsapp',
      serviceTag,
      mediaUrl: (messageId) => `https://parley.example/media/${INSTANCE_ID}/${encodeURIComponent(messageId)}`,
    },
    secrets: [instance.key, instance.webhookSecret, ...links.flatMap((l) => [l.accessToken, l.appSecret, l.verifyToken])],
    events: events as WebhookEventFixtures['events'],
  };
}
