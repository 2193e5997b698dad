import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_CONNECTION_CONFIG, generateLoginNode, generateRegistrationNode, processHistoryMessage, proto, type SocketConfig,
} from '@whiskeysockets/baileys';
import Long from 'long';
import { connectOpen, createHarness, ME, PEER_JID } from './harness.js';

const T = 1_735_700_000;
const Status = proto.WebMessageInfo.Status;

/** What Baileys announces to WhatsApp for a socket config: the login payload's web info and the pairing device props. */
function announced(config: Partial<SocketConfig>): { webSubPlatform: unknown; platformType: unknown; requireFullSync: unknown; os: unknown } {
  const full = { ...DEFAULT_CONNECTION_CONFIG, ...config } as SocketConfig;
  const login = generateLoginNode(ME.id, full);
  const registration = generateRegistrationNode(full.auth.creds, full);
  const props = proto.DeviceProps.decode(registration.devicePairingData!.deviceProps!);
  return { webSubPlatform: login.webInfo?.webSubPlatform, platformType: props.platformType, requireFullSync: props.requireFullSync, os: props.os };
}

describe('history sync', () => {
  it('syncFullHistory announces a desktop browser (macOS Desktop), which WhatsApp sends the full history to; the default stays a web browser', async () => {
    const full = await createHarness({ options: { syncFullHistory: true, browserName: 'Acme' } });
    const fullConfig = (await connectOpen(full)).config;
    assert.deepStrictEqual([fullConfig.browser, fullConfig.syncFullHistory], [['Mac OS', 'Desktop', '14.4.1'], true]);
    assert.deepStrictEqual(announced(fullConfig), {
      webSubPlatform: proto.ClientPayload.WebInfo.WebSubPlatform.DARWIN, platformType: proto.DeviceProps.PlatformType.DESKTOP,
      requireFullSync: true, os: 'Mac OS',
    });
    await full.adapter.stop();

    const recent = await createHarness({ options: { browserName: 'Acme' } });
    const recentConfig = (await connectOpen(recent)).config;
    assert.deepStrictEqual([recentConfig.browser, recentConfig.syncFullHistory], [['Acme', 'Chrome', '22.04.4'], false]);
    assert.deepStrictEqual(announced(recentConfig), {
      webSubPlatform: proto.ClientPayload.WebInfo.WebSubPlatform.WEB_BROWSER, platformType: proto.DeviceProps.PlatformType.CHROME,
      requireFullSync: false, os: 'Acme',
    });
    await recent.adapter.stop();
  });

  it('messages of a decoded history sync carry Long timestamps; records and chats get the right seconds', async () => {
    const h = await createHarness();
    const socket = await connectOpen(h);
    // A history sync as WhatsApp sends it: protobuf bytes, decoded by Baileys' proto (uint64 → Long).
    const bytes = proto.HistorySync.encode({
      syncType: proto.HistorySync.HistorySyncType.RECENT,
      progress: 100,
      conversations: [{
        id: PEER_JID, name: 'Maria Silva', unreadCount: 1, conversationTimestamp: Long.fromNumber(T - 60, true),
        messages: [
          { message: { key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0F00000000000000000A1' }, message: { conversation: 'Latest' }, messageTimestamp: Long.fromNumber(T - 60, true), status: Status.DELIVERY_ACK } },
          { message: { key: { remoteJid: PEER_JID, fromMe: true, id: '3EB0F00000000000000000A0' }, message: { conversation: 'Earlier' }, messageTimestamp: Long.fromNumber(T - 3600, true), status: Status.READ } },
        ],
      }],
    }).finish();
    const data = processHistoryMessage(proto.HistorySync.decode(bytes));
    // protobufjs loads long's CommonJS build, this test its ESM build: `isLong` recognizes both.
    for (const message of data.messages) assert.ok(Long.isLong(message.messageTimestamp), 'Baileys hands history timestamps over as Long');
    assert.ok(Long.isLong(data.chats[0]!.conversationTimestamp));

    socket.emit('messaging-history.set', { ...data, isLatest: true });
    // A chunk built by hand with signed Longs, past 2^31 seconds (2038), maps too.
    const late = Long.fromString('2208988800');
    socket.emit('messaging-history.set', {
      chats: [], contacts: [], isLatest: false,
      messages: [{ key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0F00000000000000000A2' }, message: proto.Message.fromObject({ conversation: 'From 2040' }), messageTimestamp: late }],
    });
    await h.settle();

    const history = h.eventsOf('history');
    assert.deepStrictEqual(history[0], {
      type: 'history', isLatest: true, progress: 100,
      messages: [
        { key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0F00000000000000000A1' }, message: { conversation: 'Latest' }, messageTimestamp: String(T - 60), status: 'DELIVERY_ACK', provider: 'whatsapp' },
        { key: { remoteJid: PEER_JID, fromMe: true, id: '3EB0F00000000000000000A0' }, message: { conversation: 'Earlier' }, messageTimestamp: String(T - 3600), status: 'READ', provider: 'whatsapp' },
      ],
      chats: [{ id: PEER_JID, name: 'Maria Silva', timestamp: T - 60, unreadCount: 1 }],
      contacts: [{ id: PEER_JID, name: 'Maria Silva', notify: '' }],
    });
    assert.deepStrictEqual(history[1]!.messages.map((m) => [m.key.id, m.messageTimestamp]), [['3EB0F00000000000000000A2', '2208988800']]);
    assert.equal(new Date(Number(history[1]!.messages[0]!.messageTimestamp) * 1000).toISOString(), '2040-01-01T00:00:00.000Z');
    await h.adapter.stop();
  });
});
