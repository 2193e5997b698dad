import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { externalDatabases } from '../support/fixtures/memory-external.plugin.js';
import { sealed, secretMarked } from '../support/message-secret.js';

const fixture = fileURLToPath(new URL('../support/fixtures/memory-external.plugin.js', import.meta.url));

describe('POST /{key}/instance/mongodb routes an instance history to its external database', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      plugins: [
        { package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox' }, { package: fixture },
      ],
    });
  });
  after(async () => {
    await t.stop();
  });

  it('writes messages, chats and contacts there from then on, never answers the URI, and survives detach', async () => {
    const alice = await t.connectedSandbox({ name: 'alice', number: '5511910000001' });
    const bob = await t.connectedSandbox({ name: 'bob', number: '5511910000002' });
    const before = await t.request('POST', `/${alice.key}/message/text`, { to: '5511910000002', text: 'before attaching' });
    assert.equal(before.status, 200);
    await t.settle();

    const attached = await t.request('POST', `/${bob.key}/instance/mongodb`, { uri: 'mongodb://user:secret@db.example:27017', dbName: 'bobdb' });
    assert.deepEqual(attached.body, { status: 200, data: { dbName: 'bobdb', connected: true } });
    const view = await t.request('GET', `/${bob.key}/instance`);
    assert.ok(!JSON.stringify(view.body).includes('secret'), 'the URI never appears in answers');

    const sent = await t.request('POST', `/${alice.key}/message/text`, { to: '5511910000002', text: 'after attaching' });
    await t.settle();
    const external = externalDatabases.get('bobdb')!;
    const stored = await external.messages.get(bob.id, sent.body.data.key.id);
    assert.deepEqual(secretMarked(stored?.message), sealed({ extendedTextMessage: { text: 'after attaching' } }));
    assert.equal((await external.chats.get(bob.id, '5511910000001@s.whatsapp.net'))?.id, '5511910000001@s.whatsapp.net');
    assert.equal((await external.contacts.get(bob.id, '5511910000001@s.whatsapp.net'))?.notify, 'alice');
    const page = await t.request('GET', `/${bob.key}/chat/5511910000001/messages`);
    assert.deepEqual(page.body.data.map((m: { message: unknown }) => secretMarked(m.message)), [sealed({ extendedTextMessage: { text: 'after attaching' } })],
      'reads come from the external database: the earlier message stayed in the main storage');
    // Alice's history is untouched by bob's attachment.
    assert.equal((await t.request('GET', `/${alice.key}/chat/5511910000002/messages`)).body.total, 2);

    const detached = await t.request('DELETE', `/${bob.key}/instance/mongodb`);
    assert.deepEqual(detached.body, { status: 200, message: 'External database detached' });
    assert.equal((await t.request('GET', `/${bob.key}/chat/5511910000001/messages`)).body.total, 1);
  });

  it('refuses bad input and failed connections without changing anything', async () => {
    const carol = await t.connectedSandbox({ name: 'carol', number: '5511910000003' });
    const wrongScheme = await t.request('POST', `/${carol.key}/instance/mongodb`, { uri: 'postgres://x@y/z', dbName: 'x' });
    assert.equal(wrongScheme.status, 400);
    assert.match(wrongScheme.body.error.message, /body\.uri/);
    const missing = await t.request('POST', `/${carol.key}/instance/mongodb`, { uri: 'mongodb://h:1' });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.message, 'body.dbName is required');
    const unreachable = await t.request('POST', `/${carol.key}/instance/mongodb`, { uri: 'mongodb://unreachable:1', dbName: 'c' });
    assert.equal(unreachable.status, 400);
    assert.equal(externalDatabases.has('c'), false);
    const record = await t.admin('GET', `/admin/instances/${carol.id}`);
    assert.equal(record.body.data.mongodb, undefined);
  });
});

