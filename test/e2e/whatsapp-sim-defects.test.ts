import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/** Largest history event, in records (the channel's HISTORY_EVENT_RECORDS, written out on purpose). */
const HISTORY_EVENT_RECORDS = 500;

/**
 * Defects of issue 25 proven on Baileys' real socket against the simulator rather than a fake socket:
 * the recipient lookup (3), bounded history events (6) and the account's own messages sent from its
 * phone (11).
 */
describe('issue 25 defects, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const env = useSimulatedWhatsApp();
  before(() => {
    ({ sim, t } = env);
  });

  // Defect 3: the simulator's usync answers `contact type="out"` for a number with no account.
  it('a send to a number not on WhatsApp is a 404 not_on_whatsapp: nothing queued, no stanza reaches the server', { timeout: 60_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659301', pushName: 'Loja' });
    const { api } = await env.linkByQr(shop.number, 'not-on-whatsapp');
    const res = await t.request('POST', `/${api.key}/message/text`, { to: '5511987659399', text: 'alô?' });
    assert.deepStrictEqual({ status: res.status, body: res.body }, {
      status: 404, body: { status: 404, error: { code: 'not_on_whatsapp', message: 'WhatsApp account of 5511987659399 not found' } },
    });
    assert.deepStrictEqual((await api.call('listQueue')).data, []);
    assert.deepStrictEqual((await api.call('listChats')).data.filter((c: { id: string }) => c.id.startsWith('5511987659399')), []);
    assert.deepStrictEqual(sim.simulator.stanzas(shop.number, 'message').filter((s) => (s.stanza.attrs.to ?? '').startsWith('5511987659399')), []);
  });

  // Defect 6: the phone's whole history arrives in one Baileys set; Parley splits it into bounded events.
  it(`a history of 1200 messages arrives as events of at most ${HISTORY_EVENT_RECORDS} records, each message once, isLatest on the last only, images without their inline previews`, { timeout: 90_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659311', pushName: 'Loja' });
    // Every 25th message an image whose message carries the inline preview (jpegThumbnail) phones put there.
    const seeded = await sim.simulator.seedHistory(shop.number, { chats: 24, messagesPerChat: 50, mediaEvery: 25 });
    const { api } = await env.linkByQr(shop.number, 'big-history');
    const instance = (await api.call('getInstance')).instance.id;
    const histories = () => t.events.flatMap((e) => (e.type === 'history' && e.instance === instance ? [e] : []));
    const expected = seeded.chats.flatMap((c) => c.messageIds).sort();
    await t.waitFor(() => histories().flatMap((e) => e.messages).length >= expected.length, 30_000, 'the whole history');
    const events = histories();
    assert.ok(events.length >= 3, `${events.length} events`);
    for (const event of events) assert.ok(event.messages.length <= HISTORY_EVENT_RECORDS, `${event.messages.length} records in one event`);
    assert.deepStrictEqual(events.flatMap((e) => e.messages.map((m) => m.key.id!)).sort(), expected);
    assert.deepStrictEqual(events.map((e) => e.isLatest).slice(0, -1).filter(Boolean), []);
    const images = events.flatMap((e) => e.messages.filter((m) => m.message && 'imageMessage' in m.message));
    assert.equal(images.length, 48, 'two images in each chat');
    assert.equal(JSON.stringify(events).includes('jpegThumbnail'), false, 'no inline preview in a history event');
    const stored = await api.call('getMessage', { params: { messageId: images[0]!.key.id! } });
    assert.equal(JSON.stringify(stored.data).includes('jpegThumbnail'), false, 'nor in the stored record');
  });

  // Defect 6, the other order of one buffered window: a text that reaches the account while its new device
  // restarts after pairing waits in the device's offline queue and is in the history the phone builds at
  // its first login; Baileys flushes both at once (the history set first), and it is one message event.
  it('a text that arrives while the new device restarts after pairing: in its history and its offline queue, one message event', { timeout: 60_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659331', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987659332', pushName: 'Cliente' });
    const created = await t.createInstance({ channel: 'whatsapp', name: 'linking-window' });
    const api = t.client(created.key);
    const connecting = await api.call('connectInstance');
    await sim.simulator.scanQr(shop.number, connecting.qrcode);
    // The device is linked; the network refuses its login until the friend's text waits for it.
    await sim.simulator.startOutage('refuse');
    let sent: { id: string };
    try {
      sent = await sim.simulator.sendText(friend.number, shop.number, 'Chegou enquanto vinculava');
    } finally {
      await sim.simulator.endOutage();
    }
    await t.waitFor(async () => (await api.call('getInstance')).instance.phoneConnected, 30_000, 'the first login');
    const mine = (e: { instance?: string }) => e.instance === created.id;
    const histories = () => t.events.flatMap((e) => (e.type === 'history' && mine(e) ? e.messages.map((m) => m.key.id) : []));
    const messages = () => t.events.filter((e) => e.type === 'message' && mine(e) && e.message.id === sent.id);
    await t.waitFor(() => histories().includes(sent.id) && messages().length > 0, 20_000, 'the text in the history and as a message');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.equal(messages().length, 1, 'one message event');
  });

  // Defect 11: a text the account's phone sends reaches the linked device as `deviceSentMessage`; it is
  // the account's own message (from me), addressed to the friend's chat, not a message from the friend.
  it('a text the account\'s phone sends is a from-me message in the friend\'s chat', { timeout: 60_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659321', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987659322', pushName: 'Cliente' });
    const { api } = await env.linkByQr(shop.number, 'own-phone');
    const sent = await sim.simulator.sendText(shop.number, friend.number, 'Enviado do celular');
    const event = await t.waitFor(() => t.events.find((e) => e.type === 'message' && e.message.id === sent.id), 20_000, 'the phone\'s own text');
    assert.ok(event.type === 'message');
    assert.deepStrictEqual([event.message.fromMe, event.message.chatJid, event.message.content], [true, friend.jid, { type: 'text', body: 'Enviado do celular' }]);
    const stored = await api.call('getMessage', { params: { messageId: sent.id } });
    assert.deepStrictEqual([stored.data.key.fromMe, stored.data.key.remoteJid], [true, friend.jid]);
  });
});
