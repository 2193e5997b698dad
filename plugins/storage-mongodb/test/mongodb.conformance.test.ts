import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { MongoClient } from 'mongodb';
import { describeStorageConformance, serviceUrlOrSkip, type StorageHarness } from '@parley/testkit';
import type { Clock, Storage } from '@parley/core';
import { MongoStorage, connectExternalDatabase } from '../src/index.js';

describe('@parley/storage-mongodb against a MongoDB server', () => {
  // No MongoDB server can be installed where CI runs, so this suite skips even with PARLEY_REQUIRE_SERVICES=1.
  const url = serviceUrlOrSkip('MONGODB_URL', 'mongodb storage conformance and external database', { requirable: false });
  if (!url) return;
  const dbName = `parley_test_${process.pid}_${randomBytes(3).toString('hex')}`;
  const prefixes = new WeakMap<Storage, string>();
  let created = 0;
  const open = (collectionPrefix: string, clock?: Clock): Storage => {
    const storage = new MongoStorage({ url, dbName, collectionPrefix }, undefined, clock);
    prefixes.set(storage, collectionPrefix);
    return storage;
  };
  const dropDatabase = async (name: string) => {
    const client = new MongoClient(url);
    try {
      await client.db(name).dropDatabase();
    } finally {
      await client.close();
    }
  };

  const harness: StorageHarness = {
    create: async (clock) => open(`t${created++}_`, clock),
    reopen: async (previous) => open(prefixes.get(previous)!),
    cleanup: () => dropDatabase(dbName),
  };
  describeStorageConformance('mongodb', harness);

  describe('external database', () => {
    const externalDb = `${dbName}_ext`;
    after(() => dropDatabase(externalDb));

    it('writes messages, chats and contacts of an instance into the given database', async () => {
      const store = await connectExternalDatabase({ uri: url, dbName: externalDb });
      try {
        const record = {
          key: { remoteJid: '5511988887777@s.whatsapp.net', fromMe: true, id: '3EB0EXT' }, message: { conversation: 'hi' },
          messageTimestamp: '1700000000', status: 'PENDING' as const,
        };
        await store.messages.upsert('ins_ext', record);
        await store.chats.upsert('ins_ext', { id: record.key.remoteJid, timestamp: 1_700_000_000 });
        await store.contacts.upsert('ins_ext', { id: record.key.remoteJid, notify: 'Alice' });
        assert.deepEqual(await store.messages.listByChat('ins_ext', record.key.remoteJid, { page: 1, limit: 10 }), { items: [record], total: 1 });
        const client = new MongoClient(url);
        try {
          const names = (await client.db(externalDb).listCollections().toArray()).map((collection) => collection.name).sort();
          assert.deepEqual(names, ['chats', 'contacts', 'counters', 'messages']);
          assert.deepEqual(await client.db(externalDb).collection('contacts').findOne({ instance: 'ins_ext' }, { projection: { _id: 0 } }), {
            instance: 'ins_ext', id: record.key.remoteJid, name: '', notify: 'Alice',
          });
        } finally {
          await client.close();
        }
      } finally {
        await store.close();
      }
    });
  });
});
