import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filledInstanceRecord, newDelivery } from '@parley/testkit';
import { MemoryStorage } from '@parley/storage-memory';
import { StorageCopyError } from '../src/index.js';
import { SERVER_PRESENCE_NAMESPACE } from '../src/presence/presence-record.js';
import { copy, filledSource } from './storage-copy-support.js';

describe('copyStorage (parley storage copy) between real memory stores', () => {
  it('copies an instance with everything it owns, and a re-run converges on the same data', async () => {
    const { source, record } = await filledSource();
    const target = new MemoryStorage();
    const first = await copy(source, target);
    assert.equal(first.error, undefined);
    assert.deepEqual(first.summary!.instances, [{ id: record.id, name: record.name, messages: 3, chats: 1, contacts: 1, media: 1, authState: 2, events: 1 }]);
    assert.deepEqual(first.summary!.state, { namespaces: 2, documents: 2 });
    assert.deepEqual(await target.instances.findByKey(record.key), record);
    assert.deepEqual(await target.instances.claimsOf(record.id), [{ namespace: 'instance-name', value: 'support line' }]);
    assert.deepEqual((await target.messages.listByChat(record.id, '5511@s.whatsapp.net', { page: 1, limit: 10 })).items.map((m) => m.key.id), ['C3', 'A1', 'B2'],
      'equal timestamps keep their insertion order');
    assert.deepEqual(await target.media.get(record.id, 'A1'), await source.media.get(record.id, 'A1'));
    assert.deepEqual(await target.authState.get(record.id, 'session', ['5511.0']), { '5511.0': 's' });
    assert.deepEqual(await target.state.get(`${record.id}:sandbox`, 'device'), { paired: true });
    assert.equal(await target.state.get('sandbox:numbers', '5511999990000'), record.id, 'the server-wide state of a whole copy');
    assert.equal((await target.events.read({ instance: record.id, limit: 10 })).length, 1);
    assert.equal(await target.outbound.isPaused(record.id), true);
    assert.equal((await target.state.get<{ instanceId: string }>('parley.linked-accounts:instagram', '17841400000000000'))?.instanceId, record.id,
      'its linked account is indexed for inbound webhooks');
    await target.instances.update(record.id, { name: 'renamed on the target', proxy: 'http://127.0.0.1:1' });
    await source.instances.update(record.id, { proxy: undefined });
    const again = await copy(source, target);
    assert.deepEqual(again.summary, first.summary);
    assert.deepEqual(await target.instances.get(record.id), await source.instances.get(record.id), 'a re-run makes the record the source\'s again');
    assert.equal((await target.messages.listByChat(record.id, '5511@s.whatsapp.net', { page: 1, limit: 10 })).total, 3);
  });

  it('reads chats, contacts, media and state documents in pages of the batch, never a list of them whole', async () => {
    const { source, record } = await filledSource();
    for (let i = 0; i < 4; i++) {
      await source.chats.upsert(record.id, { id: `55110${i}@s.whatsapp.net`, name: `chat ${i}` });
      await source.contacts.upsert(record.id, { id: `55110${i}@s.whatsapp.net`, name: `contact ${i}` });
      await source.media.put(record.id, `M${i}`, { data: Buffer.from(`bytes ${i}`), mimetype: 'text/plain' });
      await source.state.put(`${record.id}:labels`, `label${i}`, { i });
    }
    const limits: string[] = [];
    for (const [name, repository] of [['chats', source.chats], ['contacts', source.contacts], ['state', source.state]] as const) {
      const scan = repository.scan!.bind(repository) as (key: string, request: { limit: number; after?: string }) => Promise<{ items: unknown[] }>;
      Object.assign(repository, {
        // The servers' presence records are read whole: one per running server.
        list: (key: string) => (key === SERVER_PRESENCE_NAMESPACE ? Promise.resolve([]) : assert.fail(`${name}.list reads a whole ${name === 'state' ? 'namespace' : 'instance'}`)),
        scan: async (key: string, request: { limit: number; after?: string }) => {
          limits.push(`${name} ${request.limit}`);
          return scan(key, request);
        },
      });
    }
    const target = new MemoryStorage();
    const { summary, error } = await copy(source, target);
    assert.equal(error, undefined);
    assert.deepEqual(summary!.instances.map(({ chats, contacts, media }) => ({ chats, contacts, media })), [{ chats: 5, contacts: 5, media: 5 }]);
    assert.deepEqual(summary!.state, { namespaces: 3, documents: 6 });
    assert.ok(limits.length >= 3 * 2 + 3 && limits.every((limit) => limit.endsWith(' 2')), limits.join(', '));
    assert.deepEqual((await target.chats.list(record.id)).map((chat) => chat.name).sort(), ['Bob', 'chat 0', 'chat 1', 'chat 2', 'chat 3']);
    assert.equal((await target.contacts.get(record.id, '551103@s.whatsapp.net'))?.name, 'contact 3');
    assert.equal((await target.media.get(record.id, 'M3'))?.data.toString(), 'bytes 3');
    assert.deepEqual(await target.state.get(`${record.id}:labels`, 'label3'), { i: 3 });
  });

  it('with --instance, copies only that instance and its own state', async () => {
    const { source, record } = await filledSource();
    const other = filledInstanceRecord();
    await source.instances.create(other);
    const target = new MemoryStorage();
    const { summary } = await copy(source, target, { instances: [record.id] });
    assert.deepEqual(summary!.instances.map((c) => c.id), [record.id]);
    assert.equal(await target.instances.get(other.id), null);
    assert.equal(await target.state.get('sandbox:numbers', '5511999990000'), null);
    assert.deepEqual(await target.state.get(`${record.id}:sandbox`, 'device'), { paired: true });
  });

  it('refuses queued sends and pending webhook deliveries before opening the target', async () => {
    const { source, record } = await filledSource();
    await source.outbound.enqueue({ id: 'out1', instance: record.id, lane: 'bob', dueAt: 1, createdAt: 1, payload: '{}' }, 10);
    await source.deliveries.enqueue([newDelivery(record.id, 'http://127.0.0.1:9/hook', 1)]);
    const refused = await copy(source, new MemoryStorage());
    assert.ok(refused.error instanceof StorageCopyError && refused.error.reason === 'refused');
    assert.match(refused.error.message, new RegExp(`${record.id} has 1 queued send\\(s\\) in the source`));
    assert.match(refused.error.message, /1 webhook delivery\(ies\) pending in the source/);
    assert.equal(refused.opened, 0);
  });

  it('refuses an unknown instance, an empty source and a source that cannot list its data, writing nothing', async () => {
    const { source } = await filledSource();
    const target = new MemoryStorage();
    const unknown = await copy(source, target, { instances: ['ins_nope'] });
    assert.ok(unknown.error instanceof StorageCopyError && unknown.error.reason === 'usage');
    assert.equal(unknown.error.message, 'no such instance in the source: ins_nope');
    const empty = await copy(new MemoryStorage(), target);
    assert.match((empty.error as Error).message, /holds no instance/);
    const blind = Object.assign(new MemoryStorage(), { authState: { get: async () => ({}), set: async () => {}, clear: async () => {} } });
    const lacking = await copy(blind, target);
    assert.match((lacking.error as Error).message, /cannot list its data: it lacks authState\.scan/);
    assert.deepEqual([unknown.opened, empty.opened, lacking.opened], [0, 0, 0]);
  });

  it('refuses a target instance with the same key or claim, writing nothing', async () => {
    const { source, record } = await filledSource();
    const sameKey = new MemoryStorage();
    await sameKey.instances.create(filledInstanceRecord({ key: record.key }));
    const byKey = await copy(source, sameKey);
    assert.match((byKey.error as Error).message, new RegExp(`${record.id}: the target's instance ins_\\w+ has the same key`));
    const sameName = new MemoryStorage();
    const holder = filledInstanceRecord();
    await sameName.instances.create(holder, [{ namespace: 'instance-name', value: 'support line' }]);
    const byClaim = await copy(source, sameName);
    assert.match((byClaim.error as Error).message, new RegExp(`instance-name support line is held by the target's instance ${holder.id}`));
    assert.deepEqual((await sameName.instances.list()).map((r) => r.id), [holder.id]);
    assert.equal(await sameName.messages.get(record.id, 'A1'), null);
  });
});
