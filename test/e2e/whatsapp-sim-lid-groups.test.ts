import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/**
 * LID-addressed groups on the simulator (`addressing_mode="lid"`, as WhatsApp creates groups now): the metadata
 * names members by LID with their numbers beside, notifications, messages and receipts come from LIDs with
 * `participant_pn`. Parley presents them as it presents LID-addressed 1:1 chats (docs/rest-api.md): under the
 * numbers — in the group routes, the group events, a member's message and its statuses — and its own messages
 * into the group reach every member's phone.
 */
describe('a LID-addressed WhatsApp group, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const env = useSimulatedWhatsApp();
  before(() => {
    ({ sim, t } = env);
  });

  it('members by number in GET and events, a member\'s message and receipts by number, Parley\'s sends decrypted by every phone', { timeout: 150_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659301', pushName: 'Loja' });
    const owner = sim.simulator.createAccount({ number: '5511987659302', pushName: 'Dona' });
    const carol = sim.simulator.createAccount({ number: '5511987659303', pushName: 'Carol' });
    const dave = sim.simulator.createAccount({ number: '5511987659304', pushName: 'Dave' });
    const erin = sim.simulator.createAccount({ number: '5511987659305', pushName: 'Erin' });
    const frank = sim.simulator.createAccount({ number: '5511987659306', pushName: 'Frank' });
    const { api } = await env.linkByQr(shop.number, 'lid-group');
    const { id } = (await api.call('getInstance')).instance as { id: string };

    const group = sim.simulator.createGroup(owner.number, 'Atacado', [shop.number, carol.number], { addressingMode: 'lid' });
    assert.equal(group.addressingMode, 'lid');
    const joined = await t.waitFor(() => t.eventsOfType('group.update', id).flatMap((e) => e.groups).find((g) => g.id === group.jid && g.participants), 20_000, 'the group joined');
    const members = [`${owner.jid} superadmin`, `${shop.jid} null`, `${carol.jid} null`].sort();
    assert.deepEqual(joined.participants!.map((p) => `${p.id} ${p.admin}`).sort(), members);
    assert.equal(joined.owner, owner.jid);
    const read = async () => (await api.call('getGroup', { params: { groupJid: group.jid } })).data;
    assert.deepEqual((await read()).participants.map((p) => `${p.id} ${p.admin}`).sort(), members);
    assert.equal((await read()).owner, owner.jid);

    // The owner's phone adds Dave: the event names him and its author by number.
    sim.simulator.updateGroupMembers(owner.number, group.jid, 'add', [dave.number]);
    const added = await t.waitFor(() => t.eventsOfType('group.participants', id).find((e) => e.groupJid === group.jid && e.action === 'add'), 20_000, 'group.participants add');
    assert.deepEqual([added.participants, added.author], [[dave.jid], owner.jid]);

    // Carol writes from her LID (participant_pn beside): the message is hers by number, her LID beside.
    const said = await sim.simulator.sendGroupText(carol.number, group.jid, 'Quero 10 caixas');
    const inbound = await t.waitFor(() => t.eventsOfType('message', id).find((e) => e.message.id === said.id), 20_000, 'the group message');
    assert.deepEqual(
      [inbound.message.chatType, inbound.message.groupId, inbound.message.chatJid, inbound.message.from, inbound.message.fromUserId, inbound.message.record.key.participant],
      ['group', group.jid, group.jid, carol.number, carol.lid, carol.jid],
    );
    const stored = (await api.call('getMessage', { params: { messageId: said.id } })).data;
    assert.deepEqual([stored.key.remoteJid, stored.key.participant, stored.pushName], [group.jid, carol.jid, 'Carol']);
    // Her mentions name members by LID, as WhatsApp's apps do in such groups: Parley's are by number.
    const mention = await sim.simulator.sendMessage(carol.number, { group: group.jid }, { kind: 'mention', text: '@Dave @Loja', mentions: [dave.number, shop.number] });
    const mentioned = await t.waitFor(() => t.eventsOfType('message', id).find((e) => e.message.id === mention.id), 20_000, 'the message with mentions');
    assert.deepEqual(mentioned.message.mentions, [dave.jid, shop.jid]);

    // Parley writes into the group: usync by LID, the sender key to the members' LID devices; every phone decrypts it.
    const sent = (await api.call('sendText', { body: { to: group.jid, text: 'Temos sim!' } })).data;
    const wire = await t.waitFor(() => sim.simulator.stanzas(shop.number, 'message').find((s) => s.stanza.attrs.id === sent.key.id)?.stanza, 20_000, 'the stanza on the wire');
    const copies = (wire.content as Array<{ tag: string; content?: Array<{ attrs: Record<string, string> }> }>).find((c) => c.tag === 'participants')?.content ?? [];
    assert.equal(wire.attrs.addressing_mode, 'lid');
    assert.ok(copies.length > 0 && copies.every((c) => c.attrs.jid!.endsWith('@lid')), `sender key copies for LID devices: ${JSON.stringify(copies)}`);
    for (const member of [owner, carol, dave]) {
      const got = await t.waitFor(() => sim.simulator.received(member.number).find((m) => m.id === sent.key.id), 20_000, `${member.pushName}'s phone to decrypt it`);
      assert.deepEqual([got.text, got.group, got.fromNumber], ['Temos sim!', group.jid, shop.number]);
    }

    // Receipts come from the members' LIDs: Parley's statuses name them by number.
    sim.simulator.markRead(dave.number, sent.key.id);
    const status = await t.waitFor(() => t.eventsOfType('message.status', id).find((e) => e.messageId === sent.key.id && e.status === 'read'), 20_000, 'Dave\'s read status');
    assert.equal(status.participant, dave.jid);

    // The instance made an admin adds and removes through the routes: answered by number, the events likewise.
    sim.simulator.updateGroupMembers(owner.number, group.jid, 'promote', [shop.number]);
    const promoted = await t.waitFor(() => t.eventsOfType('group.participants', id).find((e) => e.groupJid === group.jid && e.action === 'promote'), 20_000, 'group.participants promote');
    assert.deepEqual(promoted.participants, [shop.jid]);
    const addedByApi = (await api.call('addGroupParticipants', { params: { groupJid: group.jid }, body: { participants: [erin.number] } })).data;
    assert.deepEqual(addedByApi, [{ jid: erin.jid, status: '200' }]);
    const removed = (await api.call('removeGroupParticipants', { params: { groupJid: group.jid }, body: { participants: [erin.number, carol.lid] } })).data;
    assert.deepEqual(removed, [{ jid: erin.jid, status: '200' }, { jid: carol.jid, status: '200' }]);
    const gone = await t.waitFor(() => t.eventsOfType('group.participants', id).find((e) => e.groupJid === group.jid && e.action === 'remove'), 20_000, 'group.participants remove');
    assert.deepEqual([[...gone.participants].sort(), gone.author], [[erin.jid, carol.jid].sort(), shop.jid]);
    // A join request is named by LID with its number beside; rejecting it is answered by number too (WhatsApp's
    // answer names the LID alone, and no member event tells the number).
    sim.simulator.setJoinApproval(owner.number, group.jid, true);
    assert.equal(sim.simulator.requestJoin(frank.number, group.jid).outcome, 'requested');
    assert.deepEqual((await api.call('listGroupJoinRequests', { params: { groupJid: group.jid } })).data.map((r) => r.jid), [frank.jid]);
    const rejected = (await api.call('handleGroupJoinRequests', { params: { groupJid: group.jid }, body: { participants: [frank.number], action: 'reject' } })).data;
    assert.deepEqual(rejected, [{ jid: frank.jid, status: '200' }]);
    assert.deepEqual([sim.simulator.getGroup(group.jid).requests, sim.simulator.getGroup(group.jid).members.map((m) => m.number).sort()],
      [[], [owner.number, shop.number, dave.number].sort()]);
  });
});
