import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it, mock } from 'node:test';
import { createBaileysDriver } from '@parley/channel-baileys';
import { FakeSockets, ReceivePath } from '@parley/channel-baileys/testing';
import {
  defaultInstanceFlags, defaultWebhookSettings, type ChannelAdapter, type ChannelContext, type ChannelEventPayload, type InboundMessage,
  type InstanceRecord, type Logger, type MediaInput, type MessageKey, type MessageRecord, type OutgoingContent, type OutgoingType, type SendRequest,
  type Storage,
} from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { proto } from '@whiskeysockets/baileys';
import { SANDBOX_SEND_TYPES } from '../src/content/outgoing-to-proto.js';
import { SandboxDriver } from '../src/sandbox.driver.js';
import { defaultSandboxOptions } from '../src/sandbox.options.js';

/**
 * The sandbox channel stores, for every send, the record the Baileys channel stores for the same
 * send, and a phone receiving it normalizes it as the Baileys channel does, so the two main-channel
 * drivers are interchangeable for API users. Both adapters send the same requests (Baileys over its
 * fake socket, which builds messages with Baileys' own `generateWAMessage`) under one frozen clock,
 * and their records are compared; then each sandbox message reaches a sandbox peer and, through
 * Baileys' own receive path (Signal-encrypted stanzas), the Baileys account.
 *
 * Differences that remain, each pinned exactly below:
 * - media: Baileys encrypts and uploads, so only its records carry `mediaKey`, `fileEncSha256`,
 *   `directPath` and `mediaKeyTimestamp`, and its `url` is the upload address; the sandbox uploads
 *   nothing and its `url` is the address the caller gave (none for base64 media). Every other media
 *   member (mimetype, caption, digest, length, file name, ptt) is identical.
 * - product cards: the Baileys channel builds the whole card from the owner's catalog (title,
 *   description, price, currency, retailer id, link, image uploaded from the catalog image), as
 *   WhatsApp's apps do; the sandbox card names the product and its owner only. Both carry the same
 *   `productId` and `businessOwnerJid`.
 */

const NOW = 1_735_700_000_000;
const NOW_S = NOW / 1000;
const OWN = '5511900000001';
const PEER = '5511988887777';
const PEER_JID = `${PEER}@s.whatsapp.net`;
const GROUP_JID = '120363025246125486@g.us';
const MEMBER_JID = '5511977776666@s.whatsapp.net';

/** Members of a Baileys media message that come from encrypting and uploading it. */
const UPLOAD_MEMBERS = ['url', 'mediaKey', 'fileEncSha256', 'directPath', 'mediaKeyTimestamp'];
const MEDIA_MEMBERS = new Set(['imageMessage', 'audioMessage', 'videoMessage', 'documentMessage', 'stickerMessage', 'ptvMessage']);

const silent: Logger = { child: () => silent, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };

function media(text: string | Buffer, mimetype: string, sourceUrl?: string): MediaInput {
  const data = Buffer.isBuffer(text) ? text : Buffer.from(text);
  return { data, mimetype, sha256: createHash('sha256').update(data).digest('hex'), ...(sourceUrl ? { sourceUrl } : {}) };
}

