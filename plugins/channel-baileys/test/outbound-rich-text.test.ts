import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { ChannelEventPayload, LinkPreview, MediaInput, MessageRecord, OutgoingContent, SendRequest } from '@parley/core';
import { outgoingMessage } from '@parley/whatsapp-proto';
import { proto, type WAMessage } from '@whiskeysockets/baileys';
import type { FakeSocket } from '../src/testing/index.js';
import { eachOpenHarnessWithoutFetch, GROUP_JID, NOW, PEER, PEER_JID, type Harness } from './harness.js';

const OTHER_JID = '5511988880002@s.whatsapp.net';
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);

function media(bytes: Buffer, mimetype: string): MediaInput {
  return { data: bytes, mimetype, sha256: createHash('sha256').update(bytes).digest('hex') };
}

const PREVIEW: LinkPreview = { url: 'https://shop.example/item/7', title: 'Blue mug', description: 'A mug, blue.', thumbnail: media(JPEG, 'image/jpeg') };

/** A record's content without the `messageContextInfo` (its random message secret). */
function content(record: MessageRecord): Record<string, unknown> {
  const { messageContextInfo: _secret, ...rest } = record.message as Record<string, unknown>;
  return rest;
}

/** What the shared mapping (the sandbox's message) gives for the same content, without its message secret. */
function shared(c: OutgoingContent): Record<string, unknown> {
  const { messageContextInfo: _secret, ...rest } = outgoingMessage(c, NOW);
  return rest;
}

describe('Baileys: mentions, link previews and quotes through the shared mapping', () => {
  let h: Harness;
  let socket: FakeSocket;
  eachOpenHarnessWithoutFetch((harness, open) => {
    h = harness;
    socket = open;
  });

  const send = (c: OutgoingContent, extra: Partial<SendRequest> = {}) => h.adapter.capabilities.messaging!.send({ to: PEER, content: c, ...extra });
  const sentCall = () => {
    const calls = socket.callsTo('sendMessage');
    assert.equal(calls.length, 1);
    return calls[0] as [string, Record<string, unknown>, Record<string, unknown>];
  };

  it('declares that it carries mentions and link previews', () => {
    assert.deepStrictEqual(h.adapter.capabilities.messaging!.extras, { mentions: true, linkPreview: true });
  });

  it('a text with mentions and a preview: Baileys content, and the record the sandbox would send', async () => {
    const c: OutgoingContent = { type: 'text', text: 'hi @5511988880001 see https://shop.example/item/7', mentions: [PEER_JID, OTHER_JID], preview: PREVIEW };
    const record = await send(c);
    const [jid, sentContent] = sentCall();
    assert.equal(jid, PEER_JID);
    assert.deepStrictEqual(sentContent, {
      text: c.text, mentions: [PEER_JID, OTHER_JID],
      linkPreview: { 'canonical-url': PREVIEW.url, 'matched-text': PREVIEW.url, title: 'Blue mug', description: 'A mug, blue.', jpegThumbnail: JPEG },
    });
    assert.deepStrictEqual(content(record), {
      extendedTextMessage: {
        text: c.text, matchedText: PREVIEW.url, description: 'A mug, blue.', title: 'Blue mug', previewType: 'NONE', jpegThumbnail: JPEG.toString('base64'),
        contextInfo: { mentionedJid: [PEER_JID, OTHER_JID], nonJidMentions: 0 },
      },
    });
    assert.deepStrictEqual(content(record), shared(c));
  });

  it('everyone in a group: the members and nonJidMentions', async () => {
    const c: OutgoingContent = { type: 'text', text: '@everyone meeting at 3', mentions: [PEER_JID, OTHER_JID], mentionAll: true };
    const record = await send(c, { to: GROUP_JID });
    assert.deepStrictEqual(sentCall()[1], { text: c.text, linkPreview: null, mentions: [PEER_JID, OTHER_JID], mentionAll: true });
    assert.deepStrictEqual(content(record), { extendedTextMessage: { text: c.text, contextInfo: { mentionedJid: [PEER_JID, OTHER_JID], nonJidMentions: 1 } } });
    assert.deepStrictEqual(content(record), shared(c));
  });

  it('an image caption with mentions', async () => {
    const c: OutgoingContent = { type: 'image', media: media(JPEG, 'image/jpeg'), caption: 'for @5511988880001', mentions: [PEER_JID] };
    const record = await send(c);
    assert.deepStrictEqual(sentCall()[1], { image: JPEG, mimetype: 'image/jpeg', caption: 'for @5511988880001', mentions: [PEER_JID] });
    const image = content(record).imageMessage as Record<string, unknown>;
    assert.equal(image.caption, 'for @5511988880001');
    assert.deepStrictEqual(image.contextInfo, { mentionedJid: [PEER_JID] });
  });

  it('a quoted text with mentions: one contextInfo with the quote and the mentions (as the sandbox merges them)', async () => {
    const quoted: MessageRecord = {
      key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708090A' }, message: { conversation: 'Can I order?' },
      messageTimestamp: String(Math.floor(NOW / 1000) - 60), status: 'DELIVERY_ACK',
    };
    const record = await send({ type: 'text', text: 'yes @5511988880002', mentions: [OTHER_JID] }, { quoted });
    const [, sentContent, options] = sentCall();
    assert.deepStrictEqual(sentContent, { text: 'yes @5511988880002', linkPreview: null, mentions: [OTHER_JID] });
    assert.equal((options.quoted as WAMessage).key.id, quoted.key.id);
    assert.deepStrictEqual((content(record).extendedTextMessage as { contextInfo: unknown }).contextInfo, {
      stanzaId: quoted.key.id, participant: PEER_JID, quotedMessage: { conversation: 'Can I order?' }, mentionedJid: [OTHER_JID], nonJidMentions: 0,
    });
  });

  it('received: mentions and a preview show in the message event', async () => {
    const message: WAMessage = {
      key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0FFEEDDCCBBAA99887766' },
      message: proto.Message.fromObject({
        extendedTextMessage: {
          text: 'look https://shop.example/item/7 @5511988880002', matchedText: PREVIEW.url, title: 'Blue mug', description: 'A mug, blue.',
          previewType: 0, jpegThumbnail: JPEG, contextInfo: { mentionedJid: [OTHER_JID] },
        },
      }),
      messageTimestamp: Math.floor(NOW / 1000), pushName: 'Maria',
    };
    socket.emit('messages.upsert', { messages: [message], type: 'notify' });
    await h.settle();
    const event = h.events.find((e): e is Extract<ChannelEventPayload, { type: 'message' }> => e.type === 'message');
    assert.ok(event);
    assert.deepStrictEqual(event.message.mentions, [OTHER_JID]);
    assert.deepStrictEqual(event.message.content, {
      type: 'text', body: 'look https://shop.example/item/7 @5511988880002',
      preview: { url: PREVIEW.url, title: 'Blue mug', description: 'A mug, blue.', thumbnail: true },
    });
  });
});
