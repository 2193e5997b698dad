import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InstanceClient } from '@parley/client';
import { expectError, sameViewForAll } from '../support/api-assertions.js';
import { apiError } from '../support/api-error.js';
import { eventsOf, jidOf, startWithPhones, waitForEvent, type Phone } from '../support/conversation.js';
import { dataUri, SAMPLES, sha256Hex } from '../support/media-server.js';
import { documentedClients, documentedRequests, type DocumentedRequest } from '../support/documented-answers.js';
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
  let client: (key: string) => InstanceClient;
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
    client = await documentedClients(t);
    offline = await t.createInstance({ channel: 'sandbox', name: 'offline', number: '5511961000099' });
  });
  after(() => t.stop());

  const communitiesOf = (p: Phone) => client(p.key).call('listCommunities');
  const groupsOf = (p: Phone) => client(p.key).call('listGroups');
  const communityOf = (p: Phone, communityId = community.id) => client(p.key).call('getCommunity', { params: { communityId } });
  const sameForAll = (members: Phone[]) => sameViewForAll(members, async (p) => (await communityOf(p)).data);
  const params = () => ({ communityId: community.id });
  const memberIds = (c: { participants: { id: string }[] }) => c.participants.map((m) => m.id);

  it('creates a community: `name` is its title, `subject` its description; the creator is superadmin', async () => {
    const res = await client(alice.key).call('createCommunity', { body: { name: 'Neighbours', subject: 'Street news' } });
    assert.equal(res.status, 200, JSON.stringify(res));
    community = { id: res.data.id, creation: res.data.creation! };
    assert.match(community.id, /^120363\d{12}@g\.us$/);
    const expected = {
      id: community.id, name: 'Neighbours', subject: 'Neighbours', description: 'Street news',
      participants: [{ id: jidOf(ALICE), admin: 'superadmin' }], owner: jidOf(ALICE), creation: community.creation, groups: [],
      announce: false, restrict: true, ephemeralDuration: 0, memberAddMode: 'admin_add', joinApprovalMode: false,
    };
    assert.deepEqual(res, { status: 200, data: expected });
    assert.deepEqual(await communitiesOf(alice), { status: 200, data: [expected] });
    assert.deepEqual(await communityOf(alice), { status: 200, data: expected });
    assert.deepEqual(await communitiesOf(bob), { status: 200, data: [] });
    // A community is not one of the instance's groups.
    assert.deepEqual(await groupsOf(alice), { status: 200, data: [] });
    const created = await waitForEvent(t, alice, 'group.update', (e) => e.groups[0].id === community.id, 'the creation event');
    assert.equal(created.groups[0].subject, 'Neighbours');
    const bare = await client(alice.key).call('createCommunity', { body: { name: 'Bare' } });
    assert.equal(bare.data.description, '');
    assert.deepEqual(await client(alice.key).call('leaveCommunity', { params: { communityId: bare.data.id } }), { status: 200, message: `left community ${bare.data.id}` });
    assert.deepEqual((await communitiesOf(alice)).data.map((c) => c.id), [community.id]);
  });

  it('creates a group linked to the community: its members join the community and are told', async () => {
    const linked = (p: Phone, subject: string, participants: string[]) => client(p.key).call('createCommunityGroup', { params: params(), body: { subject, participants } });
    const res = await linked(alice, 'Garden', [BOB]);
    assert.equal(res.status, 200, JSON.stringify(res));
    garden = res.data.id;
    assert.deepEqual(res.data, {
      id: garden, subject: 'Garden', owner: jidOf(ALICE), creation: res.data.creation, desc: '',
      participants: [{ id: jidOf(ALICE), admin: 'superadmin' }, { id: jidOf(BOB), admin: null }],
      announce: false, restrict: false, ephemeralDuration: 0, joinApprovalMode: false, memberAddMode: 'admin_add', linkedParent: community.id,
    });
    const seen = await sameForAll([alice, bob]);
    assert.deepEqual(seen.groups, [garden]);
    assert.deepEqual(seen.participants, [{ id: jidOf(ALICE), admin: 'superadmin' }, { id: jidOf(BOB), admin: null }]);
    assert.deepEqual((await groupsOf(bob)).data.map((g) => [g.id, g.linkedParent]), [[garden, community.id]]);
    const joined = await waitForEvent(t, bob, 'group.participants', (e) => e.groupJid === community.id, 'bob joining the community');
    assert.deepEqual([joined.action, joined.participants, joined.author], ['add', [jidOf(BOB)], jidOf(ALICE)]);
    await assert.rejects(linked(bob, 'Mine', []), apiError(403, 'not_admin', 'only admins of the community can do this'));
    assert.deepEqual((await communityOf(alice)).data.groups, [garden]);
  });

  it('changes name and description (admins only): every member sees it and gets group.update', async () => {
    await assert.rejects(client(bob.key).call('updateCommunity', { params: params(), body: { subject: 'Mine' } }), apiError(403, 'not_admin'));
    const res = await client(alice.key).call('updateCommunity', { params: params(), body: { subject: 'Neighbours of Elm St', description: 'News and help' } });
    assert.equal(res.status, 200);
    assert.deepEqual([res.data.name, res.data.subject, res.data.description], ['Neighbours of Elm St', 'Neighbours of Elm St', 'News and help']);
    assert.deepEqual(await sameForAll([alice, bob]), res.data);
    const update = await waitForEvent(t, bob, 'group.update', (e) => e.groups[0].id === community.id && e.groups[0].subject === 'Neighbours of Elm St', 'the update on bob');
    assert.deepEqual(update.groups, [{ id: community.id, subject: 'Neighbours of Elm St', desc: 'News and help' }]);
  });

  it('answers the invite code (admins) and what it leads to; the code joins the community', async () => {
    const res = await client(alice.key).call('getCommunityInviteCode', { params: params() });
    assert.deepEqual(Object.keys(res).sort(), ['inviteCode', 'status']);
    inviteCode = res.inviteCode;
    assert.match(inviteCode, /^[A-Za-z0-9]{22}$/);
    await assert.rejects(client(bob.key).call('getCommunityInviteCode', { params: params() }), apiError(403, 'not_admin'));
    const info = await client(carol.key).call('getCommunityInviteInfo', { query: { code: inviteCode } });
    assert.deepEqual(info, {
      status: 200,
      data: { id: community.id, subject: 'Neighbours of Elm St', owner: jidOf(ALICE), desc: 'News and help', size: 2, creation: community.creation, isCommunity: true },
    });
    // Invite codes are per family: a community code is no group invite.
    await assert.rejects(client(carol.key).call('getGroupInviteInfo', { query: { code: inviteCode } }), apiError(404, 'invite_not_found'));

    const accept = (p: Phone, code = inviteCode) => client(p.key).call('acceptCommunityInvite', { body: { code } });
    const joined = await accept(carol);
    assert.equal(joined.status, 200);
    assert.ok('data' in joined, JSON.stringify(joined));
    assert.deepEqual(memberIds(joined.data), [jidOf(ALICE), jidOf(BOB), jidOf(CAROL)]);
    assert.deepEqual(joined.data, await sameForAll([alice, bob, carol]));
    const event = await waitForEvent(t, bob, 'group.participants', (e) => e.groupJid === community.id && e.participants[0] === jidOf(CAROL), 'carol joining, on bob');
    assert.deepEqual([event.action, event.author], ['add', jidOf(CAROL)]);
    // Joining again changes nothing.
    const again = await accept(carol);
    assert.ok('data' in again, JSON.stringify(again));
    assert.deepEqual(memberIds(again.data), memberIds(joined.data));
    await assert.rejects(accept(carol, 'AAAAAAAAAAAAAAAAAAAAAA'), apiError(404, 'invite_not_found'));
  });

  it('join approval: joining by invite becomes a request an admin approves or rejects', async () => {
    const approval = (p: Phone, mode: 'on' | 'off') => client(p.key).call('setCommunityJoinApproval', { params: params(), body: { mode } });
    const accept = (p: Phone) => client(p.key).call('acceptCommunityInvite', { body: { code: inviteCode } });
    const requestsOf = (p: Phone) => client(p.key).call('listCommunityJoinRequests', { params: params() });
    const handle = (participants: string[], action: 'approve' | 'reject') =>
      client(alice.key).call('handleCommunityJoinRequests', { params: params(), body: { participants, action } });
    await assert.rejects(approval(bob, 'on'), apiError(403, 'not_admin'));
    const on = await approval(alice, 'on');
    assert.equal(on.data.joinApprovalMode, true);
    const pending = await accept(dave);
    assert.deepEqual(pending, { status: 200, message: `join request sent to ${community.id}: an admin must approve it` });
    await accept(erin);
    await assert.rejects(communityOf(dave), apiError(404, 'community_not_found', 'community not found'));
    const requests = (await requestsOf(alice)).data;
    assert.deepEqual(requests.map((r) => [r.jid, r.requestMethod]), [[jidOf(DAVE), 'invite_link'], [jidOf(ERIN), 'invite_link']]);
    await assert.rejects(requestsOf(bob), apiError(403, 'not_admin'));

    const approved = await handle([DAVE], 'approve');
    assert.deepEqual(approved, { status: 200, data: [{ jid: jidOf(DAVE), status: '200' }] });
    const rejected = await handle([ERIN, BOB], 'reject');
    assert.deepEqual(rejected.data, [{ jid: jidOf(ERIN), status: '200' }, { jid: jidOf(BOB), status: '404' }]);
    assert.deepEqual(memberIds(await sameForAll([alice, dave])), [jidOf(ALICE), jidOf(BOB), jidOf(CAROL), jidOf(DAVE)]);
    await assert.rejects(communityOf(erin), apiError(404, 'community_not_found'));
    assert.deepEqual(await requestsOf(alice), { status: 200, data: [] });
  });

  it('changes settings, member-add mode and the disappearing timer (admins only); members see them and get group.update', async () => {
    const settingOf = (p: Phone, value: 'announcement' | 'not_announcement' | 'locked' | 'unlocked') =>
      client(p.key).call('changeCommunitySetting', { params: params(), body: { setting: value } });
    const addMode = (p: Phone, mode: 'admin_add' | 'all_member_add') => client(p.key).call('setCommunityMemberAddMode', { params: params(), body: { mode } });
    const timer = (p: Phone, expiration: 0 | 86400 | 604800 | 7776000) => client(p.key).call('setCommunityEphemeral', { params: params(), body: { expiration } });
    const before = (await communityOf(alice)).data;
    for (const [what, call] of [['settings', () => settingOf(bob, 'announcement')], ['member-add-mode', () => addMode(bob, 'all_member_add')],
      ['ephemeral', () => timer(bob, 86400)]] as const) {
      await assert.rejects(call(), apiError(403, 'not_admin'), what);
    }
    assert.deepEqual((await communityOf(alice)).data, before);

    assert.equal((await settingOf(alice, 'announcement')).data.announce, true);
    assert.equal((await settingOf(alice, 'unlocked')).data.restrict, false);
    assert.equal((await addMode(alice, 'all_member_add')).data.memberAddMode, 'all_member_add');
    const ephemeral = await timer(alice, 604800);
    assert.equal(ephemeral.data.ephemeralDuration, 604800);
    const seen = await sameForAll([alice, bob, carol, dave]);
    assert.deepEqual([seen.announce, seen.restrict, seen.memberAddMode, seen.ephemeralDuration, seen.joinApprovalMode], [true, false, 'all_member_add', 604800, true]);
    await waitForEvent(t, carol, 'group.update', (e) => e.groups[0].ephemeralDuration === 604800, 'the timer update on carol');
    const updates = eventsOf(t, carol.id, 'group.update').map((e) => e.groups[0]).filter((g) => g.id === community.id).slice(-4);
    assert.deepEqual(updates, [
      { id: community.id, announce: true }, { id: community.id, restrict: false }, { id: community.id, memberAddMode: 'all_member_add' },
      { id: community.id, ephemeralDuration: 604800 },
    ]);
    // Unlocked: members edit the info too.
    assert.equal((await client(bob.key).call('updateCommunity', { params: params(), body: { description: 'by bob' } })).data.description, 'by bob');
    const off = await timer(alice, 0);
    assert.equal(off.data.ephemeralDuration, 0);
  });

  it('sets the picture (admins only): served at the community\'s imgUrl', async () => {
    await client(alice.key).call('changeCommunitySetting', { params: params(), body: { setting: 'locked' } });
    const picture = (p: Phone) => client(p.key).call('setCommunityPicture', { params: params(), body: { url: dataUri('image/png', SAMPLES.png) } });
    await assert.rejects(picture(bob), apiError(403, 'not_admin'));
    const res = await picture(alice);
    assert.equal(res.status, 200, JSON.stringify(res));
    const url = new URL(res.data.imgUrl!);
    assert.deepEqual([url.pathname, url.searchParams.get('v')], [`/sandbox/pictures/${community.id}`, sha256Hex(SAMPLES.png).slice(0, 12)]);
    assert.equal((await sameForAll([alice, bob])).imgUrl, res.data.imgUrl);
    const served = await t.client().call('sandbox_get_pictures_id', { params: { id: community.id } });
    assert.ok(served instanceof Uint8Array);
    assert.ok(Buffer.from(served).equals(SAMPLES.png));
  });

  it('removes members (admins only): they leave the linked groups too; the creator cannot be removed', async () => {
    const remove = (p: Phone, participants: string[]) => client(p.key).call('removeCommunityParticipants', { params: params(), body: { participants } });
    await assert.rejects(remove(carol, [BOB]), apiError(403, 'not_admin'));
    const res = await remove(alice, [BOB, ALICE, UNKNOWN]);
    assert.deepEqual(res, {
      status: 200, data: [{ jid: jidOf(BOB), status: '200' }, { jid: jidOf(ALICE), status: '403' }, { jid: jidOf(UNKNOWN), status: '404' }],
    });
    assert.deepEqual(await communitiesOf(bob), { status: 200, data: [] });
    assert.deepEqual(await groupsOf(bob), { status: 200, data: [] });
    assert.deepEqual(memberIds((await client(alice.key).call('getGroup', { params: { groupJid: garden } })).data), [jidOf(ALICE)]);
    assert.deepEqual(memberIds(await sameForAll([alice, carol, dave])), [jidOf(ALICE), jidOf(CAROL), jidOf(DAVE)]);
    const fromGarden = await waitForEvent(t, bob, 'group.participants', (e) => e.groupJid === garden && e.action === 'remove', 'bob removed from the linked group');
    assert.deepEqual(fromGarden.participants, [jidOf(BOB)]);
  });

  it('leaving: the member loses the community, the others are told', async () => {
    const res = await client(carol.key).call('leaveCommunity', { params: params() });
    assert.deepEqual(res, { status: 200, message: `left community ${community.id}` });
    assert.deepEqual(await communitiesOf(carol), { status: 200, data: [] });
    assert.deepEqual(memberIds(await sameForAll([alice, dave])), [jidOf(ALICE), jidOf(DAVE)]);
    await waitForEvent(t, dave, 'group.participants', (e) => e.groupJid === community.id && e.action === 'remove' && e.participants[0] === jidOf(CAROL), 'carol leaving, on dave');
  });

  describe('bad input changes nothing', () => {
    it('rejects malformed bodies (400 naming the field)', async () => {
      const before = (await communityOf(alice)).data;
      // Bodies the typed client refuses at compile time (missing or unknown members, values outside the enums): sent raw.
      expectError(await api('POST', `/${alice.key}/community`, { subject: 'x' }), 400, 'validation_failed', 'body.name is required');
      expectError(await api('POST', `/${alice.key}/community`, { name: 'x', description: 'y' }), 400, 'validation_failed', 'body.description is not allowed');
      expectError(await api('POST', `/${alice.key}/community/${community.id}/ephemeral`, { expiration: 5 }), 400, 'validation_failed',
        'body.expiration must be one of 0, 86400, 604800, 7776000');
      expectError(await api('PATCH', `/${alice.key}/community/${community.id}/settings`, { setting: 'open' }), 400, 'validation_failed',
        'body.setting must be one of "announcement", "not_announcement", "locked", "unlocked"');
      expectError(await api('PATCH', `/${alice.key}/community/${community.id}/member-add-mode`, { mode: 'anyone' }), 400, 'validation_failed',
        'body.mode must be one of "admin_add", "all_member_add"');
      expectError(await api('PATCH', `/${alice.key}/community/${community.id}/join-approval`, {}), 400, 'validation_failed', 'body.mode is required');
      expectError(await api('POST', `/${alice.key}/community/invite/accept`, {}), 400, 'validation_failed', 'body.code is required');
      const a = client(alice.key);
      await assert.rejects(a.call('updateCommunity', { params: params(), body: {} }), apiError(400, 'validation_failed', 'body must set subject or description'));
      await assert.rejects(a.call('removeCommunityParticipants', { params: params(), body: { participants: ['12'] } }), apiError(400, 'validation_failed',
        'body.participants[0] must be a phone number with country code (6 to 15 digits) or a JID'));
      await assert.rejects(a.call('createCommunityGroup', { params: params(), body: { subject: 'Bad', participants: [BOB, 'x@g.us'] } }), apiError(400, 'validation_failed',
        'body.participants[1] must be a phone number or a contact JID, not a group or broadcast'));
      await assert.rejects(a.call('setCommunityPicture', { params: params(), body: { url: 'ftp://example.com/x.png' } }), apiError(400, 'validation_failed'));
      assert.deepEqual((await communityOf(alice)).data, before);
      assert.deepEqual((await groupsOf(alice)).data.map((g) => g.id), [garden]);
    });

    it('answers 404 for a community the instance is not in (a group JID included), without changing anything', async () => {
      const a = client(alice.key);
      for (const communityId of [NO_COMMUNITY, garden]) {
        const params = { communityId };
        const attempts: [string, () => Promise<unknown>][] = [
          ['getCommunity', () => a.call('getCommunity', { params })],
          ['updateCommunity', () => a.call('updateCommunity', { params, body: { subject: 'x' } })],
          ['leaveCommunity', () => a.call('leaveCommunity', { params })],
          ['setCommunityPicture', () => a.call('setCommunityPicture', { params, body: { url: dataUri('image/png', SAMPLES.png) } })],
          ['getCommunityInviteCode', () => a.call('getCommunityInviteCode', { params })],
          ['removeCommunityParticipants', () => a.call('removeCommunityParticipants', { params, body: { participants: [DAVE] } })],
          ['listCommunityJoinRequests', () => a.call('listCommunityJoinRequests', { params })],
          ['handleCommunityJoinRequests', () => a.call('handleCommunityJoinRequests', { params, body: { participants: [DAVE], action: 'approve' } })],
          ['createCommunityGroup', () => a.call('createCommunityGroup', { params, body: { subject: 'x', participants: [] } })],
          ['setCommunityEphemeral', () => a.call('setCommunityEphemeral', { params, body: { expiration: 0 } })],
          ['changeCommunitySetting', () => a.call('changeCommunitySetting', { params, body: { setting: 'locked' } })],
          ['setCommunityMemberAddMode', () => a.call('setCommunityMemberAddMode', { params, body: { mode: 'admin_add' } })],
          ['setCommunityJoinApproval', () => a.call('setCommunityJoinApproval', { params, body: { mode: 'off' } })],
        ];
        for (const [what, call] of attempts) {
          await assert.rejects(call(), (err: unknown) => {
            apiError(404, 'community_not_found', 'community not found')(err);
            assert.equal((err as { details?: unknown }).details, undefined, what);
            return true;
          }, `${what} ${communityId}`);
        }
      }
      await assert.rejects(communityOf(bob), apiError(404, 'community_not_found'));
      assert.deepEqual(memberIds(await sameForAll([alice, dave])), [jidOf(ALICE), jidOf(DAVE)]);
      assert.equal((await a.call('getGroup', { params: { groupJid: garden } })).data.linkedParent, community.id);
    });

    it('answers 409 not_connected for an instance that is not connected, creating nothing', async () => {
      const off = client(offline.key);
      await assert.rejects(off.call('listCommunities'), apiError(409, 'not_connected'));
      await assert.rejects(off.call('createCommunity', { body: { name: 'x' } }), apiError(409, 'not_connected'));
      await assert.rejects(off.call('acceptCommunityInvite', { body: { code: inviteCode } }), apiError(409, 'not_connected'));
      assert.deepEqual(memberIds(await sameForAll([alice, dave])), [jidOf(ALICE), jidOf(DAVE)]);
    });
  });
});
