import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import {
  defaultInstanceFlags, defaultWebhookSettings, ServiceUnavailableError, UniqueClaimConflictError, type InstanceRecord, type Logger, type NewDelivery,
} from '@parley/core';
import { SCHEMA_VERSION, SqliteStorage } from '../src/index.js';
import { MIGRATIONS } from '../src/migrations.js';

const root = mkdtempSync(join(tmpdir(), 'parley-sqlite-'));
let files = 0;
after(() => rmSync(root, { recursive: true, force: true }));

function freshFile(): string {
  return join(root, `case-${++files}`, 'nested', 'parley.db');
}

async function opened(file: string): Promise<SqliteStorage> {
  const storage = new SqliteStorage({ file });
  await storage.init();
  return storage;
}

function delivery(id: string, url: string): NewDelivery {
  return { id, instance: 'ins_a', url, format: 'native', eventId: 'message-text', eventType: 'messages.upsert', body: '{}', createdAt: 1_000 };
}

describe('SqliteStorage file', () => {
  it('creates the directory, uses WAL and records the schema version', async () => {
    const file = freshFile();
    const storage = new SqliteStorage({ file });
    assert.equal(existsSync(file), false, 'nothing is written before init');
    await storage.init();
    await storage.close();
    const raw = new Database(file, { readonly: true });
    try {
      assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
      assert.equal(raw.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    } finally {
      raw.close();
    }
  });

  it('reopening a migrated file keeps its data and version', async () => {
    const file = freshFile();
    const first = await opened(file);
    await first.state.put('ns', 'doc', { kept: true });
    await first.close();
    const second = await opened(file);
    assert.deepEqual(await second.state.get('ns', 'doc'), { kept: true });
    await second.close();
    const raw = new Database(file, { readonly: true });
    assert.equal(raw.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    raw.close();
  });

  it('keeps its files private: a new directory 0700, the database, -wal and -shm 0600; looser files are tightened and logged', async () => {
    const file = freshFile();
    const mode = (path: string) => statSync(path).mode & 0o777;
    const previousUmask = process.umask(0o022);
    try {
      const storage = await opened(file);
      await storage.state.put('ns', 'doc', { secret: true });
      await storage.flush();
      assert.equal(mode(dirname(file)), 0o700);
      for (const path of [file, `${file}-wal`, `${file}-shm`]) assert.equal(mode(path), 0o600, path);
      await storage.close();

      // Files left readable by others (an older Parley, a copy, a WAL left by a crash) are tightened at the next start.
      writeFileSync(`${file}-wal`, '');
      for (const path of [file, `${file}-wal`]) chmodSync(path, 0o644);
      const warnings: unknown[][] = [];
      const logger: Logger = { child: () => logger, trace() {}, debug() {}, info() {}, warn: (...args) => warnings.push(args), error() {}, fatal() {} };
      const storage2 = new SqliteStorage({ file, logger });
      await storage2.init();
      assert.deepEqual(warnings, [[{ files: [file, `${file}-wal`] }, 'sqlite files were readable by other users: permissions tightened to 0600']]);
      assert.deepEqual(await storage2.state.get('ns', 'doc'), { secret: true });
      await storage2.flush();
      for (const path of [file, `${file}-wal`, `${file}-shm`]) assert.equal(mode(path), 0o600, path);
      await storage2.close();
    } finally {
      process.umask(previousUmask);
    }
  });

  it('migrates a version 1 database: each message keeps the status its record held', async () => {
    const file = freshFile();
    mkdirSync(join(file, '..'), { recursive: true });
    const raw = new Database(file);
    raw.exec(MIGRATIONS[0]!);
    raw.pragma('user_version = 1');
    const insert = raw.prepare('INSERT INTO messages (instance, id, chat, timestamp, record) VALUES (?, ?, ?, ?, ?)');
    for (const [id, status] of [['M1', 'READ'], ['M2', 'DELIVERY_ACK']]) {
      insert.run('ins_a', id, '1@s.whatsapp.net', 1, JSON.stringify({ key: { id, remoteJid: '1@s.whatsapp.net', fromMe: true }, messageTimestamp: '1', status }));
    }
    raw.close();
    const storage = await opened(file);
    assert.equal((await storage.messages.get('ins_a', 'M1'))?.status, 'READ');
    assert.equal(await storage.messages.setStatus('ins_a', 'M1', 'DELIVERY_ACK'), true);
    assert.equal((await storage.messages.get('ins_a', 'M1'))?.status, 'READ', 'a status never moves backwards');
    assert.equal(await storage.messages.setStatus('ins_a', 'M2', 'READ'), true);
    const page = await storage.messages.listByChat('ins_a', '1@s.whatsapp.net', { page: 1, limit: 10 });
    assert.deepEqual(page.items.map((m) => [m.key.id, m.status]).sort(), [['M1', 'READ'], ['M2', 'READ']]);
    await storage.close();
  });

  it('refuses a database written by a newer schema', async () => {
    const file = freshFile();
    mkdirSync(join(file, '..'), { recursive: true });
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    const storage = new SqliteStorage({ file });
    await assert.rejects(storage.init(), { message: `sqlite database schema version ${SCHEMA_VERSION + 1} is newer than this build's ${SCHEMA_VERSION}: upgrade Parley` });
    assert.deepEqual(await storage.health(), { ready: false, detail: 'sqlite storage is not open' });
  });

  it('answers ServiceUnavailableError when used before init or after close', async () => {
    const storage = new SqliteStorage({ file: freshFile() });
    await assert.rejects(storage.instances.list(), ServiceUnavailableError);
    await storage.init();
    assert.deepEqual(await storage.instances.list(), []);
    await storage.close();
    await assert.rejects(storage.deliveries.nextDueAt(), ServiceUnavailableError);
  });
});

describe('SqliteStorage background checkpoints', () => {
  /** 1,200 writes of 2 KiB in one commit (about 2.4 MiB of WAL: below the writer's own checkpoint threshold); answers the file's size after `waitMs`. */
  async function sizeAfterWrites(storage: SqliteStorage, file: string, waitMs: number): Promise<number> {
    await Promise.all(Array.from({ length: 1_200 }, (_, i) => storage.state.put('bulk', `doc-${i}`, { text: 'x'.repeat(2 * 1024) })));
    await storage.flush();
    const until = Date.now() + waitMs;
    while (Date.now() < until && statSync(file).size < 2 * 1024 * 1024) await new Promise((r) => setTimeout(r, 50));
    return statSync(file).size;
  }

  it('a database that keeps writing is checkpointed by a worker thread, outside the commits', async () => {
    const file = freshFile();
    const storage = await opened(file);
    try {
      // Only a checkpoint moves pages from the WAL into the database file.
      assert.ok(await sizeAfterWrites(storage, file, 5_000) >= 2 * 1024 * 1024, 'the database file holds the checkpointed pages');
      assert.equal(((await storage.state.get<{ text: string }>('bulk', 'doc-1199'))?.text.length), 2 * 1024);
    } finally {
      await storage.close();
    }
    // SQLite removes the WAL when its last connection closes: the thread's connection closed first.
    assert.equal(existsSync(`${file}-wal`), false, 'no connection is left open after close()');
    const reopened = await opened(file);
    assert.equal((await reopened.state.list('bulk')).length, 1_200);
    await reopened.close();
  });

  it('a process with a checkpoint thread exits cleanly, whether or not it closed the store', async () => {
    // Node 24 aborted such processes at exit (better-sqlite3 12: a Statement collected after its
    // thread's environment was gone). A child process shows the exit status a user would see.
    for (const close of [true, false]) {
      const file = freshFile();
      const script = `
        import { SqliteStorage } from ${JSON.stringify(new URL('../src/index.js', import.meta.url).href)};
        const storage = new SqliteStorage({ file: ${JSON.stringify(file)} });
        await storage.init();
        await Promise.all(Array.from({ length: 1_200 }, (_, i) => storage.state.put('bulk', 'doc-' + i, { i })));
        await storage.flush();
        await new Promise((resolve) => setTimeout(resolve, 600));
        if (${close}) await storage.close();`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code, signal] = await once(child, 'exit');
      assert.deepEqual({ code, signal, output }, { code: 0, signal: null, output: '' }, `close: ${close}`);
    }
  });

  it('without background checkpoints the same writes stay in the WAL until the writer checkpoints', async () => {
    const file = freshFile();
    const storage = new SqliteStorage({ file, backgroundCheckpoints: false });
    await storage.init();
    try {
      assert.ok(await sizeAfterWrites(storage, file, 600) < 1024 * 1024);
    } finally {
      await storage.close();
    }
  });
});

/** A minimal instance record. */
function instance(id: string): InstanceRecord {
  return {
    id, key: `key_${id}`, name: '', driver: 'sandbox', createdAt: 1_700_000_000_000, flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(),
    webhookSecret: 'whsec', user: null, phoneConnected: false, wantsConnection: false, health: 'healthy', driverOptions: {}, links: {},
  };
}

describe('SqliteStorage shared by two connections (two processes on one file)', () => {
  it('a second storage sees what the first committed, while both are open and after the first closes', async () => {
    const file = freshFile();
    const writer = await opened(file);
    const reader = await opened(file);
    try {
      await writer.messages.upsert('ins_a', {
        key: { remoteJid: 'a@s.whatsapp.net', fromMe: true, id: 'M1' }, message: { conversation: 'hi' }, messageTimestamp: '10', status: 'PENDING',
      });
      await writer.deliveries.enqueue([delivery('d1', 'http://127.0.0.1:1/a')]);
      await writer.deliveries.fail('d1', { nextAttemptAt: 5_000, error: 'HTTP 500', status: 500, responseTimeMs: 8 });
      assert.equal((await reader.messages.get('ins_a', 'M1'))?.message.conversation, 'hi');
      assert.deepEqual(await reader.deliveries.stats('ins_a'), { totalSent: 0, totalFailed: 1, totalPending: 1, avgResponseTime: 8 });
      await writer.close();
      const third = await opened(file);
      assert.equal(await third.deliveries.nextDueAt(), 5_000);
      assert.equal(await third.messages.setStatus('ins_a', 'M1', 'READ'), true);
      await third.close();
      assert.equal((await reader.messages.get('ins_a', 'M1'))?.status, 'READ');
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  it('a unique value claimed through one connection is refused through the other, and freed by a delete there', async () => {
    const file = freshFile();
    const one = await opened(file);
    const two = await opened(file);
    try {
      const claim = { namespace: 'sandbox:number', value: '5511900000001' };
      await one.instances.create(instance('ins_c1'), [claim]);
      // Group commit: the write is another connection's to see once the batch commits.
      await one.flush();
      await assert.rejects(two.instances.create(instance('ins_c2'), [claim]), UniqueClaimConflictError);
      await two.flush();
      assert.equal(await two.instances.claimHolder(claim.namespace, claim.value), 'ins_c1');
      assert.equal(await two.instances.get('ins_c2'), null);
      assert.equal(await two.instances.delete('ins_c1'), true);
      await two.flush();
      assert.equal(await one.instances.claimHolder(claim.namespace, claim.value), null);
      await one.instances.create(instance('ins_c3'), [claim]);
      await one.flush();
      assert.equal(await two.instances.claimHolder(claim.namespace, claim.value), 'ins_c3');
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('two connections claiming together never lease the same delivery', async () => {
    const file = freshFile();
    const one = await opened(file);
    const two = await opened(file);
    try {
      const heads = Array.from({ length: 6 }, (_, i) => delivery(`d${i}`, `http://127.0.0.1:1/${i}`));
      await one.deliveries.enqueue(heads);
      const claims = await Promise.all([
        one.deliveries.claim({ now: 2_000, limit: 4, leaseMs: 60_000 }),
        two.deliveries.claim({ now: 2_000, limit: 4, leaseMs: 60_000 }),
        one.deliveries.claim({ now: 2_000, limit: 4, leaseMs: 60_000 }),
      ]);
      const ids = claims.flat().map((claimed) => claimed.id);
      assert.deepEqual([...ids].sort(), heads.map((head) => head.id).sort());
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe('SqliteStorage webhook statistics', () => {
  it('counts of acks and fails not yet committed are part of a statistics read in the same turn, and of the commit', async () => {
    const file = freshFile();
    const storage = await opened(file);
    try {
      await storage.deliveries.enqueue([delivery('s1', 'http://127.0.0.1:1/a'), delivery('s2', 'http://127.0.0.1:1/b'), delivery('s3', 'http://127.0.0.1:1/c')]);
      const acks = [
        storage.deliveries.ack('s1', { responseTimeMs: 10, status: 200 }),
        storage.deliveries.ack('s2', { responseTimeMs: 30, status: 200 }),
        storage.deliveries.fail('s3', { nextAttemptAt: 9_000, error: 'HTTP 500', status: 500, responseTimeMs: 20 }),
      ];
      // Same turn: nothing is committed yet.
      assert.deepEqual(await storage.deliveries.stats('ins_a'), { totalSent: 2, totalFailed: 1, totalPending: 1, avgResponseTime: 20 });
      await Promise.all(acks);
      await storage.deliveries.ack('s3', { responseTimeMs: 40, status: 200 });
    } finally {
      await storage.close();
    }
    const reopened = await opened(file);
    assert.deepEqual(await reopened.deliveries.stats('ins_a'), { totalSent: 3, totalFailed: 1, totalPending: 0, avgResponseTime: 25 });
    await reopened.close();
  });
});

describe('SqliteStorage query plans', () => {
  it('every lookup path reads an index', async () => {
    const file = freshFile();
    await (await opened(file)).close();
    const raw = new Database(file, { readonly: true });
    const plan = (sql: string) => (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail).join(' | ');
    try {
      assert.match(plan("SELECT record FROM instances WHERE id = 'i'"), /USING INDEX sqlite_autoindex_instances_1/);
      assert.match(plan("SELECT record FROM instances WHERE key = 'k'"), /USING INDEX sqlite_autoindex_instances_2/);
      assert.match(plan('SELECT seq, record FROM instances WHERE seq > 5 ORDER BY seq LIMIT 3'), /SEARCH instances USING INTEGER PRIMARY KEY \(rowid>\?\)/);
      assert.match(plan("SELECT instance FROM instance_claims WHERE namespace = 'n' AND value = 'v'"), /SEARCH instance_claims USING PRIMARY KEY/);
      assert.match(plan("DELETE FROM instance_claims WHERE instance = 'i'"), /USING COVERING INDEX instance_claims_by_instance|USING INDEX instance_claims_by_instance/);
      assert.match(plan("SELECT record FROM messages WHERE instance = 'i' AND id = 'm'"), /USING INDEX sqlite_autoindex_messages_1/);
      assert.match(plan("SELECT seq FROM deliveries WHERE id = 'd'"), /USING COVERING INDEX sqlite_autoindex_deliveries_1/);
      assert.match(plan('SELECT record FROM instances ORDER BY created_at, seq'), /instances_by_age/);
      assert.doesNotMatch(plan("SELECT chat FROM chats WHERE instance = 'i' ORDER BY timestamp DESC, id"), /TEMP B-TREE/);
      // The scans of `parley storage copy`: a range of each primary key, in its order.
      for (const [table, scan] of [['chats', "SELECT id, chat FROM chats WHERE instance = +'i' AND id > +'a' ORDER BY id LIMIT 3"],
        ['contacts', "SELECT id, contact FROM contacts WHERE instance = +'i' AND id > +'a' ORDER BY id LIMIT 3"],
        ['state', "SELECT id, value FROM state WHERE namespace = +'n' AND id > +'a' ORDER BY id LIMIT 3"]] as const) {
        assert.match(plan(scan), new RegExp(`^SEARCH ${table} USING PRIMARY KEY \\((instance|namespace)=\\? AND id>\\?\\)$`));
      }
      // The lane-head skip scan: each step seeks the next lane, then its oldest delivery.
      assert.match(
        plan("SELECT n.url FROM deliveries AS n WHERE n.dead_at IS NULL AND n.instance = 'i' AND n.url > 'u' ORDER BY n.url LIMIT 1"),
        /SEARCH n USING COVERING INDEX deliveries_lanes \(instance=\? AND url>\?\)/,
      );
      assert.match(
        plan("SELECT n.instance FROM deliveries AS n WHERE n.dead_at IS NULL AND n.instance > 'i' ORDER BY n.instance LIMIT 1"),
        /SEARCH n USING COVERING INDEX deliveries_lanes \(instance>\?\)/,
      );
      assert.match(plan("SELECT MIN(seq) FROM deliveries WHERE dead_at IS NULL AND instance = 'i' AND url = 'u'"), /COVERING INDEX deliveries_lanes \(instance=\? AND url=\?\)/);
      assert.match(plan("SELECT COUNT(*) FROM deliveries WHERE instance = 'i' AND dead_at IS NULL"), /COVERING INDEX deliveries_lanes \(instance=\?\)/);
      assert.match(plan("SELECT id, value FROM auth_state WHERE instance = 'i' AND category = 'c' AND id IN (SELECT value FROM json_each('[1]'))"), /SEARCH auth_state USING PRIMARY KEY/);
      assert.match(plan("SELECT * FROM deliveries WHERE instance = 'i' AND dead_at IS NOT NULL ORDER BY dead_at, seq"), /USING INDEX deliveries_dead/);
      assert.match(plan('SELECT * FROM deliveries WHERE dead_at IS NOT NULL AND dead_at < 5'), /USING INDEX deliveries_dead_age/);
      // An outbound claim's two writes, whatever the number of heads: rowid and primary-key lookups.
      assert.match(plan("UPDATE outbound SET lease_until = 1 WHERE seq IN (SELECT value FROM json_each('[1]'))"), /^SEARCH outbound USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      assert.match(plan("UPDATE outbound_lanes SET ready_at = 1 WHERE (instance, lane) IN (SELECT value ->> 0, value ->> 1 FROM json_each('[]'))"),
        /^SEARCH outbound_lanes USING PRIMARY KEY \(instance=\? AND lane=\?\)/);
    } finally {
      raw.close();
    }
  });
});
