import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import type { Chat, Contact } from '@parley/core';
import { uniqueId } from './storage-fixtures.js';
import { withStorage, type RecordStoreHarness } from './storage-harness.js';

const ALICE = '5511911110000@s.whatsapp.net';
const BOB = '5511922220000@s.whatsapp.net';
const GROUP = '120363000000000001@g.us';

/** ChatRepository, ContactRepository and MediaRepository. */
export function describeResourceCases(harness: RecordStoreHarness): void {
  describe('chats', () => {
    it('upsert creates with defaults, merges given fields and ignores undefined ones', () => withStorage(harness, async ({ chats }) => {
      const instance = uniqueId('ins');
      const fresh: Chat = { id: ALICE, name: ALICE, timestamp: 0, unreadCount: 0 };
      assert.deepEqual(await chats.upsert(instance, { id: ALICE }), fresh);
      assert.deepEqual(await chats.get(instance, ALICE), fresh);
      const merged: Chat = { id: ALICE, name: 'Alice', timestamp: 1_700_000_100, unreadCount: 3, labels: ['1', '4'] };
      assert.deepEqual(await chats.upsert(instance, { id: ALICE, name: 'Alice', timestamp: 1_700_000_100, unreadCount: 3, labels: ['1', '4'] }), merged);
      const archived: Chat = { ...merged, unreadCount: 0, archived: true };
      assert.deepEqual(await chats.upsert(instance, { id: ALICE, unreadCount: 0, archived: true, name: undefined }), archived);
      assert.deepEqual(await chats.get(instance, ALICE), archived);
      assert.equal(await chats.get(instance, BOB), null);
      assert.equal(await chats.get(uniqueId('ins'), ALICE), null);
    }));

    it('lists most recent activity first, ties by id', () => withStorage(harness, async ({ chats }) => {
      const instance = uniqueId('ins');
      await chats.upsert(instance, { id: BOB, timestamp: 200 });
      await chats.upsert(instance, { id: GROUP, timestamp: 300, name: 'Team' });
      await chats.upsert(instance, { id: ALICE, timestamp: 200 });
      await chats.upsert(instance, { id: 'z@s.whatsapp.net' });
      await chats.upsert(uniqueId('ins'), { id: 'other@s.whatsapp.net', timestamp: 999 });
      assert.deepEqual((await chats.list(instance)).map((chat) => [chat.id, chat.timestamp]), [
        [GROUP, 300], [ALICE, 200], [BOB, 200], ['z@s.whatsapp.net', 0],
      ]);
      await chats.upsert(instance, { id: BOB, timestamp: 400 });
      assert.deepEqual((await chats.list(instance)).map((chat) => chat.id), [BOB, GROUP, ALICE, 'z@s.whatsapp.net']);
      assert.deepEqual(await chats.list(uniqueId('ins')), []);
    }));

    it('delete answers whether it existed; clear empties one instance', () => withStorage(harness, async ({ chats }) => {
      const a = uniqueId('ins');
      const b = uniqueId('ins');
      await chats.upsert(a, { id: ALICE, timestamp: 1 });
      await chats.upsert(a, { id: BOB, timestamp: 2 });
      await chats.upsert(b, { id: ALICE, timestamp: 5, name: 'B view' });
      assert.equal(await chats.delete(a, BOB), true);
      assert.equal(await chats.delete(a, BOB), false);
      assert.deepEqual(await chats.list(a), [{ id: ALICE, name: ALICE, timestamp: 1, unreadCount: 0 }]);
      await chats.clear(a);
      assert.deepEqual(await chats.list(a), []);
      assert.equal(await chats.get(a, ALICE), null);
      assert.deepEqual(await chats.list(b), [{ id: ALICE, name: 'B view', timestamp: 5, unreadCount: 0 }]);
    }));
  });

  describe('contacts', () => {
    it('upsert creates with empty name and notify, merges given fields and ignores undefined ones', () => withStorage(harness, async ({ contacts }) => {
      const instance = uniqueId('ins');
      const fresh: Contact = { id: ALICE, name: '', notify: '' };
      assert.deepEqual(await contacts.upsert(instance, { id: ALICE }), fresh);
      assert.deepEqual(await contacts.upsert(instance, { id: ALICE, notify: 'Ali', lid: '99@lid' }), { ...fresh, notify: 'Ali', lid: '99@lid' });
      const named: Contact = { id: ALICE, name: 'Alice', notify: 'Ali', lid: '99@lid', imgUrl: 'https://pps.example/a.jpg' };
      assert.deepEqual(await contacts.upsert(instance, { id: ALICE, name: 'Alice', imgUrl: 'https://pps.example/a.jpg', notify: undefined }), named);
      assert.deepEqual(await contacts.get(instance, ALICE), named);
      assert.equal(await contacts.get(instance, BOB), null);
      assert.equal(await contacts.get(uniqueId('ins'), ALICE), null);
    }));

    it('imgUrl null removes the stored picture URL and keeps every other field; on a new contact it stores none', () => withStorage(harness, async ({ contacts }) => {
      const instance = uniqueId('ins');
      await contacts.upsert(instance, { id: ALICE, name: 'Alice', lid: '99@lid', imgUrl: 'https://pps.example/a.jpg' });
      const bare: Contact = { id: ALICE, name: 'Alice', notify: '', lid: '99@lid' };
      assert.deepEqual(await contacts.upsert(instance, { id: ALICE, imgUrl: null }), bare);
      assert.deepEqual(await contacts.get(instance, ALICE), bare);
      assert.deepEqual(await contacts.list(instance), [bare]);
      assert.deepEqual(await contacts.upsert(instance, { id: BOB, notify: 'Bob', imgUrl: null }), { id: BOB, name: '', notify: 'Bob' });
      assert.deepEqual(await contacts.get(instance, BOB), { id: BOB, name: '', notify: 'Bob' });
    }));

    it('lists ordered by id', () => withStorage(harness, async ({ contacts }) => {
      const instance = uniqueId('ins');
      for (const id of [BOB, GROUP, ALICE]) await contacts.upsert(instance, { id, name: id.slice(0, 4) });
      await contacts.upsert(uniqueId('ins'), { id: '1@s.whatsapp.net' });
      assert.deepEqual(await contacts.list(instance), [GROUP, ALICE, BOB].map((id) => ({ id, name: id.slice(0, 4), notify: '' })));
    }));

    it('delete answers whether it existed; clear empties one instance', () => withStorage(harness, async ({ contacts }) => {
      const a = uniqueId('ins');
      const b = uniqueId('ins');
      await contacts.upsert(a, { id: ALICE });
      await contacts.upsert(a, { id: BOB });
      await contacts.upsert(b, { id: ALICE, name: 'kept' });
      assert.equal(await contacts.delete(a, ALICE), true);
      assert.equal(await contacts.delete(a, ALICE), false);
      assert.deepEqual(await contacts.list(a), [{ id: BOB, name: '', notify: '' }]);
      await contacts.clear(a);
      assert.deepEqual(await contacts.list(a), []);
      assert.deepEqual(await contacts.list(b), [{ id: ALICE, name: 'kept', notify: '' }]);
    }));
  });

  describe('media', () => {
    it('put and get round-trip bytes exactly as a Buffer, with mimetype and fileName', () => withStorage(harness, async ({ media }) => {
      const instance = uniqueId('ins');
      const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      await media.put(instance, 'M1', { data: bytes, mimetype: 'application/pdf', fileName: 'report.pdf' });
      await media.put(instance, 'M2', { data: Buffer.alloc(0), mimetype: 'image/jpeg' });
      const document = await media.get(instance, 'M1');
      assert.ok(document && Buffer.isBuffer(document.data));
      assert.deepEqual(document, { data: bytes, mimetype: 'application/pdf', fileName: 'report.pdf' });
      assert.deepEqual(await media.get(instance, 'M2'), { data: Buffer.alloc(0), mimetype: 'image/jpeg' });
      assert.equal(await media.get(instance, 'M3'), null);
      assert.equal(await media.get(uniqueId('ins'), 'M1'), null);
    }));

    it('stores a copy of the bytes, and put replaces', () => withStorage(harness, async ({ media }) => {
      const instance = uniqueId('ins');
      const bytes = Buffer.from('original bytes');
      await media.put(instance, 'M1', { data: bytes, mimetype: 'text/plain', fileName: 'a.txt' });
      bytes.fill(0);
      assert.deepEqual(await media.get(instance, 'M1'), { data: Buffer.from('original bytes'), mimetype: 'text/plain', fileName: 'a.txt' });
      await media.put(instance, 'M1', { data: Buffer.from([1, 2, 3]), mimetype: 'audio/ogg' });
      assert.deepEqual(await media.get(instance, 'M1'), { data: Buffer.from([1, 2, 3]), mimetype: 'audio/ogg' });
    }));

    it('clear empties one instance', () => withStorage(harness, async ({ media }) => {
      const a = uniqueId('ins');
      const b = uniqueId('ins');
      await media.put(a, 'M1', { data: Buffer.from('a'), mimetype: 'text/plain' });
      await media.put(b, 'M1', { data: Buffer.from('b'), mimetype: 'text/plain' });
      await media.clear(a);
      assert.equal(await media.get(a, 'M1'), null);
      assert.deepEqual(await media.get(b, 'M1'), { data: Buffer.from('b'), mimetype: 'text/plain' });
    }));

    it('delete removes one blob, bytes and description, and answers whether it existed', () => withStorage(harness, async ({ media }) => {
      const a = uniqueId('ins');
      const b = uniqueId('ins');
      await media.put(a, 'M1', { data: Buffer.from('first'), mimetype: 'image/png', fileName: 'one.png' });
      await media.put(a, 'M2', { data: Buffer.from('second'), mimetype: 'text/plain' });
      await media.put(b, 'M1', { data: Buffer.from('other'), mimetype: 'text/plain' });
      assert.equal(await media.delete(a, 'M1'), true);
      assert.equal(await media.get(a, 'M1'), null);
      assert.equal(await media.delete(a, 'M1'), false);
      assert.equal(await media.delete(a, 'M3'), false);
      assert.equal(await media.delete(uniqueId('ins'), 'M1'), false);
      assert.deepEqual(await media.get(a, 'M2'), { data: Buffer.from('second'), mimetype: 'text/plain' });
      assert.deepEqual(await media.get(b, 'M1'), { data: Buffer.from('other'), mimetype: 'text/plain' });
      // The id can be used again, without a trace of what was deleted.
      await media.put(a, 'M1', { data: Buffer.from('again'), mimetype: 'audio/ogg' });
      assert.deepEqual(await media.get(a, 'M1'), { data: Buffer.from('again'), mimetype: 'audio/ogg' });
    }));
  });
}
