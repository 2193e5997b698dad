import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { MessageRecord, NewDelivery } from '@parley/core';
import { FakeClock } from '@parley/testkit';
import { PostgresStorage, SCHEMA_VERSION } from '../src/index.js';
import { createTestDatabase, postgresUrlOrSkip, type TestDatabase } from './pg-env.js';

const DAY_S = 86_400;

function message(id: string, timestamp: number): MessageRecord {
  return { key: { remoteJid: '5511988887777@s.whatsapp.net', fromMe: true, id }, message: { conversation: id }, messageTimestamp: String(timestamp), status: 'PENDING' };
}

function delivery(lane: number): NewDelivery {
  return {
    id: `dlv_${lane}`, instance: `ins_${lane % 5}`, url: `http://127.0.0.1:9/lane-${lane}`, format: 'native', eventId: 'e', eventType: 'message',
    body: '{}', createdAt: 1_000,
  };
}

describe('@parley/storage-postgres on a PostgreSQL server', () => {
  const serverUrl = postgresUrlOrSkip('postgres storage: migrations, pool, claims across nodes and retention');
  if (!serverUrl) return;
  let database: TestDatabase;
  let admin: pg.Client;
  const opened: PostgresStorage[] = [];
  const open = (options: ConstructorParameters<typeof PostgresStorage>[0], clock?: FakeClock) => {
    const storage = new PostgresStorage({ url: database.url, ...options }, undefined, clock);
    opened.push(storage);
    return storage;
  };
  before(async () => {
    database = await createTestDatabase(serverUrl, 'storage');
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  after(async () => {
    await Promise.all(opened.map((storage) => storage.close()));
    await admin.end();
    await database.drop();
  });

  it('migrates once when several nodes start at once, and again finds nothing to do', async () => {
    const nodes = [0, 1, 2, 3].map(() => open({ schema: 'concurrent', poolSize: 2 }));
    await Promise.all(nodes.map((node) => node.init()));
    const applied = await admin.query<{ version: number }>('SELECT version FROM concurrent.parley_schema ORDER BY version');
    assert.deepEqual(applied.rows.map((row) => row.version), Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    const restarted = open({ schema: 'concurrent' });
    await restarted.init();
    assert.equal((await admin.query('SELECT 1 FROM concurrent.parley_schema')).rowCount, SCHEMA_VERSION);
  });

  it('refuses a schema a newer build wrote, changing nothing', async () => {
    await open({ schema: 'newer' }).init();
    await admin.query('INSERT INTO newer.parley_schema (version) VALUES ($1)', [SCHEMA_VERSION + 1]);
    const older = open({ schema: 'newer' });
    await assert.rejects(older.init(), new RegExp(`postgres schema newer is at version ${SCHEMA_VERSION + 1}, newer than this build's ${SCHEMA_VERSION}: upgrade Parley`));
    assert.deepEqual((await older.health()).ready, false);
  });

  it('never opens more connections than poolSize, whatever the concurrency', async () => {
    const storage = open({ schema: 'pool', poolSize: 3 });
    await storage.init();
    await Promise.all(Array.from({ length: 200 }, (_, i) => storage.messages.upsert('ins_pool', message(`m${i}`, 1_700_000_000 + i))));
    // Idle connections stay open for 30 s: what is connected now is what the load opened.
    // Connections name the schema they serve (application_name `parley:<schema>`): this storage's only.
    const connected = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'parley:pool'");
    await storage.close();
    const own = connected.rows[0]!.n;
    assert.ok(own >= 1 && own <= 3, `${own} connections for a pool of 3`);
    assert.equal((await admin.query<{ n: number }>("SELECT n::int FROM pool.chat_message_counts WHERE instance = 'ins_pool'")).rows[0]!.n, 200);
  });

  it('hands every lane head to exactly one of several nodes claiming at once (SKIP LOCKED)', async () => {
    const nodes = [0, 1, 2].map(() => open({ schema: 'claims', poolSize: 3 }));
    await Promise.all(nodes.map((node) => node.init()));
    await nodes[0]!.deliveries.enqueue(Array.from({ length: 60 }, (_, lane) => delivery(lane)));
    const claimed: string[] = [];
    for (let round = 0; round < 10 && claimed.length < 60; round++) {
      const batches = await Promise.all(nodes.flatMap((node) => [node, node].map(() => node.deliveries.claim({ now: 2_000, limit: 7, leaseMs: 60_000 }))));
      for (const batch of batches) claimed.push(...batch.map((d) => d.id));
    }
    assert.equal(claimed.length, 60, 'every head claimed once');
    assert.equal(new Set(claimed).size, 60, 'no head claimed twice');
    assert.equal(await nodes[1]!.deliveries.nextDueAt(), 62_000);
  });

  it('keeps each chat\'s total through inserts, replaces, moves between chats and deletes of one or many', async () => {
    const storage = open({ schema: 'counts' });
    await storage.init();
    const [a, b] = ['5511900000001@s.whatsapp.net', '5511900000002@s.whatsapp.net'];
    const total = async (chat: string) => (await storage.messages.listByChat('ins_c', chat, { page: 1, limit: 1 })).total;
    const inChat = (chat: string, id: string, timestamp: number): MessageRecord => ({ ...message(id, timestamp), key: { remoteJid: chat, fromMe: true, id } });
    for (let i = 0; i < 5; i++) await storage.messages.upsert('ins_c', inChat(a, `m${i}`, 1_700_000_000 + i));
    await storage.messages.upsert('ins_c', inChat(a, 'm0', 1_700_000_100));
    await storage.messages.setStatus('ins_c', 'm1', 'READ');
    assert.deepEqual([await total(a), await total(b)], [5, 0], 'a replace and a status change count nothing');
    await storage.messages.upsert('ins_c', inChat(b, 'm2', 1_700_000_002));
    assert.deepEqual([await total(a), await total(b)], [4, 1], 'a message moved to another chat');
    assert.equal(await storage.messages.delete('ins_c', ['m3', 'm4', 'missing']), 2);
    assert.deepEqual([await total(a), await total(b)], [2, 1]);
    assert.equal(await storage.messages.deleteChat('ins_c', a), 2);
    await storage.messages.clear('ins_c');
    assert.deepEqual([await total(a), await total(b)], [0, 0]);
  });

  it('deletes messages older than messageRetentionDays on its sweep, by the injected clock', async () => {
    const clock = new FakeClock();
    // The messages are dated ten days after the clock's start: the sweep that init starts (beside the
    // writes below, on other connections) finds nothing to delete, whichever runs first.
    const now = Math.floor(clock.now() / 1000) + 10 * DAY_S;
    const storage = open({ schema: 'retention', messageRetentionDays: 2 }, clock);
    await storage.init();
    await storage.messages.upsert('ins_r', message('old', now - 3 * DAY_S));
    await storage.messages.upsert('ins_r', message('recent', now - DAY_S));
    clock.advance(10 * DAY_S * 1000);
    assert.equal(await storage.sweepRetention(), 1);
    assert.equal(await storage.messages.get('ins_r', 'old'), null);
    assert.deepEqual(await storage.messages.get('ins_r', 'recent'), message('recent', now - DAY_S));
    assert.equal((await storage.messages.listByChat('ins_r', '5511988887777@s.whatsapp.net', { page: 1, limit: 10 })).total, 1);
  });
});
