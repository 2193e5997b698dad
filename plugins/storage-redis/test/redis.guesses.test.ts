import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MessageRecord } from '@parley/core';
import { createClient } from 'redis';
import { DocumentGuesses } from '../src/hash-document.js';
import { RedisStorage } from '../src/index.js';
import { deleteKeys, redisUrlOrSkip, uniquePrefix } from './redis-env.js';

const INSTANCE = 'ins_guesses';
const CHAT = '5511970000002@s.whatsapp.net';

function record(id: string): MessageRecord {
  return {
    key: { remoteJid: CHAT, fromMe: true, id },
    message: { conversation: `text of ${id}`, contextInfo: { mentionedJid: [], forwarded: false } },
    messageTimestamp: '1700000000', status: 'PENDING', provider: 'whatsapp',
  };
}

describe('DocumentGuesses', () => {
  it('remembers texts and known absence, and drops the least recently remembered past its limit', () => {
    const guesses = new DocumentGuesses(2);
    guesses.remember('k', 'a', '{"a":1}');
    guesses.remember('k', 'b', null);
    assert.equal(guesses.get('k', 'a'), '{"a":1}');
    assert.equal(guesses.get('k', 'b'), null);
    guesses.remember('k', 'a', '{"a":2}'); // a is now the most recent
    guesses.remember('k', 'c', '{}');
    assert.equal(guesses.get('k', 'b'), undefined);
    assert.equal(guesses.get('k', 'a'), '{"a":2}');
    guesses.forget('k', 'a');
    assert.equal(guesses.get('k', 'a'), undefined);
  });

  it('drops the oldest quarter at once when it passes a larger limit, keeping the most recent', () => {
    const guesses = new DocumentGuesses(8);
    for (let i = 0; i < 9; i++) guesses.remember('k', `f${i}`, String(i));
    // 9 > 8: back to 6, the three least recently remembered gone.
    assert.deepEqual([0, 1, 2].map((i) => guesses.get('k', `f${i}`)), [undefined, undefined, undefined]);
    assert.deepEqual([3, 4, 5, 6, 7, 8].map((i) => guesses.get('k', `f${i}`)), ['3', '4', '5', '6', '7', '8']);
  });
});

/*
 * Each server remembers the documents it last read or wrote and updates from there in one round trip.
 * These tests make the remembered text wrong on purpose — another server on the same prefix writes or
 * deletes in between — and check that no update is lost and no answer rests on the stale text.
 */
