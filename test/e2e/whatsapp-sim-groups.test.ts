import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ParleyApiError, type InstanceClient } from '@parley/client';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { delivered, deliveredMeta, nativeWebhooks, useWebhookReceivers, type MetaChange, type NativeBody } from '../support/simulated-webhooks.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/**
 * The group routes of spec 4.10 driven through Parley's REST API, with the channel's real Baileys socket,
 * against the WhatsApp simulator: each change is checked on the simulated server (`getGroup`), in a
 * member's own Parley instance, and in the group webhooks (native and meta, spec 6.3 `group-update`,
 * `group-participants`) the instance that made it receives. Join requests, joining a phone's group and
 * the invite card are in whatsapp-simulator-social and whatsapp-sim-send-rich; changes made by phones in
 * whatsapp-sim-groups-phone.
 */
describe('WhatsApp group routes through the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const hooks = useWebhookReceivers();
  const env = useSimulatedWhatsApp();
  before(() => {
    ({ sim, t } = env);
  });
  const native = (path: string, match: (body: NativeBody) => boolean, what: string) => delivered(t, hooks.receivers(), 'webhookGroup', path, match, what);
  const meta = (path: string, match: (change: MetaChange) => boolean, what: string) => deliveredMeta(t, hooks.receivers(), 'webhookGroup', path, match, what);
  const refused = (status: number, code: string, field?: string) => (e: unknown) => {
    assert.ok(e instanceof ParleyApiError, String(e));
    assert.deepEqual([e.status, e.code], [status, code], e.message);
    if (field) assert.match(e.message, new RegExp(field.replace(/[.[\]]/g, '\\$&')));
    return true;
  };
  const linked = async (number: string, name: string, path: string): Promise<InstanceClient> =>
    (await env.linkByQr(number, name, (api) => nativeWebhooks(api, hooks.receivers(), path, 'both'))).api;
  const roles = (jid: string) => sim.simulator.getGroup(jid).members.map((m) => `${m.number} ${m.role}`).sort();
  /** The native `group.participants` webhook of one change, and its meta twin (spec 6.3 group-participants). */
  const participantsHook = async (path: string, groupJid: string, action: string, jids: string[]) => {
    const same = (list: string[]) => JSON.stringify([...list].sort()) === JSON.stringify([...jids].sort());
    const body = await native(path, (b) => b.type === 'group.participants' && b.data.groupJid === groupJid && b.data.action === action && same(b.data.participants), `native ${action} ${jids}`);
    const change = await meta(path, (c) => c.field === 'groups' && c.value.groups.event === 'participants_updated' && c.value.groups.id === groupJid
      && c.value.groups.action === action && same(c.value.groups.participants), `meta ${action} ${jids}`);
    assert.deepEqual(Object.keys(change.value.groups).sort(), ['action', 'event', 'id', 'participants']);
    return body.data as { author?: string };
  };

  it('creates a group (a number not on WhatsApp left out), reads it, edits its info and settings, and the webhooks tell each change', { timeout: 120_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659001', pushName: 'Loja' });
    const bob = sim.simulator.createAccount({ number: '5511987659002', pushName: 'Bob' });
    const carol = sim.simulator.createAccount({ number: '5511987659003', pushName: 'Carol' });
    const stranger = '5511987659099';
    const api = await linked(shop.number, 'groups-admin', 'shop');

    const group = (await api.call('createGroup', { body: { name: 'Atacado', participants: [bob.number, carol.jid, stranger] } })).data;
    assert.deepEqual(roles(group.id), [`${shop.number} superadmin`, `${bob.number} member`, `${carol.number} member`].sort());
    assert.deepEqual([group.subject, group.owner], ['Atacado', shop.jid]);
    assert.deepEqual(group.participants.map((p) => `${p.id} ${p.admin}`).sort(), [`${shop.jid} superadmin`, `${bob.jid} null`, `${carol.jid} null`].sort());
    // The creation reaches the creator's own webhooks as the whole group (spec 6.3 group-update).
    const created = await native('shop', (b) => b.type === 'group.update' && b.data.groups.some((g: { id: string; subject?: string }) => g.id === group.id && g.subject === 'Atacado'), 'the creation');
    assert.equal(created.data.groups.find((g: { id: string }) => g.id === group.id).participants.length, 3);

    const read = (await api.call('getGroup', { params: { groupJid: group.id } })).data;
    assert.deepEqual([read.id, read.subject, read.desc, read.announce, read.restrict, read.memberAddMode], [group.id, 'Atacado', '', false, false, 'admin_add']);
    assert.deepEqual(read.participants, group.participants);
    // The group id's digits alone name it too (docs/rest-api.md Groups).
    const members = (await api.call('listGroupMembers', { params: { groupJid: group.id.split('@')[0]! } })).data;
    assert.deepEqual(members, read.participants);
    assert.deepEqual((await api.call('listGroups')).data.map((g) => g.id), [group.id]);

    const edited = (await api.call('updateGroup', { params: { groupJid: group.id }, body: { name: 'Atacado SP', description: 'Pedidos até 18h' } })).data;
    assert.deepEqual([edited.subject, edited.desc], ['Atacado SP', 'Pedidos até 18h']);
    assert.deepEqual([sim.simulator.getGroup(group.id).subject, sim.simulator.getGroup(group.id).description], ['Atacado SP', 'Pedidos até 18h']);
    const subject = await meta('shop', (c) => c.field === 'groups' && c.value.groups.event === 'update'
      && c.value.groups.data.some((g: { id: string; subject?: string }) => g.id === group.id && g.subject === 'Atacado SP'), 'meta subject');
    assert.deepEqual(subject.value.groups.data.find((g: { id: string }) => g.id === group.id), { id: group.id, subject: 'Atacado SP' });
    await native('shop', (b) => b.type === 'group.update' && b.data.groups.some((g: { id: string; desc?: string }) => g.id === group.id && g.desc === 'Pedidos até 18h'), 'native description');

    for (const [setting, field, value] of [['announcement', 'announce', true], ['locked', 'restrict', true], ['not_announcement', 'announce', false], ['unlocked', 'restrict', false]] as const) {
      const answer = (await api.call('changeGroupSetting', { params: { groupJid: group.id }, query: { setting } })).data;
      assert.equal(answer[field], value, setting);
      assert.equal(sim.simulator.getGroup(group.id)[field], value, `${setting} on the server`);
    }
    // The creation's announce false, then true and false again: group.update events in order.
    const announces = () => t.events.flatMap((e) => (e.type === 'group.update' ? e.groups.filter((g) => g.id === group.id && g.announce !== undefined).map((g) => g.announce) : []));
    await t.waitFor(() => announces().length >= 3, 20_000, 'both announcement changes');
    assert.deepEqual(announces(), [false, true, false]);
  });

  it('adds, promotes, demotes and removes participants: per-number results, the server, webhooks; a member who is not an admin is refused', { timeout: 150_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659011', pushName: 'Loja' });
    const bob = sim.simulator.createAccount({ number: '5511987659012', pushName: 'Bob' });
    const carol = sim.simulator.createAccount({ number: '5511987659013', pushName: 'Carol' });
    const dave = sim.simulator.createAccount({ number: '5511987659014', pushName: 'Dave' });
    const stranger = '5511987659098';
    const api = await linked(shop.number, 'members-admin', 'members');
    const group = (await api.call('createGroup', { body: { name: 'Revenda', participants: [bob.number] } })).data;

    const added = (await api.call('addGroupParticipants', { params: { groupJid: group.id }, body: { participants: [carol.number, stranger, bob.number] } })).data;
    assert.deepEqual(added, [{ jid: carol.jid, status: '200' }, { jid: `${stranger}@s.whatsapp.net`, status: '404' }, { jid: bob.jid, status: '409' }]);
    assert.deepEqual(roles(group.id), [`${shop.number} superadmin`, `${bob.number} member`, `${carol.number} member`].sort());
    const addedBy = await participantsHook('members', group.id, 'add', [carol.jid]);
    assert.equal(addedBy.author, shop.jid);

    const promoted = (await api.call('changeGroupRole', { params: { groupJid: group.id }, query: { action: 'promote' }, body: { participants: [bob.number] } })).data;
    assert.deepEqual(promoted, [{ jid: bob.jid, status: '200' }]);
    assert.equal(sim.simulator.getGroup(group.id).members.find((m) => m.number === bob.number)?.role, 'admin');
    await participantsHook('members', group.id, 'promote', [bob.jid]);
    const admins = (await api.call('listGroupMembers', { params: { groupJid: group.id } })).data.filter((p) => p.admin).map((p) => `${p.id} ${p.admin}`);
    assert.deepEqual(admins.sort(), [`${shop.jid} superadmin`, `${bob.jid} admin`].sort());

    const demoted = (await api.call('changeGroupRole', { params: { groupJid: group.id }, query: { action: 'demote' }, body: { participants: [bob.number] } })).data;
    assert.deepEqual(demoted, [{ jid: bob.jid, status: '200' }]);
    assert.equal(sim.simulator.getGroup(group.id).members.find((m) => m.number === bob.number)?.role, 'member');
    await participantsHook('members', group.id, 'demote', [bob.jid]);

    const removed = (await api.call('removeGroupParticipants', { params: { groupJid: group.id }, body: { participants: [carol.number, dave.number] } })).data;
    assert.deepEqual(removed, [{ jid: carol.jid, status: '200' }, { jid: dave.jid, status: '404' }]);
    // A participant named by its LID (docs/rest-api.md Groups): WhatsApp answers it under its number.
    const byLid = (await api.call('addGroupParticipants', { params: { groupJid: group.id }, body: { participants: [dave.lid] } })).data;
    assert.deepEqual(byLid, [{ jid: dave.jid, status: '200' }]);
    await participantsHook('members', group.id, 'add', [dave.jid]);
    await api.call('removeGroupParticipants', { params: { groupJid: group.id }, body: { participants: [dave.lid] } });
    assert.ok(!sim.simulator.getGroup(group.id).members.some((m) => m.number === dave.number));
    assert.deepEqual(roles(group.id), [`${shop.number} superadmin`, `${bob.number} member`].sort());
    await participantsHook('members', group.id, 'remove', [carol.jid]);

    // Bob, a member but no admin, in his own Parley instance: WhatsApp refuses each admin change (401), 403 not_admin.
    const bobApi = await linked(bob.number, 'members-bob', 'members-bob');
    const unlocked = JSON.stringify(sim.simulator.getGroup(group.id));
    await assert.rejects(bobApi.call('addGroupParticipants', { params: { groupJid: group.id }, body: { participants: [dave.number] } }), refused(403, 'not_admin'));
    await assert.rejects(bobApi.call('removeGroupParticipants', { params: { groupJid: group.id }, body: { participants: [shop.number] } }), refused(403, 'not_admin'));
    await assert.rejects(bobApi.call('changeGroupRole', { params: { groupJid: group.id }, query: { action: 'promote' }, body: { participants: [bob.number] } }), refused(403, 'not_admin'));
    await assert.rejects(bobApi.call('changeGroupSetting', { params: { groupJid: group.id }, query: { setting: 'announcement' } }), refused(403, 'not_admin'));
    await assert.rejects(bobApi.call('getGroupInviteCode', { params: { groupJid: group.id } }), refused(403, 'not_admin'));
    // Announcement mode: Bob's send into the group is refused before anything goes out.
    await api.call('changeGroupSetting', { params: { groupJid: group.id }, query: { setting: 'announcement' } });
    await assert.rejects(bobApi.call('sendText', { body: { to: group.id, text: 'Posso falar?' } }), refused(403, 'not_admin'));
    assert.ok(!sim.simulator.received(shop.number).some((m) => m.text === 'Posso falar?'), 'nothing reached the shop\'s phone');
    assert.deepEqual((await bobApi.call('listChatMessages', { params: { jid: group.id } })).data, [], 'nothing stored');
    await api.call('changeGroupSetting', { params: { groupJid: group.id }, query: { setting: 'not_announcement' } });
    // Open again (Bob's instance learns it from WhatsApp's notification): his send reaches the shop's phone.
    const open = await t.waitFor(async () => {
      try {
        return await bobApi.call('sendText', { body: { to: group.id, text: 'Agora sim' } });
      } catch (e) {
        if (e instanceof ParleyApiError && e.code === 'not_admin') return undefined;
        throw e;
      }
    }, 20_000, 'Bob may send again');
    await t.waitFor(() => sim.simulator.received(shop.number).find((m) => m.id === open.data.key.id && m.text === 'Agora sim'), 20_000, 'the shop\'s phone to decrypt Bob\'s text');
    // Locked, the info is the admins' too.
    await api.call('changeGroupSetting', { params: { groupJid: group.id }, query: { setting: 'locked' } });
    const locked = JSON.stringify(sim.simulator.getGroup(group.id));
    assert.notEqual(locked, unlocked);
    assert.equal(sim.simulator.getGroup(group.id).members.find((m) => m.number === bob.number)?.role, 'member');
    await assert.rejects(bobApi.call('updateGroup', { params: { groupJid: group.id }, body: { name: 'Do Bob' } }), refused(403, 'not_admin'));
    assert.equal(JSON.stringify(sim.simulator.getGroup(group.id)), locked, 'nothing changed on the server');
    // The creator stays: its removal and its demotion are each answered 403 for that participant (docs/rest-api.md,
    // the sandbox's answer; the simulator's PARTICIPANT_CODES), the others in the same call still go through, and it
    // stays superadmin.
    const creator = (await api.call('removeGroupParticipants', { params: { groupJid: group.id }, body: { participants: [shop.number] } })).data;
    assert.deepEqual(creator.map((p) => [p.jid, p.status]), [[shop.jid, '403']]);
    const creatorDemoted = (await api.call('changeGroupRole', { params: { groupJid: group.id }, query: { action: 'demote' }, body: { participants: [shop.number, bob.number] } })).data;
    assert.deepEqual(creatorDemoted.map((p) => [p.jid, p.status]), [[shop.jid, '403'], [bob.jid, '200']]);
    assert.equal(sim.simulator.getGroup(group.id).members.find((m) => m.number === shop.number)?.role, 'superadmin');
  });

  it('invite code, invite info, a second instance joining by the code, leaving, and listing', { timeout: 150_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659021', pushName: 'Loja' });
    const erin = sim.simulator.createAccount({ number: '5511987659022', pushName: 'Erin' });
    const api = await linked(shop.number, 'invite-admin', 'invite');
    const group = (await api.call('createGroup', { body: { name: 'Clube', participants: [] } })).data;
    await api.call('updateGroup', { params: { groupJid: group.id }, body: { description: 'Só sócios' } });
    const { inviteCode } = await api.call('getGroupInviteCode', { params: { groupJid: group.id } });
    assert.equal(inviteCode, sim.simulator.getGroup(group.id).inviteCode);
    // The whole link works as the code (docs/rest-api.md Groups).
    const info = (await api.call('getGroupInviteInfo', { query: { code: `https://chat.whatsapp.com/${inviteCode}` } })).data;
    assert.deepEqual([info.id, info.subject, info.owner, info.desc, info.size, info.isCommunity], [group.id, 'Clube', shop.jid, 'Só sócios', 1, false]);
    await assert.rejects(api.call('getGroupInviteInfo', { query: { code: 'AAAAAAAAAAAAAAAAAAAAAA' } }), refused(404, 'invite_not_found'));

    const erinApi = await linked(erin.number, 'invite-erin', 'invite-erin');
    await assert.rejects(erinApi.call('getGroup', { params: { groupJid: group.id } }), refused(404, 'group_not_found'));
    const joined = await erinApi.call('acceptGroupInvite', { body: { code: inviteCode } });
    assert.equal((joined as { data?: { id: string } }).data?.id, group.id);
    assert.ok(sim.simulator.getGroup(group.id).members.some((m) => m.number === erin.number && m.role === 'member'));
    await participantsHook('invite', group.id, 'add', [erin.jid]);
    assert.deepEqual((await erinApi.call('listGroups')).data.map((g) => g.id), [group.id]);
    // A change the shop makes reaches Erin's instance too, as a member's companion gets it.
    await api.call('updateGroup', { params: { groupJid: group.id }, body: { name: 'Clube VIP' } });
    await native('invite-erin', (b) => b.type === 'group.update' && b.data.groups.some((g: { id: string; subject?: string }) => g.id === group.id && g.subject === 'Clube VIP'), 'the subject on Erin\'s instance');

    const left = await erinApi.call('leaveGroup', { params: { groupJid: group.id } });
    assert.match((left as { message: string }).message, /left group/);
    assert.deepEqual(sim.simulator.getGroup(group.id).members.map((m) => m.number), [shop.number]);
    await participantsHook('invite', group.id, 'remove', [erin.jid]);
    assert.deepEqual((await erinApi.call('listGroups')).data, []);
    await assert.rejects(erinApi.call('getGroup', { params: { groupJid: group.id } }), refused(404, 'group_not_found'));
    await assert.rejects(erinApi.call('leaveGroup', { params: { groupJid: group.id } }), refused(404, 'group_not_found'));
    await assert.rejects(api.call('getGroup', { params: { groupJid: '120363000000000001@g.us' } }), refused(404, 'group_not_found'));

    // The shop's phone resets the link: the old code is gone (WhatsApp: 410), the route answers the new one.
    const renewed = sim.simulator.revokeInvite(shop.number, group.id).inviteCode;
    assert.notEqual(renewed, inviteCode);
    assert.equal((await api.call('getGroupInviteCode', { params: { groupJid: group.id } })).inviteCode, renewed);
    await assert.rejects(api.call('getGroupInviteInfo', { query: { code: inviteCode } }), refused(404, 'invite_not_found'));
    await assert.rejects(erinApi.call('acceptGroupInvite', { body: { code: inviteCode } }), refused(404, 'invite_not_found'));
    assert.deepEqual(sim.simulator.getGroup(group.id).members.map((m) => m.number), [shop.number], 'nobody joined by the old code');
  });

  it('sets and removes the group picture: the server keeps what Baileys uploads; a member who is not an admin changes it only while the group is unlocked', { timeout: 120_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659041', pushName: 'Loja' });
    const bob = sim.simulator.createAccount({ number: '5511987659042', pushName: 'Bob' });
    const { api, connecting } = await env.linkByQr(shop.number, 'picture-admin');
    const group = (await api.call('createGroup', { body: { name: 'Vitrine', participants: [bob.number] } })).data;
    // A real PNG (the QR code the connect answered), as a data URI: Baileys makes a JPEG of it and sends that.
    const answer = (await api.call('setGroupPicture', { params: { groupJid: group.id }, body: { url: connecting.image } })).data;
    assert.equal(answer.id, group.id);
    const picture = sim.simulator.getGroup(group.id).picture;
    assert.ok(picture && picture.size > 0, 'the server has the group\'s picture');
    assert.deepEqual([...sim.simulator.groupPicture(group.id).subarray(0, 2)], [0xff, 0xd8], 'a JPEG');

    const bobApi = (await env.linkByQr(bob.number, 'picture-bob')).api;
    await api.call('changeGroupSetting', { params: { groupJid: group.id }, query: { setting: 'locked' } });
    await assert.rejects(bobApi.call('removeGroupPicture', { params: { groupJid: group.id } }), refused(403, 'not_admin'));
    await assert.rejects(bobApi.call('setGroupPicture', { params: { groupJid: group.id }, body: { url: connecting.image } }), refused(403, 'not_admin'));
    assert.deepEqual(sim.simulator.getGroup(group.id).picture, picture, 'unchanged');
    await api.call('changeGroupSetting', { params: { groupJid: group.id }, query: { setting: 'unlocked' } });
    await bobApi.call('removeGroupPicture', { params: { groupJid: group.id } });
    assert.equal(sim.simulator.getGroup(group.id).picture, null);
    // WhatsApp tells picture changes as Baileys tells a contact's (contacts.update): the group is no contact.
    // A change after it, told to both instances after the picture's notification, marks when both have handled that.
    await api.call('updateGroup', { params: { groupJid: group.id }, body: { description: 'Sem foto' } });
    const told = () => t.events.filter((e) => e.type === 'group.update' && e.groups.some((g) => g.id === group.id && g.desc === 'Sem foto')).length;
    await t.waitFor(() => told() >= 2, 20_000, 'the description at both instances');
    const contacts = [...(await api.call('listContacts')).data, ...(await bobApi.call('listContacts')).data] as Array<{ id: string }>;
    assert.deepEqual(contacts.filter((c) => c.id === group.id), [], 'the group is not listed as a contact');
    // Not a member: the group is not there for the instance.
    const outsider = sim.simulator.createGroup(bob.number, 'Só do Bob', []);
    await assert.rejects(api.call('removeGroupPicture', { params: { groupJid: outsider.jid } }), refused(404, 'group_not_found'));
  });

  it('bad input gets a 400 naming the field and changes nothing on the server', { timeout: 90_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659031', pushName: 'Loja' });
    const bob = sim.simulator.createAccount({ number: '5511987659032', pushName: 'Bob' });
    const api = await linked(shop.number, 'bad-input', 'bad-input');
    const group = (await api.call('createGroup', { body: { name: 'Firme', participants: [bob.number] } })).data;
    const snapshot = () => JSON.stringify(sim.simulator.listGroups());
    const before = snapshot();
    const bad = async (call: Promise<unknown>, field: string) => {
      await assert.rejects(call, refused(400, 'validation_failed', field));
      assert.equal(snapshot(), before, `nothing changed after the bad ${field}`);
    };
    const p = { groupJid: group.id };
    await bad(api.call('createGroup', { body: { name: 'x'.repeat(101), participants: [bob.number] } }), 'body.name');
    await bad(api.call('createGroup', { body: { name: 'Outro', participants: ['12ab'] } }), 'body.participants[0]');
    await bad(api.call('addGroupParticipants', { params: p, body: { participants: [bob.number, group.id] } }), 'body.participants[1]');
    await bad(api.call('removeGroupParticipants', { params: { groupJid: 'not-a-group' }, body: { participants: [bob.number] } }), 'path.groupJid');
    await bad(api.call('changeGroupRole', { params: p, query: { action: 'crown' as never }, body: { participants: [bob.number] } }), 'query.action');
    await bad(api.call('changeGroupSetting', { params: p, query: { setting: 'open' as never } }), 'query.setting');
    await bad(api.call('updateGroup', { params: p, body: {} }), 'body');
    await bad(api.call('updateGroup', { params: p, body: { name: '' } }), 'body.name');
    await bad(api.call('getGroup', { params: { groupJid: `${bob.number}@s.whatsapp.net` } }), 'path.groupJid');
    await bad(api.call('acceptGroupInvite', { body: { code: 'no spaces!' } }), 'body.code');
    await bad(api.call('setGroupJoinApproval', { params: p, body: { mode: 'maybe' as never } }), 'body.mode');
  });
});
