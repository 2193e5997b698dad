import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, sameViewForAll } from '../support/api-assertions.js';
import { eventsOf, jidOf, startWithPhones, waitForEvent, type Phone } from '../support/conversation.js';
import { dataUri, SAMPLES, sha256Hex } from '../support/media-server.js';
import { documentedRequests, type DocumentedRequest } from '../support/documented-answers.js';
import type { TestServer } from '../support/test-server.js';

const ALICE = '5511960000001';
const BOB = '5511960000002';
const CAROL = '5511960000003';
const DAVE = '5511960000004';
const ERIN = '5511960000005';
const UNKNOWN = '5511960009999';
const NO_GROUP = '120363000000000001@g.us';

/** Spec 4.10 end to end: groups shared by the members' sandbox instances. */
describe('groups (spec 4.10)', () => {
  let t: TestServer;
  let api: DocumentedRequest;
  let alice: Phone;
  let bob: Phone;
  let carol: Phone;
  let dave: Phone;
  let erin: Phone;
  let offline: { key: string };
  let group: { id: string; creation: number };

  before(async () => {
    ({ t, phones: { alice, bob, carol, dave, erin } } = await startWithPhones({ alice: ALICE, bob: BOB, carol: CAROL, dave: DAVE, erin: ERIN }));
    api = await documentedRequests(t);
    offline = await t.createInstance({ channel: 'sandbox', name: 'offline', number: '5511960000099' });
  });
  after(() => t.stop());

  const get = async (p: Phone, path: string) => (await api('GET', `/${p.key}${path}`)).body;
  const groupOf = async (p: Phone) => (await api('GET', `/${p.key}/groups/${group.id}`));
  /** The group as every listed member's instance sees it: identical for each. */
  const sameForAll = (members: Phone[]) => sameViewForAll(members, async (p) => (await groupOf(p)).body.data);

  it('creates a group: the creator is superadmin, every member lists it, and members get the group events and chat', async () => {
    const res = await api('POST', `/${alice.key}/groups`, { name: 'Team', participants: [BOB, jidOf(CAROL), UNKNOWN] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    group = { id: res.body.data.id, creation: res.body.data.creation };
    assert.match(group.id, /^120363\d{12}@g\.us$/);
    assert.ok(Math.abs(group.creation - Date.now() / 1000) < 60);
    const expected = {
      id: group.id, subject: 'Team', owner: jidOf(ALICE), creation: group.creation, desc: '',
      participants: [{ id: jidOf(ALICE), admin: 'superadmin' }, { id: jidOf(BOB), admin: null }, { id: jidOf(CAROL), admin: null }],
      announce: false, restrict: false, ephemeralDuration: 0, joinApprovalMode: false, memberAddMode: 'admin_add',
    };
    // The number no sandbox phone holds is left out, as WhatsApp leaves out numbers it cannot add.
    assert.deepEqual(res.body, { status: 200, data: expected });
    for (const member of [alice, bob, carol]) assert.deepEqual(await get(member, '/groups'), { status: 200, data: [expected] });
    assert.deepEqual(await get(dave, '/groups'), { status: 200, data: [] });

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
    const chat = (await get(bob, '/chat')).data.find((c: { id: string }) => c.id === group.id);
    assert.deepEqual({ id: chat.id, name: chat.name }, { id: group.id, name: 'Team' });
  });

  it('reads one group (by JID or bare digits) and its members', async () => {
    const byJid = await groupOf(carol);
    assert.equal(byJid.status, 200);
    assert.deepEqual((await api('GET', `/${carol.key}/groups/${group.id.replace('@g.us', '')}`)).body, byJid.body);
    assert.deepEqual(await get(carol, `/groups/${group.id}/members`), {
      status: 200, data: [{ id: jidOf(ALICE), admin: 'superadmin' }, { id: jidOf(BOB), admin: null }, { id: jidOf(CAROL), admin: null }],
    });
  });

  it('changes subject and description: every member sees it, gets group.update, and the chat is renamed', async () => {
    const res = await api('PUT', `/${bob.key}/groups/${group.id}`, { name: 'Team A', description: 'Weekly sync' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.subject, 'Team A');
    assert.equal(res.body.data.desc, 'Weekly sync');
    assert.deepEqual(await sameForAll([alice, bob, carol]), res.body.data);
    const update = await waitForEvent(t, carol, 'group.update', (e) => e.groups[0].subject === 'Team A', 'the subject update on carol');
    assert.deepEqual(update.groups, [{ id: group.id, subject: 'Team A', desc: 'Weekly sync' }]);
    const only = await api('PUT', `/${alice.key}/groups/${group.id}`, { description: '' });
    assert.equal(only.body.data.subject, 'Team A');
    assert.equal(only.body.data.desc, '');
    await waitForEvent(t, bob, 'group.update', (e) => e.groups[0].desc === '' && e.groups[0].subject === undefined, 'the description update on bob');
    await t.settle();
    assert.equal((await get(carol, '/chat')).data.find((c: { id: string }) => c.id === group.id).name, 'Team A');
  });

  it('changes settings: admins only; members see the flags and get group.update', async () => {
    const denied = await api('PATCH', `/${bob.key}/groups/${group.id}?setting=announcement`);
    expectError(denied, 403, 'not_admin', 'only admins of the group can do this');
    assert.equal((await groupOf(alice)).body.data.announce, false);

    const announce = await api('PATCH', `/${alice.key}/groups/${group.id}?setting=announcement`);
    assert.equal(announce.status, 200);
    assert.equal(announce.body.data.announce, true);
    const locked = await api('PATCH', `/${alice.key}/groups/${group.id}?setting=locked`);
    assert.equal(locked.body.data.restrict, true);
    const seen = await sameForAll([alice, bob, carol]);
    assert.deepEqual([seen.announce, seen.restrict], [true, true]);
    await waitForEvent(t, bob, 'group.update', (e) => e.groups[0].restrict === true, 'the locked update on bob');
    assert.ok(eventsOf(t, bob.id, 'group.update').some((e) => JSON.stringify(e.groups) === JSON.stringify([{ id: group.id, announce: true }])));

    // A locked group's info is edited by admins only.
    expectError(await api('PUT', `/${bob.key}/groups/${group.id}`, { name: 'Hijacked' }), 403, 'not_admin');
    assert.equal((await groupOf(bob)).body.data.subject, 'Team A');
    await api('PATCH', `/${alice.key}/groups/${group.id}?setting=unlocked`);
    await api('PATCH', `/${alice.key}/groups/${group.id}?setting=not_announcement`);
    assert.equal((await api('PUT', `/${bob.key}/groups/${group.id}`, { description: 'by bob' })).body.data.desc, 'by bob');
    const after = await sameForAll([alice, bob, carol]);
    assert.deepEqual([after.announce, after.restrict, after.desc], [false, false, 'by bob']);
  });

  it('adds participants (admins only) with one result each; the new member lists the group and everyone is told', async () => {
    expectError(await api('POST', `/${bob.key}/groups/${group.id}/participants`, { participants: [DAVE] }), 403, 'not_admin');
    assert.deepEqual(await get(dave, '/groups'), { status: 200, data: [] });

    const res = await api('POST', `/${alice.key}/groups/${group.id}/participants`, { participants: [DAVE, jidOf(BOB), UNKNOWN] });
    assert.deepEqual(res.body, {
      status: 200, data: [{ jid: jidOf(DAVE), status: '200' }, { jid: jidOf(BOB), status: '409' }, { jid: jidOf(UNKNOWN), status: '404' }],
    });
    const members = (await sameForAll([alice, bob, carol, dave])).participants;
    assert.deepEqual(members.map((m: { id: string }) => m.id), [jidOf(ALICE), jidOf(BOB), jidOf(CAROL), jidOf(DAVE)]);
    for (const member of [bob, dave]) {
      const added = await waitForEvent(t, member, 'group.participants', (e) => e.action === 'add' && e.participants[0] === jidOf(DAVE), `dave's add on ${member.number}`);
      assert.deepEqual(added.participants, [jidOf(DAVE)]);
      assert.equal(added.author, jidOf(ALICE));
    }
  });

  it('removes participants (admins only): the creator stays, the removed member loses the group and is told', async () => {
    expectError(await api('DELETE', `/${carol.key}/groups/${group.id}/participants`, { participants: [DAVE] }), 403, 'not_admin');
    const res = await api('DELETE', `/${alice.key}/groups/${group.id}/participants`, { participants: [DAVE, ALICE, ERIN] });
    assert.deepEqual(res.body, {
      status: 200, data: [{ jid: jidOf(DAVE), status: '200' }, { jid: jidOf(ALICE), status: '403' }, { jid: jidOf(ERIN), status: '404' }],
    });
    expectError(await groupOf(dave), 404, 'group_not_found', 'group not found');
    assert.deepEqual(await get(dave, '/groups'), { status: 200, data: [] });
    assert.deepEqual((await sameForAll([alice, bob, carol])).participants.map((m: { id: string }) => m.id), [jidOf(ALICE), jidOf(BOB), jidOf(CAROL)]);
    for (const member of [dave, carol]) {
      const removed = await waitForEvent(t, member, 'group.participants', (e) => e.action === 'remove' && e.participants[0] === jidOf(DAVE), `the removal on ${member.number}`);
      assert.deepEqual(removed.participants, [jidOf(DAVE)]);
    }
  });

  it('promotes a member to admin and demotes it back (`action=demote`); the creator cannot be demoted', async () => {
    const promoted = await api('PATCH', `/${alice.key}/groups/${group.id}/role?action=promote`, { participants: [BOB] });
    assert.deepEqual(promoted.body, { status: 200, data: [{ jid: jidOf(BOB), status: '200' }] });
    assert.deepEqual((await sameForAll([alice, bob, carol])).participants[1], { id: jidOf(BOB), admin: 'admin' });
    const event = await waitForEvent(t, carol, 'group.participants', (e) => e.action === 'promote', 'the promote event on carol');
    assert.deepEqual([event.participants, event.author], [[jidOf(BOB)], jidOf(ALICE)]);
    // The new admin can change settings now.
    assert.equal((await api('PATCH', `/${bob.key}/groups/${group.id}?setting=announcement`)).status, 200);
    await api('PATCH', `/${bob.key}/groups/${group.id}?setting=not_announcement`);

    const demoted = await api('PATCH', `/${bob.key}/groups/${group.id}/role?action=demote`, { participants: [BOB, ALICE, DAVE] });
    assert.deepEqual(demoted.body.data, [{ jid: jidOf(BOB), status: '200' }, { jid: jidOf(ALICE), status: '403' }, { jid: jidOf(DAVE), status: '404' }]);
    assert.deepEqual((await sameForAll([alice, bob, carol])).participants.slice(0, 2), [{ id: jidOf(ALICE), admin: 'superadmin' }, { id: jidOf(BOB), admin: null }]);
    const demote = await waitForEvent(t, alice, 'group.participants', (e) => e.action === 'demote', 'the demote event on alice');
    assert.deepEqual(demote.participants, [jidOf(BOB)]);
    expectError(await api('PATCH', `/${bob.key}/groups/${group.id}/role?action=promote`, { participants: [CAROL] }), 403, 'not_admin');
  });

  it('answers the invite code (admins) and what a code leads to (anyone)', async () => {
    const res = await api('GET', `/${alice.key}/groups/${group.id}/invite`);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['inviteCode', 'status']);
    assert.match(res.body.inviteCode, /^[A-Za-z0-9]{22}$/);
    expectError(await api('GET', `/${carol.key}/groups/${group.id}/invite`), 403, 'not_admin');
    const info = await api('GET', `/${dave.key}/groups/invite/info?code=${res.body.inviteCode}`);
    assert.deepEqual(info.body, {
      status: 200,
      data: { id: group.id, subject: 'Team A', owner: jidOf(ALICE), desc: 'by bob', size: 3, creation: group.creation, isCommunity: false },
    });
    const link = await api('GET', `/${dave.key}/groups/invite/info?code=${encodeURIComponent(`https://chat.whatsapp.com/${res.body.inviteCode}`)}`);
    assert.deepEqual(link.body, info.body);
    expectError(await api('GET', `/${dave.key}/groups/invite/info?code=AAAAAAAAAAAAAAAAAAAAAA`), 404, 'invite_not_found', 'invite code not found');
  });

  it('join approval: joining by invite becomes a request that an admin approves or rejects', async () => {
    const { inviteCode } = (await api('GET', `/${alice.key}/groups/${group.id}/invite`)).body;
    expectError(await api('PATCH', `/${carol.key}/groups/${group.id}/join-approval`, { mode: 'on' }), 403, 'not_admin');
    const on = await api('PATCH', `/${alice.key}/groups/${group.id}/join-approval`, { mode: 'on' });
    assert.equal(on.body.data.joinApprovalMode, true);

    const pending = await api('POST', `/${dave.key}/groups/invite/accept`, { code: inviteCode });
    assert.deepEqual(pending.body, { status: 200, message: `join request sent to ${group.id}: an admin must approve it` });
    expectError(await groupOf(dave), 404, 'group_not_found');
    await api('POST', `/${erin.key}/groups/invite/accept`, { code: inviteCode });
    const requests = (await get(alice, `/groups/${group.id}/request_participants_list`)).data;
    assert.deepEqual(requests.map((r: { jid: string; requestMethod: string }) => [r.jid, r.requestMethod]), [[jidOf(DAVE), 'invite_link'], [jidOf(ERIN), 'invite_link']]);
    for (const r of requests) assert.ok(Number.isInteger(r.requestTime) && Math.abs(r.requestTime - Date.now() / 1000) < 60);
    expectError(await api('GET', `/${carol.key}/groups/${group.id}/request_participants_list`), 403, 'not_admin');

    const approved = await api('PUT', `/${alice.key}/groups/${group.id}/request_participants_list`, { participants: [DAVE, CAROL], action: 'approve' });
    assert.deepEqual(approved.body, { status: 200, data: [{ jid: jidOf(DAVE), status: '200' }, { jid: jidOf(CAROL), status: '404' }] });
    assert.equal((await groupOf(dave)).status, 200);
    await waitForEvent(t, bob, 'group.participants', (e) => e.action === 'add' && e.participants[0] === jidOf(DAVE) && eventsOf(t, bob.id, 'group.participants').filter((x) => x.action === 'add' && x.participants[0] === jidOf(DAVE)).length === 2, 'dave joining again, on bob');

    const rejected = await api('PUT', `/${alice.key}/groups/${group.id}/request_participants_list`, { participants: [ERIN], action: 'reject' });
    assert.deepEqual(rejected.body.data, [{ jid: jidOf(ERIN), status: '200' }]);
    expectError(await groupOf(erin), 404, 'group_not_found');
    assert.deepEqual(await get(alice, `/groups/${group.id}/request_participants_list`), { status: 200, data: [] });

    await api('PATCH', `/${alice.key}/groups/${group.id}/join-approval`, { mode: 'off' });
    const joined = await api('POST', `/${erin.key}/groups/invite/accept`, { code: inviteCode });
    assert.equal(joined.body.data.id, group.id);
    assert.deepEqual(joined.body.data.participants.map((m: { id: string }) => m.id), [jidOf(ALICE), jidOf(BOB), jidOf(CAROL), jidOf(DAVE), jidOf(ERIN)]);
    assert.deepEqual(joined.body.data, (await groupOf(alice)).body.data);
  });

  it('sets and removes the picture: served at the group\'s imgUrl, seen by every member', async () => {
    const res = await api('PUT', `/${bob.key}/groups/${group.id}/picture`, { url: dataUri('image/png', SAMPLES.png) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const url = new URL(res.body.data.imgUrl);
    assert.equal(url.pathname, `/sandbox/pictures/${group.id}`);
    assert.equal(url.searchParams.get('v'), sha256Hex(SAMPLES.png).slice(0, 12));
    assert.equal((await sameForAll([alice, bob, carol, dave, erin])).imgUrl, res.body.data.imgUrl);
    const served = await api('GET', `${url.pathname}${url.search}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.ok(served.raw.equals(SAMPLES.png));

    const removed = await api('DELETE', `/${carol.key}/groups/${group.id}/picture`);
    assert.equal(removed.status, 200);
    assert.equal(removed.body.data.imgUrl, undefined);
    assert.equal((await groupOf(alice)).body.data.imgUrl, undefined);
    assert.equal((await api('GET', url.pathname)).status, 404);
  });

  it('a text sent to the group reaches every other member as a group message', async () => {
    const sent = await api('POST', `/${alice.key}/message/text`, { to: group.id, text: 'hello team' });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const id = sent.body.data.key.id;
    for (const member of [bob, carol, dave, erin]) {
      const got = await t.waitFor(async () => (await get(member, `/chat/${group.id}/messages`)).data.find((m: { key: { id: string } }) => m.key.id === id),
        5000, `the group message on ${member.number}`);
      assert.deepEqual(got.key, { remoteJid: group.id, fromMe: false, id, participant: jidOf(ALICE) });
      assert.deepEqual(got.message, { extendedTextMessage: { text: 'hello team' } });
    }
    const inbound = eventsOf(t, bob.id, 'message').find((e) => e.message.id === id);
    assert.deepEqual([inbound.message.chatType, inbound.message.groupId, inbound.message.from], ['group', group.id, ALICE]);
  });

  it('an announcement group takes messages from admins only: a member\'s send is refused (403 not_admin) and reaches nobody', async () => {
    assert.equal((await api('PATCH', `/${alice.key}/groups/${group.id}?setting=announcement`)).body.data.announce, true);
    const denied = await api('POST', `/${bob.key}/message/text`, { to: group.id, text: 'may I speak?' });
    expectError(denied, 403, 'not_admin', 'only admins can send messages to this group');
    const sent = await api('POST', `/${alice.key}/message/text`, { to: group.id, text: 'announcement' });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const id = sent.body.data.key.id;
    await t.waitFor(async () => (await get(bob, `/chat/${group.id}/messages`)).data.some((m: { key: { id: string } }) => m.key.id === id),
      5000, 'the announcement on bob');
    await t.settle();
    const refused = (m: { message: { extendedTextMessage?: { text: string } } }) => m.message.extendedTextMessage?.text === 'may I speak?';
    for (const member of [alice, bob, carol, dave, erin]) {
      assert.equal((await get(member, `/chat/${group.id}/messages`)).data.some(refused), false, `the refused message on ${member.number}`);
      assert.equal(eventsOf(t, member.id, 'message').some((e) => refused(e.message.record)), false, `a message event of the refused send on ${member.number}`);
    }
    assert.equal((await api('PATCH', `/${alice.key}/groups/${group.id}?setting=not_announcement`)).body.data.announce, false);
    const allowed = await api('POST', `/${bob.key}/message/text`, { to: group.id, text: 'thanks' });
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
  });

  it('leaving: the member loses the group and the others are told; a group left without admins promotes its oldest member', async () => {
    const left = await api('DELETE', `/${carol.key}/groups/${group.id}`);
    assert.deepEqual(left.body, { status: 200, message: `left group ${group.id}` });
    assert.deepEqual(await get(carol, '/groups'), { status: 200, data: [] });
    assert.deepEqual((await sameForAll([alice, bob])).participants.map((m: { id: string }) => m.id), [jidOf(ALICE), jidOf(BOB), jidOf(DAVE), jidOf(ERIN)]);
    await waitForEvent(t, bob, 'group.participants', (e) => e.action === 'remove' && e.participants[0] === jidOf(CAROL), 'carol leaving, on bob');
    expectError(await api('DELETE', `/${carol.key}/groups/${group.id}`), 404, 'group_not_found');

    await api('DELETE', `/${alice.key}/groups/${group.id}`);
    const members = (await sameForAll([bob, dave, erin])).participants;
    assert.deepEqual(members, [{ id: jidOf(BOB), admin: 'admin' }, { id: jidOf(DAVE), admin: null }, { id: jidOf(ERIN), admin: null }]);
    const heir = await waitForEvent(t, dave, 'group.participants', (e) => e.action === 'promote' && e.participants[0] === jidOf(BOB), 'bob inheriting admin, on dave');
    assert.equal(heir.author, jidOf(ALICE));
  });

  describe('bad input changes nothing', () => {
    it('rejects a malformed creation (400 naming the field) without creating anything', async () => {
      const before = (await get(bob, '/groups')).data;
      expectError(await api('POST', `/${bob.key}/groups`, { participants: [CAROL] }), 400, 'validation_failed', 'body.name is required');
      expectError(await api('POST', `/${bob.key}/groups`, { name: 'x', participants: CAROL }), 400, 'validation_failed', 'body.participants must be array');
      expectError(await api('POST', `/${bob.key}/groups`, { name: 'x', participants: [CAROL, 'not-a-number'] }), 400, 'validation_failed',
        'body.participants[1] must be a phone number with country code (6 to 15 digits) or a JID');
      expectError(await api('POST', `/${bob.key}/groups`, { name: 'x', participants: [group.id] }), 400, 'validation_failed',
        'body.participants[0] must be a phone number or a contact JID, not a group or broadcast');
      const wrongType = await api('POST', `/${bob.key}/groups`, { name: 'x', participants: [true] });
      expectError(wrongType, 400, 'validation_failed');
      assert.match(wrongType.body.error.message, /^body\.participants\[0\] must be string; body\.participants\[0\] must be integer/);
      expectError(await api('POST', `/${bob.key}/groups`, { name: 'x', participants: [], extra: 1 }), 400, 'validation_failed', 'body.extra is not allowed');
      expectError(await api('POST', `/${bob.key}/groups`, { name: '', participants: [] }), 400, 'validation_failed');
      assert.deepEqual((await get(bob, '/groups')).data, before);
      assert.deepEqual((await get(carol, '/groups')).data, []);
    });

    it('accepts participants as JSON integers too', async () => {
      const res = await api('POST', `/${carol.key}/groups`, { name: 'Numbers', participants: [Number(DAVE)] });
      assert.deepEqual(res.body.data.participants, [{ id: jidOf(CAROL), admin: 'superadmin' }, { id: jidOf(DAVE), admin: null }]);
      await api('DELETE', `/${carol.key}/groups/${res.body.data.id}`);
      await api('DELETE', `/${dave.key}/groups/${res.body.data.id}`);
      assert.deepEqual((await get(carol, '/groups')).data, []);
    });

    it('answers 404 for a group the instance is not in, and 400 for a malformed group JID', async () => {
      const before = (await groupOf(bob)).body.data;
      const attempts: [string, string, unknown?][] = [
        ['GET', `/groups/${NO_GROUP}`], ['PUT', `/groups/${NO_GROUP}`, { name: 'x' }], ['PATCH', `/groups/${NO_GROUP}?setting=locked`],
        ['DELETE', `/groups/${NO_GROUP}`], ['GET', `/groups/${NO_GROUP}/members`], ['POST', `/groups/${NO_GROUP}/participants`, { participants: [BOB] }],
        ['DELETE', `/groups/${NO_GROUP}/participants`, { participants: [BOB] }], ['PATCH', `/groups/${NO_GROUP}/role?action=promote`, { participants: [BOB] }],
        ['GET', `/groups/${NO_GROUP}/request_participants_list`], ['PUT', `/groups/${NO_GROUP}/request_participants_list`, { participants: [BOB], action: 'approve' }],
        ['GET', `/groups/${NO_GROUP}/invite`], ['PUT', `/groups/${NO_GROUP}/picture`, { url: dataUri('image/png', SAMPLES.png) }],
        ['DELETE', `/groups/${NO_GROUP}/picture`], ['PATCH', `/groups/${NO_GROUP}/join-approval`, { mode: 'on' }],
      ];
      for (const [method, path, body] of attempts) {
        const res = await api(method, `/${bob.key}${path}`, body);
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.deepEqual(res.body.error, { code: 'group_not_found', message: 'group not found' });
      }
      // A member who left cannot act on the group either.
      expectError(await api('PUT', `/${carol.key}/groups/${group.id}`, { name: 'x' }), 404, 'group_not_found');
      expectError(await api('POST', `/${carol.key}/groups/${group.id}/participants`, { participants: [CAROL] }), 404, 'group_not_found');
      expectError(await api('GET', `/${bob.key}/groups/not-a-group`), 400, 'validation_failed');
      assert.match((await api('GET', `/${bob.key}/groups/not-a-group`)).body.error.message, /^path\.groupJid /);
      assert.deepEqual((await groupOf(bob)).body.data, before);
    });

    it('rejects bad settings, roles, join-request actions, empty updates and non-image pictures without changing the group', async () => {
      const before = (await groupOf(bob)).body.data;
      expectError(await api('PATCH', `/${bob.key}/groups/${group.id}?setting=open`), 400, 'validation_failed',
        'query.setting must be one of "announcement", "not_announcement", "locked", "unlocked"');
      expectError(await api('PATCH', `/${bob.key}/groups/${group.id}`), 400, 'validation_failed', 'query.setting is required');
      expectError(await api('PATCH', `/${bob.key}/groups/${group.id}/role?action=kick`, { participants: [DAVE] }), 400, 'validation_failed',
        'query.action must be one of "promote", "demote"');
      expectError(await api('PATCH', `/${bob.key}/groups/${group.id}/role?action=promote`, { participants: [] }), 400, 'validation_failed',
        'body.participants must NOT have fewer than 1 items');
      expectError(await api('PATCH', `/${bob.key}/groups/${group.id}/role?action=promote`, { participants: [DAVE, 'x@broadcast'] }), 400, 'validation_failed',
        'body.participants[1] must be a phone number or a contact JID, not a group or broadcast');
      expectError(await api('PUT', `/${bob.key}/groups/${group.id}/request_participants_list`, { participants: [DAVE], action: 'maybe' }), 400,
        'validation_failed', 'body.action must be one of "approve", "reject"');
      expectError(await api('PUT', `/${bob.key}/groups/${group.id}`, {}), 400, 'validation_failed', 'body must set name or description');
      expectError(await api('PUT', `/${bob.key}/groups/${group.id}/picture`, { url: dataUri('text/plain', Buffer.from('hello')) }), 400,
        'validation_failed', 'body.url has content type text/plain, which is not a valid image');
      expectError(await api('GET', `/${bob.key}/groups/invite/info`), 400, 'validation_failed', 'query.code is required');
      expectError(await api('POST', `/${bob.key}/groups/invite/accept`, { code: 'bad code!' }), 400, 'validation_failed');
      assert.deepEqual((await groupOf(bob)).body.data, before);
    });

    it('answers 409 not_connected for an instance that is not connected, creating nothing', async () => {
      expectError(await api('GET', `/${offline.key}/groups`), 409, 'not_connected');
      expectError(await api('POST', `/${offline.key}/groups`, { name: 'x', participants: [BOB] }), 409, 'not_connected');
      expectError(await api('GET', `/${offline.key}/groups/${group.id}`), 409, 'not_connected');
      expectError(await api('GET', `/${offline.key}/groups/invite/info?code=AAAAAAAAAAAAAAAAAAAAAA`), 409, 'not_connected');
      assert.deepEqual((await get(bob, '/groups')).data.map((g: { id: string }) => g.id), [group.id]);
    });
  });
});
