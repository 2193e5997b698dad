import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SqliteStorage } from '../src/index.js';

const root = mkdtempSync(join(tmpdir(), 'parley-sqlite-undo-'));
after(() => rmSync(root, { recursive: true, force: true }));

type Connection = { exec(sql: string): void; close(): void };
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => Connection;

const T = 7_000_000;

/**
 * An enqueue and a completion write two rows without a savepoint (SqliteDatabase.undoable): when the
 * second write fails and the batch stays open, the first is reversed, and the commit holds neither. The
 * failure is SQLite's own: a trigger another connection adds aborts the lane write (RAISE(ABORT) undoes
 * that statement only and leaves the transaction open, as a full disk may).
 */
describe('SqliteOutboundQueue: a write that fails half-way leaves nothing of it', () => {
  it('enqueue: the entry written before its lane head failed is taken out again; the batch commits the rest', async () => {
    const file = join(root, 'enqueue.db');
    const storage = new SqliteStorage({ file });
    await storage.init();
    const other = new Database(file);
    try {
      other.exec("CREATE TRIGGER refuse_lane BEFORE INSERT ON outbound_lanes WHEN NEW.lane = 'boom' BEGIN SELECT RAISE(ABORT, 'lane refused'); END");
      const send = (id: string, lane: string) => ({ id, instance: 'ins_a', lane, dueAt: T, createdAt: T, payload: '{}' });
      await storage.outbound.enqueue(send('ok', 'fine'), 10);
      await assert.rejects(storage.outbound.enqueue(send('m1', 'boom'), 10), /lane refused/);
      await storage.flush();
      assert.equal(await storage.outbound.get('ins_a', 'm1'), null);
      assert.equal(await storage.outbound.count('ins_a'), 1);
      assert.deepEqual((await storage.outbound.claim({ now: T, limit: 10, leaseMs: 1_000 })).map((e) => e.id), ['ok']);
    } finally {
      other.close();
      await storage.close();
    }
  });

  it('complete: the entry deleted before its lane failed to move on is put back as it was', async () => {
    const file = join(root, 'complete.db');
    const storage = new SqliteStorage({ file });
    await storage.init();
    const other = new Database(file);
    try {
      await storage.outbound.enqueue({ id: 'm1', instance: 'ins_a', lane: 'boom', dueAt: T, createdAt: T, payload: '{"n":1}' }, 10);
      const [claimed] = await storage.outbound.claim({ now: T, limit: 10, leaseMs: 1_000 });
      await storage.flush();
      other.exec("CREATE TRIGGER refuse_lane BEFORE DELETE ON outbound_lanes WHEN OLD.lane = 'boom' BEGIN SELECT RAISE(ABORT, 'lane refused'); END");
      await assert.rejects(storage.outbound.complete('ins_a', 'm1'), /lane refused/);
      await storage.flush();
      assert.deepEqual(await storage.outbound.get('ins_a', 'm1'), claimed);
      assert.equal(await storage.outbound.count('ins_a'), 1);
      other.exec('DROP TRIGGER refuse_lane');
      await storage.outbound.complete('ins_a', 'm1');
      await storage.flush();
      assert.equal(await storage.outbound.count('ins_a'), 0);
      assert.equal(await storage.outbound.nextDueAt(), null);
    } finally {
      other.close();
      await storage.close();
    }
  });

  it('a new message whose place in its chat failed to be counted is taken out again, on the common path and the rarer ones', async () => {
    const file = join(root, 'message.db');
    const storage = new SqliteStorage({ file });
    await storage.init();
    const other = new Database(file);
    const message = (id: string, at: number) => ({
      key: { remoteJid: 'boom@s.whatsapp.net', fromMe: true, id }, message: { conversation: id }, messageTimestamp: String(at), status: 'PENDING' as const,
    });
    const page = async () => storage.messages.listByChat('ins_a', 'boom@s.whatsapp.net', { page: 1, limit: 10 });
    try {
      await storage.messages.upsert('ins_a', message('m1', 100));
      await storage.flush();
      other.exec("CREATE TRIGGER refuse_block BEFORE UPDATE ON message_blocks WHEN OLD.chat = 'boom@s.whatsapp.net' BEGIN SELECT RAISE(ABORT, 'block refused'); END");
      // Newer: the chat's last block grows, in one statement, which fails.
      await assert.rejects(storage.messages.upsert('ins_a', message('m2', 200)), /block refused/);
      // Older than every block: the first block's bound moves, in a savepoint of its own, which fails.
      await assert.rejects(storage.messages.upsert('ins_a', message('m0', 50)), /block refused/);
      await storage.flush();
      assert.equal(await storage.messages.get('ins_a', 'm2'), null);
      assert.equal(await storage.messages.get('ins_a', 'm0'), null);
      assert.deepEqual((await page()).items.map((m) => m.key.id), ['m1']);
      assert.equal((await page()).total, 1);
      other.exec('DROP TRIGGER refuse_block');
      await storage.messages.upsert('ins_a', message('m2', 200));
      await storage.messages.upsert('ins_a', message('m0', 50));
      await storage.flush();
      assert.deepEqual(await page(), { items: [message('m2', 200), message('m1', 100), message('m0', 50)], total: 3 });
    } finally {
      other.close();
      await storage.close();
    }
  });
});
