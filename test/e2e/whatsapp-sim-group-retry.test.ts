import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/**
 * Retry receipts in a (LID-addressed) group, both ways. A member's phone that lost its sender keys cannot
 * decrypt the instance's next group message and asks for it again (`<receipt type="retry" from=group
 * participant=phone>`); Baileys resends it to the group with a fresh sender-key distribution, the phone
 * decrypts it, and the instance reports the member's delivery once. The other way, a member's group message
 * whose `skmsg` does not decrypt on the instance makes Baileys ask the phone, which resends it 1:1 with its
 * sender key (whatsmeow retry.go): the instance reports the message once, as what it is.
 */
describe('WhatsApp retry receipts in a group, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const env = useSimulatedWhatsApp();
  before(() => {
    ({ sim, t } = env);
  });

  async function groupWithShop(numbers: string[], name: string) {
    const [shop, owner, carol, dave] = numbers.map((number, i) => sim.simulator.createAccount({ number, pushName: ['Loja', 'Dona', 'Carol', 'Dave'][i] }));
    const { api } = await env.linkByQr(shop!.number, name);
    const { id } = (await api.call('getInstance')).instance as { id: string };
    const group = sim.simulator.createGroup(owner!.number, 'Atacado', [shop!.number, carol!.number, dave!.number], { addressingMode: 'lid' });
    await t.waitFor(() => t.eventsOfType('group.update', id).some((e) => e.groups.some((g) => g.id === group.jid && g.participants)), 20_000, 'the group joined');
    return { api, id, group, shop: shop!, owner: owner!, carol: carol!, dave: dave! };
  }

  it('a member\'s phone that lost its sender keys asks again: Baileys resends, the phone decrypts it, one delivery per member', { timeout: 120_000 }, async () => {
    const { api, id, group, shop, owner, carol, dave } = await groupWithShop(['5511987659501', '5511987659502', '5511987659503', '5511987659504'], 'group-retry-out');
    const first = (await api.call('sendText', { body: { to: group.jid, text: 'Bom dia' } })).data;
    await t.waitFor(() => sim.simulator.received(carol.number).some((m) => m.id === first.key.id), 20_000, 'the first message, which gives Carol the sender key');

    await sim.simulator.forgetSenderKeys(carol.number, group.jid);
    const second = (await api.call('sendText', { body: { to: group.jid, text: 'Promoção hoje' } })).data;
    const messageId = second.key.id;
    const got = await t.waitFor(() => sim.simulator.received(carol.number).find((m) => m.id === messageId), 20_000, 'Carol\'s phone to decrypt the resend');
    assert.deepEqual([got.text, got.group], ['Promoção hoje', group.jid]);
    assert.equal(sim.simulator.undecryptable(carol.number).filter((m) => m.id === messageId).length, 1, 'the first copy did not decrypt');
    assert.ok(sim.simulator.stanzas(shop.number, 'message').filter((s) => s.stanza.attrs.id === messageId).length >= 2, 'relayed again under the same id');

    const delivered = () => t.eventsOfType('message.status', id).filter((e) => e.messageId === messageId && e.status === 'delivered');
    await t.waitFor(() => [owner, carol, dave].every((m) => delivered().some((e) => e.participant === m.jid)), 20_000, 'every member\'s delivery');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const member of [owner, carol, dave]) {
      assert.equal(sim.simulator.received(member.number).filter((m) => m.id === messageId).length, 1, `once on ${member.pushName}'s phone`);
      assert.equal(delivered().filter((e) => e.participant === member.jid).length, 1, `one delivery from ${member.pushName}`);
    }
    assert.ok(t.eventsOfType('message', id).filter((e) => e.message.id === messageId).length <= 1, 'no second message event for the resend');
  });

  it('a member\'s message the instance cannot decrypt once: Baileys asks the phone, which resends it 1:1; one message event, stored once', { timeout: 120_000 }, async () => {
    const { api, id, group, shop, carol } = await groupWithShop(['5511987659511', '5511987659512', '5511987659513', '5511987659514'], 'group-retry-in');
    const sent = await sim.simulator.sendGroupText(carol.number, group.jid, 'Quero 10 caixas', { companions: 'garbled' });
    const inbound = await t.waitFor(() => t.eventsOfType('message', id).find((e) => e.message.id === sent.id), 20_000, 'the message event');
    assert.deepEqual([inbound.message.content, inbound.message.from, inbound.message.groupId], [{ type: 'text', body: 'Quero 10 caixas' }, carol.number, group.jid]);
    const retries = sim.simulator.sent(carol.number).find((m) => m.id === sent.id)?.retries ?? [];
    assert.equal(retries.length, 1, 'the instance asked once');
    assert.ok(sim.simulator.stanzas(shop.number, 'receipt').some((s) => s.stanza.attrs.type === 'retry' && s.stanza.attrs.id === sent.id && s.stanza.attrs.to === group.jid));
    const stored = (await api.call('getMessage', { params: { messageId: sent.id } })).data;
    assert.deepEqual([stored.key.remoteJid, stored.key.participant, (stored.message as { conversation?: string }).conversation], [group.jid, carol.jid, 'Quero 10 caixas']);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.deepEqual(t.eventsOfType('message', id).filter((e) => e.message.id === sent.id).map((e) => e.message.content.type), ['text'], 'one message event, no unsupported one');
    // The sender key came with the resend: the next message decrypts at once.
    const next = await sim.simulator.sendGroupText(carol.number, group.jid, 'E 5 sacos');
    await t.waitFor(() => t.eventsOfType('message', id).find((e) => e.message.id === next.id), 20_000, 'the next message');
    assert.equal(sim.simulator.sent(carol.number).find((m) => m.id === next.id)?.retries, undefined);
  });
});
