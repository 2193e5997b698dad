import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proto } from '@whiskeysockets/baileys';
import type { FakeSocket } from '../src/testing/index.js';
import { eachOpenHarnessWithoutFetch, GROUP_JID, INSTANCE_ID, PEER, PEER_JID, type Harness } from './harness.js';

const DAY = 86_400;

// Sends into chats with disappearing messages carry the chat's timer (issue 25, defect 5).
describe('sending into chats with disappearing messages', () => {
  let h: Harness;
  let socket: FakeSocket;
  eachOpenHarnessWithoutFetch((harness, open) => {
    h = harness;
    socket = open;
  });

  const send = (to: string, content: Parameters<NonNullable<Harness['adapter']['capabilities']['messaging']>['send']>[0]['content']) =>
    h.adapter.capabilities.messaging!.send({ to, content });

  it('a person\'s chat: the stored chat\'s timer goes with the message', async () => {
    await h.storage.chats.upsert(INSTANCE_ID, { id: PEER_JID, ephemeralExpiration: DAY });
    await send(PEER, { type: 'text', text: 'see you' });
    const [[jid, , options]] = socket.callsTo('sendMessage') as [string, unknown, Record<string, unknown>][];
    assert.deepStrictEqual([jid, options.ephemeralExpiration], [PEER_JID, DAY]);
  });

  it('a group: its metadata\'s timer, read once and cached for the next sends', async () => {
    socket.results.set('groupMetadata', { id: GROUP_JID, subject: 'Team', participants: [], ephemeralDuration: 7 * DAY });
    await send(GROUP_JID, { type: 'text', text: 'one' });
    await send(GROUP_JID, { type: 'text', text: 'two' });
    assert.deepStrictEqual(socket.callsTo('sendMessage').map((call) => (call[2] as { ephemeralExpiration?: number }).ephemeralExpiration), [7 * DAY, 7 * DAY]);
    assert.equal(socket.callsTo('groupMetadata').length, 1);
  });

  it('messages Parley builds itself (relayed) carry the timer in their context info', async () => {
    await h.storage.chats.upsert(INSTANCE_ID, { id: PEER_JID, ephemeralExpiration: 90 * DAY });
    await send(PEER, { type: 'button_reply', text: 'Pick one', buttons: [{ id: 'a', text: 'A' }] });
    const [[, message]] = socket.callsTo('relayMessage') as [string, proto.IMessage][];
    assert.match(JSON.stringify(proto.Message.toObject(proto.Message.fromObject(message as never))), new RegExp(`"expiration":${90 * DAY}`));
  });

  it('a timer turned off on either phone (Baileys: ephemeralExpiration null) is stored as 0, so sends carry none', async () => {
    await h.storage.chats.upsert(INSTANCE_ID, { id: PEER_JID, ephemeralExpiration: DAY });
    socket.emit('chats.update', [{ id: PEER_JID, ephemeralExpiration: null, ephemeralSettingTimestamp: 1_735_700_000 }]);
    await h.settle();
    assert.deepStrictEqual(h.events, [{ type: 'chats.upsert', chats: [{ id: PEER_JID, ephemeralExpiration: 0 }] }]);
  });

  it('a group\'s timer changed after its metadata was cached (a w:gp2 notification, a chat update): the next send reads it afresh', async () => {
    socket.results.set('groupMetadata', { id: GROUP_JID, subject: 'Team', participants: [] });
    await send(GROUP_JID, { type: 'text', text: 'before' });
    socket.results.set('groupMetadata', { id: GROUP_JID, subject: 'Team', participants: [], ephemeralDuration: DAY });
    socket.emit('chats.update', [{ id: GROUP_JID, ephemeralExpiration: DAY, ephemeralSettingTimestamp: 1_735_700_000 }]);
    await h.settle();
    await send(GROUP_JID, { type: 'text', text: 'after' });
    assert.deepStrictEqual(socket.callsTo('sendMessage').map((call) => (call[2] as { ephemeralExpiration?: number }).ephemeralExpiration), [undefined, DAY]);
  });

  it('the instance\'s own setting (Baileys reports none of its own sends): the chat takes the timer and the next sends carry it', async () => {
    socket.results.set('groupMetadata', { id: GROUP_JID, subject: 'Team', participants: [] });
    await send(GROUP_JID, { type: 'text', text: 'before' });
    await h.adapter.capabilities.chats!.setDisappearing(PEER_JID, 90 * DAY);
    socket.results.set('groupMetadata', { id: GROUP_JID, subject: 'Team', participants: [], ephemeralDuration: DAY });
    await h.adapter.capabilities.chats!.setDisappearing(GROUP_JID, DAY);
    await h.settle();
    assert.deepStrictEqual(h.events, [
      { type: 'chats.upsert', chats: [{ id: PEER_JID, ephemeralExpiration: 90 * DAY }] },
      { type: 'chats.upsert', chats: [{ id: GROUP_JID, ephemeralExpiration: DAY }] },
    ]);
    await send(GROUP_JID, { type: 'text', text: 'after' });
    assert.deepStrictEqual(socket.callsTo('sendMessage').filter((call) => call[0] === GROUP_JID && !('disappearingMessagesInChat' in (call[1] as object)))
      .map((call) => (call[2] as { ephemeralExpiration?: number } | undefined)?.ephemeralExpiration), [undefined, DAY]);
  });

  it('a chat without the timer sends none', async () => {
    await h.storage.chats.upsert(INSTANCE_ID, { id: PEER_JID, ephemeralExpiration: 0 });
    await send(PEER, { type: 'text', text: 'plain' });
    const [[, , options]] = socket.callsTo('sendMessage') as [string, unknown, Record<string, unknown>][];
    assert.equal(options.ephemeralExpiration, undefined);
  });
});
