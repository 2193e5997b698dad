import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_MEDIA_LIMITS } from '@parley/core';
import { dataUri, SAMPLES, sampleBytes } from '../support/media-server.js';
import { MessagingPair } from '../support/messaging.js';

const MAX_MEDIA = 64 * 1024;

/** Bad input of every message family: the right error, and nothing stored, sent or fetched. */
describe('messages: bad input', () => {
  let p: MessagingPair;
  let offline: { id: string; key: string };
  const url = (path: string) => `${p.media.url}${path}`;
  const bob = '5511900000402';

  before(async () => {
    // The provider enum lists the channels the configured plugins register: Instagram and Messenger are
    // configured (never linked, so no Graph call is made) for the provider checks below.
    const unusedGraph = { graphBaseUrl: 'http://127.0.0.1:9', profileLookup: false };
    p = await MessagingPair.start({
      config: { media: { ...DEFAULT_MEDIA_LIMITS, maxBytes: MAX_MEDIA, timeoutMs: 5000 } },
      plugins: [
        { package: '@parley/storage-memory' }, { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
        { package: '@parley/webhook-native' }, { package: '@parley/webhook-meta' },
        { package: '@parley/channel-instagram', options: unusedGraph }, { package: '@parley/channel-messenger', options: unusedGraph },
      ],
    }, ['5511900000401', bob]);
    offline = await p.t.createInstance({ channel: 'sandbox', name: 'dave', number: '5511900000403' });
    p.media.serve('/ok.png', { body: SAMPLES.png, type: 'image/png' });
    p.media.serve('/page.html', { body: Buffer.from('<html></html>'), type: 'text/html' });
    p.media.serve('/icon.svg', { body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), type: 'image/svg+xml' });
    p.media.serve('/huge.png', { body: sampleBytes(Buffer.from([0x89, 0x50]), MAX_MEDIA + 1), type: 'image/png' });
  });
  after(async () => {
    await p.stop();
  });

  async function expectError(path: string, body: unknown, status: number, code: string, message: string, key = p.alice.key) {
    const res = await p.t.request('POST', `/${key}/message/${path}`, body);
    assert.equal(res.status, status, `${path} ${JSON.stringify(body).slice(0, 200)} → ${JSON.stringify(res.body)}`);
    assert.equal(res.body.status, status);
    assert.equal(res.body.error.code, code);
    assert.equal(res.body.error.message, message);
  }
  const invalid = (path: string, body: unknown, message: string) => expectError(path, body, 400, 'validation_failed', message);

  it('missing, wrong and unknown members are 400s naming the field (text, media, base64)', async () => {
    await invalid('text', { to: bob }, 'body.text is required');
    await invalid('text', { to: bob, text: 5 }, 'body.text must be string');
    await invalid('text', { to: bob, text: '' }, 'body.text must NOT have fewer than 1 characters');
    await invalid('text', { to: 'abc', text: 'x' }, 'body.to must be a phone number with country code (6 to 15 digits) or a JID');
    await invalid('text', { to: bob, text: 'x', foo: 1 }, 'body.foo is not allowed');
    await invalid('text', { to: bob, text: 'x', provider: 'telegram' }, 'body.provider must be one of "whatsapp", "instagram", "messenger"');
    await invalid('image', { to: bob }, 'body.url is required');
    await invalid('image', { to: bob, url: 'ftp://host/x.png' }, 'body.url must use http, https');
    await invalid('video', { to: bob, url: url('/ok.png'), caption: 7 }, 'body.caption must be string');
    await invalid('document', { to: bob, url: url('/ok.png'), fileName: 'a.pdf' }, 'body.mimetype is required');
    await invalid('document', { to: bob, url: url('/ok.png'), fileName: '../a.pdf', mimetype: 'application/pdf' }, 'body.fileName must match pattern "^[^/\\\\\\u0000-\\u001f]+$"');
    await invalid('sticker', { to: bob, url: url('/ok.png'), provider: 'whatsapp' }, 'body.provider is not allowed');
    await invalid('video-note', { url: url('/ok.png') }, 'body.to is required');
    await invalid('base64/image', { to: bob, base64: url('/ok.png') }, 'body.base64 must match pattern "^data:"');
    await invalid('base64/image', { to: bob, base64: 'data:image/png;base64,' }, 'body.base64 is empty');
    await invalid('base64/image', { to: bob, base64: 'data:text/plain;base64,aGk=' }, 'body.base64 has content type text/plain, which is not a valid image');
    await invalid('base64/audio', { to: bob, base64: 'data:audio/ogg,raw' }, 'body.base64 must be a base64 data URI (data:<mime>;base64,<data>)');
    await invalid('base64/document', { to: bob, base64: dataUri('application/pdf', SAMPLES.pdf), mimetype: 'pdf', fileName: 'a.pdf' }, 'body.mimetype must match pattern "^[\\w.+-]+/[\\w.+-]+$"');
  });

  it('400s naming the field for contacts, locations, links, reactions and presence', async () => {
    await invalid('contact', { to: bob, contact: { fullName: 'Ana' } }, 'body.contact.phoneNumber is required');
    await invalid('contact', { to: bob, contact: { fullName: 'Ana', phoneNumber: '+1 (2) 3-4' } }, 'body.contact.phoneNumber must have 6 to 15 digits with country code');
    await invalid('contacts', { to: bob, displayName: 'x', contacts: [] }, 'body.contacts must NOT have fewer than 1 items');
    await invalid('contacts', { to: bob, displayName: 'x', contacts: [{ fullName: 'A', phoneNumber: '5511999998888' }, { fullName: 'B', phoneNumber: '1234567890123456789' }] },
      'body.contacts[1].phoneNumber must have 6 to 15 digits with country code');
    await invalid('location', { to: bob, location: { latitude: 'x', longitude: 0 } }, 'body.location.latitude must be number');
    await invalid('location', { to: bob, location: { latitude: 0, longitude: 181 } }, 'body.location.longitude must be <= 180');
    await invalid('live-location', { to: bob, latitude: 1 }, 'body.longitude is required');
    await invalid('link', { to: bob, title: 't', text: 'x', sourceUrl: 'javascript:alert(1)' }, 'body.sourceUrl must be an absolute http or https URL');
    await invalid('link', { to: bob, title: 't', text: 'x' }, 'body.sourceUrl is required');
    await invalid('reaction', { text: 'ok', msgId: '3EB0000000000000000001' }, 'body.text must be a single emoji, or empty to remove the reaction');
    await invalid('reaction', { text: '👍👍', msgId: '3EB0000000000000000001' }, 'body.text must be a single emoji, or empty to remove the reaction');
    await invalid('reaction', { text: '👍' }, 'body.msgId is required');
    await invalid('reaction', { text: '👍', msgId: 'x', to: bob }, 'body.to is not allowed');
    await invalid('presence', { to: bob, status: 'typing' }, 'body.status must be one of "unavailable", "available", "composing", "recording", "paused"');
  });

  it('400s naming the field for interactive messages, polls, Pix, events, pins, call links, products and invites', async () => {
    const button = (id: string) => ({ type: 'quick_reply', id, text: id });
    await invalid('title', { to: bob, title: 'x', text: 'y', footer: 'f'.repeat(61) }, 'body.footer must NOT have more than 60 characters');
    await invalid('button_reply', { to: bob, text: 'x', buttons: [] }, 'body.buttons must NOT have fewer than 1 items');
    await invalid('button_reply', { to: bob, text: 'x', buttons: ['a', 'b', 'c', 'd'].map(button) }, 'body.buttons must NOT have more than 3 items');
    await invalid('button_reply', { to: bob, text: 'x', buttons: [button('a'), button('a')] }, 'body.buttons[1].id repeats an earlier button id');
    await invalid('button_reply', { to: bob, text: 'x', buttons: [{ type: 'url', id: 'a', text: 'A' }] }, 'body.buttons[0].type must be one of "quick_reply"');
    await invalid('button_reply', { to: bob, text: 'x', buttons: [{ type: 'quick_reply', id: 'a', text: 'a'.repeat(21) }] }, 'body.buttons[0].text must NOT have more than 20 characters');
    await invalid('button_action', { to: bob, text: 'x', buttons: [{ type: 'cta_url', text: 'Go' }] }, 'body.buttons[0].url is required on a cta_url button');
    await invalid('button_action', { to: bob, text: 'x', buttons: [{ type: 'cta_call', text: 'Go', phone_number: '5511999990000', url: 'https://a.example' }] },
      'body.buttons[0].url is not allowed on a cta_call button');
    await invalid('button_action', { to: bob, text: 'x', buttons: [{ type: 'cta_url', text: 'Go', url: 'ftp://a.example' }] }, 'body.buttons[0].url must be an absolute http or https URL');
    await invalid('survey', { to: bob, name: 'q', options: ['only'] }, 'body.options must NOT have fewer than 2 items');
    await invalid('survey', { to: bob, name: 'q', options: ['a', 'a'] }, 'body.options must NOT have duplicate items (items ## 1 and 0 are identical)');
    await invalid('poll', { to: bob, name: 'q', values: ['a', 'b'], selectableCount: 3 }, 'body.selectableCount must be at most the number of values (2)');
    await invalid('poll', { to: bob, name: 'q', values: Array.from({ length: 13 }, (_, i) => `o${i}`), selectableCount: 1 }, 'body.values must NOT have more than 12 items');
    const pix = {
      to: bob, title: 't', text: 'x', referenceId: 'r', code: 'c', key: 'k', merchantName: 'm', keyType: 'CNPJ',
      items: [{ id: 'a', name: 'A', price: 10, quantity: 2 }], subtotal: 25, totalAmount: 25,
    };
    await invalid('pix', pix, 'body.subtotal must equal the sum of price × quantity of the items (20.00)');
    await invalid('pix', { ...pix, subtotal: 20, keyType: 'cnpj' }, 'body.keyType must be one of "CPF", "CNPJ", "EMAIL", "PHONE", "EVP"');
    await invalid('pix', { ...pix, subtotal: 20, items: [{ id: 'a', name: 'A', price: 10, quantity: 1.5 }] }, 'body.items[0].quantity must be integer');
    await invalid('event', { to: bob, name: 'e', startTime: '2030-02-30T10:00:00Z' }, 'body.startTime must be a valid ISO 8601 UTC timestamp (for example 2025-06-01T18:30:00Z)');
    await invalid('event', { to: bob, name: 'e', startTime: '2030-05-01 10:00' }, 'body.startTime must match pattern "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?Z$"');
    await invalid('pin', { id: '3EB0000000000000000001', duration: 0 }, 'body.duration must be >= 1');
    await invalid('pin', { id: '3EB0000000000000000001' }, 'body.duration is required');
    await invalid('unpin', {}, 'body.id is required');
    await invalid('call-link', { to: bob, type: 'voice' }, 'body.type must be one of "audio", "video"');
    await invalid('create-call-link', {}, 'body.type is required');
    await invalid('product', { to: bob, businessOwnerJid: 'acme', productId: 'p', catalogId: 'c' },
      'body.businessOwnerJid must be a phone number with country code (6 to 15 digits) or a JID');
    await invalid('group-invite', { to: bob, groupJid: `${bob}@s.whatsapp.net`, groupName: 'g', inviteCode: 'AbCdEf123' }, 'body.groupJid must match pattern "^\\d{5,40}(-\\d{5,20})?(@g\\.us)?$"');
    await invalid('group-invite', { to: bob, groupJid: '1203630@g.us', groupName: 'g', inviteCode: 'a b' }, 'body.inviteCode must match pattern "^[A-Za-z0-9_-]{6,64}$"');
    await invalid('request-phone', {}, 'body.to is required');
  });

  it('media URLs answering 404 or the wrong content type are 400s; oversized media are 413s', async () => {
    await invalid('image', { to: bob, url: url('/missing.png') }, 'body.url could not be fetched: HTTP 404');
    await invalid('image', { to: bob, url: url('/page.html') }, 'body.url has content type text/html, which is not a valid image');
    // Stickers take WebP, PNG, JPEG and GIF (the WhatsApp channel converts them to WebP); other images are refused.
    await invalid('sticker', { to: bob, url: url('/icon.svg') }, 'body.url has content type image/svg+xml, which is not a valid sticker');
    await invalid('audio', { to: bob, url: url('/ok.png') }, 'body.url has content type image/png, which is not a valid audio');
    await invalid('link', { to: bob, title: 't', text: 'x', sourceUrl: 'https://a.example', thumbnailUrl: url('/page.html') },
      'body.thumbnailUrl has content type text/html, which is not a valid image');
    await expectError('image', { to: bob, url: url('/huge.png') }, 413, 'payload_too_large', `body.url is larger than ${MAX_MEDIA} bytes`);
    await expectError('base64/image', { to: bob, base64: dataUri('image/png', sampleBytes('x', MAX_MEDIA + 10)) }, 413, 'payload_too_large',
      `body.base64 is larger than ${MAX_MEDIA} bytes`);
    await expectError(`3EB0000000000000000001/image`, { to: bob, url: url('/huge.png') }, 404, 'message_not_found', 'message 3EB0000000000000000001 not found');
  });

  it('404 message_not_found for unknown reacted, pinned and unpinned messages', async () => {
    for (const [path, body] of [['reaction', { text: '❤️', msgId: '3EB0000000000000000009' }], ['pin', { id: '3EB0000000000000000009', duration: 86400 }],
      ['unpin', { id: '3EB0000000000000000009' }]] as const) {
      await expectError(path, body, 404, 'message_not_found', 'message 3EB0000000000000000009 not found');
    }
  });

  it('409 not_connected while the instance is not connected, before any media is fetched', async () => {
    // A message the offline instance received earlier, to react to and pin.
    const earlier = '3EB0000000000000000077';
    await p.t.server.context.storage.messages.upsert(offline.id, {
      key: { remoteJid: `${bob}@s.whatsapp.net`, fromMe: false, id: earlier }, message: { extendedTextMessage: { text: 'hi' } },
      messageTimestamp: '1700000000', status: 'DELIVERY_ACK', provider: 'whatsapp',
    });
    const hits = p.media.totalHits();
    const notConnected = 'the instance is not connected: connect it with POST /{key}/instance first';
    const cases: [string, unknown][] = [
      ['text', { to: bob, text: 'x' }], ['image', { to: bob, url: url('/ok.png') }], ['base64/audio', { to: bob, base64: dataUri('audio/ogg', SAMPLES.ogg) }],
      ['reaction', { text: '👍', msgId: earlier }], ['pin', { id: earlier, duration: 60 }], ['call-link', { to: bob, type: 'video' }],
      ['request-phone', { to: bob }], [`${earlier}/text`, { to: bob, text: 'x' }], ['3EB0000000000000000001/image', { to: bob, url: url('/ok.png') }],
    ];
    for (const [path, body] of cases) await expectError(path, body, 409, 'not_connected', notConnected, offline.key);
    await expectError('presence', { to: bob, status: 'available' }, 409, 'not_connected', notConnected, offline.key);
    await expectError('create-call-link', { type: 'video' }, 409, 'not_connected', notConnected, offline.key);
    assert.equal(p.media.totalHits(), hits);
  });

  it('409 channel_not_linked for a provider the instance has not linked, before any media is fetched', async () => {
    const hits = p.media.totalHits();
    for (const [path, body] of [
      ['text', { to: bob, text: 'x', provider: 'instagram' }], ['image', { to: bob, url: url('/ok.png'), provider: 'messenger' }],
      ['document', { to: bob, url: url('/ok.png'), mimetype: 'application/pdf', fileName: 'a.pdf', provider: 'instagram' }],
      ['button_action', { to: bob, text: 'x', buttons: [{ type: 'cta_copy', text: 'c', copy_code: 'X' }], provider: 'messenger' }],
    ] as const) {
      await expectError(path, body, 409, 'channel_not_linked', `${body.provider} is not linked to this instance`);
    }
    assert.equal(p.media.totalHits(), hits);
  });

  it('bad input stored and sent nothing', async () => {
    await p.t.settle();
    for (const phone of [p.alice, p.bob, offline]) {
      assert.deepEqual((await p.t.request('GET', `/${phone.key}/chat`)).body, { status: 200, data: [] });
      assert.equal(p.t.events.filter((e) => e.type === 'message' && e.instance === phone.id).length, 0);
      assert.equal(p.t.events.filter((e) => e.type === 'message.status' && e.instance === phone.id).length, 0);
    }
  });
});
