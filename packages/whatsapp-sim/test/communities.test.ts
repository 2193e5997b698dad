import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunningSimulator } from '../src/index.js';
import { WAMessageStubType } from '@whiskeysockets/baileys';
import { TestClient, useSimulator, waitFor } from './client.js';

async function linked(sim: RunningSimulator, number: string): Promise<TestClient> {
  const client = new TestClient(sim.url);
  await client.link((qr) => sim.simulator.scanQr(number, qr));
  return client;
}

describe('communities and join requests with the Baileys socket', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  it('Baileys creates a community (the server adds its announcement group), creates and links groups in it, and lists them', { timeout: 60_000 }, async () => {
    const alice = sim.simulator.createAccount({ number: '5511987658001', pushName: 'Alice' });
    const bob = sim.simulator.createAccount({ number: '5511987658002', pushName: 'Bob' });
    const a = (await linked(sim, alice.number)).sock!;
    const community = await a.communityCreate('Bairro', 'Moradores da rua');
    assert.ok(community?.isCommunity, 'the answer is a community');
    assert.equal(community.subject, 'Bairro');
    assert.equal(community.desc, 'Moradores da rua');
    const announcement = sim.simulator.communityGroups(community.id);
    assert.deepEqual(announcement.map((g) => [g.defaultSubGroup, g.announce, g.linkedParent]), [[true, true, community.id]]);

    const inside = await a.communityCreateGroup('Feira', [bob.jid], community.id);
    assert.equal(inside?.linkedParent, community.id);
    const outside = await a.groupCreate('Vizinhos', [bob.jid]);
    await a.communityLinkGroup(outside.id, community.id);
    const linkedGroups = await a.communityFetchLinkedGroups(community.id);
    assert.equal(linkedGroups.isCommunity, true);
    assert.deepEqual(linkedGroups.linkedGroups.map((g) => g.subject).sort(), ['Bairro', 'Feira', 'Vizinhos']);
    assert.equal((await a.groupMetadata(outside.id)).linkedParent, community.id);
    await a.communityUnlinkGroup(outside.id, community.id);
    assert.equal(sim.simulator.getGroup(outside.id).linkedParent, undefined);
    // The community's metadata answer is a <group> with <parent>, as whatsmeow's parseGroupNode reads it.
    const meta = await a.groupMetadata(community.id);
    assert.equal(meta.isCommunity, true);
    const participating = await a.groupFetchAllParticipating();
    assert.equal(participating[community.id]?.isCommunity, true);

    // A member who is not an admin of the community may not link groups to it: 401 not-authorized.
    const b = (await linked(sim, bob.number)).sock!;
    await assert.rejects(b.communityLinkGroup(outside.id, community.id), (e: Error & { output?: { statusCode?: number } }) => e.output?.statusCode === 403 || /forbidden|not-authorized/.test(e.message));
    await a.communityLeave(community.id);
    assert.ok(!sim.simulator.getGroup(community.id).members.some((m) => m.number === alice.number));
    assert.ok(!sim.simulator.getGroup(inside!.id).members.some((m) => m.number === alice.number), 'leaving a community leaves its groups');
  });

  it('community settings: who adds members (member_add_mode), who adds groups, announcement; refused for non-admins and bad values', { timeout: 60_000 }, async () => {
    const alice = sim.simulator.createAccount({ number: '5511987658051', pushName: 'Alice' });
    const bob = sim.simulator.createAccount({ number: '5511987658052', pushName: 'Bob' });
    const carla = sim.simulator.createAccount({ number: '5511987658053', pushName: 'Carla' });
    const davi = sim.simulator.createAccount({ number: '5511987658054', pushName: 'Davi' });
    const a = (await linked(sim, alice.number)).sock!;
    const community = (await a.communityCreate('Condomínio', 'Bloco B'))!;
    // Baileys' communityCreate asks that members may add groups; admins only add members by default.
    assert.deepEqual([sim.simulator.getGroup(community.id).membersAddGroups, sim.simulator.getGroup(community.id).memberAddMode], [true, 'admin_add']);
    assert.equal((await a.groupMetadata(community.id)).memberAddMode, false);
    await a.groupParticipantsUpdate(community.id, [bob.jid], 'add');
    const bobClient = await linked(sim, bob.number);
    const b = bobClient.sock!;
    const refused = (status: number) => (e: Error & { data?: unknown }) => e.data === status;

    // Members add groups while the community lets them; not once an admin turns it off.
    const horta = await b.communityCreateGroup('Horta', [], community.id);
    assert.equal(sim.simulator.getGroup(horta!.id).linkedParent, community.id);
    await assert.rejects(b.communitySettingUpdate(community.id, 'not_allow_non_admin_sub_group_creation' as never), refused(401));
    await a.communitySettingUpdate(community.id, 'not_allow_non_admin_sub_group_creation' as never);
    assert.equal(sim.simulator.getGroup(community.id).membersAddGroups, false);
    await assert.rejects(b.communityCreateGroup('Piscina', [], community.id), refused(401));
    // A plain group has no such setting: 406.
    const plain = await a.groupCreate('Portaria', []);
    await assert.rejects(a.groupSettingUpdate(plain.id, 'allow_non_admin_sub_group_creation' as never), refused(406));

    // Who adds members: a member adds no one under admin_add, anyone under all_member_add, which Baileys reads back.
    await assert.rejects(b.groupParticipantsUpdate(community.id, [carla.jid], 'add'), refused(401));
    await assert.rejects(b.communityMemberAddMode(community.id, 'all_member_add'), refused(401));
    await assert.rejects(a.communityMemberAddMode(community.id, 'everyone' as never), refused(400));
    await a.communityMemberAddMode(community.id, 'all_member_add');
    assert.equal((await b.groupMetadata(community.id)).memberAddMode, true);
    const added = await b.groupParticipantsUpdate(community.id, [carla.jid], 'add');
    assert.deepEqual(added.map((r) => [r.status, r.jid]), [['200', carla.jid]]);
    await waitFor(() => bobClient.seen.upserts.some((m) => m.messageStubType === WAMessageStubType.GROUP_MEMBER_ADD_MODE && m.messageStubParameters?.[0] === 'all_member_add'), 'the member-add mode stub');
    // Removing stays the admins'.
    await assert.rejects(b.groupParticipantsUpdate(community.id, [carla.jid], 'remove'), refused(401));
    await a.communityMemberAddMode(community.id, 'admin_add');
    await assert.rejects(b.groupParticipantsUpdate(community.id, [davi.jid], 'add'), refused(401));

    await a.communitySettingUpdate(community.id, 'announcement');
    assert.equal((await a.groupMetadata(community.id)).announce, true);
    assert.equal(sim.simulator.getGroup(community.id).announce, true);

    // The phone changes the same settings through the control API; bad values change nothing.
    assert.equal(sim.simulator.changeGroup(alice.number, community.id, { memberAddMode: 'all_member_add' }).memberAddMode, 'all_member_add');
    assert.throws(() => sim.simulator.changeGroup(alice.number, community.id, { memberAddMode: 'anyone' as never }), /memberAddMode must be/);
    assert.throws(() => sim.simulator.changeGroup(alice.number, plain.id, { setting: 'allow_non_admin_sub_group_creation' }), /a community's setting/);
    assert.throws(() => sim.simulator.changeGroup(bob.number, community.id, { setting: 'allow_non_admin_sub_group_creation' }), /not-authorized/);
    assert.equal(sim.simulator.changeGroup(alice.number, community.id, { setting: 'allow_non_admin_sub_group_creation' }).membersAddGroups, true);
    assert.equal(sim.simulator.getGroup(plain.id).membersAddGroups, false);
  });

  it('a phone asks to join a group with approval on; Baileys lists the request, approves one and rejects another', { timeout: 60_000 }, async () => {
    const admin = sim.simulator.createAccount({ number: '5511987658011', pushName: 'Admin' });
    const carla = sim.simulator.createAccount({ number: '5511987658012', pushName: 'Carla' });
    const davi = sim.simulator.createAccount({ number: '5511987658013', pushName: 'Davi' });
    const a = (await linked(sim, admin.number)).sock!;
    const group = await a.groupCreate('Clube', []);
    await a.groupJoinApprovalMode(group.id, 'on');
    assert.equal((await a.groupMetadata(group.id)).joinApprovalMode, true);
    assert.deepEqual(sim.simulator.requestJoin(carla.number, group.id), { group: group.id, outcome: 'requested' });
    assert.deepEqual(sim.simulator.requestJoin(davi.number, group.id).outcome, 'requested');
    assert.equal(sim.simulator.getGroup(group.id).members.length, 1, 'a request is no membership');

    const requests = await a.groupRequestParticipantsList(group.id);
    assert.deepEqual(requests.map((r) => r.jid).sort(), [carla.jid, davi.jid].sort());
    assert.ok(requests.every((r) => Number(r.request_time) > 0 && r.request_method === 'invite_link'));
    assert.deepEqual(await a.groupRequestParticipantsUpdate(group.id, [carla.jid], 'approve'), [{ status: '200', jid: carla.jid }]);
    assert.deepEqual(await a.groupRequestParticipantsUpdate(group.id, [davi.jid, '5511900000000@s.whatsapp.net'], 'reject'),
      [{ status: '200', jid: davi.jid }, { status: '404', jid: '5511900000000@s.whatsapp.net' }]);
    const after = sim.simulator.getGroup(group.id);
    assert.deepEqual(after.members.map((m) => m.number).sort(), [admin.number, carla.number].sort());
    assert.deepEqual(after.requests, []);

    // A client joining by the invite link of an approval group gets its request recorded, not membership.
    const e = sim.simulator.createAccount({ number: '5511987658014', pushName: 'Eva' });
    const eva = (await linked(sim, e.number)).sock!;
    const code = await a.groupInviteCode(group.id);
    assert.equal(await eva.groupAcceptInvite(code!), undefined);
    assert.deepEqual(sim.simulator.getGroup(group.id).requests.map((r) => r.number), [e.number]);
  });

  it('the control API refuses bad input with clear JSON errors and changes nothing', { timeout: 30_000 }, async () => {
    const owner = sim.simulator.createAccount({ number: '5511987658031' });
    const control = `${sim.controlUrl}/accounts/${owner.number}`;
    const post = (path: string, body: unknown) => fetch(`${control}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const created = await post('/communities', { subject: 'Escola', participants: [] });
    assert.equal(created.status, 201);
    const community = await created.json() as { jid: string; community: boolean };
    assert.equal(community.community, true);
    const bad = await post('/communities', { subject: 'Escola', participants: 'todos' });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json() as { error: { code: string } }).error.code, 'validation_failed');
    const wrongAction = await post(`/groups/${community.jid}/requests`, { action: 'maybe', participants: [] });
    assert.equal(wrongAction.status, 400);
    const linkedList = await fetch(`${sim.controlUrl}/groups/${community.jid}/linked`);
    assert.equal(linkedList.status, 200);
    assert.equal((await linkedList.json() as unknown[]).length, 1);
    assert.equal(sim.simulator.listGroups(owner.number).length, 2, 'the refused calls created nothing');
  });
});
