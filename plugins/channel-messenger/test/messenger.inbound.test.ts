import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChannelEventPayload, MessageRecord } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { receivedFrom, testLink, useInboundHarness } from '@parley/meta-graph/testing';
import { createMessengerDriver } from '../src/index.js';

const PAGE = '106123456789012';
const USER = '7012345678901234';
const MID = 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBN';

const link = testLink('messenger', PAGE, { accessToken: 'EAAMpagetoken000000000000', appSecret: 'messenger-app-secret-abcdef012345', verifyToken: 'verify-token-messenger-5678' });

const received = receivedFrom('messenger', USER);

function status(messageId: string, value: 'read' | 'delivered', timestamp: number): ChannelEventPayload {
  return { type: 'message.status', messageId, chatJid: USER, recipientId: USER, status: value, timestamp };
}

describe('messenger webhook', () => {
  const inbound = useInboundHarness({
    testFileUrl: import.meta.url, createDriver: () => createMessengerDriver({ profileLookup: false }), storage: () => new MemoryStorage(),
    instanceId: 'ins_fb', link,
  });
  const { deliver, fixture, signed } = inbound;

  it('maps a text message (message-text-messenger)', async () => {
    assert.deepStrictEqual(await deliver('fb-text'), [
      received(`${MID}0A`, 1718000000, { type: 'text', body: 'Hello, do you ship to Lisbon?' }, { extendedTextMessage: { text: 'Hello, do you ship to Lisbon?' } }),
    ]);
  });

  it('maps an image, typed from the URL extension (message-image-messenger)', async () => {
    const url = 'https://scontent.xx.fbcdn.net/v/t1.15752-9/448311222_1234567890_n.png?_nc_cat=1&ccb=1-7&oh=00_AYB&oe=66A0B1C2';
    assert.deepStrictEqual(await deliver('fb-image'), [
      received(`${MID}0B`, 1718000001, { type: 'image', media: { id: `${MID}0B`, mimeType: 'image/png', sha256: '', link: url } }, {
        imageMessage: { url, mimetype: 'image/png' },
      }),
    ]);
  });

  it('maps a sticker image to a sticker and a file to a document named by its URL', async () => {
    await deliver('fb-sticker');
    await deliver('fb-file');
    const sticker = 'https://scontent.xx.fbcdn.net/v/t39.1997-6/851557_369239266556155_759568595_n.png?_nc_cat=1';
    const file = 'https://cdn.fbsbx.com/v/t59.2708-21/448000000_1000000000000000_1_n.pdf/invoice-2024-06.pdf?_nc_cat=104&oh=03_Q7&oe=66A0C3D4';
    assert.deepStrictEqual(inbound.harness.emitted, [
      received(`${MID}0C`, 1718000001, { type: 'sticker', media: { id: `${MID}0C`, mimeType: 'image/png', sha256: '', link: sticker }, animated: false }, {
        stickerMessage: { url: sticker, mimetype: 'image/png', isAnimated: false },
      }),
      received(`${MID}0D`, 1718000001, {
        type: 'document', media: { id: `${MID}0D`, mimeType: 'application/pdf', sha256: '', link: file }, filename: 'invoice-2024-06.pdf',
      }, { documentMessage: { url: file, mimetype: 'application/pdf', fileName: 'invoice-2024-06.pdf' } }),
    ]);
  });

  it('maps a quick reply to button_reply and a postback to button', async () => {
    await deliver('fb-quick-reply');
    await deliver('fb-postback');
    assert.deepStrictEqual(inbound.harness.emitted, [
      received(`${MID}0E`, 1718000002, { type: 'button_reply', id: 'size_m', title: 'Size M' }, {
        buttonsResponseMessage: { selectedButtonId: 'size_m', selectedDisplayText: 'Size M' },
      }),
      received(`${MID}0F`, 1718000002, { type: 'button', text: 'Track order', payload: 'TRACK_ORDER_123' }, {
        buttonsResponseMessage: { selectedButtonId: 'TRACK_ORDER_123', selectedDisplayText: 'Track order' },
      }),
    ]);
  });

  it('maps a delivery to one delivered status per mid (status-delivered-messenger)', async () => {
    assert.deepStrictEqual(await deliver('fb-delivery'), [status(`${MID}1A`, 'delivered', 1718000003), status(`${MID}1B`, 'delivered', 1718000003)]);
  });

  it('maps a watermark-only delivery and a read to statuses with an empty message id (status-read-messenger)', async () => {
    await deliver('fb-delivery-watermark');
    await deliver('fb-read');
    assert.deepStrictEqual(inbound.harness.emitted, [status('', 'delivered', 1718000003), status('', 'read', 1718000004)]);
  });

  it('moves the Page\'s stored messages a watermark covers, back to the last one already acknowledged', async () => {
    const sent = (id: string, seconds: number, value: MessageRecord['status'], fromMe = true): MessageRecord => ({
      key: { remoteJid: USER, fromMe, id }, message: { extendedTextMessage: { text: id } }, messageTimestamp: String(seconds), status: value, provider: 'messenger',
    });
    // fb-read's watermark is 1718000003900: messages of second 1718000003 and before are covered.
    for (const record of [
      sent('m_never-acked', 1718000000, 'SERVER_ACK'), // older than a read one: an earlier receipt covered it
      sent('m_read-before', 1718000001, 'READ'),
      sent('m_delivered', 1718000002, 'DELIVERY_ACK'),
      sent('m_from-user', 1718000003, 'DELIVERY_ACK', false),
      sent('m_pending', 1718000003, 'PENDING'),
      sent('m_after', 1718000004, 'SERVER_ACK'),
    ]) await inbound.storage.messages.upsert('ins_fb', record);
    assert.deepStrictEqual(await deliver('fb-read'), [
      status('', 'read', 1718000004), status('m_delivered', 'read', 1718000004), status('m_pending', 'read', 1718000004),
    ]);
  });

  it('maps an unreact to a reaction without emoji', async () => {
    const id = `${MID}1A-reaction-1718000005000`;
    assert.deepStrictEqual(await deliver('fb-unreact'), [
      received(id, 1718000005, { type: 'reaction', messageId: `${MID}1A` }, { reactionMessage: { key: { remoteJid: USER, id: `${MID}1A` }, text: '' } }),
    ]);
  });

  it('drops a notification with a bad signature (200, as for an unlinked page) and answers 401 without one; emits nothing', async () => {
    const body = fixture('fb-text');
    assert.deepStrictEqual(await inbound.harness.notify(body, signed(body, 'not-the-app-secret')), { status: 200, body: { received: 0 } });
    assert.equal((await inbound.harness.notify(body, {})).status, 401);
    assert.deepStrictEqual(inbound.harness.emitted, []);
  });

  it('answers 400 for an instagram body on the messenger route', async () => {
    const body = Buffer.from(fixture('fb-text').toString('utf8').replace('"object":"page"', '"object":"instagram"'));
    assert.equal((await inbound.harness.notify(body, signed(body))).status, 400);
  });

  it('verifies the subscription with the messenger verify token only', async () => {
    assert.deepStrictEqual(await inbound.harness.verify({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-token-messenger-5678', 'hub.challenge': '42' }), {
      status: 200, body: '42', contentType: 'text/plain',
    });
    assert.equal((await inbound.harness.verify({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-token-instagram-1234', 'hub.challenge': '42' })).status, 403);
  });
});
