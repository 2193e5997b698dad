import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Binary } from 'mongodb';
import { defaultInstanceFlags, defaultWebhookSettings, type Chat, type Contact, type InstanceRecord, type MessageRecord, type NewDelivery } from '@parley/core';
import {
  deliveryLane, deliveryToDocument, documentToDeadLetter, documentToDelivery, documentToInstance, documentToMedia, documentToMessage,
  documentToResource, documentToState, instanceToDocument, jsonClean, mediaToDocument, mergeUpsert, messageSeconds, messageToDocument,
  stateToDocument, type DeliveryDocument,
} from '../src/index.js';

const record: InstanceRecord = {
  id: 'ins_01', key: 'key_secret', name: 'support', driver: 'sandbox', createdAt: 1_700_000_000_123,
  flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(), webhookSecret: 'whsec_1', user: null, phoneConnected: false,
  wantsConnection: true, health: 'healthy', driverOptions: { nested: { list: [1, 2] } }, links: {}, proxy: 'http://127.0.0.1:3128',
};

const message: MessageRecord = {
  key: { remoteJid: '5511988887777@s.whatsapp.net', fromMe: false, id: '3EB0AA', participant: undefined },
  message: { conversation: 'hi', contextInfo: { mentionedJid: [] } },
  messageTimestamp: '1700000000',
  status: 'READ',
  pushName: 'Alice',
};

