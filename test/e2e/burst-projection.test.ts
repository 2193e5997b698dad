import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serviceUrlOrSkip } from '@parley/testkit';
import { deleteKeys } from '@parley/storage-redis/testing';
import { startTestServer, type TestServer } from '../support/test-server.js';

const ALICE = '5511977000001';
const BOB = '5511977000002';
const SENDS = 150;
const redisUrl = serviceUrlOrSkip('REDIS_URL', 'a burst of sends on Redis storage');

/**
 * A burst of concurrent sends between two sandbox phones: the events of each instance queue up and
 * the store projector takes them in runs (messages, then statuses, together). What is stored must be
 * what one-at-a-time projection stores: each message once with its final status, the receiver's
 * chat counting every message as unread, the contact named.
 */
for (const storage of ['memory', 'redis'] as const) {
  if (storage === 'redis' && !redisUrl) continue;
  describe(`a burst of ${SENDS} concurrent sends (${storage} storage)`, () => {
    const prefix = `parley-e2e-burst-${process.pid}-${Date.now()}:`;
    let t: TestServer;
    let alice: { key: string };
    let bob: { key: string };
    const ids: string[] = [];

    before(async () => {
      t = await startTestServer(storage === 'redis'
        ? { plugins: [{ package: '@parley/storage-redis', options: { url: redisUrl, keyPrefix: prefix } }, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }] }
        : { storage });
      alice = await t.connectedSandbox({ name: 'alice', number: ALICE });
      bob = await t.connectedSandbox({ name: 'bob', number: BOB });
      ids.push(...await Promise.all(Array.from({ length: SENDS }, async (_, i) => {
        const res = await t.request('POST', `/${alice.key}/message/text`, { to: BOB, text: `burst ${i}` });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.data.key.id as string;
      })));
    });
    after(async () => {
      await t?.stop();
      if (storage === 'redis') await deleteKeys(redisUrl!, prefix);
    });

    async function all(key: string, peer: string): Promise<any[]> {
      const out: any[] = [];
      for (let page = 1; ; page++) {
        const res = await t.request('GET', `/${key}/chat/${peer}/messages?page=${page}&limit=100`);
        out.push(...res.body.data);
        if (!res.body.data.length || out.length >= res.body.total) return out;
      }
    }

    it('every send reaches DELIVERY_ACK at the sender, stored once', async () => {
      await t.waitFor(async () => {
        const statuses = new Map((await all(alice.key, BOB)).map((m) => [m.key.id, m.status]));
        return ids.every((id) => statuses.get(id) === 'DELIVERY_ACK');
      }, 15_000, 'every send at DELIVERY_ACK');
      const atAlice = (await all(alice.key, BOB)).map((m) => m.key.id);
      assert.equal(atAlice.length, SENDS);
      assert.deepEqual(new Set(atAlice), new Set(ids));
    });

    it('the receiver stored each message once, counts all of them unread, and names the sender', async () => {
      await t.waitFor(async () => (await all(bob.key, ALICE)).length === SENDS, 15_000, 'every message at bob');
      await t.settle();
      const atBob = (await all(bob.key, ALICE)).map((m) => m.key.id);
      assert.deepEqual(new Set(atBob), new Set(ids));
      const chats = (await t.request('GET', `/${bob.key}/chat`)).body.data as { id: string; unreadCount: number; name?: string }[];
      const chat = chats.find((c) => c.id === `${ALICE}@s.whatsapp.net`);
      assert.equal(chat?.unreadCount, SENDS);
      const aliceChat = ((await t.request('GET', `/${alice.key}/chat`)).body.data as { id: string; unreadCount: number }[]).find((c) => c.id === `${BOB}@s.whatsapp.net`);
      assert.equal(aliceChat?.unreadCount, 0, 'own sends are not unread');
      const contacts = (await t.request('GET', `/${bob.key}/contacts`)).body.data as { id: string; notify?: string }[];
      assert.equal(contacts.find((c) => c.id === `${ALICE}@s.whatsapp.net`)?.notify, 'alice');
    });
  });
}
