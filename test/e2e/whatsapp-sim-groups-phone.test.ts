import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ParleyApiError } from '@parley/client';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { deliveredMeta, nativeWebhooks, useWebhookReceivers } from '../support/simulated-webhooks.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/**
 * The reverse of whatsapp-sim-groups: an admin's phone changes a group the instance is in (members, roles,
 * settings, who adds members, the description, the instance itself removed), and each change reaches Parley
 * as a `group.participants` / `group.update` event and in what the group routes answer. The webhooks of the
 * subject, description, announcement, promote and remove changes are in whatsapp-sim-verdicts.
 */
describe('WhatsApp group changes made on a phone, seen through Parley', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const hooks = useWebhookReceivers();
  const env = useSimulatedWhatsApp();
  before(() => {
    ({ sim, t } = env);
  });
  const participantsEvent = (groupJid: string, action: string, jids: string[]) => t.waitFor(() => t.eventsOfType('group.participants')
    .find((e) => e.groupJid === groupJid && e.action === action && JSON.stringify(e.participants) === JSON.stringify(jids)), 20_000, `group.participants ${action} ${jids}`);
  const refused = (status: number, code: string) => (e: unknown) => e instanceof ParleyApiError && e.status === status && e.code === code;

  it('members, roles, settings, member-add mode, join approval and description changed by the admin\'s phone reach Parley as events and in GET; the instance removed loses the group', { timeout: 150_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659201', pushName: 'Loja' });
    const owner = sim.simulator.createAccount({ number: '5511987659202', pushName: 'Dona' });
    const newbie = sim.simulator.createAccount({ number: '5511987659203', pushName: 'Novata' });
    const late = sim.simulator.createAccount({ number: '5511987659204', pushName: 'Atrasado' });
    const { api } = await env.linkByQr(shop.number, 'phone-admin', (instance) => nativeWebhooks(instance, hooks.receivers(), 'phone', 'both'));
    const group = sim.simulator.createGroup(owner.number, 'Feira', [shop.number]);
    await t.waitFor(() => t.eventsOfType('group.update').find((e) => e.groups.some((g) => g.id === group.jid)), 20_000, 'the group joined');
    assert.deepEqual((await api.call('listGroups')).data.map((g) => g.id), [group.jid]);
    const read = async () => (await api.call('getGroup', { params: { groupJid: group.jid } })).data;
    const roleOf = async (jid: string) => (await read()).participants.find((p) => p.id === jid)?.admin;
    assert.deepEqual((await read()).participants.map((p) => `${p.id} ${p.admin}`).sort(), [`${owner.jid} superadmin`, `${shop.jid} null`].sort());

    // A member the phone adds: the event (with its author), the spec's meta group-participants, and GET.
    sim.simulator.updateGroupMembers(owner.number, group.jid, 'add', [newbie.number]);
    const added = await participantsEvent(group.jid, 'add', [newbie.jid]);
    assert.equal(added.author, owner.jid);
    const change = await deliveredMeta(t, hooks.receivers(), 'webhookGroup', 'phone', (c) => c.field === 'groups' && c.value.groups.action === 'add', 'meta add');
    assert.deepEqual(change.value.groups, { event: 'participants_updated', id: group.jid, action: 'add', participants: [newbie.jid] });
    assert.equal(await roleOf(newbie.jid), null);

    // The instance made an admin, then a member again.
    sim.simulator.updateGroupMembers(owner.number, group.jid, 'promote', [shop.number]);
    await participantsEvent(group.jid, 'promote', [shop.jid]);
    assert.equal(await roleOf(shop.jid), 'admin');
    sim.simulator.updateGroupMembers(owner.number, group.jid, 'demote', [shop.number]);
    await participantsEvent(group.jid, 'demote', [shop.jid]);
    const demote = await deliveredMeta(t, hooks.receivers(), 'webhookGroup', 'phone', (c) => c.field === 'groups' && c.value.groups.action === 'demote', 'meta demote');
    assert.deepEqual(demote.value.groups, { event: 'participants_updated', id: group.jid, action: 'demote', participants: [shop.jid] });
    assert.equal(await roleOf(shop.jid), null);

    // Locked by the phone: GET says so, and the instance (no admin) may no longer edit the info.
    sim.simulator.changeGroup(owner.number, group.jid, { setting: 'locked' });
    await t.waitFor(() => t.eventsOfType('group.update').some((e) => e.groups.some((g) => g.id === group.jid && g.restrict === true)), 20_000, 'group.update restrict');
    assert.equal((await read()).restrict, true);
    await assert.rejects(api.call('updateGroup', { params: { groupJid: group.jid }, body: { name: 'Feira da Loja' } }), refused(403, 'not_admin'));
    assert.equal(sim.simulator.getGroup(group.jid).subject, 'Feira');

    // Every member may add once the phone says so: the instance adds through the route; removing stays the admins'.
    await assert.rejects(api.call('addGroupParticipants', { params: { groupJid: group.jid }, body: { participants: [late.number] } }), refused(403, 'not_admin'));
    sim.simulator.changeGroup(owner.number, group.jid, { memberAddMode: 'all_member_add' });
    await t.waitFor(() => t.eventsOfType('group.update').some((e) => e.groups.some((g) => g.id === group.jid && g.memberAddMode === 'all_member_add')), 20_000, 'group.update memberAddMode');
    assert.equal((await read()).memberAddMode, 'all_member_add');
    const joined = (await api.call('addGroupParticipants', { params: { groupJid: group.jid }, body: { participants: [late.number] } })).data;
    assert.deepEqual(joined, [{ jid: late.jid, status: '200' }]);
    assert.ok(sim.simulator.getGroup(group.jid).members.some((m) => m.number === late.number));
    await assert.rejects(api.call('removeGroupParticipants', { params: { groupJid: group.jid }, body: { participants: [late.number] } }), refused(403, 'not_admin'));

    // Join approval turned on by the phone.
    sim.simulator.setJoinApproval(owner.number, group.jid, true);
    await t.waitFor(() => t.eventsOfType('group.update').some((e) => e.groups.some((g) => g.id === group.jid && g.joinApprovalMode === true)), 20_000, 'group.update joinApprovalMode');
    assert.equal((await read()).joinApprovalMode, true);

    // A description set, then removed, by the phone.
    sim.simulator.changeGroup(owner.number, group.jid, { description: 'Sábados, 8h' });
    await t.waitFor(() => t.eventsOfType('group.update').some((e) => e.groups.some((g) => g.id === group.jid && g.desc === 'Sábados, 8h')), 20_000, 'group.update desc');
    assert.equal((await read()).desc, 'Sábados, 8h');
    sim.simulator.changeGroup(owner.number, group.jid, { description: null });
    await t.waitFor(async () => (await read()).desc === '', 20_000, 'the description removed in GET');

    // The phone removes the instance: the event names it, and the group is gone for it.
    sim.simulator.updateGroupMembers(owner.number, group.jid, 'remove', [shop.number]);
    await participantsEvent(group.jid, 'remove', [shop.jid]);
    await assert.rejects(read(), refused(404, 'group_not_found'));
    assert.deepEqual((await api.call('listGroups')).data, []);
  });

  it('the instance added to an existing group by a phone: the add event names it, the group is listed and read, and its text reaches the members', { timeout: 90_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659221', pushName: 'Loja' });
    const owner = sim.simulator.createAccount({ number: '5511987659222', pushName: 'Dona' });
    const { api } = await env.linkByQr(shop.number, 'added-later');
    const group = sim.simulator.createGroup(owner.number, 'Fornecedores', []);
    await assert.rejects(api.call('getGroup', { params: { groupJid: group.jid } }), refused(404, 'group_not_found'));
    sim.simulator.updateGroupMembers(owner.number, group.jid, 'add', [shop.number]);
    const added = await participantsEvent(group.jid, 'add', [shop.jid]);
    assert.equal(added.author, owner.jid);
    assert.deepEqual((await api.call('listGroups')).data.map((g) => g.id), [group.jid]);
    const read = (await api.call('getGroup', { params: { groupJid: group.jid } })).data;
    assert.deepEqual(read.participants.map((p) => `${p.id} ${p.admin}`).sort(), [`${owner.jid} superadmin`, `${shop.jid} null`].sort());
    const sent = await api.call('sendText', { body: { to: group.jid, text: 'Chegamos' } });
    const got = await t.waitFor(() => sim.simulator.received(owner.number).find((m) => m.id === sent.data.key.id), 20_000, 'the owner\'s phone to decrypt');
    assert.deepEqual([got.text, got.group, got.fromNumber], ['Chegamos', group.jid, shop.number]);
  });

  it('a community the instance is not in, a plain group through the community routes, and unknown codes: 404, nothing changed', { timeout: 90_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659211', pushName: 'Loja' });
    const owner = sim.simulator.createAccount({ number: '5511987659212', pushName: 'Associação' });
    const { api } = await env.linkByQr(shop.number, 'community-missing');
    const community = sim.simulator.createCommunity(owner.number, 'Bairro', []);
    const before = JSON.stringify(sim.simulator.getGroup(community.jid));
    const params = { communityId: community.jid };
    await assert.rejects(api.call('getCommunity', { params }), refused(404, 'community_not_found'));
    await assert.rejects(api.call('changeCommunitySetting', { params, body: { setting: 'announcement' } }), refused(404, 'community_not_found'));
    await assert.rejects(api.call('leaveCommunity', { params }), refused(404, 'community_not_found'));
    assert.equal(JSON.stringify(sim.simulator.getGroup(community.jid)), before);
    // A plain group the instance is in is no community.
    const group = sim.simulator.createGroup(owner.number, 'Feira', [shop.number]);
    await t.waitFor(() => t.eventsOfType('group.update').find((e) => e.groups.some((g) => g.id === group.jid)), 20_000, 'the group joined');
    await assert.rejects(api.call('getCommunity', { params: { communityId: group.jid } }), refused(404, 'community_not_found'));
    // The community routes that change something refuse a plain group before touching it: leaving would leave it.
    const inGroup = JSON.stringify(sim.simulator.getGroup(group.jid));
    await assert.rejects(api.call('leaveCommunity', { params: { communityId: group.jid } }), refused(404, 'community_not_found'));
    await assert.rejects(api.call('changeCommunitySetting', { params: { communityId: group.jid }, body: { setting: 'announcement' } }), refused(404, 'community_not_found'));
    assert.equal(JSON.stringify(sim.simulator.getGroup(group.jid)), inGroup, 'still a member, nothing changed');
    // Likewise a group the instance administers.
    const own = (await api.call('createGroup', { body: { name: 'Nossa loja', participants: [owner.number] } })).data;
    const ownBefore = JSON.stringify(sim.simulator.getGroup(own.id));
    await assert.rejects(api.call('updateCommunity', { params: { communityId: own.id }, body: { subject: 'Outro nome' } }), refused(404, 'community_not_found'));
    await assert.rejects(api.call('createCommunityGroup', { params: { communityId: own.id }, body: { subject: 'Sub', participants: [owner.number] } }), refused(404, 'community_not_found'));
    assert.equal(JSON.stringify(sim.simulator.getGroup(own.id)), ownBefore);
    // A code WhatsApp never issued, and one the phone revoked.
    const revoked = sim.simulator.getGroup(group.jid).inviteCode;
    sim.simulator.revokeInvite(owner.number, group.jid);
    for (const code of ['AAAAAAAAAAAAAAAAAAAAAA', revoked]) {
      await assert.rejects(api.call('getCommunityInviteInfo', { query: { code } }), refused(404, 'invite_not_found'));
      await assert.rejects(api.call('acceptCommunityInvite', { body: { code } }), refused(404, 'invite_not_found'));
    }
  });
});
