import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.js';

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

  it('first run: two connected instances with settings and a delivered message; one never connected; one logged out', async () => {
    t = await startTestServer({ storage: 'sqlite', dataDir });
    alice = await t.connectedSandbox({ name: 'alice', number: '5511950000001' });
    bob = await t.connectedSandbox({ name: 'bob', number: '5511950000002' });
    carol = await t.createInstance({ name: 'carol', number: '5511950000003' });
    dave = await t.connectedSandbox({ name: 'dave', number: '5511950000004' });
    assert.equal((await t.request('DELETE', `/${dave.key}/instance`)).status, 200);

    assert.equal((await t.request('PATCH', `/${alice.key}/instance?markMessageRead=true&saveMedia=true&receivePresence=false`)).status, 200);
    assert.equal((await t.request('PUT', `/${alice.key}/instance`, WEBHOOK)).status, 200);
    assert.equal((await t.request('PUT', `/${alice.key}/instance/profile/name`, { name: 'Alice Ltd' })).status, 200);
    assert.equal((await t.request('POST', `/${alice.key}/instance/proxy`, { proxy: 'socks5://127.0.0.1:1080' })).status, 200);

    const sent = await t.request('POST', `/${alice.key}/message/text`, { to: '5511950000002', text: 'before the restart' });
    assert.equal(sent.status, 200);
    sentId = sent.body.data.key.id;
    await t.waitFor(async () => (await t!.request('GET', `/${bob.key}/chat/5511950000001/messages`)).body.total === 1, 5000, 'bob to receive');
    await t.settle();

    beforeList = (await t.admin('GET', '/admin/instances')).body.data;
    beforeAlice = (await t.request('GET', `/${alice.key}/instance`)).body.instance;
    await t.stop();
    t = undefined;
  });

  it('second run on the same data directory: instances, settings, messages and connections are back', async () => {
    t = await startTestServer({ storage: 'sqlite', dataDir });
    await t.server.restored();
    await t.settle();

    const list = (await t.admin('GET', '/admin/instances')).body.data as { id: string }[];
    const byId = (items: unknown[]) => new Map((items as { id: string }[]).map((v) => [v.id, v]));
    assert.deepEqual(byId(list), byId(beforeList), 'admin views (keys, secrets, settings, connection state) are identical');

    const aliceNow = (await t.request('GET', `/${alice.key}/instance`)).body.instance;
    assert.deepEqual(aliceNow, beforeAlice);
    assert.equal(aliceNow.phoneConnected, true);
    assert.deepEqual(aliceNow.webhook, WEBHOOK);
    assert.deepEqual([aliceNow.mark_messages, aliceNow.save_media, aliceNow.receive_presence, aliceNow.receive_status_message], [true, true, false, false]);
    assert.equal(aliceNow.user.name, 'Alice Ltd');
    assert.equal((await t.server.context.storage.instances.get(alice.id))?.proxy, 'socks5://127.0.0.1:1080');

    const bobNow = (await t.request('GET', `/${bob.key}/instance`)).body.instance;
    assert.equal(bobNow.phoneConnected, true);
    assert.equal(bobNow.user.id, '5511950000002@s.whatsapp.net');
    assert.equal((await t.request('GET', `/${carol.key}/instance`)).body.instance.phoneConnected, false);
    const daveNow = (await t.request('GET', `/${dave.key}/instance`)).body.instance;
    assert.equal(daveNow.phoneConnected, false);
    assert.equal(daveNow.user, null);

    // Restored without a QR: connection events only for the instances that were connected.
    const opened = t.events.filter((e) => e.type === 'connection' && (e as { status: string }).status === 'open').map((e) => e.instance).sort();
    assert.deepEqual(opened, [alice.id, bob.id].sort());
    assert.equal(t.events.filter((e) => e.type === 'qrcode').length, 0);

    const aliceChat = await t.request('GET', `/${alice.key}/chat/5511950000002/messages`);
    assert.equal(aliceChat.body.total, 1);
    assert.equal(aliceChat.body.data[0].key.id, sentId);
    assert.deepEqual(aliceChat.body.data[0].message, { extendedTextMessage: { text: 'before the restart' } });
    const bobChat = await t.request('GET', `/${bob.key}/chat/5511950000001/messages`);
    assert.deepEqual(bobChat.body.data.map((m: { key: { id: string; fromMe: boolean } }) => [m.key.id, m.key.fromMe]), [[sentId, false]]);
    const bobChats = (await t.request('GET', `/${bob.key}/chat`)).body.data;
    assert.deepEqual(bobChats.map((c: { id: string; name: string }) => [c.id, c.name]), [['5511950000001@s.whatsapp.net', 'Alice Ltd']]);
  });

  it('a message sent after the restart is delivered, both ways', async () => {
    const reply = await t!.request('POST', `/${bob.key}/message/text`, { to: '5511950000001', text: 'after the restart' });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.data.status, 'PENDING');
    const inbox = await t!.waitFor(async () => {
      const res = await t!.request('GET', `/${alice.key}/chat/5511950000002/messages`);
      return res.body.total === 2 ? res.body.data : undefined;
    }, 5000, 'alice to receive the reply');
    assert.deepEqual(inbox[0].key, { remoteJid: '5511950000002@s.whatsapp.net', fromMe: false, id: reply.body.data.key.id });
    assert.deepEqual(inbox[0].message, { extendedTextMessage: { text: 'after the restart' } });
    const again = await t!.request('POST', `/${alice.key}/message/text`, { to: '5511950000002', text: 'welcome back' });
    assert.equal(again.status, 200);
    await t!.waitFor(async () => (await t!.request('GET', `/${bob.key}/chat/5511950000001/messages`)).body.total === 3, 5000, 'bob to receive');
  });

  it('the never-connected and logged-out instances can still connect after the restart', async () => {
    const qr = await t!.request('POST', `/${carol.key}/instance`);
    assert.equal(qr.body.phoneConnected, false);
    assert.equal((await t!.request('POST', `/sandbox/${carol.key}/scan`)).status, 200);
    await t!.settle();
    assert.equal((await t!.request('GET', `/${carol.key}/instance`)).body.instance.phoneConnected, true);
  });
});
