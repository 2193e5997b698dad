import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { withPostgres } from '../support/storages.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { sealed, secretMarked } from '../support/message-secret.js';

for (const storage of withPostgres('sandbox text between two instances', ['memory', 'sqlite'] as const)) {
  describe(`sandbox text between two instances (${storage})`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer({ storage });
    });
    after(async () => {
      await t.stop();
    });

    it('delivers a text and moves the sender record from PENDING to READ', async () => {
      const alice = await t.connectedSandbox({ name: 'alice', number: '5511900000001' });
      const bob = await t.connectedSandbox({ name: 'bob', number: '5511900000002' });
      const aliceApi = t.client(alice.key);
      const bobApi = t.client(bob.key);
      assert.equal((await bobApi.call('updateInstanceFlags', { query: { markMessageRead: true } })).status, 200);

      const sent = await aliceApi.call('sendText', { body: { to: '5511900000002', text: 'hello bob' } });
      assert.equal(sent.status, 200);
      const record = sent.data;
      assert.equal(record.status, 'PENDING');
      assert.deepEqual(record.key, { remoteJid: '5511900000002@s.whatsapp.net', fromMe: true, id: record.key.id });
      assert.deepEqual(secretMarked(record.message), sealed({ extendedTextMessage: { text: 'hello bob' } }));
      assert.match(record.messageTimestamp, /^\d+$/);

      const inbox = await t.waitFor(async () => {
        const res = await bobApi.call('listChatMessages', { params: { jid: '5511900000001' } });
        return res.total === 1 ? res : undefined;
      }, 5000, 'bob to receive the message');
      assert.deepEqual(inbox.data[0]!.key, { remoteJid: '5511900000001@s.whatsapp.net', fromMe: false, id: record.key.id });
      assert.deepEqual(secretMarked(inbox.data[0]!.message), sealed({ extendedTextMessage: { text: 'hello bob' } }));
      assert.equal(inbox.page, 1);
      assert.equal(inbox.limit, 20);

      const chats = await bobApi.call('listChats');
      assert.equal(chats.data[0]!.id, '5511900000001@s.whatsapp.net');
      assert.equal(chats.data[0]!.name, 'alice');

      await t.waitFor(async () => {
        const res = await aliceApi.call('listChatMessages', { params: { jid: '5511900000002' } });
        return res.data[0]?.status === 'READ';
      }, 5000, 'the sender record to reach READ');
      // The record is written before its event reaches subscribers: wait for the event as well.
      const statusesOf = () => t.events.filter((e) => e.type === 'message.status' && e.messageId === record.key.id).map((e) => (e as { status: string }).status);
      await t.waitFor(async () => statusesOf().includes('read'), 5000, 'the read status event');
      assert.deepEqual(statusesOf(), ['sent', 'delivered', 'read']);
    });
  });
}
