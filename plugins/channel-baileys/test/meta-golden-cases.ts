import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ChannelEvent, ChannelEventPayload } from '@parley/core';
import { EXTENSION_EVENT_IDS, SPEC_EVENT_IDS, webhookEventFixtures, type ExtensionEventId, type SpecEventId } from '@parley/testkit';
import { MetaFormat, type MetaValue, type MetaWebhookPayload } from '@parley/webhook-meta';
import { proto, type WAMessage } from '@whiskeysockets/baileys';
import { encryptEventResponse, encryptPollVote, type FakeSocket } from '../src/testing/index.js';
import { GROUP_JID, INSTANCE_ID, OWN_JID, OWN_LID, PEER_JID, PEER_LID } from './harness.js';

/*
 * The cases of the spec 6.3 chain tests (meta-golden-chain, meta-golden-lifecycle). Spec 6.3 end to end on the Baileys channel: each main-channel event id starts as what Baileys
 * emits, goes through the adapter's mapping, is stamped as the server stamps it and is rendered by
 * the meta format. The expected payload is the meta plugin's golden file where the Baileys event
 * carries the same content as the fixture; where WhatsApp itself says something else (a LID sender,
 * Baileys' close code, this adapter's own wording of an error or restriction) the difference is
 * written out next to the event.
 */

// Golden files live in the meta plugin's source tree; this test runs from dist/test.
const goldenDir = new URL('../../../webhook-meta/test/golden/', import.meta.url);
const fixtures = webhookEventFixtures();
const format = new MetaFormat();
/** Base time of the fixtures (Unix seconds); each event happens `offset` seconds later. */
export const T = 1_735_700_000;
const SHA = 'b1946ac92492d2347c6235b4d2611184b1946ac92492d2347c6235b4d2611184';
export const QR = '2@Yx9Kq0v1AbCdEfGh,IjKlMnOpQrStUv==,WxYz0123456789==,AbCdEf==';
export const QR_IMAGE = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const SENT = '3EB0C0FFEE0000000000000A';
const Status = proto.WebMessageInfo.Status;
/** A poll and an event the instance sent to Maria (stored before the cases run), answered in the extension cases. */
export const POLL = { id: '3EB0C0FFEE0000000000000E', secret: Buffer.alloc(32, 5) };
export const EVENT = { id: '3EB0C0FFEE0000000000000F', secret: Buffer.alloc(32, 6) };
const optionHash = (name: string) => createHash('sha256').update(name).digest();

export type EventId = SpecEventId | ExtensionEventId;

export function golden(id: EventId): MetaWebhookPayload {
  return JSON.parse(readFileSync(new URL(`${id}.json`, goldenDir), 'utf8')) as MetaWebhookPayload;
}

/** A golden payload with its one `value` changed by `patch`. */
export function goldenWith(id: SpecEventId, patch: (value: MetaValue) => void): MetaWebhookPayload {
  const payload = golden(id);
  patch(payload.entry[0]!.changes[0]!.value);
  return payload;
}

/** Stamps a payload as the server's event bus does, with fixed values. */
function stamp(payload: ChannelEventPayload, offset: number): ChannelEvent {
  return { ...payload, id: `01JD7R${String(offset).padStart(20, '0')}`, instance: INSTANCE_ID, provider: 'whatsapp', receivedAt: (T + offset) * 1000 + 250 } as ChannelEvent;
}

const media = (fields: Record<string, unknown>) => ({
  url: 'https://mmg.whatsapp.net/v/t62.7118-24/media.enc', directPath: '/v/t62.7118-24/media.enc', mediaKey: Buffer.alloc(32, 1),
  fileSha256: Buffer.from(SHA, 'hex'), fileEncSha256: Buffer.alloc(32, 2), fileLength: 2048, ...fields,
});

/** A message Maria sends from her phone, `offset` seconds after the base time. */
function fromMaria(id: string, offset: number, message: proto.IMessage): WAMessage {
  return { key: { remoteJid: PEER_JID, fromMe: false, id }, message, messageTimestamp: T + offset, pushName: 'Maria Silva' };
}

/** How one event id is produced on the Baileys socket, and what the meta format must render for it. */
export interface Case {
  offset: number;
  feed(socket: FakeSocket): void;
  expected(): MetaWebhookPayload;
}

