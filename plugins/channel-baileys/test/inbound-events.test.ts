import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proto, type WAMessageUpdate } from '@whiskeysockets/baileys';
import type { FakeSocket } from '../src/testing/index.js';
import { eachOpenHarness, GROUP_JID, NOW_S, OWN_JID, PEER, PEER_JID, PEER_LID, type Harness } from './harness.js';

const T = 1_735_700_000;
const SENT = '3EB0C0FFEE0000000000000A';
const Status = proto.WebMessageInfo.Status;

describe('delivery statuses (messages.update, message-receipt.update → message.status)', () => {
  let h: Harness;
  let socket: FakeSocket;

  eachOpenHarness((harness, open) => {
    h = harness;
    socket = open;
  });

  async function update(...updates: WAMessageUpdate[]) {
    socket.emit('messages.update', updates);
    await h.settle();
    return h.events;
  }
  const mine = (status: number, id = SENT, extra: Partial<WAMessageUpdate['update']> = {}): WAMessageUpdate => ({
    key: { remoteJid: PEER_JID, fromMe: true, id }, update: { status, ...extra },
  });

  it('status-sent: server ack', async () => {
    assert.deepStrictEqual(await update(mine(Status.SERVER_ACK)), [
      { type: 'message.status', messageId: SENT, chatJid: PEER_JID, recipientId: PEER, status: 'sent', timestamp: NOW_S },
    ]);
  });

  it('status-delivered: delivery ack', async () => {
    assert.deepStrictEqual(await update(mine(Status.DELIVERY_ACK)), [
      { type: 'message.status', messageId: SENT, chatJid: PEER_JID, recipientId: PEER, status: 'delivered', timestamp: NOW_S },
    ]);
  });

  it('status-read: read', async () => {
    assert.deepStrictEqual(await update(mine(Status.READ)), [
      { type: 'message.status', messageId: SENT, chatJid: PEER_JID, recipientId: PEER, status: 'read', timestamp: NOW_S },
    ]);
  });

  it('status-played: a voice note was played', async () => {
    assert.deepStrictEqual(await update(mine(Status.PLAYED, '3EB0C0FFEE0000000000000B')), [
      { type: 'message.status', messageId: '3EB0C0FFEE0000000000000B', chatJid: PEER_JID, recipientId: PEER, status: 'played', timestamp: NOW_S },
    ]);
  });

  it('status-failed: an ack error 463 carries the restriction error', async () => {
    assert.deepStrictEqual(await update(mine(Status.ERROR, '3EB0C0FFEE0000000000000D', { messageStubParameters: ['463'] })), [{
      type: 'message.status', messageId: '3EB0C0FFEE0000000000000D', chatJid: PEER_JID, recipientId: PEER, status: 'failed', timestamp: NOW_S,
      error: {
        code: 463, title: 'Account restricted',
        message: 'WhatsApp refused the message: the account is restricted or has no privacy token for this contact', details: 'ack error 463',
      },
    }]);
  });

  it('status-failed: other ack errors keep their code', async () => {
    assert.deepStrictEqual(await update(mine(Status.ERROR, '3EB0C0FFEE0000000000000E', { messageStubParameters: ['479'] })), [{
      type: 'message.status', messageId: '3EB0C0FFEE0000000000000E', chatJid: PEER_JID, recipientId: PEER, status: 'failed', timestamp: NOW_S,
      error: { code: 479, title: 'Message failed', message: 'WhatsApp refused the message (error 479)', details: 'ack error 479' },
    }]);
  });

  it('a status of a LID-addressed chat reports the phone number', async () => {
    const events = await update({ key: { remoteJid: PEER_LID, remoteJidAlt: PEER_JID, fromMe: true, id: SENT }, update: { status: Status.DELIVERY_ACK } });
    assert.deepStrictEqual(events, [{ type: 'message.status', messageId: SENT, chatJid: PEER_JID, recipientId: PEER, status: 'delivered', timestamp: NOW_S }]);
  });

  it('updates of received messages, pending acks and non-status updates are not statuses', async () => {
    const events = await update(
      { key: { remoteJid: PEER_JID, fromMe: false, id: 'IN1' }, update: { status: Status.READ } },
      mine(Status.PENDING),
      { key: { remoteJid: PEER_JID, fromMe: true, id: SENT }, update: { starred: true } },
    );
    assert.deepStrictEqual(events, []);
  });

  it('status-group: a member delivery receipt names the group and the member', async () => {
    socket.emit('message-receipt.update', [{
      key: { remoteJid: GROUP_JID, fromMe: true, id: '3EB0C0FFEE0000000000000C' },
      receipt: { userJid: '5511966665555@s.whatsapp.net', receiptTimestamp: T + 34 },
    }]);
    await h.settle();
    assert.deepStrictEqual(h.events, [{
      type: 'message.status', messageId: '3EB0C0FFEE0000000000000C', chatJid: GROUP_JID, recipientId: GROUP_JID, status: 'delivered',
      timestamp: T + 34, participant: '5511966665555@s.whatsapp.net',
    }]);
  });

  it('receipt: a member read receipt is flagged as a read confirmation; a delivery merged into it by Baileys\' buffer comes first', async () => {
    socket.emit('message-receipt.update', [{
      key: { remoteJid: GROUP_JID, fromMe: true, id: '3EB0C0FFEE0000000000000C' },
      receipt: { userJid: '5511955554444@s.whatsapp.net', receiptTimestamp: T + 35, readTimestamp: T + 36 },
    }]);
    await h.settle();
    const member = { messageId: '3EB0C0FFEE0000000000000C', chatJid: GROUP_JID, recipientId: GROUP_JID, participant: '5511955554444@s.whatsapp.net' };
    assert.deepStrictEqual(h.events, [
      { type: 'message.status', ...member, status: 'delivered', timestamp: T + 35 },
      { type: 'message.status', ...member, status: 'read', timestamp: T + 36, receipt: true },
    ]);
  });

  it('status-group: a played receipt from a LID member resolves to the member number', async () => {
    await socket.signalRepository.lidMapping.storeLIDPNMappings([{ lid: PEER_LID, pn: PEER_JID }]);
    socket.emit('message-receipt.update', [{
      key: { remoteJid: GROUP_JID, fromMe: true, id: '3EB0C0FFEE0000000000000F' }, receipt: { userJid: PEER_LID, playedTimestamp: T + 40 },
    }]);
    await h.settle();
    assert.deepStrictEqual(h.events, [{
      type: 'message.status', messageId: '3EB0C0FFEE0000000000000F', chatJid: GROUP_JID, recipientId: GROUP_JID, status: 'played',
      timestamp: T + 40, participant: PEER_JID,
    }]);
  });
});

