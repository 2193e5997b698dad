import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ServiceUnavailableError, type NewDelivery } from '@parley/core';
import { SqliteStorage } from '@parley/storage-sqlite';
import { describeOnSmallDisk, logLines, useSmallDiskServer } from '../support/small-disk.js';
import { waitUntilDelivered } from '../support/webhook-receivers.js';

function delivery(id: string, url = 'http://127.0.0.1:9/hook'): NewDelivery {
  return { id, instance: 'i1', url, format: 'native', eventId: id, eventType: 'message', body: '{}', createdAt: 1_000 };
}

describeOnSmallDisk('SQLite on a full disk', (small) => {

  describe('the store', () => {
    let storage: SqliteStorage;
    before(async () => {
      storage = new SqliteStorage({ file: join(small.dir, 'store', 'parley.db'), backgroundCheckpoints: false, integrityCheck: false });
      await storage.init();
    });
    after(async () => {
      small.free();
      await storage.close();
    });

    it('fails every caller of a failed commit, leases nothing, says why on /readyz, and recovers', async () => {
      await storage.deliveries.enqueue([delivery('d1')]);
      assert.equal(await storage.outbound.enqueue({ id: 'o1', instance: 'i1', lane: 'a', dueAt: 1_000, createdAt: 1_000, payload: '{}' }, 10), 'queued');
      await storage.flush();
      small.fill();
      // Writes of one turn share a batch; the claim commits it at once and fails with it.
      await storage.state.put('ns', 'a', 'x'.repeat(64 << 10));
      await storage.state.put('ns', 'b', 'y'.repeat(64 << 10));
      await assert.rejects(storage.deliveries.claim({ now: 2_000, limit: 10, leaseMs: 60_000 }), (err: unknown) =>
        err instanceof ServiceUnavailableError && /sqlite commit failed: SQLITE_FULL/.test(err.message));
      await assert.rejects(storage.flush(), /SQLITE_FULL/, "the state writes' flush fails too");
      assert.equal(await storage.state.get('ns', 'a'), null, 'the rolled-back write is gone');
      const health = await storage.health();
      assert.equal(health.ready, false);
      assert.match(health.detail!, /^cannot write: SQLITE_FULL/);

      small.free();
      await new Promise((r) => setTimeout(r, 1_100));
      assert.deepEqual(await storage.health(), { ready: true }, 'the write probe succeeds once there is room');
      const claimed = await storage.deliveries.claim({ now: 2_000, limit: 10, leaseMs: 60_000 });
      assert.deepEqual(claimed.map((d) => d.id), ['d1'], 'the delivery was never leased by the failed claim');
      assert.deepEqual(await storage.deliveries.claim({ now: 2_001, limit: 10, leaseMs: 60_000 }), [], 'and is leased now');
    });

    it('a statement after which SQLite rolled the whole batch back fails the batch at once and drops what it kept for its commit', async () => {
      await storage.deliveries.enqueue([delivery('d2', 'http://127.0.0.1:9/other')]);
      assert.deepEqual((await storage.deliveries.claim({ now: 3_000, limit: 10, leaseMs: 60_000 })).map((d) => d.id), ['d2']);
      small.fill();
      // One event-loop turn (awaits of settled promises only): the ack and the writes share a batch,
      // which outgrows SQLite's page cache; the spill finds no room and SQLite rolls everything back.
      const acked = storage.deliveries.ack('d2', { responseTimeMs: 5, status: 200 });
      let failed: unknown;
      for (let i = 0; i < 4_000 && !failed; i++) await storage.state.put('ns', `spill-${i}`, 'v'.repeat(8_000)).catch((err: unknown) => (failed = err));
      assert.match(String((failed as Error)?.message), /SQLITE_FULL/, 'a statement failed');
      // Room again before the turn ends: nothing of the rolled-back batch may be committed by its end.
      small.free();
      await assert.rejects(acked, /SQLITE_FULL/, 'the ack made before it failed with the batch');
      const stats = await storage.deliveries.stats('i1');
      assert.equal(stats.totalSent, 0, 'the rolled-back ack is not counted by a later batch');
      assert.deepEqual((await storage.deliveries.claim({ now: 70_000, limit: 10, leaseMs: 60_000 })).map((d) => d.id), ['d1', 'd2'], 'd2 is still queued');
    });

    it('answers an outbound claim only once its lease is committed', async () => {
      small.fill();
      // 2 MiB in the claim's batch: more than any room left inside the WAL file, so the commit fails.
      const big = storage.state.put('ns', 'big', 'z'.repeat(2 << 20));
      await assert.rejects(storage.outbound.claim({ now: 2_000, limit: 10, leaseMs: 60_000 }), /SQLITE_FULL/);
      await big;
      await assert.rejects(storage.flush(), /SQLITE_FULL/);
      small.free();
      assert.deepEqual((await storage.outbound.claim({ now: 2_000, limit: 10, leaseMs: 60_000 })).map((o) => o.id), ['o1'], 'the failed claim leased nothing');
      assert.deepEqual(await storage.outbound.claim({ now: 2_001, limit: 10, leaseMs: 60_000 }), []);
    });
  });

  describe('the server', () => {
    const env = useSmallDiskServer(small, [500, 1_000, 2_000, 4_000, 8_000, 16_000]);
    let sender: { key: string };
    let target: { key: string; number: string };
    before(async () => {
      const { t, receiver } = env;
      sender = await t.connectedSandbox({ name: 'sender', number: '5511973000001' });
      const created = await t.connectedSandbox({ name: 'target', number: '5511973000002' });
      target = { key: created.key, number: '5511973000002' };
      const put = await t.client(created.key).call('updateWebhookSettings', { body: { allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiver.url}/msg` } });
      assert.equal(put.status, 200);
    });

    it('sends nothing while claims cannot commit, answers 503, backs off with few lines, and delivers each event once when space returns', async () => {
      const { t, receiver } = env;
      const send = (text: string) => t.request('POST', `/${sender.key}/message/text`, { to: target.number, text });
      assert.equal((await send('before')).status, 200);
      await waitUntilDelivered(t, [target.key]);
      const before = receiver.requests.length;
      // The receiver is away while the disk fills, so that nothing reaches it before the store is full,
      // and a delivery waits for its retry when it does.
      await receiver.down();
      assert.equal((await send('queued')).status, 200);
      await t.waitFor(() => logLines(t, (msg) => msg.startsWith('webhook attempt failed')).length > 0, 5_000, 'a refused attempt');
      small.fill();
      // The WAL file may still have room for a few commits: the disk is full when a send cannot commit.
      let full = await send('while full 0');
      for (let i = 1; full.status === 200 && i < 300; i++) full = await send(`while full ${i}`);
      assert.equal(full.status, 503, JSON.stringify(full.body));
      assert.equal(full.body.error.code, 'service_unavailable');
      assert.match(full.body.error.message, /SQLITE_FULL/);
      await receiver.up();
      // Past the lease of attempts whose outcome could not be booked: they are due again, and unclaimable.
      await new Promise((r) => setTimeout(r, 5_000));
      assert.equal(receiver.requests.length, before, 'nothing is sent on a lease the store could not record');
      const ready = await t.request('GET', '/readyz');
      assert.equal(ready.status, 503);
      assert.match(ready.body.error.message, /^storage sqlite is not ready: cannot write: SQLITE_FULL/);
      assert.equal(logLines(t, (msg) => msg.startsWith('sqlite storage cannot write')).length, 1, 'the store says it once');
      const retries = logLines(t, (msg) => msg.startsWith('delivery queue unavailable'));
      assert.ok(retries.length >= 1 && retries.length <= 2, `${retries.length} worker lines in 5 s`);
      assert.equal(retries[0]!.level, 50);
      assert.equal(retries[0]!.retryInMs, 1_000);

      small.free();
      await t.waitFor(async () => (await t.request('GET', '/readyz')).status === 200, 5_000, '/readyz ready again');
      await waitUntilDelivered(t, [target.key], 40_000);
      const ids = receiver.requests.slice(before).map((r) => String(r.headers['webhook-id']));
      assert.ok(ids.length >= 1, 'the queued event arrived');
      assert.equal(new Set(ids).size, ids.length, `no delivery arrived twice: ${ids.join(', ')}`);
      assert.equal(logLines(t, (msg) => msg.startsWith('sqlite storage writes again')).length, 1);
      assert.deepEqual(logLines(t, (msg) => msg.startsWith('event handling')), [], 'the events whose writes did not commit were held, none given up');
      assert.ok(logLines(t, (msg) => msg.startsWith('delivery queue available again')).length >= 1);
    });
  });
});
