import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** Both runs answer the same public URL (views carry it in `user.imageProfile`), as a deployment behind one address does. */
const PUBLIC_URL = 'https://parley.test';

/** Issue 2, done-when 2: everything an operator set up survives a restart on the same data directory (SQLite). */
describe('restart persistence (SQLite)', () => {
  let dataDir: string;
  let t: TestServer | undefined;
  const WEBHOOK = {
    allowWebhook: false, allowNumber: 'all', webhookFormat: 'meta', webhookMessage: 'https://hooks.example.com/messages', webhookGroup: '',
    webhookConnection: 'https://hooks.example.com/connection', webhookQrCode: '', webhookMessageFromMe: '', webhookHistory: '',
  };
  let alice: { id: string; key: string };
  let bob: { id: string; key: string };
  let carol: { id: string; key: string };
  let dave: { id: string; key: string };
  let sentId: string;
  let beforeList: unknown[];
  let beforeAlice: Record<string, any>;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-restart-'));
  });
  after(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** An instance's record (GET /{key}/instance) on the running server. */
  const instanceOf = async (p: { key: string }) => (await t!.client(p.key).call('getInstance')).instance as Record<string, any>;
  /** A page of a chat's messages on the running server. */
  const chatMessages = (p: { key: string }, jid: string) => t!.client(p.key).call('listChatMessages', { params: { jid } });

  it('first run: two connected instances with settings and a delivered message; one never connected; one logged out', async () => {
    t = await startTestServer({ storage: 'sqlite', dataDir, config: { publicUrl: PUBLIC_URL } });
    alice = await t.connectedSandbox({ name: 'alice', number: '5511950000001' });
    bob = await t.connectedSandbox({ name: 'bob', number: '5511950000002' });
    carol = await t.createInstance({ name: 'carol', number: '5511950000003' });
    dave = await t.connectedSandbox({ name: 'dave', number: '5511950000004' });
    assert.equal((await t.client(dave.key).call('logoutInstance')).status, 200);

    const api = t.client(alice.key);
    assert.equal((await api.call('updateInstanceFlags', { query: { markMessageRead: true, saveMedia: true, receivePresence: false } })).status, 200);
    assert.equal((await api.call('updateWebhookSettings', { body: WEBHOOK })).status, 200);
    assert.equal((await api.call('setProfileName', { body: { name: 'Alice Ltd' } })).status, 200);
    assert.equal((await api.call('setProxy', { body: { proxy: 'socks5://127.0.0.1:1080' } })).status, 200);

    const sent = await api.call('sendText', { body: { to: '5511950000002', text: 'before the restart' } });
    assert.equal(sent.status, 200);
    sentId = sent.data.key.id;
    await t.waitFor(async () => (await chatMessages(bob, '5511950000001')).total === 1, 5000, 'bob to receive');
    await t.settle();

    beforeList = (await t.client().call('adminListInstances')).data;
    beforeAlice = await instanceOf(alice);
    await t.stop();
    t = undefined;
  });

  it('second run on the same data directory: instances, settings, messages and connections are back', async () => {
    t = await startTestServer({ storage: 'sqlite', dataDir, config: { publicUrl: PUBLIC_URL } });
    await t.server.restored();
    await t.settle();

    const list = (await t!.client().call('adminListInstances')).data;
    const byId = (items: unknown[]) => new Map((items as { id: string }[]).map((v) => [v.id, v]));
    assert.deepEqual(byId(list), byId(beforeList), 'admin views (keys, secrets, settings, connection state) are identical');

    const aliceNow = await instanceOf(alice);
    assert.deepEqual(aliceNow, beforeAlice);
    assert.equal(aliceNow.phoneConnected, true);
    assert.deepEqual(aliceNow.webhook, WEBHOOK);
    assert.deepEqual([aliceNow.mark_messages, aliceNow.save_media, aliceNow.receive_presence, aliceNow.receive_status_message], [true, true, false, false]);
    assert.equal(aliceNow.user.name, 'Alice Ltd');
    assert.equal((await t.server.context.storage.instances.get(alice.id))?.proxy, 'socks5://127.0.0.1:1080');

    const bobNow = await instanceOf(bob);
    assert.equal(bobNow.phoneConnected, true);
    assert.equal(bobNow.user.id, '5511950000002@s.whatsapp.net');
    assert.equal((await instanceOf(carol)).phoneConnected, false);
    const daveNow = await instanceOf(dave);
    assert.equal(daveNow.phoneConnected, false);
    assert.equal(daveNow.user, null);

    // Restored without a QR: connection events only for the instances that were connected.
    const opened = t.events.filter((e) => e.type === 'connection' && (e as { status: string }).status === 'open').map((e) => e.instance).sort();
    assert.deepEqual(opened, [alice.id, bob.id].sort());
    assert.equal(t.events.filter((e) => e.type === 'qrcode').length, 0);

    const aliceChat = await chatMessages(alice, '5511950000002');
    assert.equal(aliceChat.total, 1);
    assert.equal(aliceChat.data[0]!.key.id, sentId);
    assert.deepEqual(aliceChat.data[0]!.message, { extendedTextMessage: { text: 'before the restart' } });
    const bobChat = await chatMessages(bob, '5511950000001');
    assert.deepEqual(bobChat.data.map((m) => [m.key.id, m.key.fromMe]), [[sentId, false]]);
    const bobChats = (await t.client(bob.key).call('listChats')).data;
    assert.deepEqual(bobChats.map((c) => [c.id, c.name]), [['5511950000001@s.whatsapp.net', 'Alice Ltd']]);
  });

  it('a message sent after the restart is delivered, both ways', async () => {
    const reply = await t!.client(bob.key).call('sendText', { body: { to: '5511950000001', text: 'after the restart' } });
    assert.equal(reply.status, 200);
    assert.equal(reply.data.status, 'PENDING');
    const inbox = await t!.waitFor(async () => {
      const res = await chatMessages(alice, '5511950000002');
      return res.total === 2 ? res.data : undefined;
    }, 5000, 'alice to receive the reply');
    assert.deepEqual(inbox[0]!.key, { remoteJid: '5511950000002@s.whatsapp.net', fromMe: false, id: reply.data.key.id });
    assert.deepEqual(inbox[0]!.message, { extendedTextMessage: { text: 'after the restart' } });
    const again = await t!.client(alice.key).call('sendText', { body: { to: '5511950000002', text: 'welcome back' } });
    assert.equal(again.status, 200);
    await t!.waitFor(async () => (await chatMessages(bob, '5511950000001')).total === 3, 5000, 'bob to receive');
  });

  it('the never-connected and logged-out instances can still connect after the restart', async () => {
    const api = t!.client(carol.key);
    const qr = await api.call('connectInstance');
    assert.equal(qr.phoneConnected, false);
    assert.equal((await api.call('sandbox_post_key_scan')).status, 200);
    await t!.settle();
    assert.equal((await instanceOf(carol)).phoneConnected, true);
  });
});
