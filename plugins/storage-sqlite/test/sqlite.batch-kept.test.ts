import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SqliteStorage } from '../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'parley-sqlite-kept-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Counts the reads starting `prefix` better-sqlite3 executes (its Statement#get, wrapped for the test's length; the statement still runs). */
function countReads(prefix: string): { reads: () => number; restore: () => void } {
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => { prepare(sql: string): object; close(): void };
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as { get: (...args: unknown[]) => unknown };
  probe.close();
  const original = proto.get;
  let reads = 0;
  proto.get = function counted(this: { source: string }, ...args: unknown[]) {
    if (this.source.startsWith(prefix)) reads++;
    return original.apply(this, args);
  };
  return { reads: () => reads, restore: () => { proto.get = original; } };
}

describe('SqliteStorage: rows kept for the batch that read or wrote them (issue 26)', () => {
  it('a chat read and then upserted in one batch is read from SQLite once', async () => {
    const storage = new SqliteStorage({ file: join(root, 'once.db') });
    await storage.init();
    const counter = countReads('SELECT chat FROM chats');
    try {
      await storage.chats.upsert('ins_a', { id: 'bob', name: 'Bob', timestamp: 10 });
      await storage.flush();
      const before = counter.reads();
      // As the store projector does: a write opens the batch, then the chat is read and upserted.
      await storage.state.put('ns', 'x', { n: 1 });
      const chat = await storage.chats.get('ins_a', 'bob');
      const merged = await storage.chats.upsert('ins_a', { id: 'bob', timestamp: 20, unreadCount: chat!.unreadCount + 1 });
      assert.deepEqual(merged, { id: 'bob', name: 'Bob', timestamp: 20, unreadCount: 1 });
      assert.equal(counter.reads() - before, 1, 'the upsert merged over the kept read');
      // Read again in the same batch: what the batch wrote.
      assert.deepEqual(await storage.chats.get('ins_a', 'bob'), merged);
      assert.equal(counter.reads() - before, 1);
      await storage.flush();
      assert.deepEqual(await storage.chats.get('ins_a', 'bob'), merged);
    } finally {
      counter.restore();
      await storage.close();
    }
  });

  it('a message record written in a batch is read again in it from memory, with the statuses set since; a later batch reads SQLite', async () => {
    const storage = new SqliteStorage({ file: join(root, 'message.db') });
    await storage.init();
    const counter = countReads('SELECT record, status FROM messages');
    const record = {
      key: { remoteJid: 'bob@s.whatsapp.net', fromMe: true, id: 'M1' }, message: { conversation: 'hi' }, messageTimestamp: '1700000000', status: 'PENDING' as const,
    };
    try {
      assert.equal(await storage.messages.get('ins_a', 'M1'), null);
      await storage.messages.upsert('ins_a', record);
      assert.equal(await storage.messages.setStatus('ins_a', 'M1', 'SERVER_ACK'), true);
      assert.equal(await storage.messages.setStatus('ins_a', 'M1', 'PENDING'), true, 'exists; does not move back');
      const before = counter.reads();
      assert.deepEqual(await storage.messages.get('ins_a', 'M1'), { ...record, status: 'SERVER_ACK' });
      assert.equal(counter.reads(), before, 'answered from the batch');
      await storage.flush();
      assert.deepEqual(await storage.messages.get('ins_a', 'M1'), { ...record, status: 'SERVER_ACK' });
      assert.equal(counter.reads(), before + 1, 'between batches: read');
      await storage.messages.delete('ins_a', ['M1']);
      assert.equal(await storage.messages.get('ins_a', 'M1'), null);
    } finally {
      counter.restore();
      await storage.close();
    }
  });

  it('a later batch reads again: another connection may have written the chat in between', async () => {
    const file = join(root, 'two.db');
    const a = new SqliteStorage({ file });
    await a.init();
    const b = new SqliteStorage({ file });
    await b.init();
    try {
      await a.chats.upsert('ins_a', { id: 'bob', name: 'Bob', timestamp: 10 });
      assert.equal((await a.chats.get('ins_a', 'bob'))!.name, 'Bob');
      await a.flush();
      await b.chats.upsert('ins_a', { id: 'bob', name: 'Robert' });
      await b.flush();
      assert.deepEqual(await a.chats.upsert('ins_a', { id: 'bob', unreadCount: 2 }), { id: 'bob', name: 'Robert', timestamp: 10, unreadCount: 2 });
      await a.flush();
      // A contact deleted in the batch reads as gone, and its upsert starts from nothing.
      await a.contacts.upsert('ins_a', { id: 'bob', notify: 'B' });
      assert.equal(await a.contacts.delete('ins_a', 'bob'), true);
      assert.equal(await a.contacts.get('ins_a', 'bob'), null);
      assert.deepEqual(await a.contacts.upsert('ins_a', { id: 'bob', name: 'N' }), { id: 'bob', name: 'N', notify: '' });
    } finally {
      await b.close();
      await a.close();
    }
  });
});
