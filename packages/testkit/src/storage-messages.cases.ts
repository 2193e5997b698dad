import assert from 'node:assert/strict';
import { describe, it } from './test-runner.js';
import { getMessages, setStatuses, upsertMessages, type MessageRecord, type MessageStatus, type RecordStore } from '@parley/core';
import { messageRecord, uniqueId } from './storage-fixtures.js';
import { withStorage, type RecordStoreHarness } from './storage-harness.js';

const CHAT = '5511988887777@s.whatsapp.net';
const OTHER_CHAT = '120363000000000000@g.us';

async function upsertAll(storage: RecordStore, instance: string, records: MessageRecord[]): Promise<void> {
  for (const record of records) await storage.messages.upsert(instance, record);
}

/** MessageRepository: replace by id, forward-only status, paging newest first, deletion, isolation. */
export function describeMessageCases(harness: RecordStoreHarness): void {
  describe('messages', () => {
    it('upsert inserts, get reads back whole, unknown ids answer null', () => withStorage(harness, async ({ messages }) => {
      const instance = uniqueId('ins');
      const record = messageRecord(CHAT, 'M1', 1_700_000_000);
      await messages.upsert(instance, record);
      assert.deepEqual(await messages.get(instance, 'M1'), record);
      assert.equal(await messages.get(instance, 'M2'), null);
      assert.equal(await messages.get(uniqueId('ins'), 'M1'), null);
    }));

    it('upsert with the same id replaces the record', () => withStorage(harness, async ({ messages }) => {
      const instance = uniqueId('ins');
      await messages.upsert(instance, messageRecord(CHAT, 'M1', 100));
      const replacement: MessageRecord = { ...messageRecord(CHAT, 'M1', 100, 'READ'), message: { conversation: 'edited' } };
      await messages.upsert(instance, replacement);
      assert.deepEqual(await messages.get(instance, 'M1'), replacement);
      assert.deepEqual(await messages.listByChat(instance, CHAT, { page: 1, limit: 10 }), { items: [replacement], total: 1 });
    }));

    it('stores copies: mutating the written or the read object changes nothing', () => withStorage(harness, async ({ messages }) => {
      const instance = uniqueId('ins');
      const record = messageRecord(CHAT, 'M1', 100);
      const expected = structuredClone(record);
      await messages.upsert(instance, record);
      record.status = 'READ';
      (record.message as { conversation: string }).conversation = 'mutated';
      const read = await messages.get(instance, 'M1');
      assert.ok(read);
      read.key.fromMe = true;
      assert.deepEqual(await messages.get(instance, 'M1'), expected);
    }));

    it('setStatus moves forward by rank only, ERROR always applies, and tells whether the message exists', () => withStorage(harness, async ({ messages }) => {
      const instance = uniqueId('ins');
      const record = messageRecord(CHAT, 'M1', 100, 'PENDING');
      await messages.upsert(instance, record);
      const steps: [MessageStatus, MessageStatus][] = [
        ['DELIVERY_ACK', 'DELIVERY_ACK'], ['SERVER_ACK', 'DELIVERY_ACK'], ['PENDING', 'DELIVERY_ACK'],
        ['DELIVERY_ACK', 'DELIVERY_ACK'], ['PLAYED', 'PLAYED'], ['READ', 'PLAYED'], ['ERROR', 'ERROR'],
      ];
      for (const [requested, expected] of steps) {
        assert.equal(await messages.setStatus(instance, 'M1', requested), true, `${requested} → ${expected}`);
        assert.deepEqual(await messages.get(instance, 'M1'), { ...record, status: expected }, `${requested} → ${expected}`);
      }
      await messages.upsert(instance, messageRecord(CHAT, 'M2', 100, 'READ'));
      assert.equal(await messages.setStatus(instance, 'M2', 'ERROR'), true);
      assert.equal((await messages.get(instance, 'M2'))?.status, 'ERROR');
      assert.equal(await messages.setStatus(instance, 'NOPE', 'READ'), false);
      assert.equal(await messages.setStatus(uniqueId('ins'), 'M1', 'READ'), false);
      assert.equal(await messages.get(instance, 'NOPE'), null, 'an unknown id is not created');
    }));

    it('setStatuses (the back end\'s, or one setStatus each) applies updates in order as setStatus would, per update telling whether the message exists', () => withStorage(harness, async ({ messages }) => {
      const instance = uniqueId('ins');
      await messages.upsert(instance, messageRecord(CHAT, 'S1', 100, 'PENDING'));
      await messages.upsert(instance, messageRecord(CHAT, 'S2', 100, 'READ'));
      await messages.upsert(instance, messageRecord(CHAT, 'S3', 100, 'SERVER_ACK'));
      const answers = await setStatuses(messages, instance, [
        { id: 'S1', status: 'SERVER_ACK' }, { id: 'NOPE', status: 'READ' }, { id: 'S2', status: 'DELIVERY_ACK' },
        { id: 'S1', status: 'DELIVERY_ACK' }, { id: 'S3', status: 'ERROR' }, { id: 'S1', status: 'SERVER_ACK' }, { id: 'S3', status: 'READ' },
      ]);
      assert.deepEqual(answers, [true, false, true, true, true, true, true]);
      const statuses = await Promise.all(['S1', 'S2', 'S3', 'NOPE'].map(async (id) => (await messages.get(instance, id))?.status ?? null));
      // S3: ERROR applies whatever the rank, and READ then moves on from it, as two setStatus calls would.
      const expected: (MessageStatus | null)[] = ['DELIVERY_ACK', 'READ', null, null];
      const one = uniqueId('ins');
      await messages.upsert(one, messageRecord(CHAT, 'S3', 100, 'SERVER_ACK'));
      await messages.setStatus(one, 'S3', 'ERROR');
      await messages.setStatus(one, 'S3', 'READ');
      expected[2] = (await messages.get(one, 'S3'))!.status;
      assert.deepEqual(statuses, expected);
      assert.deepEqual(await setStatuses(messages, instance, []), []);
      assert.deepEqual(await setStatuses(messages, uniqueId('ins'), [{ id: 'S1', status: 'READ' }]), [false], 'another instance has no such message');
    }));

    it('upsertMessages and getMessages (upsert and get calls issued together) act as upsert and get calls in order', () => withStorage(harness, async (storage) => {
      const { messages } = storage;
      const instance = uniqueId('ins');
      const stored = messageRecord(CHAT, 'U0', 500, 'READ');
      await messages.upsert(instance, stored);
      const first = messageRecord(CHAT, 'U1', 500);
      const second = messageRecord(CHAT, 'U2', 500, 'SERVER_ACK');
      const again: MessageRecord = { ...messageRecord(CHAT, 'U1', 500, 'DELIVERY_ACK'), message: { conversation: 'edited' } };
      const replaced: MessageRecord = { ...messageRecord(OTHER_CHAT, 'U0', 600, 'PENDING'), message: { conversation: 'moved' } };
      await upsertMessages(messages, instance, [first, second, again, replaced, messageRecord(OTHER_CHAT, 'U3', 10)]);
      // U1 given twice: the later record, in the first one's place among equal timestamps; U0 replaced whole, moved to another chat.
      assert.deepEqual(await messages.listByChat(instance, CHAT, { page: 1, limit: 10 }), { items: [second, again], total: 2 });
      assert.deepEqual(await messages.listByChat(instance, OTHER_CHAT, { page: 1, limit: 10 }), { items: [replaced, messageRecord(OTHER_CHAT, 'U3', 10)], total: 2 });
      assert.deepEqual(await getMessages(messages, instance, ['U2', 'NOPE', 'U1', 'U0', 'U2']), [second, null, again, replaced, second]);
      assert.deepEqual(await getMessages(messages, uniqueId('ins'), ['U1', 'U2']), [null, null], 'another instance has no such messages');
      assert.deepEqual(await getMessages(messages, instance, []), []);
      await upsertMessages(messages, instance, []);
      assert.equal((await messages.listByChat(instance, CHAT, { page: 1, limit: 10 })).total, 2, 'nothing written for no records');
    }));

    it('listByChat answers newest first by numeric timestamp, then insertion order, with page and total', () => withStorage(harness, async (storage) => {
      const instance = uniqueId('ins');
      const m999 = messageRecord(CHAT, 'A', 999);
      const m1000 = messageRecord(CHAT, 'B', 1000);
      const tie1 = messageRecord(CHAT, 'C', 500);
      const tie2 = messageRecord(CHAT, 'D', 500);
      const oldest = messageRecord(CHAT, 'E', 5);
      await upsertAll(storage, instance, [tie1, m999, oldest, m1000, tie2, messageRecord(OTHER_CHAT, 'F', 2000)]);
      const { messages } = storage;
      assert.deepEqual(await messages.listByChat(instance, CHAT, { page: 1, limit: 10 }), { items: [m1000, m999, tie2, tie1, oldest], total: 5 });
      assert.deepEqual(await messages.listByChat(instance, CHAT, { page: 1, limit: 2 }), { items: [m1000, m999], total: 5 });
      assert.deepEqual(await messages.listByChat(instance, CHAT, { page: 2, limit: 2 }), { items: [tie2, tie1], total: 5 });
      assert.deepEqual(await messages.listByChat(instance, CHAT, { page: 3, limit: 2 }), { items: [oldest], total: 5 });
      assert.deepEqual(await messages.listByChat(instance, CHAT, { page: 4, limit: 2 }), { items: [], total: 5 });
      assert.deepEqual(await messages.listByChat(instance, 'nobody@s.whatsapp.net', { page: 1, limit: 2 }), { items: [], total: 0 });
      assert.deepEqual(await messages.listByChat(uniqueId('ins'), CHAT, { page: 1, limit: 2 }), { items: [], total: 0 });
    }));

    it('replacing a message keeps its place among equal timestamps', () => withStorage(harness, async (storage) => {
      const instance = uniqueId('ins');
      await upsertAll(storage, instance, [messageRecord(CHAT, 'A', 500), messageRecord(CHAT, 'B', 500)]);
      const replaced = messageRecord(CHAT, 'A', 500, 'READ');
      await storage.messages.upsert(instance, replaced);
      assert.deepEqual((await storage.messages.listByChat(instance, CHAT, { page: 1, limit: 10 })).items, [messageRecord(CHAT, 'B', 500), replaced]);
    }));

    it('delete answers how many existed; deleteChat removes one chat', () => withStorage(harness, async (storage) => {
      const instance = uniqueId('ins');
      const keep = messageRecord(OTHER_CHAT, 'G1', 10);
      await upsertAll(storage, instance, [messageRecord(CHAT, 'A', 1), messageRecord(CHAT, 'B', 2), messageRecord(CHAT, 'C', 3), keep]);
      const { messages } = storage;
      assert.equal(await messages.delete(instance, ['A', 'NOPE', 'B']), 2);
      assert.equal(await messages.delete(instance, []), 0);
      assert.equal(await messages.get(instance, 'A'), null);
      assert.deepEqual(await messages.listByChat(instance, CHAT, { page: 1, limit: 10 }), { items: [messageRecord(CHAT, 'C', 3)], total: 1 });
      assert.equal(await messages.deleteChat(instance, CHAT), 1);
      assert.equal(await messages.deleteChat(instance, CHAT), 0);
      assert.deepEqual(await messages.listByChat(instance, CHAT, { page: 1, limit: 10 }), { items: [], total: 0 });
      assert.deepEqual(await messages.get(instance, 'G1'), keep);
    }));

    it('instances are isolated: same ids coexist, clear empties only one instance', () => withStorage(harness, async ({ messages }) => {
      const a = uniqueId('ins');
      const b = uniqueId('ins');
      const ofA = messageRecord(CHAT, 'M1', 1, 'READ');
      const ofB = messageRecord(CHAT, 'M1', 2, 'PENDING');
      await messages.upsert(a, ofA);
      await messages.upsert(b, ofB);
      assert.deepEqual(await messages.get(a, 'M1'), ofA);
      assert.equal(await messages.delete(a, ['M1']), 1);
      await messages.upsert(a, ofA);
      await messages.clear(a);
      assert.equal(await messages.get(a, 'M1'), null);
      assert.deepEqual(await messages.listByChat(a, CHAT, { page: 1, limit: 10 }), { items: [], total: 0 });
      assert.deepEqual(await messages.get(b, 'M1'), ofB);
      assert.deepEqual(await messages.listByChat(b, CHAT, { page: 1, limit: 10 }), { items: [ofB], total: 1 });
    }));
  });
}
