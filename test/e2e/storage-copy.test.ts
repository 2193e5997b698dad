import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serviceUrlOrSkip, startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { PostgresStorage } from '@parley/storage-postgres';
import { createTestDatabase, type TestDatabase } from '@parley/storage-postgres/testing';
import { runParley as parley } from '../support/parley-cli.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const serverUrl = serviceUrlOrSkip('DATABASE_URL', 'parley storage copy from SQLite to PostgreSQL');

const ALICE = '5511930000101';
const BOB = '5511930000102';
const CREDS = JSON.stringify({ noiseKey: { private: { type: 'Buffer', data: 'AAEC' } }, registrationId: 42 });
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

/** What an instance shows over HTTP: its view, chats, every message of every chat (paged by 2) and a media's bytes. */
async function snapshot(t: TestServer, key: string, mediaIds: string[]) {
  const view = (await t.request('GET', `/${key}/instance`)).body.instance;
  const chats = (await t.request('GET', `/${key}/chat`)).body.data as { id: string }[];
  const messages: Record<string, unknown[]> = {};
  for (const chat of chats) {
    messages[chat.id] = [];
    for (let page = 1; ; page++) {
      const res = await t.request('GET', `/${key}/chat/${encodeURIComponent(chat.id)}/messages?page=${page}&limit=2`);
      assert.equal(res.status, 200);
      messages[chat.id]!.push(...res.body.data);
      if (res.body.data.length < 2) break;
    }
  }
  const media: Record<string, string> = {};
  for (const id of mediaIds) media[id] = (await t.request('GET', `/${key}/message/${id}/media?format=binary`)).raw.toString('base64');
  // What a connection changes (and may not have reached yet) is left out.
  const { phoneConnected: _connected, health: _health, connection: _connection, ...settled } = view as Record<string, unknown>;
  // Links name the server's own address, which differs between the two servers.
  return JSON.parse(JSON.stringify({ view: settled, chats, messages, media }).replaceAll(t.url, 'SERVER')) as Record<string, unknown> & { media: Record<string, string> };
}

