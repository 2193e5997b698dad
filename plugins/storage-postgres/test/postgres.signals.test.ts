import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ServiceUnavailableError } from '@parley/core';
import { TcpProxy, describeSignalsConformance, eventually } from '@parley/testkit';
import { PostgresStorage } from '../src/index.js';
import { createTestDatabase, postgresUrlOrSkip, type TestDatabase } from './pg-env.js';

describe('@parley/storage-postgres signals (LISTEN/NOTIFY among the servers on one database and schema)', () => {
  const serverUrl = postgresUrlOrSkip('postgres signals');
  if (!serverUrl) return;
  const target = new URL(serverUrl);
  let database: TestDatabase;
  const stores: PostgresStorage[] = [];
  before(async () => {
    database = await createTestDatabase(serverUrl, 'signals');
  });
  after(async () => {
    for (const storage of stores) await storage.close();
    await database.drop();
  });
  /** `url` with the test database's name (a proxy's address keeps the database). */
  const via = (port?: number) => {
    const url = new URL(database.url);
    if (port) url.port = String(port);
    return url.toString();
  };
  const open = async (schema: string, port?: number) => {
    const storage = new PostgresStorage({ url: via(port), schema, poolSize: 2, commandTimeoutMs: 1000 });
    await storage.init();
    stores.push(storage);
    return storage;
  };
  describeSignalsConformance('postgres', {
    create: async (schema) => new PostgresStorage({ url: via(), schema, poolSize: 2 }),
    outage: {
      server: { host: target.hostname, port: Number(target.port || 5432) },
      create: async (schema, port) => new PostgresStorage({ url: via(port), schema, poolSize: 2, commandTimeoutMs: 1000 }),
      // The listening connection is pinged every commandTimeoutMs; a ping unanswered for as long replaces it.
      silentMs: 2500,
    },
  });

  it('a large message is stored, its notification carries the row, and old rows go with a later large publish', async () => {
    const storage = await open('large');
    const heard: string[] = [];
    await storage.signals().subscribe('big', (m) => heard.push(m));
    const big = 'x'.repeat(9000);
    assert.equal(await storage.signals().publish('big', big), 1, 'one listening connection on the schema');
    assert.ok(await eventually(async () => heard.length === 1));
    assert.equal(heard[0], big);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      assert.equal((await admin.query('SELECT 1 FROM large.signal_payloads')).rowCount, 1);
      await admin.query("UPDATE large.signal_payloads SET at = at - interval '2 minutes'");
      await storage.signals().publish('big', `${big}y`);
      assert.equal((await admin.query('SELECT 1 FROM large.signal_payloads')).rowCount, 1, 'the old row was deleted');
      // The boundary: a payload of 7999 bytes travels in the notification itself.
      await storage.signals().publish('big', 'z'.repeat(7998));
      assert.equal((await admin.query('SELECT 1 FROM large.signal_payloads')).rowCount, 1);
    } finally {
      await admin.end();
    }
    assert.ok(await eventually(async () => heard.length === 3));
    assert.deepEqual(heard.map((m) => m.length), [9000, 9001, 7998]);
  });

  it('a subscription while PostgreSQL refuses fails with ServiceUnavailableError; the next one opens the listening connection', async () => {
    const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    try {
      const storage = await open('refused', proxy.port);
      const direct = await open('refused');
      const heard: string[] = [];
      await proxy.refuse();
      await assert.rejects(storage.signals().subscribe('t', (m) => heard.push(`first: ${m}`)), ServiceUnavailableError);
      await proxy.pass();
      await storage.signals().subscribe('t', (m) => heard.push(m));
      await direct.signals().publish('t', 'now');
      assert.ok(await eventually(async () => heard.length === 1));
      assert.deepEqual(heard, ['now'], 'the failed subscription hears nothing');
    } finally {
      await proxy.cut();
    }
  });

  it('long topic names map to valid channels, each its own', async () => {
    const storage = await open('topics');
    const heard: string[] = [];
    const long = 't'.repeat(300);
    await storage.signals().subscribe(long, (m) => heard.push(`long:${m}`));
    await storage.signals().subscribe(`${long}2`, (m) => heard.push(`long2:${m}`));
    await storage.signals().publish(long, 'one');
    assert.ok(await eventually(async () => heard.length === 1));
    assert.deepEqual(heard, ['long:one']);
  });
});
