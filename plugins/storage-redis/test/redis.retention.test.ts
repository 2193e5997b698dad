import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { MessageRecord } from '@parley/core';
import { RedisStorage } from '../src/index.js';
import { deleteKeys, redisUrlOrSkip, uniquePrefix } from './redis-env.js';

const CHAT = '5511988887777@s.whatsapp.net';
const DAY = 86_400;

function record(id: string, timestamp: number): MessageRecord {
  return { key: { remoteJid: CHAT, fromMe: false, id }, message: { conversation: id }, messageTimestamp: String(timestamp), status: 'READ' };
}

describe('@parley/storage-redis message retention', () => {
  const url = redisUrlOrSkip('redis message retention');
  if (!url) return;
  const prefix = uniquePrefix('retention');
  after(() => deleteKeys(url, prefix));

  it('trims messages older than messageRetentionDays when the instance writes a message', async () => {
    const storage = new RedisStorage({ url, keyPrefix: `${prefix}a:`, messageRetentionDays: 2 });
    await storage.init();
    try {
      const now = Math.floor(Date.now() / 1000);
      const old = record('OLD', now - 3 * DAY);
      const recent = record('RECENT', now - DAY);
      await storage.messages.upsert('ins_a', old);
      await storage.messages.upsert('ins_b', old);
      assert.equal(await storage.messages.get('ins_a', 'OLD'), null, 'a message already past retention is not kept');
      await storage.messages.upsert('ins_a', recent);
      await storage.messages.upsert('ins_a', record('NEW', now));
      assert.deepEqual(await storage.messages.listByChat('ins_a', CHAT, { page: 1, limit: 10 }), { items: [record('NEW', now), recent], total: 2 });
    } finally {
      await storage.close();
    }
  });

  it('keeps every message with messageRetentionDays 0', async () => {
    const storage = new RedisStorage({ url, keyPrefix: `${prefix}b:`, messageRetentionDays: 0 });
    await storage.init();
    try {
      const ancient = record('ANCIENT', 1_000);
      await storage.messages.upsert('ins_a', ancient);
      await storage.messages.upsert('ins_a', record('NOW', Math.floor(Date.now() / 1000)));
      assert.deepEqual(await storage.messages.get('ins_a', 'ANCIENT'), ancient);
      assert.equal((await storage.messages.listByChat('ins_a', CHAT, { page: 1, limit: 10 })).total, 2);
    } finally {
      await storage.close();
    }
  });
});
