import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getBinaryNodeChild, getBinaryNodeChildren, proto, type BinaryNode, type GroupMetadata } from '@whiskeysockets/baileys';
import { extractCommunityMetadata } from '@whiskeysockets/baileys/lib/Socket/communities.js';
import { participatingAnswer, type FakeSocket, type GroupNodeSpec } from '../src/testing/index.js';
import { overTheWire, parseGroupsParticipating } from '../src/testing/wa-groups.js';
import { eachOpenHarness, GROUP_JID, OWN_JID, PEER_JID, type Harness } from './harness.js';

const T = 1_735_700_000;
const COMMUNITY = '120363099999999999@g.us';
const GROUP: GroupNodeSpec = {
  id: GROUP_JID, subject: 'Parley customers', creator: OWN_JID, creation: T, desc: 'Support group',
  participants: [{ jid: OWN_JID, type: 'superadmin' }, { jid: PEER_JID }],
};
const COMMUNITY_NODE: GroupNodeSpec = { id: COMMUNITY, subject: 'Parley community', creator: OWN_JID, creation: T, community: true, participants: [{ jid: OWN_JID, type: 'superadmin' }] };

/** Socket/communities.js `communityFetchAllParticipating` after its query, line for line (rc14). */
function communitiesParsing(result: BinaryNode): Record<string, GroupMetadata> {
  const data: Record<string, GroupMetadata> = {};
  const communitiesChild = getBinaryNodeChild(result, 'communities');
  if (communitiesChild) {
    for (const communityNode of getBinaryNodeChildren(communitiesChild, 'community')) {
      const meta = extractCommunityMetadata({ tag: 'result', attrs: {}, content: [communityNode] });
      data[meta.id] = meta;
    }
  }
  return data;
}

describe('group and community lists', () => {
  let h: Harness;
  let socket: FakeSocket;

  eachOpenHarness((harness, open) => {
    h = harness;
    socket = open;
  });

  it("Baileys' community query finds no community in WhatsApp's answer; its group query finds it, marked isCommunity", async () => {
    const answer = await overTheWire(participatingAnswer([GROUP, COMMUNITY_NODE]));
    assert.deepStrictEqual(communitiesParsing(answer), {});
    const groups = parseGroupsParticipating(answer);
    assert.deepStrictEqual(Object.keys(groups).sort(), [GROUP_JID, COMMUNITY]);
    assert.deepStrictEqual([groups[COMMUNITY]!.isCommunity, groups[GROUP_JID]!.isCommunity], [true, false]);
  });

  it('communities are listed from the groups query; groups leave the communities out', async () => {
    socket.participating = participatingAnswer([GROUP, COMMUNITY_NODE]);
    assert.deepStrictEqual((await h.adapter.capabilities.communities!.list()).map((c) => [c.id, c.name]), [[COMMUNITY, 'Parley community']]);
    assert.deepStrictEqual((await h.adapter.capabilities.groups!.list()).map((g) => [g.id, g.subject]), [[GROUP_JID, 'Parley customers']]);
    assert.deepStrictEqual(socket.calls.map((c) => c.method), ['groupFetchAllParticipating', 'groupFetchAllParticipating']);
  });

  it('a list fires no group-update and fills the send-side cache; a later list reports only what changed', async () => {
    socket.participating = participatingAnswer([GROUP, COMMUNITY_NODE]);
    const groups = h.adapter.capabilities.groups!;
    await groups.list();
    await h.adapter.capabilities.communities!.list();
    await h.settle();
    assert.deepStrictEqual(h.eventsOf('group.update'), []);
    // The listed metadata serves group sends without a query of its own.
    assert.equal((await socket.config.cachedGroupMetadata!(GROUP_JID))?.subject, 'Parley customers');
    assert.deepStrictEqual(socket.callsTo('groupMetadata'), []);

    socket.participating = participatingAnswer([{ ...GROUP, subject: 'Parley clients', announce: true }, COMMUNITY_NODE]);
    await groups.list();
    await h.settle();
    assert.deepStrictEqual(h.eventsOf('group.update'), [{ type: 'group.update', groups: [{ id: GROUP_JID, subject: 'Parley clients', announce: true }] }]);
    assert.equal((await socket.config.cachedGroupMetadata!(GROUP_JID))?.subject, 'Parley clients');
  });

  it('a change WhatsApp announces is reported and makes the cached metadata stale', async () => {
    socket.participating = participatingAnswer([GROUP]);
    await h.adapter.capabilities.groups!.list();
    await h.settle();
    // As rc14 announces it: the notification's stub message, then a partial groups.update.
    socket.emit('messages.upsert', { type: 'notify', messages: [{
      key: { remoteJid: GROUP_JID, id: 'GROUPNOTIFICATION2', fromMe: false, participant: PEER_JID },
      messageStubType: proto.WebMessageInfo.StubType.GROUP_CHANGE_SUBJECT, messageStubParameters: ['Renamed on the phone'],
    }] });
    socket.emit('groups.update', [{ id: GROUP_JID, subject: 'Renamed on the phone', author: OWN_JID }]);
    await h.settle();
    assert.deepStrictEqual(h.eventsOf('group.update'), [{ type: 'group.update', groups: [{ id: GROUP_JID, subject: 'Renamed on the phone' }] }]);
    socket.results.set('groupMetadata', { id: GROUP_JID, subject: 'Renamed on the phone', participants: [] });
    assert.equal((await socket.config.cachedGroupMetadata!(GROUP_JID))?.subject, 'Renamed on the phone');
    assert.equal(socket.callsTo('groupMetadata').length, 1);
  });
});
