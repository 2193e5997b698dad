import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * Issue 25: the chat state a phone had before Parley linked (pinned, archived, muted, unread, a 1:1
 * disappearing timer) reaches Parley's chat list through the history sync, on Baileys' real socket against
 * the simulator, whatever Baileys does with the conditional app-state updates of its initial sync.
 */
describe('a newly linked WhatsApp instance lists its chats with the phone\'s chat state', () => {
  const env = useSimulatedWhatsApp();

  it('GET /{key}/chat shows pinned, archived, muted, unread and the disappearing timer from the history', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const shop = sim.simulator.createAccount({ number: '5511987658301', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987658302', pushName: 'Cliente' });
    const seeded = await sim.simulator.seedHistory(shop.number, { chats: 3, messagesPerChat: 4, unreadPerChat: 2 });
    const [pinned, archived, plain] = seeded.chats.map((c) => c.jid) as [string, string, string];
    const muteUntil = Date.now() + 8 * 3_600_000;
    await sim.simulator.changeAppState(shop.number, [
      { kind: 'pin', jid: pinned, pinned: true },
      { kind: 'mute', jid: pinned, muteEndTimestamp: muteUntil },
      { kind: 'archive', jid: archived, archived: true },
    ]);
    await sim.simulator.setDisappearing(shop.number, friend.number, 604_800);

    const { api } = await env.linkByQr(shop.number, 'chat-state');
    const chats = await t.waitFor(async () => {
      const list = (await api.call('listChats')).data;
      return [pinned, archived, plain, friend.jid].every((jid) => list.some((c) => c.id === jid)) ? list : undefined;
    }, 20_000, 'the history\'s chats');
    const of = (jid: string) => chats.find((c) => c.id === jid)!;
    assert.equal(of(pinned).pinned, true);
    assert.equal(of(pinned).mutedUntil, Math.floor(muteUntil / 1000));
    assert.equal(of(archived).archived, true);
    assert.ok(!of(plain).pinned && !of(plain).archived && !of(plain).mutedUntil, JSON.stringify(of(plain)));
    // Each seeded chat's last two messages from the contact are unread on the phone.
    assert.deepEqual([pinned, archived, plain].map((jid) => of(jid).unreadCount), [2, 2, 2]);
    assert.equal(of(friend.jid).ephemeralExpiration, 604_800);
  });
});
