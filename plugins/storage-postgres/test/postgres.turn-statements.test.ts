import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { getMessages } from '@parley/core';
import { messageRecord } from '@parley/testkit';
import { openTestStorage, postgresUrlOrSkip, type StorageUnderTest } from './pg-env.js';

/** The texts of the statements node-postgres sends while `work` runs (observed, not changed). */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const texts: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function observed(this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    texts.push(typeof config === 'string' ? config : config.text ?? '');
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query;
  }
  return texts;
}

describe('@parley/storage-postgres: the key reads and the upserts of one turn, each in one statement', () => {
  const serverUrl = postgresUrlOrSkip('postgres storage: statements of one turn');
  if (!serverUrl) return;
  let t: StorageUnderTest;
  before(async () => {
    t = await openTestStorage(serverUrl, 'turn', {});
  });
  after(async () => t?.close());

  it('writes a turn\'s messages, chats, contacts and state documents in one statement, as the calls one by one would', async () => {
    const { storage } = t;
    await storage.chats.upsert('i1', { id: 'c1', name: 'Stored', timestamp: 5, unreadCount: 2 });
    await storage.contacts.upsert('i1', { id: 'k1', notify: 'N', imgUrl: 'http://x/1' });
    await storage.state.put('ns', 'gone', { v: 1 });
    const texts = await statementsOf(() => Promise.all([
      storage.messages.upsert('i1', messageRecord('c1', 'm1', 10)),
      storage.messages.upsert('i2', messageRecord('c1', 'm1', 11, 'SERVER_ACK')),
      storage.chats.upsert('i1', { id: 'c1', timestamp: 10, unreadCount: 3 }),
      storage.chats.upsert('i1', { id: 'c2', name: 'New' }),
      storage.contacts.upsert('i1', { id: 'k1', imgUrl: null }),
      storage.state.put('ns', 'kept', { v: 2 }),
      storage.state.delete('ns', 'gone'),
      storage.state.delete('ns', 'never'),
    ]));
    assert.equal(texts.length, 1, `one statement, not ${texts.length}`);
    assert.equal((await storage.messages.get('i1', 'm1'))?.messageTimestamp, messageRecord('c1', 'm1', 10).messageTimestamp);
    assert.equal((await storage.messages.get('i2', 'm1'))?.status, 'SERVER_ACK');
    // A stored chat gets the given fields alone (its name stays), a new one the contract's defaults; the list's order follows the merged timestamp.
    assert.deepEqual(await storage.chats.get('i1', 'c1'), { id: 'c1', name: 'Stored', timestamp: 10, unreadCount: 3 });
    assert.deepEqual(await storage.chats.get('i1', 'c2'), { id: 'c2', name: 'New', timestamp: 0, unreadCount: 0 });
    assert.deepEqual((await storage.chats.list('i1')).map((c) => c.id), ['c1', 'c2']);
    // A field given as null is removed.
    assert.deepEqual(await storage.contacts.get('i1', 'k1'), { id: 'k1', name: '', notify: 'N' });
    assert.deepEqual(await storage.state.get('ns', 'kept'), { v: 2 });
    assert.equal(await storage.state.get('ns', 'gone'), null);
  });

  it('answers each write of the statement as the call alone would (the stored document, whether a delete found its row)', async () => {
    const { storage } = t;
    await storage.state.put('answers', 'there', 1);
    const [chat, contact, found, missing] = await Promise.all([
      storage.chats.upsert('i3', { id: 'c', name: 'C', timestamp: 7 }),
      storage.contacts.upsert('i3', { id: 'k', notify: 'K' }),
      storage.state.delete('answers', 'there'),
      storage.state.delete('answers', 'not-there'),
    ]);
    assert.deepEqual(chat, { id: 'c', name: 'C', timestamp: 7, unreadCount: 0 });
    assert.equal(contact.notify, 'K');
    assert.equal(found, true);
    assert.equal(missing, false);
  });

  it('applies writes of one key made in one turn in the order they were made', async () => {
    const { storage } = t;
    const texts = await statementsOf(() => Promise.all([
      storage.chats.upsert('i4', { id: 'c', name: 'First', timestamp: 1 }),
      storage.chats.upsert('i4', { id: 'c', timestamp: 2, unreadCount: 4 }),
      storage.state.put('order', 'a', 'put first'),
      storage.state.delete('order', 'a'),
      storage.state.delete('order', 'b'),
      storage.state.put('order', 'b', 'put last'),
    ]));
    assert.equal(texts.length, 2, 'a key written twice starts a second statement');
    assert.deepEqual(await storage.chats.get('i4', 'c'), { id: 'c', name: 'First', timestamp: 2, unreadCount: 4 });
    assert.equal(await storage.state.get('order', 'a'), null);
    assert.equal(await storage.state.get('order', 'b'), 'put last');
  });

  it('fails only the caller of a write that fails for itself; the others of its turn are stored', async () => {
    const { storage } = t;
    // PostgreSQL's text refuses NUL characters: this message's row fails, alone.
    const [bad, chat, put] = await Promise.allSettled([
      storage.messages.upsert('i5', messageRecord('c', 'bad\u0000id', 1)),
      storage.chats.upsert('i5', { id: 'c', name: 'C' }),
      storage.state.put('fail', 'x', true),
    ]);
    assert.equal(bad.status, 'rejected');
    assert.equal(chat.status, 'fulfilled');
    assert.equal(put.status, 'fulfilled');
    assert.equal((await storage.chats.get('i5', 'c'))?.name, 'C');
    assert.equal(await storage.state.get('fail', 'x'), true);
  });

  it('reads a turn\'s messages, chats and contacts by key in one statement, a missing one as null', async () => {
    const { storage } = t;
    await storage.messages.upsert('i6', messageRecord('c', 'm', 3, 'DELIVERY_ACK'));
    await storage.chats.upsert('i6', { id: 'c', name: 'C' });
    await storage.contacts.upsert('i6', { id: 'k', notify: 'K' });
    let found: unknown[] = [];
    const texts = await statementsOf(async () => {
      found = await Promise.all([
        storage.messages.get('i6', 'm'), getMessages(storage.messages, 'i6', ['m', 'none', 'm']), storage.chats.get('i6', 'c'),
        storage.contacts.get('i6', 'k'), storage.chats.get('i6', 'k'), storage.contacts.get('other', 'k'),
      ]);
    });
    assert.equal(texts.length, 1, `one statement, not ${texts.length}`);
    const [message, many, chat, contact, chatOfContactKey, otherInstance] = found as [
      { status: string }, ({ key: { id: string } } | null)[], { name: string }, { notify: string }, unknown, unknown,
    ];
    assert.equal(message.status, 'DELIVERY_ACK');
    assert.deepEqual(many.map((m) => m?.key.id ?? null), ['m', null, 'm']);
    assert.equal(chat.name, 'C');
    assert.equal(contact.notify, 'K');
    assert.equal(chatOfContactKey, null);
    assert.equal(otherInstance, null);
  });
});
