import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Outbound } from '@parley/core';
import { SqliteStorage } from '@parley/storage-sqlite';
import { TEST_QUEUE } from '../support/queue.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const ALICE = '5511977100001';
const BOB = '5511977100002';

/**
 * Issue 24: the sender's side of a send (its own copy and `sent`) across a crash (SQLite, restarts).
 * A process that died after the channel took a send and its record was stored, before the send's
 * events were queued for their webhooks (logged in that same write) and its queue entry completed,
 * leaves the record stored, the entry in the queue and neither event logged. The next server resumes
 * the entry: the channel emits again exactly the events the log lacks, the message is not sent again,
 * and the entry is completed.
 */
describe('a send cut off between its record and its webhooks is resumed after a restart', () => {
  let dataDir: string;
  let t: TestServer | undefined;
  let alice: { id: string; key: string };
  let bob: { id: string; key: string };
  let messageId: string;
  /** The send's queue entry while it waited. */
  let entry: Outbound;
  const start = async () => {
    await t?.stop();
    t = await startTestServer({ storage: 'sqlite', dataDir, config: { queue: TEST_QUEUE } });
  };
  /** The events of alice's log about the send, as `type:status` (a message is `message`). */
  const logged = async () => (await t!.server.context.storage.events.read({ instance: alice.id, limit: 1000 }))
    .map((e) => ({ type: e.type, event: JSON.parse(e.event) as { message?: { id: string; fromMe: boolean }; messageId?: string; status?: string } }))
    .filter(({ event }) => (event.message?.id ?? event.messageId) === messageId)
    .map(({ type, event }) => (event.status === undefined ? type : `${type}:${event.status}`));
  /** What a process killed in the window leaves behind: the entry back in the queue, alice's events of it not logged. */
  const crashState = async (clearLog: boolean, failed = false) => {
    await t!.stop();
    t = undefined;
    const offline = new SqliteStorage({ file: join(dataDir, 'parley.db'), backgroundCheckpoints: false });
    await offline.init();
    // Its dead worker's lease is over: claimable, as if never leased.
    assert.equal(await offline.outbound.enqueue(entry, 10), 'queued');
    if (clearLog) await offline.events.clear(alice.id);
    // A send the worker failed for good stores its record `ERROR` before completing the entry.
    if (failed) await offline.messages.upsert(alice.id, { ...(await offline.messages.get(alice.id, messageId))!, status: 'ERROR' });
    await offline.close();
  };
  const bobCopies = async () => (await t!.client(bob.key).call('listChatMessages', { params: { jid: ALICE } })).data.filter((m) => m.key.id === messageId).length;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-send-resume-'));
    await start();
    alice = await t!.connectedSandbox({ name: 'alice', number: ALICE });
    bob = await t!.connectedSandbox({ name: 'bob', number: BOB });
    // Delayed a moment, so that its queue entry can be read before it leaves.
    const sent = await t!.client(alice.key).call('sendText', { body: { to: BOB, text: 'cut off', delay: 500 } });
    messageId = sent.data.key.id;
    entry = (await t!.server.context.storage.outbound.get(alice.id, messageId))!;
    assert.ok(entry, 'the queued entry');
    await t!.waitFor(async () => (await bobCopies()) === 1, 5000, 'the message at bob');
    await t!.settle();
    assert.deepEqual(await logged(), ['message', 'message.status:sent', 'message.status:delivered']);
  });
  after(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the next server emits the own copy and `sent` once, sends nothing again and completes the entry', async () => {
    await crashState(true);
    await start();
    await t!.waitFor(async () => (await t!.server.context.storage.outbound.count(alice.id)) === 0, 5000, 'the entry to be completed');
    await t!.settle();
    assert.deepEqual(await logged(), ['message', 'message.status:sent']);
    const copies = t!.events.filter((e) => e.instance === alice.id && e.type === 'message');
    assert.equal(copies.length, 1);
    assert.equal((copies[0] as { message: { fromMe: boolean } }).message.fromMe, true);
    assert.equal(t!.events.filter((e) => e.instance === bob.id && e.type === 'message').length, 0, 'nothing reached bob again');
    assert.equal(await bobCopies(), 1);
    const atAlice = (await t!.client(alice.key).call('listChatMessages', { params: { jid: BOB } })).data.filter((m) => m.key.id === messageId);
    assert.equal(atAlice.length, 1);
    assert.equal(atAlice[0]!.status, 'DELIVERY_ACK', 'the status never moves back');
  });

  it('an entry found again whose events are logged is only completed: nothing emitted twice', async () => {
    await crashState(false);
    await start();
    await t!.waitFor(async () => (await t!.server.context.storage.outbound.count(alice.id)) === 0, 5000, 'the entry to be completed');
    await t!.settle();
    assert.deepEqual(t!.events.filter((e) => e.instance === alice.id && (e.type === 'message' || e.type === 'message.status')), []);
    assert.deepEqual(await logged(), ['message', 'message.status:sent']);
  });

  it('an entry whose record reads ERROR (failed for good, never sent) is completed without reporting a send', async () => {
    await crashState(true, true);
    await start();
    await t!.waitFor(async () => (await t!.server.context.storage.outbound.count(alice.id)) === 0, 5000, 'the entry to be completed');
    await t!.settle();
    assert.deepEqual(t!.events.filter((e) => e.instance === alice.id && (e.type === 'message' || e.type === 'message.status')), []);
    assert.deepEqual(await logged(), []);
  });
});
