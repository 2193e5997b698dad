import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serviceUrlOrSkip, startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { deleteKeys } from '@parley/storage-redis/testing';
import { ServerChild } from '../support/server-child.js';

const redisUrl = serviceUrlOrSkip('REDIS_URL', 'the sandbox network across two server processes');

const ALICE = '5511975000001';
const BOB = '5511975000002';
const jidOf = (number: string) => `${number}@s.whatsapp.net`;
/** A 1×1 PNG, sent as base64 media. */
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

interface Side {
  id: string;
  key: string;
}

/**
 * Two real server processes on one Redis (a key prefix of their own): alice is a sandbox phone on
 * process A, bob one on process B. What the in-process network carries crosses between them: texts
 * and media, delivery and read receipts, presence, group changes and group messages; a burst of
 * concurrent sends loses nothing.
 */
if (redisUrl) describe('the sandbox network across two server processes on one Redis', () => {
  const prefix = `parley-e2e-nodes-${process.pid}-${Date.now()}:`;
  const storage = { package: '@parley/storage-redis', options: { url: redisUrl, keyPrefix: prefix } };
  const dirs: string[] = [];
  let receiver: HttpReceiver;
  let nodeA: ServerChild;
  let nodeB: ServerChild;
  let alice: Side;
  let bob: Side;

  before(async () => {
    receiver = await startHttpReceiver();
    const start = () => {
      const dir = mkdtempSync(join(tmpdir(), 'parley-node-'));
      dirs.push(dir);
      return ServerChild.start(dir, {}, { storage });
    };
    [nodeA, nodeB] = await Promise.all([start(), start()]);
    const hook = (path: string) => ({ allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiver.url}/${path}` });
    alice = await nodeA.connectedSandbox({ name: 'alice', options: { number: ALICE }, webhook: hook('alice') });
    bob = await nodeB.connectedSandbox({ name: 'bob', options: { number: BOB }, webhook: hook('bob') });
  });
  after(async () => {
    await Promise.all([nodeA?.kill('SIGTERM'), nodeB?.kill('SIGTERM')]);
    await receiver?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await deleteKeys(redisUrl, prefix);
  });

  /** Polls `check` until it answers something truthy (15 s at most). */
  async function until<T>(check: () => Promise<T>, what: string): Promise<NonNullable<T>> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const value = await check();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; A: ${nodeA.stderr.join('')} B: ${nodeB.stderr.join('')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function messages(node: ServerChild, side: Side, peer: string): Promise<any[]> {
    const res = await node.request('GET', `/${side.key}/chat/${peer}/messages?limit=100`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data;
  }

  const statusOf = async (id: string) => (await messages(nodeA, alice, BOB)).find((m) => m.key.id === id)?.status as string | undefined;
  const eventsAt = (path: string, type: string) => receiver.requests.filter((r) => r.url === `/${path}`).map((r) => r.json as any).filter((e) => e.type === type);

  it('a text from A reaches B, and A\'s record goes to DELIVERY_ACK, then READ when B reads the chat', async () => {
    const sent = await nodeA.request('POST', `/${alice.key}/message/text`, { to: BOB, text: 'hello across nodes' });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const id = sent.body.data.key.id as string;
    const atB = await until(async () => (await messages(nodeB, bob, ALICE)).find((m) => m.key.id === id), 'the text to reach bob on B');
    assert.deepEqual(atB.key, { remoteJid: jidOf(ALICE), fromMe: false, id });
    assert.equal(atB.message.conversation ?? atB.message.extendedTextMessage?.text, 'hello across nodes');
    assert.equal(atB.pushName, 'alice');
    await until(async () => (await statusOf(id)) === 'DELIVERY_ACK', 'DELIVERY_ACK at alice');

    const read = await nodeB.request('PATCH', `/${bob.key}/chat/${ALICE}?action=markRead&value=true`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    await until(async () => (await statusOf(id)) === 'READ', 'READ at alice');
    const statuses = eventsAt('alice', 'message.status').filter((e) => e.data.messageId === id || e.data.key?.id === id);
    assert.ok(statuses.length >= 2, `alice's webhook got the receipts: ${JSON.stringify(statuses)}`);
  });

  it('media sent from B arrives at A with the same bytes', async () => {
    const sent = await nodeB.request('POST', `/${bob.key}/message/image`, { to: ALICE, url: PNG, caption: 'a pixel' });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const id = sent.body.data.key.id as string;
    const atA = await until(async () => (await messages(nodeA, alice, BOB)).find((m) => m.key.id === id), 'the image to reach alice on A');
    assert.equal(atA.message.imageMessage.caption, 'a pixel');
    const media = await nodeA.request('GET', `/${alice.key}/message/${id}/media?format=json`);
    assert.equal(media.status, 200, JSON.stringify(media.body));
    assert.equal(media.body.data, PNG);
  });

  it('presence: alice on A sees bob on B online, then offline and back when B restarts bob', async () => {
    assert.equal((await nodeA.request('PATCH', `/${alice.key}/instance?receivePresence=true`)).status, 200);
    const subscribed = await nodeA.request('POST', `/${alice.key}/chat/presence/subscribe`, { jid: BOB });
    assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body));
    const presences = () => eventsAt('alice', 'presence').map((e) => e.data.status as string);
    await until(async () => presences()[0], 'bob\'s presence at alice');
    assert.equal(presences()[0], 'available');
    assert.equal((await nodeB.request('POST', `/${bob.key}/instance/restart`)).status, 200);
    await until(async () => presences().length >= 3, 'bob going offline and back');
    assert.deepEqual(presences().slice(1, 3), ['unavailable', 'available']);
  });

  it('a group created on A reaches bob on B, and group messages cross both ways', async () => {
    const created = await nodeA.request('POST', `/${alice.key}/groups`, { name: 'Across', participants: [BOB] });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const group = created.body.data.id as string;
    await until(async () => ((await nodeB.request('GET', `/${bob.key}/groups`)).body.data as any[]).some((g) => g.id === group), 'the group on B');
    const fromBob = await nodeB.request('POST', `/${bob.key}/message/text`, { to: group, text: 'hi group' });
    assert.equal(fromBob.status, 200, JSON.stringify(fromBob.body));
    const atA = await until(async () => (await messages(nodeA, alice, group)).find((m) => m.key.id === fromBob.body.data.key.id), 'bob\'s group message at A');
    assert.equal(atA.key.participant, jidOf(BOB));
  });

  it('a burst of concurrent sends from A to B: every accepted send reaches bob once and DELIVERY_ACK at alice', async () => {
    const ids = await Promise.all(Array.from({ length: 100 }, async (_, i) => {
      const res = await nodeA.request('POST', `/${alice.key}/message/text`, { to: BOB, text: `burst ${i}` });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data.key.id as string;
    }));
    const all = async (node: ServerChild, side: Side, peer: string) => {
      const out: any[] = [];
      for (let page = 1; ; page++) {
        const res = await node.request('GET', `/${side.key}/chat/${peer}/messages?page=${page}&limit=100`);
        out.push(...res.body.data);
        if (!res.body.data.length || out.length >= res.body.total) return out;
      }
    };
    await until(async () => {
      const atB = new Set((await all(nodeB, bob, ALICE)).map((m) => m.key.id));
      return ids.every((id) => atB.has(id));
    }, 'every burst message at bob');
    const atB = (await all(nodeB, bob, ALICE)).map((m) => m.key.id as string);
    assert.equal(new Set(atB).size, atB.length, 'no message twice at bob');
    await until(async () => {
      const statuses = new Map((await all(nodeA, alice, BOB)).map((m) => [m.key.id, m.status]));
      return ids.every((id) => statuses.get(id) === 'DELIVERY_ACK');
    }, 'every burst message DELIVERY_ACK at alice');
    // One event per message (a retried delivery repeats its webhook id, so deliveries are counted by id).
    const messageEvents = () => {
      const byWebhookId = new Map(receiver.requests.filter((r) => r.url === '/bob').map((r) => [String(r.headers['webhook-id']), r.json as any]));
      return [...byWebhookId.values()].filter((e) => e.type === 'message').map((e) => e.data.message.id as string);
    };
    await until(async () => ids.every((id) => messageEvents().includes(id)), 'bob\'s webhook to get every burst message');
    for (const id of ids) assert.equal(messageEvents().filter((e) => e === id).length, 1, `one message event for ${id} at bob`);
  });
});
