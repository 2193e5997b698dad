import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ServiceUnavailableError, defaultInstanceFlags, defaultWebhookSettings, type InstanceRecord, type MessageRecord } from '@parley/core';
import { RedisStorage } from '../src/index.js';
import { deleteKeys, redisUrlOrSkip, uniquePrefix } from './redis-env.js';
import { TcpProxy, eventually } from '@parley/testkit';

const T = 1_000_000;

function instance(): InstanceRecord {
  return {
    id: 'ins_outage', key: 'key_outage_secret', name: 'outage', driver: 'sandbox', createdAt: 1_700_000_000_000,
    flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(), webhookSecret: 'whsec_x', user: null,
    phoneConnected: false, wantsConnection: true, health: 'healthy', driverOptions: {}, links: {},
  };
}

const message: MessageRecord = {
  key: { remoteJid: '5511988887777@s.whatsapp.net', fromMe: true, id: '3EB0OUTAGE' },
  message: { conversation: 'before the outage' }, messageTimestamp: '1700000000', status: 'PENDING',
};

describe('@parley/storage-redis when Redis becomes unreachable', () => {
  it('fails start-up with ServiceUnavailableError that never shows the password', async () => {
    // Port 1 on loopback refuses connections: no Redis needed.
    const storage = new RedisStorage({ url: 'redis://parley:s3cret-pass@127.0.0.1:1', connectAttempts: 1 });
    await assert.rejects(storage.init(), (err: unknown) => {
      assert.ok(err instanceof ServiceUnavailableError);
      assert.equal(err.status, 503);
      assert.match(err.message, /^cannot connect to redis at redis:\/\/\*\*\*@127\.0\.0\.1:1/);
      assert.doesNotMatch(err.message, /s3cret-pass/);
      return true;
    });
    assert.deepEqual(await storage.health(), { ready: false, detail: 'not connected' });
    await assert.rejects(storage.instances.get('ins_x'), ServiceUnavailableError);
    await storage.close();
  });

  const url = redisUrlOrSkip('redis outage behaviour');
  if (!url) return;
  const target = new URL(url);
  const prefix = uniquePrefix('outage');
  after(() => deleteKeys(url, prefix));

  /** A storage reaching Redis through a fresh loopback proxy, so a test can cut or stall the link. */
  const behindProxy = async (commandTimeoutMs: number, pingIntervalMs?: number): Promise<{ proxy: TcpProxy; storage: RedisStorage }> => {
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.start();
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    return { proxy, storage: new RedisStorage({ url: proxied.toString(), keyPrefix: prefix, commandTimeoutMs, ...(pingIntervalMs ? { pingIntervalMs } : {}) }) };
  };

  it('reports not ready and rejects operations with 503 during an outage, then reconnects with data intact', { timeout: 30_000 }, async () => {
    const { proxy, storage } = await behindProxy(2_000);
    try {
      await storage.init();
      const record = instance();
      const delivery = {
        id: 'dlv_outage', instance: record.id, url: 'http://127.0.0.1:9/hook', format: 'native', eventId: 'message-text',
        eventType: 'messages.upsert', body: '{"event":"messages.upsert"}', createdAt: T,
      };
      await storage.instances.create(record);
      await storage.messages.upsert(record.id, message);
      await storage.deliveries.enqueue([delivery]);

      await proxy.cut();
      assert.equal(await eventually(async () => !(await storage.health()).ready), true, 'health never went not-ready');
      const health = await storage.health();
      assert.equal(health.ready, false);
      assert.match(health.detail ?? '', /unreachable/);
      for (const operation of [
        () => storage.instances.get(record.id),
        () => storage.messages.upsert(record.id, { ...message, status: 'READ' }),
        () => storage.deliveries.claim({ now: T, limit: 10, leaseMs: 1_000 }),
        () => storage.deliveries.ack(delivery.id, { status: 200, responseTimeMs: 1 }),
      ]) {
        await assert.rejects(operation(), (err: unknown) => err instanceof ServiceUnavailableError && err.status === 503);
      }

      await proxy.restore();
      assert.equal(await eventually(async () => (await storage.health()).ready, 200, 50), true, 'never reconnected');
      assert.deepEqual(await storage.instances.get(record.id), record);
      assert.deepEqual(await storage.instances.findByKey(record.key), record);
      assert.deepEqual(await storage.messages.get(record.id, message.key.id), message);
      assert.deepEqual(await storage.deliveries.claim({ now: T, limit: 10, leaseMs: 1_000 }), [{ ...delivery, attempts: 0, nextAttemptAt: T }]);
      assert.deepEqual(await storage.deliveries.stats(record.id), { totalSent: 0, totalFailed: 0, totalPending: 1, avgResponseTime: 0 });
    } finally {
      await storage.close();
      await proxy.cut();
    }
  });

  it('fails a call with 503 when Redis stops answering, answers again once it does, and closes while it does not', { timeout: 30_000 }, async () => {
    const { proxy, storage } = await behindProxy(300);
    try {
      await storage.init();
      await storage.state.put('outage', 'doc', { n: 1 });
      proxy.stall();
      await assert.rejects(storage.state.get('outage', 'doc'), (err: unknown) =>
        err instanceof ServiceUnavailableError && /did not answer within 300 ms/.test(err.message));
      proxy.resume();
      assert.equal(await eventually(async () => (await storage.health()).ready, 100, 50), true);
      assert.deepEqual(await storage.state.get('outage', 'doc'), { n: 1 });
      // A call left unanswered must not hold close() (and so the server's shutdown) forever.
      proxy.stall();
      const unanswered = storage.state.get('outage', 'doc').catch((err: unknown) => err);
      await storage.close();
      assert.ok(await unanswered instanceof ServiceUnavailableError);
    } finally {
      await storage.close();
      await proxy.cut();
    }
  });

  it('replaces a connection that went silent (a black hole): not ready meanwhile, answering again once the link is back, although bytes were lost', { timeout: 30_000 }, async () => {
    const { proxy, storage } = await behindProxy(400, 100);
    try {
      await storage.init();
      await storage.state.put('outage', 'silent', { n: 2 });
      proxy.blackhole();
      // Sent into the black hole: neither these nor their answers ever arrive.
      await assert.rejects(storage.state.get('outage', 'silent'), (err: unknown) => err instanceof ServiceUnavailableError && err.status === 503);
      assert.equal(await eventually(async () => !(await storage.health()).ready, 100, 50), true, 'health went not ready');
      await new Promise((r) => setTimeout(r, 1000));
      await proxy.pass();
      // The old connection waits for answers that were dropped: only a new one answers again.
      assert.equal(await eventually(async () => (await storage.health()).ready, 200, 50), true, 'never answered again after the black hole');
      assert.deepEqual(await storage.state.get('outage', 'silent'), { n: 2 });
    } finally {
      await storage.close();
      await proxy.cut();
    }
  });
});
