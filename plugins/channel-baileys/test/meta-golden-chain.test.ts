import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FakeSocket } from '../src/testing/index.js';
import { connectOpen, createHarness, INSTANCE_ID, OWN_JID, OWN_LID, PEER_JID, type Harness } from './harness.js';
import { EVENT, LIFECYCLE_IDS, MAIN_IDS, OPEN_CASES, POLL, render, T } from './meta-golden-cases.js';

// Spec 6.3 chained on an open connection; the cases and how they are checked are in meta-golden-cases.ts.
describe('spec 6.3 chained: Baileys event → adapter mapping → stamped event → meta payload', () => {
  it('covers every main-channel event id (and Parley extension id)', () => {
    assert.deepStrictEqual([...Object.keys(OPEN_CASES), ...LIFECYCLE_IDS].sort(), [...MAIN_IDS].sort());
  });

  describe('on an open connection', () => {
    const clock = { now: T * 1000 };
    let h: Harness;
    let socket: FakeSocket;

    before(async () => {
      h = await createHarness({ now: () => clock.now });
      socket = await connectOpen(h);
      await socket.signalRepository.lidMapping.storeLIDPNMappings([
        { lid: OWN_LID, pn: OWN_JID }, { lid: '98765432109876@lid', pn: '5511955554444@s.whatsapp.net' },
      ]);
      // The records of the poll and the event, with their secrets, as the send path stored them.
      const sent = (id: string, secret: Buffer, message: Record<string, unknown>) => h.storage.messages.upsert(INSTANCE_ID, {
        key: { remoteJid: PEER_JID, fromMe: true, id }, message: { ...message, messageContextInfo: { messageSecret: secret.toString('base64') } },
        messageTimestamp: String(T), status: 'READ', provider: 'whatsapp',
      });
      await sent(POLL.id, POLL.secret, { pollCreationMessage: { name: 'Toppings', options: [{ optionName: 'Cheese' }, { optionName: 'Olives' }], selectableOptionsCount: 2 } });
      await sent(EVENT.id, EVENT.secret, { eventMessage: { name: 'Launch party', startTime: String(T + 86_400) } });
    });
    after(() => h.adapter.stop());

    for (const id of MAIN_IDS) {
      const c = OPEN_CASES[id];
      if (!c) continue;
      it(id, async () => {
        clock.now = (T + c.offset) * 1000;
        h.events.length = 0;
        c.feed(socket);
        await h.settle();
        assert.equal(h.events.length, 1, `one event for ${id}, got ${JSON.stringify(h.events.map((e) => e.type))}`);
        assert.deepStrictEqual(render(h.events[0]!, c.offset), c.expected());
      });
    }
  });
});
