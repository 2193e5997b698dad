import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InstanceClient } from '@parley/client';
import { expectError } from '../support/api-assertions.js';
import { apiError } from '../support/api-error.js';
import { jidOf, startWithPhones, waitForEvent, type Phone } from '../support/conversation.js';
import { dataUri, SAMPLES } from '../support/media-server.js';
import { documentedClients, documentedRequests, type DocumentedRequest } from '../support/documented-answers.js';
import { GROUP_NUMBERS, groupCalls, NO_GROUP } from '../support/group-calls.js';
import type { TestServer } from '../support/test-server.js';

const { BOB, CAROL, DAVE } = GROUP_NUMBERS;

/**
 * Spec 4.10, bad input: malformed group calls answer a clear error and change nothing. Set-up: bob
 * admins a group with dave, which carol joined and left; `offline` is an instance never connected.
 */
describe('groups (spec 4.10)', () => {
  let t: TestServer;
  let api: DocumentedRequest;
  let client: (key: string) => InstanceClient;
  let bob: Phone;
  let carol: Phone;
  let dave: Phone;
  let offline: { key: string };
  let group: { id: string };

  before(async () => {
    ({ t, phones: { bob, carol, dave } } = await startWithPhones({ bob: BOB, carol: CAROL, dave: DAVE }));
    api = await documentedRequests(t);
    client = await documentedClients(t);
    offline = await t.createInstance({ channel: 'sandbox', name: 'offline', number: '5511960000099' });
    const created = await client(bob.key).call('createGroup', { body: { name: 'Team', participants: [CAROL, DAVE] } });
    group = { id: created.data.id };
    await client(carol.key).call('leaveGroup', { params: { groupJid: group.id } });
    await waitForEvent(t, bob, 'group.participants', (e) => e.action === 'remove' && e.participants[0] === jidOf(CAROL), 'carol leaving, on bob');
  });
  after(() => t.stop());

  const { groupsOf, groupOf, setting, role } = groupCalls((key) => client(key), () => group.id);

describe('bad input changes nothing', () => {
  it('rejects a malformed creation (400 naming the field) without creating anything', async () => {
    const before = (await groupsOf(bob)).data;
    // Bodies the typed client refuses at compile time (missing members, wrong types, unknown members): sent raw.
    expectError(await api('POST', `/${bob.key}/groups`, { participants: [CAROL] }), 400, 'validation_failed', 'body.name is required');
    expectError(await api('POST', `/${bob.key}/groups`, { name: 'x', participants: CAROL }), 400, 'validation_failed', 'body.participants must be array');
    const wrongType = await api('POST', `/${bob.key}/groups`, { name: 'x', participants: [true] });
    expectError(wrongType, 400, 'validation_failed');
    assert.match(wrongType.body.error.message, /^body\.participants\[0\] must be string; body\.participants\[0\] must be integer/);
    expectError(await api('POST', `/${bob.key}/groups`, { name: 'x', participants: [], extra: 1 }), 400, 'validation_failed', 'body.extra is not allowed');
    const create = (name: string, participants: string[]) => client(bob.key).call('createGroup', { body: { name, participants } });
    await assert.rejects(create('x', [CAROL, 'not-a-number']), apiError(400, 'validation_failed',
      'body.participants[1] must be a phone number with country code (6 to 15 digits) or a JID'));
    await assert.rejects(create('x', [group.id]), apiError(400, 'validation_failed',
      'body.participants[0] must be a phone number or a contact JID, not a group or broadcast'));
    await assert.rejects(create('', []), apiError(400, 'validation_failed'));
    assert.deepEqual((await groupsOf(bob)).data, before);
    assert.deepEqual((await groupsOf(carol)).data, []);
  });

  it('accepts participants as JSON integers too', async () => {
    const res = await client(carol.key).call('createGroup', { body: { name: 'Numbers', participants: [Number(DAVE)] } });
    assert.deepEqual(res.data.participants, [{ id: jidOf(CAROL), admin: 'superadmin' }, { id: jidOf(DAVE), admin: null }]);
    await client(carol.key).call('leaveGroup', { params: { groupJid: res.data.id } });
    await client(dave.key).call('leaveGroup', { params: { groupJid: res.data.id } });
    assert.deepEqual((await groupsOf(carol)).data, []);
  });

  it('answers 404 for a group the instance is not in, and 400 for a malformed group JID', async () => {
    const before = (await groupOf(bob)).data;
    const b = client(bob.key);
    const params = { groupJid: NO_GROUP };
    const attempts: [string, () => Promise<unknown>][] = [
      ['getGroup', () => b.call('getGroup', { params })],
      ['updateGroup', () => b.call('updateGroup', { params, body: { name: 'x' } })],
      ['changeGroupSetting', () => setting(bob, 'locked', NO_GROUP)],
      ['leaveGroup', () => b.call('leaveGroup', { params })],
      ['listGroupMembers', () => b.call('listGroupMembers', { params })],
      ['addGroupParticipants', () => b.call('addGroupParticipants', { params, body: { participants: [BOB] } })],
      ['removeGroupParticipants', () => b.call('removeGroupParticipants', { params, body: { participants: [BOB] } })],
      ['changeGroupRole', () => role(bob, 'promote', [BOB], NO_GROUP)],
      ['listGroupJoinRequests', () => b.call('listGroupJoinRequests', { params })],
      ['handleGroupJoinRequests', () => b.call('handleGroupJoinRequests', { params, body: { participants: [BOB], action: 'approve' } })],
      ['getGroupInviteCode', () => b.call('getGroupInviteCode', { params })],
      ['setGroupPicture', () => b.call('setGroupPicture', { params, body: { url: dataUri('image/png', SAMPLES.png) } })],
      ['removeGroupPicture', () => b.call('removeGroupPicture', { params })],
      ['setGroupJoinApproval', () => b.call('setGroupJoinApproval', { params, body: { mode: 'on' } })],
    ];
    for (const [what, call] of attempts) {
      await assert.rejects(call(), (err: unknown) => {
        apiError(404, 'group_not_found', 'group not found')(err);
        assert.equal((err as { details?: unknown }).details, undefined, what);
        return true;
      }, what);
    }
    // A member who left cannot act on the group either.
    await assert.rejects(client(carol.key).call('updateGroup', { params: { groupJid: group.id }, body: { name: 'x' } }), apiError(404, 'group_not_found'));
    await assert.rejects(client(carol.key).call('addGroupParticipants', { params: { groupJid: group.id }, body: { participants: [CAROL] } }), apiError(404, 'group_not_found'));
    await assert.rejects(groupOf(bob, 'not-a-group'), apiError(400, 'validation_failed', /^path\.groupJid /));
    assert.deepEqual((await groupOf(bob)).data, before);
  });

  it('rejects bad settings, roles, join-request actions, empty updates and non-image pictures without changing the group', async () => {
    const before = (await groupOf(bob)).data;
    // Queries and bodies the typed client refuses at compile time (values outside the enums, missing members): sent raw.
    expectError(await api('PATCH', `/${bob.key}/groups/${group.id}?setting=open`), 400, 'validation_failed',
      'query.setting must be one of "announcement", "not_announcement", "locked", "unlocked"');
    expectError(await api('PATCH', `/${bob.key}/groups/${group.id}`), 400, 'validation_failed', 'query.setting is required');
    expectError(await api('PATCH', `/${bob.key}/groups/${group.id}/role?action=kick`, { participants: [DAVE] }), 400, 'validation_failed',
      'query.action must be one of "promote", "demote"');
    expectError(await api('PUT', `/${bob.key}/groups/${group.id}/request_participants_list`, { participants: [DAVE], action: 'maybe' }), 400,
      'validation_failed', 'body.action must be one of "approve", "reject"');
    expectError(await api('GET', `/${bob.key}/groups/invite/info`), 400, 'validation_failed', 'query.code is required');
    const b = client(bob.key);
    await assert.rejects(role(bob, 'promote', []), apiError(400, 'validation_failed', 'body.participants must NOT have fewer than 1 items'));
    await assert.rejects(role(bob, 'promote', [DAVE, 'x@broadcast']), apiError(400, 'validation_failed',
      'body.participants[1] must be a phone number or a contact JID, not a group or broadcast'));
    await assert.rejects(b.call('updateGroup', { params: { groupJid: group.id }, body: {} }), apiError(400, 'validation_failed', 'body must set name or description'));
    await assert.rejects(b.call('setGroupPicture', { params: { groupJid: group.id }, body: { url: dataUri('text/plain', Buffer.from('hello')) } }),
      apiError(400, 'validation_failed', 'body.url has content type text/plain, which is not a valid image'));
    await assert.rejects(b.call('acceptGroupInvite', { body: { code: 'bad code!' } }), apiError(400, 'validation_failed'));
    assert.deepEqual((await groupOf(bob)).data, before);
  });

  it('answers 409 not_connected for an instance that is not connected, creating nothing', async () => {
    const off = client(offline.key);
    await assert.rejects(off.call('listGroups'), apiError(409, 'not_connected'));
    await assert.rejects(off.call('createGroup', { body: { name: 'x', participants: [BOB] } }), apiError(409, 'not_connected'));
    await assert.rejects(off.call('getGroup', { params: { groupJid: group.id } }), apiError(409, 'not_connected'));
    await assert.rejects(off.call('getGroupInviteInfo', { query: { code: 'AAAAAAAAAAAAAAAAAAAAAA' } }), apiError(409, 'not_connected'));
    assert.deepEqual((await groupsOf(bob)).data.map((g) => g.id), [group.id]);
  });
});
});
