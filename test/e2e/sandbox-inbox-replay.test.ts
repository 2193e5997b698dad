import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '@parley/testkit';
import { startTestServer, type TestServer } from '../support/test-server.js';

const ALICE = '5511977000001';
const BOB = '5511977000002';

/**
 * The sandbox phones' inboxes across server restarts (SQLite): a packet still on its way when the
 * server stops is delivered by the next server, and a packet the next server finds although the phone
 * already stored it (a process that died between the two) is acknowledged without a second message —
 * or emitted again when its event was never logged (so its webhooks never queued).
 */
describe('sandbox inbox replay across restarts', () => {
  let dataDir: string;
  let t: TestServer | undefined;
  let alice: { id: string; key: string };
  let bob: { id: string; key: string };
  let messageId: string;
  let inboxDoc: { id: string; value: unknown };
  const bobInbox = () => `${bob.id}:sandbox:inbox`;
  const start = async (latencyMs: number, clock?: FakeClock) => {
    await t?.stop();
    t = await startTestServer({ storage: 'sqlite', dataDir, sandbox: { latencyMs }, ...(clock ? { clock } : {}) });
  };
  const statusAtAlice = async () => (await t!.client(alice.key).call('listChatMessages', { params: { jid: BOB } })).data.find((m) => m.key.id === messageId)?.status;
  const eventsFor = (instance: string, type: string) => t!.events.filter((e) => e.instance === instance && e.type === type
    && ((e as { message?: { id: string } }).message?.id ?? (e as { messageId?: string }).messageId) === messageId);

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-inbox-replay-'));
    // A minute per hop: the packet is still in bob's inbox when this server stops.
    await start(60_000);
    alice = await t!.connectedSandbox({ name: 'alice', number: ALICE });
    bob = await t!.connectedSandbox({ name: 'bob', number: BOB });
    const sent = await t!.client(alice.key).call('sendText', { body: { to: BOB, text: 'across the restart' } });
    messageId = sent.data.key.id;
  });
  after(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the answered send is in bob\'s inbox in storage before it reaches bob', async () => {
    const inbox = await t!.server.context.storage.state.list<{ kind: string; id: string }>(bobInbox());
    assert.equal(inbox.length, 1);
    assert.equal(inbox[0]!.value.kind, 'message');
    assert.equal(inbox[0]!.value.id, messageId);
    inboxDoc = inbox[0]!;
    assert.equal((await t!.client(bob.key).call('listChatMessages', { params: { jid: ALICE } })).total, 0);
  });

  it('the next server delivers it once, and the sender\'s record reaches DELIVERY_ACK', async () => {
    await start(0);
    await t!.waitFor(async () => (await statusAtAlice()) === 'DELIVERY_ACK', 20_000, 'DELIVERY_ACK at alice');
    await t!.settle();
    assert.equal(eventsFor(bob.id, 'message').length, 1);
    assert.deepEqual(eventsFor(alice.id, 'message.status').map((e) => (e as { status: string }).status), ['delivered']);
    assert.deepEqual(await t!.server.context.storage.state.list(bobInbox()), [], 'the inbox forgot the delivered packet');
  });

  it('a packet found again after it was stored is only acknowledged: no second message, no second status', async () => {
    // What a process that died after bob stored the message, before it forgot the packet, leaves behind.
    await t!.server.context.storage.state.put(bobInbox(), inboxDoc.id, inboxDoc.value);
    await start(0);
    await t!.waitFor(async () => (await t!.server.context.storage.state.list(bobInbox())).length === 0, 20_000, 'the replayed packet to be forgotten');
    await t!.settle();
    assert.deepEqual(eventsFor(bob.id, 'message'), []);
    assert.deepEqual(eventsFor(alice.id, 'message.status'), []);
    const atBob = await t!.client(bob.key).call('listChatMessages', { params: { jid: ALICE } });
    assert.equal(atBob.total, 1);
    assert.equal((await t!.client(bob.key).call('listChats')).data.find((c) => c.id === `${ALICE}@s.whatsapp.net`)?.unreadCount, 1);
    assert.equal(await statusAtAlice(), 'DELIVERY_ACK');
  });

  it('a packet found again whose message is stored but not logged is emitted again, once, and counted unread once', async () => {
    // What a process that died after bob stored the message, before its webhooks were queued (and the
    // event logged in the same write), leaves behind.
    const { storage } = t!.server.context;
    await storage.state.put(bobInbox(), inboxDoc.id, inboxDoc.value);
    await storage.events.clear(bob.id);
    // A minute later (a loaded machine's restarts take seconds): the receipt bob sends again is stamped
    // long after alice logged the status it carries.
    await start(0, new FakeClock(Date.now() + 60_000));
    await t!.waitFor(async () => (await t!.server.context.storage.state.list(bobInbox())).length === 0, 20_000, 'the replayed packet to be forgotten');
    await t!.settle();
    assert.equal(eventsFor(bob.id, 'message').length, 1);
    assert.deepEqual(eventsFor(alice.id, 'message.status'), [], 'alice\'s delivered status was logged: not emitted again');
    const logged = await t!.server.context.storage.events.read({ instance: bob.id, limit: 100 });
    assert.deepEqual(logged.filter((e) => e.type === 'message').map((e) => (JSON.parse(e.event) as { message: { id: string } }).message.id), [messageId]);
    const atBob = await t!.client(bob.key).call('listChatMessages', { params: { jid: ALICE } });
    assert.equal(atBob.total, 1);
    assert.equal((await t!.client(bob.key).call('listChats')).data.find((c) => c.id === `${ALICE}@s.whatsapp.net`)?.unreadCount, 1);

    // Found once more, now logged: only acknowledged.
    await t!.server.context.storage.state.put(bobInbox(), inboxDoc.id, inboxDoc.value);
    await start(0);
    await t!.waitFor(async () => (await t!.server.context.storage.state.list(bobInbox())).length === 0, 20_000, 'the replayed packet to be forgotten');
    await t!.settle();
    assert.deepEqual(eventsFor(bob.id, 'message'), []);
  });
});