if (serverUrl) {
  describe('parley storage copy: an instance moves from SQLite to PostgreSQL and goes on working', () => {
    let dir: string;
    let receiver: HttpReceiver;
    let target: TestDatabase;
    let sqliteEntry: string;
    let configFile: string;
    let postgresEntry: string;
    const instances: Record<string, { id: string; key: string }> = {};
    const before_: Record<string, Awaited<ReturnType<typeof snapshot>>> = {};
    let imageId = '';

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'parley-storage-copy-'));
      const dataDir = join(dir, 'data');
      mkdirSync(dataDir, { mode: 0o700 });
      receiver = await startHttpReceiver();
      target = await createTestDatabase(serverUrl, 'copy');
      sqliteEntry = JSON.stringify({ package: '@parley/storage-sqlite', options: { path: join(dataDir, 'parley.db') } });
      configFile = join(dir, 'parley.json');
      writeFileSync(configFile, JSON.stringify({ dataDir: './data', plugins: [{ package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox' }] }));
      postgresEntry = JSON.stringify({ package: '@parley/storage-postgres', options: { url: target.url } });

      const t = await startTestServer({ storage: 'sqlite', dataDir });
      try {
        const webhook = { allowWebhook: true, webhookFormat: 'native' as const, webhookMessage: `${receiver.url}/alice` };
        instances.alice = await t.connectedSandbox({ name: 'alice', number: ALICE, webhook });
        instances.bob = await t.connectedSandbox({ name: 'bob', number: BOB });
        const alice = t.client(instances.alice.key);
        const bob = t.client(instances.bob.key);
        await bob.call('updateInstanceFlags', { query: { saveMedia: true } });
        for (let i = 0; i < 5; i++) await alice.call('sendText', { body: { to: BOB, text: `before the move ${i}` } });
        imageId = (await alice.call('sendBase64Image', { body: { to: BOB, base64: `data:image/png;base64,${PNG.toString('base64')}` } })).data.key.id;
        await bob.call('sendText', { body: { to: ALICE, text: 'a reply' } });
        const { storage } = t.server.context;
        await t.waitFor(() => storage.media.get(instances.bob!.id, imageId), 10_000, 'bob saved the image');
        await t.waitFor(async () => (await storage.deliveries.stats(instances.alice!.id)).totalPending === 0 && receiver.requests.length > 0, 10_000, 'alice\'s webhooks delivered');
        // The sandbox keeps no channel auth state: an entry as a WhatsApp session's creds would be, written as the channel writes it.
        await storage.authState.set(instances.bob.id, [{ category: 'creds', id: 'creds', value: CREDS }]);
        await t.settle();
        before_.alice = await snapshot(t, instances.alice.key, []);
        before_.bob = await snapshot(t, instances.bob.key, [imageId]);
      } finally {
        await t.stop();
      }
    });

    after(async () => {
      await receiver?.close();
      await target?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('refuses bad arguments with a clear error and writes nothing', async () => {
      const missing = await parley(dir, 'storage', 'copy', '--from', join(dir, 'nope.json'), '--to', postgresEntry);
      assert.equal(missing.code, 2, missing.stderr);
      assert.match(missing.stderr, /^parley: cannot read .*nope\.json: ENOENT/m);
      const badEntry = await parley(dir, 'storage', 'copy', '--from', sqliteEntry, '--to', '{"package": 1}');
      assert.equal(badEntry.code, 2, badEntry.stderr);
      assert.match(badEntry.stderr, /parley: the inline JSON is not a plugin entry: expected \{"package": "<name>", "options": \{…\}\}/);
      const same = await parley(dir, 'storage', 'copy', '--from', sqliteEntry, '--to', sqliteEntry);
      assert.equal(same.code, 2, same.stderr);
      assert.match(same.stderr, /--from and --to name the same storage/);
      const unknown = await parley(dir, '--json', 'storage', 'copy', '--from', sqliteEntry, '--to', postgresEntry, '--instance', instances.alice!.id, 'ins_nope');
      assert.equal(unknown.code, 2, unknown.stderr);
      assert.deepEqual(JSON.parse(unknown.stderr.trim().split('\n').at(-1)!), { error: { message: 'no such instance in the source: ins_nope', exitCode: 2 } });
      const noFrom = await parley(dir, 'storage', 'copy', '--to', postgresEntry);
      assert.equal(noFrom.code, 2);
      assert.match(noFrom.stderr, /required option '--from <endpoint>' not specified/);
      const storage = new PostgresStorage({ url: target.url });
      await storage.init();
      try {
        assert.deepEqual(await storage.instances.list(), [], 'nothing was written to the target');
      } finally {
        await storage.close();
      }
    });

    it('copies every instance with progress on stderr and a summary; a re-run converges on the same data', async () => {
      const first = await parley(dir, '--json', 'storage', 'copy', '--from', configFile, '--to', postgresEntry, '--batch', '2');
      assert.equal(first.code, 0, first.stderr);
      assert.doesNotMatch(first.stderr, /presence record/, 'the test server stopped gracefully: no record left to watch');
      assert.match(first.stderr, /copying 2 instance\(s\) from sqlite to postgres/);
      const summary = JSON.parse(first.stdout) as { instances: { id: string; messages: number; media: number; authState: number; chats: number }[] };
      const byId = new Map(summary.instances.map((c) => [c.id, c]));
      assert.ok(byId.get(instances.bob!.id)!.media >= 1, 'the saved image (and the profile pictures the sandbox stores)');
      assert.equal(byId.get(instances.alice!.id)!.messages, 7, 'five texts and an image sent, a reply received');
      assert.equal(byId.get(instances.bob!.id)!.chats, 1);
      const again = await parley(dir, '--json', 'storage', 'copy', '--from', sqliteEntry, '--to', postgresEntry);
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(JSON.parse(again.stdout), summary);
    });

    it('a server on PostgreSQL answers the same keys with the same data, reconnects them, and they send', async () => {
      const t = await startTestServer({
        plugins: [{ package: '@parley/storage-postgres', options: { url: target.url } }, { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }, { package: '@parley/webhook-native' }],
      });
      try {
        for (const name of ['alice', 'bob']) {
          await t.waitFor(async () => (await t.request('GET', `/${instances[name]!.key}/instance`)).body.instance.phoneConnected === true, 15_000, `${name} reconnected`);
        }
        assert.deepEqual(await snapshot(t, instances.alice!.key, []), before_.alice);
        assert.deepEqual(await snapshot(t, instances.bob!.key, [imageId]), before_.bob);
        assert.equal(Buffer.from(before_.bob!.media[imageId]!, 'base64').toString('hex'), PNG.toString('hex'));
        assert.deepEqual(await t.server.context.storage.authState.get(instances.bob!.id, 'creds', ['creds']), { creds: CREDS });
        const delivered = receiver.requests.length;
        const sent = await t.client(instances.alice!.key).call('sendText', { body: { to: BOB, text: 'after the move' } });
        await t.waitFor(async () => (await t.request('GET', `/${instances.bob!.key}/chat/${ALICE}@s.whatsapp.net/messages?limit=1`)).body.data[0]?.key.id === sent.data.key.id,
          10_000, 'bob received the text sent after the move');
        await t.waitFor(() => receiver.requests.length > delivered, 10_000, 'alice\'s webhook still delivered');
      } finally {
        await t.stop();
      }
    });
  });
}
