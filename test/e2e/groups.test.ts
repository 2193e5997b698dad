import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InstanceClient } from '@parley/client';
import { apiError } from '../support/api-error.js';
import { eventsOf, jidOf, startWithPhones, waitForEvent, type Phone } from '../support/conversation.js';
import { dataUri, SAMPLES, sha256Hex } from '../support/media-server.js';
import { documentedClients, documentedRequests, type DocumentedRequest } from '../support/documented-answers.js';
import { GROUP_NUMBERS, groupCalls } from '../support/group-calls.js';
import type { TestServer } from '../support/test-server.js';

const { ALICE, BOB, CAROL, DAVE, ERIN, UNKNOWN } = GROUP_NUMBERS;

/** Spec 4.10 end to end: groups shared by the members' sandbox instances. */
describe('groups (spec 4.10)', () => {
  let t: TestServer;
  let api: DocumentedRequest;
  let client: (key: string) => InstanceClient;
  let alice: Phone;
  let bob: Phone;
  let carol: Phone;
  let dave: Phone;
  let erin: Phone;
  let group: { id: string; creation: number };

  before(async () => {
    ({ t, phones: { alice, bob, carol, dave, erin } } = await startWithPhones({ alice: ALICE, bob: BOB, carol: CAROL, dave: DAVE, erin: ERIN }));
    api = await documentedRequests(t);
    client = await documentedClients(t);
  });
  after(() => t.stop());

  const { groupsOf, chatOf, messagesOf, groupOf, setting, role, sameForAll } = groupCalls((key) => client(key), () => group.id);

  it('creates a group: the creator is superadmin, every member lists it, and members get the group events and chat', async () => {
    const res = await client(alice.key).call('createGroup', { body: { name: 'Team', participants: [BOB, jidOf(CAROL), UNKNOWN] } });
    assert.equal(res.status, 200, JSON.stringify(res));
    group = { id: res.data.id, creation: res.data.creation };
    assert.match(group.id, /^120363\d{12}@g\.us$/);
    assert.ok(Math.abs(group.creation - Date.now() / 1000) < 60);
    const expected = {
      id: group.id, subject: 'Team', owner: jidOf(ALICE), creation: group.creation, desc: '',
      participants: [{ id: jidOf(ALICE), admin: 'superadmin' }, { id: jidOf(BOB), admin: null }, { id: jidOf(CAROL), admin: null }],
      announce: false, restrict: false, ephemeralDuration: 0, joinApprovalMode: false, memberAddMode: 'admin_add',
    };
    // The number no sandbox phone holds is left out, as WhatsApp leaves out numbers it cannot add.
    assert.deepEqual(res, { status: 200, data: expected });
    for (const member of [alice, bob, carol]) assert.deepEqual(await groupsOf(member), { status: 200, data: [expected] });
    assert.deepEqual(await groupsOf(dave), { status: 200, data: [] });

    for (const member of [alice, bob, carol]) {
      const added = await waitForEvent(t, member, 'group.participants', (e) => e.groupJid === group.id, `the add event on ${member.number}`);
      assert.equal(added.action, 'add');
      assert.deepEqual(added.participants, [jidOf(ALICE), jidOf(BOB), jidOf(CAROL)]);
      assert.equal(added.author, jidOf(ALICE));
      const update = eventsOf(t, member.id, 'group.update').find((e) => e.groups[0].id === group.id);
      assert.deepEqual(update.groups, [expected]);
    }
    assert.equal(eventsOf(t, dave.id, 'group.participants').length, 0);
    await t.settle();
    const chat = await chatOf(bob, group.id);
    assert.deepEqual({ id: chat.id, name: chat.name }, { id: group.id, name: 'Team' });
  });

  it('reads one group (by JID or bare digits) and its members', async () => {
    const byJid = await groupOf(carol);
    assert.equal(byJid.status, 200);
    assert.deepEqual(await groupOf(carol, group.id.replace('@g.us', '')), byJid);
    assert.deepEqual(await client(carol.key).call('listGroupMembers', { params: { groupJid: group.id } }), {
      status: 200, data: [{ id: jidOf(ALICE), admin: 'superadmin' }, { id: jidOf(BOB), admin: null }, { id: jidOf(CAROL), admin: null }],
    });
  });

  it('changes subject and description: every member sees it, gets group.update, and the chat is renamed', async () => {
    const res = await client(bob.key).call('updateGroup', { params: { groupJid: group.id }, body: { name: 'Team A', description: 'Weekly sync' } });
    assert.equal(res.status, 200, JSON.stringify(res));
    assert.equal(res.data.subject, 'Team A');
    assert.equal(res.data.desc, 'Weekly sync');
    assert.deepEqual(await sameForAll([alice, bob, carol]), res.data);
    const update = await waitForEvent(t, carol, 'group.update', (e) => e.groups[0].subject === 'Team A', 'the subject update on carol');
    assert.deepEqual(update.groups, [{ id: group.id, subject: 'Team A', desc: 'Weekly sync' }]);
    const only = await client(alice.key).call('updateGroup', { params: { groupJid: group.id }, body: { description: '' } });
    assert.equal(only.data.subject, 'Team A');
    assert.equal(only.data.desc, '');
    await waitForEvent(t, bob, 'group.update', (e) => e.groups[0].desc === '' && e.groups[0].subject === undefined, 'the description update on bob');
    await t.settle();
    assert.equal((await chatOf(carol, group.id)).name, 'Team A');
  });

  it('changes settings: admins only; members see the flags and get group.update', async () => {
    await assert.rejects(setting(bob, 'announcement'), apiError(403, 'not_admin', 'only admins of the group can do this'));
    assert.equal((await groupOf(alice)).data.announce, false);

    const announce = await setting(alice, 'announcement');
    assert.equal(announce.status, 200);
    assert.equal(announce.data.announce, true);
    const locked = await setting(alice, 'locked');
    assert.equal(locked.data.restrict, true);
    const seen = await sameForAll([alice, bob, carol]);
    assert.deepEqual([seen.announce, seen.restrict], [true, true]);
    await waitForEvent(t, bob, 'group.update', (e) => e.groups[0].restrict === true, 'the locked update on bob');
    assert.ok(eventsOf(t, bob.id, 'group.update').some((e) => JSON.stringify(e.groups) === JSON.stringify([{ id: group.id, announce: true }])));

    // A locked group's info is edited by admins only.
    await assert.rejects(client(bob.key).call('updateGroup', { params: { groupJid: group.id }, body: { name: 'Hijacked' } }), apiError(403, 'not_admin'));
    assert.equal((await groupOf(bob)).data.subject, 'Team A');
    await setting(alice, 'unlocked');
    await setting(alice, 'not_announcement');
    assert.equal((await client(bob.key).call('updateGroup', { params: { groupJid: group.id }, body: { description: 'by bob' } })).data.desc, 'by bob');
    const after = await sameForAll([alice, bob, carol]);
    assert.deepEqual([after.announce, after.restrict, after.desc], [false, false, 'by bob']);
  });

  it('adds participants (admins only) with one result each; the new member lists the group and everyone is told', async () => {
    const add = (p: Phone, participants: string[]) => client(p.key).call('addGroupParticipants', { params: { groupJid: group.id }, body: { participants } });
    await assert.rejects(add(bob, [DAVE]), apiError(403, 'not_admin'));
    assert.deepEqual(await groupsOf(dave), { status: 200, data: [] });

    const res = await add(alice, [DAVE, jidOf(BOB), UNKNOWN]);
    assert.deepEqual(res, {
      status: 200, data: [{ jid: jidOf(DAVE), status: '200' }, { jid: jidOf(BOB), status: '409' }, { jid: jidOf(UNKNOWN), status: '404' }],
    });
    const members = (await sameForAll([alice, bob, carol, dave])).participants;
    assert.deepEqual(members.map((m) => m.id), [jidOf(ALICE), jidOf(BOB), jidOf(CAROL), jidOf(DAVE)]);
    for (const member of [bob, dave]) {
      const added = await waitForEvent(t, member, 'group.participants', (e) => e.action === 'add' && e.participants[0] === jidOf(DAVE), `dave's add on ${member.number}`);
      assert.deepEqual(added.participants, [jidOf(DAVE)]);
      assert.equal(added.author, jidOf(ALICE));
    }
  });

  it('removes participants (admins only): the creator stays, the removed member loses the group and is told', async () => {
    const remove = (p: Phone, participants: string[]) => client(p.key).call('removeGroupParticipants', { params: { groupJid: group.id }, body: { participants } });
    await assert.rejects(remove(carol, [DAVE]), apiError(403, 'not_admin'));
    const res = await remove(alice, [DAVE, ALICE, ERIN]);
    assert.deepEqual(res, {
      status: 200, data: [{ jid: jidOf(DAVE), status: '200' }, { jid: jidOf(ALICE), status: '403' }, { jid: jidOf(ERIN), status: '404' }],
    });
    await assert.rejects(groupOf(dave), apiError(404, 'group_not_found', 'group not found'));
    assert.deepEqual(await groupsOf(dave), { status: 200, data: [] });
    assert.deepEqual((await sameForAll([alice, bob, carol])).participants.map((m) => m.id), [jidOf(ALICE), jidOf(BOB), jidOf(CAROL)]);
    for (const member of [dave, carol]) {
      const removed = await waitForEvent(t, member, 'group.participants', (e) => e.action === 'remove' && e.participants[0] === jidOf(DAVE), `the removal on ${member.number}`);
      assert.deepEqual(removed.participants, [jidOf(DAVE)]);
    }
  });

  it('promotes a member to admin and demotes it back (`action=demote`); the creator cannot be demoted', async () => {
    const promoted = await role(alice, 'promote', [BOB]);
    assert.deepEqual(promoted, { status: 200, data: [{ jid: jidOf(BOB), status: '200' }] });
    assert.deepEqual((await sameForAll([alice, bob, carol])).participants[1], { id: jidOf(BOB), admin: 'admin' });
    const event = await waitForEvent(t, carol, 'group.participants', (e) => e.action === 'promote', 'the promote event on carol');
    assert.deepEqual([event.participants, event.author], [[jidOf(BOB)], jidOf(ALICE)]);
    // The new admin can change settings now.
    assert.equal((await setting(bob, 'announcement')).status, 200);
    await setting(bob, 'not_announcement');

    const demoted = await role(bob, 'demote', [BOB, ALICE, DAVE]);
    assert.deepEqual(demoted.data, [{ jid: jidOf(BOB), status: '200' }, { jid: jidOf(ALICE), status: '403' }, { jid: jidOf(DAVE), status: '404' }]);
    assert.deepEqual((await sameForAll([alice, bob, carol])).participants.slice(0, 2), [{ id: jidOf(ALICE), admin: 'superadmin' }, { id: jidOf(BOB), admin: null }]);
    const demote = await waitForEvent(t, alice, 'group.participants', (e) => e.action === 'demote', 'the demote event on alice');
    assert.deepEqual(demote.participants, [jidOf(BOB)]);
    await assert.rejects(role(bob, 'promote', [CAROL]), apiError(403, 'not_admin'));
  });

  it('answers the invite code (admins) and what a code leads to (anyone)', async () => {
    const inviteOf = (p: Phone) => client(p.key).call('getGroupInviteCode', { params: { groupJid: group.id } });
    const infoOf = (p: Phone, code: string) => client(p.key).call('getGroupInviteInfo', { query: { code } });
    const res = await inviteOf(alice);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res).sort(), ['inviteCode', 'status']);
    assert.match(res.inviteCode, /^[A-Za-z0-9]{22}$/);
    await assert.rejects(inviteOf(carol), apiError(403, 'not_admin'));
    const info = await infoOf(dave, res.inviteCode);
    assert.deepEqual(info, {
      status: 200,
      data: { id: group.id, subject: 'Team A', owner: jidOf(ALICE), desc: 'by bob', size: 3, creation: group.creation, isCommunity: false },
    });
    const link = await infoOf(dave, `https://chat.whatsapp.com/${res.inviteCode}`);
    assert.deepEqual(link, info);
    await assert.rejects(infoOf(dave, 'AAAAAAAAAAAAAAAAAAAAAA'), apiError(404, 'invite_not_found', 'invite code not found'));
  });

  it('join approval: joining by invite becomes a request that an admin approves or rejects', async () => {
    const { inviteCode } = await client(alice.key).call('getGroupInviteCode', { params: { groupJid: group.id } });
    const approval = (p: Phone, mode: 'on' | 'off') => client(p.key).call('setGroupJoinApproval', { params: { groupJid: group.id }, body: { mode } });
    const accept = (p: Phone) => client(p.key).call('acceptGroupInvite', { body: { code: inviteCode } });
    const requestsOf = (p: Phone) => client(p.key).call('listGroupJoinRequests', { params: { groupJid: group.id } });
    const handle = (participants: string[], action: 'approve' | 'reject') =>
      client(alice.key).call('handleGroupJoinRequests', { params: { groupJid: group.id }, body: { participants, action } });
    await assert.rejects(approval(carol, 'on'), apiError(403, 'not_admin'));
    const on = await approval(alice, 'on');
    assert.equal(on.data.joinApprovalMode, true);

    const pending = await accept(dave);
    assert.deepEqual(pending, { status: 200, message: `join request sent to ${group.id}: an admin must approve it` });
    await assert.rejects(groupOf(dave), apiError(404, 'group_not_found'));
    await accept(erin);
    const requests = (await requestsOf(alice)).data;
    assert.deepEqual(requests.map((r) => [r.jid, r.requestMethod]), [[jidOf(DAVE), 'invite_link'], [jidOf(ERIN), 'invite_link']]);
    for (const r of requests) assert.ok(Number.isInteger(r.requestTime) && Math.abs(r.requestTime - Date.now() / 1000) < 60);
    await assert.rejects(requestsOf(carol), apiError(403, 'not_admin'));

    const approved = await handle([DAVE, CAROL], 'approve');
    assert.deepEqual(approved, { status: 200, data: [{ jid: jidOf(DAVE), status: '200' }, { jid: jidOf(CAROL), status: '404' }] });
    assert.equal((await groupOf(dave)).status, 200);
    await waitForEvent(t, bob, 'group.participants', (e) => e.action === 'add' && e.participants[0] === jidOf(DAVE) && eventsOf(t, bob.id, 'group.participants').filter((x) => x.action === 'add' && x.participants[0] === jidOf(DAVE)).length === 2, 'dave joining again, on bob');

    const rejected = await handle([ERIN], 'reject');
    assert.deepEqual(rejected.data, [{ jid: jidOf(ERIN), status: '200' }]);
    await assert.rejects(groupOf(erin), apiError(404, 'group_not_found'));
    assert.deepEqual(await requestsOf(alice), { status: 200, data: [] });

    await approval(alice, 'off');
    const joined = await accept(erin);
    assert.ok('data' in joined, JSON.stringify(joined));
    assert.equal(joined.data.id, group.id);
    assert.deepEqual(joined.data.participants.map((m) => m.id), [jidOf(ALICE), jidOf(BOB), jidOf(CAROL), jidOf(DAVE), jidOf(ERIN)]);
    assert.deepEqual(joined.data, (await groupOf(alice)).data);
  });

  it('sets and removes the picture: served at the group\'s imgUrl, seen by every member', async () => {
    const res = await client(bob.key).call('setGroupPicture', { params: { groupJid: group.id }, body: { url: dataUri('image/png', SAMPLES.png) } });
    assert.equal(res.status, 200, JSON.stringify(res));
    const url = new URL(res.data.imgUrl!);
    assert.equal(url.pathname, `/sandbox/pictures/${group.id}`);
    assert.equal(url.searchParams.get('v'), sha256Hex(SAMPLES.png).slice(0, 12));
    assert.equal((await sameForAll([alice, bob, carol, dave, erin])).imgUrl, res.data.imgUrl);
    // The sandbox's picture route answers bytes whose content type is asserted: read raw.
    const served = await api('GET', `${url.pathname}${url.search}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.ok(served.raw.equals(SAMPLES.png));

    const removed = await client(carol.key).call('removeGroupPicture', { params: { groupJid: group.id } });
    assert.equal(removed.status, 200);
    assert.equal(removed.data.imgUrl, undefined);
    assert.equal((await groupOf(alice)).data.imgUrl, undefined);
    assert.equal((await api('GET', url.pathname)).status, 404);
  });

  it('a text sent to the group reaches every other member as a group message', async () => {
    const sent = await client(alice.key).call('sendText', { body: { to: group.id, text: 'hello team' } });
    assert.equal(sent.status, 200, JSON.stringify(sent));
    const id = sent.data.key.id;
    for (const member of [bob, carol, dave, erin]) {
      const got = await t.waitFor(async () => (await messagesOf(member, group.id)).find((m) => m.key.id === id),
        5000, `the group message on ${member.number}`);
      assert.deepEqual(got.key, { remoteJid: group.id, fromMe: false, id, participant: jidOf(ALICE) });
      assert.deepEqual(got.message, { extendedTextMessage: { text: 'hello team' } });
    }
    const inbound = eventsOf(t, bob.id, 'message').find((e) => e.message.id === id);
    assert.deepEqual([inbound.message.chatType, inbound.message.groupId, inbound.message.from], ['group', group.id, ALICE]);
  });

  it('an announcement group takes messages from admins only: a member\'s send is refused (403 not_admin) and reaches nobody', async () => {
    const text = (p: Phone, body: string) => client(p.key).call('sendText', { body: { to: group.id, text: body } });
    assert.equal((await setting(alice, 'announcement')).data.announce, true);
    await assert.rejects(text(bob, 'may I speak?'), apiError(403, 'not_admin', 'only admins can send messages to this group'));
    const sent = await text(alice, 'announcement');
    assert.equal(sent.status, 200, JSON.stringify(sent));
    const id = sent.data.key.id;
    await t.waitFor(async () => (await messagesOf(bob, group.id)).some((m) => m.key.id === id),
      5000, 'the announcement on bob');
    await t.settle();
    const refused = (m: { message: Record<string, unknown> }) => (m.message.extendedTextMessage as { text?: string } | undefined)?.text === 'may I speak?';
    for (const member of [alice, bob, carol, dave, erin]) {
      assert.equal((await messagesOf(member, group.id)).some(refused), false, `the refused message on ${member.number}`);
      assert.equal(eventsOf(t, member.id, 'message').some((e) => refused(e.message.record)), false, `a message event of the refused send on ${member.number}`);
    }
    assert.equal((await setting(alice, 'not_announcement')).data.announce, false);
    const allowed = await text(bob, 'thanks');
    assert.equal(allowed.status, 200, JSON.stringify(allowed));
  });

  it('leaving: the member loses the group and the others are told; a group left without admins promotes its oldest member', async () => {
    const leave = (p: Phone) => client(p.key).call('leaveGroup', { params: { groupJid: group.id } });
    const left = await leave(carol);
    assert.deepEqual(left, { status: 200, message: `left group ${group.id}` });
    assert.deepEqual(await groupsOf(carol), { status: 200, data: [] });
    assert.deepEqual((await sameForAll([alice, bob])).participants.map((m) => m.id), [jidOf(ALICE), jidOf(BOB), jidOf(DAVE), jidOf(ERIN)]);
    await waitForEvent(t, bob, 'group.participants', (e) => e.action === 'remove' && e.participants[0] === jidOf(CAROL), 'carol leaving, on bob');
    await assert.rejects(leave(carol), apiError(404, 'group_not_found'));

    await leave(alice);
    const members = (await sameForAll([bob, dave, erin])).participants;
    assert.deepEqual(members, [{ id: jidOf(BOB), admin: 'admin' }, { id: jidOf(DAVE), admin: null }, { id: jidOf(ERIN), admin: null }]);
    const heir = await waitForEvent(t, dave, 'group.participants', (e) => e.action === 'promote' && e.participants[0] === jidOf(BOB), 'bob inheriting admin, on dave');
    assert.equal(heir.author, jidOf(ALICE));
  });
});
