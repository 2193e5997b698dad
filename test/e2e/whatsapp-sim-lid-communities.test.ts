import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * LID-addressed communities on the simulator (`groupAddressing: 'lid'`, as WhatsApp creates communities now): the
 * community, its announcement group and the groups created in it name members by LID with their numbers beside.
 * Parley answers them by number, as it answers LID-addressed groups (plugins/channel-baileys README): the
 * community's members, its join requests and the answers to approving them or removing members.
 */
describe('a LID-addressed WhatsApp community, on the simulator', () => {
  const env = useSimulatedWhatsApp({}, {}, { groupAddressing: 'lid' });

  it('created by the instance: LID-addressed with its groups; members, join requests, approvals and removals by number', { timeout: 120_000 }, async () => {
    const { sim } = env;
    const owner = sim.simulator.createAccount({ number: '5511987659601', pushName: 'Associação' });
    const bob = sim.simulator.createAccount({ number: '5511987659602', pushName: 'Bob' });
    const carla = sim.simulator.createAccount({ number: '5511987659603', pushName: 'Carla' });
    const { api } = await env.linkByQr(owner.number, 'lid-community');
    const created = (await api.call('createCommunity', { body: { name: 'Moradores', subject: 'Rua das Flores' } })).data;
    assert.deepEqual(sim.simulator.communityGroups(created.id).map((g) => [g.addressingMode, g.announce]), [['lid', true]], 'its announcement group');
    assert.equal(sim.simulator.getGroup(created.id).addressingMode, 'lid');
    assert.deepEqual(created.participants.map((p) => p.id), [owner.jid]);

    const group = (await api.call('createCommunityGroup', { params: { communityId: created.id }, body: { subject: 'Feira', participants: [bob.number] } })).data;
    assert.equal(sim.simulator.getGroup(group.id).addressingMode, 'lid');
    assert.deepEqual(group.participants.map((p) => p.id).sort(), [owner.jid, bob.jid].sort());

    sim.simulator.updateGroupMembers(owner.number, created.id, 'add', [bob.number]);
    const read = (await api.call('getCommunity', { params: { communityId: created.id } })).data;
    assert.deepEqual([read.owner, read.participants.map((p) => p.id).sort()], [owner.jid, [owner.jid, bob.jid].sort()]);

    await api.call('setCommunityJoinApproval', { params: { communityId: created.id }, body: { mode: 'on' } });
    assert.equal(sim.simulator.requestJoin(carla.number, created.id).outcome, 'requested');
    assert.deepEqual((await api.call('listCommunityJoinRequests', { params: { communityId: created.id } })).data.map((r) => r.jid), [carla.jid]);
    const approved = (await api.call('handleCommunityJoinRequests', { params: { communityId: created.id }, body: { participants: [carla.number], action: 'approve' } })).data;
    assert.deepEqual(approved, [{ jid: carla.jid, status: '200' }]);
    const removed = (await api.call('removeCommunityParticipants', { params: { communityId: created.id }, body: { participants: [bob.number] } })).data;
    assert.deepEqual(removed, [{ jid: bob.jid, status: '200' }]);
    assert.deepEqual(sim.simulator.getGroup(created.id).members.map((m) => m.number).sort(), [owner.number, carla.number].sort());
  });
});
