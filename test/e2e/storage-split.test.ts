import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { splitStores } from '../support/fixtures/split-storage.plugins.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const fixture = (name: string) => ({ package: fileURLToPath(new URL(`../support/fixtures/${name}.plugin.js`, import.meta.url)) });
const ALICE = '5511940000001';
const BOB = '5511940000002';

// Two plugins each provide one half of the storage: storage-memory's record store and storage-sqlite's
// outbox. Records must land in memory only, deliveries, events and idempotency keys in SQLite only.
describe('storage from two plugins: memory records, sqlite outbox', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-split-'));
  let t: TestServer;
  let receiver: HttpReceiver;
  before(async () => {
    receiver = await startHttpReceiver();
    t = await startTestServer({
      dataDir,
      plugins: [
        fixture('memory-records'), fixture('sqlite-outbox'),
        { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }, { package: '@parley/webhook-native' },
      ],
    });
  });
  after(async () => {
    await t?.stop();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is ready on both halves and names both in /readyz', async () => {
    const ready = await t.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.data.storage, 'memory+sqlite');
  });

  it('sends, receives, delivers the webhook and answers an idempotent retry, each write in its half', async () => {
    const records = splitStores.records!;
    const outbox = splitStores.outbox!;
    const alice = await t.connectedSandbox({ name: 'alice', number: ALICE });
    const bob = await t.connectedSandbox({ name: 'bob', number: BOB, webhook: { allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiver.url}/hook` } });

    const send = () => t.request('POST', `/${alice.key}/message/text`, { to: BOB, text: 'split halves' }, { 'idempotency-key': 'split-1' });
    const sent = await send();
    assert.equal(sent.status, 200);
    const id = sent.body.data.key.id as string;

    // The inbound message reaches bob's history and his webhook.
    const inbox = await t.waitFor(async () => {
      const page = await t.request('GET', `/${bob.key}/chat/${ALICE}/messages`);
      return page.body.total === 1 ? page.body : undefined;
    }, 5000, 'bob to receive the message');
    assert.equal(inbox.data[0].key.id, id);
    // Bob's other events (his connection's) may come first: the message's own webhook is waited for.
    await t.waitFor(() => receiver.requests.map((r) => r.json as { type: string; data: { message?: { id: string } } })
      .some((e) => e.type === 'message' && e.data.message?.id === id), 5000, 'the webhook of the received message');

    // The retry with the same key answers the first answer and sends nothing more.
    const retried = await send();
    assert.equal(retried.status, 200);
    assert.deepEqual(retried.body, sent.body);
    await t.settle();
    assert.equal((await t.request('GET', `/${alice.key}/chat/${BOB}/messages`)).body.total, 1);

    // Records went to the memory back end only.
    assert.equal((await records.messages.get(bob.id, id))?.key.id, id);
    assert.ok(await records.instances.get(alice.id));
    assert.equal(await outbox.instances.get(alice.id), null);
    assert.equal(await outbox.messages.get(bob.id, id), null);
    // Events, deliveries and idempotency keys went to SQLite only.
    const logged = await outbox.events.read({ instance: bob.id, limit: 1000 });
    assert.ok(logged.some((e) => e.type === 'message'), 'bob\'s message event is in the SQLite event log');
    assert.deepEqual(await records.events.read({ instance: bob.id, limit: 1000 }), []);
    await t.waitFor(async () => (await outbox.deliveries.stats(bob.id)).totalSent >= 1, 5000, 'the delivery to be acknowledged in SQLite');
    assert.equal((await records.deliveries.stats(bob.id)).totalSent, 0);
    const now = Date.now();
    assert.equal((await outbox.idempotency.get(alice.id, 'split-1', now))?.state, 'done');
    assert.equal(await records.idempotency.get(alice.id, 'split-1', now), null);
  });
});
