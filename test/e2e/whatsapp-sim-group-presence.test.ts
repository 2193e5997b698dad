import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nativeWebhooks, useWebhookReceivers, type MetaChange } from '../support/simulated-webhooks.js';
import { at } from '../support/webhook-receivers.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * Presence in groups through the WhatsApp simulator over real HTTP: `POST /{key}/message/presence` with a group
 * `to` reaches every other member's phone as a chat state in the group with the instance as participant;
 * after `POST /{key}/chat/presence/subscribe` with the group, a member's typing arrives as a `presence` event
 * naming the member (by number, in a LID-addressed group too) and the group as `chatJid`, and as the spec's
 * meta `presence` change; a group the instance is not in answers 404 `group_not_found` and sends nothing.
 */
describe('WhatsApp through the simulator: presence and chat states in groups', () => {
  const wa = useSimulatedWhatsApp();
  const hooks = useWebhookReceivers();
  const metaOf = (path: string): MetaChange[] => at(hooks.receivers().webhookMessage, path)
    .map((r) => r.json as { object?: string; entry?: Array<{ changes: MetaChange[] }> })
    .filter((body) => body.object !== undefined).flatMap((body) => body.entry?.flatMap((e) => e.changes) ?? []).filter((c) => c.field === 'presence');

  it('sends chat states to a group\'s members, reports a member typing in it, and refuses a group the instance is not in', { timeout: 120_000 }, async () => {
    const { sim, t } = wa;
    const shop = sim.simulator.createAccount({ number: '5511987657201', pushName: 'Loja' });
    const owner = sim.simulator.createAccount({ number: '5511987657202', pushName: 'Dona' });
    const member = sim.simulator.createAccount({ number: '5511987657203', pushName: 'Cliente' });
    const { api } = await wa.linkByQr(shop.number, 'group-presence', (instance) => nativeWebhooks(instance, hooks.receivers(), 'group-presence', 'both'));
    const group = sim.simulator.createGroup(owner.number, 'Feira', [shop.number, member.number]);
    await t.waitFor(() => t.eventsOfType('group.update').find((e) => e.groups.some((g) => g.id === group.jid)), 20_000, 'the group joined');

    // Parley types, records and pauses in the group: each other member's phone gets it, the instance as participant.
    for (const status of ['composing', 'recording', 'paused'] as const) {
      const res = await api.call('sendPresence', { body: { to: group.jid, status } });
      assert.equal(res.message, `presence ${status} sent to ${group.jid}`);
    }
    const phoneGot = (number: string) => sim.simulator.signals(number).filter((s) => s.device === 'phone' && s.kind === 'chatstate')
      .map((s) => `${s.group} ${s.participant} ${s.state}`);
    await t.waitFor(() => phoneGot(owner.number).length === 3 && phoneGot(member.number).length === 3, 10_000, 'the members\' phones');
    for (const number of [owner.number, member.number]) {
      assert.deepEqual(phoneGot(number), ['composing', 'recording', 'paused'].map((state) => `${group.jid} ${shop.jid} ${state}`));
    }

    // Subscribed to the group, the instance reports a member's typing: the member, and the group as the chat.
    await api.call('subscribePresence', { body: { jid: group.jid } });
    const of = () => t.eventsOfType('presence').filter((e) => e.chatJid === group.jid);
    for (const state of ['composing', 'recording', 'paused'] as const) sim.simulator.sendChatState(member.number, group.jid, state);
    await t.waitFor(() => of().length === 3, 10_000, 'the member\'s chat states');
    // Baileys reports a pause as `available`; the group's own online count (its `<presence count>`) is no member's presence.
    assert.deepEqual(of().map((e) => `${e.jid} ${e.status}`), ['composing', 'recording', 'available'].map((s) => `${member.jid} ${s}`));
    assert.ok(t.eventsOfType('presence').every((e) => e.jid !== group.jid), 'no presence event names the group as a member');
    // Spec 6.3 `presence`: {wa_id, status}, the member's number.
    const meta = () => metaOf('group-presence').map((c) => c.value.presence as { wa_id: string; status: string });
    await t.waitFor(() => meta().length === 3, 10_000, 'the meta presence webhooks');
    assert.deepEqual(meta(), ['composing', 'recording', 'available'].map((status) => ({ wa_id: member.number, status })));

    // A group the instance is not in: 404 group_not_found, and nothing reaches its members.
    const other = sim.simulator.createGroup(owner.number, 'Outra', [member.number]);
    const before = sim.simulator.signals(owner.number).length;
    for (const [path, body] of [['message/presence', { to: other.jid, status: 'composing' }], ['chat/presence/subscribe', { jid: other.jid }]] as const) {
      const res = await t.request('POST', `/${api.key}/${path}`, body);
      assert.deepEqual([res.status, res.body.error.code], [404, 'group_not_found'], path);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(sim.simulator.signals(owner.number).length, before, 'nothing reached the other group');
  });

  it('reports a member typing in a LID-addressed group by number, and sends to it with the instance named by LID', { timeout: 120_000 }, async () => {
    const { sim, t } = wa;
    const { shop, carol, api, group } = await wa.shopInLidGroup('551198765721', 'lid-group-presence');
    await api.call('subscribePresence', { body: { jid: group.jid } });
    sim.simulator.sendChatState(carol.number, group.jid, 'composing');
    const event = await t.waitFor(() => t.eventsOfType('presence').find((e) => e.chatJid === group.jid), 10_000, 'Carol\'s typing');
    assert.deepEqual([event.jid, event.status], [carol.jid, 'composing']);

    await api.call('sendPresence', { body: { to: group.jid, status: 'recording' } });
    const got = () => sim.simulator.signals(carol.number).find((s) => s.device === 'phone' && s.kind === 'chatstate' && s.from === shop.jid);
    const record = await t.waitFor(got, 10_000, 'the chat state on Carol\'s phone');
    assert.deepEqual([record.group, record.participant, record.state], [group.jid, shop.lid, 'recording']);
  });
});
