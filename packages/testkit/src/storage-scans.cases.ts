import assert from 'node:assert/strict';
import { scanAll } from './scan-all.js';
import { describe, it } from './test-runner.js';
import { filledInstanceRecord, messageRecord, uniqueId } from './storage-fixtures.js';
import { withStorage, type RecordStoreHarness } from './storage-harness.js';

/** Code-unit order, as every back end's scans order ids. */
const sorted = (values: string[]) => [...values].sort();

/**
 * The enumerations `parley storage copy` reads an instance with: claims, every message, chats,
 * contacts, media ids, auth state entries, state namespaces and their documents, each in keyset pages that list every item exactly once,
 * in order, and nothing of another instance.
 */
export function describeScanCases(harness: RecordStoreHarness): void {
  describe('enumerations (storage copy)', () => {
    it('claimsOf lists the claims an instance holds, sorted, and none once it is deleted', () => withStorage(harness, async ({ instances }) => {
      assert.ok(instances.claimsOf, 'instances.claimsOf is implemented');
      const record = filledInstanceRecord();
      const claims = [{ namespace: uniqueId('sandbox:number'), value: '5511' }, { namespace: uniqueId('instance-name'), value: 'b' }];
      await instances.create(record, claims);
      const extra = { namespace: claims[1]!.namespace, value: 'a' };
      await instances.claim(record.id, [extra]);
      const expected = [...claims, extra].sort((x, y) => (x.namespace + '\0' + x.value < y.namespace + '\0' + y.value ? -1 : 1));
      assert.deepEqual(await instances.claimsOf(record.id), expected);
      await instances.delete(record.id);
      assert.deepEqual(await instances.claimsOf(record.id), []);
      assert.deepEqual(await instances.claimsOf(uniqueId('ins')), []);
    }));

    it('messages.scan pages through every chat of one instance, chat after chat, each oldest first as listByChat orders it', () => withStorage(harness, async ({ messages }) => {
      assert.ok(messages.scan, 'messages.scan is implemented');
      const instance = uniqueId('ins');
      const chats = ['a@s.whatsapp.net', 'b@g.us', 'c@s.whatsapp.net'];
      // Ids against insertion order, timestamps shared within a chat: only the insertion order tells ties apart.
      for (let i = 0; i < 10; i++) await messages.upsert(instance, messageRecord(chats[i % 3]!, `M${String(99 - i).padStart(3, '0')}`, 1_700_000_000 + (i % 2)));
      await messages.upsert(uniqueId('other'), messageRecord('a@s.whatsapp.net', 'M000', 1));
      const expected = new Map<string, string[]>();
      for (const chat of chats) expected.set(chat, (await messages.listByChat(instance, chat, { page: 1, limit: 100 })).items.map((m) => m.key.id).reverse());
      for (const limit of [1, 3, 10, 100]) {
        const read = await scanAll((request) => messages.scan!(instance, request), limit);
        const order = read.map((record) => record.key.remoteJid).filter((chat, i, all) => all[i - 1] !== chat);
        assert.deepEqual(sorted(order), chats, `each chat in one run (pages of ${limit})`);
        for (const chat of chats) {
          assert.deepEqual(read.filter((m) => m.key.remoteJid === chat).map((m) => m.key.id), expected.get(chat), `${chat}, pages of ${limit}`);
        }
      }
      const all = await scanAll((request) => messages.scan!(instance, request), 4);
      for (const record of all) assert.deepEqual(record, await messages.get(instance, record.key.id));
      await messages.clear(instance);
      assert.deepEqual((await messages.scan(instance, { limit: 5 })).items, []);
    }));

    it('messages.scan goes on from a position whose message was deleted, timestamps shared or not', () => withStorage(harness, async ({ messages }) => {
      const instance = uniqueId('ins');
      const ids = Array.from({ length: 9 }, (_, i) => `X${i}`);
      for (const [i, id] of ids.entries()) await messages.upsert(instance, messageRecord('a@s.whatsapp.net', id, 1_700_000_000 + (i % 3)));
      const first = await messages.scan!(instance, { limit: 4 });
      assert.ok(first.next !== undefined);
      const seen = first.items.map((record) => record.key.id);
      await messages.delete(instance, [seen.at(-1)!]);
      const rest = await scanAll((request) => messages.scan!(instance, { ...request, after: request.after ?? first.next! }), 2);
      assert.deepEqual(sorted([...seen.slice(0, -1), ...rest.map((record) => record.key.id)]), sorted(ids.filter((id) => id !== seen.at(-1))));
    }));

    it('media.scanIds pages through the ids of an instance\'s blobs', () => withStorage(harness, async ({ media }) => {
      assert.ok(media.scanIds, 'media.scanIds is implemented');
      const instance = uniqueId('ins');
      const ids = ['up_b', 'ABC', 'msg1', 'msg10', 'msg2'];
      for (const id of ids) await media.put(instance, id, { data: Buffer.from(id), mimetype: 'text/plain' });
      await media.put(uniqueId('other'), 'msg3', { data: Buffer.from('x'), mimetype: 'text/plain' });
      for (const limit of [1, 2, 5, 50]) {
        assert.deepEqual(await scanAll((request) => media.scanIds!(instance, request), limit), sorted(ids), `pages of ${limit}`);
      }
      await media.delete(instance, 'msg10');
      assert.deepEqual(await scanAll((request) => media.scanIds!(instance, request), 2), sorted(ids.filter((id) => id !== 'msg10')));
    }));

    it('authState.scan pages through every entry by category then id', () => withStorage(harness, async ({ authState }) => {
      assert.ok(authState.scan, 'authState.scan is implemented');
      const instance = uniqueId('ins');
      const entries = [
        { category: 'creds', id: 'creds', value: '{"me":1}' },
        { category: 'pre-key', id: '10', value: 'ten' },
        { category: 'pre-key', id: '2', value: 'two' },
        { category: 'pre', id: 'key', value: 'prefix of a category' },
        { category: 'session', id: '5511:1.0', value: 'session' },
      ];
      await authState.set(instance, entries);
      await authState.set(uniqueId('other'), [{ category: 'creds', id: 'creds', value: 'other' }]);
      const expected = [...entries].sort((a, b) => (a.category === b.category ? (a.id < b.id ? -1 : 1) : a.category < b.category ? -1 : 1));
      for (const limit of [1, 2, 5, 10]) assert.deepEqual(await scanAll((request) => authState.scan!(instance, request), limit), expected, `pages of ${limit}`);
      await authState.set(instance, [{ category: 'pre-key', id: '10', value: null }]);
      assert.deepEqual(await scanAll((request) => authState.scan!(instance, request), 2), expected.filter((e) => e.id !== '10'));
      await authState.clear(instance);
      assert.deepEqual((await authState.scan(instance, { limit: 3 })).items, []);
    }));

    it('chats.scan and contacts.scan page through an instance\'s chats and contacts by id, whole, and nothing of another instance', () => withStorage(harness, async ({ chats, contacts }) => {
      assert.ok(chats.scan, 'chats.scan is implemented');
      assert.ok(contacts.scan, 'contacts.scan is implemented');
      const instance = uniqueId('ins');
      // Activity against id order: a scan orders by id, not as list does.
      const ids = ['5511999990003@s.whatsapp.net', '120363000000000001@g.us', '5511999990001@s.whatsapp.net', '123@lid', '5511999990002@s.whatsapp.net'];
      for (const [i, id] of ids.entries()) {
        await chats.upsert(instance, { id, name: `chat ${i}`, timestamp: 1_700_000_000 + i, unreadCount: i });
        await contacts.upsert(instance, { id, name: `contact ${i}`, notify: `n${i}` });
      }
      await chats.upsert(uniqueId('other'), { id: ids[0]! });
      await contacts.upsert(uniqueId('other'), { id: ids[0]! });
      const byId = <T extends { id: string }>(items: T[]) => [...items].sort((a, b) => (a.id < b.id ? -1 : 1));
      for (const limit of [1, 2, 5, 50]) {
        assert.deepEqual(await scanAll((request) => chats.scan!(instance, request), limit), byId(await chats.list(instance)), `chats, pages of ${limit}`);
        assert.deepEqual(await scanAll((request) => contacts.scan!(instance, request), limit), byId(await contacts.list(instance)), `contacts, pages of ${limit}`);
      }
      const first = await chats.scan(instance, { limit: 2 });
      await chats.delete(instance, first.items[1]!.id);
      const rest = await scanAll((request) => chats.scan!(instance, { ...request, after: request.after ?? first.next! }), 2);
      assert.deepEqual(rest.map((chat) => chat.id), sorted(ids).slice(2), 'a scan goes on from a position whose chat was deleted');
      await contacts.clear(instance);
      assert.deepEqual(await contacts.scan(instance, { limit: 3 }), { items: [] });
    }));

    it('state.scan pages through the documents of one namespace by id, with their values', () => withStorage(harness, async ({ state }) => {
      assert.ok(state.scan, 'state.scan is implemented');
      const ns = uniqueId('ins') + ':labels';
      const ids = ['b', 'a', 'c10', 'c2', 'A', 'z:1'];
      for (const [i, id] of ids.entries()) await state.put(ns, id, { id, n: i, nested: [i, { on: i % 2 === 0 }] });
      await state.put(`${ns}x`, 'a', 'another namespace');
      for (const limit of [1, 4, 6, 100]) assert.deepEqual(await scanAll((request) => state.scan!(ns, request), limit), await state.list(ns), `pages of ${limit}`);
      assert.deepEqual((await scanAll((request) => state.scan!(ns, request), 2)).map((document) => document.id), sorted(ids));
      await state.delete(ns, 'c10');
      assert.deepEqual((await scanAll((request) => state.scan!(ns, request), 2)).map((document) => document.id), sorted(ids.filter((id) => id !== 'c10')));
      assert.deepEqual(await state.scan(uniqueId('empty'), { limit: 5 }), { items: [] });
    }));

    it('state.listNamespaces lists the non-empty namespaces starting with a prefix, sorted', () => withStorage(harness, async ({ state }) => {
      assert.ok(state.listNamespaces, 'state.listNamespaces is implemented');
      const root = uniqueId('ins');
      for (const ns of [`${root}:sandbox`, `${root}:cloud-media`, `${root}:unread:b@g.us`, `${root}x:other`]) await state.put(ns, 'doc', { ns });
      await state.put(`${root}:emptied`, 'doc', 1);
      await state.delete(`${root}:emptied`, 'doc');
      assert.deepEqual(await state.listNamespaces(`${root}:`), sorted([`${root}:sandbox`, `${root}:cloud-media`, `${root}:unread:b@g.us`]));
      assert.ok((await state.listNamespaces('')).includes(`${root}x:other`), 'the empty prefix lists every namespace');
      await state.clearPrefix(`${root}:`);
      assert.deepEqual(await state.listNamespaces(`${root}:`), []);
    }));
  });
}
