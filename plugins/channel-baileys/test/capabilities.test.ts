import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CapabilityNotSupportedError, requireCapability, type MediaInput } from '@parley/core';
import { proto, type GroupMetadata } from '@whiskeysockets/baileys';
import { boom, participatingAnswer, type FakeSocket, type GroupNodeSpec } from '../src/testing/index.js';
import { connectOpen, createHarness, eachOpenHarnessWithoutFetch, GROUP_JID, INSTANCE_ID, NOW, NOW_S, OWN_JID, PEER, PEER_JID, PEER_LID, type Harness } from './harness.js';

const T = 1_735_700_000;
const IMAGE: MediaInput = { data: Buffer.from('png'), mimetype: 'image/png', sha256: '' };
const COMMUNITY = '120363099999999999@g.us';

function groupMeta(patch: Partial<GroupMetadata> = {}): GroupMetadata {
  return {
    id: GROUP_JID, subject: 'Parley customers', owner: '80000000000001@lid', ownerPn: OWN_JID, creation: T, desc: 'Support group',
    participants: [{ id: '80000000000001@lid', phoneNumber: OWN_JID, admin: 'superadmin' }, { id: PEER_JID, admin: null }],
    announce: false, restrict: true, memberAddMode: false, joinApprovalMode: false, ...patch,
  };
}

/** {@link groupMeta} as WhatsApp sends it in a `w:g2` answer. */
const GROUP_NODE: GroupNodeSpec = {
  id: GROUP_JID, subject: 'Parley customers', creator: '80000000000001@lid', creatorPn: OWN_JID, creation: T, desc: 'Support group',
  participants: [{ jid: '80000000000001@lid', type: 'superadmin', phoneNumber: OWN_JID }, { jid: PEER_JID }], locked: true,
};

