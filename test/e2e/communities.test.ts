import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectError, sameViewForAll } from '../support/api-assertions.js';
import { eventsOf, jidOf, startWithPhones, waitForEvent, type Phone } from '../support/conversation.js';
import { dataUri, SAMPLES, sha256Hex } from '../support/media-server.js';
import { documentedRequests, type DocumentedRequest } from '../support/documented-answers.js';
import type { TestServer } from '../support/test-server.js';

const ALICE = '5511961000001';
const BOB = '5511961000002';
const CAROL = '5511961000003';
const DAVE = '5511961000004';
const ERIN = '5511961000005';
const UNKNOWN = '5511961009999';
const NO_COMMUNITY = '120363000000000002@g.us';

/** Spec 4.11 end to end on real SQLite: communities shared by their members' sandbox instances, with linked groups. */
describe('communities (spec 4.11)', () => {
  let t: TestServer;
  let api: DocumentedRequest;
  let alice: Phone;
  let bob: Phone;
  let carol: Phone;
  let dave: Phone;
  let erin: Phone;
  let offline: { key: string };
  let community: { id: string; creation: number };
  let garden: string;
  let inviteCode: string;

  before(async () => {
    ({ t, phones: { alice, bob, carol, dave, erin } } = await startWithPhones({ alice: ALICE, bob: BOB, carol: CAROL, dave: DAVE, erin: ERIN }, { storage: 'sqlite' }));
    api = await documentedRequests(t);
    offline = await t.createInstance({ channel: 'sandbox', name: 'offline', number: '5511961000099' });
  });
  after(() => t.stop());

  const get = async (p: Phone, path: string) => (await api('GET', `/${p.key}${path}`)).body;
  const communityOf = (p: Phone) => api('GET', `/${p.key}/community/${community.id}`);
  const sameForAll = (members: Phone[]) => sameViewForAll(members, async (p) => (await communityOf(p)).body.data);
  const memberIds = (c: { participants: { id: string }[] }) => c.participants.map((m) => m.id);

  it('creates a community: `name` is its title, `subject` its description; the creator is superadmin', async () => {
    const res = await api('POST', `/${alice.key}/community`, { name: 'Neighbours', subject: 'Street news' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    community = { id: res.body.data.id, creation: res.body.data.creation };
    assert.match(community.id, /^120363\d{12}@g\.us$/);
    const expected = {
      id: community.id, name: 'Neighbours', subject: 'Neighbours', description: 'Street news',
      participants: [{ id: jidOf(ALICE), admin: 'superadmin' }], owner: jidOf(ALICE), creation: community.creation, groups: [],
      announce: false, restrict: true, ephemeralDuration: 0, memberAddMode: 'admin_add', joinApprovalMode: false,
    };
    assert.deepEqual(res.body, { status: 200, data: expected });
    assert.deepEqual(await get(alice, '/community'), { status: 200, data: [expected] });
    assert.deepEqual(await get(alice, `/community/${community.id}`), { status: 200, data: expected });
    assert.deepEqual(await get(bob, '/community'), { status: 200, data: [] });
    // A community is not one of the instance's groups.
    assert.deepEqual(await get(alice, '/groups'), { status: 200, data: [] });
    const created = await waitForEvent(t, alice, 'group.update', (e) => e.groups[0].id === community.id, 'the creation event');
    assert.equal(created.groups[0].subject, 'Neighbours');
    const bare = await api('POST', `/${alice.key}/community`, { name: 'Bare' });
    assert.equal(bare.body.data.description, '');
    assert.deepEqual((await api('DELETE', `/${alice.key}/community/${bare.body.data.id}`)).body, { status: 200, message: `left community ${bare.body.data.id}` });
    assert.deepEqual((await get(alice, '/community')).data.map((c: { id: string }) => c.id), [community.id]);
  });

  it('creates a group linked to the community: its members join the community and are told', async () => {
    const res = await api('POST', `/${alice.key}/community/${community.id}/group`, { subject: 'Garden', participants: [BOB] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    garden = res.body.data.id;
    assert.deepEqual(res.body.data, {
      id: garden, subject: 'Garden', owner: jidOf(ALICE), creation: res.body.data.creation, desc: '',
      participants: [{ id: jidOf(ALICE), admin: 'superadmin' }, { id: jidOf(BOB), admin: null }],
      announce: false, restrict: false, ephemeralDuration: 0, joinApprovalMode: false, memberAddMode: 'admin_add', linkedParent: community.id,
    });
    const seen = await sameForAll([alice, bob]);
    assert.deepEqual(seen.groups, [garden]);
    assert.deepEqual(seen.participants, [{ id: jidOf(ALICE), admin: 'superadmin' }, { id: jidOf(BOB), admin: null }]);
    assert.deepEqual((await get(bob, '/groups')).data.map((g: { id: string; linkedParent: string }) => [g.id, g.linkedParent]), [[garden, community.id]]);
    const joined = await waitForEvent(t, bob, 'group.participants', (e) => e.groupJid === community.id, 'bob joining the community');
    assert.deepEqual([joined.action, joined.participants, joined.author], ['add', [jidOf(BOB)], jidOf(ALICE)]);
    expectError(await api('POST', `/${bob.key}/community/${community.id}/group`, { subject: 'Mine', participants: [] }), 403, 'not_admin',
      'only admins of the community can do this');
    assert.deepEqual((await communityOf(alice)).body.data.groups, [garden]);
  });

  it('changes name and description (admins only): every member sees it and gets group.update', async () => {
    expectError(await api('PUT', `/${bob.key}/community/${community.id}`, { subject: 'Mine' }), 403, 'not_admin');
    const res = await api('PUT', `/${alice.key}/community/${community.id}`, { subject: 'Neighbours of Elm St', description: 'News and help' });
    assert.equal(res.status, 200);
    assert.deepEqual([res.body.data.name, res.body.data.subject, res.body.data.description], ['Neighbours of Elm St', 'Neighbours of Elm St', 'News and help']);
    assert.deepEqual(await sameForAll([alice, bob]), res.body.data);
    const update = await waitForEvent(t, bob, 'group.update', (e) => e.groups[0].id === community.id && e.groups[0].subject === 'Neighbours of Elm St', 'the update on bob');
    assert.deepEqual(update.groups, [{ id: community.id, subject: 'Neighbours of Elm St', desc: 'News and help' }]);
  });

  it('answers the invite code (admins) and what it leads to; the code joins the community', async () => {
    const res = await api('POST', `/${alice.key}/community/${community.id}/invite`);
    assert.deepEqual(Object.keys(res.body).sort(), ['inviteCode', 'status']);
    inviteCode = res.body.inviteCode;
    assert.match(inviteCode, /^[A-Za-z0-9]{22}$/);
    expectError(await api('POST', `/${bob.key}/community/${community.id}/invite`), 403, 'not_admin');
    const info = await api('GET', `/${carol.key}/community/invite/info?code=${inviteCode}`);
    assert.deepEqual(info.body, {
      status: 200,
      data: { id: community.id, subject: 'Neighbours of Elm St', owner: jidOf(ALICE), desc: 'News and help', size: 2, creation: community.creation, isCommunity: true },
    });
    // Invite codes are per family: a community code is no group invite.
    expectError(await api('GET', `/${carol.key}/groups/invite/info?code=${inviteCode}`), 404, 'invite_not_found');

    const joined = await api('POST', `/${carol.key}/community/invite/accept`, { code: inviteCode });
    assert.equal(joined.status, 200);
    assert.deepEqual(memberIds(joined.body.data), [jidOf(ALICE), jidOf(BOB), jidOf(CAROL)]);
    assert.deepEqual(joined.body.data, await sameForAll([alice, bob, carol]));
    const event = await waitForEvent(t, bob, 'group.participants', (e) => e.groupJid === community.id && e.participants[0] === jidOf(CAROL), 'carol joining, on bob');
    assert.deepEqual([event.action, event.author], ['add', jidOf(CAROL)]);
    // Joining again changes nothing.
    assert.deepEqual(memberIds((await api('POST', `/${carol.key}/community/invite/accept`, { code: inviteCode })).body.data), memberIds(joined.body.data));
    expectError(await api('POST', `/${carol.key}/community/invite/accept`, { code: 'AAAAAAAAAAAAAAAAAAAAAA' }), 404, 'invite_not_found');
  });

  it('join approval: joining by invite becomes a request an admin approves or rejects', async () => {
    expectError(await api('PATCH', `/${bob.key}/community/${community.id}/join-approval`, { mode: 'on' }), 403, 'not_admin');
    const on = await api('PATCH', `/${alice.key}/community/${community.id}/join-approval`, { mode: 'on' });
    assert.equal(on.body.data.joinApprovalMode, true);
    const pending = await api('POST', `/${dave.key}/community/invite/accept`, { code: inviteCode });
    assert.deepEqual(pending.body, { status: 200, message: `join request sent to ${community.id}: an admin must approve it` });
    await api('POST', `/${erin.key}/community/invite/accept`, { code: inviteCode });
    expectError(await communityOf(dave), 404, 'community_not_found', 'community not found');
    const requests = (await get(alice, `/community/${community.id}/request_participants_list`)).data;
    assert.deepEqual(requests.map((r: { jid: string; requestMethod: string }) => [r.jid, r.requestMethod]), [[jidOf(DAVE), 'invite_link'], [jidOf(ERIN), 'invite_link']]);
    expectError(await api('GET', `/${bob.key}/community/${community.id}/request_participants_list`), 403, 'not_admin');

    const approved = await api('PUT', `/${alice.key}/community/${community.id}/request_participants_list`, { participants: [DAVE], action: 'approve' });
    assert.deepEqual(approved.body, { status: 200, data: [{ jid: jidOf(DAVE), status: '200' }] });
    const rejected = await api('PUT', `/${alice.key}/community/${community.id}/request_participants_list`, { participants: [ERIN, BOB], action: 'reject' });
    assert.deepEqual(rejected.body.data, [{ jid: jidOf(ERIN), status: '200' }, { jid: jidOf(BOB), status: '404' }]);
    assert.deepEqual(memberIds(await sameForAll([alice, dave])), [jidOf(ALICE), jidOf(BOB), jidOf(CAROL), jidOf(DAVE)]);
    expectError(await communityOf(erin), 404, 'community_not_found');
    assert.deepEqual(await get(alice, `/community/${community.id}/request_participants_list`), { status: 200, data: [] });
  });

  it('changes settings, member-add mode and the disappearing timer (admins only); members see them and get group.update', async () => {
    const before = (await communityOf(alice)).body.data;
    for (const [path, body] of [['settings', { setting: 'announcement' }], ['member-add-mode', { mode: 'all_member_add' }], ['ephemeral', { expiration: 86400 }]] as const) {
      expectError(await api(path === 'ephemeral' ? 'POST' : 'PATCH', `/${bob.key}/community/${community.id}/${path}`, body), 403, 'not_admin');
    }
    assert.deepEqual((await communityOf(alice)).body.data, before);

    assert.equal((await api('PATCH', `/${alice.key}/community/${community.id}/settings`, { setting: 'announcement' })).body.data.announce, true);
    assert.equal((await api('PATCH', `/${alice.key}/community/${community.id}/settings`, { setting: 'unlocked' })).body.data.restrict, false);
    assert.equal((await api('PATCH', `/${alice.key}/community/${community.id}/member-add-mode`, { mode: 'all_member_add' })).body.data.memberAddMode, 'all_member_add');
    const ephemeral = await api('POST', `/${alice.key}/community/${community.id}/ephemeral`, { expiration: 604800 });
    assert.equal(ephemeral.body.data.ephemeralDuration, 604800);
    const seen = await sameForAll([alice, bob, carol, dave]);
    assert.deepEqual([seen.announce, seen.restrict, seen.memberAddMode, seen.ephemeralDuration, seen.joinApprovalMode], [true, false, 'all_member_add', 604800, true]);
    await waitForEvent(t, carol, 'group.update', (e) => e.groups[0].ephemeralDuration === 604800, 'the timer update on carol');
    const updates = eventsOf(t, carol.id, 'group.update').map((e) => e.groups[0]).filter((g) => g.id === community.id).slice(-4);
    assert.deepEqual(updates, [
      { id: community.id, announce: true }, { id: community.id, restrict: false }, { id: community.id, memberAddMode: 'all_member_add' },
      { id: community.id, ephemeralDuration: 604800 },
    ]);
    // Unlocked: members edit the info too.
    assert.equal((await api('PUT', `/${bob.key}/community/${community.id}`, { description: 'by bob' })).body.data.description, 'by bob');
    const off = await api('POST', `/${alice.key}/community/${community.id}/ephemeral`, { expiration: 0 });
    assert.equal(off.body.data.ephemeralDuration, 0);
  });

  it('sets the picture (admins only): served at the community\'s imgUrl', async () => {
    await api('PATCH', `/${alice.key}/community/${community.id}/settings`, { setting: 'locked' });
    expectError(await api('PUT', `/${bob.key}/community/${community.id}/picture`, { url: dataUri('image/png', SAMPLES.png) }), 403, 'not_admin');
    const res = await api('PUT', `/${alice.key}/community/${community.id}/picture`, { url: dataUri('image/png', SAMPLES.png) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const url = new URL(res.body.data.imgUrl);
    assert.deepEqual([url.pathname, url.searchParams.get('v')], [`/sandbox/pictures/${community.id}`, sha256Hex(SAMPLES.png).slice(0, 12)]);
    assert.equal((await sameForAll([alice, bob])).imgUrl, res.body.data.imgUrl);
    const served = await api('GET', url.pathname);
    assert.ok(served.raw.equals(SAMPLES.png));
  });

  it('removes members (admins only): they leave the linked groups too; the creator cannot be removed', async () => {
    expectError(await api('DELETE', `/${carol.key}/community/${community.id}/participants`, { participants: [BOB] }), 403, 'not_admin');
    const res = await api('DELETE', `/${alice.key}/community/${community.id}/participants`, { participants: [BOB, ALICE, UNKNOWN] });
    assert.deepEqual(res.body, {
      status: 200, data: [{ jid: jidOf(BOB), status: '200' }, { jid: jidOf(ALICE), status: '403' }, { jid: jidOf(UNKNOWN), status: '404' }],
    });
    assert.deepEqual(await get(bob, '/community'), { status: 200, data: [] });
    assert.deepEqual(await get(bob, '/groups'), { status: 200, data: [] });
    assert.deepEqual(memberIds((await get(alice, `/groups/${garden}`)).data), [jidOf(ALICE)]);
    assert.deepEqual(memberIds(await sameForAll([alice, carol, dave])), [jidOf(ALICE), jidOf(CAROL), jidOf(DAVE)]);
    const fromGarden = await waitForEvent(t, bob, 'group.participants', (e) => e.groupJid === garden && e.action === 'remove', 'bob removed from the linked group');
    assert.deepEqual(fromGarden.participants, [jidOf(BOB)]);
  });

  it('leaving: the member loses the community, the others are told', async () => {
    const res = await api('DELETE', `/${carol.key}/community/${community.id}`);
    assert.deepEqual(res.body, { status: 200, message: `left community ${community.id}` });
    assert.deepEqual(await get(carol, '/community'), { status: 200, data: [] });
    assert.deepEqual(memberIds(await sameForAll([alice, dave])), [jidOf(ALICE), jidOf(DAVE)]);
    await waitForEvent(t, dave, 'group.participants', (e) => e.groupJid === community.id && e.action === 'remove' && e.participants[0] === jidOf(CAROL), 'carol leaving, on dave');
  });

  describe('bad input changes nothing', () => {
    it('rejects malformed bodies (400 naming the field)', async () => {
      const before = (await communityOf(alice)).body.data;
      expectError(await api('POST', `/${alice.key}/community`, { subject: 'x' }), 400, 'validation_failed', 'body.name is required');
      expectError(await api('POST', `/${alice.key}/community`, { name: 'x', description: 'y' }), 400, 'validation_failed', 'body.description is not allowed');
      expectError(await api('PUT', `/${alice.key}/community/${community.id}`, {}), 400, 'validation_failed', 'body must set subject or description');
      expectError(await api('POST', `/${alice.key}/community/${community.id}/ephemeral`, { expiration: 5 }), 400, 'validation_failed',
        'body.expiration must be one of 0, 86400, 604800, 7776000');
      expectError(await api('PATCH', `/${alice.key}/community/${community.id}/settings`, { setting: 'open' }), 400, 'validation_failed',
        'body.setting must be one of "announcement", "not_announcement", "locked", "unlocked"');
      expectError(await api('PATCH', `/${alice.key}/community/${community.id}/member-add-mode`, { mode: 'anyone' }), 400, 'validation_failed',
        'body.mode must be one of "admin_add", "all_member_add"');
      expectError(await api('PATCH', `/${alice.key}/community/${community.id}/join-approval`, {}), 400, 'validation_failed', 'body.mode is required');
      expectError(await api('DELETE', `/${alice.key}/community/${community.id}/participants`, { participants: ['12'] }), 400, 'validation_failed',
        'body.participants[0] must be a phone number with country code (6 to 15 digits) or a JID');
      expectError(await api('POST', `/${alice.key}/community/${community.id}/group`, { subject: 'Bad', participants: [BOB, 'x@g.us'] }), 400, 'validation_failed',
        'body.participants[1] must be a phone number or a contact JID, not a group or broadcast');
      expectError(await api('POST', `/${alice.key}/community/invite/accept`, {}), 400, 'validation_failed', 'body.code is required');
      expectError(await api('PUT', `/${alice.key}/community/${community.id}/picture`, { url: 'ftp://example.com/x.png' }), 400, 'validation_failed');
      assert.deepEqual((await communityOf(alice)).body.data, before);
      assert.deepEqual((await get(alice, '/groups')).data.map((g: { id: string }) => g.id), [garden]);
    });

    it('answers 404 for a community the instance is not in (a group JID included), without changing anything', async () => {
      for (const id of [NO_COMMUNITY, garden]) {
        for (const [method, path, body] of [
          ['GET', ''], ['PUT', '', { subject: 'x' }], ['DELETE', ''], ['PUT', '/picture', { url: dataUri('image/png', SAMPLES.png) }], ['POST', '/invite'],
          ['DELETE', '/participants', { participants: [DAVE] }], ['GET', '/request_participants_list'],
          ['PUT', '/request_participants_list', { participants: [DAVE], action: 'approve' }], ['POST', '/group', { subject: 'x', participants: [] }],
          ['POST', '/ephemeral', { expiration: 0 }], ['PATCH', '/settings', { setting: 'locked' }], ['PATCH', '/member-add-mode', { mode: 'admin_add' }],
          ['PATCH', '/join-approval', { mode: 'off' }],
        ] as [string, string, unknown?][]) {
          const res = await api(method, `/${alice.key}/community/${id}${path}`, body);
          assert.equal(res.status, 404, `${method} ${path} ${JSON.stringify(res.body)}`);
          assert.deepEqual(res.body.error, { code: 'community_not_found', message: 'community not found' });
        }
      }
      expectError(await api('GET', `/${bob.key}/community/${community.id}`), 404, 'community_not_found');
      assert.deepEqual(memberIds(await sameForAll([alice, dave])), [jidOf(ALICE), jidOf(DAVE)]);
      assert.equal((await get(alice, `/groups/${garden}`)).data.linkedParent, community.id);
    });

    it('answers 409 not_connected for an instance that is not connected, creating nothing', async () => {
      expectError(await api('GET', `/${offline.key}/community`), 409, 'not_connected');
      expectError(await api('POST', `/${offline.key}/community`, { name: 'x' }), 409, 'not_connected');
      expectError(await api('POST', `/${offline.key}/community/invite/accept`, { code: inviteCode }), 409, 'not_connected');
      assert.deepEqual(memberIds(await sameForAll([alice, dave])), [jidOf(ALICE), jidOf(DAVE)]);
    });
  });
});