describe('presence, calls, groups, chats, contacts, history', () => {
  let h: Harness;
  let socket: FakeSocket;

  eachOpenHarness((harness, open) => {
    h = harness;
    socket = open;
  });

  it('presence: one event per member', async () => {
    socket.emit('presence.update', { id: PEER_JID, presences: { [PEER_JID]: { lastKnownPresence: 'available', lastSeen: T } } });
    socket.emit('presence.update', { id: GROUP_JID, presences: { '5511966665555@s.whatsapp.net': { lastKnownPresence: 'composing' } } });
    await h.settle();
    assert.deepStrictEqual(h.events, [
      { type: 'presence', jid: PEER_JID, status: 'available', chatJid: PEER_JID },
      { type: 'presence', jid: '5511966665555@s.whatsapp.net', status: 'composing', chatJid: GROUP_JID },
    ]);
  });

  it('call: an incoming offer', async () => {
    socket.emit('call', [{
      chatId: PEER_JID, from: PEER_JID, id: 'C0A1B2C3D4E5F60718293A4B5C6D7E8F', date: new Date((T + 44) * 1000), isVideo: false, isGroup: false,
      status: 'offer', offline: false,
    }]);
    await h.settle();
    assert.deepStrictEqual(h.events, [{
      type: 'call', callId: 'C0A1B2C3D4E5F60718293A4B5C6D7E8F', from: PEER, fromJid: PEER_JID, status: 'offer', isVideo: false, isGroup: false,
      timestamp: T + 44,
    }]);
  });

  it('call: a LID caller is reported by its phone number; signalling updates are skipped', async () => {
    socket.emit('call', [
      { chatId: PEER_LID, from: PEER_LID, callerPn: PEER_JID, id: 'CALL2', date: new Date((T + 45) * 1000), isVideo: true, status: 'offer', offline: false },
      { chatId: PEER_LID, from: PEER_LID, id: 'CALL2', date: new Date((T + 46) * 1000), status: 'transport', offline: false },
    ]);
    await h.settle();
    assert.deepStrictEqual(h.events, [{
      type: 'call', callId: 'CALL2', from: PEER, fromJid: PEER_JID, status: 'offer', isVideo: true, isGroup: false, timestamp: T + 45,
    }]);
  });

  it('group-participants: members added, by phone number', async () => {
    socket.emit('group-participants.update', {
      id: GROUP_JID, author: '80000000000001@lid', authorPn: OWN_JID, action: 'add',
      participants: [{ id: '99990000111@lid', phoneNumber: '5511944443333@s.whatsapp.net' }, { id: '5511933332222@s.whatsapp.net' }],
    });
    await h.settle();
    assert.deepStrictEqual(h.events, [{
      type: 'group.participants', groupJid: GROUP_JID, action: 'add', participants: ['5511944443333@s.whatsapp.net', '5511933332222@s.whatsapp.net'],
      author: OWN_JID,
    }]);
  });

  /** A group notification as Baileys' socket reports it: the stub message, then (unbuffered) the partial groups.update. */
  const announce = (id: string, stub: number, params: string[], update: Record<string, unknown>) => {
    socket.emit('messages.upsert', { type: 'notify', messages: [{ key: { remoteJid: GROUP_JID, id, fromMe: false, participant: PEER_JID }, messageStubType: stub, messageStubParameters: params, messageTimestamp: T }] });
    socket.emit('groups.update', [{ id: GROUP_JID, ...update, author: PEER_JID }]);
  };

  it('group-update: a subject change', async () => {
    announce('N1', proto.WebMessageInfo.StubType.GROUP_CHANGE_SUBJECT, ['Parley customers'], { subject: 'Parley customers' });
    await h.settle();
    assert.deepStrictEqual(h.events, [{ type: 'group.update', groups: [{ id: GROUP_JID, subject: 'Parley customers' }] }]);
  });

  // Baileys' event buffer keeps only the first groups.update of a group per flush: the stubs carry every change.
  it('group-update: subject, description and setting changes arriving together are each reported, in order', async () => {
    const Stub = proto.WebMessageInfo.StubType;
    socket.emit('messages.upsert', { type: 'notify', messages: [
      { key: { remoteJid: GROUP_JID, id: 'N1', fromMe: false, participant: PEER_JID }, messageStubType: Stub.GROUP_CHANGE_SUBJECT, messageStubParameters: ['Novo'], messageTimestamp: T },
      { key: { remoteJid: GROUP_JID, id: 'N2', fromMe: false, participant: PEER_JID }, messageStubType: Stub.GROUP_CHANGE_DESCRIPTION, messageStubParameters: ['Regras'], messageTimestamp: T },
      { key: { remoteJid: GROUP_JID, id: 'N3', fromMe: false, participant: PEER_JID }, messageStubType: Stub.GROUP_CHANGE_ANNOUNCE, messageStubParameters: ['on'], messageTimestamp: T },
    ] });
    socket.emit('groups.update', [{ id: GROUP_JID, subject: 'Novo', author: PEER_JID }]);
    await h.settle();
    assert.deepStrictEqual(h.events.filter((e) => e.type === 'group.update'), [{ type: 'group.update', groups: [
      { id: GROUP_JID, subject: 'Novo' }, { id: GROUP_JID, desc: 'Regras' }, { id: GROUP_JID, announce: true },
    ] }]);
  });

  it('group-update: a group joined arrives whole', async () => {
    socket.emit('groups.upsert', [{
      id: GROUP_JID, subject: 'New team', owner: '80000000000001@lid', ownerPn: OWN_JID, creation: T, desc: 'hello', announce: false,
      participants: [{ id: '80000000000001@lid', phoneNumber: OWN_JID, admin: 'superadmin' }, { id: PEER_JID, admin: null }],
    }]);
    await h.settle();
    assert.deepStrictEqual(h.events, [{
      type: 'group.update',
      groups: [{
        id: GROUP_JID, subject: 'New team', owner: OWN_JID, creation: T, desc: 'hello', announce: false,
        participants: [{ id: OWN_JID, admin: 'superadmin' }, { id: PEER_JID, admin: null }],
      }],
    }]);
  });

  it('chats.upsert / chats.update / chats.delete', async () => {
    socket.emit('chats.upsert', [{ id: PEER_LID, pnJid: PEER_JID, name: 'Maria Silva', conversationTimestamp: T, unreadCount: 2 }]);
    socket.emit('chats.update', [{ id: GROUP_JID, unreadCount: 0, pinned: T, archived: true }]);
    socket.emit('chats.delete', [GROUP_JID]);
    await h.settle();
    assert.deepStrictEqual(h.events, [
      { type: 'chats.upsert', chats: [{ id: PEER_JID, name: 'Maria Silva', timestamp: T, unreadCount: 2 }] },
      { type: 'chats.upsert', chats: [{ id: GROUP_JID, unreadCount: 0, pinned: true, archived: true }] },
      { type: 'chats.delete', jids: [GROUP_JID] },
    ]);
  });

  it('mutes: a history chat\'s muteEndTime in seconds, an app-state mute in milliseconds and an unmute (null) become mutedUntil in seconds', async () => {
    socket.emit('chats.upsert', [{ id: PEER_JID, conversationTimestamp: T, muteEndTime: T + 3600 }]);
    socket.emit('chats.update', [{ id: GROUP_JID, muteEndTime: (T + 7200) * 1000 + 250 }]);
    socket.emit('chats.update', [{ id: '5511977776666@s.whatsapp.net', muteEndTime: null }]);
    await h.settle();
    assert.deepStrictEqual(h.events, [
      { type: 'chats.upsert', chats: [{ id: PEER_JID, timestamp: T, mutedUntil: T + 3600 }] },
      { type: 'chats.upsert', chats: [{ id: GROUP_JID, mutedUntil: T + 7200 }] },
      { type: 'chats.upsert', chats: [{ id: '5511977776666@s.whatsapp.net', mutedUntil: 0 }] },
    ]);
  });

  it('chats.update unread counts: an increment per received message is left to the message events; -1 (marked unread) is one unread', async () => {
    socket.emit('chats.update', [
      { id: PEER_JID, conversationTimestamp: T + 5, unreadCount: 1 },
      { id: '5511977776666@s.whatsapp.net', unreadCount: -1 },
    ]);
    await h.settle();
    assert.deepStrictEqual(h.events, [
      { type: 'chats.upsert', chats: [{ id: PEER_JID, timestamp: T + 5 }, { id: '5511977776666@s.whatsapp.net', unreadCount: 1 }] },
    ]);
  });

  it('contacts.upsert / contacts.update / lid-mapping.update: Baileys\' picture sentinels are no URLs', async () => {
    socket.results.set('profilePictureUrl', 'https://pps.whatsapp.net/v/t61/maria-new.jpg');
    socket.emit('contacts.upsert', [{ id: PEER_LID, phoneNumber: PEER_JID, name: 'Maria Silva', notify: 'Maria' }]);
    socket.emit('contacts.update', [{ id: PEER_JID, imgUrl: 'https://pps.whatsapp.net/v/t61/maria.jpg' }, { id: PEER_JID, imgUrl: 'changed' }]);
    socket.emit('lid-mapping.update', { lid: PEER_LID, pn: `${PEER}:0@s.whatsapp.net` });
    await h.settle();
    await h.settle();
    assert.deepStrictEqual(h.events, [
      { type: 'contacts.upsert', contacts: [{ id: PEER_JID, name: 'Maria Silva', notify: 'Maria', lid: PEER_LID }] },
      { type: 'contacts.upsert', contacts: [{ id: PEER_JID, imgUrl: 'https://pps.whatsapp.net/v/t61/maria.jpg' }] },
      { type: 'contacts.upsert', contacts: [{ id: PEER_JID, lid: PEER_LID }] },
      { type: 'contacts.upsert', contacts: [{ id: PEER_JID, imgUrl: 'https://pps.whatsapp.net/v/t61/maria-new.jpg' }] },
    ]);
    assert.deepEqual(socket.callsTo('profilePictureUrl'), [[PEER_JID, 'image']]);
    h.events.length = 0;
    // Removed: none at once; a fetch still in flight for an earlier change is not reported after it.
    socket.emit('contacts.update', [{ id: PEER_JID, imgUrl: 'changed' }]);
    socket.emit('contacts.update', [{ id: PEER_JID, imgUrl: 'removed' }]);
    await h.settle();
    await h.settle();
    assert.deepStrictEqual(h.events, [{ type: 'contacts.upsert', contacts: [{ id: PEER_JID, imgUrl: null }] }]);
    h.events.length = 0;
    // A new picture WhatsApp does not show this account (Baileys answers no URL): unknown, so no stale URL stays.
    socket.results.set('profilePictureUrl', undefined);
    socket.emit('contacts.update', [{ id: PEER_JID, imgUrl: 'changed' }]);
    await h.settle();
    await h.settle();
    assert.deepStrictEqual(h.events, [{ type: 'contacts.upsert', contacts: [{ id: PEER_JID, imgUrl: null }] }]);
  });

  it('contacts.update: at most 200 picture queries in flight; past that a changed picture is unknown at once', async () => {
    socket.results.set('profilePictureUrl', new Promise<never>(() => undefined));
    const jids = Array.from({ length: 201 }, (_, i) => `55119000${String(i).padStart(5, '0')}@s.whatsapp.net`);
    socket.emit('contacts.update', jids.map((id) => ({ id, imgUrl: 'changed' })));
    await h.settle();
    await h.settle();
    assert.equal(socket.callsTo('profilePictureUrl').length, 200);
    assert.deepStrictEqual(h.events, [{ type: 'contacts.upsert', contacts: [{ id: jids[200], imgUrl: null }] }]);
  });

  it('messages.delete: deleted keys grouped by chat', async () => {
    socket.emit('messages.delete', { keys: [{ remoteJid: PEER_JID, id: 'A' }, { remoteJid: GROUP_JID, id: 'B' }, { remoteJid: PEER_JID, id: 'C' }] });
    socket.emit('messages.delete', { jid: PEER_JID, all: true });
    await h.settle();
    assert.deepStrictEqual(h.events, [
      { type: 'message.delete', chatJid: PEER_JID, messageIds: ['A', 'C'] },
      { type: 'message.delete', chatJid: GROUP_JID, messageIds: ['B'] },
    ]);
  });

  it('history: a sync chunk becomes records, chats and contacts', async () => {
    socket.emit('messaging-history.set', {
      chats: [{ id: PEER_JID, name: 'Maria Silva', conversationTimestamp: T - 3600, unreadCount: 0 }],
      contacts: [{ id: PEER_JID, name: 'Maria Silva', notify: 'Maria' }],
      messages: [
        {
          key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A0A0A0A0A0A0A0A0A0A0' }, message: proto.Message.fromObject({ conversation: 'Earlier message' }),
          messageTimestamp: T - 3600, status: Status.READ, pushName: 'Maria Silva',
        },
        { key: { remoteJid: PEER_JID, fromMe: false, id: 'STUB' }, messageStubType: proto.WebMessageInfo.StubType.E2E_ENCRYPTED, messageTimestamp: T - 7200 },
      ],
      isLatest: true,
      progress: 100,
    });
    await h.settle();
    assert.deepStrictEqual(h.events, [{
      type: 'history', isLatest: true, progress: 100,
      messages: [{
        key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A0A0A0A0A0A0A0A0A0A0' }, message: { conversation: 'Earlier message' },
        messageTimestamp: String(T - 3600), status: 'READ', provider: 'whatsapp', pushName: 'Maria Silva',
      }],
      chats: [{ id: PEER_JID, name: 'Maria Silva', timestamp: T - 3600, unreadCount: 0 }],
      contacts: [{ id: PEER_JID, name: 'Maria Silva', notify: 'Maria' }],
    }]);
  });

  it('labels.edit and labels.association keep labels and their chats in the state store, and emit the chats with their labels', async () => {
    socket.emit('labels.edit', { id: '1', name: 'New customer', color: 1, deleted: false, predefinedId: '1' });
    socket.emit('labels.edit', { id: '2', name: 'Paid', color: 4, deleted: false });
    socket.emit('labels.association', { type: 'add', association: { type: 'label_jid' as never, chatId: PEER_JID, labelId: '1' } });
    socket.emit('labels.association', { type: 'add', association: { type: 'label_jid' as never, chatId: GROUP_JID, labelId: '1' } });
    socket.emit('labels.association', { type: 'remove', association: { type: 'label_jid' as never, chatId: GROUP_JID, labelId: '1' } });
    socket.emit('labels.edit', { id: '2', name: 'Paid', color: 4, deleted: true });
    await h.settle();
    const labels = h.adapter.capabilities.labels!;
    assert.deepStrictEqual(await labels.list(), [{ id: '1', name: 'New customer', color: 1 }]);
    assert.deepStrictEqual(await labels.chats('1'), [PEER_JID]);
    await assert.rejects(labels.chats('2'), { code: 'label_not_found' });
    assert.deepStrictEqual(h.events, [
      { type: 'chats.upsert', chats: [{ id: PEER_JID, labels: ['1'] }] },
      { type: 'chats.upsert', chats: [{ id: GROUP_JID, labels: ['1'] }] },
      { type: 'chats.upsert', chats: [{ id: GROUP_JID, labels: [] }] },
    ]);
  });
});