describe('@parley/storage-mongodb mappings', () => {
  it('maps an instance to a document keyed by its id and back, dropping undefined members', () => {
    const document = instanceToDocument({ ...record, businessProfile: undefined }, 7);
    const { id: _id, ...rest } = record;
    assert.deepEqual(document, { _id: 'ins_01', ...rest, seq: 7 });
    assert.equal(Object.hasOwn(document, 'businessProfile'), false);
    assert.deepEqual(documentToInstance(document), record);
  });

  it('maps a message with numeric ts, an expiry Date and its sequence, and back to the JSON record', () => {
    const document = messageToDocument('ins_01', message, 42);
    assert.equal(document.ts, 1_700_000_000);
    assert.ok(document.at instanceof Date);
    assert.equal(document.at.getTime(), 1_700_000_000_000);
    assert.deepEqual({ instance: document.instance, seq: document.seq }, { instance: 'ins_01', seq: 42 });
    const { participant: _p, ...key } = message.key;
    assert.deepEqual(documentToMessage({ ...document, _id: 'ignored' } as typeof document), { ...message, key });
  });

  it('sorts a message with an unreadable timestamp as 0', () => {
    assert.equal(messageSeconds({ ...message, messageTimestamp: 'soon' }), 0);
    assert.equal(messageToDocument('i', { ...message, messageTimestamp: '' }, 1).ts, 0);
  });

  it('stores media bytes as BSON Binary (a copy) and reads them back as a Buffer', () => {
    const bytes = Buffer.from([0, 1, 2, 253, 254, 255]);
    const document = mediaToDocument('ins_01', 'M1', { data: bytes, mimetype: 'image/png', fileName: 'a.png' });
    assert.ok(document.data instanceof Binary);
    assert.equal(document.data.sub_type, Binary.SUBTYPE_DEFAULT);
    bytes.fill(9);
    const blob = documentToMedia(document);
    assert.ok(Buffer.isBuffer(blob.data));
    assert.deepEqual(blob, { data: Buffer.from([0, 1, 2, 253, 254, 255]), mimetype: 'image/png', fileName: 'a.png' });
    // A Binary read from the wire may sit in a larger buffer: only its content is answered.
    const oversized = new Binary(Buffer.from([7, 8, 9, 0, 0, 0]));
    oversized.position = 3;
    assert.deepEqual(documentToMedia({ instance: 'i', messageId: 'M', data: oversized, mimetype: 'a/b' }), { data: Buffer.from([7, 8, 9]), mimetype: 'a/b' });
    assert.deepEqual(documentToMedia(mediaToDocument('i', 'M2', { data: Buffer.alloc(0), mimetype: 'image/jpeg' })), { data: Buffer.alloc(0), mimetype: 'image/jpeg' });
  });

  it('keeps plugin state as JSON text, so keys with $ and dots round-trip', () => {
    const value = { $set: 1, 'a.b': [null, true, 'x'], n: 1.5 };
    const document = stateToDocument('ns', 'id', value);
    assert.deepEqual(document, { namespace: 'ns', id: 'id', json: '{"$set":1,"a.b":[null,true,"x"],"n":1.5}' });
    assert.deepEqual(documentToState(document), value);
    assert.equal(documentToState(stateToDocument('ns', 'id', undefined)), null);
  });

  it('maps a delivery to a queued document keyed by its id, and documents back to deliveries and dead letters', () => {
    const delivery: NewDelivery = {
      id: 'dlv_1', instance: 'ins_01', url: 'http://127.0.0.1:9/hook', format: 'native', eventId: 'message-text',
      eventType: 'messages.upsert', body: '{"a":1}', createdAt: 1_000,
    };
    const document = deliveryToDocument(delivery, deliveryLane(delivery.instance, delivery.url), 5);
    const { id: _id, ...fields } = delivery;
    assert.deepEqual(document, {
      _id: 'dlv_1', ...fields, attempts: 0, nextAttemptAt: 1_000, lane: 'ins_01 http://127.0.0.1:9/hook', seq: 5, state: 'queued',
    });
    assert.deepEqual(documentToDelivery(document), { ...delivery, attempts: 0, nextAttemptAt: 1_000 });
    const dead: DeliveryDocument = { ...document, attempts: 3, lastError: 'HTTP 410', lastStatus: 410, state: 'dead', deadAt: 2_000 };
    assert.deepEqual(documentToDeadLetter(dead), { ...delivery, attempts: 3, nextAttemptAt: 1_000, lastError: 'HTTP 410', lastStatus: 410, deadAt: 2_000 });
  });

  it('builds merge-upserts: given fields set, undefined ignored, defaults only for the fields not given', () => {
    assert.deepEqual(mergeUpsert<Chat>('ins_01', { id: 'c1', name: undefined, unreadCount: 2, labels: ['1'] }, { name: 'c1', timestamp: 0, unreadCount: 0 }), {
      filter: { instance: 'ins_01', id: 'c1' },
      update: { $set: { unreadCount: 2, labels: ['1'] }, $setOnInsert: { name: 'c1', timestamp: 0 } },
    });
    assert.deepEqual(mergeUpsert<Contact>('ins_01', { id: 'c1' }, { name: '', notify: '' }), {
      filter: { instance: 'ins_01', id: 'c1' }, update: { $setOnInsert: { name: '', notify: '' } },
    });
    assert.deepEqual(mergeUpsert<Contact>('ins_01', { id: 'c1', name: 'A', notify: 'B' }, { name: '', notify: '' }), {
      filter: { instance: 'ins_01', id: 'c1' }, update: { $set: { name: 'A', notify: 'B' } },
    });
    // A contact's picture gone: `imgUrl: null` is unset, never stored as null.
    assert.deepEqual(mergeUpsert<Contact>('ins_01', { id: 'c1', notify: 'B', imgUrl: null }, { name: '', notify: '' }), {
      filter: { instance: 'ins_01', id: 'c1' }, update: { $set: { notify: 'B' }, $unset: { imgUrl: '' }, $setOnInsert: { name: '' } },
    });
  });

  it('answers chats and contacts without the storage fields', () => {
    assert.deepEqual(documentToResource({ _id: 'x', instance: 'ins_01', id: 'c1', name: 'A', notify: '' } as never), { id: 'c1', name: 'A', notify: '' });
  });

  it('normalises values as JSON does', () => {
    assert.deepEqual(jsonClean({ a: undefined, b: [undefined], c: Buffer.from([1]) }), { b: [null], c: { type: 'Buffer', data: [1] } });
  });
});
