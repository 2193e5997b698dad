import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { ConflictError, type MediaInput, type MessageRecord, type OutgoingContent, type OutgoingType, type SendRequest } from '@parley/core';
import { proto } from '@whiskeysockets/baileys';
import type { FakeSocket } from '../src/testing/index.js';
import { eachOpenHarnessWithoutFetch, GROUP_JID, NOW, NOW_S, PEER, PEER_JID, withoutMessageId, type Harness } from './harness.js';
import { expectedNativeFlowNodes, withDecisionIds } from './native-flow.js';

function media(data: string, mimetype: string, fileName?: string): MediaInput {
  const bytes = Buffer.from(data);
  return { data: bytes, mimetype, sha256: createHash('sha256').update(bytes).digest('hex'), ...(fileName ? { fileName } : {}) };
}

/** Plain JSON of a proto message (what a relay hands to WhatsApp), for exact comparison. */
function plain(message: unknown): unknown {
  return JSON.parse(JSON.stringify(proto.Message.toObject(proto.Message.fromObject(message as Record<string, unknown>), {
    longs: String, enums: String, bytes: String,
  })));
}

const ORIGINAL: MessageRecord = {
  key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708090A' }, message: { conversation: 'Can I order?' },
  messageTimestamp: String(NOW_S - 60), status: 'DELIVERY_ACK',
};