describe('capabilities over the socket', () => {
  let h: Harness;
  let socket: FakeSocket;
  const calls = () => socket.calls.map((c) => [c.method, ...c.args]);

  eachOpenHarnessWithoutFetch((harness, open) => {
    h = harness;
    socket = open;
  });

  it('capabilities Baileys lacks are absent, with the reason', () => {
    const caps = h.adapter.capabilities;
    assert.deepStrictEqual(Object.keys(caps).sort(), [
      'callReject', 'catalog', 'chats', 'communities', 'connection', 'contacts', 'groups', 'labels', 'messaging', 'profile', 'status',
    ]);
    assert.throws(() => requireCapability(h.adapter, 'calls'), (err: unknown) => err instanceof CapabilityNotSupportedError
      && err.message === 'whatsapp does not support calls: Baileys cannot place, accept or end voice calls; only rejecting is possible (DELETE /{key}/call/{callId}/{callFrom})');
    assert.throws(() => requireCapability(h.adapter, 'mobile'), { code: 'capability_not_supported' });
  });

  it('chats: markRead / pin / delete use the newest stored message; presence, disappearing, privacy', async () => {
    await h.storage.messages.upsert(INSTANCE_ID, {
      key: { remoteJid: PEER_JID, fromMe: false, id: 'LAST' }, message: { conversation: 'hi' }, messageTimestamp: String(T), status: 'DELIVERY_ACK',
    });
    socket.results.set('fetchPrivacySettings', { readreceipts: 'all', last: 'contacts' });
    const chats = h.adapter.capabilities.chats!;
    await chats.markRead(PEER_JID, true);
    await chats.pin(PEER_JID, true);
    await chats.delete(PEER_JID);
    await chats.subscribePresence(PEER_JID);
    await chats.setDisappearing(PEER_JID, 86_400);
    assert.deepStrictEqual(await chats.privacy(), { readreceipts: 'all', last: 'contacts' });
    const last = { key: { remoteJid: PEER_JID, fromMe: false, id: 'LAST' }, messageTimestamp: T };
    assert.deepStrictEqual(calls(), [
      ['chatModify', { markRead: true, lastMessages: [last] }, PEER_JID],
      ['readMessages', [last.key]],
      ['chatModify', { pin: true }, PEER_JID],
      ['chatModify', { delete: true, lastMessages: [last] }, PEER_JID],
      ['presenceSubscribe', PEER_JID],
      ['sendMessage', PEER_JID, { disappearingMessagesInChat: 86_400 }, {}],
      ['fetchPrivacySettings', true],
    ]);
    await assert.rejects(chats.markRead('5511000000000@s.whatsapp.net', true), { status: 404 });
  });

  it('contacts: save, remove, block, blocked list, status, registered, LID resolution', async () => {
    // WhatsApp lists blocked contacts by LID: a known one is answered by its number's JID.
    socket.results.set('fetchBlocklist', [PEER_LID, '999@lid', undefined]);
    socket.results.set('fetchStatus', [{ id: PEER_JID, status: { status: 'Available', setAt: new Date(T * 1000) } }]);
    socket.results.set('onWhatsApp', [{ jid: PEER_JID, exists: true }]);
    await socket.signalRepository.lidMapping.storeLIDPNMappings([{ lid: PEER_LID, pn: PEER_JID }]);
    const contacts = h.adapter.capabilities.contacts!;
    await contacts.save(PEER_JID, 'Maria Silva');
    await contacts.remove(PEER_JID);
    await contacts.block(PEER_JID);
    await contacts.unblock(PEER_JID);
    assert.deepStrictEqual(await contacts.blocked(), [PEER_JID, '999@lid']);
    assert.deepStrictEqual(await contacts.status(PEER_JID), { jid: PEER_JID, status: 'Available', setAt: T });
    assert.deepStrictEqual(await contacts.isRegistered(PEER), { registered: true, jid: PEER_JID });
    assert.deepStrictEqual(await contacts.resolveLids([PEER_LID, '999@lid']), [{ lid: PEER_LID, jid: PEER_JID }, { lid: '999@lid', jid: null }]);
    assert.deepStrictEqual(calls(), [
      ['addOrEditContact', PEER_JID, { fullName: 'Maria Silva', saveOnPrimaryAddressbook: true }],
      ['removeContact', PEER_JID],
      ['updateBlockStatus', PEER_JID, 'block'],
      ['updateBlockStatus', PEER_JID, 'unblock'],
      ['fetchBlocklist'],
      ['fetchStatus', PEER_JID],
      ['onWhatsApp', PEER],
    ]);
    socket.results.set('onWhatsApp', []);
    assert.deepStrictEqual(await contacts.isRegistered('5511000000000'), { registered: false });
    // An about text the contact's privacy hides: Baileys answers '' (WhatsApp's code 401), the route null.
    socket.results.set('fetchStatus', [{ id: PEER_JID, status: { status: '', setAt: new Date(0) } }]);
    assert.deepStrictEqual(await contacts.status(PEER_JID), { jid: PEER_JID, status: null });
  });

  it('contacts: clearSession deletes the signal sessions of every known device (PN and LID) from the auth state', async () => {
    await socket.signalRepository.lidMapping.storeLIDPNMappings([{ lid: PEER_LID, pn: PEER_JID }]);
    await socket.authState.keys.set({
      'device-list': { [PEER]: ['0', '3'] },
      session: { [`${PEER}.0`]: new Uint8Array([1]), [`${PEER}.3`]: new Uint8Array([2]), [`${PEER_LID.split('@')[0]}_1.0`]: new Uint8Array([3]), 'other.0': new Uint8Array([4]) },
    });
    const ids = [`${PEER}.0`, `${PEER}.3`, `${PEER_LID.split('@')[0]}_1.0`, 'other.0'];
    assert.equal(Object.keys(await h.storage.authState.get(INSTANCE_ID, 'session', ids)).length, 4);
    await h.adapter.capabilities.contacts!.clearSession(PEER_JID);
    assert.deepStrictEqual(socket.callsTo('deleteSession'), [[[PEER_JID, `${PEER}:3@s.whatsapp.net`, PEER_LID]]]);
    assert.deepStrictEqual(Object.keys(await h.storage.authState.get(INSTANCE_ID, 'session', ids)), ['other.0']);
  });

  it('labels: create with the next id, tag and untag chats, delete', async () => {
    socket.emit('labels.edit', { id: '5', name: 'Paid', color: 3, deleted: false });
    await h.settle();
    const labels = h.adapter.capabilities.labels!;
    assert.deepStrictEqual(await labels.create('VIP', 7), { id: '6', name: 'VIP', color: 7 });
    await labels.addToChat('6', PEER_JID);
    assert.deepStrictEqual(await labels.chats('6'), [PEER_JID]);
    await labels.removeFromChat('6', PEER_JID);
    assert.deepStrictEqual(await labels.chats('6'), []);
    await labels.delete('5');
    assert.deepStrictEqual(await labels.list(), [{ id: '6', name: 'VIP', color: 7 }]);
    await assert.rejects(labels.addToChat('404', PEER_JID), { status: 404 });
    assert.deepStrictEqual(calls(), [
      ['addLabel', OWN_JID, { id: '6', name: 'VIP', color: 7, deleted: false }],
      ['addChatLabel', PEER_JID, '6'],
      ['removeChatLabel', PEER_JID, '6'],
      ['addLabel', OWN_JID, { id: '5', name: 'Paid', color: 3, deleted: true }],
    ]);
  });

  it('groups: list, get, create, update, settings, participants, join requests, invites, picture', async () => {
    socket.participating = participatingAnswer([GROUP_NODE, { ...GROUP_NODE, id: COMMUNITY, community: true }]);
    socket.results.set('groupMetadata', groupMeta());
    socket.results.set('groupCreate', groupMeta({ subject: 'New' }));
    socket.results.set('groupParticipantsUpdate', [{ status: '200', jid: PEER_JID, content: { tag: 'participant', attrs: { jid: PEER_JID } } }]);
    socket.results.set('groupRequestParticipantsList', [{ jid: '777@lid', phone_number: '5511977776666@s.whatsapp.net', request_time: String(T), request_method: 'invite_link' }]);
    socket.results.set('groupRequestParticipantsUpdate', [{ status: '200', jid: '5511977776666@s.whatsapp.net' }]);
    socket.results.set('groupInviteCode', 'AbCdEf123456');
    socket.results.set('groupGetInviteInfo', groupMeta({ size: 12 }));
    const groups = h.adapter.capabilities.groups!;
    const expected = {
      id: GROUP_JID, subject: 'Parley customers', owner: OWN_JID, creation: T, desc: 'Support group',
      participants: [{ id: OWN_JID, admin: 'superadmin' }, { id: PEER_JID, admin: null }], announce: false, restrict: true,
      joinApprovalMode: false, memberAddMode: 'admin_add',
    };
    assert.deepStrictEqual(await groups.list(), [expected]);
    assert.deepStrictEqual(await groups.get(GROUP_JID), expected);
    assert.deepStrictEqual((await groups.create('New', [PEER_JID])).subject, 'New');
    await groups.update(GROUP_JID, { subject: 'Renamed', description: 'New description' });
    await groups.setting(GROUP_JID, 'announcement');
    const ok = [{ jid: PEER_JID, status: '200' }];
    assert.deepStrictEqual(await groups.addParticipants(GROUP_JID, [PEER_JID]), ok);
    assert.deepStrictEqual(await groups.removeParticipants(GROUP_JID, [PEER_JID]), ok);
    assert.deepStrictEqual(await groups.promote(GROUP_JID, [PEER_JID]), ok);
    assert.deepStrictEqual(await groups.demote(GROUP_JID, [PEER_JID]), ok);
    assert.deepStrictEqual(await groups.joinRequests(GROUP_JID), [{ jid: '5511977776666@s.whatsapp.net', requestTime: T, requestMethod: 'invite_link' }]);
    assert.deepStrictEqual(await groups.handleJoinRequests(GROUP_JID, ['5511977776666@s.whatsapp.net'], 'approve'), [{ jid: '5511977776666@s.whatsapp.net', status: '200' }]);
    assert.equal(await groups.inviteCode(GROUP_JID), 'AbCdEf123456');
    assert.deepStrictEqual(await groups.inviteInfo('AbCdEf123456'), { id: GROUP_JID, subject: 'Parley customers', owner: OWN_JID, desc: 'Support group', size: 12, creation: T });
    await groups.setPicture(GROUP_JID, IMAGE);
    await groups.removePicture(GROUP_JID);
    await groups.leave(GROUP_JID);
    assert.deepStrictEqual(calls().map((c) => c.slice(0, 2).concat(c.slice(2).map((a) => (Buffer.isBuffer(a) ? 'bytes' : a)))), [
      ['groupFetchAllParticipating'], ['groupMetadata', GROUP_JID], ['groupCreate', 'New', [PEER_JID]],
      ['groupUpdateSubject', GROUP_JID, 'Renamed'], ['groupUpdateDescription', GROUP_JID, 'New description'], ['groupSettingUpdate', GROUP_JID, 'announcement'],
      ['groupParticipantsUpdate', GROUP_JID, [PEER_JID], 'add'], ['groupParticipantsUpdate', GROUP_JID, [PEER_JID], 'remove'],
      ['groupParticipantsUpdate', GROUP_JID, [PEER_JID], 'promote'], ['groupParticipantsUpdate', GROUP_JID, [PEER_JID], 'demote'],
      ['groupRequestParticipantsList', GROUP_JID], ['groupRequestParticipantsUpdate', GROUP_JID, ['5511977776666@s.whatsapp.net'], 'approve'],
      ['groupInviteCode', GROUP_JID], ['groupGetInviteInfo', 'AbCdEf123456'], ['updateProfilePicture', GROUP_JID, 'bytes'],
      ['removeProfilePicture', GROUP_JID], ['groupLeave', GROUP_JID],
    ]);
    socket.failures.set('groupMetadata', boom(404, 'item-not-found'));
    await assert.rejects(groups.get('1@g.us'), { status: 404, message: 'group not found' });
  });

  it('the send-side group metadata cache reads through once; participant changes invalidate it', async () => {
    socket.results.set('groupMetadata', groupMeta());
    const cached = socket.config.cachedGroupMetadata!;
    assert.equal((await cached(GROUP_JID))?.subject, 'Parley customers');
    assert.equal((await cached(GROUP_JID))?.subject, 'Parley customers');
    assert.equal(socket.callsTo('groupMetadata').length, 1);
    socket.emit('group-participants.update', { id: GROUP_JID, author: OWN_JID, participants: [{ id: PEER_JID }], action: 'remove' });
    await h.settle();
    socket.results.set('groupMetadata', groupMeta({ subject: 'After' }));
    assert.equal((await cached(GROUP_JID))?.subject, 'After');
    assert.equal(socket.callsTo('groupMetadata').length, 2);
  });

  it('communities: every Baileys 7 community function', async () => {
    const meta = groupMeta({ id: COMMUNITY, subject: 'Parley community', desc: 'All of us', isCommunity: true });
    socket.participating = participatingAnswer([{ ...GROUP_NODE, id: COMMUNITY, subject: 'Parley community', desc: 'All of us', community: true }, GROUP_NODE]);
    socket.results.set('groupMetadata', meta);
    socket.results.set('communityFetchLinkedGroups', { communityJid: COMMUNITY, isCommunity: true, linkedGroups: [{ id: GROUP_JID, subject: 'x', creation: T, owner: OWN_JID, size: 2 }] });
    socket.results.set('communityCreate', meta);
    socket.results.set('communityInviteCode', 'C0mmun1ty');
    socket.results.set('communityAcceptInvite', COMMUNITY);
    socket.results.set('groupGetInviteInfo', meta);
    socket.results.set('communityParticipantsUpdate', [{ status: '200', jid: PEER_JID, content: { tag: 'participant', attrs: { jid: PEER_JID } } }]);
    socket.results.set('communityRequestParticipantsUpdate', [{ status: '200', jid: PEER_JID }]);
    socket.results.set('communityCreateGroup', groupMeta({ subject: 'Announcements', linkedParent: COMMUNITY }));
    const c = h.adapter.capabilities.communities!;
    const expected = {
      id: COMMUNITY, name: 'Parley community', subject: 'Parley community', description: 'All of us',
      participants: [{ id: OWN_JID, admin: 'superadmin' }, { id: PEER_JID, admin: null }], owner: OWN_JID, creation: T, announce: false,
      memberAddMode: 'admin_add', joinApprovalMode: false,
    };
    assert.deepStrictEqual(await c.list(), [expected]);
    assert.deepStrictEqual(await c.get(COMMUNITY), { ...expected, groups: [GROUP_JID] });
    assert.deepStrictEqual(await c.create('Parley community', 'All of us'), expected);
    await c.update(COMMUNITY, { subject: 'Renamed', description: 'Desc' });
    await c.leave(COMMUNITY);
    await c.setPicture(COMMUNITY, IMAGE);
    assert.equal(await c.inviteCode(COMMUNITY), 'C0mmun1ty');
    assert.deepStrictEqual(await c.removeParticipants(COMMUNITY, [PEER_JID]), [{ jid: PEER_JID, status: '200' }]);
    assert.equal(await c.acceptInvite('C0mmun1ty'), COMMUNITY);
    assert.deepStrictEqual(await c.inviteInfo('C0mmun1ty'), { id: COMMUNITY, subject: 'Parley community', owner: OWN_JID, desc: 'All of us', size: 2, creation: T, isCommunity: true });
    assert.deepStrictEqual(await c.joinRequests(COMMUNITY), []);
    assert.deepStrictEqual(await c.handleJoinRequests(COMMUNITY, [PEER_JID], 'approve'), [{ jid: PEER_JID, status: '200' }]);
    assert.equal((await c.createGroup(COMMUNITY, 'Announcements', [PEER_JID])).linkedParent, COMMUNITY);
    await c.setEphemeral(COMMUNITY, 604_800);
    await c.setting(COMMUNITY, 'announcement');
    await c.memberAddMode(COMMUNITY, 'admin_add');
    await c.joinApproval(COMMUNITY, 'on');
    // Each route on a community reads its metadata first: a plain group is refused before anything changes.
    const checked = (...methods: string[]) => ['groupMetadata', ...methods];
    assert.deepStrictEqual(socket.calls.map((x) => x.method), [
      'groupFetchAllParticipating', 'groupMetadata', 'communityFetchLinkedGroups', 'communityCreate', ...checked('communityUpdateSubject', 'groupUpdateDescription'),
      ...checked('communityLeave'), ...checked('updateProfilePicture'), ...checked('communityInviteCode'), ...checked('communityParticipantsUpdate'),
      'communityAcceptInvite', 'groupGetInviteInfo', ...checked('communityRequestParticipantsList'), ...checked('communityRequestParticipantsUpdate'),
      ...checked('communityCreateGroup'), ...checked('communityToggleEphemeral'), ...checked('communitySettingUpdate'), ...checked('communityMemberAddMode'),
      ...checked('communityJoinApprovalMode'),
    ]);
    assert.deepStrictEqual(socket.callsTo('communityCreateGroup'), [['Announcements', [PEER_JID], COMMUNITY]]);
    assert.deepStrictEqual(socket.callsTo('communityParticipantsUpdate'), [[COMMUNITY, [PEER_JID], 'remove']]);
  });

  it('catalog: pages with cursor, collections, product create/update/delete, order details', async () => {
    const product = {
      id: '7043829157', name: 'T-shirt', description: 'Cotton', price: 49900, currency: 'BRL', retailerId: 'sku-1', url: '', isHidden: false,
      imageUrls: { requested: 'https://mmg.whatsapp.net/p1', original: 'https://mmg.whatsapp.net/p1' }, reviewStatus: {}, availability: 'in stock' as const,
    };
    const mapped = {
      id: '7043829157', name: 'T-shirt', description: 'Cotton', currency: 'BRL', price: 49900, images: [{ url: 'https://mmg.whatsapp.net/p1' }],
      retailerId: 'sku-1', isHidden: false,
    };
    socket.results.set('getCatalog', { products: [product], nextPageCursor: 'NEXT' });
    socket.results.set('getCollections', { collections: [{ id: 'c1', name: 'Summer', products: [product], status: { status: 'APPROVED', canAppeal: false } }] });
    socket.results.set('productCreate', product);
    socket.results.set('productUpdate', { ...product, price: 39900 });
    socket.results.set('getOrderDetails', { price: { total: 99800, currency: 'BRL' }, products: [{ id: 'p', name: 'T-shirt', imageUrl: 'https://x/y.jpg', quantity: 2, currency: 'BRL', price: 49900 }] });
    const catalog = h.adapter.capabilities.catalog!;
    assert.deepStrictEqual(await catalog.products({ limit: 10, cursor: 'PREV' }), { products: [mapped], cursor: 'NEXT' });
    assert.deepStrictEqual(await catalog.collections({ limit: 5 }), [{ id: 'c1', name: 'Summer', products: [mapped] }]);
    const input = { name: 'T-shirt', description: 'Cotton', currency: 'BRL', price: 49900, images: [{ url: 'https://mmg.whatsapp.net/v/t45/p1.jpg' }], originCountryCode: 'BR' };
    assert.deepStrictEqual(await catalog.createProduct(input), mapped);
    assert.deepStrictEqual((await catalog.updateProduct('7043829157', { price: 39900 })).price, 39900);
    await catalog.deleteProduct('7043829157');
    assert.deepStrictEqual(await catalog.order('ORDER1', 'dG9rZW4='), {
      id: 'ORDER1', price: { total: 99800, currency: 'BRL' },
      products: [{ id: 'p', name: 'T-shirt', price: 49900, quantity: 2, currency: 'BRL', imageUrl: 'https://x/y.jpg' }],
    });
    assert.deepStrictEqual(calls(), [
      ['getCatalog', { limit: 10, cursor: 'PREV' }],
      ['getCollections', undefined, 5],
      ['productCreate', { name: 'T-shirt', description: 'Cotton', price: 49900, currency: 'BRL', originCountryCode: 'BR', images: [{ url: 'https://mmg.whatsapp.net/v/t45/p1.jpg' }] }],
      ['productUpdate', '7043829157', { price: 39900, images: [] }],
      ['productDelete', ['7043829157']],
      ['getOrderDetails', 'ORDER1', 'dG9rZW4='],
    ]);
    await assert.rejects(catalog.createProduct({ ...input, images: [{ url: 'http://127.0.0.1/admin.png' }] }), {
      code: 'validation_failed', message: 'images[0].url points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)',
    });
    socket.results.set('productDelete', { deleted: 0 });
    await assert.rejects(catalog.deleteProduct('missing'), { status: 404, message: 'product not found' });
  });

  it('status stories go to status@broadcast for the listed contacts; a mention re-sends the story with the mentioned_users node, then marks the mention', async () => {
    const status = h.adapter.capabilities.status!;
    const text = await status.text('We are open', [PEER_JID], { backgroundColor: '#112233', font: 2 });
    assert.deepStrictEqual(text, { id: text.id, type: 'text', statusJidList: [PEER_JID], timestamp: NOW_S });
    const image = await status.image(IMAGE, 'New arrivals', [PEER_JID]);
    assert.equal(image.type, 'image');
    const other = '5511977776666@s.whatsapp.net';
    const mention = await status.mention(other, text.id);
    assert.deepStrictEqual(socket.callsTo('sendMessage'), [
      ['status@broadcast', { text: 'We are open', linkPreview: null }, { backgroundColor: '#112233', font: 2, statusJidList: [PEER_JID], broadcast: true, timestamp: new Date(NOW) }],
      ['status@broadcast', { image: IMAGE.data, mimetype: 'image/png', caption: 'New arrivals' }, { statusJidList: [PEER_JID], broadcast: true, timestamp: new Date(NOW) }],
    ]);
    const relays = socket.callsTo('relayMessage') as [string, proto.IMessage, Record<string, unknown>][];
    // The story keeps the messageSecret Baileys gave it when it was posted (records keep messageContextInfo).
    const storySecret = relays[0]![1].messageContextInfo?.messageSecret;
    assert.equal(storySecret?.length, 32);
    assert.deepStrictEqual(relays.map(([jid, message, options]) => [jid, proto.Message.toObject(proto.Message.fromObject(message), { enums: String }), options]), [
      // The story as posted (same id), for the mentioned contact, with the node naming who is mentioned.
      ['status@broadcast', { extendedTextMessage: { text: 'We are open', backgroundArgb: 0xff112233, font: 'FB_SCRIPT' }, messageContextInfo: { messageSecret: Buffer.from(storySecret!) } }, {
        messageId: text.id, statusJidList: [other],
        additionalNodes: [{ tag: 'meta', attrs: {}, content: [{ tag: 'mentioned_users', attrs: {}, content: [{ tag: 'to', attrs: { jid: other } }] }] }],
      }],
      // The mention in the contact's chat, marked as a status mention.
      [other, {
        statusMentionMessage: { message: { protocolMessage: { key: { remoteJid: 'status@broadcast', fromMe: true, id: text.id }, type: 'STATUS_MENTION_MESSAGE' } } },
      }, { messageId: mention.id, additionalNodes: [{ tag: 'meta', attrs: { is_status_mention: 'true' } }] }],
    ]);
    assert.deepStrictEqual(mention, { id: mention.id, type: 'mention', statusJidList: [other], timestamp: NOW_S });
    await assert.rejects(status.mention(other, '3EB0FFFFFFFFFFFFFFFFFF'), { status: 404, code: 'status_not_found' });
  });

  it('a story can be mentioned while it is live (24 hours), not after', async () => {
    let clock = NOW;
    const timed = await createHarness({ now: () => clock });
    await connectOpen(timed);
    try {
      const status = timed.adapter.capabilities.status!;
      const story = await status.text('Today only', [PEER_JID]);
      clock += 86_400_000;
      await status.mention(PEER_JID, story.id);
      clock += 1000;
      await assert.rejects(status.mention(PEER_JID, story.id), { status: 404, code: 'status_not_found', message: `status story ${story.id} not found` });
    } finally {
      await timed.adapter.stop();
    }
  });

  it('callReject rejects an incoming call', async () => {
    await h.adapter.capabilities.callReject!.reject('C0A1B2C3', PEER_JID);
    assert.deepStrictEqual(calls(), [['rejectCall', 'C0A1B2C3', PEER_JID]]);
  });

  it('profile: name, about, picture (answers the new URL), business profile', async () => {
    socket.results.set('profilePictureUrl', 'https://pps.whatsapp.net/v/me.jpg');
    socket.results.set('getBusinessProfile', { wid: OWN_JID, description: 'We sell', website: ['https://parley.example'], category: 'Retail', email: undefined, business_hours: {} });
    const profile = h.adapter.capabilities.profile!;
    await profile.setName('Parley Store');
    await profile.setStatus('Open 9-18');
    assert.deepStrictEqual(await profile.setPicture(IMAGE), { imageProfile: 'https://pps.whatsapp.net/v/me.jpg' });
    await profile.removePicture();
    assert.deepStrictEqual(await profile.businessProfile!(), { wid: OWN_JID, description: 'We sell', website: ['https://parley.example'], category: 'Retail' });
    assert.deepStrictEqual(calls().map((c) => c.map((a) => (Buffer.isBuffer(a) ? 'bytes' : a))), [
      ['updateProfileName', 'Parley Store'], ['updateProfileStatus', 'Open 9-18'], ['updateProfilePicture', OWN_JID, 'bytes'],
      ['profilePictureUrl', OWN_JID, 'image'], ['removeProfilePicture', OWN_JID], ['getBusinessProfile', OWN_JID],
    ]);
    socket.results.set('getBusinessProfile', undefined);
    assert.equal(await profile.businessProfile!(), null);
  });
});