describe('@parley/storage-redis updates from remembered documents with two servers on one prefix', () => {
  const url = redisUrlOrSkip('redis remembered documents');
  if (!url) return;
  const prefix = uniquePrefix('guesses');
  const a = new RedisStorage({ url, keyPrefix: prefix });
  const b = new RedisStorage({ url, keyPrefix: prefix });
  const commands = createClient({ url });
  before(async () => {
    await Promise.all([a.init(), b.init(), commands.connect()]);
  });
  after(async () => {
    await Promise.all([a.close(), b.close(), commands.close()]);
    await deleteKeys(url, prefix);
  });

  it('a status change starts from the record just written, in one command, and still sees the other server\'s change', async () => {
    const stored = record('MSG1');
    await a.messages.upsert(INSTANCE, stored);
    // A Redis that has not run the script yet answers the first EVALSHA with NOSCRIPT (then EVAL): load it first.
    await a.messages.upsert(INSTANCE, record('WARM'));
    await a.messages.setStatus(INSTANCE, 'WARM', 'SERVER_ACK');
    const monitor = commands.duplicate();
    await monitor.connect();
    const seen: string[] = [];
    let fenced!: () => void;
    const fence = new Promise<void>((resolve) => { fenced = resolve; });
    await monitor.monitor((line) => {
      if (line.includes(`${prefix}fence`)) fenced();
      else if (line.includes(prefix)) seen.push(line);
    });
    assert.equal(await a.messages.setStatus(INSTANCE, 'MSG1', 'SERVER_ACK'), true);
    // Redis shows commands to MONITOR in the order it runs them: once the fence shows, so has the update.
    await commands.exists(`${prefix}fence`);
    await fence;
    await monitor.close();
    assert.deepEqual(seen.filter((line) => !line.includes('lua]')).map((line) => /"([A-Z]+)"/.exec(line)![1]), ['EVALSHA']);

    // b moves it on; a's remembered text (SERVER_ACK) is now stale.
    assert.equal(await b.messages.setStatus(INSTANCE, 'MSG1', 'READ'), true);
    assert.equal(await a.messages.setStatus(INSTANCE, 'MSG1', 'DELIVERY_ACK'), true);
    assert.equal((await b.messages.get(INSTANCE, 'MSG1'))!.status, 'READ');
    assert.equal(await a.messages.setStatus(INSTANCE, 'MSG1', 'PLAYED'), true);
    assert.deepEqual(await b.messages.get(INSTANCE, 'MSG1'), { ...stored, status: 'PLAYED' });
  });

  it('answers false for a record the other server deleted, although this one remembers it', async () => {
    await a.messages.upsert(INSTANCE, record('MSG2'));
    assert.equal(await a.messages.setStatus(INSTANCE, 'MSG2', 'READ'), true);
    assert.equal(await b.messages.delete(INSTANCE, ['MSG2']), 1);
    // READ is what a remembers, so the change looks like nothing to do: it must still be confirmed.
    assert.equal(await a.messages.setStatus(INSTANCE, 'MSG2', 'READ'), false);
    assert.equal(await a.messages.setStatus(INSTANCE, 'MSG2', 'PLAYED'), false);
    assert.equal(await b.messages.get(INSTANCE, 'MSG2'), null);
  });

  it('setStatuses: remembered records in one script, unknown ones read first; a stale or deleted one is retried and answered from Redis', async () => {
    for (const id of ['B1', 'B2', 'B3']) await a.messages.upsert(INSTANCE, record(id));
    await b.messages.upsert(INSTANCE, record('B4')); // not remembered by a
    assert.equal(await b.messages.setStatus(INSTANCE, 'B2', 'READ'), true); // a's text of B2 is now stale
    assert.equal(await b.messages.delete(INSTANCE, ['B3']), 1); // a still remembers B3
    const answers = await a.messages.setStatuses(INSTANCE, [
      { id: 'B1', status: 'SERVER_ACK' }, { id: 'B2', status: 'DELIVERY_ACK' }, { id: 'B3', status: 'READ' },
      { id: 'B4', status: 'DELIVERY_ACK' }, { id: 'B1', status: 'DELIVERY_ACK' }, { id: 'NONE', status: 'READ' },
    ]);
    assert.deepEqual(answers, [true, true, false, true, true, false]);
    const statuses = await Promise.all(['B1', 'B2', 'B3', 'B4', 'NONE'].map(async (id) => (await b.messages.get(INSTANCE, id))?.status ?? null));
    assert.deepEqual(statuses, ['DELIVERY_ACK', 'READ', null, 'DELIVERY_ACK', null], 'B2 stays READ: DELIVERY_ACK is behind it');
    assert.equal(await b.messages.get(INSTANCE, 'B3'), null, 'a deleted record is not brought back');
  });

  it('merges a chat upsert into what the other server stored, and into the defaults once it deleted the chat', async () => {
    await a.chats.upsert(INSTANCE, { id: CHAT, name: 'Bob' });
    await b.chats.upsert(INSTANCE, { id: CHAT, unreadCount: 3, labels: [] });
    const merged = await a.chats.upsert(INSTANCE, { id: CHAT, pinned: true });
    assert.deepEqual(merged, { id: CHAT, name: 'Bob', timestamp: 0, unreadCount: 3, labels: [], pinned: true });
    assert.deepEqual(await b.chats.get(INSTANCE, CHAT), merged);

    assert.equal(await b.chats.delete(INSTANCE, CHAT), true);
    assert.deepEqual(await a.chats.upsert(INSTANCE, { id: CHAT, timestamp: 5 }), { id: CHAT, name: CHAT, timestamp: 5, unreadCount: 0 });
  });

  it('loses no field when both servers update one contact concurrently', async () => {
    const id = '5511970000003@s.whatsapp.net';
    await a.contacts.upsert(INSTANCE, { id, name: 'start' });
    await b.contacts.get(INSTANCE, id);
    await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => a.contacts.upsert(INSTANCE, { id, name: `a${i}` })),
      ...Array.from({ length: 10 }, (_, i) => b.contacts.upsert(INSTANCE, { id, notify: `b${i}` })),
    ]);
    const final = (await a.contacts.get(INSTANCE, id))!;
    assert.match(final.name, /^a\d$/);
    assert.match(final.notify, /^b\d$/);
    assert.deepEqual(await b.contacts.get(INSTANCE, id), final);
  });
});