describe('sending: every OutgoingContent type to Baileys content', () => {
  let h: Harness;
  let socket: FakeSocket;

  eachOpenHarnessWithoutFetch((harness, open) => {
    h = harness;
    socket = open;
  });

  const send = (content: OutgoingContent, extra: Partial<SendRequest> = {}) => h.adapter.capabilities.messaging!.send({ to: PEER, content, ...extra });

  /** The one sendMessage call: jid, content and options. */
  function sent(): [string, unknown, Record<string, unknown>] {
    const calls = socket.callsTo('sendMessage');
    assert.equal(calls.length, 1);
    const [jid, content, options] = calls[0] as [string, unknown, Record<string, unknown>];
    return [jid, content, withoutMessageId(options)];
  }

  /** Every sendMessage call, the message id the channel chose checked and left out. */
  function sentAll(): [string, unknown, Record<string, unknown>][] {
    return (socket.callsTo('sendMessage') as [string, unknown, Record<string, unknown>][]).map(([jid, content, options]) => [jid, content, withoutMessageId(options)]);
  }

  /** The one relayMessage call, with the proto message as plain JSON. */
  function relayed(): [string, unknown, Record<string, unknown>] {
    const calls = socket.callsTo('relayMessage');
    assert.equal(calls.length, 1);
    const [jid, message, options] = calls[0] as [string, unknown, Record<string, unknown>];
    return [jid, plain(message), options];
  }

  /** The one relayMessage call of a native-flow message, its random decision ids checked and masked. */
  function relayedFlow(): [string, unknown, Record<string, unknown>] {
    const [jid, message, options] = relayed();
    return [jid, message, withDecisionIds(options)];
  }

  /**
   * A record's content without the `messageContextInfo` Baileys sets beside it on send, after checking
   * the record kept it whole: a 32-byte `messageSecret` (reporting token key; a poll's or event's key).
   */
  function recordContent(record: MessageRecord): Record<string, unknown> {
    const { messageContextInfo, ...content } = record.message as { messageContextInfo?: { messageSecret?: string } };
    if (messageContextInfo !== undefined) assert.equal(Buffer.from(messageContextInfo.messageSecret ?? '', 'base64').length, 32);
    return content;
  }

  /** Checks the record answered for a send: PENDING, own key, the typed member (beside a kept `messageContextInfo`), timestamp text. */
  function assertRecord(record: MessageRecord, jid: string, member: string): void {
    assert.deepStrictEqual(
      { key: record.key, members: Object.keys(recordContent(record)), messageTimestamp: record.messageTimestamp, status: record.status, provider: record.provider },
      { key: { remoteJid: jid, fromMe: true, id: record.key.id }, members: [member], messageTimestamp: String(NOW_S), status: 'PENDING', provider: 'whatsapp' },
    );
    assert.match(record.key.id, /^3EB0[0-9A-F]{18}$/);
  }

  it('text', async () => {
    const record = await send({ type: 'text', text: 'Hello https://parley.example' });
    assert.deepStrictEqual(sent(), [PEER_JID, { text: 'Hello https://parley.example', linkPreview: null }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'extendedTextMessage');
    assert.deepStrictEqual(recordContent(record), { extendedTextMessage: { text: 'Hello https://parley.example' } });
  });

  it('image', async () => {
    const image = media('jpeg-bytes', 'image/jpeg');
    const record = await send({ type: 'image', media: image, caption: 'Our storefront' });
    assert.deepStrictEqual(sent(), [PEER_JID, { image: image.data, mimetype: 'image/jpeg', caption: 'Our storefront' }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'imageMessage');
    const json = record.message.imageMessage as Record<string, unknown>;
    assert.deepStrictEqual([json.caption, json.mimetype, json.url, json.directPath], [
      'Our storefront', 'image/jpeg', 'https://mmg.whatsapp.net/v/t62/image', '/v/t62/image',
    ]);
  });

  it('audio (voice note)', async () => {
    const audio = media('opus-bytes', 'audio/ogg; codecs=opus');
    const record = await send({ type: 'audio', media: audio, ptt: true });
    assert.deepStrictEqual(sent(), [PEER_JID, { audio: audio.data, mimetype: 'audio/ogg; codecs=opus', ptt: true }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'audioMessage');
    assert.equal((record.message.audioMessage as { ptt: boolean }).ptt, true);
  });

  it('video', async () => {
    const video = media('mp4-bytes', 'video/mp4');
    const record = await send({ type: 'video', media: video, caption: 'Unboxing' });
    assert.deepStrictEqual(sent(), [PEER_JID, { video: video.data, mimetype: 'video/mp4', caption: 'Unboxing' }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'videoMessage');
  });

  it('document', async () => {
    const doc = media('%PDF-1.7', 'application/pdf', 'invoice.pdf');
    const record = await send({ type: 'document', media: doc, fileName: 'invoice-2025-01.pdf', mimetype: 'application/pdf', caption: 'Invoice' });
    assert.deepStrictEqual(sent(), [PEER_JID, {
      document: doc.data, mimetype: 'application/pdf', fileName: 'invoice-2025-01.pdf', caption: 'Invoice',
    }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'documentMessage');
    assert.equal((record.message.documentMessage as { fileName: string }).fileName, 'invoice-2025-01.pdf');
  });

  it('video-note (PTV)', async () => {
    const video = media('round-mp4', 'video/mp4');
    const record = await send({ type: 'video-note', media: video });
    assert.deepStrictEqual(sent(), [PEER_JID, { video: video.data, mimetype: 'video/mp4', ptv: true }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'ptvMessage');
  });

  it('contact (vCard built from the card)', async () => {
    const record = await send({ type: 'contact', contact: { fullName: 'João Pereira', phoneNumber: '+55 11 97777-6666', organization: 'Acme; Inc' } });
    const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:João Pereira\nORG:Acme\\; Inc;\nTEL;type=CELL;type=VOICE;waid=5511977776666:+5511977776666\nEND:VCARD';
    assert.deepStrictEqual(sent(), [PEER_JID, { contacts: { displayName: 'João Pereira', contacts: [{ displayName: 'João Pereira', vcard }] } }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'contactMessage');
    assert.deepStrictEqual(recordContent(record), { contactMessage: { displayName: 'João Pereira', vcard } });
  });

  it('contacts', async () => {
    const record = await send({
      type: 'contacts', displayName: 'Team', contacts: [{ fullName: 'Ana', phoneNumber: '5511966661111' }, { fullName: 'Bruno', phoneNumber: '5511955552222' }],
    });
    const card = (name: string, n: string) => `BEGIN:VCARD\nVERSION:3.0\nFN:${name}\nTEL;type=CELL;type=VOICE;waid=${n}:+${n}\nEND:VCARD`;
    assert.deepStrictEqual(sent(), [PEER_JID, {
      contacts: { displayName: 'Team', contacts: [{ displayName: 'Ana', vcard: card('Ana', '5511966661111') }, { displayName: 'Bruno', vcard: card('Bruno', '5511955552222') }] },
    }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'contactsArrayMessage');
  });

  it('location', async () => {
    const record = await send({ type: 'location', latitude: -23.561414, longitude: -46.655881, address: 'Av. Paulista, 1000', name: 'Parley HQ' });
    assert.deepStrictEqual(sent(), [PEER_JID, {
      location: { degreesLatitude: -23.561414, degreesLongitude: -46.655881, name: 'Parley HQ', address: 'Av. Paulista, 1000' },
    }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'locationMessage');
    assert.deepStrictEqual(recordContent(record), { locationMessage: { degreesLatitude: -23.561414, degreesLongitude: -46.655881, name: 'Parley HQ', address: 'Av. Paulista, 1000' } });
  });

  it('live-location (relayed)', async () => {
    const record = await send({ type: 'live-location', latitude: -23.5, longitude: -46.6, caption: 'On my way' });
    const [jid, message, options] = relayed();
    assert.deepStrictEqual([jid, message, options], [
      PEER_JID, { liveLocationMessage: { degreesLatitude: -23.5, degreesLongitude: -46.6, caption: 'On my way' } }, { messageId: record.key.id },
    ]);
    assertRecord(record, PEER_JID, 'liveLocationMessage');
    assert.deepStrictEqual(record.message, message);
  });

  it('link (preview with thumbnail)', async () => {
    const thumb = media('jpeg-thumb', 'image/jpeg');
    const record = await send({
      type: 'link', text: 'Read this', title: 'Parley 1.0', description: 'Released today', sourceUrl: 'https://parley.example/post',
      thumbnailUrl: 'https://parley.example/thumb.jpg', thumbnail: thumb,
    });
    assert.deepStrictEqual(sent(), [PEER_JID, {
      text: 'Read this\nhttps://parley.example/post',
      linkPreview: {
        'canonical-url': 'https://parley.example/post', 'matched-text': 'https://parley.example/post', title: 'Parley 1.0', description: 'Released today',
        jpegThumbnail: thumb.data, originalThumbnailUrl: 'https://parley.example/thumb.jpg',
      },
    }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'extendedTextMessage');
    assert.deepStrictEqual(recordContent(record), {
      extendedTextMessage: {
        text: 'Read this\nhttps://parley.example/post', matchedText: 'https://parley.example/post', title: 'Parley 1.0', description: 'Released today',
        previewType: 'NONE', jpegThumbnail: thumb.data.toString('base64'),
      },
    });
  });

  it('reaction (to the target message chat)', async () => {
    const record = await h.adapter.capabilities.messaging!.send({ to: '', content: { type: 'reaction', emoji: '👍', target: ORIGINAL.key } });
    assert.deepStrictEqual(sent(), [PEER_JID, { react: { text: '👍', key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708090A' } } }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'reactionMessage');
  });

  it('title (interactive header, body, footer)', async () => {
    const record = await send({ type: 'title', title: 'Order #42', text: 'Your order shipped', footer: 'Parley Store' });
    assert.deepStrictEqual(relayedFlow(), [PEER_JID, {
      interactiveMessage: {
        header: { title: 'Order #42', hasMediaAttachment: false }, body: { text: 'Your order shipped' }, footer: { text: 'Parley Store' },
        nativeFlowMessage: { messageVersion: 1 },
      },
    }, { messageId: record.key.id, additionalNodes: expectedNativeFlowNodes('mixed', true) }]);
    assertRecord(record, PEER_JID, 'interactiveMessage');
  });

  it('button_reply (quick replies)', async () => {
    const record = await send({
      type: 'button_reply', header: { title: 'Confirm' }, text: 'Confirm your order?', footer: 'Parley',
      buttons: [{ id: 'yes', text: 'Yes' }, { id: 'no', text: 'No' }],
    });
    assert.deepStrictEqual(relayedFlow(), [PEER_JID, {
      interactiveMessage: {
        header: { title: 'Confirm', hasMediaAttachment: false }, body: { text: 'Confirm your order?' }, footer: { text: 'Parley' },
        nativeFlowMessage: {
          buttons: [
            { name: 'quick_reply', buttonParamsJson: '{"display_text":"Yes","id":"yes"}' },
            { name: 'quick_reply', buttonParamsJson: '{"display_text":"No","id":"no"}' },
          ],
          messageVersion: 1,
        },
      },
    }, { messageId: record.key.id, additionalNodes: expectedNativeFlowNodes('mixed', true) }]);
    assertRecord(record, PEER_JID, 'interactiveMessage');
  });

  it('button_action (url, call, copy)', async () => {
    const record = await send({
      type: 'button_action', text: 'Pick one', buttons: [
        { type: 'cta_url', text: 'Open', url: 'https://parley.example' },
        { type: 'cta_call', text: 'Call us', phone_number: '+5511900000001' },
        { type: 'cta_copy', text: 'Copy code', copy_code: 'PARLEY10' },
      ],
    });
    assert.deepStrictEqual(relayedFlow(), [PEER_JID, {
      interactiveMessage: {
        body: { text: 'Pick one' },
        nativeFlowMessage: {
          buttons: [
            { name: 'cta_url', buttonParamsJson: '{"display_text":"Open","url":"https://parley.example","merchant_url":"https://parley.example"}' },
            { name: 'cta_call', buttonParamsJson: '{"display_text":"Call us","phone_number":"+5511900000001"}' },
            { name: 'cta_copy', buttonParamsJson: '{"display_text":"Copy code","copy_code":"PARLEY10"}' },
          ],
          messageVersion: 1,
        },
      },
    }, { messageId: record.key.id, additionalNodes: expectedNativeFlowNodes('mixed', true) }]);
  });

  it('survey (single choice poll)', async () => {
    const record = await send({ type: 'survey', name: 'Rate us', options: ['Good', 'Bad'] });
    assert.deepStrictEqual(sent(), [PEER_JID, { poll: { name: 'Rate us', values: ['Good', 'Bad'], selectableCount: 1 } }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'pollCreationMessageV3');
  });

  it('poll', async () => {
    const record = await send({ type: 'poll', name: 'Lunch?', values: ['Pizza', 'Sushi', 'Salad'], selectableCount: 2 });
    assert.deepStrictEqual(sent(), [PEER_JID, { poll: { name: 'Lunch?', values: ['Pizza', 'Sushi', 'Salad'], selectableCount: 2 } }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'pollCreationMessage');
    assert.deepStrictEqual(record.message.pollCreationMessage, {
      name: 'Lunch?', options: [{ optionName: 'Pizza' }, { optionName: 'Sushi' }, { optionName: 'Salad' }], selectableOptionsCount: 2,
    });
  });

  it('pix (review_and_pay with a dynamic Pix code)', async () => {
    const record = await send({
      type: 'pix', title: 'Order #42', text: 'Pay with Pix', referenceId: 'order-42', code: '00020101021226820014br.gov.bcb.pix', key: '12345678000199',
      merchantName: 'Parley Store', keyType: 'CNPJ', items: [{ id: 'sku-1', name: 'T-shirt', price: 49.9, quantity: 2 }], subtotal: 99.8, totalAmount: 109.8,
    });
    const params = {
      reference_id: 'order-42', type: 'physical-goods', payment_type: 'br',
      payment_settings: [{ type: 'pix_dynamic_code', pix_dynamic_code: { code: '00020101021226820014br.gov.bcb.pix', merchant_name: 'Parley Store', key: '12345678000199', key_type: 'CNPJ' } }],
      currency: 'BRL', total_amount: { value: 10980, offset: 100 },
      order: { status: 'pending', subtotal: { value: 9980, offset: 100 }, items: [{ retailer_id: 'sku-1', name: 'T-shirt', amount: { value: 4990, offset: 100 }, quantity: 2 }] },
    };
    assert.deepStrictEqual(relayedFlow(), [PEER_JID, {
      interactiveMessage: {
        header: { title: 'Order #42', hasMediaAttachment: false }, body: { text: 'Pay with Pix' },
        nativeFlowMessage: { buttons: [{ name: 'review_and_pay', buttonParamsJson: JSON.stringify(params) }], messageVersion: 1 },
      },
    }, { messageId: record.key.id, additionalNodes: expectedNativeFlowNodes('order_details', true) }]);
  });

  it('event (calendar)', async () => {
    const record = await send({
      type: 'event', name: 'Launch party', description: 'Come celebrate', startTime: NOW_S + 86_400, locationName: 'Parley HQ', locationAddress: 'Av. Paulista, 1000',
    });
    assert.deepStrictEqual(sent(), [PEER_JID, {
      event: { name: 'Launch party', description: 'Come celebrate', startDate: new Date((NOW_S + 86_400) * 1000), location: { name: 'Parley HQ', address: 'Av. Paulista, 1000' } },
    }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'eventMessage');
    assert.equal((record.message.eventMessage as { startTime: string }).startTime, String(NOW_S + 86_400));
  });

  it('pin (shortest WhatsApp duration that covers the request) and unpin', async () => {
    await h.adapter.capabilities.messaging!.send({ to: '', content: { type: 'pin', target: ORIGINAL.key, duration: 3600 } });
    await h.adapter.capabilities.messaging!.send({ to: '', content: { type: 'pin', target: ORIGINAL.key, duration: 700_000 } });
    const record = await h.adapter.capabilities.messaging!.send({ to: '', content: { type: 'unpin', target: ORIGINAL.key } });
    const key = { remoteJid: PEER_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708090A' };
    assert.deepStrictEqual(sentAll(), [
      [PEER_JID, { pin: key, type: proto.PinInChat.Type.PIN_FOR_ALL, time: 86_400 }, { timestamp: new Date(NOW) }],
      [PEER_JID, { pin: key, type: proto.PinInChat.Type.PIN_FOR_ALL, time: 2_592_000 }, { timestamp: new Date(NOW) }],
      [PEER_JID, { pin: key, type: proto.PinInChat.Type.UNPIN_FOR_ALL }, { timestamp: new Date(NOW) }],
    ]);
    assertRecord(record, PEER_JID, 'pinInChatMessage');
    // An unpin's duration (0) travels in messageContextInfo; the record keeps it.
    assert.equal((record.message.messageContextInfo as { messageAddOnDurationInSecs?: number }).messageAddOnDurationInSecs, 0);
  });

  it('call-link: sends the given link; creates one when none is given', async () => {
    await send({ type: 'call-link', callType: 'video', caption: 'Join the call', link: 'https://call.whatsapp.com/video/abc123' });
    const record = await send({ type: 'call-link', callType: 'audio', link: '' });
    assert.deepStrictEqual(socket.callsTo('createCallLink'), [['audio']]);
    assert.deepStrictEqual(sentAll(), [
      [PEER_JID, { text: 'Join the call\nhttps://call.whatsapp.com/video/abc123', linkPreview: null }, { timestamp: new Date(NOW) }],
      [PEER_JID, { text: 'https://call.whatsapp.com/voice/Xq3PZnd8BQw', linkPreview: null }, { timestamp: new Date(NOW) }],
    ]);
    assertRecord(record, PEER_JID, 'extendedTextMessage');
  });

  it('group-invite', async () => {
    const record = await send({ type: 'group-invite', groupJid: GROUP_JID, groupName: 'Parley customers', inviteCode: 'AbCdEf123456', caption: 'Join us' });
    // The group has no picture (profilePictureUrl answers nothing): the card goes without a thumbnail.
    assert.deepStrictEqual(socket.callsTo('profilePictureUrl'), [[GROUP_JID, 'preview']]);
    assert.deepStrictEqual(relayed(), [PEER_JID, {
      groupInviteMessage: { inviteCode: 'AbCdEf123456', inviteExpiration: String(NOW_S + 259_200), caption: 'Join us', groupJid: GROUP_JID, groupName: 'Parley customers' },
    }, { messageId: record.key.id }]);
    assertRecord(record, PEER_JID, 'groupInviteMessage');
  });

  it('request-phone', async () => {
    const record = await send({ type: 'request-phone' });
    assert.deepStrictEqual(sent(), [PEER_JID, { requestPhoneNumber: true }, { timestamp: new Date(NOW) }]);
    assertRecord(record, PEER_JID, 'requestPhoneNumberMessage');
  });

  it('a reply passes the quoted message; the sent message carries the quote', async () => {
    const record = await send({ type: 'text', text: 'Yes, of course' }, { quoted: ORIGINAL });
    const [jid, content, options] = sent();
    assert.deepStrictEqual([jid, content, options.timestamp], [PEER_JID, { text: 'Yes, of course', linkPreview: null }, new Date(NOW)]);
    const quoted = options.quoted as { key: unknown; message: proto.Message };
    assert.deepStrictEqual([quoted.key, quoted.message.toJSON()], [ORIGINAL.key, { conversation: 'Can I order?' }]);
    assert.deepStrictEqual(recordContent(record), {
      extendedTextMessage: {
        text: 'Yes, of course',
        contextInfo: { stanzaId: '3EB0A1B2C3D4E5F60708090A', participant: PEER_JID, quotedMessage: { conversation: 'Can I order?' } },
      },
    });
  });

  it('a relayed reply carries the quote in its context', async () => {
    await send({ type: 'button_reply', text: 'Which size?', buttons: [{ id: 'm', text: 'M' }] }, { quoted: ORIGINAL });
    const [, message] = relayed();
    assert.deepStrictEqual((message as { interactiveMessage: { contextInfo: unknown } }).interactiveMessage.contextInfo, {
      stanzaId: '3EB0A1B2C3D4E5F60708090A', participant: PEER_JID, quotedMessage: { conversation: 'Can I order?' },
    });
  });

  it('supports every send type', () => {
    const types: OutgoingType[] = [
      'text', 'image', 'audio', 'video', 'document', 'sticker', 'video-note', 'contact', 'contacts', 'location', 'live-location', 'link', 'reaction',
      'title', 'button_reply', 'button_action', 'survey', 'poll', 'pix', 'event', 'pin', 'unpin', 'call-link', 'product', 'group-invite', 'request-phone',
    ];
    assert.deepStrictEqual(types.filter((t) => !h.adapter.capabilities.messaging!.supports(t)), []);
  });

  it('an upstream failure is an UpstreamError; a group recipient JID is accepted', async () => {
    socket.failures.set('sendMessage', Object.assign(new Error('not-acceptable'), { output: { statusCode: 406 } }));
    await assert.rejects(h.adapter.capabilities.messaging!.send({ to: GROUP_JID, content: { type: 'text', text: 'hi' } }), {
      status: 502, code: 'upstream_error', message: 'WhatsApp refused the text message: not-acceptable',
    });
    assert.deepStrictEqual(socket.callsTo('sendMessage')[0]!.slice(0, 1), [GROUP_JID]);
  });

  it('presence, call link creation', async () => {
    await h.adapter.capabilities.messaging!.sendPresence({ to: PEER, status: 'composing' });
    assert.equal(await h.adapter.capabilities.messaging!.createCallLink!('video'), 'https://call.whatsapp.com/video/Xq3PZnd8BQw');
    assert.deepStrictEqual(socket.calls.map((c) => [c.method, ...c.args]), [['sendPresenceUpdate', 'composing', PEER_JID], ['createCallLink', 'video']]);
  });

  it('refuses an online or offline presence while the account has no push name, which Baileys would drop in silence', async () => {
    const me = socket.authState.creds.me!;
    socket.authState.creds.me = { id: me.id };
    for (const status of ['available', 'unavailable'] as const) {
      await assert.rejects(h.adapter.capabilities.messaging!.sendPresence({ to: PEER, status }), (err: unknown) => err instanceof ConflictError && err.code === 'no_push_name');
    }
    await h.adapter.capabilities.messaging!.sendPresence({ to: PEER, status: 'paused' });
    socket.authState.creds.me = { ...me, name: 'Alice' };
    await h.adapter.capabilities.messaging!.sendPresence({ to: PEER, status: 'available' });
    assert.deepStrictEqual(socket.calls.map((c) => [c.method, ...c.args]), [['sendPresenceUpdate', 'paused', PEER_JID], ['sendPresenceUpdate', 'available', PEER_JID]]);
  });
});