const STILL_WEBP = Buffer.concat([Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ', 'latin1'), Buffer.alloc(64)]);
const ANIMATED_WEBP = Buffer.concat([Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8X', 'latin1'), Buffer.alloc(10), Buffer.from('ANIM'), Buffer.alloc(32)]);

const TARGET: MessageKey = { remoteJid: PEER_JID, fromMe: false, id: '3EB0C0FFEE00000000000001' };
const OWN_TARGET: MessageKey = { remoteJid: GROUP_JID, fromMe: true, id: '3EB0C0FFEE00000000000002' };
const CARD = { fullName: 'Ana Souza', phoneNumber: '+55 11 98888-7777', organization: 'Acme; Ltd' };

/** Records to quote: a received direct message, an own message, a group member's reply (itself quoting), a plain conversation. */
const RECEIVED: MessageRecord = {
  key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708090A' }, message: { extendedTextMessage: { text: 'Can I order?' } },
  messageTimestamp: String(NOW_S - 60), status: 'DELIVERY_ACK', pushName: 'Peer',
};
const MINE: MessageRecord = {
  key: { remoteJid: PEER_JID, fromMe: true, id: '3EB0A1B2C3D4E5F60708090B' },
  message: { imageMessage: { mimetype: 'image/png', caption: 'menu', fileSha256: 'AAAA', fileLength: '4' } },
  messageTimestamp: String(NOW_S - 50), status: 'READ',
};
const GROUP_REPLY: MessageRecord = {
  key: { remoteJid: GROUP_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708090C', participant: MEMBER_JID },
  message: {
    extendedTextMessage: {
      text: 'me too', contextInfo: { stanzaId: RECEIVED.key.id, participant: PEER_JID, quotedMessage: { extendedTextMessage: { text: 'Can I order?' } } },
    },
  },
  messageTimestamp: String(NOW_S - 40), status: 'DELIVERY_ACK',
};
const CONVERSATION: MessageRecord = {
  key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708090D' }, message: { conversation: 'hello' },
  messageTimestamp: String(NOW_S - 30), status: 'DELIVERY_ACK',
};

interface Case {
  name: string;
  content: OutgoingContent;
  to?: string;
  quoted?: MessageRecord;
  /** Expected `isAnimated` of a sticker, on both channels. */
  animated?: boolean;
  /** Members of the typed member's `product` only the Baileys channel fills (from the owner's catalog). */
  baileysCard?: string[];
}

/** The catalog entry the Baileys channel builds the product card from. */
const CATALOG_PRODUCT = {
  id: 'prod-1', name: 'Mug', description: 'Stoneware', price: 49_900, currency: 'BRL', retailerId: 'sku-1', url: 'https://shop.example/mug', isHidden: false,
  imageUrls: { requested: '', original: '' }, reviewStatus: {}, availability: 'in stock',
};
const CARD_MEMBERS = ['productImage', 'title', 'description', 'currencyCode', 'priceAmount1000', 'retailerId', 'url', 'productImageCount'];

const CASES: Case[] = [
  { name: 'text', content: { type: 'text', text: 'Hello https://parley.example' } },
  { name: 'image by URL, with caption', content: { type: 'image', media: media('png-bytes', 'image/png', 'https://cdn.example/a.png'), caption: 'Our storefront' } },
  { name: 'image in base64', content: { type: 'image', media: media('jpeg-bytes', 'image/jpeg') } },
  { name: 'voice note', content: { type: 'audio', media: media('opus-bytes', 'audio/ogg; codecs=opus', 'https://cdn.example/v.ogg'), ptt: true } },
  { name: 'audio', content: { type: 'audio', media: media('mp3-bytes', 'audio/mpeg') } },
  { name: 'video with caption', content: { type: 'video', media: media('mp4-bytes', 'video/mp4', 'https://cdn.example/v.mp4'), caption: 'Clip' } },
  {
    name: 'document with caption',
    content: { type: 'document', media: media('pdf-bytes', 'application/octet-stream'), mimetype: 'application/pdf', fileName: 'manual.pdf', caption: 'v2' },
  },
  { name: 'still sticker', content: { type: 'sticker', media: media(STILL_WEBP, 'image/webp') }, animated: false },
  { name: 'animated sticker', content: { type: 'sticker', media: media(ANIMATED_WEBP, 'image/webp', 'https://cdn.example/s.webp') }, animated: true },
  { name: 'video note', content: { type: 'video-note', media: media('ptv-bytes', 'video/mp4') } },
  { name: 'contact', content: { type: 'contact', contact: CARD } },
  { name: 'contacts', content: { type: 'contacts', displayName: '2 contacts', contacts: [CARD, { fullName: 'Bo', phoneNumber: '5511977776666' }] } },
  { name: 'location, named', content: { type: 'location', latitude: -23.5505, longitude: -46.6333, name: 'Office', address: 'Av. Paulista, 1' } },
  { name: 'location, bare', content: { type: 'location', latitude: 0.5, longitude: 0 } },
  { name: 'live location with caption', content: { type: 'live-location', latitude: 38.7223, longitude: -9.1393, caption: 'on my way' } },
  { name: 'live location', content: { type: 'live-location', latitude: 38.7223, longitude: -9.1393 } },
  {
    name: 'link with description and thumbnail',
    content: {
      type: 'link', text: 'Look at this', title: 'Parley', description: 'Messaging gateway', sourceUrl: 'https://parley.example/',
      thumbnailUrl: 'https://parley.example/t.jpg', thumbnail: media('thumb-bytes', 'image/jpeg', 'https://parley.example/t.jpg'),
    },
  },
  { name: 'link already in the text', content: { type: 'link', text: 'See https://parley.example/docs', title: 'Docs', sourceUrl: 'https://parley.example/docs' } },
  { name: 'reaction', content: { type: 'reaction', emoji: '🎉', target: TARGET } },
  { name: 'reaction removed', content: { type: 'reaction', emoji: '', target: TARGET } },
  { name: 'title', content: { type: 'title', title: 'Note', text: 'See above', footer: 'Parley' } },
  {
    name: 'button_reply',
    content: { type: 'button_reply', header: { title: 'Pick' }, text: 'Which?', footer: 'f', buttons: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }] },
  },
  {
    name: 'button_action',
    content: {
      type: 'button_action', text: 'Reach us', buttons: [
        { type: 'cta_url', text: 'Site', url: 'https://parley.example' }, { type: 'cta_call', text: 'Call', phone_number: '5511999990000' },
        { type: 'cta_copy', text: 'Code', copy_code: 'PARLEY10' },
      ],
    },
  },
  {
    name: 'pix',
    content: {
      type: 'pix', title: 'Fatura', text: 'Pague aqui', referenceId: 'F1', code: 'pixcode', key: 'pay@acme.example', merchantName: 'Acme', keyType: 'EMAIL',
      items: [{ id: 'x', name: 'Serviço', price: 100, quantity: 1 }], subtotal: 100, totalAmount: 95.5,
    },
  },
  { name: 'survey', content: { type: 'survey', name: 'Best day?', options: ['Mon', 'Fri'] } },
  { name: 'poll, multiple answers', content: { type: 'poll', name: 'Toppings', values: ['Cheese', 'Olives', 'Basil'], selectableCount: 2 } },
  { name: 'poll, one answer', content: { type: 'poll', name: 'Size', values: ['S', 'L'], selectableCount: 1 } },
  { name: 'poll, any number of answers', content: { type: 'poll', name: 'Extras', values: ['Ice', 'Lemon'], selectableCount: 0 } },
  {
    name: 'event with place',
    content: { type: 'event', name: 'Launch', description: 'Release party', startTime: 1_904_000_000, locationName: 'HQ', locationAddress: 'Rua A, 1' },
  },
  { name: 'event', content: { type: 'event', name: 'Call', startTime: 1_904_000_000 } },
  { name: 'pin', content: { type: 'pin', target: TARGET, duration: 604_800 } },
  // The server sends reactions and pins to the chat of the message they act on.
  { name: 'pin in a group', to: GROUP_JID, content: { type: 'pin', target: OWN_TARGET, duration: 86_400 } },
  { name: 'unpin', content: { type: 'unpin', target: TARGET } },
  { name: 'call link with caption', content: { type: 'call-link', callType: 'video', caption: 'Join the call', link: 'https://call.whatsapp.com/video/Xq3PZnd8BQw' } },
  { name: 'call link', content: { type: 'call-link', callType: 'audio', link: 'https://call.whatsapp.com/voice/Xq3PZnd8BQw' } },
  {
    name: 'product', content: { type: 'product', businessOwnerJid: '5511900000999@s.whatsapp.net', productId: 'prod-1', catalogId: 'cat-9' },
    baileysCard: CARD_MEMBERS,
  },
  {
    name: 'group invite with caption',
    content: { type: 'group-invite', groupJid: GROUP_JID, groupName: 'Book club', inviteCode: 'AbCdEfGh12345', caption: 'Join us' },
  },
  { name: 'group invite', content: { type: 'group-invite', groupJid: GROUP_JID, groupName: 'Book club', inviteCode: 'AbCdEfGh12345' } },
  { name: 'request-phone', content: { type: 'request-phone' } },
  { name: 'text to a group', to: GROUP_JID, content: { type: 'text', text: 'hello team' } },
  { name: 'reply quoting a received message', quoted: RECEIVED, content: { type: 'text', text: 'sure' } },
  { name: 'reply quoting an own message', quoted: MINE, content: { type: 'image', media: media('png-bytes', 'image/png'), caption: 'this one' } },
  {
    name: 'reply with a captioned document', quoted: RECEIVED,
    content: { type: 'document', media: media('pdf-bytes', 'application/pdf', 'https://cdn.example/m.pdf'), mimetype: 'application/pdf', fileName: 'm.pdf', caption: 'here' },
  },
  { name: 'reply in the group quoting a member\'s reply', to: GROUP_JID, quoted: GROUP_REPLY, content: { type: 'location', latitude: 1.5, longitude: 2.25 } },
  { name: 'reply in a direct chat quoting a group message', quoted: GROUP_REPLY, content: { type: 'contact', contact: CARD } },
  { name: 'reply quoting a conversation', quoted: CONVERSATION, content: { type: 'title', title: 'T', text: 'x' } },
  {
    name: 'interactive reply', quoted: RECEIVED,
    content: { type: 'button_reply', text: 'Which?', buttons: [{ id: 'a', text: 'A' }] },
  },
];

/** A message as `proto.Message.toJSON()` writes it. */
function protoJson(message: Record<string, unknown>): Record<string, unknown> {
  return proto.Message.fromObject(message).toJSON();
}

function without(fields: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([name]) => !names.includes(name)));
}

/**
 * Baileys' message without the `messageContextInfo` its records keep and the sandbox's do not carry
 * yet (the documented exception, docs/rest-api.md); its secret is 32 random bytes.
 */
function withoutContextInfo(message: Record<string, unknown>): Record<string, unknown> {
  const info = message.messageContextInfo as Record<string, unknown> | undefined;
  if (info?.messageSecret !== undefined) assert.equal(Buffer.from(String(info.messageSecret), 'base64').length, 32, 'Baileys\' messageSecret');
  return without(message, ['messageContextInfo']);
}

/** Exact equality, member order included (records are JSON documents). */
function sameJson(actual: unknown, expected: unknown, what: string): void {
  assert.deepStrictEqual(actual, expected, what);
  assert.equal(JSON.stringify(actual), JSON.stringify(expected), `${what}: member order`);
}

function instanceRecord(id: string, driver: string, driverOptions: Record<string, unknown>): InstanceRecord {
  return {
    id, key: `key-${id}`, name: driver, driver, createdAt: NOW, flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(), webhookSecret: 'whsec_test',
    user: null, phoneConnected: false, wantsConnection: false, health: 'healthy', driverOptions, links: {},
  };
}

async function contextFor(storage: Storage, record: InstanceRecord, events: ChannelEventPayload[] = []): Promise<ChannelContext> {
  await storage.instances.create(record);
  return { instanceId: record.id, instance: async () => (await storage.instances.get(record.id))!, emit: (e) => void events.push(e), storage, logger: silent };
}

async function memoryStorage(): Promise<MemoryStorage> {
  const storage = new MemoryStorage();
  await storage.init();
  return storage;
}

/** The message event of `id` among `events`, once it was emitted (bounded wait: the sandbox network delivers asynchronously). */
async function messageEvent(events: ChannelEventPayload[], id: string): Promise<InboundMessage> {
  for (let i = 0; i < 1000; i++) {
    const found = events.find((e): e is Extract<ChannelEventPayload, { type: 'message' }> => e.type === 'message' && e.message.id === id);
    if (found) return found.message;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`no message event for ${id}`);
}

describe('parity with the Baileys channel', () => {
  let baileys: ChannelAdapter;
  let receivePath: ReceivePath;
  const baileysEvents: ChannelEventPayload[] = [];
  let sandbox: ChannelAdapter;
  let sandboxPeer: ChannelAdapter;
  const peerEvents: ChannelEventPayload[] = [];
  let imageHost: Server;

  before(async () => {
    // Baileys stamps reactions, pins and media keys with Date.now(); one frozen clock for both channels.
    mock.timers.enable({ apis: ['Date'], now: NOW });
    // The catalog image of the product card, on loopback (the Baileys driver may fetch private URLs here).
    imageHost = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end('jpeg-bytes'));
    imageHost.listen(0, '127.0.0.1');
    await once(imageHost, 'listening');
    const imageUrl = `http://127.0.0.1:${(imageHost.address() as AddressInfo).port}/mug.jpg`;
    const sockets = new FakeSockets();
    baileys = await createBaileysDriver({ now: () => NOW, random: () => 0, socketFactory: sockets.factory, allowPrivateUrls: true })
      .create(await contextFor(await memoryStorage(), instanceRecord('ins_01JD7Q4X9M2K8V3T6R5P0N1B2C', 'whatsapp', {}), baileysEvents));
    const connecting = baileys.capabilities.connection!.connect();
    const socket = await sockets.next(1);
    socket.open({ id: `${OWN}:12@s.whatsapp.net`, lid: '80000000000001:12@lid', name: 'Parley Test' });
    await connecting;
    socket.results.set('getCatalog', { products: [{ ...CATALOG_PRODUCT, imageUrls: { requested: imageUrl, original: imageUrl } }], nextPageCursor: undefined });
    receivePath = await ReceivePath.create(socket, [PEER_JID]);

    // Both sandbox phones live on one network: one driver over one storage.
    const driver = new SandboxDriver({ options: defaultSandboxOptions, host: { dataDir: '', publicUrl: 'http://127.0.0.1', allowPrivateUrls: false }, logger: silent });
    const storage = await memoryStorage();
    const own = await driver.create(await contextFor(storage, instanceRecord('ins_01JD7Q4X9M2K8V3T6R5P0N1B2D', 'sandbox', { number: OWN })));
    const peer = await driver.create(await contextFor(storage, instanceRecord('ins_01JD7Q4X9M2K8V3T6R5P0N1B2E', 'sandbox', { number: PEER }), peerEvents));
    for (const adapter of [own, peer]) {
      await adapter.connection.connect();
      await adapter.connection.scan();
    }
    sandbox = own;
    sandboxPeer = peer;
  });

  after(async () => {
    for (const adapter of [sandbox, sandboxPeer, baileys]) await adapter.stop();
    imageHost.close();
    mock.timers.reset();
  });

  it('covers every send type', () => {
    const covered = new Set<OutgoingType>(CASES.map((c) => c.content.type));
    assert.deepEqual([...SANDBOX_SEND_TYPES].filter((type) => !covered.has(type)), []);
  });

  describe('the sandbox stores the record the Baileys channel stores (spec 2.4 message)', () => {
    for (const c of CASES) {
      it(c.name, async () => {
        const request: SendRequest = { to: c.to ?? PEER, content: c.content, ...(c.quoted ? { quoted: c.quoted } : {}) };
        const fromSandbox = await sandbox.capabilities.messaging!.send(request);
        const fromBaileys = await baileys.capabilities.messaging!.send(request);

        assert.deepStrictEqual(
          { remoteJid: fromSandbox.key.remoteJid, fromMe: fromSandbox.key.fromMe, messageTimestamp: fromSandbox.messageTimestamp, status: fromSandbox.status },
          { remoteJid: fromBaileys.key.remoteJid, fromMe: fromBaileys.key.fromMe, messageTimestamp: fromBaileys.messageTimestamp, status: fromBaileys.status },
        );
        // The sandbox writes proto JSON itself: normalizing it through the proto changes nothing, member order included.
        sameJson(protoJson(fromSandbox.message), fromSandbox.message, 'the sandbox message is proto JSON');

        const sandboxMessage = fromSandbox.message;
        const baileysMessage = withoutContextInfo(fromBaileys.message);
        const [member, ...others] = Object.keys(baileysMessage);
        assert.deepEqual(Object.keys(sandboxMessage), [member, ...others]);
        const sandboxFields = sandboxMessage[member!] as Record<string, unknown>;
        const baileysFields = baileysMessage[member!] as Record<string, unknown>;
        if (c.baileysCard) {
          const card = baileysFields.product as Record<string, unknown>;
          assert.deepStrictEqual(c.baileysCard.filter((name) => card[name] === undefined), [], 'Baileys\' card members');
          sameJson(sandboxMessage, { [member!]: { ...baileysFields, product: without(card, c.baileysCard) } }, 'the card besides the catalog members');
          return;
        }
        if (!MEDIA_MEMBERS.has(member!)) {
          sameJson(sandboxMessage, baileysMessage, 'the message');
          return;
        }
        for (const name of UPLOAD_MEMBERS) assert.notEqual(baileysFields[name], undefined, `Baileys' ${name}`);
        assert.equal(sandboxFields.url, 'media' in c.content ? c.content.media.sourceUrl : undefined);
        if (c.animated !== undefined) assert.equal(sandboxFields.isAnimated, c.animated, 'isAnimated');
        sameJson(without(sandboxFields, ['url']), without(baileysFields, UPLOAD_MEMBERS), `${member} besides the upload`);
      });
    }
  });

  describe('a received sandbox message normalizes as the Baileys channel normalizes it', () => {
    for (const c of CASES) {
      it(c.name, async () => {
        // Direct to the peer, so a sandbox phone receives it.
        const request: SendRequest = { to: PEER, content: c.content, ...(c.quoted ? { quoted: c.quoted } : {}) };
        const sent = await sandbox.capabilities.messaging!.send(request);
        const onSandbox = await messageEvent(peerEvents, sent.key.id);
        await receivePath.receive(PEER_JID, proto.Message.fromObject(sent.message), { id: sent.key.id, timestamp: Number(sent.messageTimestamp) });
        const onBaileys = await messageEvent(baileysEvents, sent.key.id);
        let sandboxMessage = onSandbox.record.message;
        let baileysMessage = onBaileys.record.message;
        if (c.content.type === 'reaction') {
          // Each receiver stores the reacted message's key as it sees it (Baileys' cleanMessage): the
          // sandbox peer wrote it, in its chat with OWN; Baileys' account (OWN) got the same stanza
          // from the peer, about a message of the peer's chat it did not write.
          const keyIn = (m: Record<string, unknown>) => (m.reactionMessage as { key: unknown }).key;
          assert.deepStrictEqual(keyIn(sandboxMessage), { remoteJid: `${OWN}@s.whatsapp.net`, fromMe: true, id: TARGET.id, participant: '' });
          assert.deepStrictEqual(keyIn(baileysMessage), { remoteJid: PEER_JID, fromMe: false, id: TARGET.id, participant: '' });
          const keyless = (m: Record<string, unknown>) => ({ reactionMessage: without(m.reactionMessage as Record<string, unknown>, ['key']) });
          sandboxMessage = keyless(sandboxMessage);
          baileysMessage = keyless(baileysMessage);
        }
        assert.deepStrictEqual(
          { content: onSandbox.content, context: onSandbox.context, message: sandboxMessage },
          { content: onBaileys.content, context: onBaileys.context, message: baileysMessage },
        );
      });
    }
  });
});
