import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { PluginEntry } from '@parley/server';
import { deleteKeys } from '@parley/storage-redis/testing';
import { FakeClock, serviceUrlOrSkip } from '@parley/testkit';
import { startTestServer, type TestServer } from '../support/test-server.js';

const DAY = 24 * 60 * 60 * 1000;
const SANDBOX: PluginEntry[] = [{ package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }, { package: '@parley/webhook-native' }];

/** A storage back end the server runs on in these tests; the same data each time it is started. */
interface Variant {
  name: string;
  storage(): PluginEntry;
  cleanup(): Promise<void>;
}

function sqliteVariant(): Variant {
  return { name: 'sqlite', storage: () => ({ package: '@parley/storage-sqlite' }), cleanup: async () => undefined };
}

function redisVariant(url: string): Variant {
  const keyPrefix = `parley-idem-${process.pid}-${Date.now()}:`;
  return { name: 'redis', storage: () => ({ package: '@parley/storage-redis', options: { url, keyPrefix } }), cleanup: () => deleteKeys(url, keyPrefix) };
}

const redisUrl = serviceUrlOrSkip('REDIS_URL', 'Idempotency-Key on Redis storage');
const variants = [sqliteVariant(), ...(redisUrl ? [redisVariant(redisUrl)] : [])];