const upsert = (message: WAMessage) => (socket: FakeSocket) => socket.emit('messages.upsert', { messages: [message], type: 'notify' });
const acked = (id: string, status: number, extra: { messageStubParameters?: string[] } = {}) => (socket: FakeSocket) =>
  socket.emit('messages.update', [{ key: { remoteJid: PEER_JID, fromMe: true, id }, update: { status, ...extra } }]);

/** Events of the open connection, fed one at a time into one adapter. */
export const OPEN_CASES: Partial<Record<EventId, Case>> = {
  'message-text': { offset: 1, feed: upsert(fromMaria('3EB0A1B2C3D4E5F60708090A', 1, { conversation: 'Hello from Maria' })), expected: () => golden('message-text') },
  'message-image': {
    offset: 2,
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F60708090B', 2, { imageMessage: media({ mimetype: 'image/jpeg', caption: 'Our storefront' }) })),
    expected: () => golden('message-image'),
  },
  'message-audio': {
    offset: 3,
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F60708090C', 3, { audioMessage: media({ mimetype: 'audio/ogg; codecs=opus', ptt: true, seconds: 4 }) })),
    expected: () => golden('message-audio'),
  },
  'message-video': {
    offset: 4,
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F60708090D', 4, { videoMessage: media({ mimetype: 'video/mp4', caption: 'Unboxing' }) })),
    expected: () => golden('message-video'),
  },
  'message-document': {
    offset: 5,
    // WhatsApp wraps a captioned document; the mapping unwraps it.
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F60708090E', 5, {
      documentWithCaptionMessage: {
        message: { documentMessage: media({ mimetype: 'application/pdf', caption: 'Invoice attached', fileName: 'invoice-2025-01.pdf' }) },
      },
    })),
    expected: () => golden('message-document'),
  },
  'message-sticker': {
    offset: 6,
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F60708090F', 6, { stickerMessage: media({ mimetype: 'image/webp', isAnimated: false }) })),
    expected: () => golden('message-sticker'),
  },
  'message-location': {
    offset: 7,
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F607080910', 7, {
      locationMessage: { degreesLatitude: -23.561414, degreesLongitude: -46.655881, name: 'Parley HQ', address: 'Av. Paulista, 1000, São Paulo' },
    })),
    expected: () => golden('message-location'),
  },
  'message-contacts': {
    offset: 8,
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F607080911', 8, {
      contactMessage: {
        displayName: 'João Pereira', vcard: 'BEGIN:VCARD\nVERSION:3.0\nFN:João Pereira\nTEL;type=CELL;waid=5511977776666:+55 11 97777-6666\nEND:VCARD',
      },
    })),
    expected: () => golden('message-contacts'),
  },
  'message-reaction': {
    offset: 9,
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F607080912', 9, {
      reactionMessage: { key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708090A' }, text: '👍', senderTimestampMs: (T + 9) * 1000 },
    })),
    expected: () => golden('message-reaction'),
  },
  'message-reaction-removed': {
    offset: 10,
    // WhatsApp removes a reaction by sending an empty one.
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F607080913', 10, {
      reactionMessage: { key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708090A' }, text: '', senderTimestampMs: (T + 10) * 1000 },
    })),
    expected: () => golden('message-reaction-removed'),
  },
  'message-button': {
    offset: 11,
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F607080914', 11, {
      buttonsResponseMessage: { selectedButtonId: 'CONFIRM_ORDER_42', selectedDisplayText: 'Yes, confirm', type: proto.Message.ButtonsResponseMessage.Type.DISPLAY_TEXT },
    })),
    expected: () => golden('message-button'),
  },
  'message-interactive-list': {
    offset: 12,
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F607080915', 12, {
      listResponseMessage: {
        title: 'Pro plan', description: 'Unlimited instances', listType: proto.Message.ListResponseMessage.ListType.SINGLE_SELECT,
        singleSelectReply: { selectedRowId: 'plan-pro' },
      },
    })),
    expected: () => golden('message-interactive-list'),
  },
  'message-interactive-button': {
    offset: 13,
    // A tap on a native-flow quick reply: the button text as body, its id in the parameters.
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F607080916', 13, {
      interactiveResponseMessage: { body: { text: 'Yes' }, nativeFlowResponseMessage: { name: 'quick_reply', paramsJson: '{"id":"btn-yes"}', version: 1 } },
    })),
    expected: () => golden('message-interactive-button'),
  },
  'message-unsupported': {
    offset: 14,
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F607080917', 14, {
      pollCreationMessageV3: { name: 'Lunch?', options: [{ optionName: 'Yes' }, { optionName: 'No' }], selectableOptionsCount: 1 },
    })),
    expected: () => golden('message-unsupported'),
  },
  'message-reply-context': {
    offset: 15,
    // The quoted sender comes as the account's LID; the mapping answers its number.
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F607080918', 15, {
      extendedTextMessage: {
        text: 'Replying to you', contextInfo: { stanzaId: '3EB0FFEEDDCCBBAA99887766', participant: OWN_LID, quotedMessage: { conversation: 'Our hours?' } },
      },
    })),
    expected: () => golden('message-reply-context'),
  },
  'message-referral': {
    offset: 16,
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F607080919', 16, {
      extendedTextMessage: {
        text: 'I saw your ad',
        contextInfo: {
          externalAdReply: {
            sourceUrl: 'https://fb.me/3cr4Wqqkx', sourceId: '120210000000000001', sourceType: 'ad', title: 'Summer sale', body: '20% off everything',
            mediaType: proto.ContextInfo.ExternalAdReplyInfo.MediaType.IMAGE, thumbnailUrl: 'https://scontent.example/thumb.jpg',
            ctwaClid: 'ARAkLkA8rmlFeiCktEJQ',
          },
        },
      },
    })),
    expected: () => golden('message-referral'),
  },
  'message-group': {
    offset: 17,
    feed: upsert({
      key: { remoteJid: GROUP_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708091A', participant: '5511966665555@s.whatsapp.net' },
      message: { conversation: 'Hi group' }, messageTimestamp: T + 17, pushName: 'Carla Dias',
    }),
    expected: () => golden('message-group'),
  },
  'message-from-me': {
    offset: 18,
    feed: upsert({ key: { remoteJid: PEER_JID, fromMe: true, id: '3EB0A1B2C3D4E5F60708091B' }, message: { conversation: 'Sent from my phone' }, messageTimestamp: T + 18, pushName: 'Parley Test' }),
    // The account has a LID (every Baileys 7 session does), so its own messages name it; the fixture's sender has none.
    expected: () => goldenWith('message-from-me', (value) => {
      value.contacts![0]!.user_id = OWN_LID;
      value.messages![0]!.from_user_id = OWN_LID;
    }),
  },
  'message-edit': {
    offset: 19,
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F60708091C', 19, {
      protocolMessage: {
        type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT, key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708090A' },
        editedMessage: { conversation: 'Hello from Maria (edited)' }, timestampMs: (T + 19) * 1000,
      },
    })),
    expected: () => golden('message-edit'),
  },
  'message-poll-vote': {
    offset: 60,
    // Maria picks Olives and an option the stored poll does not list (its name stays unknown).
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F60708091D', 60, {
      pollUpdateMessage: {
        pollCreationMessageKey: { remoteJid: PEER_JID, fromMe: true, id: POLL.id },
        vote: encryptPollVote([optionHash('Olives'), optionHash('Anchovies')], { secret: POLL.secret, messageId: POLL.id, creatorJid: OWN_JID, authorJid: PEER_JID }),
        senderTimestampMs: (T + 60) * 1000,
      },
    })),
    expected: () => golden('message-poll-vote'),
  },
  'message-event-response': {
    offset: 61,
    feed: upsert(fromMaria('3EB0A1B2C3D4E5F60708091E', 61, {
      encEventResponseMessage: {
        eventCreationMessageKey: { remoteJid: PEER_JID, fromMe: true, id: EVENT.id },
        ...encryptEventResponse(
          { response: proto.Message.EventResponseMessage.EventResponseType.GOING, timestampMs: (T + 61) * 1000, extraGuestCount: 2 },
          { secret: EVENT.secret, messageId: EVENT.id, creatorJid: OWN_JID, authorJid: PEER_JID },
        ),
      },
    })),
    expected: () => golden('message-event-response'),
  },
  'status-sent': { offset: 30, feed: acked(SENT, Status.SERVER_ACK), expected: () => golden('status-sent') },
  'status-delivered': { offset: 31, feed: acked(SENT, Status.DELIVERY_ACK), expected: () => golden('status-delivered') },
  'status-read': { offset: 32, feed: acked(SENT, Status.READ), expected: () => golden('status-read') },
  'status-played': { offset: 33, feed: acked('3EB0C0FFEE0000000000000B', Status.PLAYED), expected: () => golden('status-played') },
  'status-group': {
    offset: 34,
    feed: (socket) => socket.emit('message-receipt.update', [{
      key: { remoteJid: GROUP_JID, fromMe: true, id: '3EB0C0FFEE0000000000000C' }, receipt: { userJid: '5511966665555@s.whatsapp.net', receiptTimestamp: T + 34 },
    }]),
    expected: () => golden('status-group'),
  },
  'status-failed': {
    offset: 35,
    feed: acked('3EB0C0FFEE0000000000000D', Status.ERROR, { messageStubParameters: ['463'] }),
    // Baileys gives only the ack code; the wording and details are this adapter's.
    expected: () => goldenWith('status-failed', (value) => {
      value.statuses![0]!.errors = [{
        code: 463, title: 'Account restricted', message: 'WhatsApp refused the message: the account is restricted or has no privacy token for this contact',
        error_data: { details: 'ack error 463' },
      }];
    }),
  },
  receipt: {
    offset: 36,
    // Group members read receipts arrive by LID; the mapping answers the member's number.
    feed: (socket) => socket.emit('message-receipt.update', [{
      key: { remoteJid: GROUP_JID, fromMe: true, id: '3EB0C0FFEE0000000000000C' }, receipt: { userJid: '98765432109876@lid', readTimestamp: T + 36 },
    }]),
    expected: () => golden('receipt'),
  },
  presence: {
    offset: 40,
    feed: (socket) => socket.emit('presence.update', { id: PEER_JID, presences: { [PEER_JID]: { lastKnownPresence: 'available' } } }),
    expected: () => golden('presence'),
  },
  call: {
    offset: 44,
    // Baileys 7 names the caller by LID and gives the number beside it.
    feed: (socket) => socket.emit('call', [{
      chatId: PEER_LID, from: PEER_LID, callerPn: PEER_JID, id: 'C0A1B2C3D4E5F60718293A4B5C6D7E8F', date: new Date((T + 44) * 1000), offline: false,
      status: 'offer', isVideo: false, isGroup: false,
    }]),
    expected: () => golden('call'),
  },
  'group-participants': {
    offset: 45,
    feed: (socket) => socket.emit('group-participants.update', {
      id: GROUP_JID, author: OWN_LID, authorPn: OWN_JID, action: 'add', participants: [{ id: '44443333222211@lid', phoneNumber: '5511944443333@s.whatsapp.net' }],
    }),
    expected: () => golden('group-participants'),
  },
  'group-update': {
    offset: 46,
    feed: (socket) => socket.emit('messages.upsert', { type: 'notify', messages: [{
      key: { remoteJid: GROUP_JID, id: 'GROUPNOTIFICATION1', fromMe: false, participant: PEER_JID },
      messageStubType: proto.WebMessageInfo.StubType.GROUP_CHANGE_SUBJECT, messageStubParameters: ['Parley customers'],
    }] }),
    expected: () => golden('group-update'),
  },
  health: {
    offset: 47,
    feed: (socket) => socket.emit('connection.update', { reachoutTimeLock: { isActive: true } }),
    // The restriction WhatsApp signals here is the reach-out timelock; the reason names it.
    expected: () => goldenWith('health', (value) => {
      value.health = {
        status: 'restricted', previous: 'healthy', reason: 'WhatsApp restricted new conversations (reach-out timelock DEFAULT)', should_pause: true,
        should_rotate: false,
      };
    }),
  },
};

/** Event ids of the connection's life cycle, each on a fresh adapter. */
export const LIFECYCLE_IDS: EventId[] = ['connection-open', 'connection-close', 'qrcode'];

export const MAIN_IDS = [...SPEC_EVENT_IDS, ...EXTENSION_EVENT_IDS].filter((id) => fixtures.events[id].provider === 'whatsapp');

/** What the meta format renders for a payload stamped `offset` seconds after the base time, as JSON. */
export function render(payload: ChannelEventPayload, offset: number): unknown {
  return JSON.parse(JSON.stringify(format.render(stamp(payload, offset), fixtures.context)));
}