describe('POST /{key}/instance/mongodb with the real MongoDB connector', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      plugins: [
        { package: '@parley/storage-memory' }, { package: '@parley/channel-sandbox' },
        { package: '@parley/storage-mongodb/external', options: { timeoutMs: 500 } },
      ],
    });
  });
  after(async () => {
    await t.stop();
  });

  it('answers 502 with the password redacted when the database cannot be reached', async () => {
    const dave = await t.connectedSandbox({ number: '5511910000004' });
    const res = await t.request('POST', `/${dave.key}/instance/mongodb`, { uri: 'mongodb://admin:hunter2@127.0.0.1:1/?serverSelectionTimeoutMS=300', dbName: 'parley' });
    assert.equal(res.status, 502);
    assert.equal(res.body.error.code, 'upstream_error');
    assert.ok(!JSON.stringify(res.body).includes('hunter2'));
    assert.equal((await t.request('GET', `/${dave.key}/chat`)).status, 200, 'the instance keeps working on the main storage');
  });

  it('answers 422 when no connector is configured', async () => {
    const t2 = await startTestServer({ plugins: [{ package: '@parley/storage-memory' }, { package: '@parley/channel-sandbox' }] });
    try {
      const erin = await t2.connectedSandbox({ number: '5511910000005' });
      const res = await t2.request('POST', `/${erin.key}/instance/mongodb`, { uri: 'mongodb://h:1', dbName: 'x' });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.code, 'capability_not_supported');
    } finally {
      await t2.stop();
    }
  });
});

describe('an attached external database after a restart', () => {
  it('is reconnected through the connector of its kind, also from a record written before connectors had kinds', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-external-restart-'));
    const plugins = [{ package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox' }, { package: fixture }];
    const peer = '5511910000099@s.whatsapp.net';
    const stored = (id: string, text: string) => ({
      key: { remoteJid: peer, fromMe: false, id }, message: { conversation: text }, messageTimestamp: '1760000000', status: 'DELIVERY_ACK' as const,
    });
    const chatTexts = async (t: TestServer, key: string) =>
      (await t.request('GET', `/${key}/chat/5511910000099/messages`)).body.data.map((m: { message: { conversation: string } }) => m.message.conversation);
    try {
      let frank: { id: string; key: string };
      const first = await startTestServer({ dataDir, plugins });
      try {
        frank = await first.createInstance({ name: 'frank', number: '5511910000006' });
        const attached = await first.request('POST', `/${frank.key}/instance/mongodb`, { uri: 'mongodb://restart.example:27017', dbName: 'frankdb' });
        assert.equal(attached.status, 200);
        const record = await first.server.context.storage.instances.get(frank.id);
        assert.deepEqual(record?.externalDatabase, { kind: 'mongodb', uri: 'mongodb://restart.example:27017', dbName: 'frankdb' });
      } finally {
        await first.stop();
      }
      await externalDatabases.get('frankdb')!.messages.upsert(frank.id, stored('ext-1', 'kept outside'));

      const second = await startTestServer({ dataDir, plugins });
      try {
        await second.server.restored();
        assert.deepEqual(await chatTexts(second, frank.key), ['kept outside'], 'reads go to the reconnected external database');
        // As an older server wrote it: the database under `mongodb`, no kind.
        await second.server.context.storage.instances.update(frank.id, {
          externalDatabase: undefined, mongodb: { uri: 'mongodb://restart.example:27017', dbName: 'frankdb' },
        } as never);
      } finally {
        await second.stop();
      }

      const third = await startTestServer({ dataDir, plugins });
      try {
        await third.server.restored();
        assert.deepEqual(await chatTexts(third, frank.key), ['kept outside']);
        const record = await third.server.context.storage.instances.get(frank.id) as Record<string, unknown> | null;
        assert.deepEqual([record?.externalDatabase, record?.mongodb], [{ kind: 'mongodb', uri: 'mongodb://restart.example:27017', dbName: 'frankdb' }, undefined]);
      } finally {
        await third.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
