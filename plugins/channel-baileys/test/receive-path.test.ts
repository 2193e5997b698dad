import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChannelEventPayload, InboundMessage } from '@parley/core';
import { ReceivePath } from '../src/testing/index.js';
import { connectOpen, createHarness, PEER, PEER_JID } from './harness.js';

const T = 1_735_700_000;
const CAROL = '5511966665555';
const CAROL_JID = `${CAROL}@s.whatsapp.net`;

function text(from: string, id: string, timestamp: number, body: string, pushName: string, member: 'conversation' | 'extendedTextMessage'): ChannelEventPayload {
  const jid = `${from}@s.whatsapp.net`;
  const message: InboundMessage = {
    id, chatJid: jid, from, fromMe: false, timestamp, chatType: 'individual', pushName, content: { type: 'text', body },
    record: {
      key: { remoteJid: jid, fromMe: false, id }, message: member === 'conversation' ? { conversation: body } : { extendedTextMessage: { text: body } },
      messageTimestamp: String(timestamp), status: 'DELIVERY_ACK', provider: 'whatsapp', pushName,
    },
  };
  return { type: 'message', message };
}

describe("Baileys' own receive path (Signal-encrypted stanzas) → adapter events", () => {
  it('messages encrypted by two peers are decrypted by Baileys (pre-key message, then the ratchet) and arrive as message events', async () => {
    const h = await createHarness();
    const socket = await connectOpen(h);
    const path = await ReceivePath.create(socket, [PEER_JID, CAROL_JID]);
    await path.receive(PEER_JID, { conversation: 'first, opens the session' }, { id: '3EB0AA0000000000000001', timestamp: T + 1, pushName: 'Maria Silva' });
    await path.receive(CAROL_JID, { conversation: 'hi from Carla' }, { id: '3EB0AA0000000000000002', timestamp: T + 2, pushName: 'Carla Dias' });
    await path.receive(PEER_JID, { extendedTextMessage: { text: 'second, on the ratchet' } }, { id: '3EB0AA0000000000000003', timestamp: T + 3, pushName: 'Maria Silva' });
    await h.settle();
    // Each stanza's events leave Baileys' event buffer together: processMessage's chat update (the
    // unread increment is left to the host, which counts message events), the message, the push name.
    const cycle = (from: string, id: string, t: number, body: string, name: string, member: 'conversation' | 'extendedTextMessage') => [
      { type: 'chats.upsert', chats: [{ id: `${from}@s.whatsapp.net`, timestamp: t }] },
      text(from, id, t, body, name, member),
      { type: 'contacts.upsert', contacts: [{ id: `${from}@s.whatsapp.net`, notify: name }] },
    ];
    assert.deepStrictEqual(h.events, [
      ...cycle(PEER, '3EB0AA0000000000000001', T + 1, 'first, opens the session', 'Maria Silva', 'conversation'),
      ...cycle(CAROL, '3EB0AA0000000000000002', T + 2, 'hi from Carla', 'Carla Dias', 'conversation'),
      ...cycle(PEER, '3EB0AA0000000000000003', T + 3, 'second, on the ratchet', 'Maria Silva', 'extendedTextMessage'),
    ]);
    // The sessions were stored through the adapter's auth state.
    assert.deepStrictEqual(Object.keys(await socket.authState.keys.get('session', [`${PEER}.0`, `${CAROL}.0`])).sort(), [`${CAROL}.0`, `${PEER}.0`]);
    await h.adapter.stop();
  });
});