for (const variant of variants) {
  describe(`Idempotency-Key on ${variant.name} storage`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-idem-'));
    const clock = new FakeClock(Date.UTC(2026, 0, 5, 12));
    const start = () => startTestServer({ plugins: [variant.storage(), ...SANDBOX], dataDir, clock });
    let t: TestServer;
    let alice: { id: string; key: string };
    let bob: { id: string; key: string };
    const BOB = '5511930000002';

    after(async () => {
      await t?.stop();
      await variant.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const sendText = (key: string, body: unknown, idempotencyKey?: string) =>
      t.request('POST', `/${key}/message/text`, body, idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey });
    /** How many messages alice's history holds in her chat with bob. */
    const sentToBob = async () => (await t.server.context.storage.messages.listByChat(alice.id, `${BOB}@s.whatsapp.net`, { page: 1, limit: 1000 })).total;

    it('50 concurrent requests with one key: one message, 50 identical answers', async () => {
      t = await start();
      alice = await t.connectedSandbox({ name: 'alice', number: '5511930000001' });
      bob = await t.connectedSandbox({ name: 'bob', number: BOB });
      const body = { to: BOB, text: 'exactly once' };
      const answers = await Promise.all(Array.from({ length: 50 }, () => sendText(alice.key, body, 'order-1001')));
      const first = answers[0]!;
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.data.status, 'PENDING');
      for (const answer of answers) {
        assert.equal(answer.status, 200);
        assert.equal(answer.raw.toString('utf8'), first.raw.toString('utf8'));
      }
      // One ran; the 49 others are replays of its answer.
      assert.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length, 49);
      await t.waitFor(() => t.events.some((e) => e.type === 'message' && e.instance === bob.id && e.message.id === first.body.data.key.id), 5000, 'bob to get it');
      await t.settle();
      assert.equal(t.events.filter((e) => e.type === 'message' && e.instance === bob.id).length, 1);
      assert.equal(await sentToBob(), 1);
    });

    it('the same key with a different body answers 422 and sends nothing', async () => {
      const res = await sendText(alice.key, { to: BOB, text: 'something else' }, 'order-1001');
      assert.equal(res.status, 422);
      assert.equal(res.body.error.code, 'idempotency_key_reused');
      // Member order is not a difference.
      const same = await sendText(alice.key, { text: 'exactly once', to: BOB }, 'order-1001');
      assert.equal(same.status, 200);
      assert.equal(same.headers.get('idempotent-replayed'), 'true');
      // Another route with the key is another request too.
      const other = await t.request('POST', `/${alice.key}/message/location`, { to: BOB, location: { latitude: 1, longitude: 2 } }, { 'idempotency-key': 'order-1001' });
      assert.equal(other.status, 422);
      await t.settle();
      assert.equal(await sentToBob(), 1);
    });

    it('keys are per instance: the same key on another instance is a new request', async () => {
      const a = await sendText(alice.key, { to: BOB, text: 'per instance' }, 'shared-key');
      const b = await sendText(bob.key, { to: '5511930000001', text: 'per instance' }, 'shared-key');
      assert.equal(a.status, 200);
      assert.equal(b.status, 200);
      assert.equal(b.headers.get('idempotent-replayed'), null);
      assert.notEqual(a.body.data.key.id, b.body.data.key.id);
    });

    it('an error answer is not kept: once the cause is fixed the same key and body go through; schema failures take no key', async () => {
      const dave = await t.createInstance({ channel: 'sandbox', name: 'dave', number: '5511930000004' });
      const body = { to: BOB, text: 'sent once connected' };
      const refused = await sendText(dave.key, body, 'dave-1');
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'not_connected');
      await t.client(dave.key).call('connectInstance');
      await t.client(dave.key).call('sandbox_post_key_scan');
      await t.settle();
      const sent = await sendText(dave.key, body, 'dave-1');
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      assert.equal(sent.headers.get('idempotent-replayed'), null);
      assert.equal((await sendText(dave.key, body, 'dave-1')).headers.get('idempotent-replayed'), 'true');
      // A body failing its schema is refused before the key is taken: the key stays free.
      assert.equal((await sendText(alice.key, { to: BOB }, 'fresh-key')).status, 400);
      const ok = await sendText(alice.key, { to: BOB, text: 'now valid' }, 'fresh-key');
      assert.equal(ok.status, 200);
      assert.equal(ok.headers.get('idempotent-replayed'), null);
    });

    it('a malformed or over-long key answers 400 naming the header, and nothing is sent', async () => {
      const before = await sentToBob();
      for (const key of ['k'.repeat(256), 'has space', '']) {
        const res = await sendText(alice.key, { to: BOB, text: 'bad key' }, key);
        assert.equal(res.status, 400, key);
        assert.match(res.body.error.message, /header\.Idempotency-Key/);
        assert.equal(res.body.error.details.fields[0].field, 'header.Idempotency-Key');
      }
      assert.equal((await sendText(alice.key, { to: BOB, text: 'max key' }, 'k'.repeat(255))).status, 200);
      await t.settle();
      assert.equal(await sentToBob(), before + 1);
    });

    it('admin creations: the same key creates one instance; the typed client sends the key', async () => {
      const body = { channel: 'sandbox' as const, name: 'once' };
      const first = await t.client().call('adminCreateInstance', { body, idempotencyKey: 'create-once' });
      const second = await t.client().call('adminCreateInstance', { body, idempotencyKey: 'create-once' });
      assert.deepEqual(second, first);
      const listed = await t.client().call('adminListInstances', { query: { limit: 100 } });
      assert.equal(listed.data.filter((i) => i.name === 'once').length, 1);
      assert.throws(() => t.client(alice.key).call('getQrCode' as never, { idempotencyKey: 'x' } as never), TypeError);
    });

    it('after a restart the key still answers the first answer', async () => {
      const first = await sendText(alice.key, { to: BOB, text: 'across a restart' }, 'restart-1');
      assert.equal(first.status, 200);
      await t.settle();
      const count = await sentToBob();
      await t.stop();
      t = await start();
      const again = await sendText(alice.key, { to: BOB, text: 'across a restart' }, 'restart-1');
      assert.equal(again.status, 200);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.raw.toString('utf8'), first.raw.toString('utf8'));
      assert.equal(await sentToBob(), count);
    });

    it('a key expires 24 h after its answer (by the server clock): then it runs again', async () => {
      const first = await sendText(alice.key, { to: BOB, text: 'daily' }, 'daily-1');
      assert.equal(first.status, 200);
      clock.advance(DAY - 1000);
      const replay = await sendText(alice.key, { to: BOB, text: 'daily' }, 'daily-1');
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.body.data.key.id, first.body.data.key.id);
      clock.advance(1000);
      const fresh = await sendText(alice.key, { to: BOB, text: 'daily' }, 'daily-1');
      assert.equal(fresh.status, 200);
      assert.equal(fresh.headers.get('idempotent-replayed'), null);
      assert.notEqual(fresh.body.data.key.id, first.body.data.key.id);
    });
  });
}
